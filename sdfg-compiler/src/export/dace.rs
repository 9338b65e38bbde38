//! The SDFG as a DaCe 1.x `.sdfg` file (JSON), loadable by
//! `dace.SDFG.from_file(path)` of dace 1.0.2 and accepted by `.validate()`.
//!
//! The schema follows DaCe's own `to_json` output (checked against files
//! written by dace 1.0.2). How our IR maps onto DaCe's:
//! - a symbol (declared or inferred) is an entry of `symbols`;
//! - a container is an `Array`, or a `Scalar` when it is a scalar that DaCe
//!   may pass by value (transient, or an argument the SDFG never writes): a
//!   written scalar argument becomes a one-element `Array`, since DaCe passes
//!   `Scalar` arguments by value and the result would be lost;
//! - a map is MapEntry -> Tasklet -> MapExit. Outer memlets cover the hull of
//!   the inner ones (the whole container for dynamic accesses);
//! - a tasklet body is C++ (`language: CPP`) reading and writing connectors,
//!   see [`super::cpp`];
//! - a copy is one edge between two access nodes, `other_subset` being the
//!   destination's subset;
//! - a `wait` has no DaCe equivalent (DaCe synchronizes by itself) and is left out;
//! - ordering-only edges are empty memlets;
//! - interstate edges are made mutually exclusive (DaCe does not promise to
//!   try them in order as we do): the k-th edge's condition is
//!   `c_k and not (c_1 or ... or c_{k-1})`.

use super::cpp::{tasklet_to_cpp, wcr_lambda, HELPERS};
use super::print::{container_name, expr_to_python_boxed, BodyNames};
use crate::ir::{
    Access, BinOp, ContainerId, DataNode, Dataflow, Expr, ExprKind, MapParam, MapSchedule, Memlet,
    ScalarType, Sdfg, State, StatementKind, Storage, Subset, SubsetDim, UnOp, VarRef,
};
use serde_json::{json, Map as JsonMap, Value};
use std::collections::BTreeMap;

/// Attribute of a data descriptor: a scalar written as a one-element
/// `Array` (see the module doc). DaCe ignores attributes named `_meta*`;
/// `crate::import` reads the scalar back.
pub const SCALAR_MARK: &str = "_meta_sdfg_rs_scalar";
/// Attribute of a map entry: its parameters' types (DaCe's ranges have none).
pub const PARAM_TYPES_MARK: &str = "_meta_sdfg_rs_param_types";
/// Attribute of the SDFG: the declared symbols (the arguments; DaCe would
/// take every symbol read before an edge assigns it).
pub const ARGUMENTS_MARK: &str = "_meta_sdfg_rs_argument_symbols";

/// The DaCe `.sdfg` JSON of `sdfg`.
pub fn to_sdfg_json(sdfg: &Sdfg) -> Value {
    let cx = Cx::new(sdfg);
    let mut arrays = JsonMap::new();
    for (id, c) in sdfg.containers.iter().enumerate() {
        arrays.insert(c.name.text.clone(), cx.array_json(id));
    }
    let mut symbols = JsonMap::new();
    for s in &sdfg.symbols {
        symbols.insert(s.name.text.clone(), json!(dtype_name(s.ty)));
    }
    let arg_names: Vec<&str> = sdfg
        .containers
        .iter()
        .filter(|c| !c.transient)
        .map(|c| c.name.text.as_str())
        .collect();
    let states: Vec<Value> = sdfg
        .states
        .iter()
        .enumerate()
        .map(|(id, st)| cx.state_json(id, st))
        .collect();
    let start = if sdfg.start < sdfg.states.len() {
        json!(sdfg.start)
    } else {
        Value::Null
    };
    json!({
        "type": "SDFG",
        "attributes": {
            "name": dace_identifier(&sdfg.name.text),
            "arg_names": arg_names,
            "_arrays": arrays,
            "symbols": symbols,
            ARGUMENTS_MARK: sdfg.symbols.iter().filter(|s| s.declared).map(|s| s.name.text.as_str()).collect::<Vec<_>>(),
            "global_code": {"frame": code_block("", "CPP")},
            "init_code": {"frame": code_block("", "CPP")},
            "exit_code": {"frame": code_block("", "CPP")},
            "debuginfo": null,
        },
        "nodes": states,
        "edges": cx.interstate_edges_json(),
        "collapsed": false,
        "label": "",
        "id": null,
        "cfg_list_id": 0,
        "start_block": start,
        "dace_version": "1.0.2",
    })
}

/// [`to_sdfg_json`], pretty-printed: the contents of a `.sdfg` file.
pub fn to_sdfg_json_string(sdfg: &Sdfg) -> String {
    serde_json::to_string_pretty(&to_sdfg_json(sdfg)).unwrap_or_default()
}

/// DaCe's name of an element type.
pub fn dtype_name(t: ScalarType) -> &'static str {
    match t {
        ScalarType::I32 => "int32",
        ScalarType::I64 => "int64",
        ScalarType::U32 => "uint32",
        ScalarType::U64 => "uint64",
        ScalarType::F32 => "float32",
        ScalarType::F64 => "float64",
        ScalarType::Bool => "bool",
    }
}

/// DaCe's storage type of a container.
pub fn storage_name(s: Storage) -> &'static str {
    match s {
        Storage::Host => "CPU_Heap",
        Storage::Pinned => "CPU_Pinned",
        Storage::Gpu => "GPU_Global",
    }
}

