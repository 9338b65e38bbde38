//! Statements of tasklet and map bodies: syn statements -> `ir::Stmt`.
//!
//! Expressions may hoist statements (value blocks, see `typing`) into
//! `Scope::prelude`; each statement emits that prelude right before itself.

use super::reduction_forms::min_max_form;
use super::typing::{is_flexible, source_text, strip_parens, Resolved, Scope};
use super::*;
use crate::ir::Stmt;
use syn::spanned::Spanned;

impl<'a> Lowerer<'a> {
    /// A tasklet or map body, lowered twice: a probe pass (diagnostics
    /// dropped) learns the types of `let`s left open by unsuffixed literals
    /// from their later uses; the second pass lowers with those types.
    pub(crate) fn body(
        &mut self,
        scope: impl Fn() -> Scope,
        stmts: &[syn::Stmt],
    ) -> (Vec<Stmt>, Scope) {
        self.body_with(scope, &mut |cx, sc| cx.block(sc, stmts))
    }

    /// [`Lowerer::body`] for any lowering of a body (`lower` runs twice).
    pub(crate) fn body_with(
        &mut self,
        scope: impl Fn() -> Scope,
        lower: &mut dyn FnMut(&mut Self, &mut Scope) -> Vec<Stmt>,
    ) -> (Vec<Stmt>, Scope) {
        let was_inferring = std::mem::replace(&mut self.inferring, true);
        let mut probe = scope();
        probe.probing = true;
        let _ = lower(self, &mut probe);
        self.inferring = was_inferring;
        let mut sc = scope();
        sc.hints = probe.hints;
        let out = lower(self, &mut sc);
        (out, sc)
    }

    /// A `{ ... }` body or nested block; its locals go out of scope at the end.
    pub(crate) fn block(&mut self, sc: &mut Scope, stmts: &[syn::Stmt]) -> Vec<Stmt> {
        let mark = sc.visible.len();
        let mut out = Vec::new();
        for s in stmts {
            self.stmt(sc, s, &mut out);
        }
        sc.visible.truncate(mark);
        out
    }

    pub(crate) fn stmt(&mut self, sc: &mut Scope, s: &syn::Stmt, out: &mut Vec<Stmt>) {
        match s {
            syn::Stmt::Local(l) => self.let_stmt(sc, l, out),
            syn::Stmt::Expr(e, _) => self.expr_stmt(sc, e, out),
            syn::Stmt::Item(i) => self.error(
                Diagnostic::error(i.span(), "items are not allowed in a tasklet")
                    .help("declare containers and symbols at the top level of the sdfg"),
            ),
            syn::Stmt::Macro(m) => self.error(
                Diagnostic::error(m.span(), "macros are not supported in a tasklet")
                    .help("the tasklet language has no macros; write the computation out"),
            ),
        }
    }

    fn let_stmt(&mut self, sc: &mut Scope, l: &syn::Local, out: &mut Vec<Stmt>) {
        let span = l.span();
        let (pat, annotation) = match &l.pat {
            syn::Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
            other => (other, None),
        };
        let syn::Pat::Ident(pi) = pat else {
            self.error(
                Diagnostic::error(pat.span(), "expected a name: `let x = ...;`")
                    .help("patterns are not supported; bind one value per `let`"),
            );
            return;
        };
        if pi.by_ref.is_some() || pi.subpat.is_some() {
            self.error(
                Diagnostic::error(pat.span(), "expected a name: `let x = ...;`")
                    .help("write `let x = ...;` or `let mut x = ...;`"),
            );
            return;
        }
        let name = pi.ident.to_string();
        let annotated = match annotation {
            None => None,
            Some(syn::Type::Path(p)) if p.qself.is_none() && p.path.get_ident().is_some() => {
                match p.path.get_ident().map(crate::parse::type_name) {
                    Some(Ok(t)) => Some(t.ty),
                    Some(Err(d)) => {
                        self.error(d);
                        None
                    }
                    None => None,
                }
            }
            Some(other) => {
                self.error(
                    Diagnostic::error(other.span(), "expected a scalar type")
                        .help(format!("the types are {}", type_list(|_| true))),
                );
                None
            }
        };
        let Some(init) = &l.init else {
            self.error(
                Diagnostic::error(span, format!("`{name}` needs a value"))
                    .help(format!("initialize it: `let {name} = ...;`")),
            );
            return;
        };
        if let Some((_, diverge)) = &init.diverge {
            self.error(
                Diagnostic::error(diverge.span(), "`let ... else` is not supported")
                    .help("remove the `else` branch"),
            );
        }
        // A `let` without a type whose value is only unsuffixed literals
        // takes the type its later uses need (found by the probe pass of
        // `body`), as in Rust: `let a = 2.0; Y[i] = a * X[i];` with `X: f32`.
        let open = annotated.is_none() && is_flexible(self, sc, &init.expr);
        let key: typing::LetKey = l as *const syn::Local as usize;
        let hint = if open {
            sc.hints.get(&key).copied()
        } else {
            None
        };
        let value = self.expr(sc, &init.expr, annotated.or(hint));
        if matches!(self.resolve(sc, &name), Resolved::Container(_)) {
            self.error(
                Diagnostic::error(
                    pi.ident.span(),
                    format!("local `{name}` has the name of a container"),
                )
                .help("rename the local; `A[i]` must keep meaning the container"),
            );
        }
        let ty = value
            .as_ref()
            .map(|v| v.ty)
            .or(annotated)
            .unwrap_or(ScalarType::I32);
        let local = Local {
            name,
            ty,
            mutable: pi.mutability.is_some(),
            span: pi.ident.span(),
        };
        // A local whose value had an error stays known (no "cannot find"
        // later) but silent (no follow-up type errors).
        let still_open = (sc.probing && open && hint.is_none()).then_some(key);
        let id = sc.declare_local(local, false, value.is_none(), still_open);
        if let Some(init) = value {
            out.append(&mut sc.prelude);
            out.push(Stmt::Let {
                local: id,
                init,
                span,
            });
        }
        sc.prelude.clear();
    }

