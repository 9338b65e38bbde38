//! Write-conflict resolution and races inside one state:
//! - a reduction (WCR) needs a numeric container;
//! - a statement may not read the container it reduces into;
//! - two statements writing overlapping parts of one container, with no
//!   statement reading it in between and neither reading it, would race in
//!   DaCe (their order is not defined by the dataflow). A reduction counts
//!   as a read of the value it updates.

use super::*;
use crate::diag::Diagnostic;
use crate::ir::linear::{Affine, AffineVar};

pub(super) fn check(sdfg: &Sdfg, diags: &mut Diagnostics) {
    for state in &sdfg.states {
        for stmt in &state.stmts {
            reductions(sdfg, stmt, diags);
        }
        races(sdfg, state, diags);
    }
}

fn reductions(sdfg: &Sdfg, stmt: &Statement, diags: &mut Diagnostics) {
    let mut reported = Vec::new();
    for m in &stmt.memlets {
        let Access::Reduce(op) = m.access else {
            continue;
        };
        let c = &sdfg.containers[m.container];
        if reported.contains(&m.container) {
            continue;
        }
        if c.elem.is_complex() && op != WcrOp::Sum {
            reported.push(m.container);
            diags.push(
                Diagnostic::error(
                    m.span,
                    format!(
                        "the {} reduction needs ordered or real numbers, `{}` holds `{}`",
                        op.name(),
                        c.name.text,
                        c.elem
                    ),
                )
                .help("complex containers reduce with `+=` only; compute the product or the extremum in a local"),
            );
            continue;
        }
        if !c.elem.is_arithmetic() {
            reported.push(m.container);
            let form = match op {
                WcrOp::Sum => "+=",
                WcrOp::Product => "*=",
                WcrOp::Min => ".min()",
                WcrOp::Max => ".max()",
            };
            diags.push(
                Diagnostic::error(
                    m.span,
                    format!("the {} reduction (`{form}`) needs a numeric container, `{}` holds `{}`", op.name(), c.name.text, c.elem),
                )
                .help("store a plain value (`X = true;`), or reduce into an integer container (e.g. `u32`)"),
            );
            continue;
        }
        if let Some(read) = stmt
            .memlets
            .iter()
            .find(|r| r.container == m.container && r.access == Access::Read)
        {
            reported.push(m.container);
            diags.push(
                Diagnostic::error(
                    read.span,
                    format!("`{}` is read by `{}`, which also reduces into it", c.name.text, stmt.label()),
                )
                .help("the reduced value is not known while the statement runs: accumulate into a local, or split the read and the reduction into two statements")
                .note(format!("`{}` is reduced ({}) here", c.name.text, op.name())),
            );
        }
    }
}

fn races(sdfg: &Sdfg, state: &State, diags: &mut Diagnostics) {
    for (c, container) in sdfg.containers.iter().enumerate() {
        // The statements touching `c`, in order. A reduction reads the value
        // it updates, so initializing a container and then reducing into it
        // (`S = 0.0;` then `S += x;`) is an ordered pair, not a race.
        let reads = |s: &Statement| {
            s.memlets
                .iter()
                .any(|m| m.container == c && matches!(m.access, Access::Read | Access::Reduce(_)))
        };
        let writes: Vec<(StmtId, Vec<&Memlet>)> = state
            .stmts
            .iter()
            .enumerate()
            .map(|(i, s)| {
                (
                    i,
                    s.memlets
                        .iter()
                        .filter(|m| m.container == c && m.access.is_write())
                        .collect(),
                )
            })
            .collect();
        let mut last_blind_writer: Option<StmtId> = None;
        for (j, stmt) in state.stmts.iter().enumerate() {
            let w = &writes[j].1;
            if reads(stmt) {
                last_blind_writer = None;
                if w.is_empty() {
                    continue;
                }
            }
            if w.is_empty() {
                continue;
            }
            if reads(stmt) {
                continue;
            }
            if let Some(i) = last_blind_writer {
                let earlier = &writes[i].1;
                let both_same_reduction = earlier
                    .iter()
                    .chain(w.iter())
                    .all(|m| m.access == w[0].access)
                    && matches!(w[0].access, Access::Reduce(_));
                let (pa, pb) = (params_of(&state.stmts[i]), params_of(stmt));
                if !both_same_reduction
                    && earlier
                        .iter()
                        .any(|a| w.iter().any(|b| overlap((a, pa), (b, pb))))
                {
                    let first = state.stmts[i].label();
                    diags.push(
                        Diagnostic::error(
                            w[0].span,
                            format!("`{}` is written by `{first}` and by `{}` in state `{}`", container.name.text, stmt.label(), state.name.text),
                        )
                        .help("move one to another state (they would race in DaCe) or write disjoint subsets")
                        .note(format!("`{first}` writes `{}` earlier in the state and nothing reads it in between", container.name.text)),
                    );
                    continue;
                }
            }
            last_blind_writer = Some(j);
        }
    }
}

