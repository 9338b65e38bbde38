//! Which stores are min/max reductions (GUIDE section 8).
//!
//! `A[k] = A[k].min(e)` (and `.max`) is a min (max) reduction only when `e`
//! does not read `A`: then the update is the same for every order of the
//! iterations, and the backends may combine it atomically. When `e` reads
//! `A` (Floyd-Warshall's `P[i, j] = P[i, j].min(P[i, k] + P[k, j])`), the
//! store is a plain read-modify-write, and the race test of
//! `crate::validate` judges it like any other.
//!
//! The spelling through a local, `let c = A[k]; A[k] = c.min(e);`, means the
//! same: when `c` is used for nothing else, nothing between the two touches
//! `A`, and `e` does not read `A`, the pair is folded into the reduction
//! `A[k] = A[k].min(e)`; otherwise it stays a read and a plain store, as the
//! direct spelling would.

use super::memlets::expr_key;
use super::typing::{mentions, source_text, strip_parens};
use crate::ir::*;

/// `X = X.min(e)` / `X = X.max(e)` with the same place on both sides and
/// an `e` that does not mention `container`: the reduction and `e`.
pub(super) fn min_max_form<'e>(
    left: &syn::Expr,
    right: &'e syn::Expr,
    container: &str,
) -> Option<(WcrOp, &'e syn::Expr)> {
    let syn::Expr::MethodCall(m) = strip_parens(right) else {
        return None;
    };
    let wcr = match m.method.to_string().as_str() {
        "min" => WcrOp::Min,
        "max" => WcrOp::Max,
        _ => return None,
    };
    if m.args.len() != 1 || m.turbofish.is_some() {
        return None;
    }
    let same = source_text(strip_parens(&m.receiver)) == source_text(strip_parens(left));
    let arg = &m.args[0];
    // A local, parameter or symbol never has a container's name, so any
    // path of that name is the container.
    (same && !mentions(arg, container)).then_some((wcr, arg))
}

/// Folds `let c = A[k]; ...; A[k] = c.min(e);` into the reduction
/// `A[k] = A[k].min(e)` wherever that is what the direct spelling would
/// be (module docs), in every block of `body`.
pub(super) fn fold_local_min_max(body: &mut TaskletBody) {
    let uses = local_uses(body);
    let locals = body.locals.clone();
    fold_block(&mut body.stmts, &locals, &uses);
}

fn fold_block(stmts: &mut Vec<Stmt>, locals: &[Local], uses: &[usize]) {
    for s in stmts.iter_mut() {
        match s {
            Stmt::If { then, else_, .. } => {
                fold_block(then, locals, uses);
                fold_block(else_, locals, uses);
            }
            Stmt::For { body, .. } => fold_block(body, locals, uses),
            _ => {}
        }
    }
    let mut j = 0;
    while j < stmts.len() {
        if let Some((let_at, wcr)) = foldable(stmts, j, locals, uses) {
            if let Stmt::Store {
                value, wcr: slot, ..
            } = &mut stmts[j]
            {
                if let ExprKind::Call { args, .. } = &mut value.kind {
                    if let Some(e) = args.pop() {
                        *value = e;
                        *slot = Some(wcr);
                        // The store moves up by one: `j` is now the statement after it.
                        stmts.remove(let_at);
                        continue;
                    }
                }
            }
        }
        j += 1;
    }
}

/// When `stmts[j]` is `A[k] = c.min(e)` (or `.max`) and the pair with its
/// `let c = A[k];` folds: the let's position and the reduction.
fn foldable(stmts: &[Stmt], j: usize, locals: &[Local], uses: &[usize]) -> Option<(usize, WcrOp)> {
    let Stmt::Store {
        container,
        index,
        value,
        wcr: None,
        ..
    } = &stmts[j]
    else {
        return None;
    };
    let ExprKind::Call { func, args } = &value.kind else {
        return None;
    };
    let wcr = match func {
        MathFn::Min => WcrOp::Min,
        MathFn::Max => WcrOp::Max,
        _ => return None,
    };
    let ExprKind::Var(VarRef::Local(c)) = args.first()?.kind else {
        return None;
    };
    if locals.get(c)?.mutable || uses.get(c) != Some(&1) || reads(args.get(1)?, *container) {
        return None;
    }
    let let_at = stmts[..j]
        .iter()
        .rposition(|s| matches!(s, Stmt::Let { local, .. } if *local == c))?;
    let Stmt::Let { init, .. } = &stmts[let_at] else {
        return None;
    };
    let ExprKind::Load {
        container: loaded,
        index: loaded_at,
    } = &init.kind
    else {
        return None;
    };
    let same_place = loaded == container
        && loaded_at.len() == index.len()
        && loaded_at
            .iter()
            .zip(index)
            .all(|(a, b)| expr_key(a) == expr_key(b))
        && index.iter().all(|i| !uses_mutable_local(i, locals));
    let untouched_between = stmts[let_at + 1..j].iter().all(|s| !touches(s, *container));
    (same_place && untouched_between).then_some((let_at, wcr))
}

/// How often each local is read anywhere in the body.
fn local_uses(body: &TaskletBody) -> Vec<usize> {
    let mut uses = vec![0; body.locals.len()];
    for s in &body.stmts {
        s.walk_exprs(&mut |e| {
            if let ExprKind::Var(VarRef::Local(l)) = e.kind {
                if let Some(n) = uses.get_mut(l) {
                    *n += 1;
                }
            }
        });
    }
    uses
}

fn reads(e: &Expr, container: ContainerId) -> bool {
    let mut found = false;
    e.walk(&mut |e| {
        if matches!(&e.kind, ExprKind::Load { container: c, .. } if *c == container) {
            found = true;
        }
    });
    found
}

fn uses_mutable_local(e: &Expr, locals: &[Local]) -> bool {
    let mut found = false;
    e.walk(&mut |e| {
        if let ExprKind::Var(VarRef::Local(l)) = e.kind {
            found |= locals.get(l).is_none_or(|l| l.mutable);
        }
    });
    found
}

/// Whether a statement (or one nested in it) reads or writes `container`.
fn touches(s: &Stmt, container: ContainerId) -> bool {
    let mut found = false;
    s.walk(&mut |s| {
        if matches!(s, Stmt::Store { container: c, .. } if *c == container) {
            found = true;
        }
    });
    s.walk_exprs(&mut |e| {
        if matches!(&e.kind, ExprKind::Load { container: c, .. } if *c == container) {
            found = true;
        }
    });
    found
}
