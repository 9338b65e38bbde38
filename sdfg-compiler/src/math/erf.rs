//! erf: fdlibm's rational approximations (`s_erf.c`), evaluated
//! branch-free on |x| and the sign put back at the end.
//!
//! * |x| < 0.84375: erf = |x| + |x| P(x^2)/Q(x^2), the sum as one fma (so
//!   subnormal |x| round once too).
//! * 0.84375 <= |x| < 1.25: erf = erx + P(s)/Q(s), s = |x| - 1 (exact),
//!   erx = 0.845062911510467529297 (a 24-bit value).
//! * 1.25 <= |x| <= 6: erf = 1 - erfc, erfc = e^(-z^2 - 0.5625 +
//!   (z - x)(z + x) + R(s)/S(s)) / |x|, s = 1/x^2, with one (R, S) pair below
//!   1/0.35 and another above, z = |x| with the low 32 bits cleared (so z^2 and
//!   -z^2 - 0.5625 are exact). fdlibm takes two exponentials; here the
//!   argument is split exactly into hi + lo (Fast2Sum) and one `exp_core`
//!   takes both parts.
//! * |x| > 6: 1 (erfc(6) ~ 2e-17 is below half an ulp of 1).
//!
//! NaN -> NaN, +-inf -> +-1, erf(-0) = -0.
//!
//! The coefficients are fdlibm's (Copyright (C) 1993 by Sun Microsystems,
//! Inc.; "Permission to use, copy, modify, and distribute this software is
//! freely granted, provided that this notice is preserved"), written here as
//! the shortest decimals of the same doubles, highest degree first.

use super::blocks::fast_two_sum;
use super::functions::exp_core;
use super::{horner, Ops};

/// erf on [0, 0.84375): P and Q of x^2 (Q's constant term is 1).
const PP: [f64; 5] = [
    -2.3763016656650163e-05,
    -0.005770270296489442,
    -0.02848174957559851,
    -0.3250421072470015,
    0.12837916709551256,
];
const QQ: [f64; 6] = [
    -3.960228278775368e-06,
    0.00013249473800432164,
    0.005081306281875766,
    0.0650222499887673,
    0.39791722395915535,
    1.0,
];
/// erf on [0.84375, 1.25): P and Q of |x| - 1, around `ERX`.
const PA: [f64; 7] = [
    -0.002166375594868791,
    0.035478304325618236,
    -0.11089469428239668,
    0.31834661990116175,
    -0.3722078760357013,
    0.41485611868374833,
    -0.0023621185607526594,
];
const QA: [f64; 7] = [
    0.011984499846799107,
    0.01363708391202905,
    0.12617121980876164,
    0.07182865441419627,
    0.540397917702171,
    0.10642088040084423,
    1.0,
];
const ERX: f64 = 0.8450629115104675;
/// erfc on [1.25, 1/0.35): R and S of 1/x^2.
const RA: [f64; 8] = [
    -9.814329344169145,
    -81.2874355063066,
    -184.60509290671104,
    -162.39666946257347,
    -62.375332450326006,
    -10.558626225323291,
    -0.6938585727071818,
    -0.009864944034847148,
];
const SA: [f64; 9] = [
    -0.0604244152148581,
    6.570249770319282,
    108.63500554177944,
    429.00814002756783,
    645.3872717332679,
    434.56587747522923,
    137.65775414351904,
    19.651271667439257,
    1.0,
];
/// erfc on [1/0.35, 6]: R and S of 1/x^2.
const RB: [f64; 7] = [
    -483.5191916086514,
    -1025.0951316110772,
    -637.5664433683896,
    -160.63638485582192,
    -17.757954917754752,
    -0.799283237680523,
    -0.0098649429247001,
];
const SB: [f64; 8] = [
    -22.44095244658582,
    474.52854120695537,
    2553.0504064331644,
    3199.8582195085955,
    1536.729586084437,
    325.7925129965739,
    30.33806074348246,
    1.0,
];
/// fdlibm's split between the two erfc fits: the double whose high word is
/// 0x4006db6d (1/0.35 ~ 2.857142857, rounded down to 21 fraction bits).
const RA_LIMIT: f64 = 2.8571414947509766;

/// erf(x) for every x (see the module doc).
pub fn erf_prog<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let ax = o.abs(x);
    let one = o.fconst(1.0);
    // |x| < 0.84375.
    let z = o.mul(ax, ax);
    let p = horner(o, z, &PP);
    let q = horner(o, z, &QQ);
    let y = o.div(p, q);
    let small = o.fma(ax, y, ax);
    // 0.84375 <= |x| < 1.25.
    let s = o.sub(ax, one);
    let p = horner(o, s, &PA);
    let q = horner(o, s, &QA);
    let pq = o.div(p, q);
    let erx = o.fconst(ERX);
    let mid = o.add(erx, pq);
    // 1.25 <= |x| <= 6 (|x| clamped to 6 so inf stays out of the sums).
    let six = o.fconst(6.0);
    let beyond = o.fgt(ax, six);
    let xc = o.sel(beyond, six, ax);
    let xx = o.mul(xc, xc);
    let s = o.div(one, xx);
    let ra_limit = o.fconst(RA_LIMIT);
    let use_a = o.flt(xc, ra_limit);
    let ra = horner(o, s, &RA);
    let sa = horner(o, s, &SA);
    let rb = horner(o, s, &RB);
    let sb = horner(o, s, &SB);
    let r = o.sel(use_a, ra, rb);
    let d = o.sel(use_a, sa, sb);
    let rs = o.div(r, d);
    // z: xc with the low 32 bits cleared; -z^2 - 0.5625 is exact.
    let xb = o.bits(xc);
    let high = o.iconst(0xffff_ffff_0000_0000_u64 as i64);
    let zb = o.iand(xb, high);
    let z = o.float(zb);
    let zz = o.mul(z, z);
    let nzz = o.neg(zz);
    let c = o.fconst(-0.5625);
    let a = o.add(nzz, c);
    // (z - x)(z + x) + R/S, small next to a (|a| >= 2.1, |b| < 0.3).
    let zmx = o.sub(z, xc);
    let zpx = o.add(z, xc);
    let b = o.fma(zmx, zpx, rs);
    let (hi, lo) = fast_two_sum(o, a, b);
    let e = exp_core(o, hi, Some(lo));
    let erfc = o.div(e, xc);
    let tail = o.sub(one, erfc);
    // Select by range, saturate, sign, NaN.
    let lim_mid = o.fconst(1.25);
    let is_mid = o.flt(ax, lim_mid);
    let v = o.sel(is_mid, mid, tail);
    let lim_small = o.fconst(0.84375);
    let is_small = o.flt(ax, lim_small);
    let v = o.sel(is_small, small, v);
    let v = o.sel(beyond, one, v);
    let zero_i = o.iconst(0);
    let x_bits = o.bits(x);
    let neg = o.ilt(x_bits, zero_i);
    let nv = o.neg(v);
    let v = o.sel(neg, nv, v);
    let nan = o.isnan(x);
    o.sel(nan, x, v)
}
