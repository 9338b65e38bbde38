//! One DaCe state as the statements of a `state` block.
//!
//! - A top-level tasklet is a host `tasklet`; a top-level map scope
//!   (MapEntry ... MapExit) is one `map`, whose body is every tasklet of the
//!   scope in dataflow order, temporaries of the scope (transient scalars
//!   that live only inside map scopes) becoming locals, and nested maps
//!   becoming `for` loops; an edge between two access nodes is a `copy`;
//!   a top-level `NestedSDFG` is a call of a nested `sdfg` (declared once
//!   per SDFG, `SdfgCx::declare_nested`), its connectors bound to the
//!   subsets of their memlets.
//! - Statements come in a topological order of the state's graph (ties in
//!   the file's node order), so the front end's textual-order rule orders
//!   conflicting accesses as DaCe's edges do.

mod inline;
mod library;
mod scope;

use super::code::{same_integer_value, CodeExpr};
use super::model::{NodeKind, RangeText, StateModel};
use super::names::Namer;
use super::sdfg::SdfgCx;
use super::typing::{strip_outer_parens, Emitter, Meaning};
use super::{python, ImportError};
use crate::ir::{BinOp, ScalarType};
use std::collections::{BTreeSet, HashMap};

/// A map parameter in scope: its DaCe name, DSL name and type.
#[derive(Clone)]
struct Param {
    dace: String,
    dsl: String,
    ty: ScalarType,
}

pub(crate) struct StateConv<'a> {
    cx: &'a SdfgCx,
    state: &'a StateModel,
    out_edges: Vec<Vec<usize>>,
    in_edges: Vec<Vec<usize>>,
    statement_names: Namer,
    pub errors: Vec<ImportError>,
}

/// A statement of the state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Unit {
    Tasklet(usize),
    Map(usize),
    Copy(usize),
    Nested(usize),
    Library(usize),
}

