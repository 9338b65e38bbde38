//! Array statements: `B[1..N-1] = 0.5 * (A[0..N-2] + A[2..N]);`,
//! `B = A * 2.0;`, `B += A;` lower to one map over the target's sliced
//! dimensions (`on gpu` when the target is a `gpu` container, `on cpu`
//! otherwise), whose body is the statement with every slice and whole
//! array replaced by its element.
//!
//! - A dimension of the target is sliced by a range (`a..b`, `a..=b`,
//!   `(a..b).step_by(s)`), kept by an index, or whole (`B` alone). Each
//!   sliced dimension is a map parameter `__iK`.
//! - An operand is a slice of a container (at least one range), a whole
//!   array, or a scalar value (a literal, a symbol, a scalar container, an
//!   element `A[0, 2]`), which every element sees (broadcast). Its sliced
//!   dimensions, in order, pair with the target's, and the lengths must be
//!   equal: provably, as linear forms of the symbols.
//! - Without steps in a dimension, the parameter runs over the target's
//!   range and an operand reads `__iK + (a' - a)` (folded: `A[0..N-2]`
//!   under `B[1..N-1]` reads `A[__i0 - 1]`); with a step anywhere in it,
//!   the parameter counts `0..len` and each side reads `start + __iK * step`.
//! - NumPy evaluates the right side before it assigns; a map cannot, so an
//!   operand that reads the target's container at other elements than it
//!   writes is an error (the values would depend on the order).

