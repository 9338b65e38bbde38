//! The operations on values: unary and binary operators, comparisons,
//! math functions and write-conflict resolution, as the evaluator defines
//! them (the module documentation of [`super`] lists the decisions).

use super::zero;
use crate::ir::semantics::{cast, max_number, min_number};
use crate::ir::{BinOp, MathFn, ScalarType, UnOp, Value, WcrOp};
use crate::math::mirror;

pub(super) fn truthy(v: Value) -> bool {
    match v {
        Value::Bool(b) => b,
        other => other.to_bits() != 0,
    }
}

/// An index value as i64 (u64 values above i64::MAX become negative: out of
/// bounds either way).
pub fn index_value(v: Value) -> i64 {
    match v {
        Value::I8(x) => x as i64,
        Value::I16(x) => x as i64,
        Value::U8(x) => x as i64,
        Value::U16(x) => x as i64,
        Value::I32(x) => x as i64,
        Value::I64(x) => x,
        Value::U32(x) => x as i64,
        Value::U64(x) => x as i64,
        Value::Bool(b) => b as i64,
        Value::F32(x) => x as i64,
        Value::F64(x) => x as i64,
        Value::F16(x) => x.to_f32() as i64,
        Value::BF16(x) => x.to_f32() as i64,
        Value::C32(z) => z.re as i64,
        Value::C64(z) => z.re as i64,
    }
}

pub(super) fn width_mask(ty: ScalarType) -> u64 {
    match ty.bits() {
        64 => u64::MAX,
        b => (1u64 << b) - 1,
    }
}

pub(super) fn step_positive(step: Value) -> bool {
    match step {
        Value::I8(s) => s > 0,
        Value::I16(s) => s > 0,
        Value::U8(s) => s > 0,
        Value::U16(s) => s > 0,
        Value::I32(s) => s > 0,
        Value::I64(s) => s > 0,
        Value::U32(s) => s > 0,
        Value::U64(s) => s > 0,
        _ => false,
    }
}

/// An f16/bf16 value as the f32 it equals exactly (others unchanged):
/// the 16-bit floats compute in f32 ...
pub(super) fn widen_half(v: Value) -> Value {
    if v.ty().is_half_float() {
        cast(v, ScalarType::F32)
    } else {
        v
    }
}

/// ... and a float result rounds back to the operand's type `ty` (to
/// nearest, ties to even), as `half`'s operators and the PTX backend do.
pub(super) fn round_half(ty: ScalarType, r: Value) -> Value {
    if r.ty() == ScalarType::F32 {
        cast(r, ty)
    } else {
        r
    }
}

/// `op arg`.
pub fn unary(op: UnOp, v: Value) -> Value {
    if v.ty().is_half_float() {
        return round_half(v.ty(), unary(op, widen_half(v)));
    }
    match (op, v) {
        (UnOp::Neg, Value::I8(x)) => Value::I8(x.wrapping_neg()),
        (UnOp::Neg, Value::I16(x)) => Value::I16(x.wrapping_neg()),
        (UnOp::Neg, Value::U8(x)) => Value::U8(x.wrapping_neg()),
        (UnOp::Neg, Value::U16(x)) => Value::U16(x.wrapping_neg()),
        (UnOp::Not, Value::I8(x)) => Value::I8(!x),
        (UnOp::Not, Value::I16(x)) => Value::I16(!x),
        (UnOp::Not, Value::U8(x)) => Value::U8(!x),
        (UnOp::Not, Value::U16(x)) => Value::U16(!x),
        (UnOp::Neg, Value::I32(x)) => Value::I32(x.wrapping_neg()),
        (UnOp::Neg, Value::I64(x)) => Value::I64(x.wrapping_neg()),
        (UnOp::Neg, Value::U32(x)) => Value::U32(x.wrapping_neg()),
        (UnOp::Neg, Value::U64(x)) => Value::U64(x.wrapping_neg()),
        (UnOp::Neg, Value::F32(x)) => Value::F32(-x),
        (UnOp::Neg, Value::F64(x)) => Value::F64(-x),
        (UnOp::Neg, Value::Bool(x)) => Value::Bool(x),
        (UnOp::Not, Value::Bool(x)) => Value::Bool(!x),
        (UnOp::Not, Value::I32(x)) => Value::I32(!x),
        (UnOp::Not, Value::I64(x)) => Value::I64(!x),
        (UnOp::Not, Value::U32(x)) => Value::U32(!x),
        (UnOp::Not, Value::U64(x)) => Value::U64(!x),
        (UnOp::Neg, Value::C32(z)) => Value::C32(-z),
        (UnOp::Neg, Value::C64(z)) => Value::C64(-z),
        // Computed in f32 (above).
        (UnOp::Neg, v @ (Value::F16(_) | Value::BF16(_))) => v,
        // Not on floats is rejected by validation; keep the evaluator total.
        (UnOp::Not, f) => f,
    }
}

