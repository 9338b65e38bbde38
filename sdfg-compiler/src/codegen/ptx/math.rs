//! Transcendental functions for the PTX backend, written once and run twice.
//!
//! PTX has no f64 `exp`, `ln`, `sin`, `cos`, `tanh` or `pow`, and its f32
//! `.approx` instructions are too inaccurate (tanh.approx: ~2^-11 relative).
//! Each function here is a *branch-free straight-line program* over the small
//! instruction set of [`Ops`]. The program is generic: [`PtxOps`] turns it
//! into the body of a PTX `.func` (one instruction per call), [`Interp`]
//! executes it in Rust with exactly the semantics of those PTX instructions
//! (`fma.rn` is `f64::mul_add`, `cvt.rni` is `round_ties_even`, ...). The
//! Rust run is therefore an instruction-by-instruction mirror of the PTX by
//! construction, and the tests compare it with `std` over many inputs to
//! establish the bounds in [`super::ULP_BOUNDS`].
//!
//! f32 versions convert to f64 (exact), run the f64 program and round once
//! with `cvt.rn.f32.f64`.
//!
//! `powi` (a loop) and its mirror are written out by hand below: repeated
//! squaring exactly as compiler-rt's `__powidf2`/`__powisf2`, which is what
//! Rust's `powi` calls, so it is bit-exact.

use std::fmt::Write;

/// The instruction set of the math programs. `F`: an f64 value, `I`: an
/// i64/b64 value, `P`: a predicate.
pub trait Ops {
    type F: Copy;
    type I: Copy;
    type P: Copy;
    fn fconst(&mut self, v: f64) -> Self::F;
    fn iconst(&mut self, v: i64) -> Self::I;
    /// `add.rn.f64`
    fn add(&mut self, a: Self::F, b: Self::F) -> Self::F;
    /// `sub.rn.f64`
    fn sub(&mut self, a: Self::F, b: Self::F) -> Self::F;
    /// `mul.rn.f64`
    fn mul(&mut self, a: Self::F, b: Self::F) -> Self::F;
    /// `div.rn.f64`
    fn div(&mut self, a: Self::F, b: Self::F) -> Self::F;
    /// `fma.rn.f64`: a * b + c with one rounding.
    fn fma(&mut self, a: Self::F, b: Self::F, c: Self::F) -> Self::F;
    /// `neg.f64`
    fn neg(&mut self, a: Self::F) -> Self::F;
    /// `abs.f64`
    fn abs(&mut self, a: Self::F) -> Self::F;
    /// `cvt.rni.f64.f64`: round to nearest integer, ties to even.
    fn rint(&mut self, a: Self::F) -> Self::F;
    /// `cvt.rzi.s64.f64` (saturating, NaN -> 0).
    fn f2i(&mut self, a: Self::F) -> Self::I;
    /// `cvt.rn.f64.s64`
    fn i2f(&mut self, a: Self::I) -> Self::F;
    /// `mov.b64` f64 -> bits
    fn bits(&mut self, a: Self::F) -> Self::I;
    /// `mov.b64` bits -> f64
    fn float(&mut self, a: Self::I) -> Self::F;
    fn iadd(&mut self, a: Self::I, b: Self::I) -> Self::I;
    fn isub(&mut self, a: Self::I, b: Self::I) -> Self::I;
    fn iand(&mut self, a: Self::I, b: Self::I) -> Self::I;
    fn ior(&mut self, a: Self::I, b: Self::I) -> Self::I;
    /// `shl.b64` by a constant
    fn ishl(&mut self, a: Self::I, n: u32) -> Self::I;
    /// `shr.s64` (arithmetic) by a constant
    fn isar(&mut self, a: Self::I, n: u32) -> Self::I;
    /// `setp.lt.f64` (ordered)
    fn flt(&mut self, a: Self::F, b: Self::F) -> Self::P;
    /// `setp.gt.f64` (ordered)
    fn fgt(&mut self, a: Self::F, b: Self::F) -> Self::P;
    /// `setp.eq.f64` (ordered)
    fn feq(&mut self, a: Self::F, b: Self::F) -> Self::P;
    /// `setp.nan.f64`: either operand NaN
    fn isnan(&mut self, a: Self::F) -> Self::P;
    /// `setp.lt.s64`
    fn ilt(&mut self, a: Self::I, b: Self::I) -> Self::P;
    /// `setp.eq.s64`
    fn ieq(&mut self, a: Self::I, b: Self::I) -> Self::P;
    fn pand(&mut self, a: Self::P, b: Self::P) -> Self::P;
    fn por(&mut self, a: Self::P, b: Self::P) -> Self::P;
    fn pnot(&mut self, a: Self::P) -> Self::P;
    /// `selp.f64 d, a, b, p` (p ? a : b)
    fn sel(&mut self, p: Self::P, a: Self::F, b: Self::F) -> Self::F;
    /// `selp.b64`
    fn seli(&mut self, p: Self::P, a: Self::I, b: Self::I) -> Self::I;
    /// `mul.lo.u64` (wrapping)
    fn imul_lo(&mut self, a: Self::I, b: Self::I) -> Self::I;
    /// `mul.hi.u64`: the high 64 bits of the unsigned 128-bit product
    fn imul_hi(&mut self, a: Self::I, b: Self::I) -> Self::I;
    /// `shr.u64` (logical) by a constant
    fn ishr(&mut self, a: Self::I, n: u32) -> Self::I;
    /// `shl.b64` by a register amount (amounts >= 64 give 0)
    fn ishl_var(&mut self, a: Self::I, n: Self::I) -> Self::I;
    /// `shr.u64` by a register amount (amounts >= 64 give 0)
    fn ishr_var(&mut self, a: Self::I, n: Self::I) -> Self::I;
    /// `setp.lt.u64`
    fn iult(&mut self, a: Self::I, b: Self::I) -> Self::P;
    /// `cvt.rn.f64.u64`
    fn u2f(&mut self, a: Self::I) -> Self::F;
    /// Starts a block the PTX skips (a branch) when `p` is false. Values
    /// computed inside must only be used through a `sel` on `p`; the Rust
    /// executor computes them anyway, which cannot change a selected result.
    fn skip_unless(&mut self, p: Self::P) -> u32;
    fn end_skip(&mut self, label: u32);
}

/// Horner evaluation `((c[0] * x + c[1]) * x + ...) + c[n-1]` with `fma.rn`.
fn horner<O: Ops>(o: &mut O, x: O::F, coeffs: &[f64]) -> O::F {
    let mut acc = o.fconst(coeffs[0]);
    for &c in &coeffs[1..] {
        let k = o.fconst(c);
        acc = o.fma(acc, x, k);
    }
    acc
}

fn factorial(n: u32) -> f64 {
    (1..=n).fold(1.0f64, |a, k| a * k as f64)
}

