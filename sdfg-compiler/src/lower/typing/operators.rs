//! Unary and binary operators and `as` casts: which operand types each
//! operator takes, the operands' types unified, and the guard that the
//! right side of `&&`/`||` runs under.

use super::conditional::not;
use super::*;
use syn::spanned::Spanned;

impl Lowerer<'_> {
    pub(super) fn unary(
        &mut self,
        sc: &mut Scope,
        u: &syn::ExprUnary,
        expected: Option<ScalarType>,
    ) -> Option<Expr> {
        let span = u.op.span();
        match u.op {
            syn::UnOp::Neg(_) => {
                if let syn::Expr::Lit(l) = &*u.expr {
                    if matches!(l.lit, syn::Lit::Int(_) | syn::Lit::Float(_)) {
                        return self.literal(&l.lit, true, expected, span);
                    }
                }
                let arg_expected = self.only_if_flexible(sc, &[&u.expr], expected);
                let arg = self.expr(sc, &u.expr, arg_expected)?;
                if !arg.ty.is_arithmetic() || arg.ty.is_unsigned_integer() {
                    self.error(
                        Diagnostic::error(span, format!("cannot negate a `{}`", arg.ty))
                            .help(if arg.ty == ScalarType::Bool {
                                "use `!` for a bool"
                            } else {
                                "unsigned integers have no negative values; subtract instead, or use a signed type"
                            }),
                    );
                    return None;
                }
                let ty = arg.ty;
                Some(Expr::new(
                    ExprKind::Unary {
                        op: UnOp::Neg,
                        arg: Box::new(arg),
                    },
                    ty,
                    span,
                ))
            }
            syn::UnOp::Not(_) => {
                let arg_expected = self.only_if_flexible(sc, &[&u.expr], expected);
                let arg = self.expr(sc, &u.expr, arg_expected)?;
                if arg.ty.is_float() || arg.ty.is_complex() {
                    self.error(
                        Diagnostic::error(span, format!("cannot apply `!` to `{}`", arg.ty))
                            .help("`!` is logical not for bool and bitwise not for integers"),
                    );
                    return None;
                }
                let ty = arg.ty;
                Some(Expr::new(
                    ExprKind::Unary {
                        op: UnOp::Not,
                        arg: Box::new(arg),
                    },
                    ty,
                    span,
                ))
            }
            _ => self.unsupported(
                &syn::Expr::Unary(u.clone()),
                "there are no references or pointers in the tasklet language",
            ),
        }
    }

    /// Whether `op` applies to operands of type `ty`; reports when not.
    pub(crate) fn check_operands(&mut self, op: BinOp, ty: ScalarType, span: Span) -> bool {
        let ok = match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => ty.is_arithmetic(),
            BinOp::Rem => ty.is_numeric(),
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                ty.is_integer() || ty == ScalarType::Bool
            }
            BinOp::Shl | BinOp::Shr => ty.is_integer(),
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => ty.is_numeric(),
            BinOp::Eq | BinOp::Ne => true,
            BinOp::And | BinOp::Or => ty == ScalarType::Bool,
        };
        if !ok {
            let help = match op {
                _ if ty == ScalarType::Bool => "for bools use `&&`, `||`, `!`, `==` and `!=`",
                BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge if ty.is_complex() => {
                    "complex numbers are not ordered: compare their `.norm()`, `.re` or `.im`"
                }
                _ if ty.is_complex() => "complex numbers have `+`, `-`, `*`, `/`, `==` and `!=`",
                BinOp::And | BinOp::Or => {
                    "`&&` and `||` take bools; compare numbers first, e.g. `x != 0`"
                }
                _ => "bit operations and shifts take integers; convert with `as`",
            };
            self.error(
                Diagnostic::error(span, format!("cannot apply `{}` to `{ty}`", op.symbol()))
                    .help(help),
            );
        }
        ok
    }

    pub(super) fn binary(
        &mut self,
        sc: &mut Scope,
        b: &syn::ExprBinary,
        expected: Option<ScalarType>,
    ) -> Option<Expr> {
        use syn::BinOp as S;
        let span = first_span(&b.left);
        let op_span = b.op.span();
        let op = match b.op {
            S::Add(_) => BinOp::Add,
            S::Sub(_) => BinOp::Sub,
            S::Mul(_) => BinOp::Mul,
            S::Div(_) => BinOp::Div,
            S::Rem(_) => BinOp::Rem,
            S::BitAnd(_) => BinOp::BitAnd,
            S::BitOr(_) => BinOp::BitOr,
            S::BitXor(_) => BinOp::BitXor,
            S::Shl(_) => BinOp::Shl,
            S::Shr(_) => BinOp::Shr,
            S::Eq(_) => BinOp::Eq,
            S::Ne(_) => BinOp::Ne,
            S::Lt(_) => BinOp::Lt,
            S::Le(_) => BinOp::Le,
            S::Gt(_) => BinOp::Gt,
            S::Ge(_) => BinOp::Ge,
            S::And(_) => BinOp::And,
            S::Or(_) => BinOp::Or,
            _ => {
                return self.unsupported(
                    &syn::Expr::Binary(b.clone()),
                    "a compound assignment is a statement: end it with `;`",
                )
            }
        };
        let (lhs, rhs, ty) = match op {
            BinOp::And | BinOp::Or => {
                let lhs = self.expr(sc, &b.left, Some(ScalarType::Bool));
                // The right side runs only when the left side allows it.
                let guard = lhs
                    .clone()
                    .map(|l| if op == BinOp::And { l } else { not(l) });
                let pushed = guard.map(|g| sc.guards.push(g)).is_some();
                let rhs = self.expr(sc, &b.right, Some(ScalarType::Bool));
                if pushed {
                    sc.guards.pop();
                }
                (lhs?, rhs?, ScalarType::Bool)
            }
            BinOp::Shl | BinOp::Shr => {
                let lhs_expected = self.only_if_flexible(sc, &[&b.left], expected);
                let lhs = self.expr(sc, &b.left, lhs_expected);
                let rhs = self.expr(sc, &b.right, None);
                let (lhs, rhs) = (lhs?, rhs?);
                if !self.check_operands(op, lhs.ty, op_span)
                    || !self.check_operands(op, rhs.ty, op_span)
                {
                    return None;
                }
                let ty = lhs.ty;
                (lhs, rhs, ty)
            }
            _ if op.is_comparison() => {
                let (lhs, rhs) = self.unify(sc, &b.left, &b.right);
                let (lhs, rhs) = (lhs?, rhs?);
                if !self.check_operands(op, lhs.ty, op_span) {
                    return None;
                }
                (lhs, rhs, ScalarType::Bool)
            }
            _ => {
                // The context's type reaches the operands only when they have
                // none of their own (`2 * 3` in an `f64` context is an
                // error; `I[0] + 2` in an `f64` context is one error for the
                // whole sum, whose help casts the sum).
                let (lhs, rhs) = match self.only_if_flexible(sc, &[&b.left, &b.right], expected) {
                    Some(t) => (
                        self.expr(sc, &b.left, Some(t)),
                        self.expr(sc, &b.right, Some(t)),
                    ),
                    None => self.unify(sc, &b.left, &b.right),
                };
                let (lhs, rhs) = (lhs?, rhs?);
                if !self.check_operands(op, lhs.ty, op_span) {
                    return None;
                }
                let ty = lhs.ty;
                (lhs, rhs, ty)
            }
        };
        Some(Expr::new(
            ExprKind::Binary {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            ty,
            span,
        ))
    }

    pub(super) fn cast(&mut self, sc: &mut Scope, c: &syn::ExprCast) -> Option<Expr> {
        let span = first_span(&c.expr);
        let target = match &*c.ty {
            syn::Type::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                let ident = p.path.get_ident()?;
                match crate::parse::type_name(ident) {
                    Ok(t) => t.ty,
                    Err(d) => {
                        self.error(d);
                        return None;
                    }
                }
            }
            other => {
                self.error(
                    Diagnostic::error(other.span(), "cannot cast to this type").help(format!(
                        "cast to one of {}",
                        type_list(|t| t != ScalarType::Bool)
                    )),
                );
                return None;
            }
        };
        let arg = self.expr(sc, &c.expr, None)?;
        if arg.ty.is_complex() || target.is_complex() {
            let text = source_text(&c.expr);
            let help = if arg.ty.is_complex() {
                format!("take a part: `{text}.re` or `{text}.im`, or the magnitude `{text}.norm()`")
            } else {
                let part = target.real_part();
                format!("build one: `{target}::new({text} as {part}, 0.0)`")
            };
            self.error(
                Diagnostic::error(span, format!("cannot cast `{}` to `{target}`", arg.ty))
                    .help(help),
            );
            return None;
        }
        if target == ScalarType::Bool && arg.ty != ScalarType::Bool {
            self.error(
                Diagnostic::error(span, format!("cannot cast `{}` to `bool`", arg.ty))
                    .help(format!("compare instead: `{} != 0`", source_text(&c.expr))),
            );
            return None;
        }
        if arg.ty == ScalarType::Bool && target.is_float() {
            self.error(
                Diagnostic::error(span, format!("cannot cast `bool` to `{target}`")).help(format!(
                    "cast to an integer first: `{} as i32 as {target}`",
                    source_text(&c.expr)
                )),
            );
            return None;
        }
        Some(Expr::new(
            ExprKind::Cast { arg: Box::new(arg) },
            target,
            span,
        ))
    }
}
