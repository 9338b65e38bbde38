//! Scalar types and typed constant values of the SDFG language.

use half::{bf16, f16};
use num_complex::Complex;
use std::fmt;

/// The element types of containers, symbols, locals and tasklet expressions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarType {
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F32,
    F64,
    /// `half::f16`: IEEE binary16. Arithmetic computes in f32 and rounds
    /// each result to the nearest f16 (ties to even), like `half`'s operators.
    F16,
    /// `half::bf16`: bfloat16 (f32's exponent, 8 significant bits), computed
    /// like f16.
    BF16,
    Bool,
    /// `num_complex::Complex<f32>`: two f32, re then im.
    C32,
    /// `num_complex::Complex<f64>`: two f64, re then im.
    C64,
}

impl ScalarType {
    pub const ALL: [ScalarType; 15] = [
        ScalarType::I8,
        ScalarType::I16,
        ScalarType::I32,
        ScalarType::I64,
        ScalarType::U8,
        ScalarType::U16,
        ScalarType::U32,
        ScalarType::U64,
        ScalarType::F32,
        ScalarType::F64,
        ScalarType::F16,
        ScalarType::BF16,
        ScalarType::Bool,
        ScalarType::C32,
        ScalarType::C64,
    ];

    /// The Rust spelling (`i32`, `f64`, `bool`, ...), also the DSL spelling.
    pub fn rust_name(self) -> &'static str {
        match self {
            ScalarType::I8 => "i8",
            ScalarType::I16 => "i16",
            ScalarType::U8 => "u8",
            ScalarType::U16 => "u16",
            ScalarType::I32 => "i32",
            ScalarType::I64 => "i64",
            ScalarType::U32 => "u32",
            ScalarType::U64 => "u64",
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
            ScalarType::F16 => "f16",
            ScalarType::BF16 => "bf16",
            ScalarType::Bool => "bool",
            ScalarType::C32 => "c32",
            ScalarType::C64 => "c64",
        }
    }

    pub fn from_rust_name(name: &str) -> Option<ScalarType> {
        ScalarType::ALL.into_iter().find(|t| t.rust_name() == name)
    }

    pub fn is_integer(self) -> bool {
        self.is_signed_integer() || self.is_unsigned_integer()
    }

    pub fn is_signed_integer(self) -> bool {
        matches!(
            self,
            ScalarType::I8 | ScalarType::I16 | ScalarType::I32 | ScalarType::I64
        )
    }

    pub fn is_unsigned_integer(self) -> bool {
        matches!(
            self,
            ScalarType::U8 | ScalarType::U16 | ScalarType::U32 | ScalarType::U64
        )
    }

    /// `i8`, `u8`, `i16`, `u16`: integers narrower than a 32-bit register
    /// (PTX keeps them sign- or zero-extended in one).
    pub fn is_narrow_integer(self) -> bool {
        self.is_integer() && self.bits() < 32
    }

    /// The integer type of the same width and the other signedness
    /// (itself for everything else).
    pub fn flip_sign(self) -> ScalarType {
        use ScalarType::*;
        match self {
            I8 => U8,
            U8 => I8,
            I16 => U16,
            U16 => I16,
            I32 => U32,
            U32 => I32,
            I64 => U64,
            U64 => I64,
            t => t,
        }
    }

    /// The smallest and largest value of an integer type (None otherwise).
    pub fn int_range(self) -> Option<(i128, i128)> {
        if !self.is_integer() {
            return None;
        }
        let bits = self.bits();
        Some(if self.is_signed_integer() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        })
    }

    /// An integer type whose range contains every value of the integer
    /// type `from` (`from as self` keeps the value; false for non-integers).
    ///
    /// ```
    /// use sdfg_compiler::ir::ScalarType::*;
    /// assert!(I64.holds_every_value_of(U32) && I16.holds_every_value_of(U8));
    /// assert!(!U8.holds_every_value_of(I64) && !U64.holds_every_value_of(I8));
    /// assert!(!I32.holds_every_value_of(U32) && !F64.holds_every_value_of(F64));
    /// ```
    pub fn holds_every_value_of(self, from: ScalarType) -> bool {
        match (from.int_range(), self.int_range()) {
            (Some((lo, hi)), Some((to_lo, to_hi))) => to_lo <= lo && hi <= to_hi,
            _ => false,
        }
    }

    /// `f16`, `bf16`, `f32` and `f64`.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ScalarType::F32 | ScalarType::F64 | ScalarType::F16 | ScalarType::BF16
        )
    }

    /// `f16` and `bf16`: 16-bit floats whose arithmetic computes in f32 and
    /// rounds each result back (PTX keeps them in f32 registers).
    pub fn is_half_float(self) -> bool {
        matches!(self, ScalarType::F16 | ScalarType::BF16)
    }

    /// Integers and floats: the ordered numbers (comparisons, `min`/`max`,
    /// every WCR operator).
    pub fn is_numeric(self) -> bool {
        self.is_integer() || self.is_float()
    }

    /// `c32` and `c64`.
    pub fn is_complex(self) -> bool {
        matches!(self, ScalarType::C32 | ScalarType::C64)
    }

    /// Numbers and complex numbers: the operands of `+ - * /`, unary `-`
    /// and `+=` reductions.
    pub fn is_arithmetic(self) -> bool {
        self.is_numeric() || self.is_complex()
    }

    /// The type of the parts of a complex type (itself for others).
    pub fn real_part(self) -> ScalarType {
        match self {
            ScalarType::C32 => ScalarType::F32,
            ScalarType::C64 => ScalarType::F64,
            t => t,
        }
    }

    /// The complex type with parts of this float type.
    pub fn complex_of(self) -> Option<ScalarType> {
        match self {
            ScalarType::F32 => Some(ScalarType::C32),
            ScalarType::F64 => Some(ScalarType::C64),
            _ => None,
        }
    }

    /// Size of one element in bytes (bool is one byte, as in Rust).
    pub fn size_bytes(self) -> usize {
        match self {
            ScalarType::Bool | ScalarType::I8 | ScalarType::U8 => 1,
            ScalarType::I16 | ScalarType::U16 | ScalarType::F16 | ScalarType::BF16 => 2,
            ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => 4,
            ScalarType::I64 | ScalarType::U64 | ScalarType::F64 | ScalarType::C32 => 8,
            ScalarType::C64 => 16,
        }
    }

    /// Width in bits of the value (bool: 1).
    pub fn bits(self) -> u32 {
        match self {
            ScalarType::Bool => 1,
            t => 8 * t.size_bytes() as u32,
        }
    }

    /// The unsigned integer type of the same width (itself when not a
    /// signed integer).
    pub fn to_unsigned(self) -> ScalarType {
        match self {
            ScalarType::I32 => ScalarType::U32,
            ScalarType::I64 => ScalarType::U64,
            t => t,
        }
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.rust_name())
    }
}