macro_rules! int_binop {
    ($op:expr, $a:expr, $b:expr, $t:ty, $ctor:path) => {{
        let (a, b): ($t, $t) = ($a, $b);
        match $op {
            BinOp::Add => $ctor(a.wrapping_add(b)),
            BinOp::Sub => $ctor(a.wrapping_sub(b)),
            BinOp::Mul => $ctor(a.wrapping_mul(b)),
            // x / 0 == 0, MIN / -1 == MIN (wrapping_div gives MIN).
            BinOp::Div => $ctor(if b == 0 { 0 } else { a.wrapping_div(b) }),
            // x % 0 == x, MIN % -1 == 0.
            BinOp::Rem => $ctor(if b == 0 { a } else { a.wrapping_rem(b) }),
            BinOp::BitAnd => $ctor(a & b),
            BinOp::BitOr => $ctor(a | b),
            BinOp::BitXor => $ctor(a ^ b),
            BinOp::Eq => Value::Bool(a == b),
            BinOp::Ne => Value::Bool(a != b),
            BinOp::Lt => Value::Bool(a < b),
            BinOp::Le => Value::Bool(a <= b),
            BinOp::Gt => Value::Bool(a > b),
            BinOp::Ge => Value::Bool(a >= b),
            BinOp::Shl | BinOp::Shr | BinOp::And | BinOp::Or => unreachable!(),
        }
    }};
}

macro_rules! float_binop {
    ($op:expr, $a:expr, $b:expr, $ctor:path) => {{
        let (a, b) = ($a, $b);
        match $op {
            BinOp::Add => $ctor(a + b),
            BinOp::Sub => $ctor(a - b),
            BinOp::Mul => $ctor(a * b),
            BinOp::Div => $ctor(a / b),
            BinOp::Rem => $ctor(a % b),
            BinOp::Eq => Value::Bool(a == b),
            BinOp::Ne => Value::Bool(a != b),
            BinOp::Lt => Value::Bool(a < b),
            BinOp::Le => Value::Bool(a <= b),
            BinOp::Gt => Value::Bool(a > b),
            BinOp::Ge => Value::Bool(a >= b),
            // Bit operations on floats are rejected by validation: operate on the bits.
            _ => {
                let (x, y) = ($ctor(a).to_bits(), $ctor(b).to_bits());
                let bits = match $op {
                    BinOp::BitAnd => x & y,
                    BinOp::BitOr => x | y,
                    _ => x ^ y,
                };
                Value::from_bits($ctor(a).ty(), bits)
            }
        }
    }};
}

/// Complex `+ - * /` with num-complex's formulas (naive division), `==` and
/// `!=` part by part; the operators the front end rejects leave `a`.
macro_rules! complex_binop {
    ($op:expr, $a:expr, $b:expr, $ctor:path) => {{
        let (a, b) = ($a, $b);
        match $op {
            BinOp::Add => $ctor(a + b),
            BinOp::Sub => $ctor(a - b),
            BinOp::Mul => $ctor(a * b),
            BinOp::Div => $ctor(a / b),
            BinOp::Eq => Value::Bool(a == b),
            BinOp::Ne => Value::Bool(a != b),
            _ => $ctor(a),
        }
    }};
}

