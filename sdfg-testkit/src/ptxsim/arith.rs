//! The semantics of the value-level instructions: integer arithmetic,
//! comparisons and conversions, and the float helpers `exec` needs.

pub(super) fn ty_of(op: &str) -> &str {
    op.rsplit('.').next().unwrap_or("")
}

pub(super) fn width(t: &str) -> u32 {
    match t {
        "u8" | "s8" | "b8" => 8,
        "u16" | "s16" | "b16" | "f16" | "bf16" => 16,
        "u32" | "s32" | "b32" | "f32" => 32,
        "pred" => 1,
        _ => 64,
    }
}

pub(super) fn mask(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

pub(super) fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

pub(super) fn f32v(v: u64) -> f32 {
    f32::from_bits(v as u32)
}

pub(super) fn f64v(v: u64) -> f64 {
    f64::from_bits(v)
}

pub(super) fn f32b(x: f32) -> u64 {
    x.to_bits() as u64
}

pub(super) fn f64b(x: f64) -> u64 {
    x.to_bits()
}

/// Division rounded toward zero (f64).
pub(super) fn div_rz_f64(a: f64, b: f64) -> f64 {
    let q = a / b;
    if !q.is_finite() || q == 0.0 {
        return q;
    }
    // a - q b has the sign opposite to a exactly when |q| overshoots |a / b|.
    let r = (-q).mul_add(b, a);
    if r != 0.0 && (r < 0.0) != (a < 0.0) {
        f64::from_bits(q.to_bits() - 1)
    } else {
        q
    }
}

/// Division rounded toward zero (f32), via the exact-enough f64 quotient.
pub(super) fn div_rz_f32(a: f32, b: f32) -> f32 {
    let q = div_rz_f64(a as f64, b as f64);
    let r = q as f32;
    if r.is_finite() && (r as f64).abs() > q.abs() {
        f32::from_bits(r.to_bits() - 1)
    } else {
        r
    }
}

pub(super) fn cmp_int(cmp: &str, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match cmp {
        "eq" => o == Equal,
        "ne" => o != Equal,
        "lt" => o == Less,
        "le" => o != Greater,
        "gt" => o == Greater,
        _ => o != Less,
    }
}

pub(super) fn int_op(base: &str, parts: &[&str], ty: &str, x: u64, y: u64, z: u64) -> u64 {
    if ty == "pred" {
        let (x, y) = (x != 0, y != 0);
        return (match base {
            "and" => x && y,
            "or" => x || y,
            "xor" => x ^ y,
            "not" => !x,
            _ => x,
        }) as u64;
    }
    let w = width(ty);
    let signed = ty.starts_with('s');
    // mul.wide: source width is the type's, result twice as wide.
    if base == "mul" && parts.get(1) == Some(&"wide") {
        return if signed {
            (sext(x, w) * sext(y, w)) as u64
        } else {
            mask(x, w) * mask(y, w)
        };
    }
    // mad.wide: the wide product plus a 64-bit addend.
    if base == "mad" && parts.get(1) == Some(&"wide") {
        let product = if signed {
            (sext(x, w) * sext(y, w)) as u64
        } else {
            mask(x, w) * mask(y, w)
        };
        return product.wrapping_add(z);
    }
    if base == "mul" && parts.get(1) == Some(&"hi") {
        return if signed {
            mask(((sext(x, w) as i128 * sext(y, w) as i128) >> w) as u64, w)
        } else {
            mask(((mask(x, w) as u128 * mask(y, w) as u128) >> w) as u64, w)
        };
    }
    let (xs, ys) = (sext(x, w), sext(y, w));
    let (xu, yu) = (mask(x, w), mask(y, w));
    let r = match base {
        "add" => xu.wrapping_add(yu),
        "sub" => xu.wrapping_sub(yu),
        "mul" => xu.wrapping_mul(yu),
        "mad" => xu.wrapping_mul(yu).wrapping_add(mask(z, w)),
        "div" if signed => {
            if ys == 0 {
                0xDEAD
            } else {
                xs.wrapping_div(ys) as u64
            }
        }
        "div" => xu.checked_div(yu).unwrap_or(0xDEAD),
        "rem" if signed => {
            if ys == 0 {
                0xDEAD
            } else {
                xs.wrapping_rem(ys) as u64
            }
        }
        "rem" => {
            if yu == 0 {
                0xDEAD
            } else {
                xu % yu
            }
        }
        "neg" => (xs.wrapping_neg()) as u64,
        "not" => !xu,
        "and" => xu & yu,
        "or" => xu | yu,
        "xor" => xu ^ yu,
        "shl" => {
            if yu >= w as u64 {
                0
            } else {
                xu << yu
            }
        }
        "shr" if signed => (xs >> yu.min(w as u64 - 1)) as u64,
        "shr" => {
            if yu >= w as u64 {
                0
            } else {
                xu >> yu
            }
        }
        "min" if signed => xs.min(ys) as u64,
        "max" if signed => xs.max(ys) as u64,
        "min" => xu.min(yu),
        "max" => xu.max(yu),
        "abs" => xs.wrapping_abs() as u64,
        _ => 0,
    };
    mask(r, w)
}

pub(super) fn cvt(parts: &[&str], v: u64) -> u64 {
    // cvt[.rnd].dst.src
    let n = parts.len();
    let (dst, src) = (parts[n - 2], parts[n - 1]);
    let rnd = if n == 4 { parts[1] } else { "" };
    if let Some(r) = cvt_half(dst, src, v) {
        return r;
    }
    if (dst, src, rnd) == ("f32", "f64", "rz") {
        return f32b(f64_to_f32_toward_zero(f64v(v)));
    }
    let ws = width(src);
    let wd = width(dst);
    let src_float = src.starts_with('f');
    let dst_float = dst.starts_with('f');
    let x: f64 = if src == "f32" {
        f32v(v) as f64
    } else {
        f64v(v)
    };
    if src_float && dst_float {
        let r = match rnd {
            "rni" => x.round_ties_even(),
            "rmi" => x.floor(),
            "rpi" => x.ceil(),
            "rzi" => x.trunc(),
            _ => x,
        };
        return if dst == "f32" {
            if src == "f64" && rnd == "rn" {
                f32b(f64v(v) as f32)
            } else {
                f32b(r as f32)
            }
        } else {
            f64b(r)
        };
    }
    if src_float {
        let t = x.trunc();
        let r: u64 = match dst {
            "s32" => (t as i32) as u32 as u64,
            "u32" => (t as u32) as u64,
            "s64" => (t as i64) as u64,
            _ => t as u64,
        };
        // f32 sources: converting f32 -> f64 first is exact, so `as` matches.
        return r;
    }
    if dst_float {
        let signed = src.starts_with('s');
        let val = mask(v, ws);
        return match (dst, signed) {
            ("f32", true) => f32b(sext(val, ws) as f32),
            ("f32", false) => f32b(val as f32),
            ("f64", true) => f64b(sext(val, ws) as f64),
            _ => f64b(val as f64),
        };
    }
    // Integer <-> integer: extend by the source's signedness, then truncate.
    let ext = if src.starts_with('s') {
        sext(mask(v, ws), ws) as u64
    } else {
        mask(v, ws)
    };
    mask(ext, wd)
}

/// Conversions to and from the 16-bit floats (`half` implements IEEE
/// round to nearest even, as `cvt.rn` does); None for other types.
fn cvt_half(dst: &str, src: &str, v: u64) -> Option<u64> {
    use half::{bf16, f16};
    use sdfg_compiler::ir::semantics::f32_round_to_odd;
    Some(match (dst, src) {
        ("f16", "f32") => f16::from_f32(f32v(v)).to_bits() as u64,
        ("bf16", "f32") => bf16::from_f32(f32v(v)).to_bits() as u64,
        // Correctly rounded (`half`'s `from_f64` rounds twice).
        ("f16", "f64") => f16::from_f32(f32_round_to_odd(f64v(v))).to_bits() as u64,
        ("bf16", "f64") => bf16::from_f32(f32_round_to_odd(f64v(v))).to_bits() as u64,
        ("f32", "f16") => f32b(f16::from_bits(v as u16).to_f32()),
        ("f32", "bf16") => f32b(bf16::from_bits(v as u16).to_f32()),
        _ => return None,
    })
}

/// `cvt.rz.f32.f64`: the f32 nearest `x` toward zero (overflow gives
/// the largest finite f32).
fn f64_to_f32_toward_zero(x: f64) -> f32 {
    let nearest = x as f32;
    if nearest.is_nan() || (nearest as f64).abs() <= x.abs() {
        return nearest;
    }
    // Rounded away from zero: one step back (the magnitude's bits - 1).
    f32::from_bits(nearest.to_bits() - 1)
}
