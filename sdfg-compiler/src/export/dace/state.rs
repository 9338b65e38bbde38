//! One DaCe state from one of ours: access nodes, tasklets and map
//! entry/tasklet/exit triples, copies as edges between access nodes, memlet
//! and ordering edges, the edges through map scopes (one connector pair
//! per container), and the scope dictionary DaCe looks nodes up in.

use super::block::block_sdfg;
use super::data::{empty_memlet_json, memlet_json, product, range_json};
use super::library::{input_connector, output_connector};
use super::symbolic::hull;
use super::{code_block, dace_identifier, dtype_name, Cx};
use crate::dace_format::{HELPERS, INDEPENDENT_MARK, PARAM_TYPES_MARK};
use crate::export::cpp::{tasklet_to_cpp, wcr_lambda};
use crate::export::print::{container_name, BodyNames};
use crate::ir::{Access, DataNode, Dataflow, Memlet, State, StatementKind};
use serde_json::{json, Map as JsonMap, Value};
use std::collections::BTreeMap;

impl Cx<'_> {
    pub(super) fn state_json(&self, id: usize, state: &State) -> Value {
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
            graph: bypass_waits(state, crate::export::dataflow_of(state)),
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
                        // One edge per operand, below.
                        StatementKind::Map(map) if map.library.is_some() => {}
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
                        StatementKind::Nested(_) => {
                            let Some(memlet) = stmt.memlets.get(m) else {
                                continue;
                            };
                            let json = self.binding_memlet_json(memlet);
                            match (reads, src.output, dst.input) {
                                (true, Some(a), Some(n)) => {
                                    self.add_edge(a, None, n, Some(&memlet.connector), json)
                                }
                                (false, Some(n), Some(a)) => {
                                    self.add_edge(n, Some(&memlet.connector), a, None, json)
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
        self.connect_library_nodes(&graph, &placed);
    }

    /// A library node's edges: one per operand (in order, from the access
    /// node its statement reads) and one to its result, whole containers.
    fn connect_library_nodes(&mut self, graph: &Dataflow, placed: &[Placed]) {
        for (n, node) in graph.nodes.iter().enumerate() {
            let DataNode::Stmt(s) = node else { continue };
            let Some(StatementKind::Map(map)) = self.state.stmts.get(*s).map(|x| &x.kind) else {
                continue;
            };
            let (Some(call), Some(lib)) = (&map.library, placed.get(n).and_then(|p| p.input))
            else {
                continue;
            };
            let stmts = &self.state.stmts;
            let container_of = |e: &crate::ir::DataEdge| {
                e.memlet
                    .and_then(|(s, m)| stmts.get(s)?.memlets.get(m))
                    .map(|m| m.container)
            };
            for (position, &input) in call.inputs.iter().enumerate() {
                let from = graph
                    .edges
                    .iter()
                    .find(|e| e.dst == n && container_of(e) == Some(input))
                    .and_then(|e| placed.get(e.src).and_then(|p| p.output));
                if let Some(from) = from {
                    let memlet = self.cx.whole_memlet_json(input);
                    self.add_edge(from, None, lib, input_connector(call, position), memlet);
                }
            }
            let to = graph
                .edges
                .iter()
                .find(|e| e.src == n && container_of(e) == Some(call.output))
                .and_then(|e| placed.get(e.dst).and_then(|p| p.input));
            if let Some(to) = to {
                let memlet = self.cx.whole_memlet_json(call.output);
                self.add_edge(lib, output_connector(call), to, None, memlet);
            }
        }
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
            StatementKind::Map(map) if map.library.is_some() => {
                let label = dace_identifier(&map.name.text);
                let call = map.library.as_ref().expect("checked");
                let id = self.add_node(self.cx.library_node_json(&label, call), None);
                Placed {
                    input: Some(id),
                    output: Some(id),
                    tasklet: None,
                }
            }
            StatementKind::Map(map) => {
                let names = BodyNames::for_map(map);
                let label = dace_identifier(&map.name.text);
                let mut params: Vec<String> =
                    map.params.iter().map(|p| p.name.text.clone()).collect();
                let mut ranges: Vec<Value> = map
                    .params
                    .iter()
                    .map(|p| {
                        // A dependent range reads the parameters before it
                        // (DaCe accepts that in one map).
                        let mut r = range_json(
                            &self.cx.py_in(&p.start, &names),
                            &self.cx.inclusive_end_in(&p.end, &names),
                        );
                        if let Some(step) = &p.step {
                            r["step"] = json!(self.cx.py(step));
                        }
                        r
                    })
                    .collect();
                let mut param_types: Vec<&str> =
                    map.params.iter().map(|p| dtype_name(p.ty)).collect();
                if params.is_empty() {
                    // A GPU tasklet: a map of one iteration (DaCe maps
                    // have at least one parameter).
                    params.push("__tasklet".to_string());
                    ranges.push(range_json("0", "0"));
                    param_types.push(dtype_name(crate::ir::ScalarType::I64));
                }
                let entry = self.add_node(
                    json!({
                        "type": "MapEntry",
                        "label": label,
                        "attributes": {
                            "label": label,
                            "params": params,
                            "range": {"type": "Range", "ranges": ranges},
                            "schedule": self.cx.map_schedule(map),
                            PARAM_TYPES_MARK: param_types,
                            INDEPENDENT_MARK: map.independent.iter().map(|(c, _)| container_name(self.cx.sdfg, *c)).collect::<Vec<_>>(),
                            "debuginfo": null,
                            "in_connectors": {},
                            "out_connectors": {},
                        }
                    }),
                    None,
                );
                let body = match &map.block {
                    Some(_) => self.nested_block_json(map, stmt),
                    None => self.tasklet_json(&label, &map.body.stmts, &names, &stmt.memlets),
                };
                let tasklet = self.add_node(body, Some(entry));
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
            StatementKind::Nested(call) => {
                let id = self.add_node(self.nested_json(call, &stmt.memlets), None);
                Placed {
                    input: Some(id),
                    output: Some(id),
                    tasklet: Some(id),
                }
            }
            StatementKind::Copy(_) | StatementKind::Wait(_) => Placed::default(),
        }
    }

    /// A call as DaCe's `NestedSDFG` node: the callee's own SDFG, the values
    /// of its symbols (DaCe's `symbol_mapping`) and one connector per bound
    /// container and direction, named as the callee names it.
    fn nested_json(&self, call: &crate::ir::NestedSdfg, memlets: &[Memlet]) -> Value {
        let callee = &*call.callee;
        let label = dace_identifier(&callee.name.text);
        let mut mapping = JsonMap::new();
        for (s, value) in &call.symbols {
            if let Some(sym) = callee.symbols.get(*s) {
                mapping.insert(sym.name.text.clone(), json!(self.cx.py(value)));
            }
        }
        let mut ins = JsonMap::new();
        let mut outs = JsonMap::new();
        for m in memlets {
            if m.access.is_write() {
                outs.insert(m.connector.clone(), Value::Null);
            } else {
                ins.insert(m.connector.clone(), Value::Null);
            }
        }
        let mut inner = super::to_sdfg_json(callee);
        // A bound container is the caller's memory seen through the
        // binding: its strides are the caller's, dimension by dimension.
        for b in &call.bindings {
            let (Some(name), Some(outer)) = (
                callee.containers.get(b.inner).map(|c| &c.name.text),
                self.cx.sdfg.containers.get(b.outer),
            ) else {
                continue;
            };
            if outer.is_scalar() {
                continue;
            }
            let strides: Vec<String> = self
                .cx
                .strides(b.outer)
                .into_iter()
                .zip(&b.subset)
                .filter(|(_, d)| matches!(d, crate::ir::SubsetDim::Range { .. }))
                .map(|(s, _)| s)
                .collect();
            let attrs = &mut inner["attributes"]["_arrays"][name.as_str()]["attributes"];
            if attrs.get("strides").is_some() && !strides.is_empty() {
                attrs["strides"] = json!(strides);
            }
        }
        json!({
            "type": "NestedSDFG",
            "label": label,
            "attributes": {
                "label": label,
                "sdfg": inner,
                "symbol_mapping": mapping,
                "in_connectors": ins,
                "out_connectors": outs,
                "debuginfo": null,
            }
        })
    }

    /// The NestedSDFG node of a block map: its program as an SDFG, one
    /// connector per container it reads or writes (the whole container).
    fn nested_block_json(&self, map: &crate::ir::Map, stmt: &crate::ir::Statement) -> Value {
        let sdfg = self.cx.sdfg;
        let (inner, reads, writes) = block_sdfg(sdfg, map, stmt);
        let label = format!("{}_block", dace_identifier(&map.name.text));
        // The nested SDFG declares every symbol of ours: DaCe wants each
        // declared symbol mapped.
        let mut mapping = JsonMap::new();
        for sym in &sdfg.symbols {
            mapping.insert(sym.name.text.clone(), json!(sym.name.text));
        }
        for p in &map.params {
            mapping.insert(p.name.text.clone(), json!(p.name.text));
        }
        let conns = |names: &[String]| -> JsonMap<String, Value> {
            names.iter().map(|n| (n.clone(), Value::Null)).collect()
        };
        json!({
            "type": "NestedSDFG",
            "label": label,
            "attributes": {
                "label": label,
                "sdfg": super::sdfg_json(&inner, true),
                "symbol_mapping": mapping,
                "in_connectors": conns(&reads),
                "out_connectors": conns(&writes),
                "debuginfo": null,
            }
        })
    }

    /// The memlet of a bound container: the binding's subset.
    fn binding_memlet_json(&self, m: &Memlet) -> Value {
        memlet_json(
            &container_name(self.cx.sdfg, m.container),
            self.cx
                .subset_json(m.container, &m.subset, &BodyNames::none()),
            Value::Null,
            &self.cx.subset_volume(m.container, &m.subset),
            false,
            None,
        )
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

    fn memlet(&self, s: usize, m: usize) -> Option<&'a Memlet> {
        self.state.stmts.get(s).and_then(|st| st.memlets.get(m))
    }

    fn map_inner(&self, s: usize, m: usize) -> (Value, String) {
        let names = match self.state.stmts.get(s).map(|x| &x.kind) {
            Some(StatementKind::Map(map)) => BodyNames::for_map(map),
            _ => BodyNames::none(),
        };
        if let (Some(StatementKind::Map(map)), Some(memlet)) =
            (self.state.stmts.get(s).map(|x| &x.kind), self.memlet(s, m))
        {
            if map.block.is_some() {
                // A nested SDFG takes the whole container, by its name.
                let name = container_name(self.cx.sdfg, memlet.container);
                let json = memlet_json(
                    &name,
                    self.cx.whole_subset(memlet.container),
                    Value::Null,
                    &self.cx.elements(memlet.container),
                    false,
                    None,
                );
                return (json, name);
            }
        }
        match self.memlet(s, m) {
            Some(memlet) => (
                self.inner_memlet_json(memlet, &names),
                memlet.connector.clone(),
            ),
            None => (empty_memlet_json(), String::new()),
        }
    }
}

impl StateBuilder<'_, '_> {
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
            for (s, m) in self.one_per_container(memlets) {
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
            for (s, m) in self.one_per_container(memlets) {
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

    /// The memlets of one container between a map and an access node: all
    /// of them for a tasklet (a connector each), the first for the nested
    /// SDFG of a block map (which takes the whole container once).
    fn one_per_container(&self, mut memlets: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
        let block = memlets.first().is_some_and(|(s, _)| {
            matches!(self.state.stmts.get(*s).map(|x| &x.kind), Some(StatementKind::Map(m)) if m.block.is_some())
        });
        if block {
            memlets.truncate(1);
        }
        memlets
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
            &(0..map.params.len())
                .map(|d| self.cx.param_extent(&map.params, d))
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