/// ln(2) split so that `k * LN2_HI` is exact for |k| < 2^21.
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
/// pi/2 = PIO2_1 + PIO2_2 + PIO2_3 (~139 bits); PIO2_1 has 33 significant
/// bits, so `k * PIO2_1` is exact for |k| < 2^20.
const PIO2_1: f64 = f64::from_bits(0x3ff9_21fb_5440_0000);
const PIO2_2: f64 = f64::from_bits(0x3dd0_b461_1a62_6331);
const PIO2_3: f64 = f64::from_bits(0x3a71_701b_839a_2520);
/// 2/3 = TWO_THIRDS_HI + TWO_THIRDS_LO (double-double).
const TWO_THIRDS_HI: f64 = 2.0 / 3.0;
const TWO_THIRDS_LO: f64 = 3.700743415417188e-17;
const TWO_OVER_PI: f64 = f64::from_bits(0x3fe4_5f30_6dc9_c883);
/// Below this |x|, sin/cos use the Cody-Waite reduction (above: Payne-Hanek).
pub const TRIG_DOMAIN: f64 = PAYNE_HANEK_FROM;

/// e^x. Reduction x = k ln2 + r (|r| <= ln2/2, Cody-Waite with a two-part
/// ln2), degree-13 Taylor polynomial for e^r (truncation < 2^-57), scaling
/// by 2^k in two steps so subnormal results round once.
pub fn exp_prog<O: Ops>(o: &mut O, x: O::F) -> O::F {
    exp_core(o, x, None)
}

/// e^(x + lo) for a double-double argument (|lo| <= ulp(x)): the low part
/// joins the reduced argument.
fn exp_core<O: Ops>(o: &mut O, x: O::F, x_lo: Option<O::F>) -> O::F {
    // Clamp so k stays in [-1077, 1025]; out there the result is 0 or inf anyway.
    let lo = o.fconst(-746.0);
    let hi = o.fconst(710.0);
    let below = o.flt(x, lo);
    let xc = o.sel(below, lo, x);
    let above = o.fgt(xc, hi);
    let xc = o.sel(above, hi, xc);
    let log2e = o.fconst(std::f64::consts::LOG2_E);
    let t = o.mul(xc, log2e);
    let kf = o.rint(t);
    let nkf = o.neg(kf);
    let ln2hi = o.fconst(LN2_HI);
    let ln2lo = o.fconst(LN2_LO);
    let r = o.fma(nkf, ln2hi, xc);
    let r = o.fma(nkf, ln2lo, r);
    let r = match x_lo {
        Some(l) => o.add(r, l),
        None => r,
    };
    let coeffs: Vec<f64> = (0..=13).rev().map(|n| 1.0 / factorial(n)).collect();
    let p = horner(o, r, &coeffs);
    let k = o.f2i(kf);
    let k1 = o.isar(k, 1);
    let k2 = o.isub(k, k1);
    let bias = o.iconst(1023);
    let e1 = o.iadd(k1, bias);
    let e1 = o.ishl(e1, 52);
    let s1 = o.float(e1);
    let e2 = o.iadd(k2, bias);
    let e2 = o.ishl(e2, 52);
    let s2 = o.float(e2);
    let y = o.mul(p, s1);
    let y = o.mul(y, s2);
    let nan = o.isnan(x);
    o.sel(nan, x, y)
}

/// ln(x). x = 2^e m with m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact),
/// s = f / (2 + f), ln(1 + f) = f - s (f - R(s^2)) with the atanh series
/// R(z) = sum 2 z^k / (2k + 1) to k = 11; ln x = e ln2_hi + (e ln2_lo + ln(1+f)).
pub fn ln_prog<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let min_normal = o.fconst(f64::MIN_POSITIVE);
    let sub = o.flt(x, min_normal);
    let two54 = o.fconst(18014398509481984.0);
    let xs_scaled = o.mul(x, two54);
    let xs = o.sel(sub, xs_scaled, x);
    let b = o.bits(xs);
    let biased = o.isar(b, 52);
    let expmask = o.iconst(0x7ff);
    let biased = o.iand(biased, expmask);
    let minus1077 = o.iconst(-1023 - 54);
    let minus1023 = o.iconst(-1023);
    let adj = o.seli(sub, minus1077, minus1023);
    let e = o.iadd(biased, adj);
    let mant_mask = o.iconst(0x000f_ffff_ffff_ffff);
    let one_bits = o.iconst(0x3ff0_0000_0000_0000);
    let mbits = o.iand(b, mant_mask);
    let mbits = o.ior(mbits, one_bits);
    let sqrt2_bits = o.iconst(0x3ff6_a09e_667f_3bcd);
    let big = o.ilt(sqrt2_bits, mbits);
    let one_exp = o.iconst(1 << 52);
    let halved = o.isub(mbits, one_exp);
    let mbits = o.seli(big, halved, mbits);
    let one_i = o.iconst(1);
    let e_plus = o.iadd(e, one_i);
    let e = o.seli(big, e_plus, e);
    let m = o.float(mbits);
    let one = o.fconst(1.0);
    let two = o.fconst(2.0);
    let f = o.sub(m, one);
    let den = o.add(two, f);
    let s = o.div(f, den);
    let z = o.mul(s, s);
    let coeffs: Vec<f64> = (1..=11).rev().map(|k| 2.0 / (2 * k + 1) as f64).collect();
    let poly = horner(o, z, &coeffs);
    let r = o.mul(z, poly);
    let f_minus_r = o.sub(f, r);
    let sfr = o.mul(s, f_minus_r);
    let log1p = o.sub(f, sfr);
    let ef = o.i2f(e);
    let ln2lo = o.fconst(LN2_LO);
    let ln2hi = o.fconst(LN2_HI);
    let t = o.fma(ef, ln2lo, log1p);
    let y = o.fma(ef, ln2hi, t);
    // Special values: ln(+-0) = -inf, ln(x < 0) = NaN, ln(inf) = inf, NaN -> NaN.
    let zero = o.fconst(0.0);
    let ninf = o.fconst(f64::NEG_INFINITY);
    let pinf = o.fconst(f64::INFINITY);
    let nan_c = o.fconst(f64::NAN);
    let is_zero = o.feq(x, zero);
    let y = o.sel(is_zero, ninf, y);
    let is_neg = o.flt(x, zero);
    let y = o.sel(is_neg, nan_c, y);
    let is_inf = o.feq(x, pinf);
    let y = o.sel(is_inf, pinf, y);
    let nan = o.isnan(x);
    o.sel(nan, x, y)
}

