//! Statements: the body of one iteration, locals, `if`, `for` and
//! `while` loops, `break` and `continue`.

use super::regs::{arith, Class, Reg};
use super::KernelEmitter;
use crate::ir::bounds::LoopScope;
use crate::ir::{range_end, Expr, RangeEnd, ScalarType, Stmt, Value};

impl<'a> KernelEmitter<'a> {
    pub(super) fn body(&mut self) {
        self.locals = vec![None; self.map.body.locals.len()];
        self.conditional = false;
        self.loops = LoopScope::for_map(self.map);
        // An iteration past a dependent range's end (`ir::ranges`) skips.
        let map = self.map;
        let skip = self.label();
        let skips = self.branch_past_dependent_ends(&skip, "bra");
        self.stmts(&map.body.stmts);
        if skips {
            self.place(&skip);
        }
    }

    /// Branches (`bra`: `bra` or `bra.uni`) to `skip` where the iteration
    /// lies past a dependent range's end (`ir::ranges`; each value in
    /// `dependent_values`, the end read over the earlier parameters);
    /// whether the map has such a range.
    pub(super) fn branch_past_dependent_ends(&mut self, skip: &str, bra: &str) -> bool {
        let map = self.map;
        let mut any = false;
        for (d, param) in map.params.iter().enumerate() {
            let Some(Some(v)) = self.dependent_values.get(d).copied() else {
                continue;
            };
            any = true;
            let wide = super::launch::wide_type(param.ty);
            let end = self.expr(&param.end);
            let end = self.convert(end, param.ty, wide);
            let p = self.reg(Class::Pred);
            let cmp = if wide.is_signed_integer() {
                "s64"
            } else {
                "u64"
            };
            self.ins(format!("setp.ge.{cmp} {p}, {v}, {end}"));
            self.ins(format!("@{p} {bra} {skip}"));
        }
        any
    }

    pub(super) fn stmts(&mut self, stmts: &'a [Stmt]) {
        for s in stmts {
            self.stmt(s);
            // As `ir::bounds` decides: after a `break`/`continue` the rest
            // of a loop body is conditional (the loop restores the flag).
            if s.may_leave_loop() {
                self.conditional = true;
            }
        }
    }

    fn local_reg(&mut self, local: usize, ty: ScalarType) -> Reg {
        if self.locals.len() <= local {
            self.locals.resize(local + 1, None);
        }
        match self.locals[local] {
            Some(r) if r.class == Class::of(ty) => r,
            _ => {
                let r = self.reg_of(ty);
                self.locals[local] = Some(r);
                r
            }
        }
    }

    fn local_type(&self, local: usize, fallback: ScalarType) -> ScalarType {
        self.map
            .body
            .locals
            .get(local)
            .map(|l| l.ty)
            .unwrap_or(fallback)
    }

    pub(super) fn stmt(&mut self, s: &'a Stmt) {
        match s {
            Stmt::Let { local, init, .. } => {
                let v = self.expr(init);
                let ty = self.local_type(*local, init.ty);
                let v = self.convert(v, init.ty, ty);
                // A fresh register per `let`: shadowing and re-execution in loops are plain moves.
                if self.locals.len() <= *local {
                    self.locals.resize(*local + 1, None);
                }
                let r = self.reg_of(ty);
                self.locals[*local] = Some(r);
                self.mov(r, v);
            }
            Stmt::AssignLocal { local, value, .. } => {
                let v = self.expr(value);
                let ty = self.local_type(*local, value.ty);
                let v = self.convert(v, value.ty, ty);
                let r = self.local_reg(*local, ty);
                self.mov(r, v);
            }
            Stmt::Store { .. } if self.block_level() => self.store_by_thread0(s),
            Stmt::Store {
                container,
                index,
                value,
                wcr,
                ..
            } => self.store(*container, index, value, *wcr),
            Stmt::If {
                cond, then, else_, ..
            } => {
                let c = self.expr(cond);
                let c = self.predicate(c, cond.ty);
                let l_else = self.label();
                let l_end = self.label();
                self.ins(format!("@!{c} bra {l_else}"));
                let outer = std::mem::replace(&mut self.conditional, true);
                self.stmts(then);
                self.ins(format!("bra.uni {l_end}"));
                self.place(&l_else);
                self.stmts(else_);
                self.place(&l_end);
                self.conditional = outer;
            }
            Stmt::For {
                var,
                start,
                end,
                inclusive,
                step,
                body,
                ..
            } => {
                if !self.unrolled_for(*var, start, end, step.as_ref(), body) {
                    self.for_loop(*var, start, range_end(end, *inclusive), step.as_ref(), body)
                }
            }
            Stmt::While { cond, body, .. } => self.while_loop(cond, body),
            Stmt::Break { .. } => {
                if let Some((_, l_break)) = self.loop_labels.last() {
                    let l = l_break.clone();
                    self.ins(format!("bra.uni {l}"));
                }
            }
            Stmt::Continue { .. } => {
                if let Some((l_continue, _)) = self.loop_labels.last() {
                    let l = l_continue.clone();
                    self.ins(format!("bra.uni {l}"));
                }
            }
            Stmt::ThreadMap(t) => self.thread_map(t),
            Stmt::Barrier(b) => self.barrier(&b.reason.to_string()),
        }
    }

