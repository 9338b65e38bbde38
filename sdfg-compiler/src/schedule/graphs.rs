//! Graph capture (`#[graph(auto)]`, the default): which states may run
//! inside graph segments of a call, which loops become conditional graph
//! nodes, and why the others run on streams.
//!
//! A segment's stream operations must be a function of what the runtime
//! keys it by: the symbols at its entry, the addresses of the device
//! buffers and the call's context. So a *captured* state holds only `gpu`
//! maps that read no host data and device-to-device copies, and its edges
//! read only symbols (no host data decides where the call goes). A run of
//! captured states is one segment; its loops over symbols (`t < T`) are
//! unrolled into the graph.
//!
//! A *device loop* is a state with an edge back to itself whose condition
//! reads data the state copies from the GPU (`copy RES -> R;` then
//! `step -> step if R > tol`): the state's kernels run in the body of a
//! conditional WHILE node, a generated kernel evaluates the condition (and
//! the loop edge's symbol updates) on the GPU, and the copies to the host
//! run once after the loop, so no host synchronization happens per
//! iteration. The runtime falls back to the host loop where the driver has
//! no conditional nodes.

use crate::ir::{
    ContainerId, EdgeId, Expr, ExprKind, GraphPolicy, MapSchedule, Sdfg, State, StateId, Statement,
    StatementKind, StmtId, Storage, SymbolId,
};
use std::collections::BTreeSet;

/// Fewer GPU statements than this in a captured region without a loop:
/// no segment begins there (the runtime refuses such a segment too:
/// `sdfg_runtime::__glue::MIN_OPERATIONS`, the same number).
pub const MIN_OPERATIONS: usize = 4;

/// What the schedule allows graphs to do, per state.
#[derive(Clone, Debug)]
pub struct GraphPlan {
    pub policy: GraphPolicy,
    /// Indexed by `StateId`.
    pub states: Vec<StatePlan>,
}

/// How one state takes part in graphs.
#[derive(Clone, Debug)]
pub enum StatePlan {
    /// Part of captured segments (kernels and device copies, edges on symbols).
    Captured,
    /// A loop decided on the device: a conditional WHILE node.
    DeviceLoop(DeviceLoop),
    /// `#[persistent]`: the state's loop over itself is one kernel launch
    /// (on streams, outside graph segments; whatever the graph policy).
    Persistent(PersistentLoop),
    /// Runs on streams, operation by operation.
    Streams { reason: String },
}

/// A state whose self edge becomes a conditional WHILE node.
#[derive(Clone, Debug)]
pub struct DeviceLoop {
    /// The edge back to the state.
    pub edge: EdgeId,
    /// The edges tried before it (their conditions are false while it loops).
    pub earlier: Vec<EdgeId>,
    /// The copies that bring the condition's data to the host: (statement,
    /// GPU source, host destination). They run once, after the loop.
    pub copies: Vec<(StmtId, ContainerId, ContainerId)>,
    /// The symbols the loop edge assigns: kept on the GPU while it loops.
    pub symbols: Vec<SymbolId>,
}

/// A `#[persistent]` state (checked by `validate::persistent`): its maps
/// run as the phases of one kernel, in textual order, with a grid-wide
/// barrier after each; the host counts the loop's iterations from the
/// symbols and launches the kernel once (cooperatively, so every block is
/// resident; where the device cannot, the state runs launch by launch).
#[derive(Clone, Debug)]
pub struct PersistentLoop {
    /// The edge back to the state.
    pub edge: EdgeId,
    /// The state's maps (every statement), in order: the kernel's phases.
    pub phases: Vec<StmtId>,
}

/// How the loop of a state over itself runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoopForm {
    /// Inside a captured segment: every iteration is in the graph.
    Unrolled,
    /// A conditional WHILE node, decided on the GPU.
    Conditional,
    /// One persistent kernel: every iteration inside one launch.
    Persistent,
    /// The host runs the loop, state by state.
    Host { reason: String },
}

impl GraphPlan {
    /// Does any state take part in graphs?
    pub fn has_segments(&self) -> bool {
        self.states
            .iter()
            .any(|s| matches!(s, StatePlan::Captured | StatePlan::DeviceLoop(_)))
    }