/// ln(x) as a double-double (hi + lo, relative error about 2^-60) for
/// finite x > 0; for 0, inf, NaN and x < 0 the `hi` of [`ln_prog`]'s special
/// cases (lo = 0). Same decomposition as `ln_prog`; then s = f / (2 + f) is
/// carried as s_hi + s_lo, and ln(1 + f) = 2 s_hi + (2 s_lo + s_hi R(s_hi^2)).
fn ln_dd<O: Ops>(o: &mut O, x: O::F) -> (O::F, O::F) {
    let min_normal = o.fconst(f64::MIN_POSITIVE);
    let sub = o.flt(x, min_normal);
    let two54 = o.fconst(18014398509481984.0);
    let xs_scaled = o.mul(x, two54);
    let xs = o.sel(sub, xs_scaled, x);
    let b = o.bits(xs);
    let biased = o.isar(b, 52);
    let expmask = o.iconst(0x7ff);
    let biased = o.iand(biased, expmask);
    let minus1077 = o.iconst(-1023 - 54);
    let minus1023 = o.iconst(-1023);
    let adj = o.seli(sub, minus1077, minus1023);
    let e = o.iadd(biased, adj);
    let mant_mask = o.iconst(0x000f_ffff_ffff_ffff);
    let one_bits = o.iconst(0x3ff0_0000_0000_0000);
    let mbits = o.iand(b, mant_mask);
    let mbits = o.ior(mbits, one_bits);
    let sqrt2_bits = o.iconst(0x3ff6_a09e_667f_3bcd);
    let big = o.ilt(sqrt2_bits, mbits);
    let one_exp = o.iconst(1 << 52);
    let halved = o.isub(mbits, one_exp);
    let mbits = o.seli(big, halved, mbits);
    let one_i = o.iconst(1);
    let e_plus = o.iadd(e, one_i);
    let e = o.seli(big, e_plus, e);
    let m = o.float(mbits);
    let one = o.fconst(1.0);
    let two = o.fconst(2.0);
    let f = o.sub(m, one); // exact
                           // d = 2 + f exactly as d_hi + d_lo (Fast2Sum, |2| > |f|).
    let d_hi = o.add(two, f);
    let d_minus_2 = o.sub(d_hi, two);
    let d_lo = o.sub(f, d_minus_2);
    // s = f / d: s_hi + s_lo.
    let s_hi = o.div(f, d_hi);
    let ns_hi = o.neg(s_hi);
    let resid = o.fma(ns_hi, d_hi, f); // exact
    let resid = o.fma(ns_hi, d_lo, resid);
    let s_lo = o.div(resid, d_hi);
    // ln(1+f) = 2 atanh(s) = 2 s + (2/3) s^3 + s^5 Q(s^2). The cubic term
    // is up to ~3% of the result, so it is formed in double-double too; the
    // rest is below 2^-12 of the result and a plain double suffices.
    // z = s^2 = z_hi + z_lo.
    let z_hi = o.mul(s_hi, s_hi);
    let nz_hi = o.neg(z_hi);
    let z_lo = o.fma(s_hi, s_hi, nz_hi);
    let two_s_hi = o.mul(two, s_hi); // exact
    let z_lo = o.fma(two_s_hi, s_lo, z_lo);
    // c = s^3 = c_hi + c_lo.
    let c_hi = o.mul(s_hi, z_hi);
    let nc_hi = o.neg(c_hi);
    let c_lo = o.fma(s_hi, z_hi, nc_hi);
    let c_lo = o.fma(s_hi, z_lo, c_lo);
    let c_lo = o.fma(s_lo, z_hi, c_lo);
    // t = (2/3) c = t_hi + t_lo.
    let c23_hi = o.fconst(TWO_THIRDS_HI);
    let c23_lo = o.fconst(TWO_THIRDS_LO);
    let t_hi = o.mul(c_hi, c23_hi);
    let nt_hi = o.neg(t_hi);
    let t_lo = o.fma(c_hi, c23_hi, nt_hi);
    let t_lo = o.fma(c_hi, c23_lo, t_lo);
    let t_lo = o.fma(c_lo, c23_hi, t_lo);
    // tail = s^5 Q(z), Q(z) = sum_{k>=2} 2 z^(k-2) / (2k+1).
    let coeffs: Vec<f64> = (2..=11).rev().map(|k| 2.0 / (2 * k + 1) as f64).collect();
    let q = horner(o, z_hi, &coeffs);
    let c_z = o.mul(c_hi, z_hi);
    let tail = o.mul(c_z, q);
    // l1 = 2 s_hi + t_hi (Fast2Sum: |2 s_hi| > |t_hi|) + (2 s_lo + t_lo + tail).
    let l1_hi = o.add(two_s_hi, t_hi);
    let back = o.sub(l1_hi, two_s_hi);
    let l1_err = o.sub(t_hi, back);
    let two_s_lo = o.mul(two, s_lo);
    let small = o.add(tail, t_lo);
    let small = o.add(small, two_s_lo);
    let l1_lo = o.add(small, l1_err);
    // + e ln2: e * LN2_HI is exact.
    let ef = o.i2f(e);
    let ln2hi = o.fconst(LN2_HI);
    let ln2lo = o.fconst(LN2_LO);
    let t1 = o.mul(ef, ln2hi);
    // TwoSum(t1, l1_hi).
    let sum = o.add(t1, l1_hi);
    let bv = o.sub(sum, t1);
    let av = o.sub(sum, bv);
    let db = o.sub(l1_hi, bv);
    let da = o.sub(t1, av);
    let err = o.add(da, db);
    let lo = o.fma(ef, ln2lo, l1_lo);
    let lo = o.add(lo, err);
    let hi = o.add(sum, lo);
    let hi_minus_sum = o.sub(hi, sum);
    let lo = o.sub(lo, hi_minus_sum);
    // Special values (as ln_prog), lo = 0 there.
    let zero = o.fconst(0.0);
    let ninf = o.fconst(f64::NEG_INFINITY);
    let pinf = o.fconst(f64::INFINITY);
    let nan_c = o.fconst(f64::NAN);
    let is_zero = o.feq(x, zero);
    let is_neg = o.flt(x, zero);
    let is_inf = o.feq(x, pinf);
    let nan = o.isnan(x);
    let special = o.por(is_zero, is_neg);
    let special = o.por(special, is_inf);
    let special = o.por(special, nan);
    let hi = o.sel(is_zero, ninf, hi);
    let hi = o.sel(is_neg, nan_c, hi);
    let hi = o.sel(is_inf, pinf, hi);
    let hi = o.sel(nan, x, hi);
    let lo = o.sel(special, zero, lo);
    (hi, lo)
}

/// Reduction for sin/cos: x = k pi/2 + (r + t), t a tail below ulp(r).
/// Accurate for |x| < [`TRIG_DOMAIN`] (k < 2^20): `k * PIO2_1` is exact and
/// so is `x - k * PIO2_1`; the PIO2_2 product is taken exactly with an fma.
fn trig_reduce<O: Ops>(o: &mut O, x: O::F) -> (O::F, O::F, O::I) {
    let tpi = o.fconst(TWO_OVER_PI);
    let q = o.mul(x, tpi);
    let kf = o.rint(q);
    let nkf = o.neg(kf);
    let p1 = o.fconst(PIO2_1);
    let p2 = o.fconst(PIO2_2);
    let p3 = o.fconst(PIO2_3);
    let a = o.fma(nkf, p1, x); // exact
    let w_hi = o.mul(kf, p2);
    let nw_hi = o.neg(w_hi);
    let w_lo = o.fma(kf, p2, nw_hi); // k * PIO2_2 = w_hi + w_lo exactly
    let r = o.sub(a, w_hi);
    // Fast2Sum tail: (a - r) - w_hi, exact when |a| >= |w_hi| (always: |w_hi| < 2^-13 |a| or a == 0 with k == 0).
    let a_minus_r = o.sub(a, r);
    let tail = o.sub(a_minus_r, w_hi);
    let tail = o.sub(tail, w_lo);
    let t = o.fma(nkf, p3, tail);
    // Renormalize r + t.
    let r2 = o.add(r, t);
    let r_minus_r2 = o.sub(r, r2);
    let t2 = o.add(r_minus_r2, t);
    let k = o.f2i(kf);
    (r2, t2, k)
}

