//! Affine forms `c + sum(k_v * v)` of integer expressions over symbols and
//! map parameters, to compare indices and extents symbolically.

use crate::ir::*;
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Affine {
    /// Variable -> coefficient (never 0). Keys: (0, symbol) or (1, param).
    pub terms: BTreeMap<(u8, usize), i128>,
    pub constant: i128,
}

impl Affine {
    fn constant(c: i128) -> Affine {
        Affine {
            terms: BTreeMap::new(),
            constant: c,
        }
    }

    /// `e` as an affine form, when it is one (locals and loads are not).
    pub fn of(e: &Expr) -> Option<Affine> {
        match &e.kind {
            ExprKind::Lit(v) => v.as_i128().map(Affine::constant),
            ExprKind::Var(VarRef::Symbol(s)) => Some(Affine::var((0, *s))),
            ExprKind::Var(VarRef::Param(p)) => Some(Affine::var((1, *p))),
            ExprKind::Unary { op: UnOp::Neg, arg } => Affine::of(arg)?.scale(-1),
            ExprKind::Cast { arg } if arg.ty.is_integer() && e.ty.is_integer() => Affine::of(arg),
            ExprKind::Binary { op, lhs, rhs } => {
                let (l, r) = (Affine::of(lhs)?, Affine::of(rhs)?);
                match op {
                    BinOp::Add => l.add(&r, 1),
                    BinOp::Sub => l.add(&r, -1),
                    BinOp::Mul if l.terms.is_empty() => r.scale(l.constant),
                    BinOp::Mul if r.terms.is_empty() => l.scale(r.constant),
                    _ if l.terms.is_empty() && r.terms.is_empty() => {
                        let (a, b) = (l.constant, r.constant);
                        let c = match op {
                            BinOp::Div if b != 0 => a.checked_div(b)?,
                            BinOp::Rem if b != 0 => a.checked_rem(b)?,
                            _ => return None,
                        };
                        Some(Affine::constant(c))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn var(key: (u8, usize)) -> Affine {
        Affine {
            terms: BTreeMap::from([(key, 1)]),
            constant: 0,
        }
    }

    fn scale(mut self, k: i128) -> Option<Affine> {
        self.constant = self.constant.checked_mul(k)?;
        for v in self.terms.values_mut() {
            *v = v.checked_mul(k)?;
        }
        self.terms.retain(|_, v| *v != 0);
        Some(self)
    }

    /// `self + k * other`.
    pub fn add(mut self, other: &Affine, k: i128) -> Option<Affine> {
        self.constant = self.constant.checked_add(other.constant.checked_mul(k)?)?;
        for (key, v) in &other.terms {
            let entry = self.terms.entry(*key).or_insert(0);
            *entry = entry.checked_add(v.checked_mul(k)?)?;
        }
        self.terms.retain(|_, v| *v != 0);
        Some(self)
    }

    /// The value when there are no variables.
    pub fn as_constant(&self) -> Option<i128> {
        self.terms.is_empty().then_some(self.constant)
    }

    /// The form as DSL text (`N - 1`, `2 * M + 3`), for messages.
    pub fn text(&self, sdfg: &Sdfg, params: &[MapParam]) -> String {
        let mut out = String::new();
        for (&(kind, id), &k) in &self.terms {
            let name = if kind == 0 {
                sdfg.symbols.get(id).map_or("?", |s| s.name.text.as_str())
            } else {
                params.get(id).map_or("?", |p| p.name.text.as_str())
            };
            let magnitude = k.unsigned_abs();
            let term = if magnitude == 1 {
                name.to_string()
            } else {
                format!("{magnitude} * {name}")
            };
            match (out.is_empty(), k < 0) {
                (true, false) => out.push_str(&term),
                (true, true) => out.push_str(&format!("-{term}")),
                (false, false) => out.push_str(&format!(" + {term}")),
                (false, true) => out.push_str(&format!(" - {term}")),
            }
        }
        match (out.is_empty(), self.constant) {
            (true, c) => c.to_string(),
            (false, 0) => out,
            (false, c) if c > 0 => format!("{out} + {c}"),
            (false, c) => format!("{out} - {}", c.unsigned_abs()),
        }
    }

    /// `self + k`.
    pub fn offset(mut self, k: i128) -> Option<Affine> {
        self.constant = self.constant.checked_add(k)?;
        Some(self)
    }

    /// `self - other` when it is a constant.
    pub fn minus(&self, other: &Affine) -> Option<i128> {
        self.clone().add(other, -1)?.as_constant()
    }

    /// Whether the form mentions a map parameter (its value differs per statement).
    pub fn has_params(&self) -> bool {
        self.terms.keys().any(|(kind, _)| *kind == 1)
    }
}

/// The integer value of a constant expression (literals and arithmetic).
pub(crate) fn constant(e: &Expr) -> Option<i128> {
    Affine::of(e)?.as_constant()
}
