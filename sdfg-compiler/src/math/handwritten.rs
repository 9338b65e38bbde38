//! The subroutines with loops, written out in PTX by hand, and their Rust
//! mirrors: the exact f64 `fmod` (the slow path of float `%`) and `powi`.

/// The exact `fmod` of f64 (musl's bitwise long division, subnormals
/// normalized with `clz`): the PTX `.func` below, operation for operation.
pub fn fmod_mirror(x: f64, y: f64) -> f64 {
    let (ux, uy) = (x.to_bits(), y.to_bits());
    let mut ex = ((ux >> 52) & 0x7ff) as i64;
    let mut ey = ((uy >> 52) & 0x7ff) as i64;
    let sx = ux >> 63;
    if uy << 1 == 0 || y.is_nan() || ex == 0x7ff {
        // NaN, as the PTX computes it: the product divided by itself.
        let product = x * y;
        #[allow(clippy::eq_op)]
        let nan = product / product;
        return nan;
    }
    if ux << 1 <= uy << 1 {
        if ux << 1 == uy << 1 {
            return 0.0 * x;
        }
        return x;
    }
    let frac = (1u64 << 52) - 1;
    let mut mx = ux & frac;
    let mut my = uy & frac;
    if ex == 0 {
        let lz = mx.leading_zeros() as i64;
        mx <<= lz - 11;
        ex = 12 - lz;
    } else {
        mx |= 1 << 52;
    }
    if ey == 0 {
        let lz = my.leading_zeros() as i64;
        my <<= lz - 11;
        ey = 12 - lz;
    } else {
        my |= 1 << 52;
    }
    loop {
        let i = mx.wrapping_sub(my);
        if i >> 63 == 0 {
            if i == 0 {
                return 0.0 * x;
            }
            mx = i;
        }
        if ex <= ey {
            break;
        }
        mx <<= 1;
        ex -= 1;
    }
    let sh = mx.leading_zeros() as i64 - 11;
    mx <<= sh;
    ex -= sh;
    if ex > 0 {
        mx -= 1 << 52;
        mx |= (ex as u64) << 52;
    } else {
        mx >>= 1 - ex;
    }
    f64::from_bits(mx | (sx << 63))
}

/// The PTX `.func` of [`fmod_mirror`].
pub fn fmod_function(name: &str) -> String {
    let normalize_x = normalize_significand("%rd7", "%rd2", "$F_subx", "$F_doney");
    let normalize_y = normalize_significand("%rd8", "%rd3", "$F_suby", "$F_loop");
    format!(
        ".func (.param .f64 ret) {name}(.param .f64 a0, .param .f64 a1)
{{
\t.reg .f64 %fd<4>;
\t.reg .b64 %rd<16>;
\t.reg .b32 %r<4>;
\t.reg .pred %p<8>;
\tld.param.f64 %fd0, [a0];
\tld.param.f64 %fd1, [a1];
\tmov.b64 %rd0, %fd0; // ux
\tmov.b64 %rd1, %fd1; // uy
\tshr.u64 %rd2, %rd0, 52;
\tand.b64 %rd2, %rd2, 2047; // ex
\tshr.u64 %rd3, %rd1, 52;
\tand.b64 %rd3, %rd3, 2047; // ey
\tshr.u64 %rd4, %rd0, 63; // sx
\tshl.b64 %rd5, %rd0, 1;
\tshl.b64 %rd6, %rd1, 1;
\t// y == 0, y NaN or x inf/NaN: NaN
\tsetp.eq.u64 %p0, %rd6, 0;
\tsetp.nan.f64 %p1, %fd1, %fd1;
\tor.pred %p0, %p0, %p1;
\tsetp.eq.u64 %p1, %rd2, 2047;
\tor.pred %p0, %p0, %p1;
\t@!%p0 bra $F_finite;
\tmul.rn.f64 %fd2, %fd0, %fd1;
\tdiv.rn.f64 %fd2, %fd2, %fd2;
\tbra.uni $F_ret;
$F_finite:
\t// |x| <= |y|: x, or a signed zero when equal
\tsetp.gt.u64 %p1, %rd5, %rd6;
\t@%p1 bra $F_work;
\tmov.f64 %fd2, %fd0;
\tsetp.eq.u64 %p2, %rd5, %rd6;
\t@%p2 mul.rn.f64 %fd2, %fd0, 0d0000000000000000;
\tbra.uni $F_ret;
$F_work:
\tand.b64 %rd7, %rd0, 4503599627370495; // mx
\tand.b64 %rd8, %rd1, 4503599627370495; // my
\t// normalize x
{normalize_x}$F_doney:
{normalize_y}$F_loop:
\tsub.s64 %rd12, %rd7, %rd8;
\tsetp.lt.s64 %p4, %rd12, 0;
\t@%p4 bra $F_keep;
\tsetp.eq.u64 %p5, %rd12, 0;
\t@%p5 bra $F_zero;
\tmov.b64 %rd7, %rd12;
$F_keep:
\tsetp.le.s64 %p6, %rd2, %rd3;
\t@%p6 bra $F_norm;
\tshl.b64 %rd7, %rd7, 1;
\tsub.s64 %rd2, %rd2, 1;
\tbra.uni $F_loop;
$F_zero:
\tmul.rn.f64 %fd2, %fd0, 0d0000000000000000;
\tbra.uni $F_ret;
$F_norm:
\tclz.b64 %r0, %rd7;
\tcvt.u64.u32 %rd9, %r0;
\tsub.s64 %rd10, %rd9, 11;
\tcvt.u32.u64 %r1, %rd10;
\tshl.b64 %rd7, %rd7, %r1;
\tsub.s64 %rd2, %rd2, %rd10;
\tsetp.gt.s64 %p6, %rd2, 0;
\t@!%p6 bra $F_subres;
\tsub.s64 %rd7, %rd7, 4503599627370496;
\tshl.b64 %rd13, %rd2, 52;
\tor.b64 %rd7, %rd7, %rd13;
\tbra.uni $F_sign;
$F_subres:
\tmov.b64 %rd11, 1;
\tsub.s64 %rd13, %rd11, %rd2;
\tcvt.u32.u64 %r1, %rd13;
\tshr.u64 %rd7, %rd7, %r1;
$F_sign:
\tshl.b64 %rd14, %rd4, 63;
\tor.b64 %rd7, %rd7, %rd14;
\tmov.b64 %fd2, %rd7;
$F_ret:
\tst.param.f64 [ret], %fd2;
\tret;
}}
"
    )
}