/// sin(r + t) and cos(r + t) for |r| <= pi/4 (Taylor, degree 17 / 18).
fn sincos_kernels<O: Ops>(o: &mut O, r: O::F, t: O::F) -> (O::F, O::F) {
    let z = o.mul(r, r);
    // sin: r + (r z S(z) + t), S(z) = sum_{k>=1} (-1)^k z^(k-1) / (2k+1)!
    let s_coeffs: Vec<f64> = (1..=8)
        .rev()
        .map(|k| if k % 2 == 1 { -1.0 } else { 1.0 } / factorial(2 * k + 1))
        .collect();
    let s_poly = horner(o, z, &s_coeffs);
    let rz = o.mul(r, z);
    let inner = o.fma(rz, s_poly, t);
    let sin = o.add(r, inner);
    // cos: 1 + (z C(z) - r t), C(z) = sum_{k>=1} (-1)^k z^(k-1) / (2k)!
    let c_coeffs: Vec<f64> = (1..=9)
        .rev()
        .map(|k| if k % 2 == 1 { -1.0 } else { 1.0 } / factorial(2 * k))
        .collect();
    let c_poly = horner(o, z, &c_coeffs);
    let rt = o.mul(r, t);
    let nrt = o.neg(rt);
    let inner = o.fma(z, c_poly, nrt);
    let one = o.fconst(1.0);
    let cos = o.add(one, inner);
    (sin, cos)
}

fn quadrant_select<O: Ops>(o: &mut O, q: O::I, sin: O::F, cos: O::F) -> O::F {
    let three = o.iconst(3);
    let q = o.iand(q, three);
    let one = o.iconst(1);
    let two = o.iconst(2);
    let q_odd_bit = o.iand(q, one);
    let use_cos = o.ieq(q_odd_bit, one);
    let v = o.sel(use_cos, cos, sin);
    let q_two_bit = o.iand(q, two);
    let negate = o.ieq(q_two_bit, two);
    let nv = o.neg(v);
    o.sel(negate, nv, v)
}

/// The bits of 2/pi after the binary point, 64 per word, behind one word
/// of zeros (bit i of 2/pi, weight 2^-i, is bit i + 63 of this string).
const TWO_OVER_PI_BITS: [u64; 20] = [
    0,
    0xA2F9836E4E441529,
    0xFC2757D1F534DDC0,
    0xDB6295993C439041,
    0xFE5163ABDEBBC561,
    0xB7246E3A424DD2E0,
    0x06492EEA09D1921C,
    0xFE1DEB1CB129A73E,
    0xE88235F52EBB4484,
    0xE99C7026B45F7E41,
    0x3991D639835339F4,
    0x9C845F8BBDF9283B,
    0x1FF897FFDE05980F,
    0xEF2F118B5A0A6D1F,
    0x6D367ECF27CB09B7,
    0x4F463F669E5FEA2D,
    0x7527BAC7EBE5F17B,
    0x3D0739F78A5292EA,
    0x6BFB5FB11F8D5D08,
    0x56033046FC7B6BAB,
];
/// pi/2 as a double-double.
const PIO2_HI: f64 = std::f64::consts::FRAC_PI_2;
const PIO2_LO: f64 = 6.123233995736766e-17;
/// From here on the Cody-Waite reduction is replaced by Payne-Hanek.
const PAYNE_HANEK_FROM: f64 = 1048576.0;

/// `TWO_OVER_PI_BITS[q]` by a chain of selects (no memory access).
fn table_word<O: Ops>(o: &mut O, q: O::I) -> O::I {
    let mut acc = o.iconst(TWO_OVER_PI_BITS[0] as i64);
    for (k, &w) in TWO_OVER_PI_BITS.iter().enumerate().skip(1) {
        let kk = o.iconst(k as i64);
        let hit = o.ieq(q, kk);
        let wv = o.iconst(w as i64);
        acc = o.seli(hit, wv, acc);
    }
    acc
}

/// Payne-Hanek reduction of |x| >= 2^20 (finite): |x| = q pi/2 + (r + t).
/// |x| = m 2^(e-52); only the 192 bits of 2/pi that can reach the last two
/// integer bits or the fraction of m * 2/pi matter: the window starting at
/// bit e + 10 of [`TWO_OVER_PI_BITS`]. m * window is a 245-bit product; its
/// bits 190..191 are q mod 4, the 126 bits below the fraction.
fn payne_hanek<O: Ops>(o: &mut O, ax: O::F) -> (O::F, O::F, O::I) {
    let b = o.bits(ax);
    let biased = o.isar(b, 52);
    let bias = o.iconst(1023);
    let e = o.isub(biased, bias);
    let mant_mask = o.iconst(0x000f_ffff_ffff_ffff);
    let implicit = o.iconst(1 << 52);
    let m = o.iand(b, mant_mask);
    let m = o.ior(m, implicit);
    let ten = o.iconst(10);
    let off = o.iadd(e, ten);
    let q = o.ishr(off, 6);
    let sixty_three = o.iconst(63);
    let r = o.iand(off, sixty_three);
    let sixty_four = o.iconst(64);
    let rr = o.isub(sixty_four, r);
    let one = o.iconst(1);
    let mut words = Vec::new();
    let mut qj = q;
    for _ in 0..4 {
        words.push(table_word(o, qj));
        qj = o.iadd(qj, one);
    }
    // Window words, most significant first: w[j] = T[q+j] << r | T[q+j+1] >> (64 - r).
    // r == 0 would shift by 64: select 0 explicitly rather than rely on
    // PTX clamping the amount.
    let zero_i = o.iconst(0);
    let r_zero = o.ieq(r, zero_i);
    let mut w = Vec::new();
    for j in 0..3 {
        let a = o.ishl_var(words[j], r);
        let c = o.ishr_var(words[j + 1], rr);
        let c = o.seli(r_zero, zero_i, c);
        w.push(o.ior(a, c));
    }
    // m * (w0 2^128 + w1 2^64 + w2): limbs L0..L2 (L3 is a multiple of 4).
    let l0 = o.imul_lo(m, w[2]);
    let h0 = o.imul_hi(m, w[2]);
    let lo1 = o.imul_lo(m, w[1]);
    let h1 = o.imul_hi(m, w[1]);
    let lo2 = o.imul_lo(m, w[0]);
    let l1 = o.iadd(h0, lo1);
    let carry = o.iult(l1, h0);
    let zero = o.iconst(0);
    let c1 = o.seli(carry, one, zero);
    let l2 = o.iadd(h1, lo2);
    let l2 = o.iadd(l2, c1);
    // Fraction bits: f_hi = L2 << 2 | L1 >> 62, f_lo = L1 << 2 | L0 >> 62.
    let a = o.ishl(l2, 2);
    let c = o.ishr(l1, 62);
    let f_hi = o.ior(a, c);
    let a = o.ishl(l1, 2);
    let c = o.ishr(l0, 62);
    let f_lo = o.ior(a, c);
    // q = bits 190..191, +1 when the fraction is >= 1/2 (then f_hi, read as
    // signed, makes the fraction negative: r in [-pi/4, pi/4)).
    let quad = o.ishr(l2, 62);
    let round_up = o.ishr(f_hi, 63);
    let quad = o.iadd(quad, round_up);
    // fraction = (f_hi (signed) + f_lo 2^-64) 2^-64 as a double-double.
    let a_hi = o.i2f(f_hi);
    let back = o.f2i(a_hi);
    let err = o.isub(f_hi, back);
    let err_f = o.i2f(err);
    let lo_f = o.u2f(f_lo);
    let two_m64 = o.fconst(5.421010862427522e-20); // 2^-64
    let a_lo = o.fma(lo_f, two_m64, err_f);
    let a_hi = o.mul(a_hi, two_m64);
    let a_lo = o.mul(a_lo, two_m64);
    // (a_hi + a_lo) * pi/2.
    let p_hi = o.fconst(PIO2_HI);
    let p_lo = o.fconst(PIO2_LO);
    let r_hi = o.mul(a_hi, p_hi);
    let nr_hi = o.neg(r_hi);
    let r_lo = o.fma(a_hi, p_hi, nr_hi);
    let r_lo = o.fma(a_hi, p_lo, r_lo);
    let r_lo = o.fma(a_lo, p_hi, r_lo);
    let rs = o.add(r_hi, r_lo);
    let d = o.sub(r_hi, rs);
    let ts = o.add(d, r_lo);
    (rs, ts, quad)
}

