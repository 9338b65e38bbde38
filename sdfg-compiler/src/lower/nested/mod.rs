//! Nested SDFGs: `sdfg Inner { ... }` declared inside an sdfg, called from
//! a state as `Inner(N = M, A = X[0..M]);`.
//!
//! - [`Callees`]: which nested sdfg a call names (lexical scope: the
//!   sdfg's own declarations, then those of the sdfgs around it), each
//!   lowered once, on demand, with recursion reported at the call;
//! - this file: the call itself, lowered into a `StatementKind::Nested`
//!   statement (symbol values, bindings, their checks, the memlets);
//! - `inline`: the SDFG with its calls replaced by the callees' states,
//!   which is what every later stage reads;
//! - `rename`: a callee's expressions and statements in the caller's names.
//!
//! A proc macro sees only its own tokens, so a nested sdfg is declared
//! inside the `sdfg!` that calls it (DESIGN section 9).

mod inline;
mod rename;

pub(crate) use inline::inline;

use super::typing::{source_text, strip_parens, Scope, ScopeKind};
use super::{count, Lowerer};
use crate::diag::suggest::{backticked, closest_name};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::linear::{constant_value, Leaf, Linear};
use crate::ir::nested::container_use;
use crate::ir::*;
use crate::parse::{self, CallAst, Item, SdfgAst};
use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;
use syn::spanned::Spanned;

/// The nested sdfgs declared in one sdfg, and the scope around it.
pub(crate) struct Callees<'a> {
    /// The sdfg whose items declare `decls`.
    owner: &'a SdfgAst,
    decls: Vec<&'a SdfgAst>,
    lowered: RefCell<Vec<Lowering>>,
    /// The errors of `decls`, reported once by the owner's lowering.
    errors: RefCell<Diagnostics>,
    parent: Option<&'a Callees<'a>>,
    /// The owner's `#[sync(...)]`, which the sdfgs nested in it share (a
    /// nested sdfg takes no attributes).
    pub(crate) sync: SyncMode,
}

#[derive(Clone)]
enum Lowering {
    NotYet,
    /// Being lowered: a call reaching it again is recursion.
    Active,
    /// Lowered; None when it had errors (already in `errors`).
    Done(Option<Rc<Sdfg>>),
}

