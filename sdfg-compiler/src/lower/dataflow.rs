//! The dataflow graph of a state, built from its statements' memlets in
//! textual order, as documented on `ir::Dataflow`:
//! - a read is an edge from the container's latest access node (created on
//!   first use) to the statement;
//! - a write is an edge from the statement to a new access node of the
//!   container, which becomes the latest;
//! - write after read: an ordering edge (no memlet) from each statement that
//!   read the previous version to the writer;
//! - write after write with no reader in between: an ordering edge from the
//!   previous writer to the new writer (so `Dataflow::predecessors` gives
//!   every conflict predecessor).

use crate::ir::*;
use std::collections::HashMap;

pub(crate) fn build(stmts: &[Statement]) -> Dataflow {
    let mut g = Dataflow::default();
    // Per container: the latest access node, the statements that read that
    // version, and the statement that wrote it.
    let mut latest: HashMap<ContainerId, NodeId> = HashMap::new();
    let mut readers: HashMap<ContainerId, Vec<StmtId>> = HashMap::new();
    let mut writer: HashMap<ContainerId, StmtId> = HashMap::new();
    let mut stmt_nodes: Vec<NodeId> = Vec::new();
    for (sid, stmt) in stmts.iter().enumerate() {
        let node = push_node(&mut g, DataNode::Stmt(sid));
        stmt_nodes.push(node);
        for (mid, m) in stmt.memlets.iter().enumerate() {
            if m.access.is_write() {
                continue;
            }
            let src = *latest
                .entry(m.container)
                .or_insert_with(|| push_node(&mut g, DataNode::Access(m.container)));
            g.edges.push(DataEdge {
                src,
                dst: node,
                memlet: Some((sid, mid)),
            });
            let r = readers.entry(m.container).or_default();
            if !r.contains(&sid) {
                r.push(sid);
            }
        }
        // One new access node per container this statement writes.
        let mut written: HashMap<ContainerId, NodeId> = HashMap::new();
        for (mid, m) in stmt.memlets.iter().enumerate() {
            if !m.access.is_write() {
                continue;
            }
            let access_node = match written.get(&m.container) {
                Some(&n) => n,
                None => {
                    let earlier: Vec<StmtId> = readers
                        .remove(&m.container)
                        .unwrap_or_default()
                        .into_iter()
                        .filter(|&r| r != sid)
                        .collect();
                    let read_by_me = stmt
                        .memlets
                        .iter()
                        .any(|o| o.container == m.container && !o.access.is_write());
                    if earlier.is_empty() && !read_by_me {
                        if let Some(&w) = writer.get(&m.container) {
                            ordering_edge(&mut g, stmt_nodes[w], node);
                        }
                    }
                    for r in earlier {
                        ordering_edge(&mut g, stmt_nodes[r], node);
                    }
                    let n = push_node(&mut g, DataNode::Access(m.container));
                    written.insert(m.container, n);
                    latest.insert(m.container, n);
                    writer.insert(m.container, sid);
                    n
                }
            };
            g.edges.push(DataEdge {
                src: node,
                dst: access_node,
                memlet: Some((sid, mid)),
            });
        }
    }
    g
}

fn push_node(g: &mut Dataflow, n: DataNode) -> NodeId {
    g.nodes.push(n);
    g.nodes.len() - 1
}

fn ordering_edge(g: &mut Dataflow, src: NodeId, dst: NodeId) {
    if src != dst
        && !g
            .edges
            .iter()
            .any(|e| e.src == src && e.dst == dst && e.memlet.is_none())
    {
        g.edges.push(DataEdge {
            src,
            dst,
            memlet: None,
        });
    }
}
