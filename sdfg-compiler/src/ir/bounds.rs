//! Which container accesses are bounds-checked before a statement runs, and
//! which are checked where they happen.
//!
//! An access is *prechecked* when it is unconditional and each of its index
//! expressions is affine in variables whose ranges are boxes known before the
//! statement starts (map parameters, and `for` variables whose bounds use only
//! symbols and literals), with every such variable appearing at most once per
//! index. For those the host computes the exact range of each index with
//! interval arithmetic before any work starts: a range outside the container
//! is an `Err` naming it, and the kernel needs no check. Every other access
//! (data-dependent, under an `if`, `&&`, `||`, after a `break` or `continue`
//! in its loop's body, or non-affine) is *guarded*:
//! checked where it runs; an out-of-bounds access is skipped (a load yields
//! zero), reported through the fault word, and the call returns an `Err`.
//!
//! The PTX backend, the Rust backend and the host glue all decide with
//! [`is_prechecked`], so a kernel omits exactly the checks the host made.

use super::{BinOp, Expr, ExprKind, LocalId, ScalarType, Stmt, UnOp, VarRef};

/// Loop variables (by local id) in scope at an access, with whether each
/// one's range is a box known before the statement runs.
#[derive(Clone, Debug, Default)]
pub struct LoopScope {
    boxed: Vec<LocalId>,
}

impl LoopScope {
    /// Enter `for var in start..end (step)`: the variable is boxed when its
    /// bounds and step read only symbols and literals.
    pub fn enter_loop(
        &self,
        var: LocalId,
        start: &Expr,
        end: &Expr,
        step: Option<&Expr>,
    ) -> LoopScope {
        let mut inner = self.clone();
        if [Some(start), Some(end), step]
            .into_iter()
            .flatten()
            .all(reads_only_symbols)
        {
            inner.boxed.push(var);
        }
        inner
    }
    pub fn is_boxed(&self, local: LocalId) -> bool {
        self.boxed.contains(&local)
    }
}

/// True when `e` reads only symbols and literals (no parameters, locals or data).
pub fn reads_only_symbols(e: &Expr) -> bool {
    let mut ok = true;
    e.walk(&mut |x| match &x.kind {
        ExprKind::Var(VarRef::Symbol(_)) | ExprKind::Lit(_) => {}
        ExprKind::Var(_)
        | ExprKind::Load { .. }
        | ExprKind::Call { .. }
        | ExprKind::Select { .. } => ok = false,
        ExprKind::Unary { .. } | ExprKind::Binary { .. } | ExprKind::Cast { .. } => {}
    });
    ok
}

/// See the module documentation. `conditional`: the access sits under an
/// `if`, a select branch or the right side of `&&`/`||`.
pub fn is_prechecked(index: &[Expr], conditional: bool, loops: &LoopScope) -> bool {
    !conditional && index.iter().all(|e| affine_once(e, loops))
}

/// Affine in boxed variables, each at most once.
fn affine_once(e: &Expr, loops: &LoopScope) -> bool {
    let mut seen: Vec<VarRef> = Vec::new();
    affine(e, loops, &mut seen)
}

fn affine(e: &Expr, loops: &LoopScope, seen: &mut Vec<VarRef>) -> bool {
    if !e.ty.is_integer() {
        return false;
    }
    match &e.kind {
        ExprKind::Lit(_) | ExprKind::Var(VarRef::Symbol(_)) => true,
        ExprKind::Var(v @ VarRef::Param(_)) => note_once(*v, seen),
        ExprKind::Var(v @ VarRef::Local(l)) => loops.is_boxed(*l) && note_once(*v, seen),
        ExprKind::Unary { op: UnOp::Neg, arg } => {
            e.ty.is_signed_integer() && affine(arg, loops, seen)
        }
        ExprKind::Binary {
            op: BinOp::Add | BinOp::Sub,
            lhs,
            rhs,
        } => affine(lhs, loops, seen) && affine(rhs, loops, seen),
        ExprKind::Binary {
            op: BinOp::Mul,
            lhs,
            rhs,
        } => {
            (reads_only_symbols(lhs) && affine(rhs, loops, seen))
                || (reads_only_symbols(rhs) && affine(lhs, loops, seen))
        }
        // Only value-preserving integer widenings keep the range exact.
        ExprKind::Cast { arg } => is_widening(arg.ty, e.ty) && affine(arg, loops, seen),
        _ => false,
    }
}

fn note_once(v: VarRef, seen: &mut Vec<VarRef>) -> bool {
    if seen.contains(&v) {
        false
    } else {
        seen.push(v);
        true
    }
}

/// `from as to` keeps every value of `from` unchanged.
pub fn is_widening(from: ScalarType, to: ScalarType) -> bool {
    use ScalarType::*;
    from == to || matches!((from, to), (I32, I64) | (U32, U64) | (U32, I64))
}