    fn expr_stmt(&mut self, sc: &mut Scope, e: &syn::Expr, out: &mut Vec<Stmt>) {
        use syn::BinOp as B;
        match e {
            syn::Expr::Assign(a) => self.assign(sc, &a.left, &a.right, None, e.span(), out),
            syn::Expr::Binary(b)
                if matches!(
                    b.op,
                    B::AddAssign(_)
                        | B::SubAssign(_)
                        | B::MulAssign(_)
                        | B::DivAssign(_)
                        | B::RemAssign(_)
                        | B::BitAndAssign(_)
                        | B::BitOrAssign(_)
                        | B::BitXorAssign(_)
                        | B::ShlAssign(_)
                        | B::ShrAssign(_)
                ) =>
            {
                self.assign(sc, &b.left, &b.right, Some(b.op), e.span(), out)
            }
            syn::Expr::If(i) => self.if_stmt(sc, i, out),
            syn::Expr::ForLoop(f) => self.for_stmt(sc, f, out),
            syn::Expr::Block(b) if b.label.is_none() => {
                let stmts = self.block(sc, &b.block.stmts);
                out.extend(stmts);
            }
            syn::Expr::While(w) => self.while_stmt(sc, w, out),
            syn::Expr::Loop(l) => self.loop_stmt(sc, l, out),
            syn::Expr::Break(b) => self.break_stmt(sc, b, out),
            syn::Expr::Continue(c) => self.continue_stmt(sc, c, out),
            syn::Expr::Return(_) => self.error(
                Diagnostic::error(e.span(), "`return` is not supported in a tasklet")
                    .help("guard the remaining statements with `if` instead"),
            ),
            _ => {
                if self.expr(sc, e, None).is_some() {
                    sc.prelude.clear();
                    self.error(
                        Diagnostic::error(e.span(), "this expression's value is not used")
                            .help("store it: `A[i] = ...;`, or bind it: `let x = ...;`"),
                    );
                }
                sc.prelude.clear();
            }
        }
    }

    fn if_stmt(&mut self, sc: &mut Scope, i: &syn::ExprIf, out: &mut Vec<Stmt>) {
        let cond = self.expr(sc, &i.cond, Some(ScalarType::Bool));
        let prelude = std::mem::take(&mut sc.prelude);
        let then = self.block(sc, &i.then_branch.stmts);
        let else_ = match &i.else_branch {
            None => Vec::new(),
            Some((_, e)) => match &**e {
                syn::Expr::Block(b) => self.block(sc, &b.block.stmts),
                syn::Expr::If(inner) => {
                    let mut v = Vec::new();
                    self.if_stmt(sc, inner, &mut v);
                    v
                }
                other => {
                    self.error(Diagnostic::error(
                        other.span(),
                        "expected `{ ... }` or `if` after `else`",
                    ));
                    Vec::new()
                }
            },
        };
        if let Some(cond) = cond {
            out.extend(prelude);
            out.push(Stmt::If {
                cond,
                then,
                else_,
                span: i.span(),
            });
        }
    }

