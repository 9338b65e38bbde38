//! Symbolic sizes as DaCe reads them: integer expressions over the symbols
//! as linear forms (so `end - 1` and `end - start` print simplified), and
//! the ranges a map's memlets cover: the per-dimension hull of the inner
//! subsets over the map's parameter ranges, cut to the container where it
//! provably sticks out.

use super::data::range_json;
use super::Cx;
use crate::ir::{BinOp, Expr, ExprKind, MapParam, Memlet, SubsetDim, UnOp, VarRef};
use serde_json::Value;
use std::collections::BTreeMap;

impl Cx<'_> {
    /// `end - 1` for an exclusive end: DaCe's inclusive one, simplified.
    pub(super) fn inclusive_end(&self, end: &Expr) -> String {
        linear(end, self).add(&Linear::constant(1), -1).text()
    }

    /// `end - start`, simplified.
    pub(super) fn extent(&self, start: &Expr, end: &Expr) -> String {
        linear(end, self).add(&linear(start, self), -1).text()
    }
}

/// An integer linear form over atoms (symbols or opaque subexpressions):
/// enough to compute `min`/`max` of `i - 1` and `i + 1` without a CAS.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Linear {
    terms: BTreeMap<String, i128>,
    constant: i128,
}

impl Linear {
    fn constant(c: i128) -> Linear {
        Linear {
            terms: BTreeMap::new(),
            constant: c,
        }
    }
    fn atom(text: String) -> Linear {
        Linear {
            terms: BTreeMap::from([(text, 1)]),
            constant: 0,
        }
    }
    fn add(&self, other: &Linear, sign: i128) -> Linear {
        let mut out = self.clone();
        for (t, c) in &other.terms {
            *out.terms.entry(t.clone()).or_insert(0) += sign * c;
        }
        out.terms.retain(|_, c| *c != 0);
        out.constant += sign * other.constant;
        out
    }
    fn scale(&self, k: i128) -> Linear {
        let mut out = self.clone();
        out.terms.values_mut().for_each(|c| *c *= k);
        out.terms.retain(|_, c| *c != 0);
        out.constant *= k;
        out
    }
    fn text(&self) -> String {
        let mut out = String::new();
        for (t, c) in &self.terms {
            let term = match c {
                1 => t.clone(),
                -1 => format!("-{t}"),
                c => format!("{c}*{t}"),
            };
            if out.is_empty() {
                out = term;
            } else if let Some(neg) = term.strip_prefix('-') {
                out = format!("{out} - {neg}");
            } else {
                out = format!("{out} + {term}");
            }
        }
        match (out.is_empty(), self.constant) {
            (true, c) => c.to_string(),
            (false, 0) => out,
            (false, c) if c < 0 => format!("{out} - {}", -c),
            (false, c) => format!("{out} + {c}"),
        }
    }
}

/// A symbolic bound: a linear form, or a `min`/`max` text DaCe simplifies.
#[derive(Clone, Debug)]
enum Bound {
    Linear(Linear),
    Text(String),
}

impl Bound {
    fn text(&self) -> String {
        match self {
            Bound::Linear(l) => l.text(),
            Bound::Text(t) => t.clone(),
        }
    }
    /// `min` (`lower`) or `max` of two bounds; folded when they differ by a constant.
    fn combine(&self, other: &Bound, lower: bool) -> Bound {
        if let (Bound::Linear(a), Bound::Linear(b)) = (self, other) {
            if a.terms == b.terms {
                let c = if lower {
                    a.constant.min(b.constant)
                } else {
                    a.constant.max(b.constant)
                };
                return Bound::Linear(Linear {
                    terms: a.terms.clone(),
                    constant: c,
                });
            }
        }
        let f = if lower { "min" } else { "max" };
        Bound::Text(format!("{f}({}, {})", self.text(), other.text()))
    }
}

fn literal_int(e: &Expr) -> Option<i128> {
    match &e.kind {
        ExprKind::Lit(v) => v.as_i128(),
        _ => None,
    }
}

/// A symbol-only expression as a linear form (non-linear parts become atoms).
fn linear(e: &Expr, cx: &Cx) -> Linear {
    match &e.kind {
        ExprKind::Lit(v) => match v.as_i128() {
            Some(c) => Linear::constant(c),
            None => Linear::atom(format!("({})", cx.py(e))),
        },
        ExprKind::Var(VarRef::Symbol(_)) => Linear::atom(cx.py(e)),
        ExprKind::Binary {
            op: op @ (BinOp::Add | BinOp::Sub),
            lhs,
            rhs,
        } => linear(lhs, cx).add(&linear(rhs, cx), if *op == BinOp::Add { 1 } else { -1 }),
        ExprKind::Binary {
            op: BinOp::Mul,
            lhs,
            rhs,
        } => match (literal_int(lhs), literal_int(rhs)) {
            (Some(k), _) => linear(rhs, cx).scale(k),
            (_, Some(k)) => linear(lhs, cx).scale(k),
            _ => Linear::atom(format!("({})", cx.py(e))),
        },
        ExprKind::Unary { op: UnOp::Neg, arg } => linear(arg, cx).scale(-1),
        ExprKind::Cast { arg } if e.ty.is_integer() && arg.ty.is_integer() => linear(arg, cx),
        _ => Linear::atom(format!("({})", cx.py(e))),
    }
}

