//! Types for the code DaCe stores, and its text in the tasklet language.
//!
//! DaCe compiles tasklets (Python ones through its Python-to-C++ unparser)
//! as C++, with C++'s implicit conversions; the tasklet language has none.
//! So the importer types every expression the way C++ would (the usual
//! arithmetic conversions, `double` for an unsuffixed float literal) and
//! writes each conversion out as an `as` cast. Unsuffixed integer literals
//! take the type of the other operand (their value does not change).
//!
//! The text written is what the front end then lowers and types again, so
//! it is explicit: literals carry a suffix unless the front end's default
//! (`i32`, `f64`) is meant, and every compound operand is parenthesized.

use super::code::{CodeExpr, Unary};
use super::conversions::{cast_text, convert, paren, rust, unify};
pub(crate) use super::conversions::{float_literal, int_literal, promote, Ty};
use crate::ir::{BinOp, MathFn, ScalarType};

/// What a name in an expression refers to.
#[derive(Clone, Debug)]
pub(crate) enum Meaning {
    /// A value (symbol, map parameter, local, scalar container, one element
    /// bound to a connector), written `text` in the tasklet language.
    Value { text: String, ty: ScalarType },
    /// An array the code indexes (a container, or a connector bound to part
    /// of one): `name[i, j]` is `container[offsets[0] + i, offsets[1] + j]`.
    Array {
        container: String,
        elem: ScalarType,
        offsets: Vec<CodeExpr>,
        /// The container's dimensions (to split a flat C++ index).
        shape: Vec<CodeExpr>,
        /// A scalar container written as a one-element array by our exporter:
        /// `name[0]` is `container`.
        scalar: bool,
    },
}

/// Writes expressions of the file as tasklet-language text.
pub(crate) struct Emitter<'a> {
    pub lookup: &'a dyn Fn(&str) -> Option<Meaning>,
    /// An unsuffixed float literal takes the float type of the other
    /// operand (symbolic expressions: ranges, interstate edges, where our
    /// exporter writes `f32` literals without a suffix) instead of being a
    /// C++ `double` (tasklet code).
    pub adapt_floats: bool,
    /// Problems, phrased to follow the element's name ("uses `x`, which ...").
    pub errors: Vec<String>,
}