    fn for_stmt(&mut self, sc: &mut Scope, f: &syn::ExprForLoop, out: &mut Vec<Stmt>) {
        let span = f.span();
        if f.label.is_some() {
            self.error(
                Diagnostic::error(span, "loop labels are not supported").help("remove the label"),
            );
        }
        let name = match &*f.pat {
            syn::Pat::Ident(pi)
                if pi.by_ref.is_none() && pi.subpat.is_none() && pi.mutability.is_none() =>
            {
                Some(pi.ident.clone())
            }
            other => {
                self.error(
                    Diagnostic::error(other.span(), "expected a loop variable: `for k in a..b`")
                        .help("the loop variable is a plain name (it cannot be `mut`)"),
                );
                None
            }
        };
        let key: typing::LetKey = f as *const syn::ExprForLoop as usize;
        let (range, open) = self.loop_range(sc, &f.expr, key);
        let prelude = std::mem::take(&mut sc.prelude);
        let mark = sc.visible.len();
        let var = name.as_ref().map(|n| {
            let local = Local {
                name: n.to_string(),
                ty: range.as_ref().map_or(ScalarType::I32, |r| r.ty),
                mutable: false,
                span: n.span(),
            };
            sc.declare_local(local, true, range.is_none(), open)
        });
        sc.loop_depth += 1;
        let body = self.block(sc, &f.body.stmts);
        sc.loop_depth -= 1;
        sc.visible.truncate(mark);
        let (Some(var), Some(range)) = (var, range) else {
            return;
        };
        out.extend(prelude);
        out.push(Stmt::For {
            var,
            start: range.start,
            end: range.end,
            inclusive: range.inclusive,
            step: range.step,
            body,
            span,
        });
    }

