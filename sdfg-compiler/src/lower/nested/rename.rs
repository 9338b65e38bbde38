//! A callee's expressions and statements in the caller's names: symbols
//! become their values (or the caller's fresh symbols), containers the
//! caller's fresh transients or the data they are bound to, with the
//! binding's offsets added to every index.
//!
//! Everything here works on typed IR, so no name of the callee can be
//! captured by one of the caller (locals and map parameters are ids).

use crate::ir::*;

/// What a symbol of the callee is in the caller.
#[derive(Clone, Debug)]
pub(super) enum SymbolValue {
    /// A value fixed for the whole call (the callee never assigns it).
    Value(Expr),
    /// A symbol of the caller made for it.
    Symbol(SymbolId),
}

/// What a container of the callee is in the caller.
#[derive(Clone, Debug)]
pub(super) enum ContainerValue {
    /// A transient of the caller made for it.
    Container(ContainerId),
    /// A subset of the caller's container (`Binding::subset`).
    Bound { outer: ContainerId, subset: Subset },
}

pub(super) struct Rename<'a> {
    pub symbols: &'a [SymbolValue],
    pub containers: &'a [ContainerValue],
}

impl Rename<'_> {
    pub fn expr(&self, e: &Expr) -> Expr {
        let kind = match &e.kind {
            ExprKind::Lit(_) | ExprKind::Var(VarRef::Local(_) | VarRef::Param(_)) => e.kind.clone(),
            ExprKind::Var(VarRef::Symbol(s)) => match &self.symbols[*s] {
                SymbolValue::Value(v) => return v.clone(),
                SymbolValue::Symbol(id) => ExprKind::Var(VarRef::Symbol(*id)),
            },
            ExprKind::Load { container, index } => {
                let (container, index) = self.element(*container, index);
                ExprKind::Load { container, index }
            }
            ExprKind::Unary { op, arg } => ExprKind::Unary {
                op: *op,
                arg: Box::new(self.expr(arg)),
            },
            ExprKind::Binary { op, lhs, rhs } => ExprKind::Binary {
                op: *op,
                lhs: Box::new(self.expr(lhs)),
                rhs: Box::new(self.expr(rhs)),
            },
            ExprKind::Cast { arg } => ExprKind::Cast {
                arg: Box::new(self.expr(arg)),
            },
            ExprKind::Select { cond, then, else_ } => ExprKind::Select {
                cond: Box::new(self.expr(cond)),
                then: Box::new(self.expr(then)),
                else_: Box::new(self.expr(else_)),
            },
            ExprKind::Call { func, args } => ExprKind::Call {
                func: *func,
                args: args.iter().map(|a| self.expr(a)).collect(),
            },
        };
        Expr::new(kind, e.ty, e.span)
    }

    pub fn stmts(&self, stmts: &[Stmt]) -> Vec<Stmt> {
        stmts.iter().map(|s| self.stmt(s)).collect()
    }

    fn stmt(&self, s: &Stmt) -> Stmt {
        match s {
            // Its parameters are locals of the block map's body, which
            // keeps its locals.
            Stmt::ThreadMap(t) => Stmt::ThreadMap(ThreadMap {
                name: t.name.clone(),
                params: t
                    .params
                    .iter()
                    .map(|p| ThreadParam {
                        local: p.local,
                        start: self.expr(&p.start),
                        end: self.expr(&p.end),
                        inclusive: p.inclusive,
                        step: p.step.as_ref().map(|x| self.expr(x)),
                    })
                    .collect(),
                body: self.stmts(&t.body),
                span: t.span,
            }),
            Stmt::Barrier(b) => Stmt::Barrier(b.clone()),
            Stmt::Let { local, init, span } => Stmt::Let {
                local: *local,
                init: self.expr(init),
                span: *span,
            },
            Stmt::AssignLocal { local, value, span } => Stmt::AssignLocal {
                local: *local,
                value: self.expr(value),
                span: *span,
            },
            Stmt::Store {
                container,
                index,
                value,
                wcr,
                span,
            } => {
                let (container, index) = self.element(*container, index);
                Stmt::Store {
                    container,
                    index,
                    value: self.expr(value),
                    wcr: *wcr,
                    span: *span,
                }
            }
            Stmt::If {
                cond,
                then,
                else_,
                span,
            } => Stmt::If {
                cond: self.expr(cond),
                then: self.stmts(then),
                else_: self.stmts(else_),
                span: *span,
            },
            Stmt::For {
                var,
                start,
                end,
                inclusive,
                step,
                body,
                span,
            } => Stmt::For {
                var: *var,
                start: self.expr(start),
                end: self.expr(end),
                inclusive: *inclusive,
                step: step.as_ref().map(|x| self.expr(x)),
                body: self.stmts(body),
                span: *span,
            },
            Stmt::While { cond, body, span } => Stmt::While {
                cond: self.expr(cond),
                body: self.stmts(body),
                span: *span,
            },
            Stmt::Break { span } => Stmt::Break { span: *span },
            Stmt::Continue { span } => Stmt::Continue { span: *span },
        }
    }

    pub fn container(&self, c: ContainerId) -> ContainerId {
        match &self.containers[c] {
            ContainerValue::Container(id) => *id,
            ContainerValue::Bound { outer, .. } => *outer,
        }
    }

    /// One element: the index of the caller's container.
    fn element(&self, c: ContainerId, index: &[Expr]) -> (ContainerId, Vec<Expr>) {
        let index: Vec<Expr> = index.iter().map(|e| self.expr(e)).collect();
        match &self.containers[c] {
            ContainerValue::Container(id) => (*id, index),
            ContainerValue::Bound { outer, subset } => {
                let mut inner = index.into_iter();
                let composed = subset
                    .iter()
                    .map(|d| match d {
                        SubsetDim::Index(e) => e.clone(),
                        SubsetDim::Range { start, .. } => match inner.next() {
                            Some(i) => add(start, i),
                            None => start.clone(),
                        },
                    })
                    .collect();
                (*outer, composed)
            }
        }
    }

    /// A subset of the callee's container as a subset of the caller's.
    pub fn subset(&self, c: ContainerId, subset: &Subset) -> (ContainerId, Subset) {
        let dim = |d: &SubsetDim| match d {
            SubsetDim::Index(e) => SubsetDim::Index(self.expr(e)),
            SubsetDim::Range { start, end } => SubsetDim::Range {
                start: self.expr(start),
                end: self.expr(end),
            },
        };
        match &self.containers[c] {
            ContainerValue::Container(id) => (*id, subset.iter().map(dim).collect()),
            ContainerValue::Bound {
                outer,
                subset: bound,
            } => {
                let mut inner = subset.iter().map(dim);
                let composed = bound
                    .iter()
                    .map(|d| match d {
                        SubsetDim::Index(e) => SubsetDim::Index(e.clone()),
                        SubsetDim::Range { start, end } => match inner.next() {
                            Some(SubsetDim::Index(i)) => SubsetDim::Index(add(start, i)),
                            Some(SubsetDim::Range { start: a, end: b }) => SubsetDim::Range {
                                start: add(start, a),
                                end: add(start, b),
                            },
                            None => SubsetDim::Range {
                                start: start.clone(),
                                end: end.clone(),
                            },
                        },
                    })
                    .collect();
                (*outer, composed)
            }
        }
    }
}

