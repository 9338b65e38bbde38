//! Symbolic sizes as DaCe reads them: integer expressions over the symbols
//! as linear forms (`crate::ir::linear`, so `end - 1` and `end - start`
//! print simplified), and the ranges a map's memlets cover: the
//! per-dimension hull of the inner subsets over the map's parameter ranges,
//! cut to the container where it provably sticks out.

use super::data::range_json;
use super::Cx;
use crate::export::print::BodyNames;
use crate::ir::linear::{Leaf, Linear};
use crate::ir::{BinOp, Expr, ExprKind, MapParam, Memlet, SubsetDim, UnOp, VarRef};
use serde_json::Value;

/// A linear form over printed atoms: a symbol's name, or a subexpression
/// kept as the user wrote it, in parentheses. Enough to compute `min`/`max`
/// of `i - 1` and `i + 1` without a CAS.
type Form = Linear<String>;

impl Cx<'_> {
    /// `end - 1` for an exclusive end: DaCe's inclusive one, simplified.
    pub(super) fn inclusive_end(&self, end: &Expr) -> String {
        self.inclusive_end_in(end, &BodyNames::none())
    }

    /// [`Self::inclusive_end`] of an end that may read the map's earlier
    /// parameters (a dependent range, `ir::ranges`), named by `names`.
    pub(super) fn inclusive_end_in(&self, end: &Expr, names: &BodyNames) -> String {
        let form = Linear::from_expr(end, &mut |x: &Expr| match &x.kind {
            ExprKind::Var(VarRef::Param(_)) => Leaf::Form(Linear::var(self.py_in(x, names))),
            _ => self.leaf(x),
        });
        match form.and_then(|f| f.offset(-1)) {
            Some(last) => text(&last),
            None => format!("({}) - 1", self.py_in(end, names)),
        }
    }

    /// The number of values map parameter `d` takes at most: its extent,
    /// or for a dependent range the extent of its box over the earlier
    /// parameters (what DaCe's memlet volumes count).
    pub(super) fn param_extent(&self, params: &[MapParam], d: usize) -> String {
        let Some(p) = params.get(d) else {
            return "1".to_string();
        };
        if !p.is_dependent() {
            return self.extent(&p.start, &p.end);
        }
        let lo = interval(&p.start, params, self).map(|(lo, _)| lo);
        let hi = interval(&p.end, params, self).map(|(_, hi)| hi);
        match (lo, hi) {
            (Some(lo), Some(hi)) => match hi.clone().add(&lo, -1) {
                Some(extent) => text(&extent),
                None => format!("({}) - ({})", text(&hi), text(&lo)),
            },
            // Not bounded by the forms: the volume of the container's box.
            _ => format!("({}) - ({})", self.py(&p.end), self.py(&p.start)),
        }
    }

    /// `end - start`, simplified.
    pub(super) fn extent(&self, start: &Expr, end: &Expr) -> String {
        match self.form(end).add(&self.form(start), -1) {
            Some(extent) => text(&extent),
            None => format!("({}) - ({})", self.py(end), self.py(start)),
        }
    }

    /// A symbol-only expression as a form; what is not linear becomes an
    /// atom (the whole expression, should a coefficient overflow).
    fn form(&self, e: &Expr) -> Form {
        Linear::from_expr(e, &mut |x: &Expr| self.leaf(x)).unwrap_or_else(|| self.atom(e))
    }

    /// Folded: literals, `+`, `-`, negation, integer casts that keep every
    /// value and products with a literal factor. Everything else (quotients,
    /// products of two expressions, casts that wrap) stays an atom, printed
    /// as written.
    fn leaf(&self, x: &Expr) -> Leaf<String> {
        let literal = |e: &Expr| matches!(&e.kind, ExprKind::Lit(v) if v.as_i128().is_some());
        match &x.kind {
            ExprKind::Var(VarRef::Symbol(_)) => Leaf::Form(Linear::var(self.py(x))),
            ExprKind::Lit(_) if literal(x) => Leaf::Descend,
            ExprKind::Binary {
                op: BinOp::Add | BinOp::Sub,
                ..
            }
            | ExprKind::Unary { op: UnOp::Neg, .. } => Leaf::Descend,
            ExprKind::Binary {
                op: BinOp::Mul,
                lhs,
                rhs,
            } if literal(lhs) || literal(rhs) => Leaf::Descend,
            ExprKind::Cast { arg } if x.ty.holds_every_value_of(arg.ty) => Leaf::Descend,
            _ => Leaf::Form(self.atom(x)),
        }
    }

    fn atom(&self, e: &Expr) -> Form {
        Linear::var(format!("({})", self.py(e)))
    }
}