/// x = k pi/2 + (r + t) for every x: Cody-Waite below 2^20, Payne-Hanek
/// (skipped by a branch when not needed) above; inf/NaN give NaN.
fn trig_reduce_any<O: Ops>(o: &mut O, x: O::F) -> (O::F, O::F, O::I) {
    let (r, t, k) = trig_reduce(o, x);
    let ax = o.abs(x);
    let limit = o.fconst(PAYNE_HANEK_FROM);
    let inf = o.fconst(f64::INFINITY);
    let ge = o.flt(ax, limit);
    let large = o.pnot(ge); // also true for NaN
    let finite = o.flt(ax, inf);
    let large = o.pand(large, finite);
    let label = o.skip_unless(large);
    let (rl, tl, kl) = payne_hanek(o, ax);
    // Negative x: -x = -q pi/2 - (r + t).
    let zero = o.fconst(0.0);
    let neg = o.flt(x, zero);
    let nrl = o.neg(rl);
    let ntl = o.neg(tl);
    let rl = o.sel(neg, nrl, rl);
    let tl = o.sel(neg, ntl, tl);
    let zi = o.iconst(0);
    let nkl = o.isub(zi, kl);
    let kl = o.seli(neg, nkl, kl);
    o.end_skip(label);
    let r = o.sel(large, rl, r);
    let t = o.sel(large, tl, t);
    let k = o.seli(large, kl, k);
    // sin/cos(+-inf) = NaN (the Cody-Waite path gives it for NaN already).
    let is_inf = o.feq(ax, inf);
    let nan = o.fconst(f64::NAN);
    let r = o.sel(is_inf, nan, r);
    (r, t, k)
}

/// sin(x) for every x (see [`trig_reduce_any`]).
pub fn sin_prog<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let (r, t, k) = trig_reduce_any(o, x);
    let (s, c) = sincos_kernels(o, r, t);
    let y = quadrant_select(o, k, s, c);
    // sin(+-0) = +-0.
    let zero = o.fconst(0.0);
    let is_zero = o.feq(x, zero);
    o.sel(is_zero, x, y)
}

/// cos(x) for every x (see [`trig_reduce_any`]).
pub fn cos_prog<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let (r, t, k) = trig_reduce_any(o, x);
    let (s, c) = sincos_kernels(o, r, t);
    let one = o.iconst(1);
    let k1 = o.iadd(k, one);
    quadrant_select(o, k1, s, c)
}

/// tanh(x) = sign(x) * (|x| < 0.55 ? em / (em + 2) : 1 - 2 / (e^(2|x|) + 1)),
/// em = expm1(2|x|) by its Taylor series (degree 20); 1 for |x| > 22.
pub fn tanh_prog<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let ax = o.abs(x);
    let two = o.fconst(2.0);
    let one = o.fconst(1.0);
    let y = o.mul(ax, two);
    // Small: expm1 Taylor.
    // em = y + y (y Q(y)), Q(y) = sum_{n>=2} y^(n-2) / n!: y is exact, the
    // rounded part is at most ~0.6 of the result.
    let coeffs: Vec<f64> = (2..=20).rev().map(|n| 1.0 / factorial(n)).collect();
    let q = horner(o, y, &coeffs);
    let yq = o.mul(y, q);
    let em = o.fma(y, yq, y);
    // small = em / (em + 2), the divisor as a double-double and one
    // correction step, so the quotient adds almost no error to em's.
    let d_hi = o.add(em, two);
    let d_minus_2 = o.sub(d_hi, two);
    let d_lo = o.sub(em, d_minus_2);
    let q0 = o.div(em, d_hi);
    let nq0 = o.neg(q0);
    let resid = o.fma(nq0, d_hi, em);
    let resid = o.fma(nq0, d_lo, resid);
    let corr = o.div(resid, d_hi);
    let small = o.add(q0, corr);
    // Medium/large.
    let cap = o.fconst(22.0);
    let ycap = o.fconst(44.0);
    let big = o.fgt(ax, cap);
    let yc = o.sel(big, ycap, y);
    let e = exp_prog(o, yc);
    let e1 = o.add(e, one);
    let q = o.div(two, e1);
    let mid = o.sub(one, q);
    let thresh = o.fconst(0.55);
    let is_small = o.flt(ax, thresh);
    let res = o.sel(is_small, small, mid);
    let res = o.sel(big, one, res);
    let zero = o.fconst(0.0);
    let negative = o.flt(x, zero);
    let nres = o.neg(res);
    let res = o.sel(negative, nres, res);
    let is_zero = o.feq(x, zero);
    let res = o.sel(is_zero, x, res);
    let nan = o.isnan(x);
    o.sel(nan, x, res)
}

