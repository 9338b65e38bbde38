//! `while`, `loop`, `break` and `continue` in tasklet bodies (`for` loops
//! are in `body.rs`, next to the other statements with a range).
//!
//! A `while` condition that hoists statements (a value block:
//! `while { let y = x * 2; y < n } { ... }`) must run them before every
//! test, not once before the loop; such a loop lowers to
//! `while true { PRELUDE; if !COND { break; } BODY }`.

use super::typing::Scope;
use super::*;
use crate::ir::Stmt;
use syn::spanned::Spanned;

impl Lowerer<'_> {
    pub(super) fn while_stmt(&mut self, sc: &mut Scope, w: &syn::ExprWhile, out: &mut Vec<Stmt>) {
        let span = w.span();
        if let Some(label) = &w.label {
            self.error(
                Diagnostic::error(label.span(), "loop labels are not supported")
                    .help("remove the label; `break` and `continue` leave the innermost loop"),
            );
        }
        if let syn::Expr::Let(l) = &*w.cond {
            self.error(
                Diagnostic::error(l.span(), "`while let` is not supported").help(
                    "the tasklet language has no patterns; test a condition: `while x < n { ... }`",
                ),
            );
            return;
        }
        let cond = self.expr(sc, &w.cond, Some(ScalarType::Bool));
        let prelude = std::mem::take(&mut sc.prelude);
        let body = self.loop_body(sc, &w.body.stmts);
        let Some(cond) = cond else {
            return;
        };
        if prelude.is_empty() {
            out.push(Stmt::While { cond, body, span });
            return;
        }
        let cond_span = cond.span;
        let mut inner = prelude;
        inner.push(Stmt::If {
            cond: Expr::new(
                ExprKind::Unary {
                    op: UnOp::Not,
                    arg: Box::new(cond),
                },
                ScalarType::Bool,
                cond_span,
            ),
            then: vec![Stmt::Break { span: cond_span }],
            else_: Vec::new(),
            span: cond_span,
        });
        inner.extend(body);
        out.push(Stmt::While {
            cond: Expr::lit(Value::Bool(true), cond_span),
            body: inner,
            span,
        });
    }

    /// `loop { ... }`: a `while true` (it ends with `break`).
    pub(super) fn loop_stmt(&mut self, sc: &mut Scope, l: &syn::ExprLoop, out: &mut Vec<Stmt>) {
        let span = l.span();
        if let Some(label) = &l.label {
            self.error(
                Diagnostic::error(label.span(), "loop labels are not supported")
                    .help("remove the label; `break` and `continue` leave the innermost loop"),
            );
        }
        let body = self.loop_body(sc, &l.body.stmts);
        out.push(Stmt::While {
            cond: Expr::lit(Value::Bool(true), l.loop_token.span),
            body,
            span,
        });
    }

    fn loop_body(&mut self, sc: &mut Scope, stmts: &[syn::Stmt]) -> Vec<Stmt> {
        sc.loop_depth += 1;
        let body = self.block(sc, stmts);
        sc.loop_depth -= 1;
        body
    }

    pub(super) fn break_stmt(&mut self, sc: &mut Scope, b: &syn::ExprBreak, out: &mut Vec<Stmt>) {
        let span = b.span();
        let mut ok = self.inside_loop(sc, "break", span);
        if let Some(label) = &b.label {
            self.error(
                Diagnostic::error(label.span(), "loop labels are not supported")
                    .help("remove the label; `break` leaves the innermost loop"),
            );
            ok = false;
        }
        if let Some(value) = &b.expr {
            self.error(
                Diagnostic::error(value.span(), "`break` with a value is not supported").help(
                    "assign the value to a `let mut` local declared before the loop, then `break;`",
                ),
            );
            ok = false;
        }
        if ok {
            out.push(Stmt::Break { span });
        }
    }

    pub(super) fn continue_stmt(
        &mut self,
        sc: &mut Scope,
        c: &syn::ExprContinue,
        out: &mut Vec<Stmt>,
    ) {
        let span = c.span();
        let mut ok = self.inside_loop(sc, "continue", span);
        if let Some(label) = &c.label {
            self.error(
                Diagnostic::error(label.span(), "loop labels are not supported")
                    .help("remove the label; `continue` goes on with the innermost loop"),
            );
            ok = false;
        }
        if ok {
            out.push(Stmt::Continue { span });
        }
    }

    /// `break`/`continue` need an enclosing loop of the body: a map's
    /// iterations and a tasklet are not loops one can leave.
    fn inside_loop(&mut self, sc: &Scope, keyword: &str, span: Span) -> bool {
        if sc.loop_depth > 0 {
            return true;
        }
        self.error(
            Diagnostic::error(span, format!("`{keyword}` outside of a loop"))
                .help("`break` and `continue` work in `for`, `while` and `loop` bodies; to skip the rest of a map iteration or a tasklet, guard it with `if`")
                .note("a map's iterations are not a loop one can leave: they all run"),
        );
        false
    }
}
