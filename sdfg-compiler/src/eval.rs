//! The reference evaluator of the tasklet language: the executable definition
//! of its meaning (see the module documentation of [`crate::ir::expr`]).
//!
//! Every backend (PTX, Rust) must compute what this module computes: integers
//! bit-exactly, floats bit-exactly for `+ - * / sqrt abs min max floor ceil`,
//! casts and `powi`, and the transcendental functions within the ULP bounds of
//! `codegen::ptx::ULP_BOUNDS` (this module uses Rust's `std`, which is the
//! reference those bounds are measured against; `erf`, which std lacks, is
//! the Rust mirror of the GPU's program, which the CPU device runs too).
//!
//! Decisions made here (the language had no other definition for them):
//! - an out-of-bounds access is skipped (a load yields zero / `false`), the
//!   first one is reported as an [`EvalFault`] after the body finished;
//! - `for v in (a..b).step_by(s)`: a step `<= 0` (as a value of the
//!   variable's type) runs no iteration; the loop ends when `v + s` would
//!   overflow (Rust's `step_by` semantics); `a..=b` runs up to `b`, also
//!   when `b` is the type's maximum;
//! - float `%` is IEEE `fmod` (Rust's `%`);
//! - WCR on `bool` elements: sum and max are `||`, product and min are `&&`
//!   (validation normally rejects it; the definition keeps backends total);
//! - a cast to `bool` (rejected by validation) is `x != 0`.

use crate::ir::semantics::cast;
use crate::ir::{
    range_end, BinOp, Block, Container, ContainerId, Expr, ExprKind, RangeEnd, ScalarType, Stmt,
    Storage, TaskletBody, ThreadMap, Value, VarRef, WcrOp,
};
use std::collections::HashMap;

/// What a body reads and writes besides its locals.
pub trait Env {
    /// The value of a map parameter or a symbol (locals are the evaluator's).
    fn var(&self, v: VarRef) -> Value;
    /// The element at `index` (empty for a scalar); `None` when out of bounds.
    fn load(&mut self, c: ContainerId, index: &[i64]) -> Option<Value>;
    /// Store (or combine with `wcr`, see [`apply_wcr`]); `false` when out of bounds.
    fn store(&mut self, c: ContainerId, index: &[i64], v: Value, wcr: Option<WcrOp>) -> bool;
}

/// An out-of-bounds access (the first one of an evaluation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalFault {
    pub container: ContainerId,
    pub index: Vec<i64>,
    pub is_store: bool,
}

impl std::fmt::Display for EvalFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "out-of-bounds {} of container {} at {:?}",
            if self.is_store { "store" } else { "load" },
            self.container,
            self.index
        )
    }
}

/// Evaluates `e`. `locals` is indexed by `LocalId` (it grows as needed).
/// An out-of-bounds load yields zero and evaluation continues; the first
/// fault is returned as `Err` at the end.
pub fn eval_expr(e: &Expr, env: &mut dyn Env, locals: &mut Vec<Value>) -> Result<Value, EvalFault> {
    let mut ev = Evaluator {
        env,
        locals: std::mem::take(locals),
        fault: None,
        block: HashMap::new(),
        thread_iteration: 0,
    };
    let v = ev.expr(e);
    *locals = ev.locals;
    match ev.fault {
        Some(f) => Err(f),
        None => Ok(v),
    }
}

/// Runs a tasklet/map body once (one map iteration: params come from `env`).
pub fn exec_body(body: &TaskletBody, env: &mut dyn Env) -> Result<(), EvalFault> {
    let mut ev = Evaluator {
        env,
        locals: body.locals.iter().map(|l| zero(l.ty)).collect(),
        fault: None,
        block: HashMap::new(),
        thread_iteration: 0,
    };
    let _ = ev.stmts(&body.stmts);
    match ev.fault {
        Some(f) => Err(f),
        None => Ok(()),
    }
}