/// The PTX that makes the fraction bits in `mant` and the biased exponent
/// in `exp` an operand of the long division: the implicit bit for a normal
/// number; for a subnormal, `mant` shifted up to bit 52 by its leading
/// zeros and `exp = 12 - clz` (at `label`). Jumps to `next` when done.
fn normalize_significand(mant: &str, exp: &str, label: &str, next: &str) -> String {
    format!(
        "\tsetp.eq.u64 %p3, {exp}, 0;
\t@%p3 bra {label};
\tor.b64 {mant}, {mant}, 4503599627370496;
\tbra.uni {next};
{label}:
\tclz.b64 %r0, {mant};
\tcvt.u64.u32 %rd9, %r0;
\tsub.s64 %rd10, %rd9, 11;
\tcvt.u32.u64 %r1, %rd10;
\tshl.b64 {mant}, {mant}, %r1;
\tmov.b64 %rd11, 12;
\tsub.s64 {exp}, %rd11, %rd9;
"
    )
}

/// The PTX `.func` for `powi` on f32 or f64 (mirrors: [`super::mirror::powi_f64`],
/// [`super::mirror::powi_f32`]).
pub fn powi_function(name: &str, f32_type: bool) -> String {
    let (t, r) = if f32_type {
        ("f32", "%f")
    } else {
        ("f64", "%fd")
    };
    let one = if f32_type {
        "0f3F800000"
    } else {
        "0d3FF0000000000000"
    };
    format!(
        ".func (.param .{t} ret) {name}(.param .{t} a0, .param .s32 a1)
{{
\t.reg .{t} {r}<4>;
\t.reg .b32 %r<4>;
\t.reg .pred %p<4>;
\tld.param.{t} {r}0, [a0];
\tld.param.s32 %r0, [a1];
\tsetp.lt.s32 %p0, %r0, 0;
\tabs.s32 %r1, %r0; // |MIN| stays 0x80000000, read as unsigned below
\tmov.{t} {r}1, {one};
$L_loop:
\tand.b32 %r2, %r1, 1;
\tsetp.ne.u32 %p1, %r2, 0;
\t@%p1 mul.rn.{t} {r}1, {r}1, {r}0;
\tshr.u32 %r1, %r1, 1;
\tsetp.eq.u32 %p2, %r1, 0;
\t@%p2 bra $L_done;
\tmul.rn.{t} {r}0, {r}0, {r}0;
\tbra.uni $L_loop;
$L_done:
\t@%p0 rcp.rn.{t} {r}1, {r}1;
\tst.param.{t} [ret], {r}1;
\tret;
}}
"
    )
}

/// compiler-rt's `__powidf2` / `__powisf2` (f64 / f32), the loop of
/// [`powi_function`] operation for operation: repeated squaring, and the
/// reciprocal for a negative exponent.
pub(super) fn powi_mirror<T>(mut a: T, b: i32, one: T) -> T
where
    T: Copy + std::ops::MulAssign + std::ops::Div<Output = T>,
{
    let recip = b < 0;
    let mut n = b.unsigned_abs();
    let mut r = one;
    loop {
        if n & 1 != 0 {
            r *= a;
        }
        n >>= 1;
        if n == 0 {
            break;
        }
        a *= a;
    }
    if recip {
        one / r
    } else {
        r
    }
}