/// `e` with the callee's symbols replaced by `values` (by symbol id); other
/// symbols stay.
pub(super) fn with_symbols(e: &Expr, values: &[(SymbolId, Expr)]) -> Expr {
    let mut out = e.clone();
    replace_symbols(&mut out, values);
    out
}

fn replace_symbols(e: &mut Expr, values: &[(SymbolId, Expr)]) {
    if let ExprKind::Var(VarRef::Symbol(s)) = e.kind {
        if let Some((_, v)) = values.iter().find(|(id, _)| *id == s) {
            *e = v.clone();
        }
        return;
    }
    match &mut e.kind {
        ExprKind::Lit(_) | ExprKind::Var(_) => {}
        ExprKind::Load { index, .. } => index.iter_mut().for_each(|x| replace_symbols(x, values)),
        ExprKind::Unary { arg, .. } | ExprKind::Cast { arg } => replace_symbols(arg, values),
        ExprKind::Binary { lhs, rhs, .. } => {
            replace_symbols(lhs, values);
            replace_symbols(rhs, values);
        }
        ExprKind::Select { cond, then, else_ } => {
            replace_symbols(cond, values);
            replace_symbols(then, values);
            replace_symbols(else_, values);
        }
        ExprKind::Call { args, .. } => args.iter_mut().for_each(|x| replace_symbols(x, values)),
    }
}

fn is_zero(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Lit(v) if v.as_i128() == Some(0))
}

/// `e` as type `ty` (unchanged when it has it; a literal that fits is
/// retyped, anything else cast).
pub(super) fn cast(e: Expr, ty: ScalarType) -> Expr {
    if e.ty == ty {
        return e;
    }
    if let ExprKind::Lit(v) = &e.kind {
        if let Some(x) = v.as_i128() {
            let retyped = Value::from_bits(ty, u128::from(x as u64));
            if retyped.as_i128() == Some(x) {
                return Expr::lit(retyped, e.span);
            }
        }
    }
    let span = e.span;
    Expr::new(ExprKind::Cast { arg: Box::new(e) }, ty, span)
}

/// The type two integer operands meet in: one of theirs when the other
/// widens to it without loss, else `i64`.
fn common(a: ScalarType, b: ScalarType) -> ScalarType {
    use crate::ir::bounds::is_widening;
    if is_widening(a, b) {
        b
    } else if is_widening(b, a) {
        a
    } else {
        ScalarType::I64
    }
}

fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
    let ty = if matches!(lhs.kind, ExprKind::Lit(_)) {
        rhs.ty
    } else if matches!(rhs.kind, ExprKind::Lit(_)) {
        lhs.ty
    } else {
        common(lhs.ty, rhs.ty)
    };
    let span = rhs.span;
    let (lhs, rhs) = (cast(lhs, ty), cast(rhs, ty));
    Expr::new(
        ExprKind::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
        ty,
        span,
    )
}

/// `offset + index`, typed (an offset of 0 leaves the index as it is).
pub(super) fn add(offset: &Expr, index: Expr) -> Expr {
    if is_zero(offset) {
        return index;
    }
    binary(BinOp::Add, offset.clone(), index)
}

/// `end - start`, typed (`end` itself when `start` is 0).
pub(super) fn sub(end: &Expr, start: &Expr) -> Expr {
    if is_zero(start) {
        return end.clone();
    }
    binary(BinOp::Sub, end.clone(), start.clone())
}
