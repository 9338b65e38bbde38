//! A Graphviz drawing of an SDFG (render with `dot -Tsvg`).
//!
//! - each state is a cluster; interstate edges run between clusters, labeled
//!   with their condition and assignments, numbered in the order they are tried;
//! - access nodes are ellipses filled by storage (host blue, pinned yellow,
//!   gpu green; transients dashed);
//! - a map is one box (`map b[i in 1..N - 1, ...] on gpu` and its body),
//!   a host tasklet a rounded box, a copy an arrow-shaped node, a `wait` an
//!   octagon;
//! - memlets are edge labels (`A[i, j - 1]`; `+= (wcr)`; `dynamic` when the
//!   subset is only known at run time); ordering-only edges are dashed gray;
//! - with a schedule: each GPU operation's border and a `stream k` line in
//!   its stream's color, cross-stream events as bold purple edges, and every
//!   host sync point as a red `sync T` node before the statement that needs
//!   it (or at the end of the state).
//!
//! Expressions are printed in Rust syntax ([`super::print`]).

use super::print::{container_name, expr_to_rust, map_param_to_rust, stmts_to_rust, BodyNames};
use crate::ir::{
    Access, DataNode, Memlet, Sdfg, State, StatementKind, Storage, Subset, SubsetDim, WcrOp,
};
use crate::schedule::{Schedule, Streams, SyncReason, SyncSite};
use std::fmt::Write;

/// Body lines shown in a map or tasklet box before `...`.
const MAX_BODY_LINES: usize = 8;
/// The color of the barriers in a block map's body.
const BARRIER_COLOR: &str = "#c0392b";
/// A block map shows more of its body: its thread maps and barriers.
const MAX_BLOCK_BODY_LINES: usize = 40;
/// Memlets listed on one edge before `... (n memlets)`.
const MAX_EDGE_LABEL_LINES: usize = 6;

/// Stream colors (Tableau 10 without red, which marks sync points).
const STREAM_COLORS: [&str; 8] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f",
];
const SYNC_COLOR: &str = "#d62728";
const EVENT_COLOR: &str = "#9467bd";
const INTERSTATE_COLOR: &str = "#1a4f8a";

/// The Graphviz (DOT) text of `sdfg`; with `schedule`, also streams, events
/// and sync points.
pub fn to_dot(sdfg: &Sdfg, schedule: Option<&Schedule>) -> String {
    let mut out = String::new();
    // Streams matter only when something runs on the GPU.
    let schedule_for_title = schedule.filter(|s| {
        s.states
            .iter()
            .any(|st| st.stream_of.iter().any(Option::is_some))
    });
    let title = match schedule_for_title.map(|s| s.streams) {
        Some(Streams::Default) => format!("{} (legacy default stream)", sdfg.name.text),
        Some(Streams::Created(n)) => format!(
            "{} ({} stream{})",
            sdfg.name.text,
            n,
            if n == 1 { "" } else { "s" }
        ),
        None => sdfg.name.text.clone(),
    };
    let _ = writeln!(out, "digraph {} {{", quote(&sdfg.name.text));
    let _ = writeln!(
        out,
        "  graph [compound=true, fontname=\"Helvetica\", fontsize=14, labelloc=t, label={}, \
         newrank=true, nodesep=0.35, ranksep=0.45];",
        quote(&title)
    );
    out.push_str("  node [fontname=\"Helvetica\", fontsize=11];\n");
    out.push_str("  edge [fontname=\"Helvetica\", fontsize=10];\n");
    for (id, state) in sdfg.states.iter().enumerate() {
        let state_schedule = schedule.and_then(|s| s.states.get(id));
        StateDrawing {
            sdfg,
            state,
            graph: super::dataflow_of(state),
            id,
            schedule: state_schedule,
            default_stream: schedule.is_some_and(|s| s.streams == Streams::Default),
        }
        .draw(&mut out, id == sdfg.start);
    }
    interstate_edges(sdfg, &mut out);
    out.push_str("}\n");
    out
}

