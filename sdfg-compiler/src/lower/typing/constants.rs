//! Rust's numeric constants as typed literals: `f64::consts::PI` (also
//! `std::f64::consts::PI`, `core::f32::consts::E`), `f32::INFINITY`,
//! `f64::NAN`, `f64::MAX`, `f32::EPSILON`, ..., and `i32::MAX`, `u8::MIN`,
//! `u16::BITS` for every integer type, with Rust's values and types.

use super::*;
use syn::spanned::Spanned;

/// The `consts` module of `f32`/`f64`, by name: (name, f64 value, f32 value).
const FLOAT_CONSTS: [(&str, f64, f32); 19] = {
    use std::f32::consts as s;
    use std::f64::consts as d;
    [
        ("PI", d::PI, s::PI),
        ("TAU", d::TAU, s::TAU),
        ("E", d::E, s::E),
        ("FRAC_PI_2", d::FRAC_PI_2, s::FRAC_PI_2),
        ("FRAC_PI_3", d::FRAC_PI_3, s::FRAC_PI_3),
        ("FRAC_PI_4", d::FRAC_PI_4, s::FRAC_PI_4),
        ("FRAC_PI_6", d::FRAC_PI_6, s::FRAC_PI_6),
        ("FRAC_PI_8", d::FRAC_PI_8, s::FRAC_PI_8),
        ("FRAC_1_PI", d::FRAC_1_PI, s::FRAC_1_PI),
        ("FRAC_2_PI", d::FRAC_2_PI, s::FRAC_2_PI),
        ("FRAC_2_SQRT_PI", d::FRAC_2_SQRT_PI, s::FRAC_2_SQRT_PI),
        ("SQRT_2", d::SQRT_2, s::SQRT_2),
        ("FRAC_1_SQRT_2", d::FRAC_1_SQRT_2, s::FRAC_1_SQRT_2),
        ("LN_2", d::LN_2, s::LN_2),
        ("LN_10", d::LN_10, s::LN_10),
        ("LOG2_E", d::LOG2_E, s::LOG2_E),
        ("LOG10_E", d::LOG10_E, s::LOG10_E),
        ("LOG2_10", d::LOG2_10, s::LOG2_10),
        ("LOG10_2", d::LOG10_2, s::LOG10_2),
    ]
};

/// The associated constants of `f32`/`f64`.
const FLOAT_ASSOC: [&str; 7] = [
    "INFINITY",
    "NEG_INFINITY",
    "NAN",
    "MAX",
    "MIN",
    "MIN_POSITIVE",
    "EPSILON",
];

/// The associated constants of the integer types.
const INT_ASSOC: [&str; 3] = ["MIN", "MAX", "BITS"];

/// An associated constant of a float type.
fn float_assoc(ty: ScalarType, name: &str) -> Option<Value> {
    macro_rules! of {
        ($t:ident, $variant:ident) => {
            Some(Value::$variant(match name {
                "INFINITY" => $t::INFINITY,
                "NEG_INFINITY" => $t::NEG_INFINITY,
                "NAN" => $t::NAN,
                "MAX" => $t::MAX,
                "MIN" => $t::MIN,
                "MIN_POSITIVE" => $t::MIN_POSITIVE,
                "EPSILON" => $t::EPSILON,
                _ => return None,
            }))
        };
    }
    match ty {
        ScalarType::F32 => of!(f32, F32),
        ScalarType::F64 => of!(f64, F64),
        ScalarType::F16 => {
            use half::f16;
            of!(f16, F16)
        }
        ScalarType::BF16 => {
            use half::bf16;
            of!(bf16, BF16)
        }
        _ => None,
    }
}

/// A constant of `f32::consts`/`f64::consts`.
fn float_const(ty: ScalarType, name: &str) -> Option<Value> {
    let (_, d, s) = FLOAT_CONSTS.iter().find(|(n, _, _)| *n == name)?;
    match ty {
        ScalarType::F32 => Some(Value::F32(*s)),
        ScalarType::F64 => Some(Value::F64(*d)),
        // The f64 value rounded once.
        t if t.is_half_float() => Some(crate::ir::semantics::cast(Value::F64(*d), t)),
        _ => None,
    }
}