/// DaCe's schedule type of a map.
pub fn schedule_name(s: MapSchedule) -> &'static str {
    match s {
        MapSchedule::Gpu => "GPU_Device",
        MapSchedule::Cpu => "CPU_Multicore",
        MapSchedule::Seq => "Sequential",
    }
}

/// Our names are Rust identifiers, so already valid in DaCe; a raw
/// identifier (`r#type`) loses its prefix.
fn dace_identifier(name: &str) -> String {
    name.trim_start_matches("r#").to_string()
}

fn code_block(code: &str, language: &str) -> Value {
    json!({"string_data": code, "language": language})
}

/// Whole-SDFG facts the states need.
struct Cx<'a> {
    sdfg: &'a Sdfg,
    /// Scalar containers exported as one-element arrays.
    boxed_scalars: Vec<ContainerId>,
}

impl<'a> Cx<'a> {
    fn new(sdfg: &'a Sdfg) -> Cx<'a> {
        let written = |id: ContainerId| {
            sdfg.states.iter().any(|st| {
                st.stmts
                    .iter()
                    .flat_map(|s| &s.memlets)
                    .any(|m| m.container == id && m.access.is_write())
            })
        };
        let boxed_scalars = sdfg
            .containers
            .iter()
            .enumerate()
            .filter(|(id, c)| c.is_scalar() && !c.transient && written(*id))
            .map(|(id, _)| id)
            .collect();
        Cx {
            sdfg,
            boxed_scalars,
        }
    }

    fn py(&self, e: &Expr) -> String {
        expr_to_python_boxed(e, self.sdfg, &BodyNames::none(), &self.boxed_scalars)
    }

    fn py_in(&self, e: &Expr, names: &BodyNames) -> String {
        expr_to_python_boxed(e, self.sdfg, names, &self.boxed_scalars)
    }

    /// `end - 1` for an exclusive end: DaCe's inclusive one, simplified.
    fn inclusive_end(&self, end: &Expr) -> String {
        linear(end, self).add(&Linear::constant(1), -1).text()
    }

    /// `end - start`, simplified.
    fn extent(&self, start: &Expr, end: &Expr) -> String {
        linear(end, self).add(&linear(start, self), -1).text()
    }

    /// The container's extents as DaCe sees them (a scalar has one of 1).
    fn shape(&self, id: ContainerId) -> Vec<String> {
        match self.sdfg.containers.get(id) {
            Some(c) if !c.is_scalar() => c.shape.iter().map(|e| self.py(e)).collect(),
            _ => vec!["1".to_string()],
        }
    }

    fn array_json(&self, id: ContainerId) -> Value {
        let c = &self.sdfg.containers[id];
        let shape = self.shape(id);
        let common = json!({
            "dtype": dtype_name(c.elem),
            "shape": shape,
            "transient": c.transient,
            "storage": storage_name(c.storage),
            "lifetime": "Scope",
            "allow_conflicts": false,
            "debuginfo": null,
        });
        if c.is_scalar() && !self.boxed_scalars.contains(&id) {
            return json!({"type": "Scalar", "attributes": common});
        }
        // Row-major strides: the product of the later extents.
        let mut strides = vec!["1".to_string(); shape.len()];
        for d in (0..shape.len().saturating_sub(1)).rev() {
            strides[d] = product(&[strides[d + 1].clone(), shape[d + 1].clone()]);
        }
        let mut attrs = common;
        let extra = json!({
            "strides": strides,
            "total_size": product(&shape),
            "offset": vec!["0"; shape.len()],
            "optional": false,
            "may_alias": false,
            "alignment": 0,
            "start_offset": 0,
        });
        if c.is_scalar() {
            attrs[SCALAR_MARK] = json!(true);
        }
        if let (Some(a), Some(e)) = (attrs.as_object_mut(), extra.as_object()) {
            a.extend(e.clone());
        }
        json!({"type": "Array", "attributes": attrs})
    }

    /// A subset in DaCe's `Range` form: inclusive ends.
    fn subset_json(&self, container: ContainerId, subset: &Subset, names: &BodyNames) -> Value {
        let ranges: Vec<Value> = if subset.is_empty() {
            self.whole_ranges(container)
        } else {
            subset
                .iter()
                .map(|d| match d {
                    SubsetDim::Index(e) => {
                        let i = self.py_in(e, names);
                        range_json(&i, &i)
                    }
                    SubsetDim::Range { start, end } => {
                        // Simplified when it is symbolic; with map parameters
                        // in it, spelled out (the simplifier knows symbols only).
                        let last = if crate::ir::bounds::reads_only_symbols(end) {
                            self.inclusive_end(end)
                        } else {
                            format!("({}) - 1", self.py_in(end, names))
                        };
                        range_json(&self.py_in(start, names), &last)
                    }
                })
                .collect()
        };
        json!({"type": "Range", "ranges": ranges})
    }

    fn whole_ranges(&self, container: ContainerId) -> Vec<Value> {
        self.shape(container)
            .iter()
            .map(|n| range_json("0", &minus_one_text(n)))
            .collect()
    }

    fn whole_subset(&self, container: ContainerId) -> Value {
        json!({"type": "Range", "ranges": self.whole_ranges(container)})
    }

    fn elements(&self, container: ContainerId) -> String {
        product(&self.shape(container))
    }

    /// The number of elements of a subset (for a copy's volume).
    fn subset_volume(&self, container: ContainerId, subset: &Subset) -> String {
        if subset.is_empty() {
            return self.elements(container);
        }
        let extents: Vec<String> = subset
            .iter()
            .map(|d| match d {
                SubsetDim::Index(_) => "1".to_string(),
                SubsetDim::Range { start, end } => self.extent(start, end),
            })
            .collect();
        product(&extents)
    }

    fn state_json(&self, id: usize, state: &State) -> Value {
        let mut b = StateBuilder::new(self, state);
        b.build();
        // Ids are positions (DaCe looks nodes up by index); scope fields
        // name the enclosing entry and, for scope nodes, the exit.
        for (n, node) in b.nodes.iter_mut().enumerate() {
            let as_id = |x: Option<usize>| x.map(|v| json!(v.to_string())).unwrap_or(Value::Null);
            node["id"] = json!(n);
            node["scope_entry"] = as_id(b.scope[n]);
            node["scope_exit"] = as_id(b.scope_exit[n]);
        }
        let mut scope_dict = JsonMap::new();
        let mut top: Vec<usize> = Vec::new();
        let mut inner: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (n, scope) in b.scope.iter().enumerate() {
            match scope {
                None => top.push(n),
                Some(entry) => inner.entry(*entry).or_default().push(n),
            }
        }
        scope_dict.insert("-1".to_string(), json!(top));
        for (entry, members) in inner {
            scope_dict.insert(entry.to_string(), json!(members));
        }
        json!({
            "type": "SDFGState",
            "label": state.name.text,
            "id": id,
            "collapsed": false,
            "scope_dict": scope_dict,
            "nodes": b.nodes,
            "edges": b.edges,
            "attributes": {},
        })
    }

    fn interstate_edges_json(&self) -> Vec<Value> {
        let sdfg = self.sdfg;
        let mut out = Vec::new();
        for (index, e) in sdfg.edges.iter().enumerate() {
            if e.from >= sdfg.states.len() || e.to >= sdfg.states.len() {
                continue;
            }
            // The edges tried before this one, whose conditions must be false.
            let earlier: Vec<&crate::ir::InterstateEdge> = sdfg.edges[..index]
                .iter()
                .filter(|o| o.from == e.from)
                .collect();
            let own = e.condition.as_ref().map(|c| self.py(c));
            let condition = if earlier.iter().any(|o| o.condition.is_none()) {
                // An earlier edge is always taken: this one never is.
                "False".to_string()
            } else {
                let negated: Vec<String> = earlier
                    .iter()
                    .filter_map(|o| o.condition.as_ref())
                    .map(|c| format!("({})", self.py(c)))
                    .collect();
                match (own, negated.is_empty()) {
                    (None, true) => "1".to_string(),
                    (Some(c), true) => c,
                    (None, false) => format!("not ({})", negated.join(" or ")),
                    (Some(c), false) => format!("({c}) and not ({})", negated.join(" or ")),
                }
            };
            let mut assignments = JsonMap::new();
            for (sym, value) in &e.assignments {
                let name = sdfg
                    .symbols
                    .get(*sym)
                    .map(|s| s.name.text.clone())
                    .unwrap_or_else(|| format!("__symbol{sym}"));
                assignments.insert(name, json!(self.py(value)));
            }
            out.push(json!({
                "type": "Edge",
                "attributes": {
                    "data": {
                        "type": "InterstateEdge",
                        "attributes": {
                            "assignments": assignments,
                            "condition": code_block(&condition, "Python"),
                        },
                        "label": "",
                    }
                },
                "src": e.from.to_string(),
                "dst": e.to.to_string(),
            }));
        }
        out
    }
}

fn range_json(start: &str, end_inclusive: &str) -> Value {
    json!({"start": start, "end": end_inclusive, "step": "1", "tile": "1"})
}

fn minus_one_text(n: &str) -> String {
    match n.parse::<i128>() {
        Ok(v) => (v - 1).to_string(),
        Err(_) => format!("({n}) - 1"),
    }
}

fn product(factors: &[String]) -> String {
    let mut literal: i128 = 1;
    let mut symbolic: Vec<String> = Vec::new();
    for f in factors {
        match f.parse::<i128>() {
            Ok(v) => literal = literal.saturating_mul(v),
            // A bare name or call needs no parentheses in a product.
            Err(_) if f.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                symbolic.push(f.clone())
            }
            Err(_) => symbolic.push(format!("({f})")),
        }
    }
    if symbolic.is_empty() {
        return literal.to_string();
    }
    if literal != 1 {
        symbolic.insert(0, literal.to_string());
    }
    symbolic.join("*")
}