/// A DOT string literal.
fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for ch in s.chars() {
        match ch {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            _ => q.push(ch),
        }
    }
    q.push('"');
    q
}

/// An HTML-like label: the first line (what the node is) bold, then the
/// code lines, then the stream line in the stream's color.
fn html_label(lines: &[String], stream: Option<(&str, &str)>, align: &str) -> String {
    let mut label = String::from("<");
    for (i, line) in lines.iter().enumerate() {
        let text = html_text(line);
        let trimmed = line.trim_start();
        if i == 0 {
            let _ = write!(label, "<B>{text}</B>");
        } else if trimmed.starts_with("// barrier") || trimmed.starts_with("// block reduction") {
            // The barriers the compiler placed, in the barrier color.
            let _ = write!(
                label,
                "<FONT COLOR=\"{BARRIER_COLOR}\"><B>{text}</B></FONT>"
            );
        } else {
            label.push_str(&text);
        }
        let _ = write!(label, "<BR ALIGN=\"{align}\"/>");
    }
    if let Some((text, color)) = stream {
        let _ = write!(
            label,
            "<FONT COLOR=\"{color}\"><B>{}</B></FONT><BR ALIGN=\"{align}\"/>",
            html_text(text)
        );
    }
    label.push('>');
    label
}

/// Escaped for an HTML-like label; leading spaces (indentation) kept.
fn html_text(s: &str) -> String {
    let body = s.trim_start_matches(' ');
    let indent = s.len() - body.len();
    let mut out = "&#160;".repeat(indent);
    for ch in body.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

fn state_in(id: usize) -> String {
    format!("s{id}_in")
}
fn state_out(id: usize) -> String {
    format!("s{id}_out")
}

fn interstate_edges(sdfg: &Sdfg, out: &mut String) {
    for e in sdfg.edges.iter() {
        if e.from >= sdfg.states.len() || e.to >= sdfg.states.len() {
            continue;
        }
        // The position among the source's out-edges: the order they are tried.
        let order = sdfg
            .out_edges(e.from)
            .position(|(_, o)| std::ptr::eq(o, e))
            .unwrap_or(0)
            + 1;
        let several = sdfg.out_edges(e.from).count() > 1;
        let mut lines = Vec::new();
        let prefix = if several {
            format!("{order}. ")
        } else {
            String::new()
        };
        match &e.condition {
            Some(c) => lines.push(format!(
                "{prefix}if {}",
                expr_to_rust(c, sdfg, &BodyNames::none())
            )),
            None if several => lines.push(format!("{prefix}always")),
            None => {}
        }
        for (sym, value) in &e.assignments {
            let name = sdfg
                .symbols
                .get(*sym)
                .map(|s| s.name.text.as_str())
                .unwrap_or("?");
            lines.push(format!(
                "{name} = {}",
                expr_to_rust(value, sdfg, &BodyNames::none())
            ));
        }
        let label = lines.join("\n");
        if e.from == e.to {
            // A loop back into the same cluster: from its bottom to its top.
            let _ = writeln!(
                out,
                "  {} -> {} [label={}, color=\"{INTERSTATE_COLOR}\", fontcolor=\"{INTERSTATE_COLOR}\", \
                 penwidth=2, constraint=false, headport=e, tailport=e];",
                state_out(e.from),
                state_in(e.to),
                quote(&label)
            );
        } else {
            // `xlabel`: the edge is clipped at the clusters, and a plain
            // label ends up under the clipped line.
            let _ = writeln!(
                out,
                "  {} -> {} [ltail=cluster_s{}, lhead=cluster_s{}, xlabel={}, color=\"{INTERSTATE_COLOR}\", \
                 fontcolor=\"{INTERSTATE_COLOR}\", penwidth=2, minlen=2];",
                state_out(e.from),
                state_in(e.to),
                e.from,
                e.to,
                quote(&label)
            );
        }
    }
}

struct StateDrawing<'a> {
    sdfg: &'a Sdfg,
    state: &'a State,
    graph: std::borrow::Cow<'a, crate::ir::Dataflow>,
    id: usize,
    schedule: Option<&'a crate::schedule::StateSchedule>,
    default_stream: bool,
}