/// An associated constant of an integer type (`BITS` is a `u32`, as in Rust).
fn int_assoc(ty: ScalarType, name: &str) -> Option<Value> {
    let (min, max) = ty.int_range()?;
    match name {
        "MIN" => Some(Value::from_bits(ty, min as u128)),
        "MAX" => Some(Value::from_bits(ty, max as u128)),
        "BITS" => Some(Value::U32(ty.bits())),
        _ => None,
    }
}

impl Lowerer<'_> {
    /// A path of more than one segment: one of Rust's numeric constants.
    pub(super) fn constant_path(&mut self, p: &syn::ExprPath) -> Option<Expr> {
        let span = p.span();
        let text = source_text(p);
        let mut segments: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let generic = p
            .path
            .segments
            .iter()
            .any(|s| !matches!(s.arguments, syn::PathArguments::None));
        if p.qself.is_some() || generic {
            return self.not_a_constant(span, &text, None);
        }
        if matches!(segments.first().map(String::as_str), Some("std" | "core")) {
            segments.remove(0);
        }
        let Some(ty) = segments
            .first()
            .and_then(|s| ScalarType::from_rust_name(s))
            .filter(|t| *t != ScalarType::Bool)
        else {
            return self.not_a_constant(span, &text, None);
        };
        let names: Vec<&str> = segments[1..].iter().map(String::as_str).collect();
        let value = match names.as_slice() {
            ["consts", name] if ty.is_float() => float_const(ty, name),
            [name] if ty.is_float() => float_assoc(ty, name),
            [name] if ty.is_integer() => int_assoc(ty, name),
            _ => None,
        };
        match value {
            Some(v) => Some(Expr::lit(v, span)),
            None => self.not_a_constant(span, &text, Some((ty, &names))),
        }
    }

    /// The error for a path that names no constant, with the nearest one.
    fn not_a_constant(
        &mut self,
        span: Span,
        text: &str,
        of: Option<(ScalarType, &[&str])>,
    ) -> Option<Expr> {
        let d = match of {
            None => Diagnostic::error(span, format!("paths like `{text}` are not supported"))
                .help("use a local, a map parameter, a symbol or a container by its plain name, or a constant like `f64::consts::PI`, `f32::INFINITY` or `i32::MAX`"),
            Some((ty, names)) => {
                let last = names.last().copied().unwrap_or("");
                let mut d = Diagnostic::error(
                    span,
                    format!("`{ty}` has no constant `{}`", names.join("::")),
                );
                let float_consts = || FLOAT_CONSTS.iter().map(|(n, _, _)| *n);
                d = if ty.is_float() && float_consts().any(|n| n == last) {
                    d.help(format!("it is in `{ty}::consts`: write `{ty}::consts::{last}`"))
                } else if ty.is_float() && FLOAT_ASSOC.contains(&last) {
                    d.help(format!("write `{ty}::{last}`"))
                } else {
                    let candidates: Vec<String> = if ty.is_float() {
                        FLOAT_ASSOC
                            .iter()
                            .map(|n| n.to_string())
                            .chain(float_consts().map(|n| format!("consts::{n}")))
                            .collect()
                    } else {
                        INT_ASSOC.iter().map(|n| n.to_string()).collect()
                    };
                    let closest = closest_name(
                        last,
                        candidates.iter().map(|c| c.rsplit("::").next().unwrap_or(c)),
                    );
                    match closest.and_then(|c| candidates.iter().find(|k| k.ends_with(c))) {
                        Some(c) => d.help(format!("did you mean `{ty}::{c}`?")),
                        None => {
                            let listed: Vec<String> =
                                candidates.iter().map(|c| format!("{ty}::{c}")).collect();
                            let listed: Vec<&str> = listed.iter().map(String::as_str).collect();
                            d.help(format!(
                                "the constants of `{ty}` are {}",
                                crate::diag::suggest::backticked(&listed)
                            ))
                        }
                    }
                };
                d
            }
        };
        self.error(d);
        None
    }
}
