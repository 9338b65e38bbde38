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
//! - `races`: iterations of one parallel map that may touch one element
//!   (the `dependence` test, which thread maps can reuse);
//! - `reach`: states unreachable from the start state;
//! - `cycles`: cycles of states the run can never leave;
//! - `symbols`: symbols read before any edge assigns them;
//! - `shapes`: shapes use only symbols no edge assigns (fixed for a run);
//! - `persistent`: `#[persistent]` states (only flat `gpu` maps, a loop
//!   over symbols);
//! - `nested`: the callees of nested SDFG calls, each on its own first.

mod block;
mod bounds;
mod conflicts;
mod cycles;
pub mod dependence;
mod nested;
mod persistent;
mod races;
mod reach;
mod shapes;
mod storage;
mod symbols;

use crate::diag::Diagnostics;
use crate::ir::*;

/// Checks a lowered SDFG.
pub fn validate(sdfg: &Sdfg) -> Result<(), Diagnostics> {
    nested::callees(sdfg)?;
    let mut diags = Diagnostics::new();
    nested::check(sdfg, &mut diags);
    storage::check(sdfg, &mut diags);
    bounds::check(sdfg, &mut diags);
    conflicts::check(sdfg, &mut diags);
    races::check(sdfg, &mut diags);
    block::check(sdfg, &mut diags);
    persistent::check(sdfg, &mut diags);
    reach::check(sdfg, &mut diags);
    cycles::check(sdfg, &mut diags);
    symbols::check(sdfg, &mut diags);
    shapes::check(sdfg, &mut diags);
    diags.finish(())
}

/// An expression as DSL text for messages (`N - 1`, `A[i]`).
pub(crate) fn expr_text(sdfg: &Sdfg, params: &[MapParam], e: &Expr) -> String {
    expr_text_in(sdfg, params, &[], e)
}

/// [`expr_text`] in a body whose locals are `locals` (named as written).
pub(crate) fn expr_text_in(sdfg: &Sdfg, params: &[MapParam], locals: &[Local], e: &Expr) -> String {
    let text = |e: &Expr| expr_text_in(sdfg, params, locals, e);
    // An operand in parentheses where it binds looser than its parent.
    let operand = |e: &Expr, parent: u8, right: bool| {
        let inner = precedence(e);
        if inner < parent || (right && inner == parent && inner < CAST) {
            format!("({})", text(e))
        } else {
            text(e)
        }
    };
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
            format!("{sym}{}", operand(arg, UNARY, false))
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let p = precedence(e);
            format!(
                "{} {} {}",
                operand(lhs, p, false),
                op.symbol(),
                operand(rhs, p, true)
            )
        }
        ExprKind::Cast { arg } => format!("{} as {}", operand(arg, CAST, false), e.ty),
        ExprKind::Select { .. } => "if ...".to_string(),
        ExprKind::Call { func, args } => format!(
            "{}.{}(...)",
            args.first()
                .map_or(String::new(), |a| operand(a, UNARY + 1, false)),
            func.method_name()
        ),
    }
}

const UNARY: u8 = 12;
const CAST: u8 = 11;

/// Rust's precedence of an expression's outermost operator (higher binds
/// tighter).
fn precedence(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary { op, .. } => match op {
            BinOp::Mul | BinOp::Div | BinOp::Rem => 10,
            BinOp::Add | BinOp::Sub => 9,
            BinOp::Shl | BinOp::Shr => 8,
            BinOp::BitAnd => 7,
            BinOp::BitXor => 6,
            BinOp::BitOr => 5,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 4,
            BinOp::And => 3,
            BinOp::Or => 2,
        },
        ExprKind::Cast { .. } => CAST,
        ExprKind::Unary { .. } => UNARY,
        ExprKind::Select { .. } => 1,
        _ => u8::MAX,
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
