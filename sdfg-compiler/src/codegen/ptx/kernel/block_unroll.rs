//! Which loops of a block map unroll, and the constants unrolling gives:
//! `for` loops over `register` data (so their indices become constants and
//! the data lives in registers), short constant loops around them, and the
//! constant offsets of unrolled indices.

use super::block::mentions_local;
use super::KernelEmitter;
use crate::ir::{BinOp, ContainerId, Expr, ExprKind, LocalId, ScalarType, Stmt, Storage, VarRef};
use std::collections::HashSet;

/// The most iterations of a loop unrolled because it encloses unrolled
/// loops (`unroll_enclosing_loops`).
const ENCLOSING_UNROLL_TRIPS: i128 = 16;

impl<'a> KernelEmitter<'a> {
    /// Whether statements touch `register` data.
    pub(super) fn touches_register_data(&self, stmts: &[Stmt]) -> bool {
        let is_reg = |c: &ContainerId| self.sdfg.containers[*c].storage == Storage::Register;
        let mut found = false;
        for s in stmts {
            s.walk(&mut |x| {
                if let Stmt::Store { container, .. } = x {
                    found |= is_reg(container);
                }
            });
            s.walk_exprs(&mut |e| {
                if let ExprKind::Load { container, .. } = &e.kind {
                    found |= is_reg(container);
                }
            });
        }
        found
    }

    /// `for` loops to unroll: constant bounds, at most 64 iterations, a
    /// variable that indexes register data in the body (so the indices
    /// become constants and the data can live in registers).
    pub(super) fn plan_unrolling(&self) -> HashSet<LocalId> {
        let mut out = HashSet::new();
        let sdfg = self.sdfg;
        for s in &self.map.body.stmts {
            s.walk(&mut |x| {
                let Stmt::For {
                    var,
                    start,
                    end,
                    step,
                    body,
                    ..
                } = x
                else {
                    return;
                };
                let c = crate::ir::linear::constant_value;
                let (Some(a), Some(b)) = (c(start), c(end)) else {
                    return;
                };
                let st = match step {
                    Some(s) => c(s),
                    None => Some(1),
                };
                let Some(st) = st.filter(|&v| v > 0) else {
                    return;
                };
                let trips = if b > a { (b - a + st - 1) / st } else { 0 };
                if trips > 64 {
                    return;
                }
                let mut indexes_registers = false;
                for s in body {
                    s.walk_exprs(&mut |e| {
                        if let ExprKind::Load { container, index } = &e.kind {
                            indexes_registers |= sdfg.containers[*container].storage
                                == Storage::Register
                                && index.iter().any(|i| mentions_local(i, *var));
                        }
                    });
                    s.walk(&mut |y| {
                        if let Stmt::Store {
                            container, index, ..
                        } = y
                        {
                            indexes_registers |= sdfg.containers[*container].storage
                                == Storage::Register
                                && index.iter().any(|i| mentions_local(i, *var));
                        }
                    });
                }
                if indexes_registers {
                    out.insert(*var);
                }
            });
        }
        self.unroll_enclosing_loops(&mut out);
        out
    }

    /// Also unrolls a short constant loop around unrolled ones (gemm's
    /// `for kk` around the register fragments' loops): its variable then is
    /// a constant in the shared-memory indices too (folded into the loads'
    /// immediate offsets), the loop's compare and branch go, and ptxas can
    /// issue the next step's shared loads during this step's `fma`s. Only
    /// straight-line bodies (no thread map, no barrier) of at most
    /// `ENCLOSING_UNROLL_TRIPS` iterations, to bound the code size.
    pub(super) fn unroll_enclosing_loops(&self, out: &mut HashSet<LocalId>) {
        let c = crate::ir::linear::constant_value;
        let mut extra = Vec::new();
        for s in &self.map.body.stmts {
            s.walk(&mut |x| {
                let Stmt::For {
                    var,
                    start,
                    end,
                    step: None,
                    body,
                    ..
                } = x
                else {
                    return;
                };
                let (Some(a), Some(b)) = (c(start), c(end)) else {
                    return;
                };
                if b <= a || b - a > ENCLOSING_UNROLL_TRIPS || out.contains(var) {
                    return;
                }
                let mut encloses_unrolled = false;
                let mut straight = true;
                for t in body {
                    t.walk(&mut |y| match y {
                        Stmt::For { var: inner, .. } => encloses_unrolled |= out.contains(inner),
                        Stmt::ThreadMap(_) | Stmt::Barrier(_) => straight = false,
                        _ => {}
                    });
                }
                if encloses_unrolled && straight {
                    extra.push(*var);
                }
            });
        }
        out.extend(extra);
    }

