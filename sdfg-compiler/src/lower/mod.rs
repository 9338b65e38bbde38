//! AST -> IR: resolves every name, types every expression (Rust-like, no
//! implicit conversions), infers the undeclared symbols assigned on edges,
//! derives the memlets of each statement and builds each state's dataflow
//! graph.
//!
//! Mistakes found here (unknown names, type errors, misuse of names) are
//! reported at the user's tokens; an expression that already produced an
//! error lowers to `None` and its parents stay silent, so one mistake gives
//! one error.
//!
//! Symbol inference: symbols assigned on an edge but never declared get a
//! type from how they are used. Lowering first runs in *inference mode*
//! (diagnostics discarded) until no unknown symbol type changes; an unknown
//! symbol checked against an expected type takes that type (so `t = 0` and
//! `t + 1 < TSTEPS` with `TSTEPS: i64` make `t: i64`). Symbols still unknown
//! take the default type of their first assignment's right-hand side. Then
//! lowering runs for real with every type fixed.

mod array_stmt;
mod block;
mod body;
pub(crate) mod dataflow;
mod library;
mod loops;
pub(crate) mod memlets;
mod nested;
mod ranges;
mod reduction_forms;
mod typing;

use crate::diag::suggest::closest_name;
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{self, *};
use crate::parse::{self, Item, SdfgAst, StmtAst};
use proc_macro2::Span;
use std::collections::{HashMap, HashSet};
use typing::{Scope, ScopeKind};

/// Lowers a parsed SDFG to the IR; every name and type error at once. The
/// calls of nested SDFGs are inlined (`Sdfg::nested_form` keeps them).
pub fn lower(ast: &SdfgAst) -> Result<Sdfg, Diagnostics> {
    lower_scoped(ast, None, &[ast.name.to_string()])
}

/// [`lower`] of an sdfg declared inside the sdfgs of `parent`; `active`
/// names the sdfgs being lowered, outermost first, this one last.
fn lower_scoped(
    ast: &SdfgAst,
    parent: Option<&nested::Callees>,
    active: &[String],
) -> Result<Sdfg, Diagnostics> {
    let callees = nested::Callees::new(ast, parent);
    let declared = callees.check_declarations();
    if !declared.is_empty() {
        return Err(declared);
    }
    let mut cx = Lowerer::new(ast, &callees, active);
    cx.declare();
    cx.infer_symbol_types();
    let sdfg = cx.lower_all();
    let mut diags = callees.finish(active);
    diags.extend(cx.diags);
    diags.finish(sdfg).map(nested::inline)
}

/// The types a symbol may have.
const SYMBOL_TYPES: [ScalarType; 5] = [
    ScalarType::I32,
    ScalarType::I64,
    ScalarType::U32,
    ScalarType::U64,
    ScalarType::Bool,
];

pub(crate) struct Lowerer<'a> {
    ast: &'a SdfgAst,
    /// The nested sdfgs a call may name.
    callees: &'a nested::Callees<'a>,
    /// The sdfgs being lowered, outermost first (for recursion messages).
    active: Vec<String>,
    pub(crate) diags: Diagnostics,
    /// Inference mode: diagnostics are thrown away and unknown symbol types
    /// are bound when the context expects a type.
    inferring: bool,
    /// Set when inference bound a symbol type in this pass.
    changed: bool,
    symbols: Vec<Symbol>,
    /// The type of each symbol; None while an inferred symbol's type is unknown.
    symbol_types: Vec<Option<ScalarType>>,
    /// Shapes are filled in by `lower_all` (the `shared` and `register`
    /// containers of block maps, after the top-level ones, by `lower_map`).
    containers: Vec<Container>,
    states: Vec<Name>,
    /// The block data each body declares (keyed by the address of its
    /// item list in the AST).
    block_data: HashMap<usize, Vec<ContainerId>>,
    /// The map that declares each block container.
    block_owner: HashMap<ContainerId, String>,
}