impl Emitter<'_> {
    fn fail(&mut self, msg: String) {
        if !self.errors.contains(&msg) {
            self.errors.push(msg);
        }
    }

    /// The natural type of `e`.
    pub fn infer(&mut self, e: &CodeExpr) -> Ty {
        use ScalarType::*;
        match e {
            CodeExpr::Int { suffix, .. } => suffix.map_or(Ty::FlexInt, Ty::Known),
            CodeExpr::Float { suffix, .. } => suffix.map_or(Ty::FlexFloat, Ty::Known),
            CodeExpr::Bool(_) => Ty::Known(Bool),
            CodeExpr::Special { ty, .. } => ty.map_or(Ty::FlexFloat, Ty::Known),
            CodeExpr::Name(n) => match (self.lookup)(n) {
                Some(Meaning::Value { ty, .. }) => Ty::Known(ty),
                Some(Meaning::Array {
                    elem, scalar: true, ..
                }) => Ty::Known(elem),
                Some(Meaning::Array { .. }) => {
                    self.fail(format!("uses the array `{n}` as a value"));
                    Ty::FlexInt
                }
                None => {
                    self.fail(format!(
                        "uses `{n}`, which is not a connector, local, symbol, map parameter or container"
                    ));
                    Ty::FlexInt
                }
            },
            CodeExpr::Index(n, idx) => match (self.lookup)(n) {
                Some(Meaning::Array { elem, .. }) => Ty::Known(elem),
                // A one-element connector our exporter reads through a
                // pointer (a dynamic access of a scalar): `p[0]` is `p`.
                Some(Meaning::Value { ty, .. }) if idx.iter().all(is_literal_zero) => Ty::Known(ty),
                Some(Meaning::Value { .. }) => {
                    self.fail(format!("indexes `{n}`, which is one element"));
                    Ty::FlexInt
                }
                None => {
                    self.fail(format!(
                        "indexes `{n}`, which is not a connector or container"
                    ));
                    Ty::FlexInt
                }
            },
            CodeExpr::Unary(Unary::Not, _) => Ty::Known(Bool),
            CodeExpr::Unary(_, a) => match self.infer(a) {
                Ty::Known(Bool) => Ty::Known(I32),
                t => t,
            },
            CodeExpr::Binary(op, a, b) => {
                if op.is_comparison() || matches!(op, BinOp::And | BinOp::Or) {
                    self.infer(a);
                    self.infer(b);
                    return Ty::Known(Bool);
                }
                let (ta, tb) = (self.infer(a), self.infer(b));
                match op {
                    BinOp::Shl | BinOp::Shr => match ta {
                        Ty::Known(Bool) => Ty::Known(I32),
                        t => t,
                    },
                    // `&`, `|`, `^` of two bools stay bool.
                    BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor
                        if ta == Ty::Known(Bool) && tb == Ty::Known(Bool) =>
                    {
                        Ty::Known(Bool)
                    }
                    _ => unify(ta, tb, self.adapt_floats),
                }
            }
            CodeExpr::FloorDiv(a, b) => {
                let (ta, tb) = (self.infer(a), self.infer(b));
                unify(ta, tb, self.adapt_floats)
            }
            CodeExpr::Pow(a, b) => {
                let (ta, tb) = (self.infer(a), self.infer(b));
                let is_float =
                    |t: Ty| matches!(t, Ty::FlexFloat) || matches!(t, Ty::Known(x) if x.is_float());
                match (is_float(ta), is_float(tb)) {
                    (false, false) => unify(ta, tb, self.adapt_floats),
                    (true, false) => ta,
                    _ => unify(ta, tb, self.adapt_floats),
                }
            }
            CodeExpr::Cond(c, a, b) => {
                self.infer(c);
                let (ta, tb) = (self.infer(a), self.infer(b));
                unify(ta, tb, self.adapt_floats)
            }
            CodeExpr::Call(f, args) => {
                let tys: Vec<Ty> = args.iter().map(|a| self.infer(a)).collect();
                let first = tys.first().copied().unwrap_or(Ty::FlexInt);
                match (f, first) {
                    (
                        MathFn::Abs | MathFn::NormSqr | MathFn::Arg | MathFn::Re | MathFn::Im,
                        Ty::Known(z),
                    ) if z.is_complex() => return Ty::Known(z.real_part()),
                    (MathFn::Conj | MathFn::Exp, Ty::Known(z)) if z.is_complex() => return first,
                    (MathFn::Complex, _) => {
                        let part = match first {
                            Ty::Known(F32) => F32,
                            _ => F64,
                        };
                        return Ty::Known(part.complex_of().unwrap_or(C64));
                    }
                    _ => {}
                }
                match f {
                    MathFn::Min | MathFn::Max => tys
                        .into_iter()
                        .reduce(|a, b| unify(a, b, self.adapt_floats))
                        .unwrap_or(Ty::FlexInt),
                    MathFn::Abs => match first {
                        Ty::Known(Bool) => Ty::Known(I32),
                        t => t,
                    },
                    MathFn::Floor | MathFn::Ceil
                        if !matches!(first, Ty::FlexFloat | Ty::Known(F32 | F64)) =>
                    {
                        first
                    }
                    // C++ `fma`: the three operands in their common type.
                    MathFn::MulAdd => match tys
                        .into_iter()
                        .reduce(|a, b| unify(a, b, self.adapt_floats))
                    {
                        Some(Ty::Known(F32)) => Ty::Known(F32),
                        Some(Ty::FlexFloat) => Ty::FlexFloat,
                        _ => Ty::Known(F64),
                    },
                    _ => match first {
                        Ty::Known(F32) => Ty::Known(F32),
                        Ty::FlexFloat => Ty::FlexFloat,
                        _ => Ty::Known(F64),
                    },
                }
            }
            CodeExpr::Cast(t, a) => {
                self.infer(a);
                Ty::Known(*t)
            }
        }
    }

    /// `e` as text of type `want` (its natural type when None).
    pub fn emit(&mut self, e: &CodeExpr, want: Option<ScalarType>) -> String {
        let nat = self.infer(e);
        let target = want.unwrap_or_else(|| match (nat, e) {
            // The front end makes an unsuffixed literal too large for i32 an i64.
            (
                Ty::FlexInt,
                CodeExpr::Int {
                    value, negative, ..
                },
            ) if int_literal(*value, *negative, ScalarType::I32).is_none() => ScalarType::I64,
            _ => nat.resolve(),
        });
        match nat {
            Ty::Known(t) if t == target => self.emit_as(e, t),
            Ty::Known(t) => {
                let text = self.emit_as(e, t);
                convert(text, t, target)
            }
            Ty::FlexInt => match e {
                CodeExpr::Int { .. } if target != ScalarType::Bool => self.emit_as(e, target),
                _ if target.is_integer() => self.emit_as(e, target),
                _ => {
                    let text = self.emit_as(e, ScalarType::I32);
                    convert(text, ScalarType::I32, target)
                }
            },
            Ty::FlexFloat => match e {
                CodeExpr::Float { value, .. }
                    if target.is_integer() && value.fract() == 0.0 && value.is_finite() =>
                {
                    match int_literal(value.abs() as u128, *value < 0.0, target) {
                        Some(t) if value.abs() < 1e30 => wrap_negative(t),
                        _ => {
                            let text = self.emit_as(e, ScalarType::F64);
                            convert(text, ScalarType::F64, target)
                        }
                    }
                }
                _ if target.is_float() => self.emit_as(e, target),
                _ => {
                    let text = self.emit_as(e, ScalarType::F64);
                    convert(text, ScalarType::F64, target)
                }
            },
        }
    }

    /// `e`, whose natural type fits `t` (equal, or flexible), at type `t`.
    fn emit_as(&mut self, e: &CodeExpr, t: ScalarType) -> String {
        use ScalarType::*;
        match e {
            CodeExpr::Int {
                value, negative, ..
            } => match int_literal(*value, *negative, t) {
                Some(text) => wrap_negative(text),
                None => {
                    let sign = if *negative { "-" } else { "" };
                    self.fail(format!(
                        "has the literal `{sign}{value}`, which does not fit `{t}`"
                    ));
                    "0".to_string()
                }
            },
            CodeExpr::Float { value, .. } => {
                if t.is_float() {
                    wrap_negative(float_literal(*value, t))
                } else {
                    // Reached only for integral values (see `emit`).
                    wrap_negative(format!(
                        "{}{}",
                        *value as i128,
                        if t == I32 { "" } else { rust(t) }
                    ))
                }
            }
            CodeExpr::Bool(b) => b.to_string(),
            CodeExpr::Special { value, .. } => {
                // Rust's constants: `f64::NAN`, `f32::INFINITY`, ...
                let t = if t.is_float() { t } else { F64 };
                let name = if value.is_nan() {
                    "NAN"
                } else if *value > 0.0 {
                    "INFINITY"
                } else {
                    "NEG_INFINITY"
                };
                format!("{t}::{name}")
            }
            CodeExpr::Name(n) => match (self.lookup)(n) {
                Some(Meaning::Value { text, .. }) => text,
                Some(Meaning::Array {
                    container,
                    scalar: true,
                    ..
                }) => container,
                _ => n.clone(),
            },
            CodeExpr::Index(n, idx) => self.index(n, idx),
            // `-inf` (C++'s `-std::numeric_limits<T>::infinity()`): one constant.
            CodeExpr::Unary(Unary::Neg, a)
                if t.is_float()
                    && matches!(**a, CodeExpr::Special { value, .. } if value == f64::INFINITY) =>
            {
                format!("{t}::NEG_INFINITY")
            }
            CodeExpr::Unary(Unary::Neg, a) => {
                if t.is_integer() && !t.is_signed_integer() {
                    // C++ negation of an unsigned value wraps.
                    let zero = int_literal(0, false, t).unwrap_or_default();
                    return paren(format!("{zero} - {}", self.emit(a, Some(t))));
                }
                // Unary operators bind tighter than any binary one and `as`;
                // a method receiver gets parentheses where it needs them.
                format!("-{}", self.emit(a, Some(t)))
            }
            CodeExpr::Unary(Unary::Not, a) => format!("!{}", self.emit(a, Some(Bool))),
            CodeExpr::Unary(Unary::BitNot, a) => format!("!{}", self.emit(a, Some(t))),
            CodeExpr::Binary(op, a, b) => self.binary(*op, a, b, t),
            CodeExpr::FloorDiv(a, b) => {
                let (x, y) = (self.emit(a, Some(t)), self.emit(b, Some(t)));
                if t.is_float() {
                    format!("({x} / {y}).floor()")
                } else {
                    // DaCe's `ifloor(a / b)` of integers is the integer division.
                    paren(format!("{x} / {y}"))
                }
            }
            CodeExpr::Pow(a, b) => self.pow(a, b, t),
            CodeExpr::Cond(c, a, b) => {
                let c = self.emit(c, Some(Bool));
                let (x, y) = (self.emit(a, Some(t)), self.emit(b, Some(t)));
                paren(format!("if {c} {{ {x} }} else {{ {y} }}"))
            }
            CodeExpr::Call(f, args) => self.call(*f, args, t),
            // The exporter writes `pow` as `static_cast<T>(pow(a, b))`,
            // already of type T here.
            CodeExpr::Cast(to, a)
                if matches!(**a, CodeExpr::Pow(..)) && self.infer(a) == Ty::Known(*to) =>
            {
                self.emit(a, Some(*to))
            }
            // `int8_t(3)`: a literal of the type.
            CodeExpr::Cast(to, a)
                if matches!(**a, CodeExpr::Int { value, negative, .. }
                    if to.is_narrow_integer() && int_literal(value, negative, *to).is_some()) =>
            {
                self.emit(a, Some(*to))
            }
            // A cast to the value's own type (the exporter wraps each
            // operation on narrow integers, which C++ promotes, back to
            // its type): the value itself.
            CodeExpr::Cast(to, a)
                if to.is_narrow_integer()
                    && matches!(
                        **a,
                        CodeExpr::Binary(..) | CodeExpr::Unary(..) | CodeExpr::Call(..)
                    )
                    && self.infer(a) == Ty::Known(*to) =>
            {
                self.emit(a, Some(*to))
            }
            // `dace::complex128(re, im)`: `c64::new(re, im)`.
            CodeExpr::Cast(to, a) if to.is_complex() => match a.as_ref() {
                CodeExpr::Call(MathFn::Complex, parts) if parts.len() == 2 => {
                    let part = to.real_part();
                    let re = self.emit(&parts[0], Some(part));
                    let im = self.emit(&parts[1], Some(part));
                    format!("{to}::new({re}, {im})")
                }
                other => self.emit(other, Some(*to)),
            },
            CodeExpr::Cast(to, a) => {
                let inner = self.infer(a);
                let text = self.emit(a, None);
                let from = match inner {
                    Ty::FlexInt => match a.as_ref() {
                        CodeExpr::Int {
                            value, negative, ..
                        } if int_literal(*value, *negative, I32).is_none() => I64,
                        _ => I32,
                    },
                    other => other.resolve(),
                };
                cast_text(text, from, *to)
            }
        }
    }

    fn binary(&mut self, op: BinOp, a: &CodeExpr, b: &CodeExpr, t: ScalarType) -> String {
        let sym = op.symbol();
        if matches!(op, BinOp::And | BinOp::Or) {
            let (x, y) = (
                self.emit(a, Some(ScalarType::Bool)),
                self.emit(b, Some(ScalarType::Bool)),
            );
            return paren(format!("{x} {sym} {y}"));
        }
        if op.is_comparison() {
            let (ta, tb) = (self.infer(a), self.infer(b));
            let mut u = unify(ta, tb, self.adapt_floats).resolve();
            if ta == Ty::Known(ScalarType::Bool) && tb == Ty::Known(ScalarType::Bool) {
                u = ScalarType::Bool;
            }
            let (x, y) = (self.emit(a, Some(u)), self.emit(b, Some(u)));
            return paren(format!("{x} {sym} {y}"));
        }
        if matches!(op, BinOp::Shl | BinOp::Shr) {
            let x = self.emit(a, Some(t));
            // The exporter masks the amount to the width, which the tasklet
            // language's shifts do anyway.
            let amount = match b {
                CodeExpr::Binary(BinOp::BitAnd, amount, mask)
                    if matches!(**mask, CodeExpr::Int { value, negative: false, suffix: None }
                        if value == u128::from(t.bits()) - 1) =>
                {
                    amount
                }
                other => other,
            };
            let y = match self.infer(amount) {
                Ty::Known(x) if x.is_integer() => self.emit(amount, None),
                Ty::Known(_) | Ty::FlexFloat => self.emit(amount, Some(ScalarType::I64)),
                Ty::FlexInt => self.emit(amount, None),
            };
            return paren(format!("{x} {sym} {y}"));
        }
        if t == ScalarType::Bool && !matches!(op, BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor) {
            self.fail(format!("does arithmetic `{sym}` on bool values"));
        }
        let (x, y) = (self.emit(a, Some(t)), self.emit(b, Some(t)));
        paren(format!("{x} {sym} {y}"))
    }

    fn pow(&mut self, a: &CodeExpr, b: &CodeExpr, t: ScalarType) -> String {
        let literal_exponent = match b {
            CodeExpr::Int {
                value,
                negative,
                suffix: None,
            } => i32::try_from(*value)
                .ok()
                .map(|v| if *negative { -v } else { v }),
            CodeExpr::Float {
                value,
                suffix: None,
                ..
            } if value.fract() == 0.0 && value.abs() < 1e9 => Some(*value as i32),
            _ => None,
        };
        if t.is_float() {
            let base = receiver(self.emit(a, Some(t)));
            return match (literal_exponent, self.infer(b)) {
                (Some(n), _) => format!("{base}.powi({n})"),
                (None, Ty::Known(x)) if x.is_integer() => {
                    let n = self.emit(b, Some(ScalarType::I32));
                    format!("{base}.powi({n})")
                }
                _ => {
                    let y = self.emit(b, Some(t));
                    format!("{base}.powf({y})")
                }
            };
        }
        // An integer power: repeated multiplication (the tasklet language
        // has no integer `pow`).
        match literal_exponent {
            Some(0) => int_literal(1, false, t).unwrap_or_default(),
            Some(n @ 1..=16) => {
                let x = self.emit(a, Some(t));
                paren(vec![x; n as usize].join(" * "))
            }
            _ => {
                self.fail(
                    "raises an integer to a power that is not a literal from 0 to 16".to_string(),
                );
                "0".to_string()
            }
        }
    }

    fn call(&mut self, f: MathFn, args: &[CodeExpr], t: ScalarType) -> String {
        let Some(first) = args.first() else {
            return "0".to_string();
        };
        if let Ty::Known(z) = self.infer(first) {
            if z.is_complex() {
                // A method or a field of a complex value: the receiver keeps its type.
                let x = receiver(self.emit(first, Some(z)));
                return match f {
                    MathFn::Re | MathFn::Im => format!("{x}.{}", f.method_name()),
                    _ => format!("{x}.{}()", f.method_name()),
                };
            }
        }
        match f {
            MathFn::Min | MathFn::Max | MathFn::Atan2 | MathFn::Hypot => {
                let x = receiver(self.emit(first, Some(t)));
                let y = args
                    .get(1)
                    .map(|b| self.emit(b, Some(t)))
                    .unwrap_or_default();
                format!("{x}.{}({y})", f.method_name())
            }
            MathFn::Abs if t.is_integer() && !t.is_signed_integer() => self.emit(first, Some(t)),
            MathFn::Floor | MathFn::Ceil if !t.is_float() => self.emit(first, Some(t)),
            MathFn::Powi | MathFn::Powf => {
                let b = args.get(1).cloned().unwrap_or(CodeExpr::int(1));
                self.pow(first, &b, t)
            }
            MathFn::MulAdd => {
                let x = receiver(self.emit(first, Some(t)));
                let rest: Vec<String> = args[1..].iter().map(|a| self.emit(a, Some(t))).collect();
                format!("{x}.mul_add({})", rest.join(", "))
            }
            _ => {
                let x = receiver(self.emit(first, Some(t)));
                format!("{x}.{}()", f.method_name())
            }
        }
    }

    /// `name[i, j]` through the name's meaning.
    fn index(&mut self, name: &str, idx: &[CodeExpr]) -> String {
        if let Some(Meaning::Value { text, .. }) = (self.lookup)(name) {
            // `p[0]` of a one-element connector (see `infer`).
            return text;
        }
        let Some(Meaning::Array {
            container,
            offsets,
            shape,
            scalar,
            ..
        }) = (self.lookup)(name)
        else {
            return name.to_string();
        };
        if scalar {
            return container;
        }
        let rank = offsets.len().max(shape.len());
        let idx: Vec<CodeExpr> = if idx.len() == rank {
            idx.to_vec()
        } else if idx.len() == 1 && rank > 1 {
            match split_flat(&idx[0], &shape) {
                Some(parts) => parts,
                None => {
                    self.fail(format!(
                        "indexes the {rank}-dimensional `{name}` with one flat index that sdfg-rs cannot split"
                    ));
                    return container;
                }
            }
        } else {
            self.fail(format!(
                "indexes `{name}` with {} indices; it has {rank} dimensions",
                idx.len()
            ));
            return container;
        };
        let parts: Vec<String> = idx
            .iter()
            .enumerate()
            .map(|(d, i)| {
                let zero = |e: &CodeExpr| matches!(e, CodeExpr::Int { value: 0, .. });
                let e = match offsets.get(d) {
                    None => i.clone(),
                    Some(off) if zero(off) => i.clone(),
                    Some(off) if zero(i) => off.clone(),
                    Some(off) => {
                        CodeExpr::Binary(BinOp::Add, Box::new(off.clone()), Box::new(i.clone()))
                    }
                };
                self.emit(&e, None)
            })
            .map(strip_outer_parens)
            .collect();
        format!("{container}[{}]", parts.join(", "))
    }
}

