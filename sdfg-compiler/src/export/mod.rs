//! Export of an SDFG for people and for DaCe.
//!
//! - [`dot`]: a Graphviz drawing (states as clusters, maps, tasklets,
//!   copies, memlets, interstate edges; with a schedule, streams, events and
//!   sync points).
//! - [`dace`]: the DaCe 1.x `.sdfg` JSON, loadable by `dace.SDFG.from_file`.
//! - [`print`](mod@print): tasklet-language expressions in Rust and Python syntax;
//!   [`cpp`]: tasklet bodies in C++ (DaCe's tasklet language here).
//!
//! Every function here accepts any IR the front end can produce and never
//! panics; dangling ids print as `?name` placeholders.

pub mod cpp;
pub mod dace;
pub mod dot;
pub mod print;

use crate::ir::{DataEdge, DataNode, Dataflow, State, StatementKind};

/// The dataflow graph of a state; when the front end left statements out of
/// it (it should not), a simple one is made so that nothing is lost: reads
/// from fresh access nodes, writes to fresh access nodes, textual order kept
/// by ordering edges.
pub(crate) fn dataflow_of(state: &State) -> std::borrow::Cow<'_, Dataflow> {
    let complete = state.stmts.iter().enumerate().all(|(s, stmt)| {
        matches!(stmt.kind, StatementKind::Wait(_))
            || state.graph.nodes.contains(&DataNode::Stmt(s))
    });
    if complete {
        return std::borrow::Cow::Borrowed(&state.graph);
    }
    let mut g = Dataflow::default();
    let mut previous: Option<usize> = None;
    for (s, stmt) in state.stmts.iter().enumerate() {
        if matches!(stmt.kind, StatementKind::Wait(_)) {
            continue;
        }
        let me = g.nodes.len();
        g.nodes.push(DataNode::Stmt(s));
        if let Some(p) = previous {
            g.edges.push(DataEdge {
                src: p,
                dst: me,
                memlet: None,
            });
        }
        for (m, memlet) in stmt.memlets.iter().enumerate() {
            let a = g.nodes.len();
            g.nodes.push(DataNode::Access(memlet.container));
            let (src, dst) = if memlet.access.is_write() {
                (me, a)
            } else {
                (a, me)
            };
            g.edges.push(DataEdge {
                src,
                dst,
                memlet: Some((s, m)),
            });
        }
        previous = Some(me);
    }
    std::borrow::Cow::Owned(g)
}