impl<'a> Callees<'a> {
    pub(crate) fn new(owner: &'a SdfgAst, parent: Option<&'a Callees<'a>>) -> Callees<'a> {
        let decls: Vec<&SdfgAst> = owner
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Nested(n) => Some(&**n),
                Item::Extern(e) => e.source.as_ref().map(|(ast, _)| &**ast),
                _ => None,
            })
            .collect();
        let sync = match (owner.sync, parent) {
            (Some((mode, _)), _) => mode,
            (None, Some(p)) => p.sync,
            (None, None) => SyncMode::Auto,
        };
        Callees {
            owner,
            lowered: RefCell::new(vec![Lowering::NotYet; decls.len()]),
            decls,
            errors: RefCell::new(Diagnostics::new()),
            parent,
            sync,
        }
    }

    /// Names declared twice, and `extern sdfg`s whose source did not come
    /// (only a front end that is not the macro sees them so).
    pub(crate) fn check_declarations(&self) -> Diagnostics {
        let mut diags = Diagnostics::new();
        for (k, d) in self.decls.iter().enumerate() {
            if self.decls[..k].iter().any(|e| e.name == d.name) {
                diags.push(
                    Diagnostic::error(
                        d.name.span(),
                        format!("nested sdfg `{}` is declared twice", d.name),
                    )
                    .help(
                        "rename one of them (`extern sdfg PATH as NAME;` renames an external one)",
                    ),
                );
            }
        }
        for item in &self.owner.items {
            if let Item::Extern(e) = item {
                if e.source.is_none() {
                    diags.push(
                        Diagnostic::error(
                            e.name.span(),
                            format!("the source of `{}` is not here", e.name),
                        )
                        .note("an `extern sdfg` gets its source from the program's macro while `sdfg!` expands")
                        .help("expand this sdfg with the `sdfg!` macro, in a scope where the program is visible"),
                    );
                }
            }
        }
        diags
    }

    /// Lowers the declarations no call reached (their errors count too) and
    /// returns the errors of every declaration of this sdfg.
    pub(crate) fn finish(&self, active: &[String]) -> Diagnostics {
        for k in 0..self.decls.len() {
            if matches!(self.lowered.borrow()[k], Lowering::NotYet) {
                self.lower_decl(k, active);
            }
        }
        std::mem::take(&mut *self.errors.borrow_mut())
    }

    fn lower_decl(&self, k: usize, active: &[String]) {
        self.lowered.borrow_mut()[k] = Lowering::Active;
        let decl = self.decls[k];
        let mut chain = active.to_vec();
        chain.push(decl.name.to_string());
        let result = match super::lower_scoped(decl, Some(self), &chain) {
            Ok(sdfg) => Some(Rc::new(sdfg)),
            Err(d) => {
                self.errors.borrow_mut().extend(d);
                None
            }
        };
        self.lowered.borrow_mut()[k] = Lowering::Done(result);
    }

    /// The lowered sdfg `name` names from here. Err(None): its own errors
    /// are reported elsewhere.
    fn resolve(
        &self,
        name: &proc_macro2::Ident,
        active: &[String],
    ) -> Result<Rc<Sdfg>, Option<Diagnostic>> {
        let text = name.to_string();
        let recursion = || {
            let mut chain: Vec<String> = active.iter().map(|n| format!("`{n}`")).collect();
            chain.push(format!("`{text}`"));
            Diagnostic::error(
                name.span(),
                format!("recursive call of nested sdfg `{text}`"),
            )
            .note(format!("the calls go {}", chain.join(" -> ")))
            .help("nested sdfgs are inlined, so no call may lead back to an sdfg it is part of; repeat work with a loop of states (`s -> s if k + 1 < K { k = k + 1 }`)")
        };
        let mut scope = Some(self);
        while let Some(s) = scope {
            if let Some(k) = s.decls.iter().position(|d| d.name == text) {
                let state = s.lowered.borrow()[k].clone();
                return match state {
                    Lowering::Active => Err(Some(recursion())),
                    Lowering::Done(Some(sdfg)) => Ok(sdfg),
                    Lowering::Done(None) => Err(None),
                    Lowering::NotYet => {
                        s.lower_decl(k, active);
                        s.resolve(name, active)
                    }
                };
            }
            if s.owner.name == text {
                return Err(Some(recursion()));
            }
            scope = s.parent;
        }
        let mut visible: Vec<String> = Vec::new();
        let mut scope = Some(self);
        while let Some(s) = scope {
            visible.extend(s.decls.iter().map(|d| d.name.to_string()));
            scope = s.parent;
        }
        let d = Diagnostic::error(name.span(), format!("cannot find nested sdfg `{text}`"));
        Err(Some(
            match closest_name(&text, visible.iter().map(String::as_str)) {
                Some(c) => d.help(format!("did you mean `{c}`?")),
                None => d.help(format!(
                    "declare it inside this `sdfg!`: `sdfg {text} {{ ... }}` next to the states"
                )),
            },
        ))
    }
}

/// One argument of a call, as the callee declares it.
enum Param {
    Symbol(SymbolId),
    Container(ContainerId),
}