/// `a op b` for every operator but the lazy `&&`/`||` (evaluated eagerly
/// here). Operands have the same type, except the shift amount.
pub fn binary(op: BinOp, a: Value, b: Value) -> Value {
    if let BinOp::Shl | BinOp::Shr = op {
        return shift(op, a, b);
    }
    if let BinOp::And | BinOp::Or = op {
        let (x, y) = (truthy(a), truthy(b));
        return Value::Bool(if op == BinOp::And { x && y } else { x || y });
    }
    // Mismatched operand types are rejected by validation; convert the right
    // side so the evaluator stays total.
    let b = if a.ty() != b.ty() { cast(b, a.ty()) } else { b };
    if a.ty().is_half_float() {
        return round_half(a.ty(), binary(op, widen_half(a), widen_half(b)));
    }
    match (a, b) {
        (Value::I8(x), Value::I8(y)) => int_binop!(op, x, y, i8, Value::I8),
        (Value::I16(x), Value::I16(y)) => int_binop!(op, x, y, i16, Value::I16),
        (Value::U8(x), Value::U8(y)) => int_binop!(op, x, y, u8, Value::U8),
        (Value::U16(x), Value::U16(y)) => int_binop!(op, x, y, u16, Value::U16),
        (Value::I32(x), Value::I32(y)) => int_binop!(op, x, y, i32, Value::I32),
        (Value::I64(x), Value::I64(y)) => int_binop!(op, x, y, i64, Value::I64),
        (Value::U32(x), Value::U32(y)) => int_binop!(op, x, y, u32, Value::U32),
        (Value::U64(x), Value::U64(y)) => int_binop!(op, x, y, u64, Value::U64),
        (Value::F32(x), Value::F32(y)) => float_binop!(op, x, y, Value::F32),
        (Value::F64(x), Value::F64(y)) => float_binop!(op, x, y, Value::F64),
        (Value::C32(x), Value::C32(y)) => complex_binop!(op, x, y, Value::C32),
        (Value::C64(x), Value::C64(y)) => complex_binop!(op, x, y, Value::C64),
        (Value::Bool(x), Value::Bool(y)) => match op {
            BinOp::BitAnd => Value::Bool(x & y),
            BinOp::BitOr => Value::Bool(x | y),
            BinOp::BitXor | BinOp::Ne => Value::Bool(x ^ y),
            BinOp::Eq => Value::Bool(x == y),
            BinOp::Lt => Value::Bool(!x & y),
            BinOp::Le => Value::Bool(!x | y),
            BinOp::Gt => Value::Bool(x & !y),
            BinOp::Ge => Value::Bool(x | !y),
            // Arithmetic on bool is rejected by validation: treat as u32 0/1, keep bit 0.
            _ => {
                let r = binary(op, Value::U32(x as u32), Value::U32(y as u32));
                Value::Bool(r.to_bits() & 1 != 0)
            }
        },
        _ => unreachable!("operands were unified above"),
    }
}

pub(super) fn shift(op: BinOp, a: Value, b: Value) -> Value {
    // The amount: any integer type, masked to the width of the left operand.
    let amount = (b.to_bits() & 0xffff_ffff) as u32;
    match (op, a) {
        (BinOp::Shl, Value::I8(x)) => Value::I8(x.wrapping_shl(amount)),
        (BinOp::Shl, Value::I16(x)) => Value::I16(x.wrapping_shl(amount)),
        (BinOp::Shl, Value::U8(x)) => Value::U8(x.wrapping_shl(amount)),
        (BinOp::Shl, Value::U16(x)) => Value::U16(x.wrapping_shl(amount)),
        (_, Value::I8(x)) => Value::I8(x.wrapping_shr(amount)),
        (_, Value::I16(x)) => Value::I16(x.wrapping_shr(amount)),
        (_, Value::U8(x)) => Value::U8(x.wrapping_shr(amount)),
        (_, Value::U16(x)) => Value::U16(x.wrapping_shr(amount)),
        (BinOp::Shl, Value::I32(x)) => Value::I32(x.wrapping_shl(amount)),
        (BinOp::Shl, Value::I64(x)) => Value::I64(x.wrapping_shl(amount)),
        (BinOp::Shl, Value::U32(x)) => Value::U32(x.wrapping_shl(amount)),
        (BinOp::Shl, Value::U64(x)) => Value::U64(x.wrapping_shl(amount)),
        (_, Value::I32(x)) => Value::I32(x.wrapping_shr(amount)),
        (_, Value::I64(x)) => Value::I64(x.wrapping_shr(amount)),
        (_, Value::U32(x)) => Value::U32(x.wrapping_shr(amount)),
        (_, Value::U64(x)) => Value::U64(x.wrapping_shr(amount)),
        // Shifts of floats/bools are rejected by validation.
        (_, other) => other,
    }
}