    /// Is state `s` captured?
    pub fn captured(&self, s: StateId) -> bool {
        matches!(self.states.get(s), Some(StatePlan::Captured))
    }

    /// May a segment begin at state `s`? A device loop, or a captured state
    /// from which the captured states it reaches hold a loop or at least
    /// [`MIN_OPERATIONS`] GPU statements (a smaller segment would not be
    /// worth a graph, and its key would be computed on every call for
    /// nothing).
    pub fn segment_start(&self, sdfg: &Sdfg, s: StateId) -> bool {
        if self.device_loop(s).is_some() {
            return true;
        }
        if !self.captured(s) {
            return false;
        }
        let mut seen = vec![false; sdfg.states.len()];
        let mut stack = vec![s];
        let mut operations = 0;
        let mut looped = false;
        while let Some(t) = stack.pop() {
            if seen[t] {
                continue;
            }
            seen[t] = true;
            operations += sdfg.states[t].stmts.len();
            for (_, e) in sdfg.out_edges(t) {
                if !self.captured(e.to) {
                    continue;
                }
                // An edge back into what was reached may close a loop.
                looped |= seen[e.to] || e.to == t;
                stack.push(e.to);
            }
        }
        looped || operations >= MIN_OPERATIONS
    }

    /// The device loop of state `s`, if it is one.
    pub fn device_loop(&self, s: StateId) -> Option<&DeviceLoop> {
        match self.states.get(s) {
            Some(StatePlan::DeviceLoop(l)) => Some(l),
            _ => None,
        }
    }

    /// Does any state run as a persistent kernel?
    pub fn has_persistent(&self) -> bool {
        self.states
            .iter()
            .any(|s| matches!(s, StatePlan::Persistent(_)))
    }

    /// The persistent loop of state `s`, if it is one.
    pub fn persistent(&self, s: StateId) -> Option<&PersistentLoop> {
        match self.states.get(s) {
            Some(StatePlan::Persistent(p)) => Some(p),
            _ => None,
        }
    }

    /// How the loop of state `s` over itself runs (None: it has no edge to itself).
    pub fn loop_form(&self, sdfg: &Sdfg, s: StateId) -> Option<LoopForm> {
        sdfg.out_edges(s).find(|(_, e)| e.to == s)?;
        Some(match &self.states[s] {
            StatePlan::Captured => LoopForm::Unrolled,
            StatePlan::DeviceLoop(_) => LoopForm::Conditional,
            StatePlan::Persistent(_) => LoopForm::Persistent,
            StatePlan::Streams { reason } => LoopForm::Host {
                reason: reason.clone(),
            },
        })
    }

    /// One line per state: what is captured, which loop form, and why not.
    pub fn describe(&self, sdfg: &Sdfg) -> Vec<String> {
        self.describe_with(sdfg, &[])
    }

    /// [`GraphPlan::describe`], where the persistent kernels of the states
    /// `neighbours` can let each block wait for its neighbours alone (the
    /// code generator's choice: `codegen::ptx::PtxModule::neighbour_sync`).
    pub fn describe_with(&self, sdfg: &Sdfg, neighbours: &[StateId]) -> Vec<String> {
        let mut out = Vec::new();
        for (s, plan) in self.states.iter().enumerate() {
            let name = &sdfg.states[s].name.text;
            let looped = sdfg.out_edges(s).any(|(_, e)| e.to == s);
            out.push(match plan {
                StatePlan::Captured if looped => {
                    format!("state `{name}`: captured; its loop is unrolled into the graph")
                }
                StatePlan::Captured => format!("state `{name}`: captured"),
                StatePlan::DeviceLoop(l) => {
                    let data: Vec<String> = l
                        .copies
                        .iter()
                        .map(|&(_, _, h)| format!("`{}`", sdfg.containers[h].name.text))
                        .collect();
                    format!(
                        "state `{name}`: a conditional node (while loop decided on the gpu from {}; copied to the host once after it)",
                        data.join(", ")
                    )
                }
                StatePlan::Persistent(p) => format!(
                    "state `{name}`: a persistent kernel (one cooperative launch runs every iteration of its loop: {} phase(s), {}; launch by launch where the device has no cooperative launch)",
                    p.phases.len(),
                    if neighbours.contains(&s) {
                        "before each, each block waits for the blocks of its adjacent tiles where the phases' grid is resident at once, else a grid-wide barrier after each"
                    } else {
                        "a grid-wide barrier after each"
                    }
                ),
                StatePlan::Streams { reason } if looped => {
                    format!("state `{name}`: runs on streams; its loop runs on the host: {reason}")
                }
                StatePlan::Streams { reason } => {
                    format!("state `{name}`: runs on streams: {reason}")
                }
            });
        }
        out
    }
}