fn memlet_json(
    data: &str,
    subset: Value,
    other_subset: Value,
    volume: &str,
    dynamic: bool,
    wcr: Option<&str>,
) -> Value {
    json!({
        "type": "Memlet",
        "attributes": {
            "volume": volume,
            "dynamic": dynamic,
            "subset": subset,
            "other_subset": other_subset,
            "data": data,
            "wcr": wcr,
            "wcr_nonatomic": false,
            "allow_oob": false,
            "debuginfo": null,
        }
    })
}

fn empty_memlet_json() -> Value {
    json!({
        "type": "Memlet",
        "attributes": {
            "volume": "0", "dynamic": false, "subset": null, "other_subset": null,
            "data": null, "wcr": null, "debuginfo": null,
        }
    })
}

/// Where one of our dataflow nodes ended up in the DaCe state.
#[derive(Clone, Copy, Debug, Default)]
struct Placed {
    /// The DaCe node that incoming edges attach to.
    input: Option<usize>,
    /// The DaCe node that outgoing edges leave from.
    output: Option<usize>,
    /// For a map: its tasklet.
    tasklet: Option<usize>,
}

/// Builds one DaCe state from one of ours.
struct StateBuilder<'c, 'a> {
    cx: &'c Cx<'a>,
    state: &'a State,
    graph: std::borrow::Cow<'a, Dataflow>,
    nodes: Vec<Value>,
    edges: Vec<Value>,
    /// Per DaCe node: the map entry whose scope holds it.
    scope: Vec<Option<usize>>,
    /// Per DaCe node: its `scope_exit` (map nodes only).
    scope_exit: Vec<Option<usize>>,
}

