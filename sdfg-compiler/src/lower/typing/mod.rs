//! Expressions: syn -> typed `ir::Expr`, bidirectionally.
//!
//! `expr(e, expected)` lowers `e` and checks it has the expected type. The
//! expected type flows down into operands, so unsuffixed literals take the
//! type their context needs (`x * 2.0` with `x: f32` makes `2.0` an `f32`).
//! Where nothing constrains a *flexible* expression (one whose type would
//! come only from unsuffixed literals), it gets Rust's default: `i32` (or
//! `i64` when a literal does not fit `i32`) for integers, `f64` for floats.
//! Binary operands are unified the same way: the side with a type of its own
//! is lowered first and the other side is checked against it.
//!
//! One file per kind of syntax: [`scope`] (what names mean), [`flexible`]
//! (literal-typed expressions and operand unification), [`literals`],
//! [`operators`], [`math`] (the math methods), [`conditional`] (`if/else`
//! values, blocks), [`complex`] (`c64::new(re, im)`, `z.re`, `z.im`),
//! [`ranges`], [`constants`] (`f64::consts::PI`,
//! `i32::MAX`, ...), and [`text`] (source text for helps). This
//! file dispatches on the syntax and checks the expected type.

mod complex;
mod conditional;
mod constants;
mod flexible;
mod literals;
mod math;
mod operators;
mod ranges;
mod scope;
mod text;

pub(crate) use flexible::{default_type, is_flexible};
pub(crate) use scope::{BlockScope, LetKey, Resolved, Scope, ScopeKind};
pub(crate) use text::{first_span, index_example, mention, mentions, source_text, strip_parens};

use super::*;
use syn::spanned::Spanned;
use text::cast_hint;

