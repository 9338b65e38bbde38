//! Lane-blocked execution of a parallel map: a block of consecutive points of
//! the innermost dimension run side by side, and a `for` loop whose bounds
//! read only symbols runs once for all of them, its body a loop over the
//! lanes. A map written for the GPU, one thread per point walking a loop
//! (`acc += X[p + k * P]` over `k`: neighbouring threads read neighbouring
//! elements), then reads neighbouring elements in its innermost loop on the
//! CPU too, which the compiler vectorizes, instead of `2 * K` strided
//! streams per point; `C[i, j] += A[i, k] * B[k, j]` over `j` becomes the
//! cache-friendly i-k-j loop order.
//!
//! Each point keeps its own statements in order; only the points of one
//! block interleave. That is sound wherever points may run in any order:
//! when the access plan has no atomic cells (`codegen::cpu::access`), no two
//! points touch one element that one of them writes, and partials are
//! accumulated lane by lane in a fixed order (reproducible, like the
//! chunks). The `let` locals of the body become arrays with one element
//! per lane; `for` variables stay scalars.

use super::access::{AccessPlan, Mode};
use super::body::BodyEmitter;
use super::tokens::{literal, rust_type, zero_of};
use crate::codegen::names;
use crate::ir::bounds::{for_each_access, reads_only_symbols, LoopScope};
use crate::ir::{range_end, BinOp, Expr, ExprKind, LocalId, Map, Stmt, TaskletBody, VarRef};
use proc_macro2::TokenStream;
use quote::quote;

/// The lane arrays of one block take at most this many bytes (an L1 data
/// cache's worth: they are the block's working set besides the streams).
const LANE_BYTES: usize = 32 << 10;

/// Points of the innermost dimension per block: as many as fit the lane
/// arrays of the body's `let` locals in `LANE_BYTES`, a power of two from
/// 64 to 2048. Long blocks matter: each step of a shared loop reads one
/// run of neighbouring elements per access, and the longer the run, the
/// better the hardware prefetches it.
pub(crate) fn lanes_for(body: &TaskletBody, let_locals: &[bool]) -> usize {
    let bytes: usize = body
        .locals
        .iter()
        .zip(let_locals)
        .filter(|(_, is_let)| **is_let)
        .map(|(l, _)| l.ty.size_bytes())
        .sum();
    let fit = LANE_BYTES / bytes.max(1);
    let mut lanes = 64;
    while lanes * 2 <= fit.min(2048) {
        lanes *= 2;
    }
    lanes
}

/// Whether `m` runs lane-blocked: allowed by `plan` (no atomic cells) and
/// worth it (a top-level `for` loop with symbol bounds in which an access
/// moves by one element per innermost point and strides with the loop).
pub(crate) fn worth_lanes(m: &Map, plan: &AccessPlan) -> bool {
    // A dependent range skips positions past its end one by one
    // (`MapRanges::param_value`).
    if plan.has(Mode::Cells) || m.has_dependent_ranges() {
        return false;
    }
    let Some(inner) = m.params.len().checked_sub(1) else {
        return false;
    };
    m.body.stmts.iter().any(|s| match s {
        Stmt::For { var, body, .. } if shared_loop(s) => {
            let mut strided = false;
            for_each_access(body, &mut |site| {
                strided |= contiguous_across_points(site.index, inner, *var);
            });
            strided
        }
        _ => false,
    })
}

/// A `for` loop every lane runs alike: its bounds read only symbols.
fn shared_loop(s: &Stmt) -> bool {
    match s {
        Stmt::For {
            start, end, step, ..
        } => {
            reads_only_symbols(start)
                && reads_only_symbols(end)
                && step.iter().all(reads_only_symbols)
        }
        _ => false,
    }
}

/// The last index moves by one with parameter `p` (neighbouring points,
/// neighbouring elements), and the loop variable `k` strides: it appears in
/// an earlier index, or in the last one other than as a plain summand.
fn contiguous_across_points(index: &[Expr], p: usize, k: LocalId) -> bool {
    let Some((last, earlier)) = index.split_last() else {
        return false;
    };
    let param = |e: &Expr| matches!(e.kind, ExprKind::Var(VarRef::Param(q)) if q == p);
    let var = |e: &Expr| matches!(e.kind, ExprKind::Var(VarRef::Local(l)) if l == k);
    let unit_p = plain_summand(last, &param);
    let k_strides = earlier.iter().any(|e| mentions(e, &var))
        || (mentions(last, &var) && !plain_summand(last, &var));
    unit_p && k_strides
}