/// `((i0) * S1 + i1) * S2 + i2` over `shape`: the indices, outermost first.
fn split_flat(flat: &CodeExpr, shape: &[CodeExpr]) -> Option<Vec<CodeExpr>> {
    let mut rest = flat.clone();
    let mut out = Vec::new();
    for d in (1..shape.len()).rev() {
        let CodeExpr::Binary(BinOp::Add, outer, inner) = rest else {
            return None;
        };
        let CodeExpr::Binary(BinOp::Mul, prefix, extent) = *outer else {
            return None;
        };
        if !super::code::same_integer_value(&extent, &shape[d]) {
            return None;
        }
        out.push(*inner);
        rest = *prefix;
    }
    out.push(rest);
    out.reverse();
    Some(out)
}

/// `(x)` -> `x` where the parentheses enclose the whole text.
pub(crate) fn strip_outer_parens(s: String) -> String {
    let b = s.as_bytes();
    if b.first() != Some(&b'(') || b.last() != Some(&b')') {
        return s;
    }
    let mut depth = 0i32;
    for (i, c) in b.iter().enumerate() {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 && i + 1 != b.len() {
                    return s;
                }
            }
            _ => {}
        }
    }
    s[1..s.len() - 1].to_string()
}

/// A negative literal as an operand: `(-5)`.
fn wrap_negative(text: String) -> String {
    if text.starts_with('-') {
        paren(text)
    } else {
        text
    }
}