use super::typing::{source_text, strip_parens, Resolved, Scope, ScopeKind};
use super::*;
use crate::ir::linear::{Leaf, Linear};
use crate::parse::AssignAst;
use proc_macro2::{Ident, TokenStream};
use quote::{quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

/// One dimension of a target or an operand.
#[derive(Clone)]
enum Dim {
    /// An index: the dimension is not sliced.
    Index(syn::Expr),
    Slice(Box<Slice>),
}

/// A sliced dimension: the start and step as written (`0` for a whole
/// dimension), the lowered range and its length as a form.
#[derive(Clone)]
struct Slice {
    start: syn::Expr,
    step: Option<syn::Expr>,
    ty: ScalarType,
    start_ir: Expr,
    end_ir: Expr,
    /// `a..=last`: `end_ir` is `last + 1` (see `ir::range_end`).
    inclusive: bool,
    step_ir: Option<Expr>,
    len: Extent,
}

/// The number of elements of a slice, symbolically: `end - start`, and
/// the step when there is one. Equal extents mean equal lengths.
#[derive(Clone, PartialEq)]
struct Extent {
    span: Option<Linear<String>>,
    step: Option<Option<Linear<String>>>,
}

impl Extent {
    fn text(&self) -> String {
        let form = |f: &Option<Linear<String>>| {
            f.as_ref()
                .map_or_else(|| "?".to_string(), |f| f.render(|v| v.clone(), " * "))
        };
        match &self.step {
            None => form(&self.span),
            Some(step) => format!("({}) / {} rounded up", form(&self.span), form(step)),
        }
    }
}

/// The container a target or operand names, with its dimensions.
struct Access {
    container: ContainerId,
    /// The container's name as written.
    name: Ident,
    dims: Vec<Dim>,
    /// The user's tokens (`A[0..N - 2]`, `A`).
    text: String,
    span: Span,
}

impl Access {
    fn slices(&self) -> impl Iterator<Item = &Slice> {
        self.dims.iter().filter_map(|d| match d {
            Dim::Slice(s) => Some(&**s),
            Dim::Index(_) => None,
        })
    }
}

impl Lowerer<'_> {
    pub(super) fn lower_array(
        &mut self,
        a: &AssignAst,
        value: &syn::Expr,
        name: &str,
    ) -> Option<Statement> {
        let target = self.array_target(&a.target)?;
        let slices: Vec<Slice> = target.slices().cloned().collect();
        // Pass 1: every operand, checked against the target.
        let mut operands = Vec::new();
        let mut ok = true;
        {
            let mut find = Operands {
                cx: self,
                found: &mut operands,
                seen: 0,
                rewrite: None,
            };
            let mut probe = value.clone();
            find.visit_expr_mut(&mut probe);
            if find.seen != find.found.len() {
                return None; // an operand's range had an error, reported
            }
        }
        for op in &operands {
            ok &= self.check_operand(&target, &slices, op);
        }
        if !ok {
            return None;
        }
        // A dimension with a step anywhere counts its elements.
        let counted: Vec<bool> = (0..slices.len())
            .map(|k| {
                slices[k].step.is_some()
                    || operands
                        .iter()
                        .any(|o| o.slices().nth(k).is_some_and(|s| s.step.is_some()))
            })
            .collect();
        let params = self.fresh_params(slices.len());
        let target_expr = element(&target, &slices, &counted, &params);
        let mut value = value.clone();
        {
            let mut rewrite = Operands {
                cx: self,
                found: &mut Vec::new(),
                seen: 0,
                rewrite: Some(Rewrite {
                    slices: &slices,
                    counted: &counted,
                    params: &params,
                    done: 0,
                    operands: &operands,
                    target: &target,
                    target_expr: &target_expr,
                    overlaps: Vec::new(),
                }),
            };
            rewrite.visit_expr_mut(&mut value);
            let overlaps = rewrite.rewrite.map(|r| r.overlaps).unwrap_or_default();
            for (text, span) in overlaps {
                let cname = self.containers[target.container].name.text.clone();
                self.error(
                    Diagnostic::error(
                        span,
                        format!("`{text}` reads `{cname}` at other elements than `{}` writes", target.text),
                    )
                    .help(format!("write the result into another container (a transient: `transient ... T: ...;`, then `{} = T;`)", target.text))
                    .note("NumPy computes the right side before it assigns; the statement's elements are computed in parallel, so some would read values already overwritten"),
                );
                ok = false;
            }
        }
        if !ok {
            return None;
        }
        let span = a.span;
        let value = match a.op {
            None => value,
            Some(op) => {
                let sym: TokenStream = match op {
                    BinOp::Add => quote_spanned!(span=> +),
                    BinOp::Sub => quote_spanned!(span=> -),
                    BinOp::Mul => quote_spanned!(span=> *),
                    _ => quote_spanned!(span=> /),
                };
                syn::parse_quote_spanned!(span=> #target_expr #sym (#value))
            }
        };
        let stmt: syn::Stmt = syn::parse_quote_spanned!(span=> #target_expr = #value;);
        let map_params: Vec<MapParam> = slices
            .iter()
            .zip(&params)
            .zip(&counted)
            .map(|((s, p), &counted)| self.slice_param(s, p, counted))
            .collect();
        let param_types: Vec<(String, ScalarType)> = map_params
            .iter()
            .map(|p| (p.name.text.clone(), p.ty))
            .collect();
        let (stmts, scope) = self.body(
            || {
                let mut scope = Scope::new(ScopeKind::Body);
                scope.params = param_types.clone();
                scope
            },
            std::slice::from_ref(&stmt),
        );
        let mut body = TaskletBody {
            stmts,
            locals: scope.locals,
        };
        reduction_forms::fold_local_min_max(&mut body);
        let memlets = memlets::body_memlets(&self.containers, &body);
        let schedule = match self.containers[target.container].storage {
            Storage::Gpu => MapSchedule::Gpu,
            _ => MapSchedule::Cpu,
        };
        Some(Statement {
            kind: StatementKind::Map(Map {
                name: Name::new(name, target.span),
                params: map_params,
                schedule,
                body,
                independent: Vec::new(),
                library: None,
                block: None,
                gpu_tasklet: false,
            }),
            memlets,
            span: target.span,
        })
    }

    /// `B` or `B[d0, ...]` on the left: a container and its dimensions.
    fn array_target(&mut self, target: &syn::Expr) -> Option<Access> {
        let (ident, entries) = match strip_parens(target) {
            syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                (p.path.get_ident()?.clone(), None)
            }
            syn::Expr::Index(ix) => match strip_parens(&ix.expr) {
                syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                    (p.path.get_ident()?.clone(), Some(index_entries(&ix.index)))
                }
                other => {
                    self.error(
                        Diagnostic::error(other.span(), "expected a container name")
                            .help("assign to a container, a slice `B[1..N]` or an element `B[0]`"),
                    );
                    return None;
                }
            },
            other => {
                self.error(
                    Diagnostic::error(other.span(), "cannot assign to this expression").help(
                        "assign to a container `B`, a slice `B[1..N, 0]` or an element `B[0]`",
                    ),
                );
                return None;
            }
        };
        let container = self.container_name(&ident)?;
        self.access_of(container, &ident, entries.as_deref(), target)
    }

    /// The dimensions of `container` as `entries` (None: the whole
    /// container) slice or index it.
    fn access_of(
        &mut self,
        container: ContainerId,
        ident: &Ident,
        entries: Option<&[syn::Expr]>,
        written: &syn::Expr,
    ) -> Option<Access> {
        let shape = self.containers[container].shape.clone();
        let name = ident.to_string();
        let dims = match entries {
            None => shape
                .iter()
                .map(|d| {
                    let zero_ty = d.ty;
                    let start: syn::Expr = syn::parse_quote_spanned!(ident.span()=> 0);
                    let zero = Expr::lit(Value::from_bits(zero_ty, 0), ident.span());
                    Dim::Slice(Box::new(Slice {
                        len: extent(&zero, d, None, &self.symbols),
                        start,
                        step: None,
                        ty: zero_ty,
                        start_ir: zero,
                        end_ir: d.clone(),
                        inclusive: false,
                        step_ir: None,
                    }))
                })
                .collect(),
            Some(entries) => {
                if entries.len() != shape.len() {
                    self.error(
                        Diagnostic::error(
                            written.span(),
                            format!(
                                "`{name}` has {} but {} given",
                                count(shape.len(), "dimension"),
                                count(entries.len(), "index or range"),
                            ),
                        )
                        .help("give one index or range per dimension, e.g. `A[1..N - 1, 0]`"),
                    );
                    return None;
                }
                let mut dims = Vec::new();
                for e in entries {
                    dims.push(self.dim_of(e)?);
                }
                dims
            }
        };
        Some(Access {
            container,
            name: ident.clone(),
            dims,
            text: match entries {
                // Entry by entry: `source_text` would read `A[(0..N).step_by(2)]`
                // as the tuple spelling `A[(i, j)]`.
                Some(entries) => {
                    let parts: Vec<String> = entries.iter().map(source_text).collect();
                    format!("{name}[{}]", parts.join(", "))
                }
                None => source_text(written),
            },
            span: ident.span(),
        })
    }

    /// One entry of a subscript: a range (lowered over symbols and literals)
    /// or an index (left to the body).
    fn dim_of(&mut self, e: &syn::Expr) -> Option<Dim> {
        let Some((start, step)) = range_parts(e) else {
            return Some(Dim::Index(e.clone()));
        };
        let mut scope = Scope::new(ScopeKind::Subset);
        let r = self.range(&mut scope, e)?;
        Some(Dim::Slice(Box::new(Slice {
            len: extent(&r.start, &r.end, r.step.as_ref(), &self.symbols),
            start: start.clone(),
            step: step.cloned(),
            ty: r.ty,
            start_ir: r.start,
            end_ir: r.end,
            inclusive: r.inclusive,
            step_ir: r.step,
        })))
    }

    /// Reports an operand whose sliced dimensions do not pair with the
    /// target's.
    fn check_operand(&mut self, target: &Access, slices: &[Slice], op: &Access) -> bool {
        let theirs: Vec<&Slice> = op.slices().collect();
        let shape = |s: &[&Slice]| -> String {
            let parts: Vec<String> = s.iter().map(|s| s.len.text()).collect();
            format!("[{}]", parts.join(", "))
        };
        let mine: Vec<&Slice> = slices.iter().collect();
        if theirs.len() == mine.len() && theirs.iter().zip(&mine).all(|(a, b)| a.len == b.len) {
            return true;
        }
        let help = if theirs.len() != mine.len() {
            format!(
                "slice {} of `{}` (one per sliced dimension of the target); index the others",
                count(mine.len(), "dimension"),
                self.containers[op.container].name.text
            )
        } else {
            "make the ranges the same length; the lengths must be equal for every value of the symbols".to_string()
        };
        self.error(
            Diagnostic::error(
                op.span,
                format!(
                    "shapes differ: `{}` has shape {}, `{}` has shape {}",
                    target.text,
                    shape(&mine),
                    op.text,
                    shape(&theirs)
                ),
            )
            .help(help)
            .note("an array statement pairs the sliced dimensions of every operand with the target's, in order; only single values (literals, symbols, scalars, elements) broadcast"),
        );
        false
    }

    /// `__i0`, `__i1`, ...: names no symbol or container has.
    fn fresh_params(&self, n: usize) -> Vec<String> {
        let taken = |s: &str| self.global_kind(s).is_some();
        (0..n)
            .map(|k| {
                let mut name = format!("__i{k}");
                while taken(&name) {
                    name.push('_');
                }
                name
            })
            .collect()
    }

    /// The map parameter of a sliced dimension of the target.
    fn slice_param(&mut self, s: &Slice, name: &str, counted: bool) -> MapParam {
        let span = s.start_ir.span;
        if !counted {
            return MapParam {
                name: Name::new(name, span),
                ty: s.ty,
                start: s.start_ir.clone(),
                end: s.end_ir.clone(),
                inclusive: s.inclusive,
                step: None,
            };
        }
        // 0..(end - start + step - 1) / step
        let ty = s.ty;
        let bin = |op, a: Expr, b: Expr| {
            Expr::new(
                ExprKind::Binary {
                    op,
                    lhs: Box::new(a),
                    rhs: Box::new(b),
                },
                ty,
                span,
            )
        };
        let one = Expr::lit(Value::from_bits(ty, 1), span);
        let step = s.step_ir.clone().unwrap_or_else(|| one.clone());
        let count = bin(
            BinOp::Div,
            bin(
                BinOp::Sub,
                bin(
                    BinOp::Add,
                    bin(BinOp::Sub, s.end_ir.clone(), s.start_ir.clone()),
                    step.clone(),
                ),
                one,
            ),
            step,
        );
        MapParam {
            name: Name::new(name, span),
            ty,
            start: Expr::lit(Value::from_bits(ty, 0), span),
            end: count,
            inclusive: false,
            step: None,
        }
    }
}