    /// `while cond { body }`: the condition is tested before every
    /// iteration; `continue` branches back to the test.
    fn while_loop(&mut self, cond: &'a Expr, body: &'a [Stmt]) {
        let l_head = self.label();
        let l_end = self.label();
        self.place(&l_head);
        let c = self.expr(cond);
        let c = self.predicate(c, cond.ty);
        self.ins(format!("@!{c} bra {l_end}"));
        let outer = self.conditional;
        let outer_loops = self.loops.clone();
        self.loops = outer_loops.enter_while();
        self.loop_labels.push((l_head.clone(), l_end.clone()));
        self.stmts(body);
        self.loop_labels.pop();
        self.loops = outer_loops;
        self.conditional = outer;
        self.ins(format!("bra.uni {l_head}"));
        self.place(&l_end);
    }

    /// `for var in (start..end).step_by(step)` with Rust's semantics: bounds
    /// evaluated once, empty when start >= end, a step <= 0 runs nothing, and
    /// the loop ends when `var + step` would pass `end` or overflow. For
    /// `start..=last` the bound is `last` itself (`<=`), so a `last` at the
    /// type's maximum runs its iterations.
    fn for_loop(
        &mut self,
        var: usize,
        start: &'a Expr,
        bound: RangeEnd<'a>,
        step: Option<&'a Expr>,
        body: &'a [Stmt],
    ) {
        let (end, inclusive) = match bound {
            RangeEnd::Exclusive(e) => (e, false),
            RangeEnd::Inclusive(last) => (last, true),
        };
        let ty = start.ty;
        if !ty.is_integer() {
            return; // rejected by validation
        }
        let s = self.expr(start);
        let e = self.expr(end);
        let e = self.convert(e, end.ty, ty);
        let st = match step {
            Some(x) => {
                let r = self.expr(x);
                self.convert(r, x.ty, ty)
            }
            None => self.constant(Value::from_bits(ty, 1)),
        };
        let counter = self.reg_of(ty);
        self.mov(counter, s);
        let l_head = self.label();
        let l_end = self.label();
        let a = arith(ty);
        let p = self.reg(Class::Pred);
        self.ins(format!("setp.le.{a} {p}, {st}, 0"));
        self.ins(format!("@{p} bra {l_end}"));
        self.place(&l_head);
        let p = self.reg(Class::Pred);
        let past = if inclusive { "gt" } else { "ge" };
        self.ins(format!("setp.{past}.{a} {p}, {counter}, {e}"));
        self.ins(format!("@{p} bra {l_end}"));
        let v = self.local_reg(var, ty);
        self.mov(v, counter);
        let outer = self.loops.clone();
        let outer_conditional = self.conditional;
        self.loops = outer.enter_loop(var, start, end, step, body);
        // `continue` goes on with the step below, `break` leaves.
        let l_next = self.label();
        self.loop_labels.push((l_next.clone(), l_end.clone()));
        self.stmts(body);
        self.loop_labels.pop();
        self.loops = outer;
        self.conditional = outer_conditional;
        self.place(&l_next);
        // Stop when the distance to the bound (unsigned) is below the step
        // (at most the step, for an exclusive end).
        let distance = self.reg_of(ty);
        let u = if ty.bits() == 64 { "u64" } else { "u32" };
        self.ins(format!("sub.{u} {distance}, {e}, {counter}"));
        let p = self.reg(Class::Pred);
        let stop = if inclusive { "lt" } else { "le" };
        self.ins(format!("setp.{stop}.{u} {p}, {distance}, {st}"));
        self.ins(format!("@{p} bra {l_end}"));
        self.ins(format!("add.{u} {counter}, {counter}, {st}"));
        self.ins(format!("bra.uni {l_head}"));
        self.place(&l_end);
    }
}