/// Runs one iteration of a block map (its parameters come from `env`):
/// the block-level code once, each thread map's iterations in row-major
/// order, `shared` data fresh for the iteration and `register` data one
/// copy per thread-map iteration. Block and register data start as zero
/// here (the language leaves them undefined; validation rejects reading
/// them before a write). Barriers change nothing in a sequential run.
/// Reductions apply in iteration order (the GPU and the CPU device combine
/// per-thread partials in a tree: the same for integers and min/max, within
/// reassociation for float sums and products).
pub fn exec_block_iteration(
    body: &TaskletBody,
    block: &Block,
    containers: &[Container],
    env: &mut dyn Env,
) -> Result<(), EvalFault> {
    let mut data = HashMap::new();
    for &c in &block.data {
        let container = &containers[c];
        let mut locals = Vec::new();
        let shape: Vec<usize> = container
            .shape
            .iter()
            .map(|d| {
                let v = eval_expr(d, env, &mut locals).map_or(0, index_value);
                usize::try_from(v).unwrap_or(0)
            })
            .collect();
        let len = shape.iter().product();
        data.insert(
            c,
            BlockData {
                shape,
                register: container.storage == Storage::Register,
                copies: vec![vec![zero(container.elem); len]],
                elem: container.elem,
            },
        );
    }
    let mut ev = Evaluator {
        env,
        locals: body.locals.iter().map(|l| zero(l.ty)).collect(),
        fault: None,
        block: data,
        thread_iteration: 0,
    };
    ev.stmts(&body.stmts);
    match ev.fault {
        Some(f) => Err(f),
        None => Ok(()),
    }
}

/// The `shared` or `register` data of the block iteration being run.
struct BlockData {
    shape: Vec<usize>,
    register: bool,
    /// One copy for shared data; for register data one per thread-map
    /// iteration (grown on first use).
    copies: Vec<Vec<Value>>,
    elem: ScalarType,
}

impl BlockData {
    fn offset(&self, index: &[i64]) -> Option<usize> {
        if index.len() != self.shape.len() {
            return None;
        }
        let mut off = 0usize;
        for (&i, &n) in index.iter().zip(&self.shape) {
            if i < 0 || i as u64 >= n as u64 {
                return None;
            }
            off = off * n + i as usize;
        }
        Some(off)
    }

    fn copy(&mut self, iteration: usize) -> &mut Vec<Value> {
        let k = if self.register { iteration } else { 0 };
        if self.copies.len() <= k {
            let len = self.copies[0].len();
            self.copies.resize(k + 1, vec![zero(self.elem); len]);
        }
        &mut self.copies[k]
    }
}

/// (start, count, step) of each thread-map dimension, as i128: `count`
/// iterations `start + t * step` (none for an empty range or a step <= 0).
fn thread_ranges(ev: &mut Evaluator<'_>, t: &ThreadMap) -> Vec<(i128, u64, i128)> {
    t.params
        .iter()
        .map(|p| {
            let start = ev.expr(&p.start).as_i128().unwrap_or(0);
            let end = match range_end(&p.end, p.inclusive) {
                RangeEnd::Exclusive(e) => cast(ev.expr(e), p.start.ty).as_i128().unwrap_or(0),
                RangeEnd::Inclusive(last) => {
                    cast(ev.expr(last), p.start.ty).as_i128().unwrap_or(0) + 1
                }
            };
            let step = match &p.step {
                Some(s) => cast(ev.expr(s), p.start.ty).as_i128().unwrap_or(0),
                None => 1,
            };
            let count = if step > 0 && end > start {
                ((end - start + step - 1) / step) as u64
            } else {
                0
            };
            (start, count, step)
        })
        .collect()
}

/// The zero of a type (what an out-of-bounds load yields).
pub fn zero(ty: ScalarType) -> Value {
    Value::from_bits(ty, 0)
}

/// How a statement ends: on to the next one, or out of the innermost loop's body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Next,
    Break,
    Continue,
}

struct Evaluator<'e> {
    env: &'e mut dyn Env,
    locals: Vec<Value>,
    fault: Option<EvalFault>,
    /// The block data of a block iteration (empty elsewhere).
    block: HashMap<ContainerId, BlockData>,
    /// The linear index of the thread-map iteration running (which copy of
    /// register data it sees).
    thread_iteration: usize,
}

