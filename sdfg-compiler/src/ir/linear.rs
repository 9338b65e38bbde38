//! Linear forms `c + k_1 * v_1 + ... + k_n * v_n` with integer coefficients:
//! the one algebra that compares indices, extents and ranges symbolically.
//!
//! The variables are whatever the user of the form needs, as long as they
//! are ordered (terms print in that order): the validator's forms range over
//! symbols and map parameters ([`Affine`], built by [`Affine::of`]); the
//! DaCe exporter's over the printed text of symbols and of subexpressions it
//! keeps whole. [`Linear::from_expr`] folds the linear structure of an
//! expression (literals, `+`, `-`, negation, integer casts, products with a
//! constant factor, quotients and remainders of constants) and asks its
//! caller about everything else.
//!
//! Arithmetic is checked: a coefficient or constant that would overflow
//! `i128` makes the result `None` (the form is then unknown, never wrong).

use super::{BinOp, Expr, ExprKind, MapParam, Sdfg, SymbolId, UnOp, VarRef};
use std::collections::BTreeMap;

/// `constant + sum(terms[v] * v)`; no coefficient is 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Linear<V> {
    pub terms: BTreeMap<V, i128>,
    pub constant: i128,
}

/// What [`Linear::from_expr`] does with one subexpression, as its caller
/// decides.
pub enum Leaf<V> {
    /// This subexpression is this form (a variable, an opaque atom).
    Form(Linear<V>),
    /// Fold its linear structure (and ask again about its operands).
    Descend,
    /// It is not linear: the whole form is unknown.
    NotLinear,
}

impl<V: Ord + Clone> Linear<V> {
    pub fn constant(c: i128) -> Linear<V> {
        Linear {
            terms: BTreeMap::new(),
            constant: c,
        }
    }

    /// `1 * v`.
    pub fn var(v: V) -> Linear<V> {
        Linear {
            terms: BTreeMap::from([(v, 1)]),
            constant: 0,
        }
    }

    /// `self + k * other`.
    pub fn add(mut self, other: &Linear<V>, k: i128) -> Option<Linear<V>> {
        self.constant = self.constant.checked_add(other.constant.checked_mul(k)?)?;
        for (v, c) in &other.terms {
            let entry = self.terms.entry(v.clone()).or_insert(0);
            *entry = entry.checked_add(c.checked_mul(k)?)?;
        }
        self.terms.retain(|_, c| *c != 0);
        Some(self)
    }

    /// `k * self`.
    pub fn scale(mut self, k: i128) -> Option<Linear<V>> {
        self.constant = self.constant.checked_mul(k)?;
        for c in self.terms.values_mut() {
            *c = c.checked_mul(k)?;
        }
        self.terms.retain(|_, c| *c != 0);
        Some(self)
    }

    /// `self + k`.
    pub fn offset(mut self, k: i128) -> Option<Linear<V>> {
        self.constant = self.constant.checked_add(k)?;
        Some(self)
    }

    /// The value when there are no variables.
    pub fn as_constant(&self) -> Option<i128> {
        self.terms.is_empty().then_some(self.constant)
    }

    /// `self - other` when it is a constant.
    pub fn minus(&self, other: &Linear<V>) -> Option<i128> {
        self.clone().add(other, -1)?.as_constant()
    }

