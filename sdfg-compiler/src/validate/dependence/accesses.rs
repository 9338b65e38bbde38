//! The container accesses of a map body, each with its subscripts as linear
//! forms over the map's parameters, the body's `for` variables and the
//! symbols, and the equations that hold wherever it runs.
//!
//! - An immutable `let` whose value is such a form stands for that form
//!   (`let k = i + 1; A[k]` is `A[i + 1]`); a mutable local, a loaded value
//!   or a product of two variables is not a form.
//! - A `for` variable is a free variable with the loop's bounds.
//! - Under `if p == e` (and in the `else` of `if p != e`) the access runs
//!   only where `p - e = 0`: `if i == 0 { S = x; }` is written by one
//!   iteration.
//! - Under `if t < e` (`<=`, `>`, `>=`, either side, each side of `&&`,
//!   through `!`; the `else` of the negation) where `t` is a `for`
//!   variable or a thread map's parameter and `e` reads only symbols and
//!   literals, `t` has that bound too where it is tighter than its
//!   range's: a tile's threads that compute a halo but store only inside
//!   it (`map t[t in 0..32] on threads { if t < 30 { X[30 * b + t] = ...
//!   } }`) store into their own block's elements.
//! - Index and condition arithmetic is taken as exact (no wrapping); a
//!   cast that narrows an integer is not a form (`(i as u8)` repeats every
//!   256 iterations); a sign change is (it keeps every value that can be
//!   an index).

use super::Form;
use crate::ir::linear::Leaf;
use crate::ir::*;
use proc_macro2::Span;
use std::collections::HashMap;

/// A variable of one access's forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AccessVar {
    Symbol(SymbolId),
    /// A map parameter, by position.
    Param(usize),
    /// A `for` variable of the body.
    Loop(LocalId),
}

/// One container access of a body, as the dependence test sees it.
#[derive(Clone, Debug)]
pub struct BodyAccess {
    pub container: ContainerId,
    pub access: Access,
    /// The index expressions as written (lowered).
    pub index: Vec<Expr>,
    /// Each subscript as a form; None where it is not one.
    pub forms: Vec<Option<Form>>,
    /// Forms that are 0 wherever the access runs (from `if` conditions).
    pub pins: Vec<Form>,
    /// The parts of the conditions around the access that the test does
    /// not read (`3 * r + u >= 2`, `X[i] > 0`, `!(i == j)`), as they hold
    /// there: for messages.
    pub unread: Vec<Expr>,
    /// The bounds `[lo, hi]` of the `for` variables around the access,
    /// as forms over symbols where known.
    pub loops: Vec<(LocalId, Option<Form>, Option<Form>)>,
    /// The store, or the load's element expression.
    pub span: Span,
    /// A store's value.
    pub value: Option<Expr>,
}

/// Every container access of `body`, in the order the body evaluates them
/// (a store's index and value before the store).
pub fn body_accesses(body: &TaskletBody) -> Vec<BodyAccess> {
    statement_accesses(&body.locals, &body.stmts, HashMap::new())
}

/// Every container access of `stmts` (statements of a body whose locals
/// are `locals`), where each local in `known` stands for its form: how a
/// thread map's body is seen, its parameters and the block-level locals
/// around it given as map parameters.
pub fn statement_accesses(
    locals: &[Local],
    stmts: &[Stmt],
    known: HashMap<LocalId, Form>,
) -> Vec<BodyAccess> {
    let mut walker = Walker {
        locals,
        lets: known,
        loops: Vec::new(),
        pins: Vec::new(),
        unread: Vec::new(),
        out: Vec::new(),
    };
    walker.block(stmts);
    walker.out
}

struct Walker<'b> {
    locals: &'b [Local],
    /// Immutable locals whose value is a form.
    lets: HashMap<LocalId, Form>,
    /// `for` variables in scope, with their bounds.
    loops: Vec<(LocalId, Option<Form>, Option<Form>)>,
    pins: Vec<Form>,
    unread: Vec<Expr>,
    out: Vec<BodyAccess>,
}