impl StateDrawing<'_> {
    fn node(&self, n: usize) -> String {
        format!("s{}_n{n}", self.id)
    }
    fn stmt_node(&self, s: usize) -> Option<String> {
        self.graph
            .nodes
            .iter()
            .position(|x| *x == DataNode::Stmt(s))
            .map(|n| self.node(n))
    }

    fn draw(&self, out: &mut String, is_start: bool) {
        let sdfg = self.sdfg;
        let id = self.id;
        let _ = writeln!(out, "  subgraph cluster_s{id} {{");
        let label = if is_start {
            format!("state {} (start)", self.state.name.text)
        } else {
            format!("state {}", self.state.name.text)
        };
        let _ = writeln!(
            out,
            "    label={}; style=\"rounded\"; color=\"#888888\"; fontsize=12;",
            quote(&label)
        );
        // Invisible anchors at the top and bottom for interstate edges.
        let _ = writeln!(
            out,
            "    {} [shape=point, width=0.01, style=invis];\n    {} [shape=point, width=0.01, style=invis];",
            state_in(id),
            state_out(id)
        );
        let graph = &self.graph;
        if graph.nodes.is_empty() && self.state.stmts.is_empty() {
            let _ = writeln!(
                out,
                "    s{id}_empty [label=\"(empty)\", shape=plaintext, fontcolor=\"#888888\"];\n    \
                 {{ rank=same; {}; s{id}_empty; {}; }}",
                state_in(id),
                state_out(id)
            );
        }
        for (n, node) in graph.nodes.iter().enumerate() {
            match node {
                DataNode::Access(c) => self.access_node(out, n, *c),
                DataNode::Stmt(s) => self.statement_node(out, n, *s),
            }
        }
        // Keep the anchors above and below everything.
        for n in 0..graph.nodes.len() {
            let has_in = graph.edges.iter().any(|e| e.dst == n);
            let has_out = graph.edges.iter().any(|e| e.src == n);
            if !has_in {
                let _ = writeln!(
                    out,
                    "    {} -> {} [style=invis];",
                    state_in(id),
                    self.node(n)
                );
            }
            if !has_out {
                let _ = writeln!(
                    out,
                    "    {} -> {} [style=invis];",
                    self.node(n),
                    state_out(id)
                );
            }
        }
        // Memlets between the same two nodes share one edge (one label line
        // each): a stencil's five reads of `A` stay one readable arrow.
        let mut bundles: Vec<Bundle> = Vec::new();
        for e in &graph.edges {
            if e.src >= graph.nodes.len() || e.dst >= graph.nodes.len() {
                continue;
            }
            let Some((s, m)) = e.memlet else {
                let (a, b) = (self.node(e.src), self.node(e.dst));
                let _ = writeln!(
                    out,
                    "    {a} -> {b} [style=dashed, color=\"#999999\", arrowhead=empty, tooltip=\"ordering\"];"
                );
                continue;
            };
            let Some(stmt) = self.state.stmts.get(s) else {
                continue;
            };
            let Some(memlet) = stmt.memlets.get(m) else {
                continue;
            };
            let map = match &stmt.kind {
                StatementKind::Map(map) => Some(map),
                _ => None,
            };
            match bundles.iter_mut().find(|(k, _, _)| *k == (e.src, e.dst)) {
                Some((_, list, _)) => list.push(memlet),
                None => bundles.push(((e.src, e.dst), vec![memlet], map)),
            }
        }
        for ((src, dst), memlets, map) in bundles {
            let names = match map {
                Some(map) => BodyNames::for_map(map),
                None => BodyNames::none(),
            };
            let mut lines: Vec<String> = memlets
                .iter()
                .take(MAX_EDGE_LABEL_LINES)
                .map(|m| memlet_label(m, sdfg, &names))
                .collect();
            if memlets.len() > MAX_EDGE_LABEL_LINES {
                lines.push(format!("... ({} memlets in all)", memlets.len()));
            }
            let style = if memlets.iter().any(|m| m.dynamic) {
                ", style=\"bold,dotted\""
            } else {
                ""
            };
            let color = if memlets
                .iter()
                .any(|m| matches!(m.access, Access::Reduce(_)))
            {
                ", color=\"#c05000\", fontcolor=\"#c05000\""
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "    {} -> {} [label={}{style}{color}];",
                self.node(src),
                self.node(dst),
                quote(&lines.join("\n"))
            );
        }
        self.schedule_marks(out);
        out.push_str("  }\n");
    }

    fn access_node(&self, out: &mut String, n: usize, c: usize) {
        let (fill, kind, dashed, ty) = match self.sdfg.containers.get(c) {
            Some(cont) => {
                let fill = match cont.storage {
                    Storage::Host => "#dbe9f6",
                    Storage::Pinned => "#fff2cc",
                    Storage::Gpu => "#d9f2d9",
                    Storage::Shared => "#e8dcf4",
                    Storage::Register => "#f4e8dc",
                };
                let shape: Vec<String> = cont
                    .shape
                    .iter()
                    .map(|e| expr_to_rust(e, self.sdfg, &BodyNames::none()))
                    .collect();
                let ty = if shape.is_empty() {
                    cont.elem.to_string()
                } else {
                    format!("{}[{}]", cont.elem, shape.join(", "))
                };
                (fill, cont.storage.keyword(), cont.transient, ty)
            }
            None => ("#ffffff", "?", false, String::new()),
        };
        let label = format!(
            "{}\n{}{kind} {ty}",
            container_name(self.sdfg, c),
            if dashed { "transient " } else { "" }
        );
        let style = if dashed { "filled,dashed" } else { "filled" };
        let _ = writeln!(
            out,
            "    {} [label={}, shape=ellipse, style=\"{style}\", fillcolor=\"{fill}\"];",
            self.node(n),
            quote(&label)
        );
    }

    /// The stream line and border color of a GPU operation.
    fn stream_of(&self, s: usize) -> Option<(String, &'static str)> {
        let k = self.schedule?.stream_of.get(s).copied().flatten()?;
        let text = if self.default_stream {
            "default stream".to_string()
        } else {
            format!("stream {k}")
        };
        Some((text, STREAM_COLORS[k % STREAM_COLORS.len()]))
    }

    fn statement_node(&self, out: &mut String, n: usize, s: usize) {
        let sdfg = self.sdfg;
        let Some(stmt) = self.state.stmts.get(s) else {
            let _ = writeln!(out, "    {} [label=\"?\"];", self.node(n));
            return;
        };
        let stream = self.stream_of(s);
        let (lines, shape, style, fill) = match &stmt.kind {
            StatementKind::Map(map) => {
                let names = BodyNames::for_map(map);
                let ranges: Vec<String> = map
                    .params
                    .iter()
                    .map(|p| map_param_to_rust(p, sdfg, &names))
                    .collect();
                let header = if map.gpu_tasklet {
                    format!("tasklet {} on gpu", map.name.text)
                } else {
                    let block = match &map.block {
                        None => String::new(),
                        Some(b) => match &b.size {
                            crate::ir::BlockSize::Auto => " block".to_string(),
                            crate::ir::BlockSize::Given(dims) => {
                                let dims: Vec<String> = dims
                                    .iter()
                                    .map(|d| expr_to_rust(d, sdfg, &BodyNames::none()))
                                    .collect();
                                format!(" block({})", dims.join(", "))
                            }
                        },
                    };
                    format!(
                        "map {}[{}] on {}{block}",
                        map.name.text,
                        ranges.join(", "),
                        map.schedule.keyword()
                    )
                };
                let mut lines = vec![header];
                let max = if map.block.is_some() {
                    MAX_BLOCK_BODY_LINES
                } else {
                    MAX_BODY_LINES
                };
                lines.extend(body_lines(
                    &stmts_to_rust(&map.body.stmts, sdfg, &names, 2),
                    max,
                ));
                let fill = match map.schedule {
                    crate::ir::MapSchedule::Gpu => "#eef8ee",
                    _ => "#eef4fb",
                };
                (lines, "box", "filled", fill)
            }
            StatementKind::Tasklet(t) => {
                let names = BodyNames::for_tasklet(t);
                let mut lines = vec![format!("tasklet {}", t.name.text)];
                lines.extend(body_lines(
                    &stmts_to_rust(&t.body.stmts, sdfg, &names, 2),
                    MAX_BODY_LINES,
                ));
                (lines, "box", "rounded,filled", "#fdf6e3")
            }
            StatementKind::Copy(c) => {
                let side = |m: Option<&Memlet>, id: usize| match m {
                    Some(m) => subset_text(&container_name(sdfg, m.container), &m.subset, sdfg),
                    None => container_name(sdfg, id),
                };
                let text = format!(
                    "copy {} -> {}",
                    side(stmt.memlets.first(), c.src),
                    side(stmt.memlets.get(1), c.dst)
                );
                (vec![text], "cds", "filled", "#f2f2f2")
            }
            StatementKind::Wait(w) => (
                vec![format!("wait {}", container_name(sdfg, w.container))],
                "octagon",
                "filled",
                "#fde0e0",
            ),
            // Drawn when a caller draws its `nested_form`.
            StatementKind::Nested(call) => {
                let args: Vec<String> = stmt
                    .memlets
                    .iter()
                    .map(|m| {
                        let bound =
                            subset_text(&container_name(sdfg, m.container), &m.subset, sdfg);
                        format!("{} = {bound}", m.connector)
                    })
                    .collect();
                let mut lines = vec![format!("call {}", call.callee.name.text)];
                lines.extend(args);
                (lines, "box3d", "filled", "#f3eefb")
            }
        };
        let mut attrs = String::new();
        if matches!(stmt.kind, StatementKind::Copy(_)) {
            // Room for the arrow tip of the `cds` shape.
            attrs.push_str(", margin=\"0.3,0.06\"");
        }
        if let Some((_, color)) = &stream {
            let _ = write!(attrs, ", color=\"{color}\", penwidth=2.5");
        }
        let align = if matches!(stmt.kind, StatementKind::Copy(_) | StatementKind::Wait(_)) {
            "CENTER"
        } else {
            "LEFT"
        };
        let stream = stream.as_ref().map(|(t, c)| (t.as_str(), *c));
        let label = html_label(&lines, stream, align);
        let _ = writeln!(
            out,
            "    {} [label={label}, shape={shape}, style=\"{style}\", fillcolor=\"{fill}\"{attrs}];",
            self.node(n)
        );
    }

    /// Events between streams and host sync points.
    fn schedule_marks(&self, out: &mut String) {
        let Some(sched) = self.schedule else {
            return;
        };
        for ev in &sched.events {
            let (Some(a), Some(b)) = (self.stmt_node(ev.producer), self.stmt_node(ev.consumer))
            else {
                continue;
            };
            let _ =
                writeln!(
                out,
                "    {a} -> {b} [label={}, color=\"{EVENT_COLOR}\", fontcolor=\"{EVENT_COLOR}\", \
                 style=\"bold,dashed\", constraint=false];",
                quote(&format!("event ({})", container_name(self.sdfg, ev.container)))
            );
        }
        for (k, sync) in sched.syncs.iter().enumerate() {
            let name = format!("s{}_sync{k}", self.id);
            let what = container_name(self.sdfg, sync.container);
            let why = match sync.reason {
                SyncReason::HostTasklet => "read by a host tasklet",
                SyncReason::HostMap => "read by a host map",
                SyncReason::KernelArgument => "kernel argument",
                SyncReason::CopySource => "copied from",
                SyncReason::CopyTarget => "copied to again",
                SyncReason::StateEnd => "state end",
                SyncReason::Manual => "wait (manual)",
            };
            let _ = writeln!(
                out,
                "    {name} [label={}, shape=octagon, style=filled, fillcolor=\"#fde0e0\", \
                 color=\"{SYNC_COLOR}\", fontcolor=\"{SYNC_COLOR}\", penwidth=2];",
                quote(&format!("sync {what}\n{why}"))
            );
            match sync.site {
                SyncSite::Before(s) => {
                    if let Some(target) = self.stmt_node(s) {
                        let _ = writeln!(
                            out,
                            "    {name} -> {target} [color=\"{SYNC_COLOR}\", style=bold];"
                        );
                    }
                    // Draw it after the statement that produced the data.
                    for n in self.producers_of(sync.container) {
                        let _ = writeln!(out, "    {} -> {name} [style=invis];", self.node(n));
                    }
                }
                SyncSite::StateEnd => {
                    for n in self.producers_of(sync.container) {
                        let _ = writeln!(
                            out,
                            "    {} -> {name} [color=\"{SYNC_COLOR}\", style=dashed];",
                            self.node(n)
                        );
                    }
                    let _ = writeln!(out, "    {name} -> {} [style=invis];", state_out(self.id));
                }
            }
        }
    }

    /// Access nodes of `container` that a statement writes.
    fn producers_of(&self, container: usize) -> Vec<usize> {
        let g = &self.graph;
        g.nodes
            .iter()
            .enumerate()
            .filter(|(n, node)| {
                **node == DataNode::Access(container)
                    && g.edges.iter().any(|e| e.dst == *n && e.memlet.is_some())
            })
            .map(|(n, _)| n)
            .collect()
    }
}

