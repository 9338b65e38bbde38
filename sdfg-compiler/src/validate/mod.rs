//! Every check of a lowered SDFG, all errors collected at once, each at the
//! user's tokens. Name resolution and typing were checked while lowering;
//! what is checked here needs the whole IR:
//! - `storage`: which statements may touch which storage, `wait`, edges
//!   reading GPU data;
//! - `bounds`: constant indices and subsets against constant dimensions,
//!   copy shapes and element types;
//! - `conflicts`: reductions (WCR) and writes that would race in one state;
//! - `block`: block maps (block size, undefined block data, register data,
//!   races between the iterations of a thread map);
//! - `reach`: states unreachable from the start state;
//! - `shapes`: shapes use only symbols no edge assigns (fixed for a run).

mod block;
mod bounds;
mod conflicts;
mod reach;
mod shapes;
mod storage;

use crate::diag::Diagnostics;
use crate::ir::*;

/// Checks a lowered SDFG.
pub fn validate(sdfg: &Sdfg) -> Result<(), Diagnostics> {
    let mut diags = Diagnostics::new();
    storage::check(sdfg, &mut diags);
    bounds::check(sdfg, &mut diags);
    conflicts::check(sdfg, &mut diags);
    block::check(sdfg, &mut diags);
    reach::check(sdfg, &mut diags);
    shapes::check(sdfg, &mut diags);
    diags.finish(())
}

/// An expression as DSL text for messages (`N - 1`, `A[i]`).
pub(crate) fn expr_text(sdfg: &Sdfg, params: &[MapParam], e: &Expr) -> String {
    expr_text_in(sdfg, params, &[], e)
}

/// [`expr_text`] inside a body whose locals are `locals` (named as written).
pub(crate) fn expr_text_in(sdfg: &Sdfg, params: &[MapParam], locals: &[Local], e: &Expr) -> String {
    let text = |x: &Expr| expr_text_in(sdfg, params, locals, x);
    match &e.kind {
        ExprKind::Lit(v) => v.to_string(),
        ExprKind::Var(VarRef::Symbol(s)) => sdfg
            .symbols
            .get(*s)
            .map_or_else(|| "?".to_string(), |s| s.name.text.clone()),
        ExprKind::Var(VarRef::Param(p)) => params
            .get(*p)
            .map_or_else(|| format!("p{p}"), |p| p.name.text.clone()),
        ExprKind::Var(VarRef::Local(l)) => locals
            .get(*l)
            .map_or_else(|| format!("local{l}"), |l| l.name.clone()),
        ExprKind::Load { container, index } => {
            let name = &sdfg.containers[*container].name.text;
            if index.is_empty() {
                name.clone()
            } else {
                let idx: Vec<String> = index.iter().map(text).collect();
                format!("{name}[{}]", idx.join(", "))
            }
        }
        ExprKind::Unary { op, arg } => {
            let sym = if *op == UnOp::Neg { "-" } else { "!" };
            format!("{sym}{}", text(arg))
        }
        ExprKind::Binary { op, lhs, rhs } => {
            format!("{} {} {}", text(lhs), op.symbol(), text(rhs))
        }
        ExprKind::Cast { arg } => format!("{} as {}", text(arg), e.ty),
        ExprKind::Select { .. } => "if ...".to_string(),
        ExprKind::Call { func, args } => format!(
            "{}.{}(...)",
            args.first().map_or(String::new(), text),
            func.method_name()
        ),
    }
}

/// Each body statement's expressions plus the store targets, for checks
/// that look at every access: (container, index, span).
pub(crate) fn body_accesses(body: &TaskletBody) -> Vec<(ContainerId, &[Expr], proc_macro2::Span)> {
    let mut out = Vec::new();
    for s in &body.stmts {
        s.walk(&mut |s| {
            if let Stmt::Store {
                container,
                index,
                span,
                ..
            } = s
            {
                out.push((*container, index.as_slice(), *span));
            }
        });
        s.walk_exprs(&mut |e| {
            if let ExprKind::Load { container, index } = &e.kind {
                out.push((*container, index.as_slice(), e.span));
            }
        });
    }
    out
}
