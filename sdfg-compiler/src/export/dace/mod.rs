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
//!   the inner ones (the whole container for dynamic accesses); a block map
//!   is MapEntry (`GPU_Device`) -> NestedSDFG -> MapExit, the nested SDFG
//!   holding its program with `GPU_ThreadBlock` maps (`block.rs`); a GPU
//!   tasklet is a `GPU_Device` map of one iteration;
//! - the map of a library statement (`matmul`, `transpose`, `reduce`) is
//!   DaCe's library node (`library.rs`), with whole-container memlets;
//! - a tasklet body is C++ (`language: CPP`) reading and writing connectors,
//!   see [`super::cpp`];
//! - a copy is one edge between two access nodes, `other_subset` being the
//!   destination's subset;
//! - a `wait` has no DaCe equivalent (DaCe synchronizes by itself) and is left out;
//! - a call of a nested SDFG is a `NestedSDFG` node holding the callee's
//!   own SDFG, with its `symbol_mapping` and one connector per bound
//!   container and direction, named as in the callee; the SDFG written is
//!   the one with the calls (`Sdfg::nested_form`), not the inlined one;
//! - ordering-only edges are empty memlets;
//! - interstate edges are made mutually exclusive (DaCe does not promise to
//!   try them in order as we do): the k-th edge's condition is
//!   `c_k and not (c_1 or ... or c_{k-1})`.
//!
//! The rooms: this file writes the document (the SDFG, its symbols, the
//! interstate edges) and DaCe's names of our types; `data.rs` the data
//! descriptors and memlets, `state.rs` the nodes and edges of one state,
//! `symbolic.rs` the symbolic sizes and the ranges a map's memlets cover.

mod block;
mod data;
mod library;
mod state;
mod symbolic;

use super::print::{expr_to_python_boxed, BodyNames};
use crate::dace_format::ARGUMENTS_MARK;
use crate::ir::{ContainerId, Expr, MapSchedule, ScalarType, Sdfg, StatementKind, Storage};
use serde_json::{json, Map as JsonMap, Value};

/// Why DaCe 1.0.2 cannot represent `sdfg`, naming the container, statement
/// or edge: it has no bfloat16 dtype, so a `bf16` container, local or
/// expression has no export (`f16` exports as `float16`); it refuses an
/// interstate edge whose assignment reads a symbol the edge also assigns.
/// None when the program exports.
pub fn unexportable(sdfg: &Sdfg) -> Option<String> {
    let help = "help: DaCe 1.0.2 has no bfloat16; use `f16` or `f32` in programs exported to DaCe";
    if let Some(c) = sdfg.containers.iter().find(|c| c.elem == ScalarType::BF16) {
        return Some(format!(
            "container `{}` has type `bf16`, which DaCe has no dtype for\n{help}",
            c.name.text
        ));
    }
    if let Some((e, target, read)) = sdfg.edges.iter().find_map(|e| {
        let (target, read) = reads_an_assigned_symbol(e)?;
        Some((e, target, read))
    }) {
        let name =
            |s: crate::ir::SymbolId| sdfg.symbols.get(s).map_or("?", |s| s.name.text.as_str());
        let state = |k: usize| sdfg.states.get(k).map_or("?", |s| s.name.text.as_str());
        return Some(format!(
            "the edge `{}` -> `{}` assigns `{}` from `{}`, which it also assigns: DaCe \
             refuses that as a race (it runs an edge's assignments one after the other)\n\
             help: route the edge through an empty state, the assignment to `{}` on the \
             first part and the others on the second",
            state(e.from),
            state(e.to),
            name(target),
            name(read),
            name(target)
        ));
    }
    for state in &sdfg.states {
        for st in &state.stmts {
            let body = match &st.kind {
                StatementKind::Map(m) => &m.body,
                StatementKind::Tasklet(t) => &t.body,
                _ => continue,
            };
            let mut bf16 = body.locals.iter().any(|l| l.ty == ScalarType::BF16);
            for s in &body.stmts {
                s.walk_exprs(&mut |e| bf16 |= e.ty == ScalarType::BF16);
            }
            if bf16 {
                return Some(format!(
                    "`{}` computes in `bf16`, which DaCe has no dtype for\n{help}",
                    st.label()
                ));
            }
        }
    }
    None
}

/// The first assignment of `edge` that reads a symbol another assignment of
/// it assigns: `(its target, the symbol)`. sdfg-rs computes an edge's
/// assignments at once, from the old values; DaCe validates no such edge.
fn reads_an_assigned_symbol(
    edge: &crate::ir::InterstateEdge,
) -> Option<(crate::ir::SymbolId, crate::ir::SymbolId)> {
    use crate::ir::{ExprKind, VarRef};
    edge.assignments.iter().find_map(|(target, value)| {
        let mut found = None;
        value.walk(&mut |x| {
            if let ExprKind::Var(VarRef::Symbol(s)) = x.kind {
                if s != *target && edge.assignments.iter().any(|(t, _)| *t == s) {
                    found.get_or_insert(s);
                }
            }
        });
        found.map(|s| (*target, s))
    })
}

/// The DaCe `.sdfg` JSON of `sdfg`; an SDFG that calls nested SDFGs is
/// written as it was written (`Sdfg::nested_form`), each call a
/// `NestedSDFG` node. See [`unexportable`] first: a `bf16` type is written
/// as `bfloat16`, which DaCe 1.0.2 does not load.
pub fn to_sdfg_json(sdfg: &Sdfg) -> Value {
    sdfg_json(sdfg.nested_form.as_deref().unwrap_or(sdfg), false)
}

/// The JSON of an SDFG; `thread_blocks`: its `gpu` maps are the thread maps
/// of a block map (the nested SDFG of [`block`]), scheduled
/// `GPU_ThreadBlock`.
fn sdfg_json(sdfg: &Sdfg, thread_blocks: bool) -> Value {
    let mut cx = Cx::new(sdfg);
    cx.thread_blocks = thread_blocks;
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

pub use crate::dace_format::dtype_name;

/// DaCe's storage type of a container.
pub fn storage_name(s: Storage) -> &'static str {
    match s {
        Storage::Host => "CPU_Heap",
        Storage::Pinned => "CPU_Pinned",
        Storage::Gpu => "GPU_Global",
        Storage::Shared => "GPU_Shared",
        Storage::Register => "Register",
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
    /// The `gpu` maps are thread maps (`GPU_ThreadBlock`).
    thread_blocks: bool,
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
            thread_blocks: false,
        }
    }

    /// DaCe's schedule of a map of this SDFG.
    fn map_schedule(&self, map: &crate::ir::Map) -> &'static str {
        if self.thread_blocks && map.schedule == MapSchedule::Gpu {
            "GPU_ThreadBlock"
        } else {
            schedule_name(map.schedule)
        }
    }

    fn py(&self, e: &Expr) -> String {
        expr_to_python_boxed(e, self.sdfg, &BodyNames::none(), &self.boxed_scalars)
    }

    fn py_in(&self, e: &Expr, names: &BodyNames) -> String {
        expr_to_python_boxed(e, self.sdfg, names, &self.boxed_scalars)
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