/// Rust's comparison operators on two values of one type.
pub fn compare(op: BinOp, a: Value, b: Value) -> bool {
    truthy(binary(op, a, b))
}

/// erf, which std lacks: the Rust mirror of `math::erf_prog`.
trait Erf {
    fn erf(self) -> Self;
}
impl Erf for f64 {
    fn erf(self) -> f64 {
        mirror::erf_f64(self)
    }
}
impl Erf for f32 {
    fn erf(self) -> f32 {
        mirror::erf_f32(self)
    }
}

/// A math method on a float receiver `x` of variant `$ty` (f32 or f64),
/// with the second and third operands `b`, `c` converted to the receiver's type.
macro_rules! float_call {
    ($f:expr, $x:expr, $b:expr, $c:expr, $ty:ident) => {{
        let (x, b, c) = ($x, $b, $c);
        let y = match cast(b, ScalarType::$ty) {
            Value::$ty(y) => y,
            _ => 0.0,
        };
        let z = match cast(c, ScalarType::$ty) {
            Value::$ty(z) => z,
            _ => 0.0,
        };
        Value::$ty(match $f {
            MathFn::Sqrt => x.sqrt(),
            MathFn::Abs => x.abs(),
            MathFn::Exp => x.exp(),
            MathFn::Ln => x.ln(),
            MathFn::Sin => x.sin(),
            MathFn::Cos => x.cos(),
            MathFn::Tanh => x.tanh(),
            MathFn::Powi => x.powi(index_value(b) as i32),
            MathFn::Powf => x.powf(y),
            // Widening to f64 is exact: one definition serves both types.
            MathFn::Min => min_number(x.into(), y.into()) as _,
            MathFn::Max => max_number(x.into(), y.into()) as _,
            MathFn::Floor => x.floor(),
            MathFn::Ceil => x.ceil(),
            MathFn::Atan2 => x.atan2(y),
            MathFn::Asin => x.asin(),
            MathFn::Acos => x.acos(),
            MathFn::Atan => x.atan(),
            MathFn::Sinh => x.sinh(),
            MathFn::Cosh => x.cosh(),
            MathFn::Hypot => x.hypot(y),
            MathFn::Cbrt => x.cbrt(),
            // Not in std: the math program's mirror (what the CPU device
            // and the GPU compute, bit for bit).
            MathFn::Erf => Erf::erf(x),
            // Functions of complex values (handled by `complex_call`); on
            // reals the front end rejects them: identity.
            MathFn::Conj
            | MathFn::NormSqr
            | MathFn::Arg
            | MathFn::Re
            | MathFn::Im
            | MathFn::Complex => x,
            // One rounding (IEEE fusedMultiplyAdd).
            MathFn::MulAdd => x.mul_add(y, z),
        })
    }};
}