impl Lowerer<'_> {
    /// `Inner(N = M, A = X[0..M]);` -> a `StatementKind::Nested` statement.
    pub(crate) fn lower_call(&mut self, call: &CallAst) -> Option<Statement> {
        let callee = match self.callees.resolve(&call.name, &self.active) {
            Ok(c) => c,
            Err(d) => {
                if let Some(d) = d {
                    self.error(d);
                }
                return None;
            }
        };
        let callee_name = callee.name.text.clone();
        let mut symbols: Vec<Option<Expr>> = vec![None; callee.symbols.len()];
        let mut bindings: Vec<Option<Binding>> = vec![None; callee.containers.len()];
        let mut given: HashSet<String> = HashSet::new();
        let mut ok = true;
        for arg in &call.args {
            let text = arg.name.to_string();
            if !given.insert(text.clone()) {
                self.error(
                    Diagnostic::error(arg.name.span(), format!("argument `{text}` is given twice"))
                        .help("keep one"),
                );
                ok = false;
                continue;
            }
            match self.param(&callee, &arg.name) {
                Some(Param::Symbol(s)) => {
                    let mut scope = Scope::new(ScopeKind::CallArgument);
                    match self.expr(&mut scope, &arg.value, Some(callee.symbols[s].ty)) {
                        Some(v) => symbols[s] = Some(v),
                        None => ok = false,
                    }
                }
                Some(Param::Container(c)) => match self.binding(&callee, c, arg) {
                    Some(b) => bindings[c] = Some(b),
                    None => ok = false,
                },
                None => ok = false,
            }
        }
        for (c, container) in callee.containers.iter().enumerate() {
            if container.transient || bindings[c].is_some() || given.contains(&container.name.text)
            {
                continue;
            }
            let name = &container.name.text;
            self.error(
                Diagnostic::error(
                    call.name.span(),
                    format!("missing argument `{name}` of nested sdfg `{callee_name}`"),
                )
                .help(format!(
                    "bind it to data of this sdfg: `{name} = X` or `{name} = X[0..N]`"
                )),
            );
            ok = false;
        }
        if !ok {
            return None;
        }
        let bindings: Vec<Binding> = bindings.into_iter().flatten().collect();
        self.infer_symbols(&callee, &bindings, &mut symbols);
        let mut values = Vec::new();
        for (s, sym) in callee.symbols.iter().enumerate() {
            if !sym.declared {
                continue;
            }
            match &symbols[s] {
                Some(v) => values.push((s, v.clone())),
                None => {
                    self.error(
                        Diagnostic::error(
                            call.name.span(),
                            format!("missing symbol `{}` of nested sdfg `{callee_name}`", sym.name.text),
                        )
                        .help(format!("give its value: `{callee_name}({} = ..., ...)`", sym.name.text))
                        .note("a symbol that is a whole dimension of a bound container takes that extent by itself"),
                    );
                    ok = false;
                }
            }
        }
        if !ok {
            return None;
        }
        let mut extent_checks = Vec::new();
        for b in &bindings {
            ok &= self.check_shape(&callee, b, &values, &mut extent_checks);
        }
        if !ok {
            return None;
        }
        let mut memlets_out = Vec::new();
        for b in &bindings {
            let inner = &callee.containers[b.inner].name.text;
            let memlet = |access: Access| Memlet {
                container: b.outer,
                subset: b.subset.clone(),
                access,
                dynamic: false,
                connector: inner.clone(),
                span: b.span,
            };
            if b.reads || !b.writes {
                memlets_out.push(memlet(Access::Read));
            }
            if b.writes {
                memlets_out.push(memlet(Access::Write));
            }
        }
        Some(Statement {
            kind: StatementKind::Nested(NestedSdfg {
                callee: Box::new((*callee).clone()),
                symbols: values,
                bindings,
                extent_checks,
                span: call.name.span(),
            }),
            memlets: memlets_out,
            span: call.name.span(),
        })
    }

    /// What the callee declares `name` as, or an error.
    fn param(&mut self, callee: &Sdfg, name: &proc_macro2::Ident) -> Option<Param> {
        let text = name.to_string();
        let callee_name = &callee.name.text;
        if let Some(s) = callee.symbol_by_name(&text) {
            if callee.symbols[s].declared {
                return Some(Param::Symbol(s));
            }
            self.error(
                Diagnostic::error(
                    name.span(),
                    format!("`{text}` is not an argument of nested sdfg `{callee_name}`"),
                )
                .note(format!(
                    "`{callee_name}` assigns `{text}` on its interstate edges: it is a symbol of its own state machine"
                ))
                .help(format!("declare it in `{callee_name}` (`symbol {text}: i64;`) to pass it in")),
            );
            return None;
        }
        if let Some(c) = callee.container_by_name(&text) {
            if !callee.containers[c].transient {
                return Some(Param::Container(c));
            }
            self.error(
                Diagnostic::error(
                    name.span(),
                    format!("`{text}` is a transient of nested sdfg `{callee_name}`, not an argument"),
                )
                .help(format!(
                    "remove the argument, or drop `transient` from `{text}` in `{callee_name}` to bind it to data of this sdfg"
                )),
            );
            return None;
        }
        let params: Vec<&str> = callee
            .symbols
            .iter()
            .filter(|s| s.declared)
            .map(|s| s.name.text.as_str())
            .chain(
                callee
                    .containers
                    .iter()
                    .filter(|c| !c.transient)
                    .map(|c| c.name.text.as_str()),
            )
            .collect();
        let d = Diagnostic::error(
            name.span(),
            format!("nested sdfg `{callee_name}` has no argument `{text}`"),
        );
        self.error(match closest_name(&text, params.iter().copied()) {
            Some(c) => d.help(format!("did you mean `{c}`?")),
            None if params.is_empty() => d.help(format!("`{callee_name}` takes no arguments")),
            None => d.help(format!("its arguments are {}", backticked(&params))),
        });
        None
    }

    /// `A = X` or `A = X[subset]` for the callee's container `inner`.
    fn binding(
        &mut self,
        callee: &Sdfg,
        inner: ContainerId,
        arg: &parse::CallArg,
    ) -> Option<Binding> {
        let declared = &callee.containers[inner];
        let inner_name = &declared.name.text;
        let callee_name = &callee.name.text;
        let (ident, subset_ast) = match strip_parens(&arg.value) {
            syn::Expr::Path(p) if p.path.get_ident().is_some() => (p.path.get_ident()?, None),
            syn::Expr::Index(ix) => match strip_parens(&ix.expr) {
                syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                    let dims = match strip_parens(&ix.index) {
                        syn::Expr::Tuple(t) => t.elems.iter().cloned().collect(),
                        other => vec![other.clone()],
                    };
                    let subset = parse::SubsetAst {
                        dims,
                        span: ix.bracket_token.span.join(),
                    };
                    (p.path.get_ident()?, Some(subset))
                }
                _ => return self.not_data(arg, inner_name),
            },
            _ => return self.not_data(arg, inner_name),
        };
        let outer = self.container_name(ident)?;
        let subset = self.subset(outer, ident, subset_ast.as_ref())?;
        let span = arg.value.span();
        let outer_c = &self.containers[outer];
        let written = source_text(&arg.value);
        if outer_c.elem != declared.elem {
            let d = Diagnostic::error(
                span,
                format!(
                    "mismatched element types: `{inner_name}` of `{callee_name}` holds `{}`, `{}` holds `{}`",
                    declared.elem, outer_c.name.text, outer_c.elem
                ),
            )
            .help("bind it to a container with the same element type");
            self.error(d);
            return None;
        }
        if outer_c.storage.is_host() != declared.storage.is_host() {
            let d = Diagnostic::error(
                span,
                format!(
                    "`{inner_name}` of `{callee_name}` is {} data but `{}` is {}",
                    declared.storage.keyword(),
                    outer_c.name.text,
                    outer_c.storage.keyword()
                ),
            )
            .help(format!(
                "copy `{}` into a {} container first and bind that one",
                outer_c.name.text,
                declared.storage.keyword()
            ));
            self.error(d);
            return None;
        }
        let ranges = subset
            .iter()
            .filter(|d| matches!(d, SubsetDim::Range { .. }))
            .count();
        let rank = declared.shape.len();
        if ranges != rank {
            let what = if rank == 0 {
                format!("`{inner_name}` of `{callee_name}` is a scalar")
            } else {
                format!(
                    "`{inner_name}` of `{callee_name}` has {}",
                    count(rank, "dimension")
                )
            };
            let d = Diagnostic::error(
                span,
                format!(
                    "`{written}` has {} but {what}",
                    count(ranges, "range dimension")
                ),
            )
            .help(if rank == 0 {
                format!("bind a scalar to a scalar or to one element: `{inner_name} = {}[i, ...]`", outer_c.name.text)
            } else {
                "give one range (`a..b`) per dimension of the callee's container and an index for every other dimension".to_string()
            });
            self.error(d);
            return None;
        }
        let (reads, writes) = container_use(callee, inner);
        if declared.is_scalar() && declared.storage.is_host() && !outer_c.is_scalar() {
            if let Some(map) = gpu_map_reading(callee, inner) {
                self.error(
                    Diagnostic::error(
                        span,
                        format!("`{inner_name}` of `{callee_name}` must be bound to a host scalar"),
                    )
                    .note(format!(
                        "gpu map `{map}` of `{callee_name}` reads it, and a gpu map takes a host scalar by value"
                    ))
                    .help("bind it to a scalar container (copy the element into one first)"),
                );
                return None;
            }
        }
        Some(Binding {
            inner,
            outer,
            subset,
            reads,
            writes,
            span,
        })
    }

    fn not_data(&mut self, arg: &parse::CallArg, inner: &str) -> Option<Binding> {
        self.error(
            Diagnostic::error(
                arg.value.span(),
                format!("`{inner}` is a container: bind it to a container of this sdfg"),
            )
            .help(format!(
                "write `{inner} = X` or a subset, `{inner} = X[0..N, 2]`"
            )),
        );
        None
    }

    /// Symbols not given that are a whole dimension of a bound container
    /// take that dimension's extent.
    fn infer_symbols(&self, callee: &Sdfg, bindings: &[Binding], symbols: &mut [Option<Expr>]) {
        for b in bindings {
            let shape = &callee.containers[b.inner].shape;
            for (dim, (start, end)) in shape.iter().zip(b.ranges()) {
                let ExprKind::Var(VarRef::Symbol(s)) = dim.kind else {
                    continue;
                };
                if symbols[s].is_none() && callee.symbols[s].declared {
                    let extent = rename::cast(rename::sub(end, start), callee.symbols[s].ty);
                    symbols[s] = Some(extent);
                }
            }
        }
    }

    /// Each range of a binding has the extent of the callee's dimension
    /// (its symbols replaced by their values); false after an error. Where
    /// the two are equal as linear forms but written differently (a cast,
    /// narrow arithmetic), the call checks them when it runs: `checks`.
    fn check_shape(
        &mut self,
        callee: &Sdfg,
        b: &Binding,
        values: &[(SymbolId, Expr)],
        checks: &mut Vec<ExtentCheck>,
    ) -> bool {
        let declared = &callee.containers[b.inner];
        let mut ok = true;
        for (k, (dim, (start, end))) in declared.shape.iter().zip(b.ranges()).enumerate() {
            let wanted = rename::with_symbols(dim, values);
            let extent = rename::sub(end, start);
            match (shape_form(&wanted), shape_form(&extent)) {
                (Some(a), Some(e)) if a == e => {
                    let key = |x: &Expr| format!("{:?}", StructuralKey(x));
                    let same = key(&wanted) == key(&extent);
                    // One check per distinct pair (a cube's three
                    // dimensions bound alike need one).
                    let checked = checks
                        .iter()
                        .any(|c| key(&c.declared) == key(&wanted) && key(&c.bound) == key(&extent));
                    if !same && !checked {
                        checks.push(ExtentCheck {
                            inner: declared.name.text.clone(),
                            callee: callee.name.text.clone(),
                            outer: self.containers[b.outer].name.text.clone(),
                            dim: k,
                            declared_text: expr_words(dim, &callee.symbols),
                            declared: wanted,
                            bound: extent,
                            state: String::new(),
                        });
                    }
                    continue;
                }
                (a, e) => {
                    let known = a.is_some() && e.is_some();
                    let outer = &self.containers[b.outer].name.text;
                    let mut d = Diagnostic::error(
                        b.span,
                        format!(
                            "the binding of `{}` has extent {} in dimension {k} but `{}` of `{}` has {}",
                            declared.name.text,
                            expr_words(&extent, &self.symbols),
                            declared.name.text,
                            callee.name.text,
                            expr_words(&wanted, &self.symbols),
                        ),
                    )
                    .help(format!(
                        "bind a subset of `{outer}` with that extent, or give the symbols of `{}` other values",
                        callee.name.text
                    ));
                    if !known {
                        d = d.note("the extents must be equal for every value of the symbols; only sums of symbols times constants are compared");
                    }
                    self.error(d);
                    ok = false;
                }
            }
        }
        ok
    }
}

