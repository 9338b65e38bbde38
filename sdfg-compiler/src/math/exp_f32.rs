//! `exp` on f32 in f32 arithmetic: about 35 straight-line FP32 and integer
//! instructions (inlined into kernels, also as a `.func`), and its Rust
//! mirror, operation for operation.
//!
//! The other f32 functions run their f64 program between two conversions;
//! for `exp` that costs ~20 f64 instructions and 4 conversions per call,
//! and the H200 runs f64 at half the f32 rate and conversions at an eighth:
//! softmax, one `exp` per element, would be bound by it instead of by
//! memory. Within 1 ulp like the f64 route (measured over every f32 input
//! against the correctly rounded value: at most 0.5 + 0.25 ulp by the
//! budget below).
//!
//! The steps, each an IEEE operation with one rounding (`.rn`, never
//! contracted):
//! - clamp `x` to [-104, 89] (beyond, the result is 0 or +inf anyway);
//! - `k = rint(x log2 e)` by one fma with 1.5 * 2^23 (`k` in the low
//!   mantissa bits of the sum; `kf = t - 1.5 * 2^23` exactly);
//! - Cody-Waite: `r_hi = x - kf ln2_hi` exactly (ln2_hi has 15 significant
//!   bits, `|k| <= 150`), `r_lo = -kf ln2_lo`; `rr + e = r_hi + r_lo`
//!   exactly (2Sum), `|rr| <= 0.35`;
//! - `e^r = 1 + rr + e + e rr + rr^2 q(rr)` with `q` the Taylor series of
//!   `(e^r - 1 - r) / r^2` to the `r^6` term (truncation below 2^-31);
//!   `1 + rr = hi + lo` exactly (Fast2Sum), and one final rounding of
//!   `hi + (lo + e (1 + rr) + rr^2 q)`: the small terms carry at most about
//!   0.25 ulp of error into it;
//! - times `2^k` as `2^(k >> 1) * 2^(k - (k >> 1))`: the first product is
//!   exact, the second rounds once (also into subnormals, or to inf/0);
//! - NaN in, NaN out.

const LOG2E: f32 = std::f32::consts::LOG2_E;
/// 1.5 * 2^23: `x + MAGIC` rounds `x` to an integer (|x| < 2^22).
const MAGIC: f32 = 12_582_912.0;
/// ln 2 in two parts: 15 significant bits, then the rest.
const LN2_HI: f32 = f32::from_bits(0x3F31_7200);
const LN2_LO: f32 = f32::from_bits(0x35BF_BE8E);
const LOWEST: f32 = -104.0;
const HIGHEST: f32 = 89.0;
/// Taylor coefficients of `q(r) = (e^r - 1 - r) / r^2`, highest first.
const Q: [f32; 7] = [
    1.0 / 40320.0,
    1.0 / 5040.0,
    1.0 / 720.0,
    1.0 / 120.0,
    1.0 / 24.0,
    1.0 / 6.0,
    0.5,
];

fn hex(v: f32) -> String {
    format!("0f{:08X}", v.to_bits())
}

/// The Rust mirror of [`exp_f32_function`].
pub fn exp_f32_mirror(x: f32) -> f32 {
    // `max.f32`/`min.f32` as in the PTX (NaN gives the bound; `clamp`
    // would keep the NaN: the result is the same, the steps would not be).
    #[allow(clippy::manual_clamp)]
    let xc = x.max(LOWEST).min(HIGHEST);
    let t = xc.mul_add(LOG2E, MAGIC);
    let kf = t - MAGIC;
    let k = (t.to_bits() as i32).wrapping_sub(MAGIC.to_bits() as i32);
    let r_hi = (-kf).mul_add(LN2_HI, xc);
    let r_lo = kf * -LN2_LO;
    let rr = r_hi + r_lo;
    let bb = rr - r_hi;
    let e = (r_hi - (rr - bb)) + (r_lo - bb);
    let mut q = Q[0];
    for c in &Q[1..] {
        q = q.mul_add(rr, *c);
    }
    let tt = rr * rr;
    let hi = 1.0 + rr;
    let lo = (1.0 - hi) + rr;
    let c = e.mul_add(rr, e) + lo;
    let w = tt.mul_add(q, c);
    let m = hi + w;
    let k1 = k >> 1;
    let k2 = k - k1;
    let s1 = f32::from_bits(((k1 + 127) as u32) << 23);
    let s2 = f32::from_bits(((k2 + 127) as u32) << 23);
    let y = (m * s1) * s2;
    if x.is_nan() {
        x
    } else {
        y
    }
}

/// The PTX `.func` `NAME(.param .f32 a0) -> .f32`.
pub fn exp_f32_function(name: &str) -> String {
    format!(
        ".func (.param .f32 ret) {name}(.param .f32 a0)
{{
\t.reg .f32 %f<40>;
\t.reg .b32 %r<10>;
\t.reg .pred %p<2>;
\tld.param.f32 %f0, [a0];
{body}\tst.param.f32 [ret], %f34;
\tret;
}}
",
        body = exp_f32_body()
    )
}