impl Walker<'_> {
    fn block(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let { local, init, .. } => {
                self.expr(init);
                let immutable = self.locals.get(*local).is_some_and(|l| !l.mutable);
                match self.form(init).filter(|_| immutable) {
                    Some(f) => {
                        self.lets.insert(*local, f);
                    }
                    None => {
                        self.lets.remove(local);
                    }
                }
            }
            Stmt::AssignLocal { local, value, .. } => {
                self.expr(value);
                self.lets.remove(local);
            }
            Stmt::Store {
                container,
                index,
                value,
                wcr,
                span,
            } => {
                index.iter().for_each(|e| self.expr(e));
                self.expr(value);
                let access = wcr.map_or(Access::Write, Access::Reduce);
                self.record(*container, access, index, *span, Some(value));
            }
            Stmt::If {
                cond, then, else_, ..
            } => {
                self.expr(cond);
                let (mark, unread) = (self.pins.len(), self.unread.len());
                self.pins.extend(self.equalities(cond, true));
                self.unread.extend(self.unread_parts(cond, true));
                let outside = self.narrow_loops(cond, true);
                self.block(then);
                self.loops = outside;
                self.pins.truncate(mark);
                self.unread.truncate(unread);
                self.pins.extend(self.equalities(cond, false));
                self.unread.extend(self.unread_parts(cond, false));
                let outside = self.narrow_loops(cond, false);
                self.block(else_);
                self.loops = outside;
                self.pins.truncate(mark);
                self.unread.truncate(unread);
            }
            Stmt::For {
                var,
                start,
                end,
                step,
                body,
                ..
            } => {
                self.expr(start);
                self.expr(end);
                if let Some(step) = step {
                    self.expr(step);
                }
                let lo = self.form(start).and_then(symbolic);
                let hi = self.form(end).and_then(|f| f.offset(-1)).and_then(symbolic);
                self.loops.push((*var, lo, hi));
                self.block(body);
                self.loops.pop();
            }
            // Its mutable locals are not forms; `break` and `continue` only
            // leave out accesses (what may run stays a superset).
            Stmt::While { cond, body, .. } => {
                self.expr(cond);
                self.block(body);
            }
            Stmt::Break { .. } | Stmt::Continue { .. } => {}
            // Seen from the block map: the thread map's parameters are
            // free variables within their ranges, like `for` variables.
            Stmt::ThreadMap(t) => {
                let mark = self.loops.len();
                for p in &t.params {
                    self.expr(&p.start);
                    self.expr(&p.end);
                    let lo = self.form(&p.start).and_then(symbolic);
                    let hi = self
                        .form(&p.end)
                        .and_then(|f| f.offset(-1))
                        .and_then(symbolic);
                    self.loops.push((p.local, lo, hi));
                }
                self.block(&t.body);
                self.loops.truncate(mark);
            }
            Stmt::Barrier(_) => {}
        }
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Lit(_) | ExprKind::Var(_) => {}
            ExprKind::Load { container, index } => {
                index.iter().for_each(|i| self.expr(i));
                self.record(*container, Access::Read, index, e.span, None);
            }
            ExprKind::Unary { arg, .. } | ExprKind::Cast { arg } => self.expr(arg),
            ExprKind::Binary { lhs, rhs, .. } => {
                self.expr(lhs);
                self.expr(rhs);
            }
            ExprKind::Select { cond, then, else_ } => {
                self.expr(cond);
                let (mark, unread) = (self.pins.len(), self.unread.len());
                self.pins.extend(self.equalities(cond, true));
                self.unread.extend(self.unread_parts(cond, true));
                let outside = self.narrow_loops(cond, true);
                self.expr(then);
                self.loops = outside;
                self.pins.truncate(mark);
                self.unread.truncate(unread);
                self.pins.extend(self.equalities(cond, false));
                self.unread.extend(self.unread_parts(cond, false));
                let outside = self.narrow_loops(cond, false);
                self.expr(else_);
                self.loops = outside;
                self.pins.truncate(mark);
                self.unread.truncate(unread);
            }
            ExprKind::Call { args, .. } => args.iter().for_each(|a| self.expr(a)),
        }
    }

    fn record(
        &mut self,
        container: ContainerId,
        access: Access,
        index: &[Expr],
        span: Span,
        value: Option<&Expr>,
    ) {
        let forms = index.iter().map(|i| self.form(i)).collect();
        self.out.push(BodyAccess {
            container,
            access,
            index: index.to_vec(),
            forms,
            pins: self.pins.clone(),
            unread: self.unread.clone(),
            loops: self.loops.clone(),
            span,
            value: value.cloned(),
        });
    }

    /// The equations `lhs - rhs = 0` that hold when `cond` is `holds`:
    /// `a == b` (and each side of `&&`) when it holds, `a != b` (and each
    /// side of `||`) when it does not, through `!`.
    fn equalities(&self, cond: &Expr, holds: bool) -> Vec<Form> {
        if let Some(arg) = negated(cond) {
            return self.equalities(arg, !holds);
        }
        let ExprKind::Binary { op, lhs, rhs } = &cond.kind else {
            return Vec::new();
        };
        match (op, holds) {
            (BinOp::Eq, true) | (BinOp::Ne, false) => {
                let difference = self
                    .form(lhs)
                    .zip(self.form(rhs))
                    .and_then(|(l, r)| l.add(&r, -1));
                difference.into_iter().collect()
            }
            (BinOp::And, true) | (BinOp::Or, false) => {
                let mut out = self.equalities(lhs, holds);
                out.extend(self.equalities(rhs, holds));
                out
            }
            _ => Vec::new(),
        }
    }

    /// The parts of `cond` (each side of `&&` when it holds, of `||` when it
    /// does not) from which neither [`Self::equalities`] nor
    /// [`Self::limits`] take anything, as they hold (`!(c)` when `c` is
    /// false). A part with a bound the test reads counts as read even where
    /// the range's bound is tighter.
    fn unread_parts(&self, cond: &Expr, holds: bool) -> Vec<Expr> {
        if let Some(arg) = negated(cond) {
            return self.unread_parts(arg, !holds);
        }
        if let ExprKind::Binary { op, lhs, rhs } = &cond.kind {
            if matches!((op, holds), (BinOp::And, true) | (BinOp::Or, false)) {
                let mut out = self.unread_parts(lhs, holds);
                out.extend(self.unread_parts(rhs, holds));
                return out;
            }
        }
        if !self.equalities(cond, holds).is_empty() || !self.limits(cond, holds).is_empty() {
            return Vec::new();
        }
        let part = if holds {
            cond.clone()
        } else {
            Expr::new(
                ExprKind::Unary {
                    op: UnOp::Not,
                    arg: Box::new(cond.clone()),
                },
                ScalarType::Bool,
                cond.span,
            )
        };
        vec![part]
    }

    /// Narrows the bounds of the loop variables that `cond` bounds when it
    /// is `holds` (see the module); returns the bounds before, for the
    /// caller to restore after the branch.
    fn narrow_loops(
        &mut self,
        cond: &Expr,
        holds: bool,
    ) -> Vec<(LocalId, Option<Form>, Option<Form>)> {
        let outside = self.loops.clone();
        for (var, lo, hi) in self.limits(cond, holds) {
            // The innermost loop of that variable (a shadowing one hides
            // the outer).
            if let Some(entry) = self.loops.iter_mut().rev().find(|(v, _, _)| *v == var) {
                if let Some(lo) = lo {
                    entry.1 = Some(tighter(entry.1.take(), lo, false));
                }
                if let Some(hi) = hi {
                    entry.2 = Some(tighter(entry.2.take(), hi, true));
                }
            }
        }
        outside
    }

    /// The bounds `lo <= t` or `t <= hi` (over symbols) that hold for loop
    /// variables `t` when `cond` is `holds`: `t < e`, `t <= e`, `t > e`,
    /// `t >= e` (either way round, with `t` at coefficient 1 or -1 in the
    /// difference of the sides and everything else symbolic), and each side
    /// of `&&` that holds (of `||` that does not).
    fn limits(&self, cond: &Expr, holds: bool) -> Vec<(LocalId, Option<Form>, Option<Form>)> {
        if let Some(arg) = negated(cond) {
            return self.limits(arg, !holds);
        }
        let ExprKind::Binary { op, lhs, rhs } = &cond.kind else {
            return Vec::new();
        };
        // `lhs - rhs` against 0: below (`< 0`, or `<= 0` when `or_equal`).
        let (below, or_equal) = match (op, holds) {
            (BinOp::And, true) | (BinOp::Or, false) => {
                let mut out = self.limits(lhs, holds);
                out.extend(self.limits(rhs, holds));
                return out;
            }
            (BinOp::Lt, true) | (BinOp::Ge, false) => (true, false),
            (BinOp::Le, true) | (BinOp::Gt, false) => (true, true),
            (BinOp::Gt, true) | (BinOp::Le, false) => (false, false),
            (BinOp::Ge, true) | (BinOp::Lt, false) => (false, true),
            _ => return Vec::new(),
        };
        let Some(d) = self
            .form(lhs)
            .zip(self.form(rhs))
            .and_then(|(l, r)| l.add(&r, -1))
        else {
            return Vec::new();
        };
        let mut loops = d
            .terms
            .iter()
            .filter(|(v, _)| !matches!(v, AccessVar::Symbol(_)));
        let (Some((&AccessVar::Loop(var), &c)), None) = (loops.next(), loops.next()) else {
            return Vec::new();
        };
        if c != 1 && c != -1 {
            return Vec::new();
        }
        // d = c t + r: with c = 1, `t + r < 0` is `t <= -r - 1`; with
        // c = -1, `r - t < 0` is `t >= r + 1`.
        let mut rest = d.clone();
        rest.terms.remove(&AccessVar::Loop(var));
        let strict = if or_equal { 0 } else { 1 };
        let bound = if c == 1 {
            rest.scale(-1)
                .and_then(|r| r.offset(if below { -strict } else { strict }))
        } else {
            rest.offset(if below { strict } else { -strict })
        };
        let Some(bound) = bound else {
            return Vec::new();
        };
        // Below with c = 1 or above with c = -1 is an upper bound.
        if below == (c == 1) {
            vec![(var, None, Some(bound))]
        } else {
            vec![(var, Some(bound), None)]
        }
    }

    /// `e` as a form over the access variables, when it is one.
    fn form(&self, e: &Expr) -> Option<Form> {
        Form::from_expr(e, &mut |x: &Expr| match &x.kind {
            ExprKind::Var(VarRef::Symbol(s)) => Leaf::Form(Form::var(AccessVar::Symbol(*s))),
            ExprKind::Var(VarRef::Param(p)) => Leaf::Form(Form::var(AccessVar::Param(*p))),
            ExprKind::Var(VarRef::Local(l)) => {
                if self.loops.iter().any(|(v, _, _)| v == l) {
                    Leaf::Form(Form::var(AccessVar::Loop(*l)))
                } else {
                    self.lets
                        .get(l)
                        .cloned()
                        .map_or(Leaf::NotLinear, Leaf::Form)
                }
            }
            ExprKind::Cast { arg } if x.ty.is_integer() && arg.ty.is_integer() => {
                // A sign change keeps every value that can be an index.
                if x.ty.bits() < arg.ty.bits() {
                    Leaf::NotLinear
                } else {
                    Leaf::Descend
                }
            }
            _ => Leaf::Descend,
        })
    }
}