    /// Emits `for var in start..end` unrolled at compile time, when planned.
    pub(super) fn unrolled_for(
        &mut self,
        var: LocalId,
        start: &'a Expr,
        end: &'a Expr,
        step: Option<&'a Expr>,
        body: &'a [Stmt],
    ) -> bool {
        if !self.block.as_ref().is_some_and(|b| b.unroll.contains(&var)) {
            return false;
        }
        let c = crate::ir::linear::constant_value;
        let (Some(a), Some(b)) = (c(start), c(end)) else {
            return false;
        };
        let st = step.map_or(Some(1), c).unwrap_or(1).max(1);
        let outer = self.loops.clone();
        self.loops = outer.enter_loop(var, start, end, step, body);
        if st == 1 && self.vector_register_copy(var, a as i64, b as i64, body) {
            self.loops = outer;
            return true;
        }
        let mut v = a;
        while v < b {
            if let Some(cx) = self.block.as_mut() {
                cx.unrolled.insert(var, v as i64);
            }
            self.stmts(body);
            v += st;
        }
        if let Some(cx) = self.block.as_mut() {
            cx.unrolled.remove(&var);
        }
        self.loops = outer;
        true
    }

    /// The compile-time value of a local being unrolled.
    pub(super) fn unrolled_value(&self, local: LocalId) -> Option<i64> {
        self.block.as_ref()?.unrolled.get(&local).copied()
    }

    /// A host-checked index as a core and a constant (`split_constant`),
    /// where in a loop unrolled at compile time the constant may also be a
    /// term of the unrolled variables: `X[r, q + 32 * u]` is the core
    /// `X[r, q]` plus `32 u` elements, so the unrolled accesses share one
    /// address and differ by immediate offsets.
    pub(super) fn split_index(&self, e: &'a Expr) -> (&'a Expr, i64) {
        let (core, c) = crate::ir::bounds::split_constant(e);
        let unrolling = self.block.as_ref().is_some_and(|b| !b.unrolled.is_empty());
        if c != 0 || !unrolling {
            return (core, c);
        }
        match &e.kind {
            ExprKind::Binary {
                op: BinOp::Add,
                lhs,
                rhs,
            } => match (self.unrolled_constant(lhs), self.unrolled_constant(rhs)) {
                (_, Some(c)) => (lhs, c),
                (Some(c), None) => (rhs, c),
                _ => (e, 0),
            },
            ExprKind::Binary {
                op: BinOp::Sub,
                lhs,
                rhs,
            } => match self.unrolled_constant(rhs).and_then(i64::checked_neg) {
                Some(c) => (lhs, c),
                None => (e, 0),
            },
            _ => (e, 0),
        }
    }

    /// The value of an integer expression of literals and unrolled loop
    /// variables (+, -, *, widening casts), when it fits its type.
    pub(super) fn unrolled_constant(&self, e: &Expr) -> Option<i64> {
        let v: i64 = match &e.kind {
            ExprKind::Lit(v) if v.ty().is_integer() => i64::try_from(v.as_i128()?).ok()?,
            ExprKind::Var(VarRef::Local(l)) => self.unrolled_value(*l)?,
            ExprKind::Binary { op, lhs, rhs } => {
                let (a, b) = (self.unrolled_constant(lhs)?, self.unrolled_constant(rhs)?);
                match op {
                    BinOp::Add => a.checked_add(b)?,
                    BinOp::Sub => a.checked_sub(b)?,
                    BinOp::Mul => a.checked_mul(b)?,
                    _ => return None,
                }
            }
            ExprKind::Cast { arg }
                if e.ty.is_integer() && arg.ty.is_integer() && e.ty.bits() >= arg.ty.bits() =>
            {
                self.unrolled_constant(arg)?
            }
            _ => return None,
        };
        let fits = match e.ty {
            ScalarType::I32 => i32::try_from(v).is_ok(),
            ScalarType::U32 => u32::try_from(v).is_ok(),
            ScalarType::I64 => true,
            ScalarType::U64 => v >= 0,
            _ => false,
        };
        fits.then_some(v)
    }
}