/// `out = exp(arg)` as a nested scope of the kernel body instead of a
/// call: a `.func` call is a scheduling barrier for ptxas and costs the
/// parameter passing, so the ~35 instructions of neighbouring calls (the
/// 16 `exp` of a softmax row per thread) could not interleave. The same
/// instructions as [`exp_f32_function`], on registers of their own (`%ef`,
/// `%er`, `%ep`, declared in the scope; the body is straight-line, without
/// labels, so the scope can repeat).
pub fn exp_f32_inline(arg: &str, out: &str) -> String {
    let body = exp_f32_body()
        .replace("%f", "%ef")
        .replace("%r", "%er")
        .replace("%p", "%ep");
    format!(
        "\t{{
\t.reg .f32 %ef<40>;
\t.reg .b32 %er<10>;
\t.reg .pred %ep<2>;
\tmov.f32 %ef0, {arg};
{body}\tmov.f32 {out}, %ef34;
\t}}
"
    )
}

/// The instructions of `exp`: the argument in `%f0`, the result in `%f34`.
fn exp_f32_body() -> String {
    let mut horner = String::new();
    for (n, c) in Q[1..].iter().enumerate() {
        horner.push_str(&format!(
            "\tfma.rn.f32 %f{}, %f{}, %f7, {};\n",
            21 + n,
            20 + n,
            hex(*c)
        ));
    }
    format!(
        "\tmax.f32 %f1, %f0, {lowest};
\tmin.f32 %f1, %f1, {highest};
\tfma.rn.f32 %f2, %f1, {log2e}, {magic};
\tsub.rn.f32 %f3, %f2, {magic};
\tmov.b32 %r0, %f2;
\tsub.s32 %r0, %r0, {magic_bits};
\tneg.f32 %f4, %f3;
\tfma.rn.f32 %f5, %f4, {ln2_hi}, %f1;
\tmul.rn.f32 %f6, %f3, {neg_ln2_lo};
\tadd.rn.f32 %f7, %f5, %f6;
\tsub.rn.f32 %f8, %f7, %f5;
\tsub.rn.f32 %f9, %f7, %f8;
\tsub.rn.f32 %f10, %f5, %f9;
\tsub.rn.f32 %f11, %f6, %f8;
\tadd.rn.f32 %f12, %f10, %f11;
\tmov.f32 %f20, {q0};
{horner}\tmul.rn.f32 %f13, %f7, %f7;
\tadd.rn.f32 %f14, %f7, 0f3F800000;
\tsub.rn.f32 %f15, 0f3F800000, %f14;
\tadd.rn.f32 %f15, %f15, %f7;
\tfma.rn.f32 %f16, %f12, %f7, %f12;
\tadd.rn.f32 %f16, %f16, %f15;
\tfma.rn.f32 %f17, %f13, %f26, %f16;
\tadd.rn.f32 %f18, %f14, %f17;
\tshr.s32 %r1, %r0, 1;
\tsub.s32 %r2, %r0, %r1;
\tadd.s32 %r1, %r1, 127;
\tshl.b32 %r1, %r1, 23;
\tadd.s32 %r2, %r2, 127;
\tshl.b32 %r2, %r2, 23;
\tmov.b32 %f30, %r1;
\tmov.b32 %f31, %r2;
\tmul.rn.f32 %f32, %f18, %f30;
\tmul.rn.f32 %f33, %f32, %f31;
\tsetp.nan.f32 %p0, %f0, %f0;
\tselp.f32 %f34, %f0, %f33, %p0;
",
        lowest = hex(LOWEST),
        highest = hex(HIGHEST),
        log2e = hex(LOG2E),
        magic = hex(MAGIC),
        magic_bits = MAGIC.to_bits(),
        ln2_hi = hex(LN2_HI),
        neg_ln2_lo = hex(-LN2_LO),
        q0 = hex(Q[0]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ulps between `got` and `want` (f32, same sign region).
    fn ulps(got: f32, want: f32) -> u32 {
        let key = |v: f32| {
            let b = v.to_bits() as i64;
            if b & 0x8000_0000 != 0 {
                -(b & 0x7FFF_FFFF)
            } else {
                b
            }
        };
        (key(got) - key(want)).unsigned_abs() as u32
    }

    #[test]
    fn edges_and_a_sweep_are_within_one_ulp_of_the_rounded_f64_exp() {
        for (x, want) in [
            (0.0f32, 1.0f32),
            (-0.0, 1.0),
            (f32::INFINITY, f32::INFINITY),
            (f32::NEG_INFINITY, 0.0),
            (89.0, f32::INFINITY),
            (88.8, f32::INFINITY),
            (-104.0, 0.0),
            (-1000.0, 0.0),
        ] {
            assert_eq!(exp_f32_mirror(x), want, "exp({x})");
        }
        assert!(exp_f32_mirror(f32::NAN).is_nan());
        // Every 4099th bit pattern (about a million inputs over all
        // exponents), against exp in f64 rounded once to f32.
        let mut worst = 0;
        for bits in (0..=u32::MAX).step_by(4099) {
            let x = f32::from_bits(bits);
            if x.is_nan() {
                continue;
            }
            let want = (x as f64).exp() as f32;
            let got = exp_f32_mirror(x);
            let u = ulps(got, want);
            assert!(u <= 1, "exp({x:e}): {got:e} vs {want:e} ({u} ulp)");
            worst = worst.max(u);
        }
        assert!(worst <= 1);
    }
}