/// The graph plan of an SDFG.
pub fn plan(sdfg: &Sdfg) -> GraphPlan {
    let states = (0..sdfg.states.len())
        .map(|s| match sdfg.graph {
            _ if sdfg.states[s].persistent.is_some() => persistent_plan(sdfg, s),
            GraphPolicy::Off => StatePlan::Streams {
                reason: "`#[graph(off)]`".into(),
            },
            GraphPolicy::Auto => state_plan(sdfg, s),
        })
        .collect();
    GraphPlan {
        policy: sdfg.graph,
        states,
    }
}

/// A `#[persistent]` state (valid: `validate::persistent` checked it).
fn persistent_plan(sdfg: &Sdfg, s: StateId) -> StatePlan {
    match sdfg.out_edges(s).find(|(_, e)| e.to == s) {
        Some((edge, _)) => StatePlan::Persistent(PersistentLoop {
            edge,
            phases: (0..sdfg.states[s].stmts.len()).collect(),
        }),
        None => StatePlan::Streams {
            reason: "`#[persistent]` on a state without a loop".into(),
        },
    }
}

fn state_plan(sdfg: &Sdfg, s: StateId) -> StatePlan {
    let refusal = match captured_refusal(sdfg, s) {
        None => return StatePlan::Captured,
        Some(why) => why,
    };
    match device_loop(sdfg, s) {
        Ok(l) => StatePlan::DeviceLoop(l),
        // A state with a self edge explains why its loop is not on the GPU.
        Err(Some(why)) => StatePlan::Streams { reason: why },
        Err(None) => StatePlan::Streams { reason: refusal },
    }
}

fn is_gpu(sdfg: &Sdfg, c: ContainerId) -> bool {
    sdfg.containers[c].storage == Storage::Gpu
}

/// Why a statement cannot be inside a captured segment (None: it can).
fn statement_refusal(sdfg: &Sdfg, st: &Statement) -> Option<String> {
    match &st.kind {
        StatementKind::Map(m) if m.schedule == MapSchedule::Gpu => st
            .memlets
            .iter()
            .find(|mm| sdfg.containers[mm.container].storage.is_host())
            .map(|mm| {
                format!(
                    "{} `{}` reads the host scalar `{}` by value (host data is not part of a graph)",
                    m.keyword(),
                    m.name.text,
                    sdfg.containers[mm.container].name.text
                )
            }),
        StatementKind::Map(m) => Some(format!(
            "map `{}` runs on the host ({})",
            m.name.text,
            m.schedule.keyword()
        )),
        StatementKind::Tasklet(t) => Some(format!("tasklet `{}` runs on the host", t.name.text)),
        StatementKind::Copy(c) if is_gpu(sdfg, c.src) && is_gpu(sdfg, c.dst) => None,
        StatementKind::Copy(c) => Some(format!(
            "copy `{} -> {}` has a host end",
            sdfg.containers[c.src].name.text, sdfg.containers[c.dst].name.text
        )),
        StatementKind::Wait(w) => Some(format!(
            "`wait {};` waits on the host",
            sdfg.containers[w.container].name.text
        )),
        // Calls are inlined before the schedule; one left is not captured.
        StatementKind::Nested(n) => Some(format!(
            "the call of `{}` is not inlined",
            n.callee.name.text
        )),
    }
}

/// The containers an expression loads.
fn loads(e: &Expr, out: &mut BTreeSet<ContainerId>) {
    e.walk(&mut |x| {
        if let ExprKind::Load { container, .. } = x.kind {
            out.insert(container);
        }
    });
}

