//! Which container accesses are bounds-checked before a statement runs, and
//! which are checked where they happen: one decision, [`precheck_plans`].
//!
//! An access is *prechecked* when it is unconditional and each of its index
//! expressions has an [`IntervalPlan`]: a recipe by which the host computes,
//! before any of the statement's work, the exact range of values the index
//! takes over all iterations. The host then checks that range against the
//! container (an `Err` naming it when it leaves the container) and the
//! kernel omits the check. Every other access (under an `if`, `&&`, `||`,
//! after a `break` or `continue` in its loop's body, in a `while` body, in a
//! `for` loop whose bounds read data or whose body can `break` out of it,
//! in a map with a range that reads an earlier parameter (`ir::ranges`:
//! whether an iteration runs depends on the others), or with an index
//! without a plan, such as a data-dependent one) is *guarded*: checked
//! where it runs; an
//! out-of-bounds access is skipped (a load yields zero), reported through
//! the fault word, and the call returns an `Err`.
//!
//! A plan exists when the index is built from
//! - *points*: subexpressions over symbols and literals only (any operator,
//!   casts, `min`/`max`/`abs`/`floor`/`ceil`/`sqrt`; not the transcendental
//!   functions, whose last bit may differ between the host and the GPU).
//!   The host evaluates them exactly as the kernel does (wrapping, masked
//!   shifts, `x / 0 == 0`, ...: the code the glue emits for every
//!   expression) and they enter the arithmetic as single values;
//! - *variables*: map parameters and `for` variables whose bounds read only
//!   symbols and literals (their values form a known arithmetic sequence),
//!   each at most once per index, so the operands of every operator vary
//!   independently;
//! - operators whose result range follows exactly from the ranges of their
//!   operands, because the operator is monotone in each operand: `+`, `-`,
//!   `*`, unary `-`, `!` (bitwise), `min`, `max`, integer casts, and `/`,
//!   `<<`, `>>` by a point. The smallest and the largest value of every
//!   intermediate are then taken by some iteration, so a range outside the
//!   container means some iteration really is out of bounds.
//!
//! `%`, `&`, `|`, `^`, `abs` of a variable and everything else are not
//! monotone: an interval for them would be an over-approximation, and a
//! precheck on it could reject a valid program, so such indices are guarded.
//!
//! Each intermediate must also stay within its integer type: the host
//! computes in `i128`, the kernel in the expression's type. When an
//! intermediate's range leaves its type at run time (some iteration wraps
//! around), the host reports that as an `Err` naming the index, before any
//! work; a point's own wrapping is exact (it is evaluated like the kernel).
//!
//! The PTX backend, the Rust backend and the host glue all decide with
//! [`is_prechecked`], and the glue computes the range from the same
//! [`IntervalPlan`], so a kernel omits exactly the checks the host made.

use super::{
    range_end, BinOp, Expr, ExprKind, LocalId, MathFn, RangeEnd, ScalarType, Stmt, UnOp, VarRef,
};

/// Loop variables (by local id) in scope at an access, with whether each
/// one's range is a box known before the statement runs.
#[derive(Clone, Debug, Default)]
pub struct LoopScope {
    boxed: Vec<LocalId>,
    /// Inside a loop whose range is not known before the statement runs:
    /// it may run no iteration, so its accesses may not run at all (the
    /// host skips the check of an access in an empty boxed loop, but cannot
    /// tell for this one): they are conditional.
    in_unboxed: bool,
}

impl LoopScope {
    /// The scope of a map's body. A map whose range reads an earlier
    /// parameter (`j in 0..i`) runs each iteration of its box only when it
    /// lies inside the per-iteration range, so the box is more than what
    /// runs (for `i = 0` no `j` runs at all): a precheck over it could reject
    /// a valid program, and every access is guarded instead.
    pub fn for_map(map: &super::Map) -> LoopScope {
        LoopScope {
            boxed: Vec::new(),
            in_unboxed: map.has_dependent_ranges(),
        }
    }