/// x^y = exp(y ln |x|) with IEEE/C99 special cases (sign for odd integer y,
/// NaN for a finite negative base and non-integer y, x^0 = 1^y = 1).
/// Accuracy degrades with |y ln x| (ln is not carried in extra precision).
pub fn powf_prog<O: Ops>(o: &mut O, x: O::F, y: O::F) -> O::F {
    let ax = o.abs(x);
    // y ln|x| in double-double: the exponent's absolute error must stay
    // near 2^-53 even when |y ln x| is ~700.
    let (l_hi, l_lo) = ln_dd(o, ax);
    let p_hi = o.mul(y, l_hi);
    let np_hi = o.neg(p_hi);
    let p_err = o.fma(y, l_hi, np_hi);
    let p_lo = o.fma(y, l_lo, p_err);
    // Beyond the clamp of exp (or inf / NaN): no low part (it would be
    // huge, or inf - inf); the result is 0 or inf anyway.
    let abs_p = o.abs(p_hi);
    let limit = o.fconst(800.0);
    let finite_p = o.flt(abs_p, limit);
    let zero_c = o.fconst(0.0);
    let p_lo = o.sel(finite_p, p_lo, zero_c);
    let r = exp_core(o, p_hi, Some(p_lo));
    let one = o.fconst(1.0);
    let zero = o.fconst(0.0);
    let half = o.fconst(0.5);
    let inf = o.fconst(f64::INFINITY);
    let nan_c = o.fconst(f64::NAN);
    // |x| == 1: 1 (y may be +-inf, where y ln|x| is NaN).
    let ax_one = o.feq(ax, one);
    let r = o.sel(ax_one, one, r);
    // y integer / odd integer (inf counts as an even integer).
    let ry = o.rint(y);
    let is_int = o.feq(ry, y);
    let yh = o.mul(y, half);
    let ryh = o.rint(yh);
    let half_int = o.feq(ryh, yh);
    let not_half_int = o.pnot(half_int);
    let is_odd = o.pand(is_int, not_half_int);
    // Sign of x by its bits (-0 counts as negative).
    let xb = o.bits(x);
    let zi = o.iconst(0);
    let x_neg = o.ilt(xb, zi);
    let flip = o.pand(x_neg, is_odd);
    let nr = o.neg(r);
    let r = o.sel(flip, nr, r);
    // Finite negative base, non-integer exponent: NaN.
    let x_lt0 = o.flt(x, zero);
    let finite = o.flt(ax, inf);
    let not_int = o.pnot(is_int);
    let bad = o.pand(x_lt0, finite);
    let bad = o.pand(bad, not_int);
    let r = o.sel(bad, nan_c, r);
    // x^0 == 1 and 1^y == 1 (even for NaN).
    let y0 = o.feq(y, zero);
    let x1 = o.feq(x, one);
    let unit = o.por(y0, x1);
    o.sel(unit, one, r)
}

/// The Rust executor of [`Ops`]: each method is the semantics of its PTX instruction.
pub struct Interp;

impl Ops for Interp {
    type F = f64;
    type I = i64;
    type P = bool;
    fn fconst(&mut self, v: f64) -> f64 {
        v
    }
    fn iconst(&mut self, v: i64) -> i64 {
        v
    }
    fn add(&mut self, a: f64, b: f64) -> f64 {
        a + b
    }
    fn sub(&mut self, a: f64, b: f64) -> f64 {
        a - b
    }
    fn mul(&mut self, a: f64, b: f64) -> f64 {
        a * b
    }
    fn div(&mut self, a: f64, b: f64) -> f64 {
        a / b
    }
    fn fma(&mut self, a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, c)
    }
    fn neg(&mut self, a: f64) -> f64 {
        -a
    }
    fn abs(&mut self, a: f64) -> f64 {
        a.abs()
    }
    fn rint(&mut self, a: f64) -> f64 {
        a.round_ties_even()
    }
    fn f2i(&mut self, a: f64) -> i64 {
        a as i64
    }
    fn i2f(&mut self, a: i64) -> f64 {
        a as f64
    }
    fn bits(&mut self, a: f64) -> i64 {
        a.to_bits() as i64
    }
    fn float(&mut self, a: i64) -> f64 {
        f64::from_bits(a as u64)
    }
    fn iadd(&mut self, a: i64, b: i64) -> i64 {
        a.wrapping_add(b)
    }
    fn isub(&mut self, a: i64, b: i64) -> i64 {
        a.wrapping_sub(b)
    }
    fn iand(&mut self, a: i64, b: i64) -> i64 {
        a & b
    }
    fn ior(&mut self, a: i64, b: i64) -> i64 {
        a | b
    }
    fn ishl(&mut self, a: i64, n: u32) -> i64 {
        a.wrapping_shl(n)
    }
    fn isar(&mut self, a: i64, n: u32) -> i64 {
        a >> n
    }
    fn flt(&mut self, a: f64, b: f64) -> bool {
        a < b
    }
    fn fgt(&mut self, a: f64, b: f64) -> bool {
        a > b
    }
    fn feq(&mut self, a: f64, b: f64) -> bool {
        a == b
    }
    fn isnan(&mut self, a: f64) -> bool {
        a.is_nan()
    }
    fn ilt(&mut self, a: i64, b: i64) -> bool {
        a < b
    }
    fn ieq(&mut self, a: i64, b: i64) -> bool {
        a == b
    }
    fn pand(&mut self, a: bool, b: bool) -> bool {
        a && b
    }
    fn por(&mut self, a: bool, b: bool) -> bool {
        a || b
    }
    fn pnot(&mut self, a: bool) -> bool {
        !a
    }
    fn sel(&mut self, p: bool, a: f64, b: f64) -> f64 {
        if p {
            a
        } else {
            b
        }
    }
    fn seli(&mut self, p: bool, a: i64, b: i64) -> i64 {
        if p {
            a
        } else {
            b
        }
    }
    fn imul_lo(&mut self, a: i64, b: i64) -> i64 {
        a.wrapping_mul(b)
    }
    fn imul_hi(&mut self, a: i64, b: i64) -> i64 {
        ((a as u64 as u128 * b as u64 as u128) >> 64) as u64 as i64
    }
    fn ishr(&mut self, a: i64, n: u32) -> i64 {
        ((a as u64) >> n) as i64
    }
    fn ishl_var(&mut self, a: i64, n: i64) -> i64 {
        // PTX takes the amount as u32 (low bits) and clamps it to 64.
        let n = n as u64 as u32;
        if n >= 64 {
            0
        } else {
            ((a as u64) << n) as i64
        }
    }
    fn ishr_var(&mut self, a: i64, n: i64) -> i64 {
        let n = n as u64 as u32;
        if n >= 64 {
            0
        } else {
            ((a as u64) >> n) as i64
        }
    }
    fn iult(&mut self, a: i64, b: i64) -> bool {
        (a as u64) < (b as u64)
    }
    fn u2f(&mut self, a: i64) -> f64 {
        a as u64 as f64
    }
    fn skip_unless(&mut self, _p: bool) -> u32 {
        0
    }
    fn end_skip(&mut self, _label: u32) {}
}

/// Emits a math program as PTX instructions into `body`, with virtual
/// registers `%fd<n>`, `%rd<n>`, `%p<n>` numbered from zero.
#[derive(Default)]
pub struct PtxOps {
    pub body: String,
    pub n_f: u32,
    pub n_i: u32,
    pub n_p: u32,
    /// 32-bit registers (shift amounts).
    pub n_r: u32,
    pub n_labels: u32,
}