/// A typed constant. Floats compare by bit pattern so values can be keys.
#[derive(Clone, Copy, Debug)]
pub enum Value {
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    F32(f32),
    F64(f64),
    F16(f16),
    BF16(bf16),
    Bool(bool),
    C32(Complex<f32>),
    C64(Complex<f64>),
}

impl Value {
    pub fn ty(self) -> ScalarType {
        match self {
            Value::I8(_) => ScalarType::I8,
            Value::I16(_) => ScalarType::I16,
            Value::U8(_) => ScalarType::U8,
            Value::U16(_) => ScalarType::U16,
            Value::I32(_) => ScalarType::I32,
            Value::I64(_) => ScalarType::I64,
            Value::U32(_) => ScalarType::U32,
            Value::U64(_) => ScalarType::U64,
            Value::F32(_) => ScalarType::F32,
            Value::F64(_) => ScalarType::F64,
            Value::F16(_) => ScalarType::F16,
            Value::BF16(_) => ScalarType::BF16,
            Value::Bool(_) => ScalarType::Bool,
            Value::C32(_) => ScalarType::C32,
            Value::C64(_) => ScalarType::C64,
        }
    }

    /// The value's bits as in memory (little-endian), zero-extended to 128
    /// (floats: their IEEE bits; bool: 0 or 1; complex: re in the low half,
    /// im above it).
    pub fn to_bits(self) -> u128 {
        match self {
            Value::I8(v) => v as u8 as u128,
            Value::I16(v) => v as u16 as u128,
            Value::U8(v) => v as u128,
            Value::U16(v) => v as u128,
            Value::I32(v) => v as u32 as u128,
            Value::I64(v) => v as u64 as u128,
            Value::U32(v) => v as u128,
            Value::U64(v) => v as u128,
            Value::F32(v) => v.to_bits() as u128,
            Value::F64(v) => v.to_bits() as u128,
            Value::F16(v) => v.to_bits() as u128,
            Value::BF16(v) => v.to_bits() as u128,
            Value::Bool(v) => v as u128,
            Value::C32(z) => z.re.to_bits() as u128 | (z.im.to_bits() as u128) << 32,
            Value::C64(z) => z.re.to_bits() as u128 | (z.im.to_bits() as u128) << 64,
        }
    }