    /// Enter `for var in start..end (step)` with `body`: the variable is
    /// boxed when its bounds and step read only symbols and literals and
    /// the body cannot `break` out of the loop (the later values of the
    /// variable might never be reached).
    pub fn enter_loop(
        &self,
        var: LocalId,
        start: &Expr,
        end: &Expr,
        step: Option<&Expr>,
        body: &[Stmt],
    ) -> LoopScope {
        let mut inner = self.clone();
        if [Some(start), Some(end), step]
            .into_iter()
            .flatten()
            .all(reads_only_symbols)
            && !body.iter().any(Stmt::may_break)
        {
            inner.boxed.push(var);
        } else {
            inner.in_unboxed = true;
        }
        inner
    }
    /// Enter a `while` body: it may run no iteration.
    pub fn enter_while(&self) -> LoopScope {
        LoopScope {
            boxed: self.boxed.clone(),
            in_unboxed: true,
        }
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
/// `if`, a select branch or the right side of `&&`/`||` (an access in a
/// loop whose bounds read data is conditional too: `loops` knows).
pub fn is_prechecked(index: &[Expr], conditional: bool, loops: &LoopScope) -> bool {
    precheck_plans(index, conditional, loops).is_some()
}

/// The plan of each index of a prechecked access; `None` when the access
/// is guarded. This is the decision: [`is_prechecked`] is its `is_some()`.
pub fn precheck_plans<'a>(
    index: &'a [Expr],
    conditional: bool,
    loops: &LoopScope,
) -> Option<Vec<IntervalPlan<'a>>> {
    if conditional || loops.in_unboxed {
        return None;
    }
    index.iter().map(|e| interval_plan(e, loops)).collect()
}

/// How the host computes the exact range of one index expression: a
/// postfix program over a stack of intervals. `points[k]` are the
/// subexpressions [`PlanOp::Point`] pushes (the host evaluates each like
/// the kernel), `vars[k]` the map parameters and loop variables
/// [`PlanOp::Var`] pushes (the host knows each one's values).
#[derive(Clone, Debug)]
pub struct IntervalPlan<'a> {
    pub ops: Vec<PlanOp>,
    pub points: Vec<&'a Expr>,
    pub vars: Vec<PlanVar>,
}

/// A variable of an [`IntervalPlan`]: its values are known before the
/// statement runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanVar {
    /// Map parameter `d` (an arithmetic sequence: start, count, step).
    Param(usize),
    /// A `for` variable whose bounds and step read only symbols and literals.
    Loop(LocalId),
}

/// One step of an [`IntervalPlan`]. The type is the result's: every result
/// must lie within it (otherwise the kernel's arithmetic wraps there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanOp {
    /// Push the value of `points[k]`.
    Point(usize),
    /// Push the values of `vars[k]`.
    Var(usize),
    Neg(ScalarType),
    /// Bitwise not.
    Not(ScalarType),
    Add(ScalarType),
    Sub(ScalarType),
    Mul(ScalarType),
    /// Truncating division by the value of `points[k]` (`x / 0 == 0`).
    DivBy(usize, ScalarType),
    /// Shift left by the value of `points[k]`, masked to the type's width.
    ShlBy(usize, ScalarType),
    /// Shift right (arithmetic for signed types) by `points[k]`, masked.
    ShrBy(usize, ScalarType),
    Min(ScalarType),
    Max(ScalarType),
    /// An integer cast to this type.
    Cast(ScalarType),
}

/// The plan of one index expression, or `None` when its range cannot be
/// computed exactly before the statement runs (the access is then guarded).
pub fn interval_plan<'a>(e: &'a Expr, loops: &LoopScope) -> Option<IntervalPlan<'a>> {
    let mut plan = IntervalPlan {
        ops: Vec::new(),
        points: Vec::new(),
        vars: Vec::new(),
    };
    plan.build(e, loops, true).then_some(plan)
}

/// A plan for a range that contains every value `e` takes, though not
/// necessarily exactly: a variable may appear more than once (`i * i`), so
/// the ends need not be taken. The glue computes the box of a dependent map
/// range with it (`ir::ranges`), where a superset is what is needed.
pub fn hull_plan(e: &Expr) -> Option<IntervalPlan<'_>> {
    let mut plan = IntervalPlan {
        ops: Vec::new(),
        points: Vec::new(),
        vars: Vec::new(),
    };
    plan.build(e, &LoopScope::default(), false).then_some(plan)
}

impl<'a> IntervalPlan<'a> {
    fn point(&mut self, e: &'a Expr) -> usize {
        self.points.push(e);
        self.points.len() - 1
    }