/// A math method; `args[0]` is the receiver.
pub fn call(f: MathFn, args: &[Value]) -> Value {
    let a = args.first().copied().unwrap_or(Value::I32(0));
    let b = args.get(1).copied().unwrap_or_else(|| zero(a.ty()));
    let c = args.get(2).copied().unwrap_or_else(|| zero(a.ty()));
    if let Some(v) = complex_call(f, a, b) {
        return v;
    }
    if a.ty().is_half_float() {
        // The f32 function, rounded once to the 16-bit type.
        let wide: Vec<Value> = args.iter().map(|v| widen_half(*v)).collect();
        return round_half(a.ty(), call(f, &wide));
    }
    match (f, a) {
        (MathFn::Abs, Value::I8(x)) => Value::I8(x.wrapping_abs()),
        (MathFn::Abs, Value::I16(x)) => Value::I16(x.wrapping_abs()),
        (MathFn::Abs, Value::I32(x)) => Value::I32(x.wrapping_abs()),
        (MathFn::Abs, Value::I64(x)) => Value::I64(x.wrapping_abs()),
        (MathFn::Abs, v) if v.ty().is_unsigned_integer() || v.ty() == ScalarType::Bool => v,
        (MathFn::Min | MathFn::Max, _)
            if a.ty() != ScalarType::F32 && a.ty() != ScalarType::F64 =>
        {
            let b = cast(b, a.ty());
            let a_less = compare(BinOp::Lt, a, b);
            match f {
                MathFn::Min => {
                    if a_less {
                        a
                    } else {
                        b
                    }
                }
                _ => {
                    if a_less {
                        b
                    } else {
                        a
                    }
                }
            }
        }
        (_, Value::F32(x)) => float_call!(f, x, b, c, F32),
        (_, Value::F64(x)) => float_call!(f, x, b, c, F64),
        // Float functions on integers are rejected by validation: identity.
        (_, v) => v,
    }
}

/// The complex functions and `c64::new(re, im)` as num-complex computes
/// them: `abs` is `norm` (a hypot), `exp` is `from_polar(e^re, im)` after
/// its special cases. None for calls that are not about complex values.
pub(super) fn complex_call(f: MathFn, a: Value, b: Value) -> Option<Value> {
    Some(match (f, a) {
        (MathFn::Complex, Value::F32(re)) => Value::C32(num_complex::Complex::new(
            re,
            match cast(b, ScalarType::F32) {
                Value::F32(im) => im,
                _ => 0.0,
            },
        )),
        (MathFn::Complex, Value::F64(re)) => Value::C64(num_complex::Complex::new(
            re,
            match cast(b, ScalarType::F64) {
                Value::F64(im) => im,
                _ => 0.0,
            },
        )),
        (_, Value::C32(z)) => match f {
            MathFn::Abs => Value::F32(z.norm()),
            MathFn::NormSqr => Value::F32(z.norm_sqr()),
            MathFn::Arg => Value::F32(z.arg()),
            MathFn::Re => Value::F32(z.re),
            MathFn::Im => Value::F32(z.im),
            MathFn::Conj => Value::C32(z.conj()),
            MathFn::Exp => Value::C32(z.exp()),
            _ => a,
        },
        (_, Value::C64(z)) => match f {
            MathFn::Abs => Value::F64(z.norm()),
            MathFn::NormSqr => Value::F64(z.norm_sqr()),
            MathFn::Arg => Value::F64(z.arg()),
            MathFn::Re => Value::F64(z.re),
            MathFn::Im => Value::F64(z.im),
            MathFn::Conj => Value::C64(z.conj()),
            MathFn::Exp => Value::C64(z.exp()),
            _ => a,
        },
        _ => return None,
    })
}

/// The new value of an element after `old (op) new` (a WCR store).
pub fn apply_wcr(op: WcrOp, old: Value, new: Value) -> Value {
    let new = if new.ty() != old.ty() {
        cast(new, old.ty())
    } else {
        new
    };
    if let (Value::Bool(x), Value::Bool(y)) = (old, new) {
        return Value::Bool(match op {
            WcrOp::Sum | WcrOp::Max => x || y,
            WcrOp::Product | WcrOp::Min => x && y,
        });
    }
    match op {
        WcrOp::Sum => binary(BinOp::Add, old, new),
        WcrOp::Product => binary(BinOp::Mul, old, new),
        WcrOp::Min => call(MathFn::Min, &[old, new]),
        WcrOp::Max => call(MathFn::Max, &[old, new]),
    }
}