impl<'a> Lowerer<'a> {
    fn new(ast: &'a SdfgAst, callees: &'a nested::Callees<'a>, active: &[String]) -> Lowerer<'a> {
        Lowerer {
            ast,
            callees,
            active: active.to_vec(),
            diags: Diagnostics::new(),
            inferring: false,
            changed: false,
            symbols: Vec::new(),
            symbol_types: Vec::new(),
            containers: Vec::new(),
            states: Vec::new(),
            block_data: HashMap::new(),
            block_owner: HashMap::new(),
        }
    }

    /// Reports a diagnostic (dropped in inference mode).
    pub(crate) fn error(&mut self, d: Diagnostic) {
        if !self.inferring {
            self.diags.push(d);
        }
    }

    /// Name tables: symbols, containers, states, and the inferred symbols
    /// (edge assignment targets that name nothing else), with duplicate checks.
    fn declare(&mut self) {
        let ast = self.ast;
        // What each top-level name was declared as.
        let mut taken: HashMap<String, &'static str> = HashMap::new();
        let mut claim = |cx: &mut Self, name: &proc_macro2::Ident, kind: &'static str| -> bool {
            let text = name.to_string();
            if let Some(other) = taken.get(&text) {
                let d =
                    Diagnostic::error(name.span(), format!("the name `{text}` is declared twice"))
                        .note(format!("`{text}` is first declared as a {other}"))
                        .help(format!("rename this {kind}"));
                cx.error(d);
                false
            } else {
                taken.insert(text, kind);
                true
            }
        };
        for item in &ast.items {
            match item {
                Item::Symbol(s) => {
                    if !claim(self, &s.name, "symbol") {
                        continue;
                    }
                    if !SYMBOL_TYPES.contains(&s.ty.ty) {
                        self.error(
                            Diagnostic::error(
                                s.ty.span,
                                format!("a symbol cannot have type `{}`", s.ty.ty),
                            )
                            .help("symbols are integers or bool (`i32`, `i64`, `u32`, `u64`, `bool`); keep floats in a scalar container: `host NAME: f64;`"),
                        );
                    }
                    self.symbols.push(Symbol {
                        name: name_of(&s.name),
                        ty: s.ty.ty,
                        declared: true,
                    });
                    self.symbol_types.push(Some(s.ty.ty));
                }
                Item::Container(c) => {
                    if !claim(self, &c.name, "container") {
                        continue;
                    }
                    self.containers.push(Container {
                        name: name_of(&c.name),
                        elem: c.elem.ty,
                        shape: Vec::new(),
                        storage: c.storage,
                        transient: c.transient,
                    });
                }
                _ => {}
            }
        }
        self.declare_block_data(&taken);
        // States live in their own namespace (they appear only in edges).
        let mut state_names: HashSet<String> = HashSet::new();
        for item in &ast.items {
            if let Item::State(s) = item {
                let text = s.name.to_string();
                if !state_names.insert(text.clone()) {
                    self.error(
                        Diagnostic::error(
                            s.name.span(),
                            format!("state `{text}` is declared twice"),
                        )
                        .help("rename one of the states"),
                    );
                    continue;
                }
                self.states.push(name_of(&s.name));
            }
        }
        // Inferred symbols: first assignment on an edge, in declaration order.
        for item in &ast.items {
            let Item::Edge(e) = item else { continue };
            for a in &e.assignments {
                let text = a.target.to_string();
                if taken.contains_key(&text) {
                    continue;
                }
                taken.insert(text, "symbol");
                self.symbols.push(Symbol {
                    name: name_of(&a.target),
                    ty: ScalarType::I32,
                    declared: false,
                });
                self.symbol_types.push(None);
            }
        }
    }