    /// `e` as a form. `leaf` sees every subexpression first, outermost
    /// first, and decides whether it is a form of its own, to be folded
    /// (literals, `+ - neg`, integer casts, products with a constant factor,
    /// quotients and remainders of constants), or not linear.
    pub fn from_expr(e: &Expr, leaf: &mut impl FnMut(&Expr) -> Leaf<V>) -> Option<Linear<V>> {
        match leaf(e) {
            Leaf::Form(form) => return Some(form),
            Leaf::NotLinear => return None,
            Leaf::Descend => {}
        }
        match &e.kind {
            ExprKind::Lit(v) => v.as_i128().map(Linear::constant),
            ExprKind::Unary { op: UnOp::Neg, arg } => Linear::from_expr(arg, leaf)?.scale(-1),
            ExprKind::Cast { arg } if arg.ty.is_integer() && e.ty.is_integer() => {
                Linear::from_expr(arg, leaf)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let l = Linear::from_expr(lhs, leaf)?;
                let r = Linear::from_expr(rhs, leaf)?;
                match (op, l.as_constant(), r.as_constant()) {
                    (BinOp::Add, _, _) => l.add(&r, 1),
                    (BinOp::Sub, _, _) => l.add(&r, -1),
                    (BinOp::Mul, Some(k), _) => r.scale(k),
                    (BinOp::Mul, _, Some(k)) => l.scale(k),
                    (BinOp::Div, Some(a), Some(b)) if b != 0 => {
                        a.checked_div(b).map(Linear::constant)
                    }
                    (BinOp::Rem, Some(a), Some(b)) if b != 0 => {
                        a.checked_rem(b).map(Linear::constant)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The form as text: terms in variable order, `name(v)` for each
    /// variable and `times` between a coefficient and its variable (`2 * N`
    /// in messages, `2*N` for DaCe), then the constant: `2 * N - M + 1`.
    pub fn render(&self, name: impl Fn(&V) -> String, times: &str) -> String {
        let mut out = String::new();
        for (v, &k) in &self.terms {
            let magnitude = k.unsigned_abs();
            let term = if magnitude == 1 {
                name(v)
            } else {
                format!("{magnitude}{times}{}", name(v))
            };
            match (out.is_empty(), k < 0) {
                (true, false) => out = term,
                (true, true) => out = format!("-{term}"),
                (false, false) => out = format!("{out} + {term}"),
                (false, true) => out = format!("{out} - {term}"),
            }
        }
        match (out.is_empty(), self.constant) {
            (true, c) => c.to_string(),
            (false, 0) => out,
            (false, c) if c > 0 => format!("{out} + {c}"),
            (false, c) => format!("{out} - {}", c.unsigned_abs()),
        }
    }
}

/// A variable of an [`Affine`] form: the integers an index or an extent may
/// name before any data is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum AffineVar {
    Symbol(SymbolId),
    /// A map parameter, by position in its map's `params`.
    Param(usize),
}

/// A linear form over symbols and map parameters.
pub type Affine = Linear<AffineVar>;

impl Linear<AffineVar> {
    /// `e` as a form over symbols and map parameters, when it is one
    /// (locals, loads and calls are not).
    pub fn of(e: &Expr) -> Option<Affine> {
        Linear::from_expr(e, &mut |x: &Expr| match &x.kind {
            ExprKind::Var(VarRef::Symbol(s)) => Leaf::Form(Linear::var(AffineVar::Symbol(*s))),
            ExprKind::Var(VarRef::Param(p)) => Leaf::Form(Linear::var(AffineVar::Param(*p))),
            _ => Leaf::Descend,
        })
    }

    /// Whether the form mentions a map parameter (its value differs per
    /// iteration).
    pub fn has_params(&self) -> bool {
        self.terms.keys().any(|v| matches!(v, AffineVar::Param(_)))
    }

    /// The form as DSL text (`N - 1`, `2 * M + 3`), for messages; `params`
    /// names the map parameters.
    pub fn text(&self, sdfg: &Sdfg, params: &[MapParam]) -> String {
        let name = |v: &AffineVar| {
            let name = match *v {
                AffineVar::Symbol(s) => sdfg.symbols.get(s).map(|s| &s.name),
                AffineVar::Param(p) => params.get(p).map(|p| &p.name),
            };
            name.map_or_else(|| "?".to_string(), |n| n.text.clone())
        };
        self.render(name, " * ")
    }
}

/// The integer value of a constant expression (literals and arithmetic).
pub fn constant_value(e: &Expr) -> Option<i128> {
    Affine::of(e)?.as_constant()
}

/// The product of `dims` when each is a non-negative constant and the
/// product fits a `u64` (a container's elements, a block's threads).
pub fn constant_product(dims: &[Expr]) -> Option<u64> {
    dims.iter().try_fold(1u64, |acc, d| {
        acc.checked_mul(u64::try_from(constant_value(d)?).ok()?)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{ScalarType, Value};
    use proc_macro2::Span;

    fn lit(v: i64) -> Expr {
        Expr::lit(Value::I64(v), Span::call_site())
    }
    fn sym(s: SymbolId) -> Expr {
        Expr::new(
            ExprKind::Var(VarRef::Symbol(s)),
            ScalarType::I64,
            Span::call_site(),
        )
    }
    fn bin(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
        Expr::new(
            ExprKind::Binary {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            ScalarType::I64,
            Span::call_site(),
        )
    }

    #[test]
    fn folds_linear_structure_and_constants() {
        // (2 * 3) * N - (N + 7 / 2) == 5 * N - 3
        let e = bin(
            BinOp::Sub,
            bin(BinOp::Mul, bin(BinOp::Mul, lit(2), lit(3)), sym(0)),
            bin(BinOp::Add, sym(0), bin(BinOp::Div, lit(7), lit(2))),
        );
        let form = Affine::of(&e).unwrap();
        assert_eq!(form.terms, BTreeMap::from([(AffineVar::Symbol(0), 5)]));
        assert_eq!(form.constant, -3);
        assert_eq!(form.render(|_| "N".to_string(), " * "), "5 * N - 3");
        assert_eq!(form.render(|_| "N".to_string(), "*"), "5*N - 3");
        // N * N and N / 2 are not linear; 7 / 0 is not folded.
        assert_eq!(Affine::of(&bin(BinOp::Mul, sym(0), sym(0))), None);
        assert_eq!(Affine::of(&bin(BinOp::Div, sym(0), lit(2))), None);
        assert_eq!(Affine::of(&bin(BinOp::Div, lit(7), lit(0))), None);
        assert_eq!(constant_value(&bin(BinOp::Rem, lit(-7), lit(2))), Some(-1));
    }

    #[test]
    fn renders_signs_and_coefficients() {
        let n = Linear::var("N".to_string());
        let m = Linear::var("M".to_string());
        let form = m.scale(-2).unwrap().add(&n, -1).unwrap().offset(4).unwrap();
        assert_eq!(form.render(|v| v.clone(), " * "), "-2 * M - N + 4");
        let zero = form.clone().add(&form, -1).unwrap();
        assert_eq!(zero.render(|v| v.clone(), "*"), "0");
    }

    #[test]
    fn overflow_makes_the_form_unknown() {
        let big = Linear::<String>::constant(i128::MAX);
        assert_eq!(big.clone().offset(1), None);
        assert_eq!(big.clone().scale(2), None);
        assert_eq!(
            Linear::var("N".to_string()).scale(0).unwrap().as_constant(),
            Some(0)
        );
    }

    #[test]
    fn the_caller_decides_about_leaves() {
        // Products without a literal factor kept whole, as an atom.
        let e = bin(BinOp::Add, bin(BinOp::Mul, sym(0), sym(1)), lit(1));
        let form = Linear::from_expr(&e, &mut |x: &Expr| match &x.kind {
            ExprKind::Binary { op: BinOp::Mul, .. } => Leaf::Form(Linear::var("N*M".to_string())),
            ExprKind::Var(_) => Leaf::NotLinear,
            _ => Leaf::Descend,
        })
        .unwrap();
        assert_eq!(form.render(|v| v.clone(), "*"), "N*M + 1");
    }
}