/// `c` of a condition `!c`.
fn negated(cond: &Expr) -> Option<&Expr> {
    match &cond.kind {
        ExprKind::Unary { op: UnOp::Not, arg } if cond.ty == ScalarType::Bool => Some(arg),
        _ => None,
    }
}

/// The tighter of a variable's bound `old` and a bound `new` it also has
/// (an upper bound when `upper`). Both hold, so either is sound; `new`
/// replaces `old` only where it is provably tighter (they differ by a
/// constant), so that a condition never costs the test a bound it had.
fn tighter(old: Option<Form>, new: Form, upper: bool) -> Form {
    let Some(old) = old else { return new };
    match new.clone().add(&old, -1).and_then(|d| d.as_constant()) {
        Some(d) if (d < 0) == upper => new,
        _ => old,
    }
}

/// `f` where it is a form over symbols only (a bound both iterations share).
fn symbolic(f: Form) -> Option<Form> {
    f.terms
        .keys()
        .all(|v| matches!(v, AccessVar::Symbol(_)))
        .then_some(f)
}

/// Why a subscript is not a form, for messages.
pub fn why_not_affine(e: &Expr, locals: &[Local], containers: &[Container]) -> String {
    let mut loaded = None;
    let mut mutable = None;
    e.walk(&mut |x| match &x.kind {
        ExprKind::Load { container, .. } if loaded.is_none() => {
            loaded = containers.get(*container).map(|c| c.name.text.clone());
        }
        ExprKind::Var(VarRef::Local(l)) if mutable.is_none() => {
            mutable = locals.get(*l).filter(|l| l.mutable).map(|l| l.name.clone());
        }
        _ => {}
    });
    match (loaded, mutable) {
        (Some(c), _) => format!("it depends on data read from `{c}`"),
        (None, Some(l)) => format!("it depends on the mutable local `{l}`"),
        (None, None) => "it is not a linear function of the map's parameters".to_string(),
    }
}