impl PtxOps {
    fn f(&mut self) -> u32 {
        self.n_f += 1;
        self.n_f - 1
    }
    fn i(&mut self) -> u32 {
        self.n_i += 1;
        self.n_i - 1
    }
    fn p(&mut self) -> u32 {
        self.n_p += 1;
        self.n_p - 1
    }
    /// A 64-bit shift amount as the u32 register PTX shifts take.
    fn shift_amount(&mut self, n: u32) -> u32 {
        self.n_r += 1;
        let r = self.n_r - 1;
        self.line(format!("cvt.u32.u64 %r{r}, %rd{n}"));
        r
    }
    fn line(&mut self, s: String) {
        self.body.push('\t');
        self.body.push_str(&s);
        self.body.push_str(";\n");
    }
    fn fop2(&mut self, op: &str, a: u32, b: u32) -> u32 {
        let d = self.f();
        self.line(format!("{op} %fd{d}, %fd{a}, %fd{b}"));
        d
    }
    fn fop1(&mut self, op: &str, a: u32) -> u32 {
        let d = self.f();
        self.line(format!("{op} %fd{d}, %fd{a}"));
        d
    }
    fn iop2(&mut self, op: &str, a: u32, b: u32) -> u32 {
        let d = self.i();
        self.line(format!("{op} %rd{d}, %rd{a}, %rd{b}"));
        d
    }
    fn setp(&mut self, op: &str, a: String, b: String) -> u32 {
        let d = self.p();
        self.line(format!("{op} %p{d}, {a}, {b}"));
        d
    }

    /// A complete `.func NAME(x[, y]) -> ret` for an f64 program (or its
    /// f32 wrapper: convert in, run in f64, round once on the way out).
    pub fn function(
        name: &str,
        f32_wrapper: bool,
        arity: usize,
        prog: impl FnOnce(&mut PtxOps, &[u32]) -> u32,
    ) -> String {
        let mut o = PtxOps::default();
        let args: Vec<u32> = (0..arity).map(|_| o.f()).collect();
        let result = prog(&mut o, &args);
        let t = if f32_wrapper { "f32" } else { "f64" };
        let mut s = String::new();
        let params: Vec<String> = (0..arity).map(|k| format!(".param .{t} a{k}")).collect();
        let _ = writeln!(
            s,
            ".func (.param .{t} ret) {name}({})\n{{",
            params.join(", ")
        );
        let _ = writeln!(s, "\t.reg .f64 %fd<{}>;", o.n_f.max(1));
        let _ = writeln!(s, "\t.reg .b64 %rd<{}>;", o.n_i.max(1));
        let _ = writeln!(s, "\t.reg .pred %p<{}>;", o.n_p.max(1));
        if o.n_r > 0 {
            let _ = writeln!(s, "\t.reg .b32 %r<{}>;", o.n_r);
        }
        if f32_wrapper {
            let _ = writeln!(s, "\t.reg .f32 %f<{}>;", arity + 1);
        }
        for (k, a) in args.iter().enumerate() {
            if f32_wrapper {
                let _ = writeln!(s, "\tld.param.f32 %f{k}, [a{k}];");
                let _ = writeln!(s, "\tcvt.f64.f32 %fd{a}, %f{k};");
            } else {
                let _ = writeln!(s, "\tld.param.f64 %fd{a}, [a{k}];");
            }
        }
        s.push_str(&o.body);
        if f32_wrapper {
            let _ = writeln!(s, "\tcvt.rn.f32.f64 %f{arity}, %fd{result};");
            let _ = writeln!(s, "\tst.param.f32 [ret], %f{arity};");
        } else {
            let _ = writeln!(s, "\tst.param.f64 [ret], %fd{result};");
        }
        s.push_str("\tret;\n}\n");
        s
    }
}

fn hex_f64(v: f64) -> String {
    format!("0d{:016X}", v.to_bits())
}