impl<'c, 'a> StateBuilder<'c, 'a> {
    fn new(cx: &'c Cx<'a>, state: &'a State) -> Self {
        StateBuilder {
            cx,
            state,
            graph: bypass_waits(state, super::dataflow_of(state)),
            nodes: Vec::new(),
            edges: Vec::new(),
            scope: Vec::new(),
            scope_exit: Vec::new(),
        }
    }

    fn add_node(&mut self, node: Value, scope: Option<usize>) -> usize {
        let id = self.nodes.len();
        self.nodes.push(node);
        self.scope.push(scope);
        self.scope_exit.push(None);
        id
    }

    fn add_edge(
        &mut self,
        src: usize,
        src_conn: Option<&str>,
        dst: usize,
        dst_conn: Option<&str>,
        memlet: Value,
    ) {
        self.edges.push(json!({
            "type": "MultiConnectorEdge",
            "attributes": {"data": memlet},
            "src": src.to_string(),
            "dst": dst.to_string(),
            "src_connector": src_conn,
            "dst_connector": dst_conn,
        }));
    }

    fn build(&mut self) {
        let sdfg = self.cx.sdfg;
        let graph = self.graph.clone();
        // 1. Nodes.
        let mut placed = vec![Placed::default(); graph.nodes.len()];
        for (n, node) in graph.nodes.iter().enumerate() {
            placed[n] = match node {
                DataNode::Access(c) => {
                    let name = container_name(sdfg, *c);
                    let id = self.add_node(
                        json!({"type": "AccessNode", "label": name,
                               "attributes": {"data": name, "setzero": false, "debuginfo": null,
                                              "in_connectors": {}, "out_connectors": {}}}),
                        None,
                    );
                    Placed {
                        input: Some(id),
                        output: Some(id),
                        tasklet: None,
                    }
                }
                DataNode::Stmt(s) => self.place_statement(*s),
            };
        }
        // 2. A copy is one edge between its two access nodes; ordering edges
        //    attach to its destination (the node its effect is visible at).
        for (n, node) in graph.nodes.iter().enumerate() {
            let DataNode::Stmt(s) = node else { continue };
            let Some(stmt) = self.state.stmts.get(*s) else {
                continue;
            };
            if !matches!(stmt.kind, StatementKind::Copy(_)) {
                continue;
            }
            let src = graph
                .edges
                .iter()
                .find(|e| e.dst == n && e.memlet.is_some())
                .and_then(|e| placed.get(e.src).and_then(|p| p.output));
            let dst = graph
                .edges
                .iter()
                .find(|e| e.src == n && e.memlet.is_some())
                .and_then(|e| placed.get(e.dst).and_then(|p| p.input));
            let (Some(src), Some(dst), Some(read), Some(write)) =
                (src, dst, stmt.memlets.first(), stmt.memlets.get(1))
            else {
                continue;
            };
            let memlet = memlet_json(
                &container_name(sdfg, read.container),
                self.cx
                    .subset_json(read.container, &read.subset, &BodyNames::none()),
                self.cx
                    .subset_json(write.container, &write.subset, &BodyNames::none()),
                &self.cx.subset_volume(read.container, &read.subset),
                false,
                None,
            );
            self.add_edge(src, None, dst, None, memlet);
            placed[n] = Placed {
                input: Some(dst),
                output: Some(dst),
                tasklet: None,
            };
        }
        // 3. Memlet edges of maps and tasklets; ordering edges.
        let mut map_reads: BTreeMap<(usize, usize), Vec<(usize, usize)>> = BTreeMap::new();
        let mut map_writes: BTreeMap<(usize, usize), Vec<(usize, usize)>> = BTreeMap::new();
        for e in &graph.edges {
            let (Some(src), Some(dst)) = (placed.get(e.src), placed.get(e.dst)) else {
                continue;
            };
            match e.memlet {
                None => {
                    // DaCe accepts an empty memlet out of a data node, not
                    // out of a map exit or a tasklet: leave from an access
                    // node the statement wrote (it is ordered after it).
                    let written = graph
                        .edges
                        .iter()
                        .find(|w| w.src == e.src && w.memlet.is_some())
                        .and_then(|w| placed.get(w.dst))
                        .and_then(|p| p.input);
                    let from = match graph.nodes.get(e.src) {
                        Some(DataNode::Access(_)) => src.output,
                        _ => written,
                    };
                    if let (Some(a), Some(b)) = (from, dst.input) {
                        if a != b {
                            self.add_edge(a, None, b, None, empty_memlet_json());
                        }
                    }
                }
                Some((s, m)) => {
                    let Some(stmt) = self.state.stmts.get(s) else {
                        continue;
                    };
                    let reads = graph.nodes.get(e.dst) == Some(&DataNode::Stmt(s));
                    match &stmt.kind {
                        StatementKind::Map(_) => {
                            if reads {
                                map_reads.entry((e.dst, e.src)).or_default().push((s, m));
                            } else {
                                map_writes.entry((e.src, e.dst)).or_default().push((s, m));
                            }
                        }
                        StatementKind::Tasklet(_) => {
                            let Some(memlet) = stmt.memlets.get(m) else {
                                continue;
                            };
                            let json = self.inner_memlet_json(memlet, &BodyNames::none());
                            match (reads, src.output, dst.input) {
                                (true, Some(a), Some(t)) => {
                                    self.add_edge(a, None, t, Some(&memlet.connector), json)
                                }
                                (false, Some(t), Some(a)) => {
                                    self.add_edge(t, Some(&memlet.connector), a, None, json)
                                }
                                _ => {}
                            }
                        }
                        StatementKind::Copy(_) | StatementKind::Wait(_) => {}
                    }
                }
            }
        }
        self.connect_maps(&graph, &placed, map_reads, map_writes);
    }

