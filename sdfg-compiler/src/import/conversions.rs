//! C++'s conversions over the element types, and how the tasklet language
//! spells types, literals and casts: the rules `typing` applies to every
//! expression it writes.

use crate::ir::ScalarType;

/// The natural type of an expression; unsuffixed literals are flexible.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    Known(ScalarType),
    FlexInt,
    FlexFloat,
}

impl Ty {
    pub(super) fn resolve(self) -> ScalarType {
        match self {
            Ty::Known(t) => t,
            Ty::FlexInt => ScalarType::I32,
            Ty::FlexFloat => ScalarType::F64,
        }
    }
}

/// C++'s usual arithmetic conversions over the element types; with a
/// complex operand, NumPy's (DaCe's complex types follow it): complex, in
/// double precision when the other operand is a double or an integer of 32
/// bits or more.
pub(crate) fn promote(a: ScalarType, b: ScalarType) -> ScalarType {
    use ScalarType::*;
    let a = if a == Bool { I32 } else { a };
    let b = if b == Bool { I32 } else { b };
    if a == b {
        return a;
    }
    if a.is_complex() || b.is_complex() {
        let double = |t: ScalarType| match t {
            C64 | F64 => true,
            C32 | F32 | F16 | BF16 => false,
            t => t.bits() >= 32,
        };
        return if double(a) || double(b) { C64 } else { C32 };
    }
    if a == F64 || b == F64 {
        return F64;
    }
    if a == F32 || b == F32 {
        return F32;
    }
    let rank = |t: ScalarType| if matches!(t, I64 | U64) { 2 } else { 1 };
    if a.is_signed_integer() == b.is_signed_integer() {
        return if rank(a) >= rank(b) { a } else { b };
    }
    let (s, u) = if a.is_signed_integer() {
        (a, b)
    } else {
        (b, a)
    };
    if rank(u) >= rank(s) {
        u
    } else {
        s
    }
}

pub(super) fn unify(a: Ty, b: Ty, adapt_floats: bool) -> Ty {
    use Ty::*;
    if adapt_floats {
        match (a, b) {
            (Known(x), FlexFloat) | (FlexFloat, Known(x)) if x.is_float() || x.is_complex() => {
                return Known(x)
            }
            _ => {}
        }
    }
    let not_bool = |t: ScalarType| {
        if t == ScalarType::Bool {
            ScalarType::I32
        } else {
            t
        }
    };
    match (a, b) {
        (Known(x), Known(y)) => Known(promote(x, y)),
        (Known(x), FlexInt) | (FlexInt, Known(x)) => Known(not_bool(x)),
        // An unsuffixed float literal is a `double`.
        (Known(x), FlexFloat) | (FlexFloat, Known(x)) => Known(promote(x, ScalarType::F64)),
        (FlexInt, FlexInt) => FlexInt,
        _ => FlexFloat,
    }
}

/// The tasklet-language spelling of `t`.
pub(super) fn rust(t: ScalarType) -> &'static str {
    t.rust_name()
}

pub(super) fn paren(s: String) -> String {
    format!("({s})")
}

/// A literal of type `t` with the value `value` (`negative` applies the sign).
pub(crate) fn int_literal(value: u128, negative: bool, t: ScalarType) -> Option<String> {
    let fits = match t.int_range() {
        Some((min, max)) => {
            let v = i128::try_from(value).unwrap_or(i128::MAX);
            if negative {
                -v >= min
            } else {
                v <= max
            }
        }
        None => t.is_float(),
    };
    if !fits {
        return None;
    }
    let sign = if negative { "-" } else { "" };
    Some(match t {
        ScalarType::I32 => format!("{sign}{value}"),
        ScalarType::F32 | ScalarType::F64 => format!("{sign}{value}.0{}", float_suffix(t)),
        other => format!("{sign}{value}{other}"),
    })
}

fn float_suffix(t: ScalarType) -> &'static str {
    if t == ScalarType::F32 {
        "f32"
    } else {
        ""
    }
}

/// A float literal of type `t` (finite `value`).
pub(crate) fn float_literal(value: f64, t: ScalarType) -> String {
    let text = if t == ScalarType::F32 {
        let x = value as f32;
        // The front end parses the digits as f64 and rounds to f32; the
        // shortest f32 digits survive that unless they sit on a tie.
        let short = format!("{x:?}");
        if short.parse::<f64>().map(|v| v as f32) == Ok(x) {
            short
        } else {
            format!("{:?}", x as f64)
        }
    } else {
        format!("{value:?}")
    };
    format!("{text}{}", float_suffix(t))
}

/// `text` of type `from` converted to `to` (C++'s implicit conversion).
pub(super) fn convert(text: String, from: ScalarType, to: ScalarType) -> String {
    if from == to {
        return text;
    }
    cast_text(text, from, to)
}

/// `text as to`, in the forms the tasklet language accepts (no cast to
/// `bool`, none from `bool` to a float).
pub(super) fn cast_text(text: String, from: ScalarType, to: ScalarType) -> String {
    if to == ScalarType::Bool {
        if from == ScalarType::Bool {
            return text;
        }
        let zero = if from.is_float() {
            float_literal(0.0, from)
        } else {
            int_literal(0, false, from).unwrap_or_default()
        };
        return paren(format!("{text} != {zero}"));
    }
    if to.is_complex() && !from.is_complex() {
        // `dace.complex128(1.0)`, or a real operand of a complex
        // operation: the front end builds complex values, it does not
        // cast to them.
        let part = to.real_part();
        let re = if from == part {
            text
        } else {
            cast_text(text, from, part)
        };
        return format!("{}::new({re}, {})", rust(to), float_literal(0.0, part));
    }
    if to.is_complex() && from.is_complex() {
        // `c32` <-> `c64`: part by part (the value is pure; reading it
        // twice is the same value).
        if from == to {
            return text;
        }
        let part = rust(to.real_part());
        return format!(
            "{}::new(({text}).re as {part}, ({text}).im as {part})",
            rust(to)
        );
    }
    if from == ScalarType::Bool && to.is_float() {
        return paren(format!("{text} as i32 as {}", rust(to)));
    }
    paren(format!("{text} as {}", rust(to)))
}