impl Evaluator<'_> {
    fn set_local(&mut self, id: usize, v: Value) {
        if self.locals.len() <= id {
            self.locals.resize(id + 1, Value::I32(0));
        }
        self.locals[id] = v;
    }

    fn note_fault(&mut self, container: ContainerId, index: Vec<i64>, is_store: bool) {
        if self.fault.is_none() {
            self.fault = Some(EvalFault {
                container,
                index,
                is_store,
            });
        }
    }

    fn index(&mut self, index: &[Expr]) -> Vec<i64> {
        index.iter().map(|i| index_value(self.expr(i))).collect()
    }

    /// Runs `stmts` until one of them leaves the block (`break`, `continue`).
    fn stmts(&mut self, stmts: &[Stmt]) -> Flow {
        for s in stmts {
            let flow = self.stmt(s);
            if flow != Flow::Next {
                return flow;
            }
        }
        Flow::Next
    }

    fn stmt(&mut self, s: &Stmt) -> Flow {
        match s {
            Stmt::Let { local, init, .. }
            | Stmt::AssignLocal {
                local, value: init, ..
            } => {
                let v = self.expr(init);
                self.set_local(*local, v);
            }
            Stmt::Store {
                container,
                index,
                value,
                wcr,
                ..
            } => {
                // Rust evaluates the right side of an assignment first.
                let v = self.expr(value);
                let idx = self.index(index);
                let stored = match self.block.get_mut(container) {
                    Some(d) => match d.offset(&idx) {
                        Some(off) => {
                            let slot = &mut d.copy(self.thread_iteration)[off];
                            *slot = match wcr {
                                Some(op) => apply_wcr(*op, *slot, v),
                                None => cast(v, slot.ty()),
                            };
                            true
                        }
                        None => false,
                    },
                    None => self.env.store(*container, &idx, v, *wcr),
                };
                if !stored {
                    self.note_fault(*container, idx, true);
                }
            }
            Stmt::ThreadMap(t) => {
                let ranges = thread_ranges(self, t);
                let total: u64 = ranges.iter().map(|r| r.1).product();
                for q in 0..total {
                    let mut rest = q;
                    for (d, p) in t.params.iter().enumerate().rev() {
                        let (start, count, step) = ranges[d];
                        let i = rest % count;
                        rest /= count;
                        let v = (start + i as i128 * step) as i64;
                        self.set_local(p.local, cast(Value::I64(v), p.start.ty));
                    }
                    self.thread_iteration = q as usize;
                    self.stmts(&t.body);
                }
                self.thread_iteration = 0;
            }
            Stmt::Barrier(_) => {}
            Stmt::If {
                cond, then, else_, ..
            } => {
                return if truthy(self.expr(cond)) {
                    self.stmts(then)
                } else {
                    self.stmts(else_)
                };
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
                let ty = start.ty;
                let start = self.expr(start);
                // `a..=last` runs up to `last`, the type's maximum included.
                let (bound, inclusive) = match range_end(end, *inclusive) {
                    RangeEnd::Exclusive(e) => (self.expr(e), false),
                    RangeEnd::Inclusive(last) => (self.expr(last), true),
                };
                let step = match step {
                    Some(s) => cast(self.expr(s), ty),
                    None => Value::from_bits(ty, 1),
                };
                let bound = cast(bound, ty);
                let mut v = cast(start, ty);
                let below = if inclusive { BinOp::Le } else { BinOp::Lt };
                if !step_positive(step) || !compare(below, v, bound) {
                    return Flow::Next;
                }
                loop {
                    self.set_local(*var, v);
                    if self.stmts(body) == Flow::Break {
                        break;
                    }
                    // Rust's step_by: stop when the next value would pass the
                    // bound or overflow (the unsigned distance to the bound
                    // is below the step, or at most the step when exclusive).
                    let mask = width_mask(ty) as u128;
                    let distance = bound.to_bits().wrapping_sub(v.to_bits()) & mask;
                    let s = step.to_bits() & mask;
                    if distance < s || (!inclusive && distance == s) {
                        break;
                    }
                    v = Value::from_bits(ty, v.to_bits().wrapping_add(step.to_bits()));
                }
            }
            Stmt::While { cond, body, .. } => {
                while truthy(self.expr(cond)) {
                    if self.stmts(body) == Flow::Break {
                        break;
                    }
                }
            }
            Stmt::Break { .. } => return Flow::Break,
            Stmt::Continue { .. } => return Flow::Continue,
        }
        Flow::Next
    }

    fn expr(&mut self, e: &Expr) -> Value {
        match &e.kind {
            ExprKind::Lit(v) => *v,
            ExprKind::Var(VarRef::Local(l)) => self.locals.get(*l).copied().unwrap_or(zero(e.ty)),
            ExprKind::Var(v) => self.env.var(*v),
            ExprKind::Load { container, index } => {
                let idx = self.index(index);
                let loaded = match self.block.get_mut(container) {
                    Some(d) => d.offset(&idx).map(|off| d.copy(self.thread_iteration)[off]),
                    None => self.env.load(*container, &idx),
                };
                match loaded {
                    Some(v) => v,
                    None => {
                        self.note_fault(*container, idx, false);
                        zero(e.ty)
                    }
                }
            }
            ExprKind::Unary { op, arg } => unary(*op, self.expr(arg)),
            ExprKind::Binary {
                op: BinOp::And,
                lhs,
                rhs,
            } => Value::Bool(truthy(self.expr(lhs)) && truthy(self.expr(rhs))),
            ExprKind::Binary {
                op: BinOp::Or,
                lhs,
                rhs,
            } => Value::Bool(truthy(self.expr(lhs)) || truthy(self.expr(rhs))),
            ExprKind::Binary { op, lhs, rhs } => {
                let a = self.expr(lhs);
                let b = self.expr(rhs);
                binary(*op, a, b)
            }
            ExprKind::Cast { arg } => cast(self.expr(arg), e.ty),
            ExprKind::Select { cond, then, else_ } => {
                if truthy(self.expr(cond)) {
                    self.expr(then)
                } else {
                    self.expr(else_)
                }
            }
            ExprKind::Call { func, args } => {
                let vals: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
                call(*func, &vals)
            }
        }
    }
}

