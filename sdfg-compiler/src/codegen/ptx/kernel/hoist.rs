//! Which loads of a body run ahead of a tile's items (all of them issued
//! before any item runs), and which of those neighbouring rows share; the
//! index-shape helpers both need.

use super::regs::Reg;
use super::KernelEmitter;
use crate::ir::bounds::{is_prechecked, split_constant, LoopScope};
use crate::ir::{BinOp, ContainerId, Expr, ExprKind, Map, Sdfg, Stmt, Storage, VarRef};
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

/// Loads that every iteration performs first and unconditionally: the
/// unconditional, host-checked loads of top-level statements whose indices
/// read only map parameters, symbols and literals, of containers not written
/// earlier in the body. Issuing them for all items of a tile before any item
/// runs keeps several loads in flight per thread (map iterations are
/// independent, so reordering across items is allowed).
pub(super) fn hoistable_loads<'b>(sdfg: &Sdfg, map: &'b Map) -> Vec<&'b Expr> {
    let stmts: &'b [Stmt] = &map.body.stmts;
    let scope = &LoopScope::for_map(map);
    let mut out = Vec::new();
    let mut written: HashSet<ContainerId> = HashSet::new();
    fn collect<'b>(
        sdfg: &Sdfg,
        e: &'b Expr,
        written: &HashSet<ContainerId>,
        scope: &LoopScope,
        out: &mut Vec<&'b Expr>,
    ) {
        match &e.kind {
            ExprKind::Load { container, index } => {
                let c = &sdfg.containers[*container];
                if c.storage == Storage::Gpu
                    && !index.is_empty()
                    && !written.contains(container)
                    && index.iter().all(index_reads_only_params)
                    && is_prechecked(index, false, scope)
                {
                    out.push(e);
                }
            }
            ExprKind::Unary { arg, .. } | ExprKind::Cast { arg } => {
                collect(sdfg, arg, written, scope, out)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                collect(sdfg, lhs, written, scope, out);
                if !matches!(op, BinOp::And | BinOp::Or) {
                    collect(sdfg, rhs, written, scope, out);
                }
            }
            // Only the condition of a select runs unconditionally.
            ExprKind::Select { cond, .. } => collect(sdfg, cond, written, scope, out),
            ExprKind::Call { args, .. } => args
                .iter()
                .for_each(|a| collect(sdfg, a, written, scope, out)),
            ExprKind::Lit(_) | ExprKind::Var(_) => {}
        }
    }
    for s in stmts {
        match s {
            Stmt::Let { init, .. } | Stmt::AssignLocal { value: init, .. } => {
                collect(sdfg, init, &written, scope, &mut out)
            }
            Stmt::Store {
                container,
                index,
                value,
                ..
            } => {
                index
                    .iter()
                    .for_each(|e| collect(sdfg, e, &written, scope, &mut out));
                collect(sdfg, value, &written, scope, &mut out);
                written.insert(*container);
            }
            Stmt::If { cond, .. } => {
                collect(sdfg, cond, &written, scope, &mut out);
                s.walk(&mut |x| {
                    if let Stmt::Store { container, .. } = x {
                        written.insert(*container);
                    }
                });
            }
            Stmt::For { .. } | Stmt::While { .. } | Stmt::ThreadMap(_) => s.walk(&mut |x| {
                if let Stmt::Store { container, .. } = x {
                    written.insert(*container);
                }
            }),
            Stmt::Break { .. } | Stmt::Continue { .. } | Stmt::Barrier(_) => {}
        }
    }
    out
}

