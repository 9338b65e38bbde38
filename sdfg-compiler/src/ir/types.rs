//! Scalar types and typed constant values of the SDFG language.

use std::fmt;

/// The element types of containers, symbols, locals and tasklet expressions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarType {
    I32,
    I64,
    U32,
    U64,
    F32,
    F64,
    Bool,
}

impl ScalarType {
    pub const ALL: [ScalarType; 7] = [
        ScalarType::I32,
        ScalarType::I64,
        ScalarType::U32,
        ScalarType::U64,
        ScalarType::F32,
        ScalarType::F64,
        ScalarType::Bool,
    ];

    /// The Rust spelling (`i32`, `f64`, `bool`, ...), also the DSL spelling.
    pub fn rust_name(self) -> &'static str {
        match self {
            ScalarType::I32 => "i32",
            ScalarType::I64 => "i64",
            ScalarType::U32 => "u32",
            ScalarType::U64 => "u64",
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
            ScalarType::Bool => "bool",
        }
    }

    pub fn from_rust_name(name: &str) -> Option<ScalarType> {
        ScalarType::ALL.into_iter().find(|t| t.rust_name() == name)
    }

    pub fn is_integer(self) -> bool {
        matches!(
            self,
            ScalarType::I32 | ScalarType::I64 | ScalarType::U32 | ScalarType::U64
        )
    }

    pub fn is_signed_integer(self) -> bool {
        matches!(self, ScalarType::I32 | ScalarType::I64)
    }

    pub fn is_float(self) -> bool {
        matches!(self, ScalarType::F32 | ScalarType::F64)
    }

    /// Integers and floats: the types arithmetic and WCR reductions accept.
    pub fn is_numeric(self) -> bool {
        self.is_integer() || self.is_float()
    }

    /// Size of one element in bytes (bool is one byte, as in Rust).
    pub fn size_bytes(self) -> usize {
        match self {
            ScalarType::Bool => 1,
            ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => 4,
            ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => 8,
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
    I32(i32),
    I64(i64),
    U32(u32),
    U64(u64),
    F32(f32),
    F64(f64),
    Bool(bool),
}

impl Value {
    pub fn ty(self) -> ScalarType {
        match self {
            Value::I32(_) => ScalarType::I32,
            Value::I64(_) => ScalarType::I64,
            Value::U32(_) => ScalarType::U32,
            Value::U64(_) => ScalarType::U64,
            Value::F32(_) => ScalarType::F32,
            Value::F64(_) => ScalarType::F64,
            Value::Bool(_) => ScalarType::Bool,
        }
    }

    /// The value's bits, zero-extended to 64 (floats: their IEEE bits; bool: 0 or 1).
    pub fn to_bits(self) -> u64 {
        match self {
            Value::I32(v) => v as u32 as u64,
            Value::I64(v) => v as u64,
            Value::U32(v) => v as u64,
            Value::U64(v) => v,
            Value::F32(v) => v.to_bits() as u64,
            Value::F64(v) => v.to_bits(),
            Value::Bool(v) => v as u64,
        }
    }

    /// Inverse of [`Value::to_bits`] (higher bits beyond the type's width are ignored).
    pub fn from_bits(ty: ScalarType, bits: u64) -> Value {
        match ty {
            ScalarType::I32 => Value::I32(bits as u32 as i32),
            ScalarType::I64 => Value::I64(bits as i64),
            ScalarType::U32 => Value::U32(bits as u32),
            ScalarType::U64 => Value::U64(bits),
            ScalarType::F32 => Value::F32(f32::from_bits(bits as u32)),
            ScalarType::F64 => Value::F64(f64::from_bits(bits)),
            ScalarType::Bool => Value::Bool(bits & 1 != 0),
        }
    }

    /// The value as an i128 when it is an integer (used for symbolic/bounds arithmetic).
    pub fn as_i128(self) -> Option<i128> {
        match self {
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
            Value::I32(v) => write!(f, "{v}"),
            Value::I64(v) => write!(f, "{v}"),
            Value::U32(v) => write!(f, "{v}"),
            Value::U64(v) => write!(f, "{v}"),
            Value::F32(v) => write!(f, "{v:?}"),
            Value::F64(v) => write!(f, "{v:?}"),
            Value::Bool(v) => write!(f, "{v}"),
        }
    }
}