impl Ops for PtxOps {
    type F = u32;
    type I = u32;
    type P = u32;
    fn fconst(&mut self, v: f64) -> u32 {
        let d = self.f();
        self.line(format!("mov.f64 %fd{d}, {}", hex_f64(v)));
        d
    }
    fn iconst(&mut self, v: i64) -> u32 {
        let d = self.i();
        self.line(format!("mov.b64 %rd{d}, {v}"));
        d
    }
    fn add(&mut self, a: u32, b: u32) -> u32 {
        self.fop2("add.rn.f64", a, b)
    }
    fn sub(&mut self, a: u32, b: u32) -> u32 {
        self.fop2("sub.rn.f64", a, b)
    }
    fn mul(&mut self, a: u32, b: u32) -> u32 {
        self.fop2("mul.rn.f64", a, b)
    }
    fn div(&mut self, a: u32, b: u32) -> u32 {
        self.fop2("div.rn.f64", a, b)
    }
    fn fma(&mut self, a: u32, b: u32, c: u32) -> u32 {
        let d = self.f();
        self.line(format!("fma.rn.f64 %fd{d}, %fd{a}, %fd{b}, %fd{c}"));
        d
    }
    fn neg(&mut self, a: u32) -> u32 {
        self.fop1("neg.f64", a)
    }
    fn abs(&mut self, a: u32) -> u32 {
        self.fop1("abs.f64", a)
    }
    fn rint(&mut self, a: u32) -> u32 {
        self.fop1("cvt.rni.f64.f64", a)
    }
    fn f2i(&mut self, a: u32) -> u32 {
        let d = self.i();
        self.line(format!("cvt.rzi.s64.f64 %rd{d}, %fd{a}"));
        d
    }
    fn i2f(&mut self, a: u32) -> u32 {
        let d = self.f();
        self.line(format!("cvt.rn.f64.s64 %fd{d}, %rd{a}"));
        d
    }
    fn bits(&mut self, a: u32) -> u32 {
        let d = self.i();
        self.line(format!("mov.b64 %rd{d}, %fd{a}"));
        d
    }
    fn float(&mut self, a: u32) -> u32 {
        let d = self.f();
        self.line(format!("mov.b64 %fd{d}, %rd{a}"));
        d
    }
    fn iadd(&mut self, a: u32, b: u32) -> u32 {
        self.iop2("add.s64", a, b)
    }
    fn isub(&mut self, a: u32, b: u32) -> u32 {
        self.iop2("sub.s64", a, b)
    }
    fn iand(&mut self, a: u32, b: u32) -> u32 {
        self.iop2("and.b64", a, b)
    }
    fn ior(&mut self, a: u32, b: u32) -> u32 {
        self.iop2("or.b64", a, b)
    }
    fn ishl(&mut self, a: u32, n: u32) -> u32 {
        let d = self.i();
        self.line(format!("shl.b64 %rd{d}, %rd{a}, {n}"));
        d
    }
    fn isar(&mut self, a: u32, n: u32) -> u32 {
        let d = self.i();
        self.line(format!("shr.s64 %rd{d}, %rd{a}, {n}"));
        d
    }
    fn flt(&mut self, a: u32, b: u32) -> u32 {
        self.setp("setp.lt.f64", format!("%fd{a}"), format!("%fd{b}"))
    }
    fn fgt(&mut self, a: u32, b: u32) -> u32 {
        self.setp("setp.gt.f64", format!("%fd{a}"), format!("%fd{b}"))
    }
    fn feq(&mut self, a: u32, b: u32) -> u32 {
        self.setp("setp.eq.f64", format!("%fd{a}"), format!("%fd{b}"))
    }
    fn isnan(&mut self, a: u32) -> u32 {
        self.setp("setp.nan.f64", format!("%fd{a}"), format!("%fd{a}"))
    }
    fn ilt(&mut self, a: u32, b: u32) -> u32 {
        self.setp("setp.lt.s64", format!("%rd{a}"), format!("%rd{b}"))
    }
    fn ieq(&mut self, a: u32, b: u32) -> u32 {
        self.setp("setp.eq.s64", format!("%rd{a}"), format!("%rd{b}"))
    }
    fn pand(&mut self, a: u32, b: u32) -> u32 {
        let d = self.p();
        self.line(format!("and.pred %p{d}, %p{a}, %p{b}"));
        d
    }
    fn por(&mut self, a: u32, b: u32) -> u32 {
        let d = self.p();
        self.line(format!("or.pred %p{d}, %p{a}, %p{b}"));
        d
    }
    fn pnot(&mut self, a: u32) -> u32 {
        let d = self.p();
        self.line(format!("not.pred %p{d}, %p{a}"));
        d
    }
    fn sel(&mut self, p: u32, a: u32, b: u32) -> u32 {
        let d = self.f();
        self.line(format!("selp.f64 %fd{d}, %fd{a}, %fd{b}, %p{p}"));
        d
    }
    fn seli(&mut self, p: u32, a: u32, b: u32) -> u32 {
        let d = self.i();
        self.line(format!("selp.b64 %rd{d}, %rd{a}, %rd{b}, %p{p}"));
        d
    }
    fn imul_lo(&mut self, a: u32, b: u32) -> u32 {
        self.iop2("mul.lo.u64", a, b)
    }
    fn imul_hi(&mut self, a: u32, b: u32) -> u32 {
        self.iop2("mul.hi.u64", a, b)
    }
    fn ishr(&mut self, a: u32, n: u32) -> u32 {
        let d = self.i();
        self.line(format!("shr.u64 %rd{d}, %rd{a}, {n}"));
        d
    }
    fn ishl_var(&mut self, a: u32, n: u32) -> u32 {
        let amount = self.shift_amount(n);
        let d = self.i();
        self.line(format!("shl.b64 %rd{d}, %rd{a}, %r{amount}"));
        d
    }
    fn ishr_var(&mut self, a: u32, n: u32) -> u32 {
        let amount = self.shift_amount(n);
        let d = self.i();
        self.line(format!("shr.u64 %rd{d}, %rd{a}, %r{amount}"));
        d
    }
    fn iult(&mut self, a: u32, b: u32) -> u32 {
        self.setp("setp.lt.u64", format!("%rd{a}"), format!("%rd{b}"))
    }
    fn u2f(&mut self, a: u32) -> u32 {
        let d = self.f();
        self.line(format!("cvt.rn.f64.u64 %fd{d}, %rd{a}"));
        d
    }
    fn skip_unless(&mut self, p: u32) -> u32 {
        self.n_labels += 1;
        let l = self.n_labels;
        self.line(format!("@!%p{p} bra $Lskip{l}"));
        l
    }
    fn end_skip(&mut self, label: u32) {
        self.body.push_str(&format!("$Lskip{label}:\n"));
    }
}

/// The Rust mirrors (what the PTX `.func`s compute).
pub mod mirror {
    use super::*;
    pub fn exp_f64(x: f64) -> f64 {
        exp_prog(&mut Interp, x)
    }
    pub fn ln_f64(x: f64) -> f64 {
        ln_prog(&mut Interp, x)
    }
    pub fn sin_f64(x: f64) -> f64 {
        sin_prog(&mut Interp, x)
    }
    pub fn cos_f64(x: f64) -> f64 {
        cos_prog(&mut Interp, x)
    }
    pub fn tanh_f64(x: f64) -> f64 {
        tanh_prog(&mut Interp, x)
    }
    pub fn powf_f64(x: f64, y: f64) -> f64 {
        powf_prog(&mut Interp, x, y)
    }
    pub fn exp_f32(x: f32) -> f32 {
        exp_f64(x as f64) as f32
    }
    pub fn ln_f32(x: f32) -> f32 {
        ln_f64(x as f64) as f32
    }
    pub fn sin_f32(x: f32) -> f32 {
        sin_f64(x as f64) as f32
    }
    pub fn cos_f32(x: f32) -> f32 {
        cos_f64(x as f64) as f32
    }
    pub fn tanh_f32(x: f32) -> f32 {
        tanh_f64(x as f64) as f32
    }
    pub fn powf_f32(x: f32, y: f32) -> f32 {
        powf_f64(x as f64, y as f64) as f32
    }
    /// compiler-rt `__powidf2`: the PTX `powi` loop, operation for operation.
    pub fn powi_f64(a: f64, b: i32) -> f64 {
        let mut a = a;
        let recip = b < 0;
        let mut n = b.unsigned_abs();
        let mut r = 1.0f64;
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
            1.0 / r
        } else {
            r
        }
    }
    /// compiler-rt `__powisf2`.
    pub fn powi_f32(a: f32, b: i32) -> f32 {
        let mut a = a;
        let recip = b < 0;
        let mut n = b.unsigned_abs();
        let mut r = 1.0f32;
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
            1.0 / r
        } else {
            r
        }
    }
}

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
\tsetp.eq.u64 %p3, %rd2, 0;
\t@%p3 bra $F_subx;
\tor.b64 %rd7, %rd7, 4503599627370496;
\tbra.uni $F_doney;
$F_subx:
\tclz.b64 %r0, %rd7;
\tcvt.u64.u32 %rd9, %r0;
\tsub.s64 %rd10, %rd9, 11;
\tcvt.u32.u64 %r1, %rd10;
\tshl.b64 %rd7, %rd7, %r1;
\tmov.b64 %rd11, 12;
\tsub.s64 %rd2, %rd11, %rd9;
$F_doney:
\tsetp.eq.u64 %p3, %rd3, 0;
\t@%p3 bra $F_suby;
\tor.b64 %rd8, %rd8, 4503599627370496;
\tbra.uni $F_loop;
$F_suby:
\tclz.b64 %r0, %rd8;
\tcvt.u64.u32 %rd9, %r0;
\tsub.s64 %rd10, %rd9, 11;
\tcvt.u32.u64 %r1, %rd10;
\tshl.b64 %rd8, %rd8, %r1;
\tmov.b64 %rd11, 12;
\tsub.s64 %rd3, %rd11, %rd9;
$F_loop:
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

/// The PTX `.func` for `powi` on f32 or f64 (mirror: [`mirror::powi_f64`]).
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