    /// Fixes the type of every inferred symbol (see the module doc).
    fn infer_symbol_types(&mut self) {
        self.inferring = true;
        let limit = 2 * self.symbols.len() + 2;
        for _ in 0..limit {
            loop {
                self.changed = false;
                let _ = self.lower_all();
                if !self.changed {
                    break;
                }
            }
            let Some(unknown) = self.symbol_types.iter().position(Option::is_none) else {
                break;
            };
            let ty = self.first_assignment_default(unknown);
            self.symbol_types[unknown] = Some(ty);
        }
        // Anything left (a cycle of unknowns): i32, as Rust defaults integers.
        for t in &mut self.symbol_types {
            t.get_or_insert(ScalarType::I32);
        }
        for (s, t) in self.symbols.iter_mut().zip(&self.symbol_types) {
            s.ty = t.unwrap_or(ScalarType::I32);
        }
        self.inferring = false;
        // Inferred symbols must be integers or bool.
        let mut bad = Vec::new();
        for s in self.symbols.iter().filter(|s| !s.declared) {
            if !SYMBOL_TYPES.contains(&s.ty) {
                bad.push(
                    Diagnostic::error(
                        s.name.span,
                        format!("symbol `{}` would have type `{}`", s.name.text, s.ty),
                    )
                    .help("symbols are integers or bool; keep floats in a scalar container and write it in a tasklet")
                    .note("a symbol first assigned on an edge takes the type of its value"),
                );
            }
        }
        for d in bad {
            self.error(d);
        }
    }

    /// The type an unknown symbol's first right-hand side has by default.
    fn first_assignment_default(&mut self, symbol: SymbolId) -> ScalarType {
        let ast = self.ast;
        let name = self.symbols[symbol].name.text.clone();
        for item in &ast.items {
            let Item::Edge(e) = item else { continue };
            for a in e.assignments.iter().filter(|a| a.target == name) {
                let mut scope = Scope::new(ScopeKind::Edge);
                if let Some(ty) = typing::default_type(&a.value) {
                    return ty;
                }
                if let Some(v) = self.expr(&mut scope, &a.value, None) {
                    return v.ty;
                }
            }
        }
        ScalarType::I32
    }

    /// Lowers everything with the current symbol types.
    fn lower_all(&mut self) -> Sdfg {
        let ast = self.ast;
        // Container shapes.
        let mut ci = 0;
        for item in &ast.items {
            let Item::Container(c) = item else { continue };
            if self
                .containers
                .get(ci)
                .map(|k| c.name != k.name.text)
                .unwrap_or(true)
            {
                continue; // a duplicate name, already reported
            }
            let mut shape = Vec::new();
            for dim in &c.shape {
                let mut scope = Scope::new(ScopeKind::Shape);
                if let Some(e) = self.integer_expr(&mut scope, dim, "a dimension") {
                    shape.push(e);
                }
            }
            self.containers[ci].shape = shape;
            ci += 1;
        }
        let mut states = Vec::new();
        let mut start: Option<(StateId, Span)> = None;
        for item in &ast.items {
            let Item::State(s) = item else { continue };
            let id = states.len();
            if self
                .states
                .get(id)
                .map(|n| s.name != n.text)
                .unwrap_or(true)
            {
                continue; // a duplicate name, already reported
            }
            if let Some(span) = s.start {
                if let Some((first, _)) = start {
                    let first = self.states[first].text.clone();
                    self.error(
                        Diagnostic::error(span, "more than one state is marked `#[start]`")
                            .help("keep `#[start]` on one state")
                            .note(format!("state `{first}` is marked `#[start]` before")),
                    );
                } else {
                    start = Some((id, span));
                }
            }
            states.push(self.lower_state(s));
        }
        if states.is_empty() {
            self.error(
                Diagnostic::error(ast.name.span(), format!("sdfg `{}` has no state", ast.name))
                    .help("add a state: `state main { ... }`"),
            );
        }
        let edges = self.lower_edges();
        let mut symbols = self.symbols.clone();
        for (s, t) in symbols.iter_mut().zip(&self.symbol_types) {
            s.ty = t.unwrap_or(ScalarType::I32);
        }
        Sdfg {
            name: name_of(&ast.name),
            vis: ast.vis.clone(),
            docs: ast.docs.clone(),
            streams: ast.streams.map_or(StreamPolicy::Default, |(p, _)| p),
            sync: self.callees.sync,
            graph: ast.graph.map_or(GraphPolicy::Auto, |(g, _)| g),
            symbols,
            containers: self.containers.clone(),
            states,
            start: start.map_or(0, |(id, _)| id),
            edges,
            nested_form: None,
        }
    }