/// `e` is a sum in which `is_var` is one summand with a plus sign and no
/// other summand mentions it.
fn plain_summand(e: &Expr, is_var: &dyn Fn(&Expr) -> bool) -> bool {
    if is_var(e) {
        return true;
    }
    match &e.kind {
        ExprKind::Binary {
            op: BinOp::Add,
            lhs,
            rhs,
        } => {
            (plain_summand(lhs, is_var) && !mentions(rhs, is_var))
                || (plain_summand(rhs, is_var) && !mentions(lhs, is_var))
        }
        ExprKind::Binary {
            op: BinOp::Sub,
            lhs,
            rhs,
        } => plain_summand(lhs, is_var) && !mentions(rhs, is_var),
        ExprKind::Cast { arg } => plain_summand(arg, is_var),
        _ => false,
    }
}

fn mentions(e: &Expr, is_var: &dyn Fn(&Expr) -> bool) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= is_var(x));
    found
}

impl BodyEmitter<'_> {
    /// Points per block of this body ([`lanes_for`]).
    pub fn lanes(&self) -> usize {
        lanes_for(self.body, &self.let_locals)
    }

    /// The lane arrays of the body's `let` locals, declared per block.
    pub fn lane_locals(&self) -> TokenStream {
        let lanes = self.lanes();
        self.body
            .locals
            .iter()
            .enumerate()
            .filter(|(l, _)| self.let_locals[*l])
            .map(|(l, local)| {
                let name = names::local(l);
                let ty = rust_type(local.ty);
                let zero = literal(zero_of(local.ty));
                quote!(#[allow(unused_mut)] let mut #name: [#ty; #lanes] = [#zero; #lanes];)
            })
            .collect()
    }

    /// `stmts` lane-blocked: shared `for` loops run once, everything else in
    /// loops over the block's `__nl` lanes, each lane first running
    /// `prelude` (its innermost position and parameter). Needs an emitter
    /// built with `lanes` set.
    pub fn lane_block(&self, stmts: &[Stmt], prelude: &TokenStream) -> TokenStream {
        let mut out = TokenStream::new();
        let mut group = TokenStream::new();
        let flush = |group: &mut TokenStream, out: &mut TokenStream| {
            if !group.is_empty() {
                let g = std::mem::take(group);
                out.extend(quote!(for __lane in 0..__nl { #prelude #g }));
            }
        };
        for s in stmts {
            match s {
                Stmt::For {
                    var,
                    start,
                    end,
                    inclusive,
                    step,
                    body,
                    ..
                } if shared_loop(s) => {
                    flush(&mut group, &mut out);
                    let inner = self.lane_block(body, prelude);
                    let end = range_end(end, *inclusive);
                    out.extend(self.for_loop(*var, start, end, step.as_ref(), inner));
                }
                _ => group.extend(self.stmt(s, &LoopScope::default())),
            }
        }
        flush(&mut group, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{ContainerId, StatementKind};

    fn worth(src: &str) -> bool {
        let sdfg = crate::frontend_str(src).expect("valid");
        let StatementKind::Map(m) = &sdfg.states[0].stmts[0].kind else {
            panic!("a map")
        };
        let elem = |c: ContainerId| sdfg.containers[c].elem;
        worth_lanes(m, &AccessPlan::of(&m.body, m.params.len(), &elem))
    }

    #[test]
    fn strided_loops_over_neighbouring_points_run_in_lanes() {
        assert!(worth(
            "sdfg S { symbol P: i64; symbol K: i64; gpu X: f32[P * K]; gpu S: f32; \
             state a { map m[p in 0..P] on gpu { let mut acc = 0.0f32; \
             for k in 0..K { acc += X[p + k * P]; } S += acc; } } }"
        ));
        assert!(worth(
            "sdfg S { symbol N: i64; gpu A: f64[N, N]; gpu B: f64[N, N]; gpu C: f64[N, N]; \
             state a { map m[i in 0..N, j in 0..N] on gpu { let mut s = 0.0; \
             for k in 0..N { s += A[i, k] * B[k, j]; } C[i, j] = s; } } }"
        ));
        // A row per point: contiguous along the loop already.
        assert!(!worth(
            "sdfg S { symbol N: i64; gpu X: f32[N, N]; gpu R: f32[N]; \
             state a { map m[i in 0..N] on gpu { let mut s = 0.0f32; \
             for k in 0..N { s += X[i, k]; } R[i] = s; } } }"
        ));
        // Shared elements (atomics): points must not interleave.
        assert!(!worth(
            "sdfg S { symbol P: i64; symbol K: i64; gpu X: f32[P * K]; gpu H: f32[16]; \
             state a { map m[p in 0..P] on gpu { \
             for k in 0..K { H[(p % 16)] += X[p + k * P]; } } } }"
        ));
    }
}
