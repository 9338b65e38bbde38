//! Building blocks the programs share: the bit fields of a double, and the
//! error-free transformations of double-double arithmetic (each a fixed
//! instruction sequence, so a program reads as its algorithm).

use super::Ops;

/// 2^k for the exponent `k` of a normal double; `bias` holds 1023.
pub(super) fn pow2<O: Ops>(o: &mut O, k: O::I, bias: O::I) -> O::F {
    let e = o.iadd(k, bias);
    let e = o.ishl(e, 52);
    o.float(e)
}

/// The 52 fraction bits of `bits` under the bits `top`: with the bits of
/// 1.0, the significand as a double in [1, 2); with 2^52, the 53-bit
/// integer significand (implicit bit set).
pub(super) fn fraction_under<O: Ops>(o: &mut O, bits: O::I, top: i64) -> O::I {
    let fraction_mask = o.iconst(0x000f_ffff_ffff_ffff);
    let top = o.iconst(top);
    let fraction = o.iand(bits, fraction_mask);
    o.ior(fraction, top)
}

/// Bits 64 - n .. 128 - n of the 128-bit `hi:lo` (`hi << n | lo >> (64 - n)`,
/// 0 < n < 64).
pub(super) fn funnel_shl<O: Ops>(o: &mut O, hi: O::I, lo: O::I, n: u32) -> O::I {
    let a = o.ishl(hi, n);
    let c = o.ishr(lo, 64 - n);
    o.ior(a, c)
}

/// `a * b` exactly, as hi + lo (TwoProduct with an fma).
pub(super) fn two_product<O: Ops>(o: &mut O, a: O::F, b: O::F) -> (O::F, O::F) {
    let hi = o.mul(a, b);
    let neg_hi = o.neg(hi);
    let lo = o.fma(a, b, neg_hi);
    (hi, lo)
}

/// The product of two double-doubles, as hi + lo (the a_lo * b_lo term is
/// below the result's precision).
pub(super) fn mul_dd<O: Ops>(o: &mut O, a: (O::F, O::F), b: (O::F, O::F)) -> (O::F, O::F) {
    let (hi, lo) = two_product(o, a.0, b.0);
    let lo = o.fma(a.0, b.1, lo);
    let lo = o.fma(a.1, b.0, lo);
    (hi, lo)
}

/// `a + b` exactly, as hi + lo, when |a| >= |b| (Fast2Sum).
pub(super) fn fast_two_sum<O: Ops>(o: &mut O, a: O::F, b: O::F) -> (O::F, O::F) {
    let hi = o.add(a, b);
    let back = o.sub(hi, a);
    let lo = o.sub(b, back);
    (hi, lo)
}

/// `hi + lo` renormalized (|lo| below half an ulp of the new hi), for
/// |hi| >= |lo|.
pub(super) fn renormalize<O: Ops>(o: &mut O, hi: O::F, lo: O::F) -> (O::F, O::F) {
    let sum = o.add(hi, lo);
    let back = o.sub(hi, sum);
    let rest = o.add(back, lo);
    (sum, rest)
}

/// `a / (d_hi + d_lo)` as q_hi + q_lo: the quotient and one correction
/// step (the residual `a - q_hi d` is exact for its first fma).
pub(super) fn div_dd<O: Ops>(o: &mut O, a: O::F, d: (O::F, O::F)) -> (O::F, O::F) {
    let q = o.div(a, d.0);
    let neg_q = o.neg(q);
    let resid = o.fma(neg_q, d.0, a);
    let resid = o.fma(neg_q, d.1, resid);
    let correction = o.div(resid, d.0);
    (q, correction)
}

/// `a + b` exactly, as hi + lo, for any magnitudes (TwoSum).
pub(super) fn two_sum<O: Ops>(o: &mut O, a: O::F, b: O::F) -> (O::F, O::F) {
    let hi = o.add(a, b);
    let bv = o.sub(hi, a);
    let av = o.sub(hi, bv);
    let db = o.sub(b, bv);
    let da = o.sub(a, av);
    let lo = o.add(da, db);
    (hi, lo)
}

/// The larger and the smaller of two non-NaN values.
pub(super) fn max_min<O: Ops>(o: &mut O, a: O::F, b: O::F) -> (O::F, O::F) {
    let a_less = o.flt(a, b);
    let hi = o.sel(a_less, b, a);
    let lo = o.sel(a_less, a, b);
    (hi, lo)
}

/// A double-double constant: `(hi, lo)` as the bits of two doubles.
pub(super) fn dd_const<O: Ops>(o: &mut O, bits: (u64, u64)) -> (O::F, O::F) {
    let hi = o.fconst(f64::from_bits(bits.0));
    let lo = o.fconst(f64::from_bits(bits.1));
    (hi, lo)
}