    fn lower_state(&mut self, s: &parse::StateDecl) -> State {
        let mut stmts = Vec::new();
        let mut labels: HashSet<String> = HashSet::new();
        // Array and library statements get a name no statement has.
        let mut taken: HashSet<String> = s
            .stmts
            .iter()
            .filter_map(|st| match st {
                StmtAst::Map(m) => Some(m.name.to_string()),
                StmtAst::Tasklet(t) => Some(t.name.to_string()),
                _ => None,
            })
            .collect();
        for st in &s.stmts {
            let label = match st {
                StmtAst::Map(m) => Some(&m.name),
                StmtAst::Tasklet(t) => Some(&t.name),
                _ => None,
            };
            if let Some(name) = label {
                let text = name.to_string();
                if !labels.insert(text.clone()) {
                    self.error(
                        Diagnostic::error(
                            name.span(),
                            format!("state `{}` has two statements named `{text}`", s.name),
                        )
                        .help("give each map and tasklet of a state its own name"),
                    );
                }
            }
            let lowered = match st {
                StmtAst::Assign(a) => {
                    let name = assign_name(a, &mut taken);
                    match &a.value {
                        parse::AssignValue::Expr(v) => self.lower_array(a, v, &name),
                        parse::AssignValue::Library(l) => self.lower_library(a, l, &name),
                    }
                }
                _ => self.lower_statement(st),
            };
            if let Some(stmt) = lowered {
                stmts.push(stmt);
            }
        }
        let graph = dataflow::build(&stmts);
        State {
            name: name_of(&s.name),
            stmts,
            graph,
            persistent: s.persistent,
            extent_checks: Vec::new(),
        }
    }

    fn lower_statement(&mut self, st: &StmtAst) -> Option<Statement> {
        match st {
            StmtAst::Map(m) => self.lower_map(m),
            StmtAst::Tasklet(t) => {
                if let Some(items) = &t.block_body {
                    self.block_syntax_misplaced(items, &format!("host tasklet `{}`", t.name), None);
                    return None;
                }
                let (stmts, scope) = self.body(|| Scope::new(ScopeKind::Body), &t.body);
                let mut body = TaskletBody {
                    stmts,
                    locals: scope.locals,
                };
                reduction_forms::fold_local_min_max(&mut body);
                let memlets = memlets::body_memlets(&self.containers, &body);
                Some(Statement {
                    kind: StatementKind::Tasklet(Tasklet {
                        name: name_of(&t.name),
                        body,
                    }),
                    memlets,
                    span: t.name.span(),
                })
            }
            StmtAst::Copy(c) => self.lower_copy(c),
            StmtAst::Call(c) => self.lower_call(c),
            // Named by `lower_state`.
            StmtAst::Assign(_) => None,
            StmtAst::Wait(w) => {
                let container = self.container_name(&w.name)?;
                let c = &self.containers[container];
                let memlet = Memlet {
                    container,
                    subset: memlets::whole(c),
                    access: Access::Read,
                    dynamic: false,
                    connector: format!("__in_{}_0", c.name.text),
                    span: w.name.span(),
                };
                Some(Statement {
                    kind: StatementKind::Wait(Wait { container }),
                    memlets: vec![memlet],
                    span: w.span,
                })
            }
        }
    }

