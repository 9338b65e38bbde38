//! sinh and cosh (as fdlibm computes them, from an accurate expm1) and that
//! expm1.

use super::blocks::pow2;
use super::functions::{exp_core, exp_prog};
use super::reduce::{exp_reduce, LN2_HI, LN2_LO};
use super::{factorial, horner, Ops};

/// e^x - 1 for 0 <= x <= 22 (NaN passes through): x = k ln2 + r, q =
/// e^r - 1 = r + r^2 Q(r) (Taylor to r^14, |r| <= ln2/2), then
/// 2^k q + (2^k - 1) with one rounding (2^k - 1 is exact for k <= 32).
fn expm1_small<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let (r, kf) = exp_reduce(o, x);
    let coeffs: Vec<f64> = (2..=14).rev().map(|n| 1.0 / factorial(n)).collect();
    let q = horner(o, r, &coeffs);
    let rq = o.mul(r, q);
    let em = o.fma(r, rq, r);
    let k = o.f2i(kf);
    let bias = o.iconst(1023);
    let s = pow2(o, k, bias);
    let one = o.fconst(1.0);
    let s1 = o.sub(s, one);
    o.fma(s, em, s1)
}

/// e^(|x| - ln2) = e^|x| / 2 without overflowing first (|x| >= 22).
fn half_exp<O: Ops>(o: &mut O, ax: O::F) -> O::F {
    let ln2hi = o.fconst(LN2_HI);
    let d = o.sub(ax, ln2hi); // exact: ax >= 22 and LN2_HI has 33 bits
    let nlo = o.fconst(-LN2_LO);
    exp_core(o, d, Some(nlo))
}

/// |x| clamped to 22 (NaN stays NaN).
fn clamp22<O: Ops>(o: &mut O, ax: O::F) -> O::F {
    let cap = o.fconst(22.0);
    let big = o.fgt(ax, cap);
    o.sel(big, cap, ax)
}

/// sinh(x) = sign(x) * (|x| < 1: (2t - t^2/(t+1)) / 2; |x| < 22:
/// (t + t/(t+1)) / 2, t = expm1(|x|); else e^|x| / 2).
pub fn sinh_prog<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let ax = o.abs(x);
    let xc = clamp22(o, ax);
    let t = expm1_small(o, xc);
    let one = o.fconst(1.0);
    let half = o.fconst(0.5);
    let t1 = o.add(t, one);
    let w = o.div(t, t1);
    // small: 2t - t w; mid: t + w.
    let two = o.fconst(2.0);
    let tw = o.mul(t, w);
    let ntw = o.neg(tw);
    let small = o.fma(two, t, ntw);
    let mid = o.add(t, w);
    let is_small = o.flt(ax, one);
    let v = o.sel(is_small, small, mid);
    let v = o.mul(v, half);
    let large = half_exp(o, ax);
    let cap = o.fconst(22.0);
    let is_large = o.fgt(ax, cap);
    let v = o.sel(is_large, large, v);
    // The sign of x (by its bits: sinh(-0) = -0).
    let zero_i = o.iconst(0);
    let xb = o.bits(x);
    let neg = o.ilt(xb, zero_i);
    let nv = o.neg(v);
    o.sel(neg, nv, v)
}

/// cosh(x) = |x| < ln2/2: 1 + t^2 / (2 + 2t), t = expm1(|x|); |x| < 22:
/// e/2 + 1/(2e), e = e^|x|; else e^|x| / 2.
pub fn cosh_prog<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let ax = o.abs(x);
    let xc = clamp22(o, ax);
    let t = expm1_small(o, xc);
    let one = o.fconst(1.0);
    let two = o.fconst(2.0);
    let tt = o.mul(t, t);
    let d = o.fma(two, t, two);
    let frac = o.div(tt, d);
    let small = o.add(one, frac);
    let e = exp_prog(o, xc);
    let half = o.fconst(0.5);
    let he = o.mul(e, half);
    let inv = o.div(half, e);
    let mid = o.add(he, inv);
    let limit = o.fconst(0.5 * std::f64::consts::LN_2);
    let is_small = o.flt(ax, limit);
    let v = o.sel(is_small, small, mid);
    let large = half_exp(o, ax);
    let cap = o.fconst(22.0);
    let is_large = o.fgt(ax, cap);
    o.sel(is_large, large, v)
}
