//! The inverse trigonometric functions: atan2 (the core), atan, asin and
//! acos, all through one arctangent kernel on [0, 1] carried in
//! double-double.

use super::blocks::{dd_const, div_dd, fast_two_sum, max_min, two_sum};
use super::{horner, Ops};

/// atan(k/8) for k = 0..=8 as double-doubles (hi, lo bits; from mpmath at
/// 300 bits).
const ATAN_EIGHTHS: [(u64, u64); 9] = [
    (0x0000000000000000, 0x0000000000000000),
    (0x3fbfd5ba9aac2f6e, 0xbc4cd37686760c17),
    (0x3fcf5b75f92c80dd, 0x3c68ab6e3cf7afbd),
    (0x3fd6f61941e4def1, 0xbc7c63aae6f6e918),
    (0x3fddac670561bb4f, 0x3c7a2b7f222f65e2),
    (0x3fe1e00babdefeb4, 0xbc5928df287a668f),
    (0x3fe4978fa3269ee1, 0x3c72419a87f2a458),
    (0x3fe700a7c5784634, 0xbc78c34d25aadef6),
    (0x3fe921fb54442d18, 0x3c81a62633145c07),
];
/// pi, pi/2, pi/4 and 3pi/4 as double-doubles.
const PI: (u64, u64) = (0x400921fb54442d18, 0x3ca1a62633145c07);
const PI_2: (u64, u64) = (0x3ff921fb54442d18, 0x3c91a62633145c07);
const PI_4: (u64, u64) = (0x3fe921fb54442d18, 0x3c81a62633145c07);
const PI_3_4: (u64, u64) = (0x4002d97c7f3321d2, 0x3c9a79394c9e8a0a);

/// atan(t + t_lo) for 0 <= t <= 1 as a double-double: with c = k/8 the
/// nearest eighth, atan(t) = atan(c) + atan(u), u = (t - c) / (1 + t c)
/// (|u| <= 1/16; t - c is exact), and atan(u) by its Taylor series to
/// u^15 (truncation below 2^-60 relative).
fn atan_unit<O: Ops>(o: &mut O, t: O::F, t_lo: O::F) -> (O::F, O::F) {
    let eight = o.fconst(8.0);
    let t8 = o.mul(t, eight);
    let kf = o.rint(t8);
    let eighth = o.fconst(0.125);
    let c = o.mul(kf, eighth);
    let k = o.f2i(kf);
    // The table entry of k, by a select chain (no memory).
    let (mut a_hi, mut a_lo) = dd_const(o, ATAN_EIGHTHS[0]);
    for (i, bits) in ATAN_EIGHTHS.iter().enumerate().skip(1) {
        let ki = o.iconst(i as i64);
        let is = o.ieq(k, ki);
        let (h, l) = dd_const(o, *bits);
        a_hi = o.sel(is, h, a_hi);
        a_lo = o.sel(is, l, a_lo);
    }
    let num = o.sub(t, c);
    let one = o.fconst(1.0);
    let den = o.fma(t, c, one);
    // The rounding error of den (1 - den is exact: den in [1, 2]).
    let one_minus = o.sub(one, den);
    let den_lo = o.fma(t, c, one_minus);
    let (u, u_corr) = div_dd(o, num, (den, den_lo));
    // t's own low part moves u by t_lo / den (to first order).
    let t_lo_part = o.div(t_lo, den);
    let u_lo = o.add(u_corr, t_lo_part);
    // atan(u) = u + u z P(z), z = u^2, P(z) = sum_{n>=1} (-1)^n z^(n-1) / (2n+1).
    let z = o.mul(u, u);
    let coeffs: Vec<f64> = (1..=7)
        .rev()
        .map(|n| if n % 2 == 1 { -1.0 } else { 1.0 } / (2 * n + 1) as f64)
        .collect();
    let p = horner(o, z, &coeffs);
    let uz = o.mul(u, z);
    let tail = o.fma(uz, p, u_lo);
    // atan(c) + u + tail: a_hi >= 8 |u| when k > 0, a_hi = 0 when k = 0.
    let (s, s_err) = fast_two_sum(o, a_hi, u);
    let lo = o.add(a_lo, tail);
    let lo = o.add(lo, s_err);
    fast_two_sum(o, s, lo)
}