/// DaCe's spelling of a form: `2*N - M + 1`.
fn text(form: &Form) -> String {
    form.render(|atom| atom.clone(), "*")
}

/// A symbolic bound: a linear form, or a `min`/`max` text DaCe simplifies.
#[derive(Clone, Debug)]
enum Bound {
    Linear(Form),
    Text(String),
}

impl Bound {
    fn text(&self) -> String {
        match self {
            Bound::Linear(l) => text(l),
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

/// The inclusive `(lo, hi)` of an index expression over the map's ranges;
/// None when it reads anything but parameters, symbols and literals, or is
/// not linear with literal coefficients.
fn interval(e: &Expr, params: &[MapParam], cx: &Cx) -> Option<(Form, Form)> {
    match &e.kind {
        ExprKind::Lit(v) => v
            .as_i128()
            .map(|c| (Linear::constant(c), Linear::constant(c))),
        ExprKind::Var(VarRef::Symbol(_)) => {
            let l = cx.form(e);
            Some((l.clone(), l))
        }
        // A dependent range (`ir::ranges`): the box over the earlier ones.
        ExprKind::Var(VarRef::Param(p)) if params.get(*p)?.is_dependent() => {
            let p = params.get(*p)?;
            let (lo, _) = interval(&p.start, params, cx)?;
            let (_, hi) = interval(&p.end, params, cx)?;
            Some((lo, hi.offset(-1)?))
        }
        ExprKind::Var(VarRef::Param(p)) => {
            let p = params.get(*p)?;
            Some((cx.form(&p.start), cx.form(&p.end).offset(-1)?))
        }
        ExprKind::Binary {
            op: op @ (BinOp::Add | BinOp::Sub),
            lhs,
            rhs,
        } => {
            let (a_lo, a_hi) = interval(lhs, params, cx)?;
            let (b_lo, b_hi) = interval(rhs, params, cx)?;
            Some(if *op == BinOp::Add {
                (a_lo.add(&b_lo, 1)?, a_hi.add(&b_hi, 1)?)
            } else {
                (a_lo.add(&b_hi, -1)?, a_hi.add(&b_lo, -1)?)
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
                (lo.scale(k)?, hi.scale(k)?)
            } else {
                (hi.scale(k)?, lo.scale(k)?)
            })
        }
        ExprKind::Unary { op: UnOp::Neg, arg } => {
            let (lo, hi) = interval(arg, params, cx)?;
            Some((hi.scale(-1)?, lo.scale(-1)?))
        }
        // A cast that wraps has no interval of this kind: the hull is then
        // the whole container.
        ExprKind::Cast { arg } if e.ty.holds_every_value_of(arg.ty) => interval(arg, params, cx),
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
                    (lo, hi.offset(-1)?)
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
            .map(|e| cx.form(e));
        let (lo, hi) = clamp_to_bounds(lo, hi, extent);
        out.push(range_json(&lo.text(), &hi.text()));
    }
    Some(out)
}

/// The hull cut to `0..extent` where it provably sticks out (a stencil that
/// reads `A[j - 2]` from `j = 1`). Such an access fails our bounds check
/// before anything runs, so no run touches the cut part; DaCe's validation
/// rejects a memlet that provably leaves its container.
fn clamp_to_bounds(lo: Bound, hi: Bound, extent: Option<Form>) -> (Bound, Bound) {
    let lo = match lo {
        Bound::Linear(l) if l.terms.is_empty() && l.constant < 0 => {
            Bound::Linear(Linear::constant(0))
        }
        other => other,
    };
    let last = extent.and_then(|e| e.offset(-1));
    let hi = match (hi, last) {
        (Bound::Linear(h), Some(last)) if h.terms == last.terms && h.constant > last.constant => {
            Bound::Linear(last)
        }
        (other, _) => other,
    };
    (lo, hi)
}