impl Lowerer<'_> {
    /// Lowers `e` and checks that it has type `expected` (when given).
    pub(crate) fn expr(
        &mut self,
        sc: &mut Scope,
        e: &syn::Expr,
        expected: Option<ScalarType>,
    ) -> Option<Expr> {
        let expected = match expected {
            Some(t) => Some(t),
            None if is_flexible(self, sc, e) => self.default_for(sc, &[e]),
            None => None,
        };
        let out = self.synth(sc, e, expected)?;
        if let Some(t) = expected {
            if out.ty != t {
                self.mismatch(e, t, out.ty);
                return None;
            }
        }
        Some(out)
    }

    /// `e` must be an integer (shapes, indices, subsets).
    pub(crate) fn integer_expr(
        &mut self,
        sc: &mut Scope,
        e: &syn::Expr,
        what: &str,
    ) -> Option<Expr> {
        let out = self.expr(sc, e, None)?;
        if !out.ty.is_integer() {
            let text = source_text(e);
            self.error(
                Diagnostic::error(
                    e.span(),
                    format!("{what} must be an integer, found `{}`", out.ty),
                )
                .help(format!("convert it: {}", cast_hint(&text, ScalarType::I64))),
            );
            return None;
        }
        Some(out)
    }

    pub(crate) fn mismatch(&mut self, e: &syn::Expr, expected: ScalarType, found: ScalarType) {
        let text = source_text(e);
        let mut d = Diagnostic::error(
            e.span(),
            format!("mismatched types: expected `{expected}`, found `{found}`"),
        );
        d = if expected.is_numeric() && found.is_numeric() {
            d.help(format!("convert it: {}", cast_hint(&text, expected)))
                .note("the tasklet language has no implicit conversions")
        } else if expected == ScalarType::Bool && found.is_numeric() {
            d.help(format!("compare it to get a `bool`, e.g. `{text} != 0`"))
        } else if found == ScalarType::Bool && expected.is_integer() {
            d.help(format!(
                "convert it: {} (a bool converts to 0 or 1)",
                cast_hint(&text, expected)
            ))
        } else if expected.is_complex() && found.is_complex() {
            let part = expected.real_part();
            d.help(format!(
                "convert the parts: `{expected}::new({text}.re as {part}, {text}.im as {part})`"
            ))
        } else if expected.is_complex() && found.is_numeric() {
            let part = expected.real_part();
            let value = if found == part {
                text.clone()
            } else {
                cast_hint(&text, part).trim_matches('`').to_string()
            };
            d.help(format!(
                "build a complex number: `{expected}::new({value}, 0.0)`"
            ))
        } else if found.is_complex() && expected.is_numeric() {
            d.help(format!(
                "take a part, `{text}.re` or `{text}.im`, or the magnitude `{text}.norm()`"
            ))
        } else {
            d.note("the tasklet language has no implicit conversions")
        };
        self.error(d);
    }

    fn unsupported(&mut self, e: &syn::Expr, help: &str) -> Option<Expr> {
        self.error(
            Diagnostic::error(
                e.span(),
                format!(
                    "`{}` is not supported in the tasklet language",
                    source_text(e)
                ),
            )
            .help(help.to_string()),
        );
        None
    }

    /// Lowers `e`; `expected` guides literals and operands, but the result
    /// may still have another type (checked by `expr`).
    fn synth(
        &mut self,
        sc: &mut Scope,
        e: &syn::Expr,
        expected: Option<ScalarType>,
    ) -> Option<Expr> {
        match e {
            syn::Expr::Lit(l) => self.literal(&l.lit, false, expected, e.span()),
            syn::Expr::Paren(p) => self.synth(sc, &p.expr, expected),
            syn::Expr::Group(g) => self.synth(sc, &g.expr, expected),
            syn::Expr::Path(p) => self.path_expr(sc, p, expected),
            syn::Expr::Index(ix) => {
                let (container, index) = self.element(sc, ix)?;
                let ty = self.containers[container].elem;
                Some(Expr::new(ExprKind::Load { container, index }, ty, e.span()))
            }
            syn::Expr::Unary(u) => self.unary(sc, u, expected),
            syn::Expr::Binary(b) => self.binary(sc, b, expected),
            syn::Expr::Cast(c) => self.cast(sc, c),
            syn::Expr::If(i) => self.select(sc, i, expected),
            syn::Expr::Block(b) => {
                if b.label.is_some() {
                    return self.unsupported(e, "remove the label");
                }
                self.value_block(sc, &b.block, expected)
            }
            syn::Expr::MethodCall(m) => self.math_call(sc, m, expected),
            syn::Expr::Field(f) => self.complex_part(sc, f),
            syn::Expr::Call(c) if complex::is_constructor(&c.func) => {
                self.complex_new(sc, c, expected)
            }
            syn::Expr::Loop(_) | syn::Expr::While(_) | syn::Expr::ForLoop(_) => self.unsupported(
                e,
                "a loop has no value: declare `let mut x = ...;` before it, assign `x` in it and use `x` after it",
            ),
            syn::Expr::Range(_) => self.unsupported(
                e,
                "a range is only allowed in a `for` loop or a map's header: `for k in 0..N { ... }`",
            ),
            syn::Expr::Assign(_) => self.unsupported(
                e,
                "an assignment is a statement: end it with `;` and use the value after it",
            ),
            syn::Expr::Call(c) => {
                let name = match &*c.func {
                    syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                    _ => None,
                };
                match name.as_deref().and_then(MathFn::from_method_name) {
                    Some(f) => {
                        let args: Vec<String> = c.args.iter().map(source_text).collect();
                        let receiver = args.first().map_or("x".to_string(), |a| {
                            if a.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.') {
                                a.clone()
                            } else {
                                format!("({a})")
                            }
                        });
                        let rest = args.get(1..).unwrap_or_default().join(", ");
                        self.unsupported(
                            e,
                            &format!("call it as a method: `{receiver}.{}({rest})`", f.method_name()),
                        )
                    }
                    None => {
                        let methods: Vec<String> = MathFn::ALL
                            .iter()
                            .map(|f| match (f.arity(), f) {
                                (_, MathFn::Powi) => "x.powi(n)".to_string(),
                                (1, f) => format!("x.{}()", f.method_name()),
                                (_, f) => format!("x.{}(y)", f.method_name()),
                            })
                            .collect();
                        let methods: Vec<&str> = methods.iter().map(String::as_str).collect();
                        self.unsupported(
                            e,
                            &format!(
                                "functions cannot be called; the math methods are {}",
                                crate::diag::suggest::backticked(&methods)
                            ),
                        )
                    }
                }
            }
            _ => self.unsupported(
                e,
                "use literals, names, `A[i, j]`, arithmetic, comparisons, `&&`/`||`/`!`, `if`/`else`, `as` casts and the math methods",
            ),
        }
    }

    fn path_expr(
        &mut self,
        sc: &mut Scope,
        p: &syn::ExprPath,
        expected: Option<ScalarType>,
    ) -> Option<Expr> {
        let span = p.span();
        let Some(ident) = p.path.get_ident().filter(|_| p.qself.is_none()) else {
            return self.constant_path(p);
        };
        let name = ident.to_string();
        match self.resolve(sc, &name) {
            Resolved::Local(id) => {
                if sc.poisoned.get(id).copied().unwrap_or(false) {
                    return None;
                }
                let mut ty = sc.locals[id].ty;
                if sc.is_open(id) {
                    // Probe pass: the use decides the local's type. A loop
                    // variable where nothing is expected (an index) keeps
                    // its provisional type, so the statement's other uses
                    // are still lowered and can decide.
                    match expected {
                        Some(t) => {
                            ty = t;
                            sc.hint(id, ty);
                        }
                        None if sc.loop_vars[id] => {}
                        None => return None,
                    }
                }
                Some(Expr::new(ExprKind::Var(VarRef::Local(id)), ty, span))
            }
            Resolved::Param(n) => {
                let ty = sc.params[n].1;
                Some(Expr::new(ExprKind::Var(VarRef::Param(n)), ty, span))
            }
            Resolved::Symbol(s) => {
                let ty = match (self.symbol_types[s], expected) {
                    (Some(t), _) => t,
                    (None, Some(t)) => {
                        // Inference: the context fixes the unknown symbol's type.
                        self.symbol_types[s] = Some(t);
                        self.changed = true;
                        t
                    }
                    (None, None) => return None,
                };
                Some(Expr::new(ExprKind::Var(VarRef::Symbol(s)), ty, span))
            }
            Resolved::Container(c) => {
                if !self.container_allowed(sc, ident) {
                    return None;
                }
                let container = &self.containers[c];
                if container.is_scalar() {
                    let ty = container.elem;
                    return Some(Expr::new(
                        ExprKind::Load {
                            container: c,
                            index: Vec::new(),
                        },
                        ty,
                        span,
                    ));
                }
                let rank = container.shape.len();
                self.error(
                    Diagnostic::error(span, format!("`{name}` is an array, not a value")).help(
                        format!("use one element: `{name}[{}]`", index_example(rank)),
                    ),
                );
                None
            }
            Resolved::Unknown => {
                self.unknown_name(sc, ident);
                None
            }
        }
    }

    /// `A[i, j]`: the container and its lowered indices.
    pub(crate) fn element(
        &mut self,
        sc: &mut Scope,
        ix: &syn::ExprIndex,
    ) -> Option<(ContainerId, Vec<Expr>)> {
        let base = strip_parens(&ix.expr);
        if let syn::Expr::Index(inner) = base {
            let name = source_text(&inner.expr);
            let first = source_text(&inner.index);
            let second = source_text(&ix.index);
            self.error(
                Diagnostic::error(ix.span(), "index a container with one pair of brackets")
                    .help(format!("write `{name}[{first}, {second}]`")),
            );
            return None;
        }
        let syn::Expr::Path(p) = base else {
            self.error(
                Diagnostic::error(base.span(), "only containers can be indexed")
                    .help("index a container by its name: `A[i]`"),
            );
            return None;
        };
        let Some(ident) = p.path.get_ident() else {
            self.error(
                Diagnostic::error(p.span(), "only containers can be indexed")
                    .help("index a container by its name: `A[i]`"),
            );
            return None;
        };
        let name = ident.to_string();
        let indices: Vec<&syn::Expr> = match strip_parens(&ix.index) {
            syn::Expr::Tuple(t) => t.elems.iter().collect(),
            other => vec![other],
        };
        let container = match self.resolve(sc, &name) {
            Resolved::Container(c) => c,
            Resolved::Unknown => {
                let candidates: Vec<String> = self
                    .containers
                    .iter()
                    .filter(|c| !c.storage.is_block_local())
                    .map(|c| c.name.text.clone())
                    .collect();
                let mut d = Diagnostic::error(ident.span(), format!("unknown container `{name}`"));
                if let Some(note) = self.block_data_elsewhere(&name) {
                    self.error(d.note(note).help(format!(
                        "`{name}` exists only inside its block map; use it there, or declare a `gpu` container to share data between maps"
                    )));
                    return None;
                }
                d = match closest_name(&name, candidates.iter().map(String::as_str)) {
                    Some(c) => d.help(format!("did you mean `{c}`?")),
                    None => d.help(format!("declare it, e.g. `host {name}: f64[N];`")),
                };
                self.error(d);
                return None;
            }
            Resolved::Local(_) | Resolved::Param(_) | Resolved::Symbol(_) => {
                let kind = match self.resolve(sc, &name) {
                    Resolved::Local(_) => "local",
                    Resolved::Param(_) => "map parameter",
                    _ => "symbol",
                };
                self.error(
                    Diagnostic::error(
                        ident.span(),
                        format!("`{name}` is a {kind}, it cannot be indexed"),
                    )
                    .help("only containers are indexed: `A[i]`"),
                );
                return None;
            }
        };
        if !self.container_allowed(sc, ident) {
            return None;
        }
        let rank = self.containers[container].shape.len();
        if rank == 0 {
            self.error(
                Diagnostic::error(ix.span(), format!("`{name}` is a scalar, it has no index"))
                    .help(format!("use it without brackets: `{name}`")),
            );
            return None;
        }
        if indices.len() != rank {
            self.error(
                Diagnostic::error(
                    ix.index.span(),
                    format!(
                        "`{name}` has {} but {} given",
                        count(rank, "dimension"),
                        if indices.len() == 1 {
                            "1 index was".to_string()
                        } else {
                            format!("{} indices were", indices.len())
                        }
                    ),
                )
                .help(format!(
                    "give one index per dimension: `{name}[{}]`",
                    index_example(rank)
                )),
            );
            return None;
        }
        let mut out = Vec::new();
        for idx in indices {
            if let Some(e) = self.integer_expr(sc, idx, "an index") {
                out.push(e);
            }
        }
        (out.len() == rank).then_some((container, out))
    }
}
