//! The numeric semantics of the language's values that the reference
//! evaluator ([`crate::eval`]) and the code generators share: a conversion
//! (`v as ty`, folded by the PTX generator for literals of another type) and
//! IEEE 754-2019 minimumNumber / maximumNumber (`min`, `max` on floats).
//! They sit here, below both, so a backend never imports the evaluator.

use super::{ScalarType, Value};

/// `v as ty` with Rust's semantics. Complex values take part only where the
/// evaluator must stay total (the front end rejects such casts): a complex
/// value casts part by part to another complex type, and as its real part
/// to a real type; a real value becomes the real part of a complex one.
pub fn cast(v: Value, ty: ScalarType) -> Value {
    if let Some(v) = cast_complex(v, ty) {
        return v;
    }
    cast_real(v, ty)
}

fn cast_complex(v: Value, ty: ScalarType) -> Option<Value> {
    let parts = |z: Value| match z {
        Value::C32(z) => (Value::F32(z.re), Value::F32(z.im)),
        Value::C64(z) => (Value::F64(z.re), Value::F64(z.im)),
        other => (other, crate::ir::Value::from_bits(other.ty(), 0)),
    };
    if !v.ty().is_complex() && !ty.is_complex() {
        return None;
    }
    let (re, im) = parts(v);
    if !ty.is_complex() {
        return Some(cast_real(re, ty));
    }
    let part = ty.real_part();
    let (re, im) = (cast_real(re, part), cast_real(im, part));
    Some(match (re, im) {
        (Value::F32(re), Value::F32(im)) => Value::C32(num_complex::Complex::new(re, im)),
        (Value::F64(re), Value::F64(im)) => Value::C64(num_complex::Complex::new(re, im)),
        _ => Value::from_bits(ty, 0),
    })
}

fn cast_real(v: Value, ty: ScalarType) -> Value {
    macro_rules! to {
        ($x:expr) => {
            match ty {
                ScalarType::I8 => Value::I8($x as i8),
                ScalarType::I16 => Value::I16($x as i16),
                ScalarType::U8 => Value::U8($x as u8),
                ScalarType::U16 => Value::U16($x as u16),
                ScalarType::I32 => Value::I32($x as i32),
                ScalarType::I64 => Value::I64($x as i64),
                ScalarType::U32 => Value::U32($x as u32),
                ScalarType::U64 => Value::U64($x as u64),
                ScalarType::F32 => Value::F32($x as f32),
                ScalarType::F64 => Value::F64($x as f64),
                // Integers and f32 round once to the 16-bit float through
                // f32 (exact for every integer f16 can hold; f64 sources
                // round directly, below).
                ScalarType::F16 => Value::F16(half::f16::from_f32($x as f32)),
                ScalarType::BF16 => Value::BF16(half::bf16::from_f32($x as f32)),
                // Handled before (bool) or by `cast_complex`.
                ScalarType::Bool | ScalarType::C32 | ScalarType::C64 => Value::from_bits(ty, 0),
            }
        };
    }
    if ty == ScalarType::Bool {
        return Value::Bool(match v {
            Value::Bool(b) => b,
            Value::F32(x) => x != 0.0,
            Value::F64(x) => x != 0.0,
            Value::F16(x) => x.to_f32() != 0.0,
            Value::BF16(x) => x.to_f32() != 0.0,
            other => other.to_bits() != 0,
        });
    }
    // f64 rounds once to a 16-bit float (not `half`'s `from_f64`, which
    // rounds twice or drops the low bits).
    match (v, ty) {
        (Value::F64(x), ScalarType::F16) => {
            return Value::F16(half::f16::from_f32(f32_round_to_odd(x)))
        }
        (Value::F64(x), ScalarType::BF16) => {
            return Value::BF16(half::bf16::from_f32(f32_round_to_odd(x)))
        }
        _ => {}
    }
    match v {
        // Every 16-bit float is an f32 exactly.
        Value::F16(x) => to!(x.to_f32()),
        Value::BF16(x) => to!(x.to_f32()),
        Value::I8(x) => to!(x),
        Value::I16(x) => to!(x),
        Value::U8(x) => to!(x),
        Value::U16(x) => to!(x),
        Value::I32(x) => to!(x),
        Value::I64(x) => to!(x),
        Value::U32(x) => to!(x),
        Value::U64(x) => to!(x),
        Value::F32(x) => to!(x),
        Value::F64(x) => to!(x),
        Value::Bool(x) => to!(x as u8),
        Value::C32(z) => to!(z.re),
        Value::C64(z) => to!(z.re),
    }
}

/// `x` rounded to an f32 with round-to-odd: toward zero, then the last
/// bit set when that was inexact (NaN and exact values unchanged). Rounding
/// this to a format with at most 22 significant bits (f16: 11, bf16: 8)
/// gives the correctly rounded value of `x` itself, which a plain
/// f64 -> f32 -> f16 conversion (two roundings to nearest) does not. The
/// runtime's `__glue::f32_round_to_odd` (Rust bodies) and the PTX backend
/// (bf16) compute the same.
pub fn f32_round_to_odd(x: f64) -> f32 {
    let nearest = x as f32;
    if nearest.is_nan() || nearest as f64 == x {
        return nearest;
    }
    let toward_zero = if (nearest as f64).abs() > x.abs() {
        f32::from_bits(nearest.to_bits() - 1)
    } else {
        nearest
    };
    f32::from_bits(toward_zero.to_bits() | 1)
}

/// IEEE 754-2019 minimumNumber: a NaN operand is ignored (two give the
/// canonical NaN) and -0.0 < +0.0
/// (PTX `min`; Rust's `f64::min` leaves the sign of a zero unspecified).
/// Works on f32 values too: widening to f64 is exact. The runtime's
/// `MinMaxNumber` is the same function for the CPU device.
pub fn min_number(x: f64, y: f64) -> f64 {
    if x.is_nan() && y.is_nan() {
        f64::NAN
    } else if x.is_nan() {
        y
    } else if y.is_nan() {
        x
    } else if x == y {
        if x.is_sign_negative() {
            x
        } else {
            y
        }
    } else if x < y {
        x
    } else {
        y
    }
}

/// IEEE 754-2019 maximumNumber (see [`min_number`]).
pub fn max_number(x: f64, y: f64) -> f64 {
    if x.is_nan() && y.is_nan() {
        f64::NAN
    } else if x.is_nan() {
        y
    } else if y.is_nan() {
        x
    } else if x == y {
        if x.is_sign_negative() {
            y
        } else {
            x
        }
    } else if x > y {
        x
    } else {
        y
    }
}