mod ops;

use ops::*;
pub use ops::{apply_wcr, binary, call, compare, index_value, unary};

/// A simple in-memory [`Env`]: dense row-major containers and fixed
/// parameter/symbol values (tests and tools).
#[derive(Clone, Debug, Default)]
pub struct MemEnv {
    /// Per container id: shape and elements (None: container absent).
    pub containers: Vec<Option<(Vec<usize>, Vec<Value>)>>,
    pub params: Vec<Value>,
    pub symbols: Vec<Value>,
}

impl MemEnv {
    pub fn set_container(&mut self, id: ContainerId, shape: Vec<usize>, data: Vec<Value>) {
        if self.containers.len() <= id {
            self.containers.resize(id + 1, None);
        }
        self.containers[id] = Some((shape, data));
    }

    fn offset(&self, c: ContainerId, index: &[i64]) -> Option<usize> {
        let (shape, _) = self.containers.get(c)?.as_ref()?;
        if shape.len() != index.len() {
            return None;
        }
        let mut off = 0usize;
        for (&i, &n) in index.iter().zip(shape) {
            if i < 0 || i as u64 >= n as u64 {
                return None;
            }
            off = off * n + i as usize;
        }
        Some(off)
    }
}

impl Env for MemEnv {
    fn var(&self, v: VarRef) -> Value {
        match v {
            VarRef::Param(p) => self.params.get(p).copied().unwrap_or(Value::I64(0)),
            VarRef::Symbol(s) => self.symbols.get(s).copied().unwrap_or(Value::I64(0)),
            VarRef::Local(_) => Value::I64(0),
        }
    }
    fn load(&mut self, c: ContainerId, index: &[i64]) -> Option<Value> {
        let off = self.offset(c, index)?;
        Some(self.containers[c].as_ref()?.1[off])
    }
    fn store(&mut self, c: ContainerId, index: &[i64], v: Value, wcr: Option<WcrOp>) -> bool {
        let Some(off) = self.offset(c, index) else {
            return false;
        };
        let slot = &mut self.containers[c].as_mut().expect("checked by offset").1[off];
        *slot = match wcr {
            Some(op) => apply_wcr(op, *slot, v),
            None => v,
        };
        true
    }
}
