//! Flexible expressions: those whose type comes only from unsuffixed
//! literals. They take the type their context expects, or Rust's default
//! (`i32`, `i64` for a literal too wide for `i32`, `f64`); two operands are
//! unified by lowering the side with a type of its own first.

use super::text::block_tail;
use super::*;

fn is_arith(op: &syn::BinOp) -> bool {
    use syn::BinOp as B;
    matches!(
        op,
        B::Add(_)
            | B::Sub(_)
            | B::Mul(_)
            | B::Div(_)
            | B::Rem(_)
            | B::BitAnd(_)
            | B::BitOr(_)
            | B::BitXor(_)
    )
}

fn is_shift(op: &syn::BinOp) -> bool {
    matches!(op, syn::BinOp::Shl(_) | syn::BinOp::Shr(_))
}

/// True when the type of `e` comes only from unsuffixed literals (or, while
/// inferring, from symbols whose type is still unknown).
pub(crate) fn is_flexible(cx: &Lowerer, sc: &Scope, e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.suffix().is_empty(),
            syn::Lit::Float(f) => f.suffix().is_empty(),
            _ => false,
        },
        syn::Expr::Paren(p) => is_flexible(cx, sc, &p.expr),
        syn::Expr::Group(g) => is_flexible(cx, sc, &g.expr),
        syn::Expr::Unary(u) => {
            matches!(u.op, syn::UnOp::Neg(_) | syn::UnOp::Not(_)) && is_flexible(cx, sc, &u.expr)
        }
        // The right operand first: in a long chain `a + b + c + ...` it is
        // a leaf, so a typed one answers at once (the left is the chain).
        syn::Expr::Binary(b) if is_arith(&b.op) => {
            is_flexible(cx, sc, &b.right) && is_flexible(cx, sc, &b.left)
        }
        syn::Expr::Binary(b) if is_shift(&b.op) => is_flexible(cx, sc, &b.left),
        syn::Expr::If(i) => {
            let then = block_tail(&i.then_branch).is_some_and(|t| is_flexible(cx, sc, t));
            let else_ = i
                .else_branch
                .as_ref()
                .is_some_and(|(_, e)| is_flexible(cx, sc, e));
            then && else_
        }
        syn::Expr::Block(b) => block_tail(&b.block).is_some_and(|t| is_flexible(cx, sc, t)),
        syn::Expr::MethodCall(m) => {
            let receiver = is_flexible(cx, sc, &m.receiver);
            match m.method.to_string().as_str() {
                "min" | "max" | "powf" => receiver && m.args.iter().all(|a| is_flexible(cx, sc, a)),
                _ => receiver,
            }
        }
        syn::Expr::Path(p) => match p.path.get_ident() {
            Some(ident) => match cx.resolve(sc, &ident.to_string()) {
                Resolved::Symbol(s) => cx.symbol_types[s].is_none(),
                Resolved::Local(l) => sc.is_open(l),
                _ => false,
            },
            None => false,
        },
        _ => false,
    }
}

/// The default type of a flexible expression: from its first literal
/// (integers: `i32`, or `i64` when some integer literal of `exprs` does not
/// fit `i32`; floats: `f64`). None when it has no literal.
pub(crate) fn default_type(e: &syn::Expr) -> Option<ScalarType> {
    default_type_of(&[e])
}

pub(crate) fn default_type_of(exprs: &[&syn::Expr]) -> Option<ScalarType> {
    let first = exprs.iter().find_map(|e| first_literal_type(e))?;
    if first == ScalarType::I32 && exprs.iter().any(|e| has_wide_int_literal(e, false)) {
        return Some(ScalarType::I64);
    }
    Some(first)
}

fn first_literal_type(e: &syn::Expr) -> Option<ScalarType> {
    match e {
        syn::Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(_) => Some(ScalarType::I32),
            syn::Lit::Float(_) => Some(ScalarType::F64),
            _ => None,
        },
        syn::Expr::Paren(p) => first_literal_type(&p.expr),
        syn::Expr::Group(g) => first_literal_type(&g.expr),
        syn::Expr::Unary(u) => first_literal_type(&u.expr),
        syn::Expr::Binary(b) if is_arith(&b.op) => {
            first_literal_type(&b.left).or_else(|| first_literal_type(&b.right))
        }
        syn::Expr::Binary(b) if is_shift(&b.op) => first_literal_type(&b.left),
        syn::Expr::If(i) => block_tail(&i.then_branch)
            .and_then(first_literal_type)
            .or_else(|| {
                i.else_branch
                    .as_ref()
                    .and_then(|(_, e)| first_literal_type(e))
            }),
        syn::Expr::Block(b) => block_tail(&b.block).and_then(first_literal_type),
        syn::Expr::MethodCall(m) => {
            first_literal_type(&m.receiver).or_else(|| m.args.iter().find_map(first_literal_type))
        }
        _ => None,
    }
}

