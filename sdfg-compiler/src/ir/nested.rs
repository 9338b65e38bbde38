//! A call of a nested SDFG as the IR keeps it for the DaCe export (DaCe's
//! `NestedSDFG` node): the callee, the values of its symbols and the data
//! its argument containers are bound to. Everything else reads the inlined
//! SDFG (`crate::lower` inlines every call).

use super::{Access, ContainerId, Expr, ExprKind, Sdfg, Stmt, SymbolId};
use super::{Subset, SubsetDim};
use proc_macro2::Span;

#[derive(Clone, Debug)]
pub struct NestedSdfg {
    /// The called SDFG, lowered on its own (its own calls inlined, its
    /// `nested_form` kept).
    pub callee: Box<Sdfg>,
    /// Per declared symbol of the callee: its value, an expression over the
    /// caller's symbols (written in the call, or taken from the extent of a
    /// bound container).
    pub symbols: Vec<(SymbolId, Expr)>,
    /// Per argument container of the callee: the caller's data it stands for.
    pub bindings: Vec<Binding>,
    /// The binding extents that equal the callee's dimensions only if no
    /// integer cast or narrow arithmetic wraps (checked when the call runs).
    pub extent_checks: Vec<ExtentCheck>,
    /// The callee's name in the call.
    pub span: Span,
}

/// A dimension of a call's binding that the compiler took as equal to the
/// callee's declared dimension by comparing the two as sums of symbols
/// times constants, through integer casts (`M = N as i32` is `N`) and
/// narrow arithmetic: exact unless some value wraps around its type (a
/// symbol `M: i32` left out of the call takes the extent `N` of its
/// binding cast to `i32`). The state that makes the call evaluates both
/// before any of its work and returns an `Err` naming the binding when
/// they differ (`codegen::glue::prechecks`), so a callee never runs over
/// another extent than its data has.
#[derive(Clone, Debug)]
pub struct ExtentCheck {
    /// The callee's container, as the callee names it.
    pub inner: String,
    /// The callee's name.
    pub callee: String,
    /// The caller's container it is bound to.
    pub outer: String,
    /// The dimension of `inner`.
    pub dim: usize,
    /// The callee's dimension as declared (`M`), for the message.
    pub declared_text: String,
    /// The callee's dimension with its symbols replaced by their values in
    /// the call: an expression over the caller's symbols.
    pub declared: Expr,
    /// The binding's extent in that dimension (`end - start`), over the
    /// caller's symbols.
    pub bound: Expr,
    /// The caller's state that makes the call (set when it is inlined).
    pub state: String,
}

/// `A = X[0..M, 2]`: the callee's container `inner` is the subset of the
/// caller's container `outer` (one `Range` dimension per dimension of
/// `inner`, in order; `Index` dimensions are fixed).
#[derive(Clone, Debug)]
pub struct Binding {
    pub inner: ContainerId,
    pub outer: ContainerId,
    pub subset: Subset,
    pub reads: bool,
    pub writes: bool,
    pub span: Span,
}

impl Binding {
    /// The subset dimensions that are ranges (one per dimension of `inner`).
    pub fn ranges(&self) -> impl Iterator<Item = (&Expr, &Expr)> {
        self.subset.iter().filter_map(|d| match d {
            SubsetDim::Range { start, end } => Some((start, end)),
            SubsetDim::Index(_) => None,
        })
    }
}

/// Whether `sdfg` reads and whether it writes its container `id`, through
/// any statement or interstate edge.
pub fn container_use(sdfg: &Sdfg, id: ContainerId) -> (bool, bool) {
    let (mut reads, mut writes) = (false, false);
    for m in sdfg
        .states
        .iter()
        .flat_map(|s| &s.stmts)
        .flat_map(|s| &s.memlets)
        .filter(|m| m.container == id)
    {
        match m.access {
            Access::Read => reads = true,
            Access::Write | Access::Reduce(_) => writes = true,
        }
    }
    let mut on_edges = |e: &Expr| {
        e.walk(&mut |x| {
            if matches!(&x.kind, ExprKind::Load { container, .. } if *container == id) {
                reads = true;
            }
        })
    };
    for e in &sdfg.edges {
        if let Some(c) = &e.condition {
            on_edges(c);
        }
        for (_, v) in &e.assignments {
            on_edges(v);
        }
    }
    (reads, writes)
}

/// Every statement of every body of `sdfg` (maps and tasklets), for
/// walks over the tasklet code.
pub fn bodies(sdfg: &Sdfg) -> impl Iterator<Item = (&super::Statement, &[Stmt])> {
    sdfg.states
        .iter()
        .flat_map(|s| &s.stmts)
        .filter_map(|st| match &st.kind {
            super::StatementKind::Map(m) => Some((st, m.body.stmts.as_slice())),
            super::StatementKind::Tasklet(t) => Some((st, t.body.stmts.as_slice())),
            _ => None,
        })
}