/// A method receiver: literals and non-atoms in parentheses.
fn receiver(text: String) -> String {
    let atom = text.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !text.starts_with(|c: char| c.is_ascii_digit());
    let indexed = text.find('[').is_some_and(|open| {
        let head = &text[..open];
        !head.is_empty()
            && head.chars().all(|c| c.is_alphanumeric() || c == '_')
            && text.ends_with(']')
            && matching_bracket(&text[open..]) == Some(text.len() - open - 1)
    });
    if atom || indexed || (text.starts_with('(') && strip_outer_parens(text.clone()) != text) {
        text
    } else {
        paren(text)
    }
}

/// The position of the `]` that closes the `[` at the start of `s`.
fn matching_bracket(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `0` (any integer spelling).
pub(crate) fn is_literal_zero(e: &CodeExpr) -> bool {
    matches!(e, CodeExpr::Int { value: 0, .. })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::python::parse_expr;

    fn emit_with(src: &str, want: Option<ScalarType>) -> String {
        let lookup = |n: &str| -> Option<Meaning> {
            let ty = match n {
                "N" | "i" => ScalarType::I32,
                "M" | "t" => ScalarType::I64,
                "x" => ScalarType::F32,
                "d" => ScalarType::F64,
                "u" => ScalarType::U32,
                "b" => ScalarType::Bool,
                _ => return None,
            };
            Some(Meaning::Value {
                text: n.to_string(),
                ty,
            })
        };
        let mut em = Emitter {
            lookup: &lookup,
            adapt_floats: false,
            errors: Vec::new(),
        };
        let out = em.emit(&parse_expr(src).unwrap(), want);
        assert!(em.errors.is_empty(), "{:?}", em.errors);
        out
    }

    #[test]
    fn conversions_are_explicit() {
        assert_eq!(emit_with("N - 1", None), "(N - 1)");
        assert_eq!(emit_with("t < N", None), "(t < (N as i64))");
        assert_eq!(
            emit_with("x * 2.0", Some(ScalarType::F32)),
            "(((x as f64) * 2.0) as f32)"
        );
        assert_eq!(emit_with("1.0", Some(ScalarType::I32)), "1");
        assert_eq!(emit_with("t + 1", None), "(t + 1i64)");
        assert_eq!(emit_with("-5", Some(ScalarType::I64)), "(-5i64)");
        assert_eq!(emit_with("d ** 2", None), "d.powi(2)");
        assert_eq!(emit_with("max(d, 0.5)", None), "d.max(0.5)");
        assert_eq!(emit_with("b and N > 0", None), "(b && (N > 0))");
        assert_eq!(emit_with("float(N)", None), "(N as f64)");
        assert_eq!(emit_with("u + i", None), "(u + (i as u32))");
        assert_eq!(emit_with("N", Some(ScalarType::Bool)), "(N != 0)");
    }
}
