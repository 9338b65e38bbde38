//! Register classes, virtual registers and the PTX spelling of types and
//! constants.

use crate::ir::{ScalarType, Value};
use std::fmt;

/// The register class a value lives in (see the module documentation of
/// [`super`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Class {
    Pred,
    B16,
    B32,
    B64,
    F32,
    F64,
    /// A `c32` value: the pair `%zf<n>r` (re), `%zf<n>i` (im) of f32
    /// registers; instructions name the parts ([`Reg::re`], [`Reg::im`]).
    Z32,
    /// A `c64` value: the pair `%zd<n>r`, `%zd<n>i` of f64 registers.
    Z64,
    /// The parts of complex pairs (never allocated on their own).
    Z32Re,
    Z32Im,
    Z64Re,
    Z64Im,
}

/// The classes registers are allocated in (and declared by count).
pub(super) const CLASSES: [Class; 8] = [
    Class::Pred,
    Class::B16,
    Class::B32,
    Class::B64,
    Class::F32,
    Class::F64,
    Class::Z32,
    Class::Z64,
];

impl Class {
    pub(super) fn of(ty: ScalarType) -> Class {
        match ty {
            // Narrow integers live sign- or zero-extended in 32 bits.
            ScalarType::I8 | ScalarType::I16 | ScalarType::U8 | ScalarType::U16 => Class::B32,
            ScalarType::I32 | ScalarType::U32 => Class::B32,
            ScalarType::I64 | ScalarType::U64 => Class::B64,
            ScalarType::F32 => Class::F32,
            // 16-bit floats live in f32 registers, always holding a value
            // of their type (see `KernelEmitter::normalize`).
            ScalarType::F16 | ScalarType::BF16 => Class::F32,
            ScalarType::F64 => Class::F64,
            ScalarType::Bool => Class::Pred,
            ScalarType::C32 => Class::Z32,
            ScalarType::C64 => Class::Z64,
        }
    }
    /// A pair of registers (a complex value).
    pub(super) fn is_pair(self) -> bool {
        matches!(self, Class::Z32 | Class::Z64)
    }
    pub(super) fn prefix(self) -> &'static str {
        match self {
            Class::Pred => "%p",
            Class::B16 => "%rs",
            Class::B32 => "%r",
            Class::B64 => "%rd",
            Class::F32 => "%f",
            Class::F64 => "%fd",
            Class::Z32 => "%zf",
            Class::Z64 => "%zd",
            Class::Z32Re => "%zfr",
            Class::Z32Im => "%zfi",
            Class::Z64Re => "%zdr",
            Class::Z64Im => "%zdi",
        }
    }
    pub(super) fn decl(self) -> &'static str {
        match self {
            Class::Pred => ".pred",
            Class::B16 => ".b16",
            Class::B32 => ".b32",
            Class::B64 => ".b64",
            Class::F32 | Class::Z32 | Class::Z32Re | Class::Z32Im => ".f32",
            Class::F64 | Class::Z64 | Class::Z64Re | Class::Z64Im => ".f64",
        }
    }
    /// The `mov` suffix.
    pub(super) fn mov(self) -> &'static str {
        &self.decl()[1..]
    }
    pub(super) fn index(self) -> usize {
        CLASSES.iter().position(|c| *c == self).unwrap_or(0)
    }
}

/// A virtual register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Reg {
    pub(super) class: Class,
    pub(super) n: u32,
}

impl Reg {
    /// The real part of a complex pair.
    pub(super) fn re(self) -> Reg {
        let class = match self.class {
            Class::Z32 => Class::Z32Re,
            _ => Class::Z64Re,
        };
        Reg { class, n: self.n }
    }
    /// The imaginary part of a complex pair.
    pub(super) fn im(self) -> Reg {
        let class = match self.class {
            Class::Z32 => Class::Z32Im,
            _ => Class::Z64Im,
        };
        Reg { class, n: self.n }
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.class.prefix(), self.n)
    }
}

/// The PTX type suffix for arithmetic on `ty` (`s32`, `u64`, `f32`, ...).
/// Narrow integers compute in their 32-bit register (then
/// [`KernelEmitter::normalize`](super::KernelEmitter) wraps the result).
pub(super) fn arith(ty: ScalarType) -> &'static str {
    match ty {
        ScalarType::I8 | ScalarType::I16 => "s32",
        ScalarType::U8 | ScalarType::U16 => "u32",
        ScalarType::I32 => "s32",
        ScalarType::I64 => "s64",
        ScalarType::U32 => "u32",
        ScalarType::U64 => "u64",
        ScalarType::F32 => "f32",
        ScalarType::F64 => "f64",
        // f16 and bf16 compute in f32 (then round: `normalize`).
        ScalarType::F16 | ScalarType::BF16 => "f32",
        ScalarType::Bool => "pred",
        // Complex values compute part by part.
        ScalarType::C32 => "f32",
        ScalarType::C64 => "f64",
    }
}

/// The PTX type of a value in memory or a `.param` (bool: one byte).
/// Loads of narrow integers into their 32-bit register extend by the
/// type's signedness; stores keep the low bits. f16 and bf16 are 16 bits
/// in memory, moved through a `.b16` register and converted
/// ([`KernelEmitter::half_load`](super::KernelEmitter).
pub(super) fn mem_type(ty: ScalarType) -> &'static str {
    match ty {
        ScalarType::Bool | ScalarType::U8 => "u8",
        ScalarType::I8 => "s8",
        ScalarType::I16 => "s16",
        ScalarType::U16 => "u16",
        ScalarType::F16 | ScalarType::BF16 => "b16",
        t => arith(t),
    }
}

pub(super) fn bits_suffix(ty: ScalarType) -> &'static str {
    if ty.bits() == 64 {
        "b64"
    } else {
        "b32"
    }
}

/// A constant as a PTX immediate of its type.
pub(super) fn immediate(v: Value) -> String {
    match v {
        // Narrow integers: the 32-bit register's (extended) value.
        Value::I8(_) | Value::I16(_) | Value::U8(_) | Value::U16(_) => {
            let wide = crate::ir::semantics::cast(v, ScalarType::I64);
            format!("0x{:08X}", wide.to_bits() as u32)
        }
        Value::I32(_) | Value::U32(_) => format!("0x{:08X}", v.to_bits() as u32),
        Value::I64(_) | Value::U64(_) => format!("0x{:016X}", v.to_bits()),
        Value::F32(x) => format!("0f{:08X}", x.to_bits()),
        Value::F64(x) => format!("0d{:016X}", x.to_bits()),
        // In their f32 register.
        Value::F16(x) => immediate(Value::F32(x.to_f32())),
        Value::BF16(x) => immediate(Value::F32(x.to_f32())),
        Value::Bool(b) => (b as u32).to_string(),
        // Pairs are moved part by part (`KernelEmitter::constant`).
        Value::C32(z) => immediate(Value::F32(z.re)),
        Value::C64(z) => immediate(Value::F64(z.re)),
    }
}