    /// Adds the DaCe nodes of statement `s`.
    fn place_statement(&mut self, s: usize) -> Placed {
        let Some(stmt) = self.state.stmts.get(s) else {
            return Placed::default();
        };
        match &stmt.kind {
            StatementKind::Tasklet(t) => {
                let names = BodyNames::for_tasklet(t);
                let id = self.add_node(
                    self.tasklet_json(&t.name.text, &t.body.stmts, &names, &stmt.memlets),
                    None,
                );
                Placed {
                    input: Some(id),
                    output: Some(id),
                    tasklet: Some(id),
                }
            }
            StatementKind::Map(map) => {
                let names = BodyNames::for_map(map);
                let label = dace_identifier(&map.name.text);
                let params: Vec<String> = map.params.iter().map(|p| p.name.text.clone()).collect();
                let ranges: Vec<Value> = map
                    .params
                    .iter()
                    .map(|p| {
                        let mut r =
                            range_json(&self.cx.py(&p.start), &self.cx.inclusive_end(&p.end));
                        if let Some(step) = &p.step {
                            r["step"] = json!(self.cx.py(step));
                        }
                        r
                    })
                    .collect();
                let entry = self.add_node(
                    json!({
                        "type": "MapEntry",
                        "label": label,
                        "attributes": {
                            "label": label,
                            "params": params,
                            "range": {"type": "Range", "ranges": ranges},
                            "schedule": schedule_name(map.schedule),
                            PARAM_TYPES_MARK: map.params.iter().map(|p| dtype_name(p.ty)).collect::<Vec<_>>(),
                            "debuginfo": null,
                            "in_connectors": {},
                            "out_connectors": {},
                        }
                    }),
                    None,
                );
                let tasklet = self.add_node(
                    self.tasklet_json(&label, &map.body.stmts, &names, &stmt.memlets),
                    Some(entry),
                );
                let exit = self.add_node(
                    json!({
                        "type": "MapExit",
                        "label": label,
                        "attributes": {"in_connectors": {}, "out_connectors": {}}
                    }),
                    Some(entry),
                );
                self.scope_exit[entry] = Some(exit);
                self.scope_exit[exit] = Some(exit);
                Placed {
                    input: Some(entry),
                    output: Some(exit),
                    tasklet: Some(tasklet),
                }
            }
            StatementKind::Copy(_) | StatementKind::Wait(_) => Placed::default(),
        }
    }

    fn tasklet_json(
        &self,
        label: &str,
        body: &[crate::ir::Stmt],
        names: &BodyNames,
        memlets: &[Memlet],
    ) -> Value {
        let cpp = tasklet_to_cpp(body, names, memlets, self.cx.sdfg);
        let mut ins = JsonMap::new();
        let mut outs = JsonMap::new();
        for m in memlets {
            if m.access.is_write() {
                outs.insert(m.connector.clone(), Value::Null);
            } else {
                ins.insert(m.connector.clone(), Value::Null);
            }
        }
        let global = if cpp.needs_helpers { HELPERS } else { "" };
        json!({
            "type": "Tasklet",
            "label": label,
            "attributes": {
                "label": label,
                "code": code_block(&cpp.code, "CPP"),
                "code_global": code_block(global, "CPP"),
                "in_connectors": ins,
                "out_connectors": outs,
                "debuginfo": null,
            }
        })
    }

    /// The memlet between a tasklet and the data (or the map scope): one
    /// element, or the whole container for a dynamic access.
    fn inner_memlet_json(&self, m: &Memlet, names: &BodyNames) -> Value {
        let name = container_name(self.cx.sdfg, m.container);
        // A dynamic reduction reduces in the code (see cpp.rs), so its memlet has no WCR.
        let wcr = match m.access {
            Access::Reduce(op) if !m.dynamic => Some(wcr_lambda(op)),
            _ => None,
        };
        if m.dynamic {
            memlet_json(
                &name,
                self.cx.whole_subset(m.container),
                Value::Null,
                &self.cx.elements(m.container),
                true,
                wcr,
            )
        } else {
            memlet_json(
                &name,
                self.cx.subset_json(m.container, &m.subset, names),
                Value::Null,
                "1",
                false,
                wcr,
            )
        }
    }