/// `(start, step)` as written when `e` is a range `a..b`, `a..=b` or
/// `(a..b).step_by(s)`.
fn range_parts(e: &syn::Expr) -> Option<(&syn::Expr, Option<&syn::Expr>)> {
    let (range, step) = match strip_parens(e) {
        syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
            (strip_parens(&m.receiver), Some(&m.args[0]))
        }
        other => (other, None),
    };
    match range {
        syn::Expr::Range(r) => Some((r.start.as_deref()?, step)),
        _ => None,
    }
}

/// The entries of `A[...]`: a tuple's elements (`A[(i, j)]`) or one index.
fn index_entries(index: &syn::Expr) -> Vec<syn::Expr> {
    match strip_parens(index) {
        syn::Expr::Tuple(t) => t.elems.iter().cloned().collect(),
        other => vec![other.clone()],
    }
}

/// The length of `start..end` (by `step`) as forms over the symbols.
fn extent(start: &Expr, end: &Expr, step: Option<&Expr>, symbols: &[Symbol]) -> Extent {
    let form = |e: &Expr| {
        Linear::from_expr(e, &mut |x: &Expr| match &x.kind {
            ExprKind::Var(VarRef::Symbol(s)) => Leaf::Form(Linear::var(
                symbols
                    .get(*s)
                    .map_or("?".to_string(), |s| s.name.text.clone()),
            )),
            ExprKind::Lit(_)
            | ExprKind::Unary { .. }
            | ExprKind::Binary {
                op: BinOp::Add | BinOp::Sub | BinOp::Mul,
                ..
            }
            | ExprKind::Cast { .. } => Leaf::Descend,
            _ => Leaf::Form(Linear::var(format!("({})", memlets::expr_key(x)))),
        })
    };
    let span = form(end).and_then(|e| e.add(&form(start)?, -1));
    // A step of 1 counts as many elements as no step.
    let step = step
        .map(form)
        .filter(|s| s.as_ref().and_then(Linear::as_constant) != Some(1));
    // Constant bounds and step are a constant length (`(3..6).step_by(2)`
    // has 2 elements, as `0..2` has).
    let constant = |f: &Option<Linear<String>>| f.as_ref().and_then(Linear::as_constant);
    if let (Some(span_len), Some(Some(step_len))) = (constant(&span), step.as_ref().map(constant)) {
        if step_len > 0 {
            let len = if span_len > 0 {
                (span_len + step_len - 1) / step_len
            } else {
                0
            };
            return Extent {
                span: Some(Linear::constant(len)),
                step: None,
            };
        }
    }
    Extent { span, step }
}