/// The inclusive `(lo, hi)` of an index expression over the map's ranges;
/// None when it reads anything but parameters, symbols and literals, or is
/// not linear with literal coefficients.
fn interval(e: &Expr, params: &[MapParam], cx: &Cx) -> Option<(Linear, Linear)> {
    match &e.kind {
        ExprKind::Lit(v) => v
            .as_i128()
            .map(|c| (Linear::constant(c), Linear::constant(c))),
        ExprKind::Var(VarRef::Symbol(_)) => {
            let l = linear(e, cx);
            Some((l.clone(), l))
        }
        ExprKind::Var(VarRef::Param(p)) => {
            let p = params.get(*p)?;
            let lo = linear(&p.start, cx);
            let hi = linear(&p.end, cx).add(&Linear::constant(1), -1);
            Some((lo, hi))
        }
        ExprKind::Binary {
            op: op @ (BinOp::Add | BinOp::Sub),
            lhs,
            rhs,
        } => {
            let (a_lo, a_hi) = interval(lhs, params, cx)?;
            let (b_lo, b_hi) = interval(rhs, params, cx)?;
            Some(if *op == BinOp::Add {
                (a_lo.add(&b_lo, 1), a_hi.add(&b_hi, 1))
            } else {
                (a_lo.add(&b_hi, -1), a_hi.add(&b_lo, -1))
            })
        }
        ExprKind::Binary {
            op: BinOp::Mul,
            lhs,
            rhs,
        } => {
            let (k, other) = match (&lhs.kind, &rhs.kind) {
                (ExprKind::Lit(v), _) => (v.as_i128()?, rhs),
                (_, ExprKind::Lit(v)) => (v.as_i128()?, lhs),
                _ => return None,
            };
            let (lo, hi) = interval(other, params, cx)?;
            Some(if k >= 0 {
                (lo.scale(k), hi.scale(k))
            } else {
                (hi.scale(k), lo.scale(k))
            })
        }
        ExprKind::Unary { op: UnOp::Neg, arg } => {
            let (lo, hi) = interval(arg, params, cx)?;
            Some((hi.scale(-1), lo.scale(-1)))
        }
        ExprKind::Cast { arg } if e.ty.is_integer() && arg.ty.is_integer() => {
            interval(arg, params, cx)
        }
        _ => None,
    }
}

/// The per-dimension hull of fixed memlets of one container, as DaCe ranges.
pub(super) fn hull(inner: &[(&Memlet, &crate::ir::Map)], cx: &Cx) -> Option<Vec<Value>> {
    let dims = inner.first()?.0.subset.len();
    if dims == 0 {
        // A scalar container.
        return Some(vec![range_json("0", "0")]);
    }
    let mut out = Vec::new();
    for d in 0..dims {
        let mut acc: Option<(Bound, Bound)> = None;
        for (m, map) in inner {
            let (lo, hi) = match m.subset.get(d)? {
                SubsetDim::Index(e) => interval(e, &map.params, cx)?,
                SubsetDim::Range { start, end } => {
                    let (lo, _) = interval(start, &map.params, cx)?;
                    let (_, hi) = interval(end, &map.params, cx)?;
                    (lo, hi.add(&Linear::constant(1), -1))
                }
            };
            let (lo, hi) = (Bound::Linear(lo), Bound::Linear(hi));
            acc = Some(match acc {
                None => (lo, hi),
                Some((a, b)) => (a.combine(&lo, true), b.combine(&hi, false)),
            });
        }
        let (lo, hi) = acc?;
        let extent = cx
            .sdfg
            .containers
            .get(inner.first()?.0.container)
            .and_then(|c| c.shape.get(d))
            .map(|e| linear(e, cx));
        let (lo, hi) = clamp_to_bounds(lo, hi, extent);
        out.push(range_json(&lo.text(), &hi.text()));
    }
    Some(out)
}

/// The hull cut to `0..extent` where it provably sticks out (a stencil that
/// reads `A[j - 2]` from `j = 1`). Such an access fails our bounds check
/// before anything runs, so no run touches the cut part; DaCe's validation
/// rejects a memlet that provably leaves its container.
fn clamp_to_bounds(lo: Bound, hi: Bound, extent: Option<Linear>) -> (Bound, Bound) {
    let lo = match lo {
        Bound::Linear(l) if l.terms.is_empty() && l.constant < 0 => {
            Bound::Linear(Linear::constant(0))
        }
        other => other,
    };
    let last = extent.map(|e| e.add(&Linear::constant(1), -1));
    let hi = match (hi, last) {
        (Bound::Linear(h), Some(last)) if h.terms == last.terms && h.constant > last.constant => {
            Bound::Linear(last)
        }
        (other, _) => other,
    };
    (lo, hi)
}