/// The first gpu map of `sdfg` that reads container `id`.
fn gpu_map_reading(sdfg: &Sdfg, id: ContainerId) -> Option<String> {
    sdfg.states
        .iter()
        .flat_map(|s| &s.stmts)
        .find_map(|st| match &st.kind {
            StatementKind::Map(m)
                if m.schedule == MapSchedule::Gpu
                    && st.memlets.iter().any(|x| x.container == id) =>
            {
                Some(m.name.text.clone())
            }
            _ => None,
        })
}

/// A size as a linear form over symbols (other subexpressions compared as
/// written); None when it is not linear in them.
fn shape_form(e: &Expr) -> Option<Linear<String>> {
    let opaque = |x: &Expr| Leaf::Form(Linear::var(format!("{:?}", StructuralKey(x))));
    Linear::from_expr(e, &mut |x: &Expr| match &x.kind {
        ExprKind::Var(VarRef::Symbol(s)) => Leaf::Form(Linear::var(format!("symbol {s}"))),
        ExprKind::Lit(_) | ExprKind::Unary { op: UnOp::Neg, .. } => Leaf::Descend,
        ExprKind::Cast { arg } if arg.ty.is_integer() && x.ty.is_integer() => Leaf::Descend,
        ExprKind::Binary {
            op: BinOp::Add | BinOp::Sub,
            ..
        } => Leaf::Descend,
        ExprKind::Binary {
            op: BinOp::Mul,
            lhs,
            rhs,
        } if constant_value(lhs).is_some() || constant_value(rhs).is_some() => Leaf::Descend,
        ExprKind::Binary {
            op: BinOp::Div | BinOp::Rem,
            lhs,
            rhs,
        } if constant_value(lhs).is_some() && constant_value(rhs).is_some() => Leaf::Descend,
        _ => opaque(x),
    })
}