impl<'a> StateConv<'a> {
    pub fn new(cx: &'a SdfgCx, state: &'a StateModel) -> StateConv<'a> {
        let n = state.nodes.len();
        let mut out_edges = vec![Vec::new(); n];
        let mut in_edges = vec![Vec::new(); n];
        for (i, e) in state.edges.iter().enumerate() {
            out_edges[e.src].push(i);
            in_edges[e.dst].push(i);
        }
        StateConv {
            cx,
            state,
            out_edges,
            in_edges,
            statement_names: Namer::default(),
            errors: Vec::new(),
        }
    }

    fn error(&mut self, message: String, help: &str) {
        let e = ImportError::new(message)
            .help(help)
            .note(format!("in state `{}`", self.state.label));
        self.errors.push(e);
    }

    fn kind(&self, n: usize) -> &'a NodeKind {
        &self.state.nodes[n].kind
    }

    fn label(&self, n: usize) -> &'a str {
        &self.state.nodes[n].label
    }

    /// The exit of a map entry.
    fn exit_of(&self, entry: usize) -> Option<usize> {
        let from_field = match self.kind(entry) {
            NodeKind::MapEntry { exit: Some(x), .. } => Some(*x),
            _ => None,
        };
        from_field
            .filter(|x| {
                matches!(
                    self.state.nodes.get(*x).map(|n| &n.kind),
                    Some(NodeKind::MapExit)
                )
            })
            .or_else(|| {
                (0..self.state.nodes.len()).find(|&x| {
                    matches!(self.kind(x), NodeKind::MapExit)
                        && self.state.nodes[x].scope == Some(entry)
                })
            })
    }

    fn is_access(&self, n: usize) -> bool {
        matches!(self.kind(n), NodeKind::Access { .. })
    }

    fn access_data(&self, n: usize) -> Option<&'a str> {
        match self.kind(n) {
            NodeKind::Access { data } => Some(data),
            _ => None,
        }
    }

    /// The statements of the state, each as lines indented by `indent`.
    pub fn convert(&mut self, indent: usize) -> Vec<String> {
        // A node already reported as unsupported: the rest of the state
        // would only give follow-up errors.
        if self
            .state
            .nodes
            .iter()
            .any(|n| matches!(n.kind, NodeKind::Reported))
        {
            return Vec::new();
        }
        for (n, node) in self.state.nodes.iter().enumerate() {
            if let Some(s) = node.scope {
                if s >= self.state.nodes.len() || !matches!(self.kind(s), NodeKind::MapEntry { .. })
                {
                    let label = node.label.clone();
                    self.error(
                        format!(
                            "node `{label}` names node {s} as its scope, which is not a map entry"
                        ),
                        "check the file",
                    );
                    return Vec::new();
                }
            }
            if let NodeKind::Access { data } = &node.kind {
                if !data.is_empty()
                    && !self.cx.containers.contains_key(data)
                    && !self.cx.refused.contains(data)
                {
                    self.error(format!("access node `{}` refers to `{data}`, which is not a container of the SDFG", node.label), "check the file");
                }
            }
            if let NodeKind::MapEntry { .. } = node.kind {
                if self.exit_of(n).is_none() {
                    self.error(
                        format!("map `{}` has no map exit", node.label),
                        "check the file",
                    );
                    return Vec::new();
                }
            }
        }
        if !self.errors.is_empty() {
            return Vec::new();
        }
        let Some(order) = self.top_level_order() else {
            self.error(
                "the state's graph has a cycle".to_string(),
                "check the file",
            );
            return Vec::new();
        };
        let mut lines = Vec::new();
        for unit in order {
            match unit {
                Unit::Tasklet(n) => self.host_tasklet(n, indent, &mut lines),
                Unit::Map(n) => self.map(n, indent, &mut lines),
                Unit::Copy(e) => self.copy(e, indent, &mut lines),
                Unit::Nested(n) => self.nested_call(n, indent, &mut lines),
                Unit::Library(n) => self.library(n, indent, &mut lines),
            }
        }
        lines
    }

    /// The top-level statements in a topological order of the state's graph.
    fn top_level_order(&mut self) -> Option<Vec<Unit>> {
        let nodes = &self.state.nodes;
        // Vertices: top-level nodes (a map exit joins its entry) and copies.
        let owner = |n: usize| -> Option<usize> {
            match (&nodes[n].kind, nodes[n].scope) {
                (NodeKind::MapExit, Some(entry))
                    if nodes.get(entry).is_some_and(|e| e.scope.is_none()) =>
                {
                    Some(entry)
                }
                (_, None) => Some(n),
                _ => None,
            }
        };
        let mut vertices: Vec<(usize, Option<Unit>)> = Vec::new(); // (priority key, unit)
        let mut vertex_of: HashMap<usize, usize> = HashMap::new();
        for (n, node) in nodes.iter().enumerate() {
            if owner(n) != Some(n) {
                continue;
            }
            let unit = match node.kind {
                NodeKind::Tasklet { .. } => Some(Unit::Tasklet(n)),
                NodeKind::MapEntry { .. } => Some(Unit::Map(n)),
                NodeKind::Nested { .. } => Some(Unit::Nested(n)),
                NodeKind::Library { .. } => Some(Unit::Library(n)),
                NodeKind::MapExit => {
                    let label = node.label.clone();
                    self.error(
                        format!("map exit `{label}` has no map entry"),
                        "check the file",
                    );
                    None
                }
                _ => None,
            };
            vertex_of.insert(n, vertices.len());
            vertices.push((2 * n, unit));
        }
        let mut adjacency: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); vertices.len()];
        let mut add_vertex = |key: usize, unit: Unit, adjacency: &mut Vec<BTreeSet<usize>>| {
            vertices.push((key, Some(unit)));
            adjacency.push(BTreeSet::new());
            vertices.len() - 1
        };
        for (i, e) in self.state.edges.iter().enumerate() {
            let (Some(a), Some(b)) = (owner(e.src), owner(e.dst)) else {
                continue;
            };
            let (Some(&va), Some(&vb)) = (vertex_of.get(&a), vertex_of.get(&b)) else {
                continue;
            };
            if va == vb {
                continue;
            }
            let is_copy = self.is_access(e.src) && self.is_access(e.dst) && e.memlet.is_some();
            if is_copy {
                let vc = add_vertex((2 * e.dst).saturating_sub(1), Unit::Copy(i), &mut adjacency);
                adjacency[va].insert(vc);
                adjacency[vc].insert(vb);
            } else {
                adjacency[va].insert(vb);
            }
        }
        let order = topological(
            &adjacency,
            &vertices.iter().map(|v| v.0).collect::<Vec<_>>(),
        )?;
        Some(order.into_iter().filter_map(|v| vertices[v].1).collect())
    }

    /// `copy SRC[subset] -> DST[subset];`
    fn copy(&mut self, e: usize, indent: usize, out: &mut Vec<String>) {
        let edge = &self.state.edges[e];
        let Some(m) = &edge.memlet else { return };
        let (Some(src), Some(dst)) = (self.access_data(edge.src), self.access_data(edge.dst))
        else {
            return;
        };
        if m.wcr.is_some() {
            self.error(
                format!("the copy from `{src}` to `{dst}` reduces (write-conflict resolution)"),
                "copies that accumulate are not supported; use a map with a reduction",
            );
            return;
        }
        let (src_subset, dst_subset) = if m.data == src {
            (&m.subset, &m.other_subset)
        } else if m.data == dst {
            (&m.other_subset, &m.subset)
        } else {
            self.error(
                format!(
                    "the copy from `{src}` to `{dst}` has a memlet of `{}`",
                    m.data
                ),
                "check the file",
            );
            return;
        };
        let s = self.copy_side(src, src_subset.as_deref());
        let d = self.copy_side(dst, dst_subset.as_deref());
        let (Some(s), Some(d)) = (s, d) else { return };
        out.push(format!("{}copy {s} -> {d};", " ".repeat(indent)));
    }

    /// `Inner(N = M - 1, A = X[1..M], ...);` for a `NestedSDFG` node; the
    /// callee's items are translated like a whole file.
    fn nested_call(&mut self, n: usize, indent: usize, out: &mut Vec<String>) {
        let NodeKind::Nested {
            model,
            symbol_mapping,
        } = self.kind(n)
        else {
            return;
        };
        let label = self.label(n).to_string();
        let mut errors = Vec::new();
        let items = super::sdfg::translate_model(model, super::sdfg::Role::Callee, &mut errors);
        if !errors.is_empty() {
            let note = format!("in the nested SDFG `{label}`");
            for e in errors {
                self.errors.push(e.note(note.clone()));
            }
            return;
        }
        let name = self.cx.declare_nested(&label, items);
        let mut args = Vec::new();
        for (inner, value) in symbol_mapping {
            let Ok(parsed) = python::parse_expr(value).map(super::code::read_wrapping_casts) else {
                self.error(
                    format!("the value `{value}` of symbol `{inner}` of nested SDFG `{label}` does not parse"),
                    "symbol values are integer expressions over the caller's symbols",
                );
                continue;
            };
            let want = model
                .symbols
                .iter()
                .find(|(s, _)| s == inner)
                .and_then(|(_, t)| super::code::dtype(t));
            let text = self.symbolic(&parsed, &[], want);
            args.push(format!("{} = {text}", super::names::identifier(inner)));
        }
        let mut bound: Vec<&str> = Vec::new();
        let edges = self.in_edges[n].iter().chain(&self.out_edges[n]).copied();
        for e in edges.collect::<Vec<_>>() {
            let edge = &self.state.edges[e];
            let connector = if edge.dst == n {
                edge.dst_conn.as_deref()
            } else {
                edge.src_conn.as_deref()
            };
            let (Some(connector), Some(m)) = (connector, &edge.memlet) else {
                continue;
            };
            if bound.contains(&connector) {
                continue;
            }
            bound.push(connector);
            if let Some(side) = self.copy_side(&m.data, m.subset.as_deref()) {
                args.push(format!("{} = {side}", super::names::identifier(connector)));
            }
        }
        out.push(format!(
            "{}{name}({});",
            " ".repeat(indent),
            args.join(", ")
        ));
    }

    /// `NAME` or `NAME[subset]` of one side of a copy.
    fn copy_side(&mut self, data: &str, subset: Option<&[RangeText]>) -> Option<String> {
        let info = self.cx.containers.get(data)?;
        let name = info.dsl.clone();
        let Some(ranges) = subset else {
            return Some(name);
        };
        if info.scalar {
            return Some(name);
        }
        let params: Vec<Param> = Vec::new();
        let parsed = self.parse_ranges(ranges, &format!("the copy of `{data}`"))?;
        if parsed.len() != info.shape.len() {
            self.error(
                format!(
                    "a copy subset of `{data}` has {} dimensions; `{data}` has {}",
                    parsed.len(),
                    info.shape.len()
                ),
                "check the file",
            );
            return None;
        }
        let whole = parsed.iter().zip(&info.shape).all(|((s, e, _), extent)| {
            matches!(
                s,
                CodeExpr::Int {
                    value: 0,
                    negative: false,
                    ..
                }
            ) && same_integer_value(&plus_one(e.clone()), extent)
        });
        if whole {
            return Some(name);
        }
        let mut dims = Vec::new();
        for (s, e, step) in &parsed {
            if !matches!(
                step,
                CodeExpr::Int {
                    value: 1,
                    negative: false,
                    ..
                }
            ) {
                self.error(
                    format!("a copy of `{data}` has a step"),
                    "copies are contiguous boxes; copy with a map instead",
                );
                return None;
            }
            if s == e || same_integer_value(s, e) {
                dims.push(self.symbolic(s, &params, None));
            } else {
                let a = self.symbolic(s, &params, None);
                let b = self.symbolic(&plus_one(e.clone()), &params, None);
                dims.push(format!("{a}..{b}"));
            }
        }
        Some(format!("{name}[{}]", dims.join(", ")))
    }

    /// `(start, inclusive end, step)` per dimension; tiles other than 1 are errors.
    fn parse_ranges(
        &mut self,
        ranges: &[RangeText],
        what: &str,
    ) -> Option<Vec<(CodeExpr, CodeExpr, CodeExpr)>> {
        let mut out = Vec::new();
        for r in ranges {
            let parse = |t: &str, this: &mut Self| match python::parse_expr(t) {
                Ok(e) => Some(e),
                Err(err) => {
                    this.error(
                        format!("the range `{t}` of {what} {}", err.0),
                        "ranges are integer expressions over symbols",
                    );
                    None
                }
            };
            let (s, e, st, tile) = (
                parse(&r.start, self)?,
                parse(&r.end, self)?,
                parse(&r.step, self)?,
                parse(&r.tile, self)?,
            );
            if !matches!(
                tile,
                CodeExpr::Int {
                    value: 1,
                    negative: false,
                    ..
                }
            ) {
                self.error(
                    format!("a range of {what} has a tile size"),
                    "tiled ranges are not supported",
                );
                return None;
            }
            out.push((s, e, st));
        }
        Some(out)
    }

    /// An integer expression over symbols and the parameters in scope.
    fn symbolic(&mut self, e: &CodeExpr, params: &[Param], want: Option<ScalarType>) -> String {
        let lookup = |n: &str| -> Option<Meaning> {
            if let Some(p) = params.iter().rev().find(|p| p.dace == n) {
                return Some(Meaning::Value {
                    text: p.dsl.clone(),
                    ty: p.ty,
                });
            }
            self.cx.symbol_meaning(n)
        };
        let mut em = Emitter {
            lookup: &lookup,
            adapt_floats: true,
            errors: Vec::new(),
        };
        let text = em.emit(e, want);
        let errors = em.errors;
        for err in errors {
            self.error(
                format!("an expression of the state {err}"),
                "ranges and subsets read symbols and map parameters",
            );
        }
        strip_outer_parens(text)
    }

    /// The map's parameters with their types (the type of their bounds).
    fn params_of(&mut self, entry: usize, outer: &[Param]) -> Option<(Vec<Param>, Vec<String>)> {
        let NodeKind::MapEntry { params, ranges, .. } = self.kind(entry) else {
            return None;
        };
        let label = self.label(entry).to_string();
        let parsed = self.parse_ranges(ranges, &format!("map `{label}`"))?;
        let mut scope: Vec<Param> = outer.to_vec();
        let mut texts = Vec::new();
        for (p, (s, e, step)) in params.iter().zip(parsed) {
            let end = plus_one(e);
            let ty = {
                let lookup = |n: &str| -> Option<Meaning> {
                    if let Some(p) = scope.iter().rev().find(|p| p.dace == *n) {
                        return Some(Meaning::Value {
                            text: p.dsl.clone(),
                            ty: p.ty,
                        });
                    }
                    self.cx.symbol_meaning(n)
                };
                let mut em = Emitter {
                    lookup: &lookup,
                    adapt_floats: true,
                    errors: Vec::new(),
                };
                let (a, b) = (em.infer(&s), em.infer(&end));
                match (a, b) {
                    (super::typing::Ty::Known(x), super::typing::Ty::Known(y)) => {
                        super::typing::promote(x, y)
                    }
                    (super::typing::Ty::Known(x), _) | (_, super::typing::Ty::Known(x)) => x,
                    _ => ScalarType::I32,
                }
            };
            // Our exporter writes the types (DaCe's ranges have none).
            let ty = match self.kind(entry) {
                NodeKind::MapEntry { param_types, .. } => param_types
                    .get(texts.len())
                    .copied()
                    .flatten()
                    .unwrap_or(ty),
                _ => ty,
            };
            let sa = self.symbolic(&s, &scope, Some(ty));
            let sb = self.symbolic(&end, &scope, Some(ty));
            let range = if matches!(
                step,
                CodeExpr::Int {
                    value: 1,
                    negative: false,
                    ..
                }
            ) {
                format!("{sa}..{sb}")
            } else {
                let st = self.symbolic(&step, &scope, Some(ty));
                format!("({sa}..{sb}).step_by({st})")
            };
            let mut dsl = super::names::identifier(p);
            let mut k = 1;
            while self.cx.taken.contains(&dsl) || scope.iter().any(|q| q.dsl == dsl) {
                dsl = format!("{}_{k}", super::names::identifier(p));
                k += 1;
            }
            texts.push(format!("{dsl} in {range}"));
            scope.push(Param {
                dace: p.clone(),
                dsl,
                ty,
            });
        }
        Some((scope, texts))
    }

    fn map(&mut self, entry: usize, indent: usize, out: &mut Vec<String>) {
        let NodeKind::MapEntry { schedule, .. } = self.kind(entry) else {
            return;
        };
        let label = self.label(entry).to_string();
        let on = match schedule.as_str() {
            "GPU_Device" => "gpu",
            "CPU_Multicore" => "cpu",
            "Default" => match self.default_schedule(entry) {
                Some(on) => on,
                None => return,
            },
            "Sequential" => "seq",
            "GPU_ThreadBlock" | "GPU_ThreadBlock_Dynamic" => {
                self.error(
                    format!("unsupported DaCe element: map `{label}` has schedule `{schedule}`"),
                    "thread-block maps (and `GPU_Shared` storage) are not supported yet; use `GPU_Device` maps",
                );
                return;
            }
            other => {
                self.error(
                    format!("unsupported DaCe element: map `{label}` has schedule `{other}`"),
                    "the schedules are `GPU_Device`, `CPU_Multicore`, `Sequential` and `Default`",
                );
                return;
            }
        };
        self.check_dynamic_inputs(entry);
        let Some((params, ranges)) = self.params_of(entry, &[]) else {
            return;
        };
        let name = self.statement_names.fresh(&label);
        let pad = " ".repeat(indent);
        let body = self.scope_body(entry, &params, indent + 4);
        if let NodeKind::MapEntry { independent, .. } = self.kind(entry) {
            let names: Vec<String> = independent
                .iter()
                .filter_map(|n| self.cx.containers.get(n).map(|c| c.dsl.clone()))
                .collect();
            if !names.is_empty() {
                out.push(format!("{pad}#[independent({})]", names.join(", ")));
            }
        }
        out.push(format!("{pad}map {name}[{}] on {on} {{", ranges.join(", ")));
        out.extend(body);
        out.push(format!("{pad}}}"));
    }

    /// DaCe's rule for a top-level map of schedule `Default`: the storage of
    /// the arrays its memlets touch inside (`CPU_Heap` makes it a CPU map,
    /// `GPU_Global` a GPU map); none of those: a CPU map.
    fn default_schedule(&mut self, entry: usize) -> Option<&'static str> {
        let exit = self.exit_of(entry);
        let inside = self.out_edges[entry]
            .iter()
            .chain(exit.map(|x| &self.in_edges[x]).into_iter().flatten())
            .filter_map(|&e| self.state.edges[e].memlet.as_ref());
        let mut found: Vec<&'static str> = Vec::new();
        for m in inside {
            let Some(c) = self.cx.containers.get(&m.data) else {
                continue;
            };
            let on = match c.declared_storage.as_str() {
                _ if c.scalar || c.temp => continue,
                "CPU_Heap" | "CPU_ThreadLocal" => "cpu",
                "GPU_Global" => "gpu",
                _ => continue,
            };
            if !found.contains(&on) {
                found.push(on);
            }
        }
        if found.len() > 1 {
            let label = self.label(entry).to_string();
            self.error(
                format!("map `{label}` has schedule `Default` and touches both `CPU_Heap` and `GPU_Global` arrays"),
                "give the map a schedule, `GPU_Device` or `CPU_Multicore` (DaCe cannot choose one either)",
            );
            return None;
        }
        Some(found.first().copied().unwrap_or("cpu"))
    }

    /// DaCe's dynamic map inputs (connectors of the entry not named `IN_*`).
    fn check_dynamic_inputs(&mut self, entry: usize) {
        let dynamic: Vec<String> = self.in_edges[entry]
            .iter()
            .filter_map(|&e| self.state.edges[e].dst_conn.clone())
            .filter(|c| !c.starts_with("IN_"))
            .collect();
        if let Some(c) = dynamic.first() {
            let label = self.label(entry).to_string();
            self.error(
                format!("unsupported DaCe element: map `{label}` has the dynamic range input `{c}`"),
                "map ranges are expressions over symbols; assign the value to a symbol on an interstate edge first",
            );
        }
    }
}