/// Whether an unsuffixed integer literal in `e` does not fit `i32`.
fn has_wide_int_literal(e: &syn::Expr, negative: bool) -> bool {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => match i.base10_parse::<u128>() {
            Ok(v) => {
                let limit = if negative {
                    1u128 << 31
                } else {
                    (1u128 << 31) - 1
                };
                i.suffix().is_empty() && v > limit
            }
            Err(_) => false,
        },
        syn::Expr::Paren(p) => has_wide_int_literal(&p.expr, negative),
        syn::Expr::Group(g) => has_wide_int_literal(&g.expr, negative),
        syn::Expr::Unary(u) => {
            has_wide_int_literal(&u.expr, matches!(u.op, syn::UnOp::Neg(_)) && !negative)
        }
        syn::Expr::Binary(b) => {
            has_wide_int_literal(&b.left, false) || has_wide_int_literal(&b.right, false)
        }
        syn::Expr::Range(r) => {
            r.start
                .as_ref()
                .is_some_and(|s| has_wide_int_literal(s, false))
                || r.end
                    .as_ref()
                    .is_some_and(|s| has_wide_int_literal(s, false))
        }
        syn::Expr::MethodCall(m) => {
            has_wide_int_literal(&m.receiver, false)
                || m.args.iter().any(|a| has_wide_int_literal(a, false))
        }
        _ => false,
    }
}

impl Lowerer<'_> {
    /// The default type of a flexible group. While inferring, a group that
    /// mentions a symbol of unknown type has none yet: defaulting it would
    /// fix the symbol's type before its real uses are seen.
    pub(super) fn default_for(&self, sc: &Scope, exprs: &[&syn::Expr]) -> Option<ScalarType> {
        if (self.inferring || sc.probing)
            && exprs.iter().any(|e| self.mentions_unknown_symbol(sc, e))
        {
            return None;
        }
        default_type_of(exprs)
    }

    fn mentions_unknown_symbol(&self, sc: &Scope, e: &syn::Expr) -> bool {
        struct Finder<'c, 'a> {
            cx: &'c Lowerer<'a>,
            sc: &'c Scope,
            found: bool,
        }
        impl<'ast> syn::visit::Visit<'ast> for Finder<'_, '_> {
            fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
                if let Some(ident) = p.path.get_ident() {
                    match self.cx.resolve(self.sc, &ident.to_string()) {
                        Resolved::Symbol(s) => self.found |= self.cx.symbol_types[s].is_none(),
                        Resolved::Local(l) => self.found |= self.sc.is_open(l),
                        _ => {}
                    }
                }
            }
        }
        let mut finder = Finder {
            cx: self,
            sc,
            found: false,
        };
        syn::visit::Visit::visit_expr(&mut finder, e);
        finder.found
    }

    /// `expected` when every one of `exprs` is flexible (it then decides
    /// their type), else None (they have a type of their own, and the
    /// caller's check reports a mismatch once, for the whole expression).
    pub(super) fn only_if_flexible(
        &self,
        sc: &Scope,
        exprs: &[&syn::Expr],
        expected: Option<ScalarType>,
    ) -> Option<ScalarType> {
        expected.filter(|_| exprs.iter().all(|e| is_flexible(self, sc, e)))
    }

    /// Lowers two operands to one type: the side with a type of its own
    /// first, the other checked against it.
    pub(super) fn unify(
        &mut self,
        sc: &mut Scope,
        lhs: &syn::Expr,
        rhs: &syn::Expr,
    ) -> (Option<Expr>, Option<Expr>) {
        if !is_flexible(self, sc, lhs) {
            let l = self.expr(sc, lhs, None);
            let r = self.expr(sc, rhs, l.as_ref().map(|l| l.ty));
            (l, r)
        } else if !is_flexible(self, sc, rhs) {
            let r = self.expr(sc, rhs, None);
            let l = self.expr(sc, lhs, r.as_ref().map(|r| r.ty));
            (l, r)
        } else {
            let ty = self.default_for(sc, &[lhs, rhs]);
            let l = self.expr(sc, lhs, ty);
            let r = self.expr(sc, rhs, l.as_ref().map(|l| l.ty).or(ty));
            (l, r)
        }
    }
}
