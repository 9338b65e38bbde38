//! The f64 programs (the f32 functions run them on the widened argument and
//! round once; f32 `exp` has its own program, `exp_f32`): exp, ln (also as
//! a double-double, for pow), sin, cos, tanh and pow.

use super::blocks::{div_dd, fast_two_sum, mul_dd, pow2, two_product};
use super::reduce::{exp_reduce, ln_reduce, trig_reduce_any, LN2_HI, LN2_LO};
use super::{factorial, horner, Ops};

/// 2/3 = TWO_THIRDS_HI + TWO_THIRDS_LO (double-double).
const TWO_THIRDS_HI: f64 = 2.0 / 3.0;
const TWO_THIRDS_LO: f64 = 3.700743415417188e-17;

/// e^x. Reduction x = k ln2 + r (|r| <= ln2/2, Cody-Waite with a two-part
/// ln2), degree-13 Taylor polynomial for e^r (truncation < 2^-57), scaling
/// by 2^k in two steps so subnormal results round once.
pub fn exp_prog<O: Ops>(o: &mut O, x: O::F) -> O::F {
    exp_core(o, x, None)
}

/// e^(x + lo) for a double-double argument (|lo| <= ulp(x)): the low part
/// joins the reduced argument.
pub(super) fn exp_core<O: Ops>(o: &mut O, x: O::F, x_lo: Option<O::F>) -> O::F {
    let (r, kf) = exp_reduce(o, x);
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
    let s1 = pow2(o, k1, bias);
    let s2 = pow2(o, k2, bias);
    let y = o.mul(p, s1);
    let y = o.mul(y, s2);
    let nan = o.isnan(x);
    o.sel(nan, x, y)
}

/// ln(x). x = 2^e m with m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact),
/// s = f / (2 + f), ln(1 + f) = f - s (f - R(s^2)) with the atanh series
/// R(z) = sum 2 z^k / (2k + 1) to k = 11; ln x = e ln2_hi + (e ln2_lo + ln(1+f)).
pub fn ln_prog<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let (e, m) = ln_reduce(o, x);
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
    let (e, m) = ln_reduce(o, x);
    let one = o.fconst(1.0);
    let two = o.fconst(2.0);
    // f = m - 1 is exact; d = 2 + f exactly (|2| > |f|) and s = f / d, both
    // as double-doubles.
    let f = o.sub(m, one);
    let d = fast_two_sum(o, two, f);
    let (s_hi, s_lo) = div_dd(o, f, d);
    // ln(1+f) = 2 atanh(s) = 2 s + (2/3) s^3 + s^5 Q(s^2). The cubic term
    // is up to ~3% of the result, so it is formed in double-double too; the
    // rest is below 2^-12 of the result and a plain double suffices.
    // z = s^2 = z_hi + z_lo.
    let (z_hi, z_lo) = two_product(o, s_hi, s_hi);
    let two_s_hi = o.mul(two, s_hi); // exact
    let z_lo = o.fma(two_s_hi, s_lo, z_lo);
    // c = s^3, t = (2/3) c.
    let (c_hi, c_lo) = mul_dd(o, (s_hi, s_lo), (z_hi, z_lo));
    let c23_hi = o.fconst(TWO_THIRDS_HI);
    let c23_lo = o.fconst(TWO_THIRDS_LO);
    let (t_hi, t_lo) = mul_dd(o, (c_hi, c_lo), (c23_hi, c23_lo));
    // tail = s^5 Q(z), Q(z) = sum_{k>=2} 2 z^(k-2) / (2k+1).
    let coeffs: Vec<f64> = (2..=11).rev().map(|k| 2.0 / (2 * k + 1) as f64).collect();
    let q = horner(o, z_hi, &coeffs);
    let c_z = o.mul(c_hi, z_hi);
    let tail = o.mul(c_z, q);
    // l1 = 2 s_hi + t_hi (Fast2Sum: |2 s_hi| > |t_hi|) + (2 s_lo + t_lo + tail).
    let (l1_hi, l1_err) = fast_two_sum(o, two_s_hi, t_hi);
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

/// sin(x) for every x (reduced by `reduce::trig_reduce_any`).
pub fn sin_prog<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let (r, t, k) = trig_reduce_any(o, x);
    let (s, c) = sincos_kernels(o, r, t);
    let y = quadrant_select(o, k, s, c);
    // sin(+-0) = +-0.
    let zero = o.fconst(0.0);
    let is_zero = o.feq(x, zero);
    o.sel(is_zero, x, y)
}

/// cos(x) for every x (reduced by `reduce::trig_reduce_any`).
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
    let (q0, corr) = div_dd(o, em, (d_hi, d_lo));
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
    let (p_hi, p_err) = two_product(o, y, l_hi);
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
