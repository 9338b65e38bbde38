//! The reference evaluator of the tasklet language: the executable definition
//! of its meaning (see the module documentation of [`crate::ir::expr`]).
//!
//! Every backend (PTX, Rust) must compute what this module computes: integers
//! bit-exactly, floats bit-exactly for `+ - * / sqrt abs min max floor ceil`,
//! casts and `powi`, and the transcendental functions within the ULP bounds of
//! `codegen::ptx::ULP_BOUNDS` (this module uses Rust's `std`, which is the
//! reference those bounds are measured against).
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

use crate::ir::semantics::{cast, max_number, min_number};
use crate::ir::{
    range_end, BinOp, Block, Container, ContainerId, Expr, ExprKind, MathFn, RangeEnd, ScalarType,
    Stmt, Storage, TaskletBody, ThreadMap, UnOp, Value, VarRef, WcrOp,
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

fn truthy(v: Value) -> bool {
    match v {
        Value::Bool(b) => b,
        other => other.to_bits() != 0,
    }
}

/// An index value as i64 (u64 values above i64::MAX become negative: out of
/// bounds either way).
pub fn index_value(v: Value) -> i64 {
    match v {
        Value::I8(x) => x as i64,
        Value::I16(x) => x as i64,
        Value::U8(x) => x as i64,
        Value::U16(x) => x as i64,
        Value::I32(x) => x as i64,
        Value::I64(x) => x,
        Value::U32(x) => x as i64,
        Value::U64(x) => x as i64,
        Value::Bool(b) => b as i64,
        Value::F32(x) => x as i64,
        Value::F64(x) => x as i64,
        Value::F16(x) => x.to_f32() as i64,
        Value::BF16(x) => x.to_f32() as i64,
        Value::C32(z) => z.re as i64,
        Value::C64(z) => z.re as i64,
    }
}

fn width_mask(ty: ScalarType) -> u64 {
    match ty.bits() {
        64 => u64::MAX,
        b => (1u64 << b) - 1,
    }
}

fn step_positive(step: Value) -> bool {
    match step {
        Value::I8(s) => s > 0,
        Value::I16(s) => s > 0,
        Value::U8(s) => s > 0,
        Value::U16(s) => s > 0,
        Value::I32(s) => s > 0,
        Value::I64(s) => s > 0,
        Value::U32(s) => s > 0,
        Value::U64(s) => s > 0,
        _ => false,
    }
}

/// An f16/bf16 value as the f32 it equals exactly (others unchanged):
/// the 16-bit floats compute in f32 ...
fn widen_half(v: Value) -> Value {
    if v.ty().is_half_float() {
        cast(v, ScalarType::F32)
    } else {
        v
    }
}

/// ... and a float result rounds back to the operand's type `ty` (to
/// nearest, ties to even), as `half`'s operators and the PTX backend do.
fn round_half(ty: ScalarType, r: Value) -> Value {
    if r.ty() == ScalarType::F32 {
        cast(r, ty)
    } else {
        r
    }
}

/// `op arg`.
pub fn unary(op: UnOp, v: Value) -> Value {
    if v.ty().is_half_float() {
        return round_half(v.ty(), unary(op, widen_half(v)));
    }
    match (op, v) {
        (UnOp::Neg, Value::I8(x)) => Value::I8(x.wrapping_neg()),
        (UnOp::Neg, Value::I16(x)) => Value::I16(x.wrapping_neg()),
        (UnOp::Neg, Value::U8(x)) => Value::U8(x.wrapping_neg()),
        (UnOp::Neg, Value::U16(x)) => Value::U16(x.wrapping_neg()),
        (UnOp::Not, Value::I8(x)) => Value::I8(!x),
        (UnOp::Not, Value::I16(x)) => Value::I16(!x),
        (UnOp::Not, Value::U8(x)) => Value::U8(!x),
        (UnOp::Not, Value::U16(x)) => Value::U16(!x),
        (UnOp::Neg, Value::I32(x)) => Value::I32(x.wrapping_neg()),
        (UnOp::Neg, Value::I64(x)) => Value::I64(x.wrapping_neg()),
        (UnOp::Neg, Value::U32(x)) => Value::U32(x.wrapping_neg()),
        (UnOp::Neg, Value::U64(x)) => Value::U64(x.wrapping_neg()),
        (UnOp::Neg, Value::F32(x)) => Value::F32(-x),
        (UnOp::Neg, Value::F64(x)) => Value::F64(-x),
        (UnOp::Neg, Value::Bool(x)) => Value::Bool(x),
        (UnOp::Not, Value::Bool(x)) => Value::Bool(!x),
        (UnOp::Not, Value::I32(x)) => Value::I32(!x),
        (UnOp::Not, Value::I64(x)) => Value::I64(!x),
        (UnOp::Not, Value::U32(x)) => Value::U32(!x),
        (UnOp::Not, Value::U64(x)) => Value::U64(!x),
        (UnOp::Neg, Value::C32(z)) => Value::C32(-z),
        (UnOp::Neg, Value::C64(z)) => Value::C64(-z),
        // Computed in f32 (above).
        (UnOp::Neg, v @ (Value::F16(_) | Value::BF16(_))) => v,
        // Not on floats is rejected by validation; keep the evaluator total.
        (UnOp::Not, f) => f,
    }
}

macro_rules! int_binop {
    ($op:expr, $a:expr, $b:expr, $t:ty, $ctor:path) => {{
        let (a, b): ($t, $t) = ($a, $b);
        match $op {
            BinOp::Add => $ctor(a.wrapping_add(b)),
            BinOp::Sub => $ctor(a.wrapping_sub(b)),
            BinOp::Mul => $ctor(a.wrapping_mul(b)),
            // x / 0 == 0, MIN / -1 == MIN (wrapping_div gives MIN).
            BinOp::Div => $ctor(if b == 0 { 0 } else { a.wrapping_div(b) }),
            // x % 0 == x, MIN % -1 == 0.
            BinOp::Rem => $ctor(if b == 0 { a } else { a.wrapping_rem(b) }),
            BinOp::BitAnd => $ctor(a & b),
            BinOp::BitOr => $ctor(a | b),
            BinOp::BitXor => $ctor(a ^ b),
            BinOp::Eq => Value::Bool(a == b),
            BinOp::Ne => Value::Bool(a != b),
            BinOp::Lt => Value::Bool(a < b),
            BinOp::Le => Value::Bool(a <= b),
            BinOp::Gt => Value::Bool(a > b),
            BinOp::Ge => Value::Bool(a >= b),
            BinOp::Shl | BinOp::Shr | BinOp::And | BinOp::Or => unreachable!(),
        }
    }};
}

macro_rules! float_binop {
    ($op:expr, $a:expr, $b:expr, $ctor:path) => {{
        let (a, b) = ($a, $b);
        match $op {
            BinOp::Add => $ctor(a + b),
            BinOp::Sub => $ctor(a - b),
            BinOp::Mul => $ctor(a * b),
            BinOp::Div => $ctor(a / b),
            BinOp::Rem => $ctor(a % b),
            BinOp::Eq => Value::Bool(a == b),
            BinOp::Ne => Value::Bool(a != b),
            BinOp::Lt => Value::Bool(a < b),
            BinOp::Le => Value::Bool(a <= b),
            BinOp::Gt => Value::Bool(a > b),
            BinOp::Ge => Value::Bool(a >= b),
            // Bit operations on floats are rejected by validation: operate on the bits.
            _ => {
                let (x, y) = ($ctor(a).to_bits(), $ctor(b).to_bits());
                let bits = match $op {
                    BinOp::BitAnd => x & y,
                    BinOp::BitOr => x | y,
                    _ => x ^ y,
                };
                Value::from_bits($ctor(a).ty(), bits)
            }
        }
    }};
}

/// Complex `+ - * /` with num-complex's formulas (naive division), `==` and
/// `!=` part by part; the operators the front end rejects leave `a`.
macro_rules! complex_binop {
    ($op:expr, $a:expr, $b:expr, $ctor:path) => {{
        let (a, b) = ($a, $b);
        match $op {
            BinOp::Add => $ctor(a + b),
            BinOp::Sub => $ctor(a - b),
            BinOp::Mul => $ctor(a * b),
            BinOp::Div => $ctor(a / b),
            BinOp::Eq => Value::Bool(a == b),
            BinOp::Ne => Value::Bool(a != b),
            _ => $ctor(a),
        }
    }};
}

/// `a op b` for every operator but the lazy `&&`/`||` (evaluated eagerly
/// here). Operands have the same type, except the shift amount.
pub fn binary(op: BinOp, a: Value, b: Value) -> Value {
    if let BinOp::Shl | BinOp::Shr = op {
        return shift(op, a, b);
    }
    if let BinOp::And | BinOp::Or = op {
        let (x, y) = (truthy(a), truthy(b));
        return Value::Bool(if op == BinOp::And { x && y } else { x || y });
    }
    // Mismatched operand types are rejected by validation; convert the right
    // side so the evaluator stays total.
    let b = if a.ty() != b.ty() { cast(b, a.ty()) } else { b };
    if a.ty().is_half_float() {
        return round_half(a.ty(), binary(op, widen_half(a), widen_half(b)));
    }
    match (a, b) {
        (Value::I8(x), Value::I8(y)) => int_binop!(op, x, y, i8, Value::I8),
        (Value::I16(x), Value::I16(y)) => int_binop!(op, x, y, i16, Value::I16),
        (Value::U8(x), Value::U8(y)) => int_binop!(op, x, y, u8, Value::U8),
        (Value::U16(x), Value::U16(y)) => int_binop!(op, x, y, u16, Value::U16),
        (Value::I32(x), Value::I32(y)) => int_binop!(op, x, y, i32, Value::I32),
        (Value::I64(x), Value::I64(y)) => int_binop!(op, x, y, i64, Value::I64),
        (Value::U32(x), Value::U32(y)) => int_binop!(op, x, y, u32, Value::U32),
        (Value::U64(x), Value::U64(y)) => int_binop!(op, x, y, u64, Value::U64),
        (Value::F32(x), Value::F32(y)) => float_binop!(op, x, y, Value::F32),
        (Value::F64(x), Value::F64(y)) => float_binop!(op, x, y, Value::F64),
        (Value::C32(x), Value::C32(y)) => complex_binop!(op, x, y, Value::C32),
        (Value::C64(x), Value::C64(y)) => complex_binop!(op, x, y, Value::C64),
        (Value::Bool(x), Value::Bool(y)) => match op {
            BinOp::BitAnd => Value::Bool(x & y),
            BinOp::BitOr => Value::Bool(x | y),
            BinOp::BitXor | BinOp::Ne => Value::Bool(x ^ y),
            BinOp::Eq => Value::Bool(x == y),
            BinOp::Lt => Value::Bool(!x & y),
            BinOp::Le => Value::Bool(!x | y),
            BinOp::Gt => Value::Bool(x & !y),
            BinOp::Ge => Value::Bool(x | !y),
            // Arithmetic on bool is rejected by validation: treat as u32 0/1, keep bit 0.
            _ => {
                let r = binary(op, Value::U32(x as u32), Value::U32(y as u32));
                Value::Bool(r.to_bits() & 1 != 0)
            }
        },
        _ => unreachable!("operands were unified above"),
    }
}

fn shift(op: BinOp, a: Value, b: Value) -> Value {
    // The amount: any integer type, masked to the width of the left operand.
    let amount = (b.to_bits() & 0xffff_ffff) as u32;
    match (op, a) {
        (BinOp::Shl, Value::I8(x)) => Value::I8(x.wrapping_shl(amount)),
        (BinOp::Shl, Value::I16(x)) => Value::I16(x.wrapping_shl(amount)),
        (BinOp::Shl, Value::U8(x)) => Value::U8(x.wrapping_shl(amount)),
        (BinOp::Shl, Value::U16(x)) => Value::U16(x.wrapping_shl(amount)),
        (_, Value::I8(x)) => Value::I8(x.wrapping_shr(amount)),
        (_, Value::I16(x)) => Value::I16(x.wrapping_shr(amount)),
        (_, Value::U8(x)) => Value::U8(x.wrapping_shr(amount)),
        (_, Value::U16(x)) => Value::U16(x.wrapping_shr(amount)),
        (BinOp::Shl, Value::I32(x)) => Value::I32(x.wrapping_shl(amount)),
        (BinOp::Shl, Value::I64(x)) => Value::I64(x.wrapping_shl(amount)),
        (BinOp::Shl, Value::U32(x)) => Value::U32(x.wrapping_shl(amount)),
        (BinOp::Shl, Value::U64(x)) => Value::U64(x.wrapping_shl(amount)),
        (_, Value::I32(x)) => Value::I32(x.wrapping_shr(amount)),
        (_, Value::I64(x)) => Value::I64(x.wrapping_shr(amount)),
        (_, Value::U32(x)) => Value::U32(x.wrapping_shr(amount)),
        (_, Value::U64(x)) => Value::U64(x.wrapping_shr(amount)),
        // Shifts of floats/bools are rejected by validation.
        (_, other) => other,
    }
}

/// Rust's comparison operators on two values of one type.
pub fn compare(op: BinOp, a: Value, b: Value) -> bool {
    truthy(binary(op, a, b))
}

/// A math method on a float receiver `x` of variant `$ty` (f32 or f64),
/// with the second and third operands `b`, `c` converted to the receiver's type.
macro_rules! float_call {
    ($f:expr, $x:expr, $b:expr, $c:expr, $ty:ident) => {{
        let (x, b, c) = ($x, $b, $c);
        let y = match cast(b, ScalarType::$ty) {
            Value::$ty(y) => y,
            _ => 0.0,
        };
        let z = match cast(c, ScalarType::$ty) {
            Value::$ty(z) => z,
            _ => 0.0,
        };
        Value::$ty(match $f {
            MathFn::Sqrt => x.sqrt(),
            MathFn::Abs => x.abs(),
            MathFn::Exp => x.exp(),
            MathFn::Ln => x.ln(),
            MathFn::Sin => x.sin(),
            MathFn::Cos => x.cos(),
            MathFn::Tanh => x.tanh(),
            MathFn::Powi => x.powi(index_value(b) as i32),
            MathFn::Powf => x.powf(y),
            // Widening to f64 is exact: one definition serves both types.
            MathFn::Min => min_number(x.into(), y.into()) as _,
            MathFn::Max => max_number(x.into(), y.into()) as _,
            MathFn::Floor => x.floor(),
            MathFn::Ceil => x.ceil(),
            MathFn::Atan2 => x.atan2(y),
            MathFn::Asin => x.asin(),
            MathFn::Acos => x.acos(),
            MathFn::Atan => x.atan(),
            MathFn::Sinh => x.sinh(),
            MathFn::Cosh => x.cosh(),
            MathFn::Hypot => x.hypot(y),
            MathFn::Cbrt => x.cbrt(),
            // Functions of complex values (handled by `complex_call`); on
            // reals the front end rejects them: identity.
            MathFn::Conj
            | MathFn::NormSqr
            | MathFn::Arg
            | MathFn::Re
            | MathFn::Im
            | MathFn::Complex => x,
            // One rounding (IEEE fusedMultiplyAdd).
            MathFn::MulAdd => x.mul_add(y, z),
        })
    }};
}

/// A math method; `args[0]` is the receiver.
pub fn call(f: MathFn, args: &[Value]) -> Value {
    let a = args.first().copied().unwrap_or(Value::I32(0));
    let b = args.get(1).copied().unwrap_or_else(|| zero(a.ty()));
    let c = args.get(2).copied().unwrap_or_else(|| zero(a.ty()));
    if let Some(v) = complex_call(f, a, b) {
        return v;
    }
    if a.ty().is_half_float() {
        // The f32 function, rounded once to the 16-bit type.
        let wide: Vec<Value> = args.iter().map(|v| widen_half(*v)).collect();
        return round_half(a.ty(), call(f, &wide));
    }
    match (f, a) {
        (MathFn::Abs, Value::I8(x)) => Value::I8(x.wrapping_abs()),
        (MathFn::Abs, Value::I16(x)) => Value::I16(x.wrapping_abs()),
        (MathFn::Abs, Value::I32(x)) => Value::I32(x.wrapping_abs()),
        (MathFn::Abs, Value::I64(x)) => Value::I64(x.wrapping_abs()),
        (MathFn::Abs, v) if v.ty().is_unsigned_integer() || v.ty() == ScalarType::Bool => v,
        (MathFn::Min | MathFn::Max, _)
            if a.ty() != ScalarType::F32 && a.ty() != ScalarType::F64 =>
        {
            let b = cast(b, a.ty());
            let a_less = compare(BinOp::Lt, a, b);
            match f {
                MathFn::Min => {
                    if a_less {
                        a
                    } else {
                        b
                    }
                }
                _ => {
                    if a_less {
                        b
                    } else {
                        a
                    }
                }
            }
        }
        (_, Value::F32(x)) => float_call!(f, x, b, c, F32),
        (_, Value::F64(x)) => float_call!(f, x, b, c, F64),
        // Float functions on integers are rejected by validation: identity.
        (_, v) => v,
    }
}

/// The complex functions and `c64::new(re, im)` as num-complex computes
/// them: `abs` is `norm` (a hypot), `exp` is `from_polar(e^re, im)` after
/// its special cases. None for calls that are not about complex values.
fn complex_call(f: MathFn, a: Value, b: Value) -> Option<Value> {
    Some(match (f, a) {
        (MathFn::Complex, Value::F32(re)) => Value::C32(num_complex::Complex::new(
            re,
            match cast(b, ScalarType::F32) {
                Value::F32(im) => im,
                _ => 0.0,
            },
        )),
        (MathFn::Complex, Value::F64(re)) => Value::C64(num_complex::Complex::new(
            re,
            match cast(b, ScalarType::F64) {
                Value::F64(im) => im,
                _ => 0.0,
            },
        )),
        (_, Value::C32(z)) => match f {
            MathFn::Abs => Value::F32(z.norm()),
            MathFn::NormSqr => Value::F32(z.norm_sqr()),
            MathFn::Arg => Value::F32(z.arg()),
            MathFn::Re => Value::F32(z.re),
            MathFn::Im => Value::F32(z.im),
            MathFn::Conj => Value::C32(z.conj()),
            MathFn::Exp => Value::C32(z.exp()),
            _ => a,
        },
        (_, Value::C64(z)) => match f {
            MathFn::Abs => Value::F64(z.norm()),
            MathFn::NormSqr => Value::F64(z.norm_sqr()),
            MathFn::Arg => Value::F64(z.arg()),
            MathFn::Re => Value::F64(z.re),
            MathFn::Im => Value::F64(z.im),
            MathFn::Conj => Value::C64(z.conj()),
            MathFn::Exp => Value::C64(z.exp()),
            _ => a,
        },
        _ => return None,
    })
}

/// The new value of an element after `old (op) new` (a WCR store).
pub fn apply_wcr(op: WcrOp, old: Value, new: Value) -> Value {
    let new = if new.ty() != old.ty() {
        cast(new, old.ty())
    } else {
        new
    };
    if let (Value::Bool(x), Value::Bool(y)) = (old, new) {
        return Value::Bool(match op {
            WcrOp::Sum | WcrOp::Max => x || y,
            WcrOp::Product | WcrOp::Min => x && y,
        });
    }
    match op {
        WcrOp::Sum => binary(BinOp::Add, old, new),
        WcrOp::Product => binary(BinOp::Mul, old, new),
        WcrOp::Min => call(MathFn::Min, &[old, new]),
        WcrOp::Max => call(MathFn::Max, &[old, new]),
    }
}

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