/// One container access found in a tasklet body.
#[derive(Clone, Debug)]
pub struct AccessSite<'a> {
    pub container: super::ContainerId,
    pub index: &'a [Expr],
    pub is_store: bool,
    pub conditional: bool,
    pub loops: LoopScope,
    /// Enclosing `for` loops, outermost first: (variable, start, end, step).
    pub enclosing_loops: Vec<(LocalId, &'a Expr, &'a Expr, Option<&'a Expr>)>,
}

impl AccessSite<'_> {
    pub fn is_prechecked(&self) -> bool {
        is_prechecked(self.index, self.conditional, &self.loops)
    }
}

/// Visits every load and store of a body with its context, in program order.
pub fn for_each_access<'a>(stmts: &'a [Stmt], f: &mut dyn FnMut(AccessSite<'a>)) {
    let mut cx = Walk {
        conditional: false,
        loops: LoopScope::default(),
        enclosing: Vec::new(),
    };
    cx.stmts(stmts, f);
}

struct Walk<'a> {
    conditional: bool,
    loops: LoopScope,
    enclosing: Vec<(LocalId, &'a Expr, &'a Expr, Option<&'a Expr>)>,
}

impl<'a> Walk<'a> {
    fn stmts(&mut self, stmts: &'a [Stmt], f: &mut dyn FnMut(AccessSite<'a>)) {
        for s in stmts {
            match s {
                Stmt::Let { init, .. } => self.expr(init, f),
                Stmt::AssignLocal { value, .. } => self.expr(value, f),
                Stmt::Store {
                    container,
                    index,
                    value,
                    ..
                } => {
                    index.iter().for_each(|e| self.expr(e, f));
                    self.expr(value, f);
                    f(self.site(*container, index, true));
                }
                Stmt::If {
                    cond, then, else_, ..
                } => {
                    self.expr(cond, f);
                    let outer = std::mem::replace(&mut self.conditional, true);
                    self.stmts(then, f);
                    self.stmts(else_, f);
                    self.conditional = outer;
                }
                Stmt::For {
                    var,
                    start,
                    end,
                    step,
                    body,
                    ..
                } => {
                    self.expr(start, f);
                    self.expr(end, f);
                    if let Some(st) = step {
                        self.expr(st, f);
                    }
                    let outer = std::mem::take(&mut self.loops);
                    let outer_conditional = self.conditional;
                    self.loops = outer.enter_loop(*var, start, end, step.as_ref());
                    self.enclosing.push((*var, start, end, step.as_ref()));
                    self.stmts(body, f);
                    self.enclosing.pop();
                    self.loops = outer;
                    self.conditional = outer_conditional;
                }
                // The body may run any number of times; an access in it is
                // checked over the same ranges as outside (a superset of
                // what runs), so only what the body's own `break` and
                // `continue` skip is conditional.
                Stmt::While { cond, body, .. } => {
                    self.expr(cond, f);
                    let outer_conditional = self.conditional;
                    self.stmts(body, f);
                    self.conditional = outer_conditional;
                }
                Stmt::Break { .. } | Stmt::Continue { .. } => {}
            }
            // After a `break`/`continue`, the rest of the loop body runs on
            // some iterations only (the loop restores the flag).
            if s.may_leave_loop() {
                self.conditional = true;
            }
        }
    }

    fn expr(&mut self, e: &'a Expr, f: &mut dyn FnMut(AccessSite<'a>)) {
        match &e.kind {
            ExprKind::Lit(_) | ExprKind::Var(_) => {}
            ExprKind::Load { container, index } => {
                index.iter().for_each(|i| self.expr(i, f));
                f(self.site(*container, index, false));
            }
            ExprKind::Unary { arg, .. } | ExprKind::Cast { arg } => self.expr(arg, f),
            ExprKind::Binary { op, lhs, rhs } => {
                self.expr(lhs, f);
                if matches!(op, BinOp::And | BinOp::Or) {
                    let outer = std::mem::replace(&mut self.conditional, true);
                    self.expr(rhs, f);
                    self.conditional = outer;
                } else {
                    self.expr(rhs, f);
                }
            }
            ExprKind::Select { cond, then, else_ } => {
                self.expr(cond, f);
                let outer = std::mem::replace(&mut self.conditional, true);
                self.expr(then, f);
                self.expr(else_, f);
                self.conditional = outer;
            }
            ExprKind::Call { args, .. } => args.iter().for_each(|a| self.expr(a, f)),
        }
    }

    fn site(
        &self,
        container: super::ContainerId,
        index: &'a [Expr],
        is_store: bool,
    ) -> AccessSite<'a> {
        AccessSite {
            container,
            index,
            is_store,
            conditional: self.conditional,
            loops: self.loops.clone(),
            enclosing_loops: self.enclosing.clone(),
        }
    }
}