    /// The edges through each map's scope: access -> entry -> tasklet and
    /// tasklet -> exit -> access, one connector pair per container.
    fn connect_maps(
        &mut self,
        graph: &Dataflow,
        placed: &[Placed],
        reads: BTreeMap<(usize, usize), Vec<(usize, usize)>>,
        writes: BTreeMap<(usize, usize), Vec<(usize, usize)>>,
    ) {
        let mut has_input = vec![false; self.nodes.len()];
        let mut has_output = vec![false; self.nodes.len()];
        for ((map_node, access_node), memlets) in reads {
            let (Some(p), Some(a)) = (placed.get(map_node), placed.get(access_node)) else {
                continue;
            };
            let (Some(entry), Some(tasklet), Some(access)) = (p.input, p.tasklet, a.output) else {
                continue;
            };
            let Some(conn) = self.scope_connector(entry, &memlets, "IN_", "in_connectors") else {
                continue;
            };
            self.add_scope_connector(entry, &format!("OUT_{conn}"), "out_connectors");
            let outer = self.outer_memlet_json(&memlets, None);
            self.add_edge(access, None, entry, Some(&format!("IN_{conn}")), outer);
            for (s, m) in memlets {
                let (inner, connector) = self.map_inner(s, m);
                self.add_edge(
                    entry,
                    Some(&format!("OUT_{conn}")),
                    tasklet,
                    Some(&connector),
                    inner,
                );
            }
            has_input[tasklet] = true;
        }
        for ((map_node, access_node), memlets) in writes {
            let (Some(p), Some(a)) = (placed.get(map_node), placed.get(access_node)) else {
                continue;
            };
            let (Some(exit), Some(tasklet), Some(access)) = (p.output, p.tasklet, a.input) else {
                continue;
            };
            let Some(conn) = self.scope_connector(exit, &memlets, "IN_", "in_connectors") else {
                continue;
            };
            self.add_scope_connector(exit, &format!("OUT_{conn}"), "out_connectors");
            let wcr = memlets.iter().find_map(|(s, m)| match self.memlet(*s, *m) {
                Some(Memlet {
                    access: Access::Reduce(op),
                    dynamic: false,
                    ..
                }) => Some(wcr_lambda(*op)),
                _ => None,
            });
            let outer = self.outer_memlet_json(&memlets, wcr);
            self.add_edge(exit, Some(&format!("OUT_{conn}")), access, None, outer);
            for (s, m) in memlets {
                let (inner, connector) = self.map_inner(s, m);
                self.add_edge(
                    tasklet,
                    Some(&connector),
                    exit,
                    Some(&format!("IN_{conn}")),
                    inner,
                );
            }
            has_output[tasklet] = true;
        }
        // DaCe needs every node of a scope connected to its entry and exit.
        for (n, node) in graph.nodes.iter().enumerate() {
            let DataNode::Stmt(s) = node else { continue };
            if !matches!(
                self.state.stmts.get(*s).map(|x| &x.kind),
                Some(StatementKind::Map(_))
            ) {
                continue;
            }
            let Some(Placed {
                input: Some(entry),
                output: Some(exit),
                tasklet: Some(t),
            }) = placed.get(n).copied()
            else {
                continue;
            };
            if !has_input[t] {
                self.add_edge(entry, None, t, None, empty_memlet_json());
            }
            if !has_output[t] {
                self.add_edge(t, None, exit, None, empty_memlet_json());
            }
        }
    }

    fn memlet(&self, s: usize, m: usize) -> Option<&'a Memlet> {
        self.state.stmts.get(s).and_then(|st| st.memlets.get(m))
    }

    fn map_inner(&self, s: usize, m: usize) -> (Value, String) {
        let names = match self.state.stmts.get(s).map(|x| &x.kind) {
            Some(StatementKind::Map(map)) => BodyNames::for_map(map),
            _ => BodyNames::none(),
        };
        match self.memlet(s, m) {
            Some(memlet) => (
                self.inner_memlet_json(memlet, &names),
                memlet.connector.clone(),
            ),
            None => (empty_memlet_json(), String::new()),
        }
    }

    /// A fresh connector stem for the container of `memlets` on a scope node
    /// (`A`, or `A_1` when `IN_A` is taken); registers `IN_<stem>`.
    fn scope_connector(
        &mut self,
        node: usize,
        memlets: &[(usize, usize)],
        prefix: &str,
        field: &str,
    ) -> Option<String> {
        let (s, m) = memlets.first()?;
        let container = self.memlet(*s, *m)?.container;
        let base = container_name(self.cx.sdfg, container);
        let taken = |stem: &str, nodes: &Vec<Value>| {
            nodes[node]["attributes"][field]
                .get(format!("{prefix}{stem}"))
                .is_some()
        };
        let mut stem = base.clone();
        let mut k = 1;
        while taken(&stem, &self.nodes) {
            stem = format!("{base}_{k}");
            k += 1;
        }
        self.add_scope_connector(node, &format!("{prefix}{stem}"), field);
        Some(stem)
    }

    fn add_scope_connector(&mut self, node: usize, name: &str, field: &str) {
        if let Some(obj) = self.nodes[node]["attributes"][field].as_object_mut() {
            obj.insert(name.to_string(), Value::Null);
        }
    }

    /// The memlet outside a map: the hull of the inner subsets over the map's
    /// ranges, or the whole container when an access is dynamic or not affine.
    fn outer_memlet_json(&self, memlets: &[(usize, usize)], wcr: Option<&str>) -> Value {
        let inner: Vec<(&Memlet, &crate::ir::Map)> = memlets
            .iter()
            .filter_map(|(s, m)| {
                let stmt = self.state.stmts.get(*s)?;
                let StatementKind::Map(map) = &stmt.kind else {
                    return None;
                };
                Some((stmt.memlets.get(*m)?, map))
            })
            .collect();
        let Some((first, map)) = inner.first() else {
            return empty_memlet_json();
        };
        let container = first.container;
        let name = container_name(self.cx.sdfg, container);
        let iterations = product(
            &map.params
                .iter()
                .map(|p| self.cx.extent(&p.start, &p.end))
                .collect::<Vec<_>>(),
        );
        let volume = product(&[inner.len().to_string(), iterations]);
        let dynamic = inner.iter().any(|(m, _)| m.dynamic);
        let hull = if dynamic { None } else { hull(&inner, self.cx) };
        match hull {
            Some(ranges) => memlet_json(
                &name,
                json!({"type": "Range", "ranges": ranges}),
                Value::Null,
                &volume,
                false,
                wcr,
            ),
            None => memlet_json(
                &name,
                self.cx.whole_subset(container),
                Value::Null,
                &volume,
                true,
                wcr,
            ),
        }
    }
}