    fn lower_map(&mut self, m: &parse::MapAst) -> Option<Statement> {
        let mut params = Vec::new();
        let mut ok = true;
        for p in &m.params {
            let text = p.name.to_string();
            if params.iter().any(|q: &MapParam| q.name.text == text) {
                self.error(
                    Diagnostic::error(
                        p.name.span(),
                        format!("map parameter `{text}` is declared twice"),
                    )
                    .help("give each dimension of the map its own parameter"),
                );
                ok = false;
                continue;
            }
            if let Some(kind) = self.global_kind(&text) {
                self.error(
                    Diagnostic::error(
                        p.name.span(),
                        format!("map parameter `{text}` has the name of a {kind}"),
                    )
                    .help(format!(
                        "rename the parameter; inside the map `{text}` would be ambiguous"
                    )),
                );
                ok = false;
            }
            // A range may read the parameters before it (a triangle).
            let mut range_scope = Scope::new(ScopeKind::MapRange);
            range_scope.params = params
                .iter()
                .map(|q: &MapParam| (q.name.text.clone(), q.ty))
                .collect();
            let later: Vec<&proc_macro2::Ident> = m
                .params
                .iter()
                .skip_while(|q| q.name != p.name)
                .skip(1)
                .map(|q| &q.name)
                .collect();
            // A range with an error still names its parameter in the body
            // (no "cannot find" there); the map is not made.
            let placeholder = |ty: ScalarType| {
                let zero = Expr::lit(Value::from_bits(ty, 0), p.name.span());
                MapParam {
                    name: name_of(&p.name),
                    ty,
                    start: zero.clone(),
                    end: zero,
                    inclusive: false,
                    step: None,
                }
            };
            if let Some(d) = ranges::later_parameter(&p.name, &p.range, &later) {
                self.error(d);
                ok = false;
                params.push(placeholder(ScalarType::I64));
                continue;
            }
            match self.range(&mut range_scope, &p.range) {
                Some(r) => {
                    let param = MapParam {
                        name: name_of(&p.name),
                        ty: r.ty,
                        start: r.start,
                        end: r.end,
                        inclusive: r.inclusive,
                        step: r.step,
                    };
                    if let Err(d) = ranges::check_dependent(&param, &params) {
                        self.error(d);
                        ok = false;
                    }
                    params.push(param);
                }
                None => ok = false,
            }
        }
        let independent: Vec<(ContainerId, Span)> = m
            .independent
            .iter()
            .filter_map(|name| Some((self.container_name(name)?, name.span())))
            .collect();
        let param_types: Vec<(String, ScalarType)> =
            params.iter().map(|p| (p.name.text.clone(), p.ty)).collect();
        if let Some(items) = &m.block_body {
            return self.lower_block_map(m, items, params, &param_types, ok);
        }
        let (stmts, scope) = self.body(
            || {
                let mut scope = Scope::new(ScopeKind::Body);
                scope.params = param_types.clone();
                scope
            },
            &m.body,
        );
        if let Some(spec) = &m.block {
            // A `block` on a cpu/seq map (a gpu one has `block_body`).
            self.not_on_gpu(m, spec.span);
            return None;
        }
        if !ok {
            return None;
        }
        let mut body = TaskletBody {
            stmts,
            locals: scope.locals,
        };
        reduction_forms::fold_local_min_max(&mut body);
        let memlets = memlets::body_memlets(&self.containers, &body);
        Some(Statement {
            kind: StatementKind::Map(Map {
                name: name_of(&m.name),
                params,
                schedule: m.schedule,
                body,
                block: None,
                gpu_tasklet: m.gpu_tasklet,
                independent,
                library: None,
            }),
            memlets,
            span: m.name.span(),
        })
    }

    fn lower_copy(&mut self, c: &parse::CopyAst) -> Option<Statement> {
        let src = self.container_name(&c.src);
        let dst = self.container_name(&c.dst);
        let src_subset = src.and_then(|id| self.subset(id, &c.src, c.src_subset.as_ref()));
        let dst_subset = dst.and_then(|id| self.subset(id, &c.dst, c.dst_subset.as_ref()));
        let (src, dst, src_subset, dst_subset) = (src?, dst?, src_subset?, dst_subset?);
        let memlets = vec![
            Memlet {
                container: src,
                subset: src_subset,
                access: Access::Read,
                dynamic: false,
                connector: format!("__in_{}_0", c.src),
                span: c.src.span(),
            },
            Memlet {
                container: dst,
                subset: dst_subset,
                access: Access::Write,
                dynamic: false,
                connector: format!("__out_{}_0", c.dst),
                span: c.dst.span(),
            },
        ];
        Some(Statement {
            kind: StatementKind::Copy(ir::Copy { src, dst }),
            memlets,
            span: c.span,
        })
    }