    /// Appends the ops of `e`; false when `e` has no plan. `exact`: each
    /// variable at most once (otherwise a repeated one is pushed again).
    fn build(&mut self, e: &'a Expr, loops: &LoopScope, exact: bool) -> bool {
        let ty = e.ty;
        if !ty.is_integer() {
            return false;
        }
        if is_point(e) {
            let k = self.point(e);
            self.ops.push(PlanOp::Point(k));
            return true;
        }
        let op = match &e.kind {
            ExprKind::Var(VarRef::Param(_) | VarRef::Local(_)) => {
                let var = match e.kind {
                    ExprKind::Var(VarRef::Local(l)) if loops.is_boxed(l) => PlanVar::Loop(l),
                    ExprKind::Var(VarRef::Param(d)) => PlanVar::Param(d),
                    _ => return false,
                };
                // Once per index: operands must vary independently.
                if let Some(k) = self.vars.iter().position(|v| *v == var) {
                    if exact {
                        return false;
                    }
                    self.ops.push(PlanOp::Var(k));
                    return true;
                }
                self.vars.push(var);
                self.ops.push(PlanOp::Var(self.vars.len() - 1));
                return true;
            }
            ExprKind::Unary { op, arg } => {
                if !self.build(arg, loops, exact) {
                    return false;
                }
                match op {
                    UnOp::Neg => PlanOp::Neg(ty),
                    UnOp::Not => PlanOp::Not(ty),
                }
            }
            ExprKind::Binary { op, lhs, rhs } => match op {
                BinOp::Add | BinOp::Sub | BinOp::Mul => {
                    if !(self.build(lhs, loops, exact) && self.build(rhs, loops, exact)) {
                        return false;
                    }
                    match op {
                        BinOp::Add => PlanOp::Add(ty),
                        BinOp::Sub => PlanOp::Sub(ty),
                        _ => PlanOp::Mul(ty),
                    }
                }
                BinOp::Div | BinOp::Shl | BinOp::Shr if is_point(rhs) => {
                    if !self.build(lhs, loops, exact) {
                        return false;
                    }
                    let k = self.point(rhs);
                    match op {
                        BinOp::Div => PlanOp::DivBy(k, ty),
                        BinOp::Shl => PlanOp::ShlBy(k, ty),
                        _ => PlanOp::ShrBy(k, ty),
                    }
                }
                _ => return false,
            },
            ExprKind::Call {
                func: func @ (MathFn::Min | MathFn::Max),
                args,
            } if args.len() == 2 => {
                if !(self.build(&args[0], loops, exact) && self.build(&args[1], loops, exact)) {
                    return false;
                }
                match func {
                    MathFn::Min => PlanOp::Min(ty),
                    _ => PlanOp::Max(ty),
                }
            }
            ExprKind::Cast { arg } if arg.ty.is_integer() => {
                if !self.build(arg, loops, exact) {
                    return false;
                }
                PlanOp::Cast(ty)
            }
            _ => return false,
        };
        self.ops.push(op);
        true
    }
}

/// A subexpression the host evaluates exactly like the kernel: integer
/// typed, over symbols and literals, without functions whose result may
/// differ in the last bit between the host and the GPU. A plan takes it
/// whole, as one value (with the kernel's wrapping).
pub fn is_point(e: &Expr) -> bool {
    if !e.ty.is_integer() {
        return false;
    }
    let mut ok = true;
    e.walk(&mut |x| match &x.kind {
        ExprKind::Var(VarRef::Symbol(_)) | ExprKind::Lit(_) => {}
        ExprKind::Var(_) | ExprKind::Load { .. } => ok = false,
        ExprKind::Call { func, .. } => {
            ok &= matches!(
                func,
                MathFn::Min
                    | MathFn::Max
                    | MathFn::Abs
                    | MathFn::Floor
                    | MathFn::Ceil
                    | MathFn::Sqrt
            )
        }
        ExprKind::Unary { .. }
        | ExprKind::Binary { .. }
        | ExprKind::Cast { .. }
        | ExprKind::Select { .. } => {}
    });
    ok
}

/// `e + c`, `c + e` or `e - c` with an integer literal `c`: (e, c) (the
/// constant as an i64, wrapping); otherwise (e, 0). A point (an index
/// over symbols only) is not split: the host evaluated it whole, wrapping
/// in its type (`N + 1` with `N == u32::MAX` is 0), which `e` widened plus
/// `c` is not; any other prechecked `e + c` was proven not to wrap.
pub fn split_constant(e: &Expr) -> (&Expr, i64) {
    if is_point(e) {
        return (e, 0);
    }
    let lit = |x: &Expr| match &x.kind {
        ExprKind::Lit(v) if v.ty().is_integer() => v.as_i128().map(|c| c as i64),
        _ => None,
    };
    match &e.kind {
        ExprKind::Binary {
            op: BinOp::Add,
            lhs,
            rhs,
        } => match (lit(lhs), lit(rhs)) {
            (_, Some(c)) => (lhs, c),
            (Some(c), None) => (rhs, c),
            _ => (e, 0),
        },
        ExprKind::Binary {
            op: BinOp::Sub,
            lhs,
            rhs,
        } => match lit(rhs) {
            Some(c) => (lhs, c.wrapping_neg()),
            None => (e, 0),
        },
        _ => (e, 0),
    }
}

/// `from as to` keeps every value of `from` unchanged.
pub fn is_widening(from: ScalarType, to: ScalarType) -> bool {
    use ScalarType::*;
    from == to || matches!((from, to), (I32, I64) | (U32, U64) | (U32, I64))
}

