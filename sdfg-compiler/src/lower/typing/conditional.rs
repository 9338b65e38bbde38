//! Values computed under a condition: `if/else` in value position, and
//! blocks with statements, which are hoisted in front of the current
//! statement under the guards in effect and assign a fresh local.

use super::text::block_tail;
use super::*;
use crate::ir::Stmt;
use syn::spanned::Spanned;

fn zero(ty: ScalarType) -> Value {
    Value::from_bits(ty, 0)
}

fn and_all(guards: &[Expr]) -> Option<Expr> {
    let mut iter = guards.iter().cloned();
    let first = iter.next()?;
    Some(iter.fold(first, |acc, g| {
        let span = g.span;
        Expr::new(
            ExprKind::Binary {
                op: BinOp::And,
                lhs: Box::new(acc),
                rhs: Box::new(g),
            },
            ScalarType::Bool,
            span,
        )
    }))
}

pub(super) fn not(e: Expr) -> Expr {
    let span = e.span;
    Expr::new(
        ExprKind::Unary {
            op: UnOp::Not,
            arg: Box::new(e),
        },
        ScalarType::Bool,
        span,
    )
}

impl Lowerer<'_> {
    /// `if c { a } else { b }` in value position.
    pub(super) fn select(
        &mut self,
        sc: &mut Scope,
        i: &syn::ExprIf,
        expected: Option<ScalarType>,
    ) -> Option<Expr> {
        let span = i.span();
        let Some((_, else_branch)) = &i.else_branch else {
            self.error(
                Diagnostic::error(span, "`if` without `else` has no value")
                    .help("add an `else { ... }` branch with a value of the same type"),
            );
            return None;
        };
        let cond = self.expr(sc, &i.cond, Some(ScalarType::Bool));
        // The then branch is lowered from the AST itself (not a copy): the
        // probe pass of `body` identifies `let`s by their address.
        let then_block = &i.then_branch;
        let then_tail = block_tail(then_block);
        let then_flexible = then_tail.is_some_and(|t| is_flexible(self, sc, t));
        // The branch with a type of its own is lowered first; each branch
        // runs under its condition (for hoisted blocks).
        let else_first = expected.is_none() && then_flexible && !is_flexible(self, sc, else_branch);
        let (then, else_) = if else_first {
            let else_ = self.guarded(sc, cond.clone().map(not), else_branch, None);
            let ty = else_.as_ref().map(|e| e.ty);
            let then = self.guarded_block(sc, cond.clone(), then_block, ty);
            (then, else_)
        } else {
            let ty = match (expected, then_tail) {
                (Some(t), _) => Some(t),
                (None, Some(tail)) if then_flexible => self.default_for(sc, &[tail, else_branch]),
                _ => None,
            };
            let then = self.guarded_block(sc, cond.clone(), then_block, ty);
            let ty = ty.or(then.as_ref().map(|t| t.ty));
            let else_ = self.guarded(sc, cond.clone().map(not), else_branch, ty);
            (then, else_)
        };
        let (cond, then, else_) = (cond?, then?, else_?);
        let ty = then.ty;
        Some(Expr::new(
            ExprKind::Select {
                cond: Box::new(cond),
                then: Box::new(then),
                else_: Box::new(else_),
            },
            ty,
            span,
        ))
    }

    /// The value of `block` (see `value_block`), evaluated only when `guard` holds.
    fn guarded_block(
        &mut self,
        sc: &mut Scope,
        guard: Option<Expr>,
        block: &syn::Block,
        expected: Option<ScalarType>,
    ) -> Option<Expr> {
        let pushed = guard.map(|g| sc.guards.push(g)).is_some();
        let out = self.value_block(sc, block, expected);
        if pushed {
            sc.guards.pop();
        }
        out
    }

    /// `expr(e, expected)` evaluated only when `guard` holds.
    fn guarded(
        &mut self,
        sc: &mut Scope,
        guard: Option<Expr>,
        e: &syn::Expr,
        expected: Option<ScalarType>,
    ) -> Option<Expr> {
        let pushed = guard.map(|g| sc.guards.push(g)).is_some();
        let out = self.expr(sc, e, expected);
        if pushed {
            sc.guards.pop();
        }
        out
    }

    /// `{ stmts; tail }` in value position. With statements, they are
    /// hoisted in front of the current statement (under the current guards)
    /// and assign a fresh local, which becomes the value.
    pub(super) fn value_block(
        &mut self,
        sc: &mut Scope,
        block: &syn::Block,
        expected: Option<ScalarType>,
    ) -> Option<Expr> {
        let span = block.brace_token.span.join();
        let Some(tail) = block_tail(block) else {
            self.error(Diagnostic::error(span, "this block has no value").help(
                "end it with an expression without `;`, e.g. `{ let y = x * 2.0; y + 1.0 }`",
            ));
            return None;
        };
        let stmts = &block.stmts[..block.stmts.len() - 1];
        if stmts.is_empty() {
            return self.expr(sc, tail, expected);
        }
        if !matches!(sc.kind, ScopeKind::Body) {
            self.error(
                Diagnostic::error(
                    span,
                    format!(
                        "a block with statements is not allowed in {}",
                        sc.kind.describe()
                    ),
                )
                .help("compute the value in a tasklet"),
            );
            return None;
        }
        let saved_guards = std::mem::take(&mut sc.guards);
        let saved_prelude = std::mem::take(&mut sc.prelude);
        let mark = sc.visible.len();
        let mut list = Vec::new();
        for s in stmts {
            self.stmt(sc, s, &mut list);
        }
        let value = self.expr(sc, tail, expected);
        list.append(&mut sc.prelude);
        sc.visible.truncate(mark);
        sc.guards = saved_guards;
        sc.prelude = saved_prelude;
        let value = value?;
        let ty = value.ty;
        let tmp = sc.locals.len();
        sc.locals.push(Local {
            name: format!("__value_{tmp}"),
            ty,
            mutable: true,
            span,
        });
        sc.loop_vars.push(false);
        sc.poisoned.push(false);
        sc.open.push(None);
        list.push(Stmt::AssignLocal {
            local: tmp,
            value,
            span,
        });
        sc.prelude.push(Stmt::Let {
            local: tmp,
            init: Expr::lit(zero(ty), span),
            span,
        });
        match and_all(&sc.guards) {
            Some(cond) => sc.prelude.push(Stmt::If {
                cond,
                then: list,
                else_: Vec::new(),
                span,
            }),
            None => sc.prelude.extend(list),
        }
        Some(Expr::new(ExprKind::Var(VarRef::Local(tmp)), ty, span))
    }
}