/// An expression without its spans, as a key for equal subexpressions.
struct StructuralKey<'a>(&'a Expr);

impl std::fmt::Debug for StructuralKey<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let e = self.0;
        match &e.kind {
            ExprKind::Lit(v) => write!(f, "{v:?}"),
            ExprKind::Var(v) => write!(f, "{v:?}"),
            ExprKind::Load { container, index } => {
                write!(
                    f,
                    "load {container}{:?}",
                    index.iter().map(StructuralKey).collect::<Vec<_>>()
                )
            }
            ExprKind::Unary { op, arg } => write!(f, "{op:?}({:?})", StructuralKey(arg)),
            ExprKind::Binary { op, lhs, rhs } => {
                write!(
                    f,
                    "{op:?}({:?}, {:?})",
                    StructuralKey(lhs),
                    StructuralKey(rhs)
                )
            }
            ExprKind::Cast { arg } => write!(f, "cast {}({:?})", e.ty, StructuralKey(arg)),
            ExprKind::Select { cond, then, else_ } => write!(
                f,
                "select({:?}, {:?}, {:?})",
                StructuralKey(cond),
                StructuralKey(then),
                StructuralKey(else_)
            ),
            ExprKind::Call { func, args } => {
                write!(
                    f,
                    "{func:?}{:?}",
                    args.iter().map(StructuralKey).collect::<Vec<_>>()
                )
            }
        }
    }
}

/// A size for a message: `M - 1`, `8`.
fn expr_words(e: &Expr, symbols: &[Symbol]) -> String {
    match shape_form(e) {
        Some(form) => {
            let text = form.render(
                |v| {
                    v.strip_prefix("symbol ")
                        .and_then(|s| s.parse::<usize>().ok())
                        .and_then(|s| symbols.get(s))
                        .map_or_else(|| "(...)".to_string(), |s| s.name.text.clone())
                },
                " * ",
            );
            format!("`{text}`")
        }
        None => "an expression that is not linear in the symbols".to_string(),
    }
}