/// `c - (a_hi + a_lo)` for the double-double constant c.
fn dd_minus<O: Ops>(o: &mut O, c: (u64, u64), a: (O::F, O::F)) -> (O::F, O::F) {
    let (c_hi, c_lo) = dd_const(o, c);
    let n_hi = o.neg(a.0);
    let (s, e) = two_sum(o, c_hi, n_hi);
    let lo = o.sub(c_lo, a.1);
    let lo = o.add(lo, e);
    fast_two_sum(o, s, lo)
}

/// atan2(y, x) with C99's special cases (signed zeros, infinities, NaN).
pub fn atan2_prog<O: Ops>(o: &mut O, y: O::F, x: O::F) -> O::F {
    let ay = o.abs(y);
    let ax = o.abs(x);
    // r = min / max in [0, 1], as r + r_lo.
    let (big, small) = max_min(o, ax, ay);
    let r = o.div(small, big);
    let neg_r = o.neg(r);
    let r_err = o.fma(neg_r, big, small);
    let r_lo = o.div(r_err, big);
    // An infinite max: r = 0 exactly (r_err would be 0 * inf = NaN).
    let inf = o.fconst(f64::INFINITY);
    let big_inf = o.feq(big, inf);
    let zero = o.fconst(0.0);
    let r_lo = o.sel(big_inf, zero, r_lo);
    let a = atan_unit(o, r, r_lo);
    // |y| > |x|: pi/2 - a.
    let swap = o.fgt(ay, ax);
    let b = dd_minus(o, PI_2, a);
    let a = (o.sel(swap, b.0, a.0), o.sel(swap, b.1, a.1));
    // x < 0 (also -0): pi - a.
    let zero_i = o.iconst(0);
    let xb = o.bits(x);
    let x_neg = o.ilt(xb, zero_i);
    let b = dd_minus(o, PI, a);
    let a = (o.sel(x_neg, b.0, a.0), o.sel(x_neg, b.1, a.1));
    let v = o.add(a.0, a.1);
    // Both zero: 0 or pi; both infinite: pi/4 or 3pi/4 (by x's sign).
    let pi = o.fconst(f64::from_bits(PI.0));
    let y0 = o.feq(ay, zero);
    let x0 = o.feq(ax, zero);
    let both0 = o.pand(y0, x0);
    let zero_or_pi = o.sel(x_neg, pi, zero);
    let v = o.sel(both0, zero_or_pi, v);
    let yi = o.feq(ay, inf);
    let xi = o.feq(ax, inf);
    let both_inf = o.pand(yi, xi);
    let q1 = o.fconst(f64::from_bits(PI_4.0));
    let q3 = o.fconst(f64::from_bits(PI_3_4.0));
    let quarter = o.sel(x_neg, q3, q1);
    let v = o.sel(both_inf, quarter, v);
    // The sign of y (by its bits: -0 too).
    let yb = o.bits(y);
    let y_neg = o.ilt(yb, zero_i);
    let nv = o.neg(v);
    let v = o.sel(y_neg, nv, v);
    let x_nan = o.isnan(x);
    let y_nan = o.isnan(y);
    let nan = o.por(x_nan, y_nan);
    let sum = o.add(x, y);
    o.sel(nan, sum, v)
}

/// atan(x) = atan2(x, 1).
pub fn atan_prog<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let one = o.fconst(1.0);
    atan2_prog(o, x, one)
}

/// sqrt(1 - x^2) with one rounding inside (fma), NaN for |x| > 1.
fn cosine_of<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let one = o.fconst(1.0);
    let nx = o.neg(x);
    let d = o.fma(nx, x, one);
    o.sqrt(d)
}

/// asin(x) = atan2(x, sqrt(1 - x^2)).
pub fn asin_prog<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let c = cosine_of(o, x);
    atan2_prog(o, x, c)
}

/// acos(x) = atan2(sqrt(1 - x^2), x).
pub fn acos_prog<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let s = cosine_of(o, x);
    atan2_prog(o, s, x)
}