fn body_lines(body: &str, max: usize) -> Vec<String> {
    let mut lines: Vec<String> = body.lines().map(str::to_string).collect();
    if lines.len() > max {
        lines.truncate(max - 1);
        lines.push("  ...".to_string());
    }
    lines
}

/// `A[i, j - 1]`, `A[2..12]`, `T` (scalar or whole container).
fn subset_text(name: &str, subset: &Subset, sdfg: &Sdfg) -> String {
    subset_text_in(name, subset, sdfg, &BodyNames::none())
}

fn subset_text_in(name: &str, subset: &Subset, sdfg: &Sdfg, names: &BodyNames) -> String {
    if subset.is_empty() {
        return name.to_string();
    }
    let dims: Vec<String> = subset
        .iter()
        .map(|d| match d {
            SubsetDim::Index(e) => expr_to_rust(e, sdfg, names),
            SubsetDim::Range { start, end } => format!(
                "{}..{}",
                expr_to_rust(start, sdfg, names),
                expr_to_rust(end, sdfg, names)
            ),
        })
        .collect();
    format!("{name}[{}]", dims.join(", "))
}

/// The memlets from one node to another, and the map whose parameters
/// their subsets name.
type Bundle<'a> = ((usize, usize), Vec<&'a Memlet>, Option<&'a crate::ir::Map>);

/// A memlet as an edge label.
fn memlet_label(m: &Memlet, sdfg: &Sdfg, names: &BodyNames) -> String {
    let name = container_name(sdfg, m.container);
    let mut text = if m.dynamic {
        format!("{name}[..] dynamic")
    } else {
        subset_text_in(&name, &m.subset, sdfg, names)
    };
    if let Access::Reduce(op) = m.access {
        let wcr = match op {
            WcrOp::Sum => "+=",
            WcrOp::Product => "*=",
            WcrOp::Min => "min=",
            WcrOp::Max => "max=",
        };
        let _ = write!(text, " ({wcr} wcr)");
    }
    text
}
