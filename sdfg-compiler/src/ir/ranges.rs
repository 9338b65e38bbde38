//! Map ranges that depend on an earlier parameter of their map: the
//! triangle `map m[i in 0..N, j in 0..i]`.
//!
//! A dependent range's start and end may read the parameters declared
//! before it, in the forms interval arithmetic follows exactly enough to
//! bound them: literals, symbols, earlier parameters, `-`, `+`, `-`, `*`
//! and widening integer casts ([`is_interval_bound`]). Its step reads only
//! symbols and literals.
//!
//! Every consumer works on the dimension's *box*: `start` at its smallest
//! and `end` at its largest over the earlier parameters' boxes (interval
//! arithmetic), so the host knows, before a statement runs, a count `C`
//! that bounds the iterations of the dimension for every outer point. An
//! iteration then runs `t` in `0..C` with the value `start(outer) + t * step`
//! and skips the body when that value reaches `end(outer)`. The bounds
//! prechecks see the dimension as the values `box start ..= box end - 1`,
//! a superset of every value it takes.

use super::bounds::is_widening;
use super::{BinOp, Expr, ExprKind, MapParam, UnOp, VarRef};

impl MapParam {
    /// Whether the range reads an earlier parameter of its map.
    pub fn is_dependent(&self) -> bool {
        reads_params(&self.start) || reads_params(&self.end)
    }
}

impl super::Map {
    /// Whether some dimension's range reads an earlier parameter.
    pub fn has_dependent_ranges(&self) -> bool {
        self.params.iter().any(MapParam::is_dependent)
    }
}

/// Whether `e` reads a map parameter.
pub fn reads_params(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x.kind, ExprKind::Var(VarRef::Param(_))));
    found
}

/// Whether interval arithmetic bounds `e` (see the module doc).
pub fn is_interval_bound(e: &Expr) -> bool {
    if !e.ty.is_integer() {
        return false;
    }
    match &e.kind {
        ExprKind::Lit(_) | ExprKind::Var(VarRef::Symbol(_) | VarRef::Param(_)) => true,
        ExprKind::Unary { op: UnOp::Neg, arg } => is_interval_bound(arg),
        ExprKind::Binary {
            op: BinOp::Add | BinOp::Sub | BinOp::Mul,
            lhs,
            rhs,
        } => is_interval_bound(lhs) && is_interval_bound(rhs),
        ExprKind::Cast { arg } => is_widening(arg.ty, e.ty) && is_interval_bound(arg),
        _ => false,
    }
}
