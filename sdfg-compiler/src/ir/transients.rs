//! Transients are zero at the start of every call: a call never sees what
//! an earlier call left in them, and a reduction into one (`T[0] += x`)
//! sums from zero. Clearing costs a pass over the memory, so it is skipped
//! for a transient the first statement touching it overwrites whole
//! before anything reads it; `first_write_covers` decides that,
//! conservatively (when it cannot tell, the transient is cleared).

use super::bounds::is_widening;
use super::linear::{constant_value, Affine};
use super::{
    Access, ContainerId, Expr, ExprKind, Map, Sdfg, StatementKind, StmtId, SubsetDim, VarRef,
};

/// Whether every call must clear transient `c` before its first state.
pub fn needs_zero_fill(sdfg: &Sdfg, c: ContainerId) -> bool {
    first_user(sdfg, c).is_none_or(|k| !first_write_covers(sdfg, c, k))
}

/// The first statement of the start state that touches `c` (statements
/// touching one container run in textual order).
pub fn first_user(sdfg: &Sdfg, c: ContainerId) -> Option<StmtId> {
    let state = sdfg.states.get(sdfg.start)?;
    state
        .stmts
        .iter()
        .position(|st| st.memlets.iter().any(|m| m.container == c))
}

/// Statement `k` of the start state writes every element of `c` with plain
/// stores and reads none of it first: it does not read `c` at all, and
/// - a copy into `c` covers the whole container, or
/// - a map stores `c[p_0, .., p_n]` unconditionally, each `p_d` one of the
///   map's parameters (all of them, each once) over `0..extent_d` step 1, or
/// - a tasklet stores the scalar `c` unconditionally.
fn first_write_covers(sdfg: &Sdfg, c: ContainerId, k: StmtId) -> bool {
    let st = &sdfg.states[sdfg.start].stmts[k];
    let mut writes = st.memlets.iter().filter(|m| m.container == c);
    if st
        .memlets
        .iter()
        .any(|m| m.container == c && m.access != Access::Write)
    {
        return false;
    }
    let container = &sdfg.containers[c];
    match &st.kind {
        StatementKind::Copy(copy) => {
            copy.dst == c
                && copy.src != c
                && st.memlets.get(1).is_some_and(|m| {
                    m.subset
                        .iter()
                        .zip(&container.shape)
                        .all(|(d, extent)| match d {
                            SubsetDim::Range { start, end } => {
                                constant_value(start) == Some(0) && same_form(end, extent)
                            }
                            SubsetDim::Index(_) => false,
                        })
                })
        }
        StatementKind::Map(map) => writes.any(|m| {
            !m.dynamic
                && !container.is_scalar()
                && m.subset.len() == map.params.len()
                && covers_with_params(map, &m.subset, &container.shape)
        }),
        StatementKind::Tasklet(_) => container.is_scalar() && writes.any(|m| !m.dynamic),
        // A call (only in `nested_form`) is not looked into.
        StatementKind::Wait(_) | StatementKind::Nested(_) => false,
    }
}

/// Each dimension indexed by a distinct parameter that runs over exactly
/// `0..extent` with step 1 (so the map's iterations are the elements).
fn covers_with_params(map: &Map, subset: &[SubsetDim], shape: &[Expr]) -> bool {
    let mut used = Vec::new();
    subset.iter().zip(shape).all(|(d, extent)| {
        let SubsetDim::Index(index) = d else {
            return false;
        };
        let Some(p) = param_of(index) else {
            return false;
        };
        let param = &map.params[p];
        let ok = !used.contains(&p)
            && constant_value(&param.start) == Some(0)
            && same_form(&param.end, extent)
            && param
                .step
                .as_ref()
                .is_none_or(|s| constant_value(s) == Some(1));
        used.push(p);
        ok
    })
}

/// `e` is a map parameter, possibly widened by casts.
fn param_of(e: &Expr) -> Option<usize> {
    match &e.kind {
        ExprKind::Var(VarRef::Param(p)) => Some(*p),
        ExprKind::Cast { arg } if is_widening(arg.ty, e.ty) => param_of(arg),
        _ => None,
    }
}

fn same_form(a: &Expr, b: &Expr) -> bool {
    match (Affine::of(a), Affine::of(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}