/// `e + 1`, simplified where `e` ends in a literal (`N - 1` -> `N`).
pub(crate) fn plus_one(e: CodeExpr) -> CodeExpr {
    add_constant(e, 1)
}

pub(crate) fn minus_one(e: CodeExpr) -> CodeExpr {
    add_constant(e, -1)
}

fn add_constant(e: CodeExpr, k: i128) -> CodeExpr {
    let lit = |v: i128| CodeExpr::Int {
        value: v.unsigned_abs(),
        negative: v < 0,
        suffix: None,
    };
    match e {
        CodeExpr::Int {
            value,
            negative,
            suffix,
        } => {
            let v = i128::try_from(value).unwrap_or(i128::MAX);
            let v = if negative { -v } else { v };
            let r = v.saturating_add(k);
            CodeExpr::Int {
                value: r.unsigned_abs(),
                negative: r < 0,
                suffix,
            }
        }
        CodeExpr::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) => {
            if let CodeExpr::Int {
                value,
                negative: false,
                suffix: None,
            } = *b
            {
                let c = i128::try_from(value).unwrap_or(i128::MAX);
                let c = if op == BinOp::Add { c } else { -c };
                let r = c.saturating_add(k);
                return match r.cmp(&0) {
                    std::cmp::Ordering::Equal => *a,
                    std::cmp::Ordering::Greater => {
                        CodeExpr::Binary(BinOp::Add, a, Box::new(lit(r)))
                    }
                    std::cmp::Ordering::Less => CodeExpr::Binary(BinOp::Sub, a, Box::new(lit(-r))),
                };
            }
            let e = CodeExpr::Binary(op, a, b);
            add_plain(e, k)
        }
        other => add_plain(other, k),
    }
}