/// The element of `access` that iteration `params` reads or writes.
fn element(access: &Access, slices: &[Slice], counted: &[bool], params: &[String]) -> syn::Expr {
    let name = &access.name;
    if access.dims.is_empty() {
        return syn::parse_quote_spanned!(access.span=> #name);
    }
    let mut k = 0;
    let entries: Vec<TokenStream> = access
        .dims
        .iter()
        .map(|d| match d {
            Dim::Index(e) => e.to_token_stream(),
            Dim::Slice(s) => {
                // Operands were checked to slice as many dimensions.
                let t = match (slices.get(k), counted.get(k), params.get(k)) {
                    (Some(of_target), Some(&counted), Some(p)) => {
                        index_in(s, of_target, counted, p)
                    }
                    _ => s.start.to_token_stream(),
                };
                k += 1;
                t
            }
        })
        .collect();
    let span = access.span;
    if entries.len() == 1 {
        let e = &entries[0];
        syn::parse_quote_spanned!(span=> #name[#e])
    } else {
        syn::parse_quote_spanned!(span=> #name[(#(#entries),*)])
    }
}

/// The index into slice `s` (of an operand or the target) for the target
/// slice `of_target` at parameter `p`.
fn index_in(s: &Slice, of_target: &Slice, counted: bool, p: &str) -> TokenStream {
    let span = s.start.span();
    let p = Ident::new(p, span);
    let start = &s.start;
    if counted {
        return match &s.step {
            Some(step) => quote_spanned!(span=> ((#start) + #p * (#step))),
            None => quote_spanned!(span=> ((#start) + #p)),
        };
    }
    let theirs = &of_target.start;
    let literal = |e: &syn::Expr| match strip_parens(e) {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) if i.suffix().is_empty() => i.base10_parse::<i128>().ok(),
        _ => None,
    };
    match (literal(start), literal(theirs)) {
        (Some(a), Some(b)) => {
            let d = a - b;
            let lit = proc_macro2::Literal::i128_unsuffixed(d.abs());
            match d.cmp(&0) {
                std::cmp::Ordering::Equal => quote_spanned!(span=> #p),
                std::cmp::Ordering::Greater => quote_spanned!(span=> (#p + #lit)),
                std::cmp::Ordering::Less => quote_spanned!(span=> (#p - #lit)),
            }
        }
        _ if source_text(start) == source_text(theirs) => quote_spanned!(span=> #p),
        // Never below zero on the way: `p >= their start`.
        _ => quote_spanned!(span=> ((#p + (#start)) - (#theirs))),
    }
}

/// What the operand walk rewrites with (pass 2).
struct Rewrite<'r> {
    slices: &'r [Slice],
    counted: &'r [bool],
    params: &'r [String],
    operands: &'r [Access],
    done: usize,
    target: &'r Access,
    target_expr: &'r syn::Expr,
    /// Operands that read the target's container elsewhere: text, span.
    overlaps: Vec<(String, Span)>,
}

/// Finds the operands of a value (pass 1), or replaces them by their
/// elements (pass 2), in the same order.
struct Operands<'c, 'a, 'r> {
    cx: &'c mut Lowerer<'a>,
    found: &'c mut Vec<Access>,
    /// Operands met (pass 1 finds fewer when one has an error).
    seen: usize,
    rewrite: Option<Rewrite<'r>>,
}

impl Operands<'_, '_, '_> {
    /// `A[...]` with a range in it, or an array `A` alone.
    fn operand(&mut self, e: &syn::Expr) -> Option<(ContainerId, Ident, Option<Vec<syn::Expr>>)> {
        match e {
            syn::Expr::Index(ix) => {
                let syn::Expr::Path(p) = strip_parens(&ix.expr) else {
                    return None;
                };
                let ident = p.path.get_ident()?;
                let Resolved::Container(c) = self
                    .cx
                    .resolve(&Scope::new(ScopeKind::Body), &ident.to_string())
                else {
                    return None;
                };
                let entries = index_entries(&ix.index);
                entries
                    .iter()
                    .any(|x| range_parts(x).is_some())
                    .then(|| (c, ident.clone(), Some(entries)))
            }
            syn::Expr::Path(p) => {
                let ident = p.path.get_ident()?;
                let Resolved::Container(c) = self
                    .cx
                    .resolve(&Scope::new(ScopeKind::Body), &ident.to_string())
                else {
                    return None;
                };
                (!self.cx.containers[c].is_scalar()).then(|| (c, ident.clone(), None))
            }
            _ => None,
        }
    }
}

impl VisitMut for Operands<'_, '_, '_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        let Some((c, ident, entries)) = self.operand(e) else {
            match e {
                // An element `A[0, k]`: its indices may hold operands, its
                // name is not a whole array.
                syn::Expr::Index(ix) if matches!(strip_parens(&ix.expr), syn::Expr::Path(_)) => {
                    // One element of the target, read by every iteration
                    // (`A = A / A[0]`), may be overwritten before some read it.
                    if let (Some(r), syn::Expr::Path(p)) =
                        (&mut self.rewrite, strip_parens(&ix.expr))
                    {
                        if p.path.is_ident(&r.target.name) {
                            r.overlaps.push((source_text(&*ix), p.span()));
                        }
                    }
                    self.visit_expr_mut(&mut ix.index)
                }
                _ => syn::visit_mut::visit_expr_mut(self, e),
            }
            return;
        };
        self.seen += 1;
        match &mut self.rewrite {
            None => {
                if let Some(access) = self.cx.access_of(c, &ident, entries.as_deref(), e) {
                    self.found.push(access);
                }
                // Slices inside an operand's indices are operands too.
                if let syn::Expr::Index(ix) = e {
                    self.visit_expr_mut(&mut ix.index);
                }
            }
            Some(r) => {
                let Some(access) = r.operands.get(r.done) else {
                    return;
                };
                r.done += 1;
                let mut replaced = element(access, r.slices, r.counted, r.params);
                if access.container == r.target.container
                    && source_text(&replaced) != source_text(r.target_expr)
                {
                    r.overlaps.push((access.text.clone(), access.span));
                }
                if let syn::Expr::Index(ix) = &mut replaced {
                    self.visit_expr_mut(&mut ix.index);
                }
                *e = replaced;
            }
        }
    }
}
