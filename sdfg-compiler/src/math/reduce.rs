//! The range reductions: exp's x = k ln2 + r, ln's x = 2^e m, and sin/cos's
//! x = k pi/2 + (r + t) (Cody-Waite below 2^20, Payne-Hanek above).

use super::blocks::{fraction_under, funnel_shl, mul_dd, renormalize, two_product};
use super::Ops;

/// ln(2) split so that `k * LN2_HI` is exact for |k| < 2^21.
pub(super) const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
pub(super) const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
/// pi/2 = PIO2_1 + PIO2_2 + PIO2_3 (~139 bits); PIO2_1 has 33 significant
/// bits, so `k * PIO2_1` is exact for |k| < 2^20.
const PIO2_1: f64 = f64::from_bits(0x3ff9_21fb_5440_0000);
const PIO2_2: f64 = f64::from_bits(0x3dd0_b461_1a62_6331);
const PIO2_3: f64 = f64::from_bits(0x3a71_701b_839a_2520);
const TWO_OVER_PI: f64 = f64::from_bits(0x3fe4_5f30_6dc9_c883);
/// Below this |x|, sin/cos use the Cody-Waite reduction (above: Payne-Hanek).
pub const TRIG_DOMAIN: f64 = PAYNE_HANEK_FROM;

/// exp's reduction: x = k ln2 + r with |r| <= ln2/2 (Cody-Waite with the
/// two-part ln2), x clamped first so k stays in [-1077, 1025] (out there
/// e^x is 0 or inf anyway). Returns r and k (as a float).
pub(super) fn exp_reduce<O: Ops>(o: &mut O, x: O::F) -> (O::F, O::F) {
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
    (r, kf)
}

/// ln's reduction: x = 2^e m with m in [sqrt(1/2), sqrt(2)) for finite
/// x > 0 (a subnormal x is scaled by 2^54 first). Returns e and m; both ln
/// programs go on from here.
pub(super) fn ln_reduce<O: Ops>(o: &mut O, x: O::F) -> (O::I, O::F) {
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
    // m in [1, 2), then halved (and e incremented) above sqrt(2).
    let mbits = fraction_under(o, b, 0x3ff0_0000_0000_0000);
    let sqrt2_bits = o.iconst(0x3ff6_a09e_667f_3bcd);
    let big = o.ilt(sqrt2_bits, mbits);
    let one_exp = o.iconst(1 << 52);
    let halved = o.isub(mbits, one_exp);
    let mbits = o.seli(big, halved, mbits);
    let one_i = o.iconst(1);
    let e_plus = o.iadd(e, one_i);
    let e = o.seli(big, e_plus, e);
    let m = o.float(mbits);
    (e, m)
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
    let (w_hi, w_lo) = two_product(o, kf, p2); // k * PIO2_2, exactly
    let r = o.sub(a, w_hi);
    // Fast2Sum tail: (a - r) - w_hi, exact when |a| >= |w_hi| (always: |w_hi| < 2^-13 |a| or a == 0 with k == 0).
    let a_minus_r = o.sub(a, r);
    let tail = o.sub(a_minus_r, w_hi);
    let tail = o.sub(tail, w_lo);
    let t = o.fma(nkf, p3, tail);
    let (r, t) = renormalize(o, r, t);
    let k = o.f2i(kf);
    (r, t, k)
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
    let m = fraction_under(o, b, 1 << 52);
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
    let f_hi = funnel_shl(o, l2, l1, 2);
    let f_lo = funnel_shl(o, l1, l0, 2);
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
    let (r_hi, r_lo) = mul_dd(o, (a_hi, a_lo), (p_hi, p_lo));
    let (r, t) = renormalize(o, r_hi, r_lo);
    (r, t, quad)
}

/// x = k pi/2 + (r + t) for every x: Cody-Waite below 2^20, Payne-Hanek
/// (skipped by a branch when not needed) above; inf/NaN give NaN.
pub(super) fn trig_reduce_any<O: Ops>(o: &mut O, x: O::F) -> (O::F, O::F, O::I) {
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
