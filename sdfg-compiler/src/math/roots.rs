//! hypot and cbrt: a double-double sum of squares with a corrected square
//! root, and Newton's iteration for the cube root with a double-double
//! residual at the end.

use super::blocks::{fast_two_sum, fraction_under, max_min, pow2, two_product};
use super::Ops;

/// sqrt(x^2 + y^2) without overflow or underflow in between (operands
/// scaled by 2^-600 / 2^600 outside [2^-500, 2^500]); the sum of squares is
/// a double-double, the root gets one Newton correction. hypot(inf, NaN) is
/// inf, as in C.
pub fn hypot_prog<O: Ops>(o: &mut O, x: O::F, y: O::F) -> O::F {
    let ax = o.abs(x);
    let ay = o.abs(y);
    let (m, n) = max_min(o, ax, ay);
    let hi_limit = o.fconst(2f64.powi(500));
    let lo_limit = o.fconst(2f64.powi(-500));
    let down = o.fconst(2f64.powi(-600));
    let up = o.fconst(2f64.powi(600));
    let one = o.fconst(1.0);
    let big = o.fgt(m, hi_limit);
    let small = o.flt(m, lo_limit);
    let sc = o.sel(small, up, one);
    let sc = o.sel(big, down, sc);
    let inv = o.sel(small, down, one);
    let inv = o.sel(big, up, inv);
    let a = o.mul(m, sc);
    let b = o.mul(n, sc);
    let (a2, a2_lo) = two_product(o, a, a);
    let (b2, b2_lo) = two_product(o, b, b);
    let (s, s_lo) = fast_two_sum(o, a2, b2);
    let s_lo = o.add(s_lo, a2_lo);
    let s_lo = o.add(s_lo, b2_lo);
    let z = o.sqrt(s);
    let nz = o.neg(z);
    let resid = o.fma(nz, z, s);
    let resid = o.add(resid, s_lo);
    let two_z = o.add(z, z);
    let corr = o.div(resid, two_z);
    let z = o.add(z, corr);
    let v = o.mul(z, inv);
    // hypot(0, 0) = 0 (the correction would divide by zero).
    let zero = o.fconst(0.0);
    let m0 = o.feq(m, zero);
    let v = o.sel(m0, zero, v);
    let x_nan = o.isnan(x);
    let y_nan = o.isnan(y);
    let nan = o.por(x_nan, y_nan);
    let sum = o.add(x, y);
    let v = o.sel(nan, sum, v);
    let inf = o.fconst(f64::INFINITY);
    let xi = o.feq(ax, inf);
    let yi = o.feq(ay, inf);
    let any_inf = o.por(xi, yi);
    o.sel(any_inf, inf, v)
}

/// A quadratic fit of the cube root on [1, 8] (relative error below 4%),
/// the start of Newton's iteration.
const CBRT_START: [f64; 3] = [-0.012_726_7, 0.247_791_81, 0.801_677_72];

/// cbrt(x): |x| = 2^(3q + r) m (subnormals scaled by 2^54 first), the
/// root of m' = 2^r m in [1, 8) by four Newton steps from a quadratic
/// start, one more step with the residual y^3 - m' in double-double, then
/// scaled by 2^q. cbrt(+-0), cbrt(+-inf) and NaN are x.
pub fn cbrt_prog<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let ax = o.abs(x);
    let min_normal = o.fconst(f64::MIN_POSITIVE);
    let sub = o.flt(ax, min_normal);
    let two54 = o.fconst(2f64.powi(54));
    let scaled = o.mul(ax, two54);
    let axs = o.sel(sub, scaled, ax);
    let b = o.bits(axs);
    let biased = o.isar(b, 52);
    let expmask = o.iconst(0x7ff);
    let biased = o.iand(biased, expmask);
    let minus1077 = o.iconst(-1023 - 54);
    let minus1023 = o.iconst(-1023);
    let adj = o.seli(sub, minus1077, minus1023);
    let e = o.iadd(biased, adj);
    let mbits = fraction_under(o, b, 0x3ff0_0000_0000_0000);
    let m = o.float(mbits);
    // e = 3q + r, r in {0, 1, 2}: q = rint((e - 1) / 3) (never a tie).
    let ef = o.i2f(e);
    let one = o.fconst(1.0);
    let three = o.fconst(3.0);
    let em1 = o.sub(ef, one);
    let third = o.div(em1, three);
    let qf = o.rint(third);
    let nq3 = o.mul(qf, three);
    let rf = o.sub(ef, nq3);
    let two = o.fconst(2.0);
    let four = o.fconst(4.0);
    let r1 = o.feq(rf, one);
    let r2 = o.feq(rf, two);
    let f = o.sel(r2, four, one);
    let f = o.sel(r1, two, f);
    let mm = o.mul(m, f);
    // Newton: y <- (2y + m' / y^2) / 3.
    let c0 = o.fconst(CBRT_START[0]);
    let c1 = o.fconst(CBRT_START[1]);
    let c2 = o.fconst(CBRT_START[2]);
    let y = o.fma(c0, mm, c1);
    let mut y = o.fma(y, mm, c2);
    for _ in 0..4 {
        let yy = o.mul(y, y);
        let w = o.div(mm, yy);
        let s = o.fma(two, y, w);
        y = o.div(s, three);
    }
    // Last step with the residual y^3 - m' in double-double.
    let (p, p_lo) = two_product(o, y, y);
    let (c, c_lo) = two_product(o, p, y);
    let c_lo = o.fma(p_lo, y, c_lo);
    let d = o.sub(c, mm);
    let resid = o.add(d, c_lo);
    let three_p = o.mul(p, three);
    let corr = o.div(resid, three_p);
    let y = o.sub(y, corr);
    let q = o.f2i(qf);
    let bias = o.iconst(1023);
    let scale = pow2(o, q, bias);
    let v = o.mul(y, scale);
    let zero_i = o.iconst(0);
    let xb = o.bits(x);
    let neg = o.ilt(xb, zero_i);
    let nv = o.neg(v);
    let v = o.sel(neg, nv, v);
    // 0, inf, NaN: x itself.
    let zero = o.fconst(0.0);
    let inf = o.fconst(f64::INFINITY);
    let is0 = o.feq(ax, zero);
    let isinf = o.feq(ax, inf);
    let isnan = o.isnan(x);
    let special = o.por(is0, isinf);
    let special = o.por(special, isnan);
    o.sel(special, x, v)
}
