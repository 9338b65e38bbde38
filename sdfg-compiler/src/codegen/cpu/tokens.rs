//! Rust tokens for the language's types and constant values, and the
//! combination of two values by a reduction operator: what every generated
//! Rust body (tasklets, host maps, CPU twins) and the host glue spell alike.

use crate::codegen::runtime_paths as rt;
use crate::ir::{ScalarType, Value, WcrOp};
use proc_macro2::TokenStream;
use quote::quote;

/// The Rust type tokens of a scalar type.
pub(crate) fn rust_type(t: ScalarType) -> TokenStream {
    match t {
        ScalarType::I8 => quote!(i8),
        ScalarType::I16 => quote!(i16),
        ScalarType::U8 => quote!(u8),
        ScalarType::U16 => quote!(u16),
        ScalarType::I32 => quote!(i32),
        ScalarType::I64 => quote!(i64),
        ScalarType::U32 => quote!(u32),
        ScalarType::U64 => quote!(u64),
        ScalarType::F32 => quote!(f32),
        ScalarType::F64 => quote!(f64),
        ScalarType::F16 => {
            let half = rt::half();
            quote!(#half::f16)
        }
        ScalarType::BF16 => {
            let half = rt::half();
            quote!(#half::bf16)
        }
        ScalarType::Bool => quote!(bool),
        ScalarType::C32 => {
            let complex = rt::complex();
            quote!(#complex<f32>)
        }
        ScalarType::C64 => {
            let complex = rt::complex();
            quote!(#complex<f64>)
        }
    }
}

/// A literal that reproduces the value's bits exactly (NaN and infinities too).
pub(crate) fn literal(v: Value) -> TokenStream {
    use proc_macro2::Literal;
    match v {
        Value::I8(x) => {
            let l = Literal::i8_suffixed(x);
            quote!(#l)
        }
        Value::I16(x) => {
            let l = Literal::i16_suffixed(x);
            quote!(#l)
        }
        Value::U8(x) => {
            let l = Literal::u8_suffixed(x);
            quote!(#l)
        }
        Value::U16(x) => {
            let l = Literal::u16_suffixed(x);
            quote!(#l)
        }
        Value::I32(x) => {
            let l = Literal::i32_suffixed(x);
            quote!(#l)
        }
        Value::I64(x) => {
            let l = Literal::i64_suffixed(x);
            quote!(#l)
        }
        Value::U32(x) => {
            let l = Literal::u32_suffixed(x);
            quote!(#l)
        }
        Value::U64(x) => {
            let l = Literal::u64_suffixed(x);
            quote!(#l)
        }
        Value::F32(x) => {
            let bits = Literal::u32_suffixed(x.to_bits());
            quote!(f32::from_bits(#bits))
        }
        Value::F64(x) => {
            let bits = Literal::u64_suffixed(x.to_bits());
            quote!(f64::from_bits(#bits))
        }
        Value::F16(x) => {
            let (half, bits) = (rt::half(), Literal::u16_suffixed(x.to_bits()));
            quote!(#half::f16::from_bits(#bits))
        }
        Value::BF16(x) => {
            let (half, bits) = (rt::half(), Literal::u16_suffixed(x.to_bits()));
            quote!(#half::bf16::from_bits(#bits))
        }
        Value::Bool(b) => quote!(#b),
        Value::C32(z) => {
            let (re, im) = (literal(Value::F32(z.re)), literal(Value::F32(z.im)));
            let complex = rt::complex();
            quote!(#complex::<f32>::new(#re, #im))
        }
        Value::C64(z) => {
            let (re, im) = (literal(Value::F64(z.re)), literal(Value::F64(z.im)));
            let complex = rt::complex();
            quote!(#complex::<f64>::new(#re, #im))
        }
    }
}

/// `a (op) b` with the language's semantics (a WCR's combination).
pub(crate) fn combine_values(
    op: WcrOp,
    ty: ScalarType,
    a: TokenStream,
    b: TokenStream,
) -> TokenStream {
    let int = ty.is_integer();
    let mm = rt::min_max_number();
    match op {
        WcrOp::Sum if int => quote!((#a).wrapping_add(#b)),
        WcrOp::Sum => quote!((#a + #b)),
        WcrOp::Product if int => quote!((#a).wrapping_mul(#b)),
        WcrOp::Product => quote!((#a * #b)),
        WcrOp::Min => quote!(#mm::min_number(#a, #b)),
        WcrOp::Max => quote!(#mm::max_number(#a, #b)),
    }
}

pub(crate) fn zero_of(t: ScalarType) -> Value {
    Value::from_bits(t, 0)
}

pub(crate) fn one_of(t: ScalarType) -> Value {
    match t {
        ScalarType::F32 => Value::F32(1.0),
        ScalarType::F64 => Value::F64(1.0),
        ScalarType::F16 => Value::F16(half::f16::ONE),
        ScalarType::BF16 => Value::BF16(half::bf16::ONE),
        t => Value::from_bits(t, 1),
    }
}