/// Whether two subsets may overlap: false only when some dimension is
/// provably disjoint. Indices of a map are widened to the interval their
/// parameter covers (`A[i + 1]` with `i in 0..N` covers `1..N + 1`); what
/// remains is compared when the bounds differ by a constant.
fn overlap(a: (&Memlet, &[MapParam]), b: (&Memlet, &[MapParam])) -> bool {
    !a.0.subset
        .iter()
        .zip(&b.0.subset)
        .any(|(x, y)| disjoint(interval(x, a.1), interval(y, b.1)))
}

/// The map parameters of a statement (none for tasklets and copies).
fn params_of(stmt: &Statement) -> &[MapParam] {
    match &stmt.kind {
        StatementKind::Map(m) => &m.params,
        _ => &[],
    }
}

/// `[lo, hi)` of a subset dimension over symbols only.
fn interval(d: &SubsetDim, params: &[MapParam]) -> Option<(Affine, Affine)> {
    let (lo, hi) = match d {
        SubsetDim::Index(i) => {
            let lo = Affine::of(i)?;
            let hi = lo.clone().offset(1)?;
            (lo, hi)
        }
        SubsetDim::Range { start, end } => (Affine::of(start)?, Affine::of(end)?),
    };
    if !lo.has_params() {
        return Some((lo, hi));
    }
    // One parameter with coefficient 1: `p + rest` covers `start + rest .. end + rest`.
    let SubsetDim::Index(_) = d else { return None };
    let mut param_terms = lo.terms.iter().filter_map(|(v, &k)| match v {
        AffineVar::Param(p) => Some((*p, k)),
        AffineVar::Symbol(_) => None,
    });
    let (p, coef) = param_terms.next()?;
    if coef != 1 || param_terms.next().is_some() {
        return None;
    }
    let param = params.get(p)?;
    let mut rest = lo;
    rest.terms.remove(&AffineVar::Param(p));
    let start = Affine::of(&param.start)?;
    let end = Affine::of(&param.end)?;
    if start.has_params() || end.has_params() {
        return None;
    }
    Some((start.add(&rest, 1)?, end.add(&rest, 1)?))
}

fn disjoint(x: Option<(Affine, Affine)>, y: Option<(Affine, Affine)>) -> bool {
    let (Some((lo1, hi1)), Some((lo2, hi2))) = (x, y) else {
        return false;
    };
    // [lo1, hi1) and [lo2, hi2) are disjoint when hi1 <= lo2 or hi2 <= lo1.
    let at_or_below = |hi: &Affine, lo: &Affine| {
        lo.clone()
            .add(hi, -1)
            .and_then(|d| d.as_constant())
            .is_some_and(|d| d >= 0)
    };
    at_or_below(&hi1, &lo2) || at_or_below(&hi2, &lo1)
}