    /// `left = right` or `left op= right`.
    fn assign(
        &mut self,
        sc: &mut Scope,
        left: &syn::Expr,
        right: &syn::Expr,
        op: Option<syn::BinOp>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) {
        let target = strip_parens(left);
        match target {
            syn::Expr::Path(p) if p.path.get_ident().is_some() && p.qself.is_none() => {
                let Some(ident) = p.path.get_ident() else {
                    return;
                };
                let name = ident.to_string();
                match self.resolve(sc, &name) {
                    Resolved::Local(id) => self.assign_local(sc, id, ident, right, op, span, out),
                    Resolved::Param(_) => {
                        self.error(
                            Diagnostic::error(
                                ident.span(),
                                format!("cannot assign to map parameter `{name}`"),
                            )
                            .help(format!("copy it into a local first: `let mut x = {name};`")),
                        );
                    }
                    Resolved::Symbol(_) => {
                        self.error(
                            Diagnostic::error(ident.span(), format!("cannot assign to symbol `{name}` in a tasklet"))
                                .help(format!("symbols change only on interstate edges: `a -> b {{ {name} = ...; }}`")),
                        );
                    }
                    Resolved::Container(c) => {
                        if self.containers[c].is_scalar() {
                            self.store(sc, c, Vec::new(), left, right, op, span, out);
                        } else {
                            let rank = self.containers[c].shape.len();
                            self.error(
                                Diagnostic::error(
                                    ident.span(),
                                    format!("`{name}` is an array; assign to an element"),
                                )
                                .help(format!(
                                    "write `{name}[{}] = ...;`",
                                    typing::index_example(rank)
                                )),
                            );
                        }
                    }
                    Resolved::Unknown => {
                        let _ = self.expr(sc, right, None);
                        sc.prelude.clear();
                        self.unknown_name(sc, ident);
                    }
                }
            }
            syn::Expr::Index(ix) => {
                let element = self.element(sc, ix);
                match element {
                    Some((c, index)) => self.store(sc, c, index, left, right, op, span, out),
                    None => sc.prelude.clear(),
                }
            }
            other => self.error(
                Diagnostic::error(other.span(), "cannot assign to this expression").help(
                    "assign to a container element `A[i]`, a scalar container or a `let mut` local",
                ),
            ),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn assign_local(
        &mut self,
        sc: &mut Scope,
        id: LocalId,
        ident: &proc_macro2::Ident,
        right: &syn::Expr,
        op: Option<syn::BinOp>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) {
        let name = ident.to_string();
        if sc.loop_vars[id] {
            self.error(
                Diagnostic::error(
                    ident.span(),
                    format!("cannot assign to loop variable `{name}`"),
                )
                .help(format!("copy it into a local: `let mut x = {name};`")),
            );
            return;
        }
        if !sc.locals[id].mutable {
            self.error(
                Diagnostic::error(
                    ident.span(),
                    format!("cannot assign twice to immutable local `{name}`"),
                )
                .help(format!("make it mutable: `let mut {name} = ...;`")),
            );
            return;
        }
        if sc.is_open(id) {
            // Probe pass: an assigned value with a type of its own fixes the local's type.
            let rhs_flexible = is_flexible(self, sc, right);
            if let Some(v) = self.expr(sc, right, None).filter(|_| !rhs_flexible) {
                sc.hint(id, v.ty);
            }
            sc.prelude.clear();
            return;
        }
        let poisoned = sc.poisoned[id];
        let ty = sc.locals[id].ty;
        let value = match op.map(compound_op) {
            None => self.expr(sc, right, if poisoned { None } else { Some(ty) }),
            Some(None) => None,
            Some(Some(op)) => {
                let rhs_ty = if matches!(op, BinOp::Shl | BinOp::Shr) {
                    None
                } else {
                    Some(ty)
                };
                let rhs = self.expr(sc, right, rhs_ty);
                match rhs {
                    Some(rhs) if !poisoned => {
                        let ok = self.check_operands(op, ty, span)
                            && (!matches!(op, BinOp::Shl | BinOp::Shr)
                                || self.check_operands(op, rhs.ty, rhs.span));
                        ok.then(|| {
                            let lhs = Expr::new(ExprKind::Var(VarRef::Local(id)), ty, ident.span());
                            Expr::new(
                                ExprKind::Binary {
                                    op,
                                    lhs: Box::new(lhs),
                                    rhs: Box::new(rhs),
                                },
                                ty,
                                span,
                            )
                        })
                    }
                    _ => None,
                }
            }
        };
        match value {
            Some(value) if !poisoned => {
                out.append(&mut sc.prelude);
                out.push(Stmt::AssignLocal {
                    local: id,
                    value,
                    span,
                });
            }
            _ => sc.prelude.clear(),
        }
    }

    /// A store to a container element (`index` empty for a scalar), with the
    /// write-conflict resolution the form implies: `+=` sum, `*=` product,
    /// `X = X.min(e)` / `X = X.max(e)` min/max when `e` does not read `X`
    /// (`reduction_forms`).
    #[allow(clippy::too_many_arguments)]
    fn store(
        &mut self,
        sc: &mut Scope,
        container: ContainerId,
        index: Vec<Expr>,
        left: &syn::Expr,
        right: &syn::Expr,
        op: Option<syn::BinOp>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) {
        use syn::BinOp as B;
        let elem = self.containers[container].elem;
        let name = &self.containers[container].name.text;
        let (value, wcr) = match op {
            None => match min_max_form(left, right, name) {
                Some((wcr, arg)) => (self.expr(sc, arg, Some(elem)), Some(wcr)),
                None => (self.expr(sc, right, Some(elem)), None),
            },
            Some(B::AddAssign(_)) => (self.expr(sc, right, Some(elem)), Some(WcrOp::Sum)),
            Some(B::MulAssign(_)) => (self.expr(sc, right, Some(elem)), Some(WcrOp::Product)),
            Some(other) => {
                let target = source_text(left);
                let value = source_text(right);
                let symbol = source_text(&other);
                let plain = symbol.trim_end_matches('=');
                let help = if matches!(other, B::SubAssign(_)) {
                    format!("for a sum reduction write `{target} += -({value});`, for a plain update `{target} = {target} - {value};`")
                } else {
                    format!("write the update out: `{target} = {target} {plain} {value};`")
                };
                self.error(
                    Diagnostic::error(
                        other.span(),
                        format!("`{symbol}` is not a write-conflict resolution of a container"),
                    )
                    .help(help)
                    .note("a container takes `=`, the reductions `+=` and `*=`, and `X = X.min(e)` / `X = X.max(e)`"),
                );
                let _ = self.expr(sc, right, Some(elem));
                sc.prelude.clear();
                return;
            }
        };
        let Some(value) = value else {
            sc.prelude.clear();
            return;
        };
        out.append(&mut sc.prelude);
        out.push(Stmt::Store {
            container,
            index,
            value,
            wcr,
            span,
        });
    }
}

/// `x op= e` -> the operator; None (reported) for an unknown one.
fn compound_op(op: syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as B;
    Some(match op {
        B::AddAssign(_) => BinOp::Add,
        B::SubAssign(_) => BinOp::Sub,
        B::MulAssign(_) => BinOp::Mul,
        B::DivAssign(_) => BinOp::Div,
        B::RemAssign(_) => BinOp::Rem,
        B::BitAndAssign(_) => BinOp::BitAnd,
        B::BitOrAssign(_) => BinOp::BitOr,
        B::BitXorAssign(_) => BinOp::BitXor,
        B::ShlAssign(_) => BinOp::Shl,
        B::ShrAssign(_) => BinOp::Shr,
        _ => return None,
    })
}