    /// A copy's subset: whole container when absent, else per dimension an
    /// index or a range (`a..b`, `a..=b`) over symbols and literals.
    fn subset(
        &mut self,
        container: ContainerId,
        name: &proc_macro2::Ident,
        subset: Option<&parse::SubsetAst>,
    ) -> Option<Subset> {
        let rank = self.containers[container].shape.len();
        let Some(subset) = subset else {
            return Some(memlets::whole(&self.containers[container]));
        };
        if subset.dims.len() != rank {
            let d = if rank == 0 {
                Diagnostic::error(
                    subset.span,
                    format!("`{name}` is a scalar; it has no subset"),
                )
                .help(format!(
                    "copy the whole scalar: write `{name}` without brackets"
                ))
            } else {
                Diagnostic::error(
                    subset.span,
                    format!(
                        "`{name}` has {} but the subset has {}",
                        count(rank, "dimension"),
                        count(subset.dims.len(), "entry")
                    ),
                )
                .help("give one index or range per dimension, e.g. `A[0..N, 3]`")
            };
            self.error(d);
            return None;
        }
        let mut out = Vec::new();
        let mut ok = true;
        for dim in &subset.dims {
            let mut scope = Scope::new(ScopeKind::Subset);
            if let syn::Expr::Range(_) = typing::strip_parens(dim) {
                match self.range(&mut scope, dim) {
                    Some(lowered) => out.push(SubsetDim::Range {
                        start: lowered.start,
                        end: lowered.end,
                    }),
                    None => ok = false,
                }
            } else {
                match self.integer_expr(&mut scope, dim, "a subset index") {
                    Some(e) => out.push(SubsetDim::Index(e)),
                    None => ok = false,
                }
            }
        }
        ok.then_some(out)
    }

    fn lower_edges(&mut self) -> Vec<InterstateEdge> {
        let ast = self.ast;
        let mut edges = Vec::new();
        for item in &ast.items {
            let Item::Edge(e) = item else { continue };
            let from = self.state_name(&e.from);
            let to = self.state_name(&e.to);
            let mut scope = Scope::new(ScopeKind::Edge);
            let condition = e
                .condition
                .as_ref()
                .map(|c| self.expr(&mut scope, c, Some(ScalarType::Bool)));
            let mut assignments = Vec::new();
            let mut assigned: Vec<String> = Vec::new();
            for a in &e.assignments {
                let text = a.target.to_string();
                if assigned.contains(&text) {
                    self.error(
                        Diagnostic::error(
                            a.target.span(),
                            format!("`{text}` is assigned twice on this edge"),
                        )
                        .help("assignments on an edge are simultaneous; keep one"),
                    );
                }
                assigned.push(text.clone());
                if let Some(c) = self
                    .containers
                    .iter()
                    .position(|c| c.name.text == text && !c.storage.is_block_local())
                {
                    let storage = self.containers[c].storage.keyword();
                    self.error(
                        Diagnostic::error(
                            a.target.span(),
                            format!("cannot assign to container `{text}` on an interstate edge"),
                        )
                        .help(format!(
                            "write it in a tasklet: `tasklet set_{text} {{ {text}{} = ...; }}`",
                            if self.containers[c].is_scalar() {
                                ""
                            } else {
                                "[i]"
                            }
                        ))
                        .note(format!(
                            "`{text}` is a {storage} container; an edge assigns only symbols"
                        )),
                    );
                    let _ = self.expr(&mut scope, &a.value, None);
                    continue;
                }
                let Some(sym) = self.symbols.iter().position(|s| s.name.text == text) else {
                    continue;
                };
                match self.symbol_types[sym] {
                    Some(ty) => {
                        if let Some(v) = self.expr(&mut scope, &a.value, Some(ty)) {
                            assignments.push((sym, v));
                        }
                    }
                    None => {
                        // Inference: a right-hand side with a type of its own fixes it.
                        if !typing::is_flexible(self, &scope, &a.value) {
                            if let Some(v) = self.expr(&mut scope, &a.value, None) {
                                self.symbol_types[sym] = Some(v.ty);
                                self.changed = true;
                            }
                        }
                    }
                }
            }
            let (Some(from), Some(to)) = (from, to) else {
                continue;
            };
            let condition = match condition {
                Some(Some(c)) => Some(c),
                Some(None) => continue,
                None => None,
            };
            edges.push(InterstateEdge {
                from,
                to,
                condition,
                assignments,
                span: e.arrow,
            });
        }
        edges
    }