/// `wait` statements have no DaCe node; the order they carried is kept by
/// edges from whatever preceded a wait to whatever followed it.
fn bypass_waits<'a>(
    state: &State,
    graph: std::borrow::Cow<'a, Dataflow>,
) -> std::borrow::Cow<'a, Dataflow> {
    let is_wait = |n: usize| match graph.nodes.get(n) {
        Some(DataNode::Stmt(s)) => matches!(
            state.stmts.get(*s).map(|x| &x.kind),
            Some(StatementKind::Wait(_))
        ),
        _ => false,
    };
    if !(0..graph.nodes.len()).any(is_wait) {
        return graph;
    }
    let mut g = graph.as_ref().clone();
    for w in (0..g.nodes.len()).filter(|n| is_wait(*n)) {
        let before: Vec<usize> = g
            .edges
            .iter()
            .filter(|e| e.dst == w)
            .map(|e| e.src)
            .collect();
        let after: Vec<usize> = g
            .edges
            .iter()
            .filter(|e| e.src == w)
            .map(|e| e.dst)
            .collect();
        g.edges.retain(|e| e.src != w && e.dst != w);
        for &u in &before {
            for &v in &after {
                if u != v {
                    g.edges.push(crate::ir::DataEdge {
                        src: u,
                        dst: v,
                        memlet: None,
                    });
                }
            }
        }
    }
    std::borrow::Cow::Owned(g)
}

// ---------------------------------------------------------------- hulls

/// An integer linear form over atoms (symbols or opaque subexpressions):
/// enough to compute `min`/`max` of `i - 1` and `i + 1` without a CAS.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Linear {
    terms: BTreeMap<String, i128>,
    constant: i128,
}

impl Linear {
    fn constant(c: i128) -> Linear {
        Linear {
            terms: BTreeMap::new(),
            constant: c,
        }
    }
    fn atom(text: String) -> Linear {
        Linear {
            terms: BTreeMap::from([(text, 1)]),
            constant: 0,
        }
    }
    fn add(&self, other: &Linear, sign: i128) -> Linear {
        let mut out = self.clone();
        for (t, c) in &other.terms {
            *out.terms.entry(t.clone()).or_insert(0) += sign * c;
        }
        out.terms.retain(|_, c| *c != 0);
        out.constant += sign * other.constant;
        out
    }
    fn scale(&self, k: i128) -> Linear {
        let mut out = self.clone();
        out.terms.values_mut().for_each(|c| *c *= k);
        out.terms.retain(|_, c| *c != 0);
        out.constant *= k;
        out
    }
    fn text(&self) -> String {
        let mut out = String::new();
        for (t, c) in &self.terms {
            let term = match c {
                1 => t.clone(),
                -1 => format!("-{t}"),
                c => format!("{c}*{t}"),
            };
            if out.is_empty() {
                out = term;
            } else if let Some(neg) = term.strip_prefix('-') {
                out = format!("{out} - {neg}");
            } else {
                out = format!("{out} + {term}");
            }
        }
        match (out.is_empty(), self.constant) {
            (true, c) => c.to_string(),
            (false, 0) => out,
            (false, c) if c < 0 => format!("{out} - {}", -c),
            (false, c) => format!("{out} + {c}"),
        }
    }
}

/// A symbolic bound: a linear form, or a `min`/`max` text DaCe simplifies.
#[derive(Clone, Debug)]
enum Bound {
    Linear(Linear),
    Text(String),
}

impl Bound {
    fn text(&self) -> String {
        match self {
            Bound::Linear(l) => l.text(),
            Bound::Text(t) => t.clone(),
        }
    }
    /// `min` (`lower`) or `max` of two bounds; folded when they differ by a constant.
    fn combine(&self, other: &Bound, lower: bool) -> Bound {
        if let (Bound::Linear(a), Bound::Linear(b)) = (self, other) {
            if a.terms == b.terms {
                let c = if lower {
                    a.constant.min(b.constant)
                } else {
                    a.constant.max(b.constant)
                };
                return Bound::Linear(Linear {
                    terms: a.terms.clone(),
                    constant: c,
                });
            }
        }
        let f = if lower { "min" } else { "max" };
        Bound::Text(format!("{f}({}, {})", self.text(), other.text()))
    }
}

fn literal_int(e: &Expr) -> Option<i128> {
    match &e.kind {
        ExprKind::Lit(v) => v.as_i128(),
        _ => None,
    }
}