/// Why state `s` cannot be captured (None: it can).
fn captured_refusal(sdfg: &Sdfg, s: StateId) -> Option<String> {
    let state = &sdfg.states[s];
    if let Some(why) = state
        .stmts
        .iter()
        .find_map(|st| statement_refusal(sdfg, st))
    {
        return Some(why);
    }
    for (_, e) in sdfg.out_edges(s) {
        let mut read = BTreeSet::new();
        e.condition.iter().for_each(|c| loads(c, &mut read));
        e.assignments.iter().for_each(|(_, v)| loads(v, &mut read));
        if let Some(&c) = read.iter().next() {
            return Some(format!(
                "edge `{} -> {}` reads the host data `{}`",
                state.name.text, sdfg.states[e.to].name.text, sdfg.containers[c].name.text
            ));
        }
    }
    None
}

/// Every symbol a state's statements mention (ranges, bodies, subsets).
fn symbols_used(state: &State) -> BTreeSet<SymbolId> {
    state
        .stmts
        .iter()
        .flat_map(|st| st.symbols_used())
        .collect()
}

/// State `s` as a device loop; `Err(Some(why))` when it has a self edge
/// that cannot be one, `Err(None)` when it has no self edge.
fn device_loop(sdfg: &Sdfg, s: StateId) -> Result<DeviceLoop, Option<String>> {
    let state = &sdfg.states[s];
    let edges: Vec<EdgeId> = sdfg.out_edges(s).map(|(id, _)| id).collect();
    let Some(at) = edges.iter().position(|&e| sdfg.edges[e].to == s) else {
        return Err(None);
    };
    let edge = edges[at];
    let earlier = edges[..at].to_vec();
    let name = &state.name.text;
    // Statements: captured ones, and copies of GPU scalars to host scalars
    // whose source the state does not write again after the copy.
    let mut copies = Vec::new();
    for (k, st) in state.stmts.iter().enumerate() {
        let Some(why) = statement_refusal(sdfg, st) else {
            continue;
        };
        let StatementKind::Copy(c) = &st.kind else {
            return Err(Some(why));
        };
        let (src, dst) = (&sdfg.containers[c.src], &sdfg.containers[c.dst]);
        if !(is_gpu(sdfg, c.src) && dst.storage.is_host()) {
            return Err(Some(why));
        }
        if !(src.is_scalar() && dst.is_scalar()) {
            return Err(Some(format!(
                "copy `{} -> {}` is not of a scalar (a loop decided on the gpu reads scalars)",
                src.name.text, dst.name.text
            )));
        }
        let written_later = state.stmts[k + 1..].iter().any(|later| {
            later
                .memlets
                .iter()
                .any(|m| m.container == c.src && m.access.is_write())
        });
        if written_later {
            return Err(Some(format!(
                "`{}` is written after its copy to `{}` in state `{name}`",
                src.name.text, dst.name.text
            )));
        }
        copies.push((k, c.src, c.dst));
    }
    if copies.is_empty() {
        // Only captured statements: the edges read host data the state
        // does not produce (the captured refusal says which).
        return Err(captured_refusal(sdfg, s));
    }
    let hosts: BTreeSet<ContainerId> = copies.iter().map(|c| c.2).collect();
    for &e in earlier.iter().chain(std::iter::once(&edge)) {
        let edge_ir = &sdfg.edges[e];
        if e != edge && edge_ir.condition.is_none() {
            return Err(Some(format!(
                "the edge `{name} -> {}` before the loop edge has no condition",
                sdfg.states[edge_ir.to].name.text
            )));
        }
        let mut read = BTreeSet::new();
        edge_ir.condition.iter().for_each(|c| loads(c, &mut read));
        if e == edge {
            edge_ir
                .assignments
                .iter()
                .for_each(|(_, v)| loads(v, &mut read));
        }
        if let Some(&c) = read.iter().find(|c| !hosts.contains(c)) {
            return Err(Some(format!(
                "the loop's condition reads `{}`, which the state does not copy from the gpu",
                sdfg.containers[c].name.text
            )));
        }
    }
    let symbols: Vec<SymbolId> = {
        let mut v: Vec<SymbolId> = sdfg.edges[edge].assignments.iter().map(|a| a.0).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let used = symbols_used(state);
    if let Some(&sym) = symbols.iter().find(|sym| used.contains(sym)) {
        return Err(Some(format!(
            "the symbol `{}` changes every iteration and the state's statements use it",
            sdfg.symbols[sym].name.text
        )));
    }
    Ok(DeviceLoop {
        edge,
        earlier,
        copies,
        symbols,
    })
}