impl<'a> KernelEmitter<'a> {
    /// Issues the leading loads `hoist` of one item, each unless a load of
    /// the same key (`key`: what rows share, see [`SharedLoad`]) is in
    /// `issued` already; returns the item's registers by load expression
    /// (what `KernelEmitter::hoisted` takes).
    pub(super) fn issue_leading_loads(
        &mut self,
        hoist: &[&'a Expr],
        key: impl Fn(&Expr) -> Option<SharedLoad>,
        issued: &mut HashMap<SharedLoad, Reg>,
    ) -> HashMap<*const Expr, Reg> {
        let mut loaded = HashMap::new();
        for &e in hoist {
            let key = key(e);
            let reg = match key.as_ref().and_then(|key| issued.get(key)) {
                Some(&reg) => reg,
                None => {
                    let reg = self.expr(e);
                    if let Some(key) = key {
                        issued.insert(key, reg);
                    }
                    reg
                }
            };
            loaded.insert(e as *const Expr, reg);
        }
        loaded
    }
}

/// What identifies a hoisted load across the rows of a tile (step 1 in y):
/// its container, the position of the index component that is the row
/// parameter plus a constant (if any), the row that component lands on
/// (item row + constant), the x item, and the shape of the other components
/// (which read no row parameter, so they are equal for equal shapes).
#[derive(Clone, PartialEq, Eq, Hash)]
pub(super) struct SharedLoad {
    container: ContainerId,
    row_component: Option<usize>,
    row: i64,
    x_item: u32,
    rest: String,
}

/// The [`SharedLoad`] of hoisted load `e` for item row `r`, x item `k`, or
/// `None` when its index uses the row parameter `dy` in another way.
pub(super) fn shared_load(e: &Expr, dy: usize, r: u32, k: u32) -> Option<SharedLoad> {
    let ExprKind::Load { container, index } = &e.kind else {
        return None;
    };
    let mut row_component = None;
    let mut row = r as i64;
    let mut rest = String::new();
    for (q, component) in index.iter().enumerate() {
        let (core, c) = split_constant(component);
        if is_param_var(core, dy) && row_component.is_none() {
            row_component = Some(q);
            row = (r as i64).checked_add(c)?;
            rest.push_str("_,");
        } else if reads_param(component, dy) {
            return None;
        } else {
            write_shape(component, &mut rest);
            rest.push(',');
        }
    }
    Some(SharedLoad {
        container: *container,
        row_component,
        // A load that reads no row parameter is the same for every row.
        row: if row_component.is_some() { row } else { 0 },
        x_item: k,
        rest,
    })
}

/// Whether `e` reads map parameter `d`.
fn reads_param(e: &Expr, d: usize) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if matches!(x.kind, ExprKind::Var(VarRef::Param(p)) if p == d) {
            found = true;
        }
    });
    found
}

/// The structure of `e` (operators, types, values; no spans) as text:
/// equal text, equal value for equal parameters and symbols.
pub(super) fn write_shape(e: &Expr, out: &mut String) {
    let _ = write!(out, "{}:", e.ty);
    let all = |out: &mut String, args: &[&Expr]| {
        out.push('(');
        for a in args {
            write_shape(a, out);
            out.push(' ');
        }
        out.push(')');
    };
    match &e.kind {
        ExprKind::Lit(v) => {
            let _ = write!(out, "{:x}", v.to_bits());
        }
        ExprKind::Var(v) => {
            let _ = write!(out, "{v:?}");
        }
        ExprKind::Load { container, index } => {
            let _ = write!(out, "load{container}");
            all(out, &index.iter().collect::<Vec<_>>());
        }
        ExprKind::Unary { op, arg } => {
            let _ = write!(out, "{op:?}");
            all(out, &[arg]);
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let _ = write!(out, "{op:?}");
            all(out, &[lhs, rhs]);
        }
        ExprKind::Cast { arg } => {
            out.push_str("as");
            all(out, &[arg]);
        }
        ExprKind::Select { cond, then, else_ } => {
            out.push_str("select");
            all(out, &[cond, then, else_]);
        }
        ExprKind::Call { func, args } => {
            let _ = write!(out, "{func:?}");
            all(out, &args.iter().collect::<Vec<_>>());
        }
    }
}

/// An index that reads only map parameters, symbols and literals.
fn index_reads_only_params(e: &Expr) -> bool {
    let mut ok = true;
    e.walk(&mut |x| match &x.kind {
        ExprKind::Var(VarRef::Local(_)) | ExprKind::Load { .. } => ok = false,
        _ => {}
    });
    ok
}

/// `e` is exactly a map parameter (possibly widened by casts): the access
/// `C[e]` walks the container with stride one.
pub(super) fn is_param_itself(e: &Expr) -> bool {
    is_param_var(e, 0)
}

/// `e` is exactly map parameter `d` (possibly widened by casts).
fn is_param_var(e: &Expr, d: usize) -> bool {
    match &e.kind {
        ExprKind::Var(VarRef::Param(p)) => *p == d,
        ExprKind::Cast { arg } => {
            crate::ir::bounds::is_widening(arg.ty, e.ty) && is_param_var(arg, d)
        }
        _ => false,
    }
}