/// A symbol-only expression as a linear form (non-linear parts become atoms).
fn linear(e: &Expr, cx: &Cx) -> Linear {
    match &e.kind {
        ExprKind::Lit(v) => match v.as_i128() {
            Some(c) => Linear::constant(c),
            None => Linear::atom(format!("({})", cx.py(e))),
        },
        ExprKind::Var(VarRef::Symbol(_)) => Linear::atom(cx.py(e)),
        ExprKind::Binary {
            op: op @ (BinOp::Add | BinOp::Sub),
            lhs,
            rhs,
        } => linear(lhs, cx).add(&linear(rhs, cx), if *op == BinOp::Add { 1 } else { -1 }),
        ExprKind::Binary {
            op: BinOp::Mul,
            lhs,
            rhs,
        } => match (literal_int(lhs), literal_int(rhs)) {
            (Some(k), _) => linear(rhs, cx).scale(k),
            (_, Some(k)) => linear(lhs, cx).scale(k),
            _ => Linear::atom(format!("({})", cx.py(e))),
        },
        ExprKind::Unary { op: UnOp::Neg, arg } => linear(arg, cx).scale(-1),
        ExprKind::Cast { arg } if e.ty.is_integer() && arg.ty.is_integer() => linear(arg, cx),
        _ => Linear::atom(format!("({})", cx.py(e))),
    }
}

/// The inclusive `(lo, hi)` of an index expression over the map's ranges;
/// None when it reads anything but parameters, symbols and literals, or is
/// not linear with literal coefficients.
fn interval(e: &Expr, params: &[MapParam], cx: &Cx) -> Option<(Linear, Linear)> {
    match &e.kind {
        ExprKind::Lit(v) => v
            .as_i128()
            .map(|c| (Linear::constant(c), Linear::constant(c))),
        ExprKind::Var(VarRef::Symbol(_)) => {
            let l = linear(e, cx);
            Some((l.clone(), l))
        }
        ExprKind::Var(VarRef::Param(p)) => {
            let p = params.get(*p)?;
            let lo = linear(&p.start, cx);
            let hi = linear(&p.end, cx).add(&Linear::constant(1), -1);
            Some((lo, hi))
        }
        ExprKind::Binary {
            op: op @ (BinOp::Add | BinOp::Sub),
            lhs,
            rhs,
        } => {
            let (a_lo, a_hi) = interval(lhs, params, cx)?;
            let (b_lo, b_hi) = interval(rhs, params, cx)?;
            Some(if *op == BinOp::Add {
                (a_lo.add(&b_lo, 1), a_hi.add(&b_hi, 1))
            } else {
                (a_lo.add(&b_hi, -1), a_hi.add(&b_lo, -1))
            })
        }
        ExprKind::Binary {
            op: BinOp::Mul,
            lhs,
            rhs,
        } => {
            let (k, other) = match (&lhs.kind, &rhs.kind) {
                (ExprKind::Lit(v), _) => (v.as_i128()?, rhs),
                (_, ExprKind::Lit(v)) => (v.as_i128()?, lhs),
                _ => return None,
            };
            let (lo, hi) = interval(other, params, cx)?;
            Some(if k >= 0 {
                (lo.scale(k), hi.scale(k))
            } else {
                (hi.scale(k), lo.scale(k))
            })
        }
        ExprKind::Unary { op: UnOp::Neg, arg } => {
            let (lo, hi) = interval(arg, params, cx)?;
            Some((hi.scale(-1), lo.scale(-1)))
        }
        ExprKind::Cast { arg } if e.ty.is_integer() && arg.ty.is_integer() => {
            interval(arg, params, cx)
        }
        _ => None,
    }
}

/// The per-dimension hull of fixed memlets of one container, as DaCe ranges.
fn hull(inner: &[(&Memlet, &crate::ir::Map)], cx: &Cx) -> Option<Vec<Value>> {
    let dims = inner.first()?.0.subset.len();
    if dims == 0 {
        // A scalar container.
        return Some(vec![range_json("0", "0")]);
    }
    let mut out = Vec::new();
    for d in 0..dims {
        let mut acc: Option<(Bound, Bound)> = None;
        for (m, map) in inner {
            let (lo, hi) = match m.subset.get(d)? {
                SubsetDim::Index(e) => interval(e, &map.params, cx)?,
                SubsetDim::Range { start, end } => {
                    let (lo, _) = interval(start, &map.params, cx)?;
                    let (_, hi) = interval(end, &map.params, cx)?;
                    (lo, hi.add(&Linear::constant(1), -1))
                }
            };
            let (lo, hi) = (Bound::Linear(lo), Bound::Linear(hi));
            acc = Some(match acc {
                None => (lo, hi),
                Some((a, b)) => (a.combine(&lo, true), b.combine(&hi, false)),
            });
        }
        let (lo, hi) = acc?;
        let extent = cx
            .sdfg
            .containers
            .get(inner.first()?.0.container)
            .and_then(|c| c.shape.get(d))
            .map(|e| linear(e, cx));
        let (lo, hi) = clamp_to_bounds(lo, hi, extent);
        out.push(range_json(&lo.text(), &hi.text()));
    }
    Some(out)
}

/// The hull cut to `0..extent` where it provably sticks out (a stencil that
/// reads `A[j - 2]` from `j = 1`). Such an access fails our bounds check
/// before anything runs, so no run touches the cut part; DaCe's validation
/// rejects a memlet that provably leaves its container.
fn clamp_to_bounds(lo: Bound, hi: Bound, extent: Option<Linear>) -> (Bound, Bound) {
    let lo = match lo {
        Bound::Linear(l) if l.terms.is_empty() && l.constant < 0 => {
            Bound::Linear(Linear::constant(0))
        }
        other => other,
    };
    let last = extent.map(|e| e.add(&Linear::constant(1), -1));
    let hi = match (hi, last) {
        (Bound::Linear(h), Some(last)) if h.terms == last.terms && h.constant > last.constant => {
            Bound::Linear(last)
        }
        (other, _) => other,
    };
    (lo, hi)
}