    /// Inverse of [`Value::to_bits`] (higher bits beyond the type's width are ignored).
    pub fn from_bits(ty: ScalarType, bits: u128) -> Value {
        let bits64 = bits as u64;
        match ty {
            ScalarType::C32 => Value::C32(Complex::new(
                f32::from_bits(bits as u32),
                f32::from_bits((bits >> 32) as u32),
            )),
            ScalarType::C64 => Value::C64(Complex::new(
                f64::from_bits(bits as u64),
                f64::from_bits((bits >> 64) as u64),
            )),
            _ => Value::from_bits64(ty, bits64),
        }
    }

    fn from_bits64(ty: ScalarType, bits: u64) -> Value {
        match ty {
            ScalarType::I8 => Value::I8(bits as u8 as i8),
            ScalarType::I16 => Value::I16(bits as u16 as i16),
            ScalarType::U8 => Value::U8(bits as u8),
            ScalarType::U16 => Value::U16(bits as u16),
            ScalarType::I32 => Value::I32(bits as u32 as i32),
            ScalarType::I64 => Value::I64(bits as i64),
            ScalarType::U32 => Value::U32(bits as u32),
            ScalarType::U64 => Value::U64(bits),
            ScalarType::F32 => Value::F32(f32::from_bits(bits as u32)),
            ScalarType::F64 => Value::F64(f64::from_bits(bits)),
            ScalarType::F16 => Value::F16(f16::from_bits(bits as u16)),
            ScalarType::BF16 => Value::BF16(bf16::from_bits(bits as u16)),
            ScalarType::Bool => Value::Bool(bits & 1 != 0),
            ScalarType::C32 | ScalarType::C64 => Value::from_bits(ty, bits as u128),
        }
    }

    /// The value as an i128 when it is an integer (used for symbolic/bounds arithmetic).
    pub fn as_i128(self) -> Option<i128> {
        match self {
            Value::I8(v) => Some(v as i128),
            Value::I16(v) => Some(v as i128),
            Value::U8(v) => Some(v as i128),
            Value::U16(v) => Some(v as i128),
            Value::I32(v) => Some(v as i128),
            Value::I64(v) => Some(v as i128),
            Value::U32(v) => Some(v as i128),
            Value::U64(v) => Some(v as i128),
            _ => None,
        }
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        self.ty() == other.ty() && self.to_bits() == other.to_bits()
    }
}
impl Eq for Value {}

impl std::hash::Hash for Value {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.ty().hash(state);
        self.to_bits().hash(state);
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::I8(v) => write!(f, "{v}"),
            Value::I16(v) => write!(f, "{v}"),
            Value::U8(v) => write!(f, "{v}"),
            Value::U16(v) => write!(f, "{v}"),
            Value::I32(v) => write!(f, "{v}"),
            Value::I64(v) => write!(f, "{v}"),
            Value::U32(v) => write!(f, "{v}"),
            Value::U64(v) => write!(f, "{v}"),
            Value::F32(v) => write!(f, "{v:?}"),
            Value::F64(v) => write!(f, "{v:?}"),
            // Every f16/bf16 is an f32 exactly: the f32 literal rounds back to it.
            Value::F16(v) => write!(f, "{:?}", v.to_f32()),
            Value::BF16(v) => write!(f, "{:?}", v.to_f32()),
            Value::Bool(v) => write!(f, "{v}"),
            Value::C32(z) => write!(f, "c32::new({:?}, {:?})", z.re, z.im),
            Value::C64(z) => write!(f, "c64::new({:?}, {:?})", z.re, z.im),
        }
    }
}