    fn state_name(&mut self, name: &proc_macro2::Ident) -> Option<StateId> {
        let text = name.to_string();
        if let Some(id) = self.states.iter().position(|s| s.text == text) {
            return Some(id);
        }
        let mut d = Diagnostic::error(name.span(), format!("unknown state `{text}`"));
        let candidates: Vec<String> = self.states.iter().map(|s| s.text.clone()).collect();
        d = match closest_name(&text, candidates.iter().map(String::as_str)) {
            Some(c) => d.help(format!("did you mean `{c}`?")),
            None => d.help(format!("declare it: `state {text} {{ ... }}`")),
        };
        self.error(d);
        None
    }

    fn container_name(&mut self, name: &proc_macro2::Ident) -> Option<ContainerId> {
        let text = name.to_string();
        if let Some(id) = self
            .containers
            .iter()
            .position(|c| c.name.text == text && !c.storage.is_block_local())
        {
            return Some(id);
        }
        let mut d = Diagnostic::error(name.span(), format!("unknown container `{text}`"));
        if let Some(note) = self.block_data_elsewhere(&text) {
            self.error(d.note(note).help(format!(
                "`{text}` exists only while its block map runs; copy a `gpu` container instead"
            )));
            return None;
        }
        let candidates: Vec<String> = self
            .containers
            .iter()
            .filter(|c| !c.storage.is_block_local())
            .map(|c| c.name.text.clone())
            .collect();
        d = match closest_name(&text, candidates.iter().map(String::as_str)) {
            Some(c) => d.help(format!("did you mean `{c}`?")),
            None => d.help(format!("declare it, e.g. `host {text}: f64[N];`")),
        };
        if self.symbols.iter().any(|s| s.name.text == text) {
            d = d.note(format!("`{text}` is a symbol, not a container"));
        }
        self.error(d);
        None
    }

    /// "symbol" or "container" when a top-level name is taken.
    fn global_kind(&self, name: &str) -> Option<&'static str> {
        if self.symbols.iter().any(|s| s.name.text == name) {
            Some("symbol")
        } else if self
            .containers
            .iter()
            .any(|c| c.name.text == name && !c.storage.is_block_local())
        {
            Some("container")
        } else {
            None
        }
    }
}

/// `assign_B`, `matmul_C`, ... (with `_2`, `_3` when taken): the map
/// name of an array or library statement.
fn assign_name(a: &parse::AssignAst, taken: &mut HashSet<String>) -> String {
    let target = typing::source_text(&a.target);
    let target: String = target
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    let stem = match &a.value {
        parse::AssignValue::Expr(_) => format!("assign_{target}"),
        parse::AssignValue::Library(l) => format!("{}_{target}", l.name),
    };
    let mut name = stem.clone();
    let mut k = 2;
    while !taken.insert(name.clone()) {
        name = format!("{stem}_{k}");
        k += 1;
    }
    name
}

pub(crate) fn name_of(ident: &proc_macro2::Ident) -> Name {
    Name::new(ident.to_string(), ident.span())
}

/// "1 index", "2 indices".
pub(crate) fn count(n: usize, noun: &str) -> String {
    let plural = match noun {
        "index" => "indices".to_string(),
        "entry" => "entries".to_string(),
        other => format!("{other}s"),
    };
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {plural}")
    }
}

/// The language's type names that `keep` accepts, backticked, for helps.
pub(crate) fn type_list(keep: impl Fn(ScalarType) -> bool) -> String {
    let names: Vec<&str> = ScalarType::ALL
        .into_iter()
        .filter(|t| keep(*t))
        .map(ScalarType::rust_name)
        .collect();
    crate::diag::suggest::backticked(&names)
}