fn add_plain(e: CodeExpr, k: i128) -> CodeExpr {
    let lit = CodeExpr::Int {
        value: k.unsigned_abs(),
        negative: false,
        suffix: None,
    };
    if k >= 0 {
        CodeExpr::Binary(BinOp::Add, Box::new(e), Box::new(lit))
    } else {
        CodeExpr::Binary(BinOp::Sub, Box::new(e), Box::new(lit))
    }
}

/// Kahn's algorithm; among ready vertices the smallest key first. None on a cycle.
fn topological(adjacency: &[BTreeSet<usize>], keys: &[usize]) -> Option<Vec<usize>> {
    let n = adjacency.len();
    let mut indegree = vec![0usize; n];
    for succ in adjacency {
        for &s in succ {
            indegree[s] += 1;
        }
    }
    let mut ready: BTreeSet<(usize, usize)> = (0..n)
        .filter(|&v| indegree[v] == 0)
        .map(|v| (keys[v], v))
        .collect();
    let mut order = Vec::with_capacity(n);
    while let Some(&(k, v)) = ready.iter().next() {
        ready.remove(&(k, v));
        order.push(v);
        for &s in &adjacency[v] {
            indegree[s] -= 1;
            if indegree[s] == 0 {
                ready.insert((keys[s], s));
            }
        }
    }
    (order.len() == n).then_some(order)
}