/// Where an access is written: its store statement or its load
/// expression (unique per access, unlike `index`, which is the same empty
/// slice for every access of a scalar).
#[derive(Clone, Copy, Debug)]
pub enum AccessNode<'a> {
    Store(&'a Stmt),
    Load(&'a Expr),
}

impl AccessNode<'_> {
    /// The node's address: a key that tells accesses apart.
    pub fn key(&self) -> *const () {
        match self {
            AccessNode::Store(s) => *s as *const Stmt as *const (),
            AccessNode::Load(e) => *e as *const Expr as *const (),
        }
    }
}

/// One container access found in a tasklet body.
#[derive(Clone, Debug)]
pub struct AccessSite<'a> {
    pub container: super::ContainerId,
    pub node: AccessNode<'a>,
    pub index: &'a [Expr],
    pub is_store: bool,
    pub conditional: bool,
    pub loops: LoopScope,
    /// Enclosing `for` loops, outermost first.
    pub enclosing_loops: Vec<EnclosingLoop<'a>>,
}

/// A `for` loop around an access.
#[derive(Clone, Copy, Debug)]
pub struct EnclosingLoop<'a> {
    pub var: LocalId,
    pub start: &'a Expr,
    pub end: RangeEnd<'a>,
    pub step: Option<&'a Expr>,
}

impl<'a> AccessSite<'a> {
    pub fn is_prechecked(&self) -> bool {
        is_prechecked(self.index, self.conditional, &self.loops)
    }
    /// See [`precheck_plans`].
    pub fn precheck_plans(&self) -> Option<Vec<IntervalPlan<'a>>> {
        precheck_plans(self.index, self.conditional, &self.loops)
    }
}

/// Visits every load and store of a body with its context, in program order.
pub fn for_each_access<'a>(stmts: &'a [Stmt], f: &mut dyn FnMut(AccessSite<'a>)) {
    for_each_access_in(stmts, LoopScope::default(), f)
}

/// [`for_each_access`] for the body of `map` ([`LoopScope::for_map`]).
pub fn for_each_map_access<'a>(map: &'a super::Map, f: &mut dyn FnMut(AccessSite<'a>)) {
    for_each_access_in(&map.body.stmts, LoopScope::for_map(map), f)
}

fn for_each_access_in<'a>(stmts: &'a [Stmt], loops: LoopScope, f: &mut dyn FnMut(AccessSite<'a>)) {
    let mut cx = Walk {
        conditional: false,
        loops,
        enclosing: Vec::new(),
    };
    cx.stmts(stmts, f);
}

struct Walk<'a> {
    conditional: bool,
    loops: LoopScope,
    enclosing: Vec<EnclosingLoop<'a>>,
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
                    f(self.site(*container, AccessNode::Store(s), index, true));
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
                    inclusive,
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
                    self.loops = outer.enter_loop(*var, start, end, step.as_ref(), body);
                    self.enclosing.push(EnclosingLoop {
                        var: *var,
                        start,
                        end: range_end(end, *inclusive),
                        step: step.as_ref(),
                    });
                    self.stmts(body, f);
                    self.enclosing.pop();
                    self.loops = outer;
                    self.conditional = outer_conditional;
                }
                // The condition runs at least once; the body may not run.
                Stmt::While { cond, body, .. } => {
                    self.expr(cond, f);
                    let outer = self.loops.clone();
                    let outer_conditional = self.conditional;
                    self.loops = outer.enter_while();
                    self.stmts(body, f);
                    self.loops = outer;
                    self.conditional = outer_conditional;
                }
                Stmt::Break { .. } | Stmt::Continue { .. } => {}
                // A thread map's parameters range like nested `for` loops
                // over its dimensions (in a sequential reading of the block).
                Stmt::ThreadMap(t) => {
                    let outer = self.loops.clone();
                    let depth = self.enclosing.len();
                    for p in &t.params {
                        self.expr(&p.start, f);
                        self.expr(&p.end, f);
                        if let Some(st) = &p.step {
                            self.expr(st, f);
                        }
                        self.loops = self.loops.enter_loop(
                            p.local,
                            &p.start,
                            &p.end,
                            p.step.as_ref(),
                            &t.body,
                        );
                        self.enclosing.push(EnclosingLoop {
                            var: p.local,
                            start: &p.start,
                            end: range_end(&p.end, p.inclusive),
                            step: p.step.as_ref(),
                        });
                    }
                    self.stmts(&t.body, f);
                    self.enclosing.truncate(depth);
                    self.loops = outer;
                }
                Stmt::Barrier(_) => {}
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
                f(self.site(*container, AccessNode::Load(e), index, false));
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
        node: AccessNode<'a>,
        index: &'a [Expr],
        is_store: bool,
    ) -> AccessSite<'a> {
        AccessSite {
            container,
            node,
            index,
            is_store,
            conditional: self.conditional,
            loops: self.loops.clone(),
            enclosing_loops: self.enclosing.clone(),
        }
    }
}
