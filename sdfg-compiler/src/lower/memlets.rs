//! The memlets of a statement: one per distinct (container, access kind,
//! index expressions) access of its body, in order of first appearance.
//!
//! A memlet is *dynamic* when its indices depend on values known only while
//! the body runs (a local, a loop variable, a loaded value) or when the
//! access is conditional (under an `if`, in a `for` body, which may run zero
//! times, on the right of `&&`/`||`, in a branch of a value `if`). A dynamic
//! memlet's subset is the whole container. The `shared` and `register`
//! data of a block map have no memlets: they exist only inside the map.

use crate::ir::*;
use std::collections::HashMap;

/// The whole container: `0..dim` per dimension (empty for a scalar).
pub(crate) fn whole(c: &Container) -> Subset {
    c.shape
        .iter()
        .map(|dim| SubsetDim::Range {
            start: Expr::lit(Value::from_bits(dim.ty, 0), dim.span),
            end: dim.clone(),
        })
        .collect()
}

pub(crate) fn body_memlets(containers: &[Container], body: &TaskletBody) -> Vec<Memlet> {
    memlets_of(containers, body, false)
}

/// [`body_memlets`] including the accesses of `shared` and `register` data
/// (the DaCe export's nested SDFG of a block map has memlets for them).
pub(crate) fn body_memlets_with_block_data(
    containers: &[Container],
    body: &TaskletBody,
) -> Vec<Memlet> {
    memlets_of(containers, body, true)
}

fn memlets_of(containers: &[Container], body: &TaskletBody, block_data: bool) -> Vec<Memlet> {
    let mut collector = Collector {
        containers,
        found: Vec::new(),
        connectors: HashMap::new(),
        block_data,
    };
    for s in &body.stmts {
        collector.stmt(s, false);
    }
    collector
        .found
        .into_iter()
        .map(|f| Memlet {
            container: f.container,
            subset: if f.dynamic {
                whole(&containers[f.container])
            } else {
                f.index.into_iter().map(SubsetDim::Index).collect()
            },
            access: f.access,
            dynamic: f.dynamic,
            connector: f.connector,
            span: f.span,
        })
        .collect()
}

struct Found {
    container: ContainerId,
    access: Access,
    index: Vec<Expr>,
    key: String,
    dynamic: bool,
    connector: String,
    span: proc_macro2::Span,
}

struct Collector<'c> {
    containers: &'c [Container],
    /// Whether block data gets memlets.
    block_data: bool,
    found: Vec<Found>,
    /// Next connector number per (container, is_write).
    connectors: HashMap<(ContainerId, bool), usize>,
}

impl Collector<'_> {
    fn stmt(&mut self, s: &Stmt, conditional: bool) {
        match s {
            Stmt::Let { init, .. } => self.expr(init, conditional),
            Stmt::AssignLocal { value, .. } => self.expr(value, conditional),
            Stmt::Store {
                container,
                index,
                value,
                wcr,
                span,
            } => {
                index.iter().for_each(|e| self.expr(e, conditional));
                self.expr(value, conditional);
                let access = wcr.map_or(Access::Write, Access::Reduce);
                self.add(*container, access, index, conditional, *span);
            }
            Stmt::If {
                cond, then, else_, ..
            } => {
                self.expr(cond, conditional);
                then.iter().chain(else_).for_each(|s| self.stmt(s, true));
            }
            Stmt::For {
                start,
                end,
                step,
                body,
                ..
            } => {
                self.expr(start, conditional);
                self.expr(end, conditional);
                if let Some(step) = step {
                    self.expr(step, conditional);
                }
                body.iter().for_each(|s| self.stmt(s, true));
            }
            Stmt::While { cond, body, .. } => {
                self.expr(cond, conditional);
                body.iter().for_each(|s| self.stmt(s, true));
            }
            Stmt::Break { .. } | Stmt::Continue { .. } => {}
            Stmt::ThreadMap(t) => {
                for p in &t.params {
                    self.expr(&p.start, conditional);
                    self.expr(&p.end, conditional);
                    if let Some(step) = &p.step {
                        self.expr(step, conditional);
                    }
                }
                // A thread map may run no iteration.
                t.body.iter().for_each(|s| self.stmt(s, true));
            }
            Stmt::Barrier(_) => {}
        }
    }

    fn expr(&mut self, e: &Expr, conditional: bool) {
        match &e.kind {
            ExprKind::Lit(_) | ExprKind::Var(_) => {}
            ExprKind::Load { container, index } => {
                index.iter().for_each(|i| self.expr(i, conditional));
                self.add(*container, Access::Read, index, conditional, e.span);
            }
            ExprKind::Unary { arg, .. } | ExprKind::Cast { arg } => self.expr(arg, conditional),
            ExprKind::Binary { op, lhs, rhs } => {
                self.expr(lhs, conditional);
                let lazy = matches!(op, BinOp::And | BinOp::Or);
                self.expr(rhs, conditional || lazy);
            }
            ExprKind::Select { cond, then, else_ } => {
                self.expr(cond, conditional);
                self.expr(then, true);
                self.expr(else_, true);
            }
            ExprKind::Call { args, .. } => args.iter().for_each(|a| self.expr(a, conditional)),
        }
    }

    fn add(
        &mut self,
        container: ContainerId,
        access: Access,
        index: &[Expr],
        conditional: bool,
        span: proc_macro2::Span,
    ) {
        // Block data lives inside its block map: no memlet of the state.
        if !self.block_data && self.containers[container].storage.is_block_local() {
            return;
        }
        let dynamic = conditional || index.iter().any(depends_on_runtime_values);
        let key = index.iter().map(expr_key).collect::<Vec<_>>().join(",");
        if let Some(f) = self
            .found
            .iter_mut()
            .find(|f| f.container == container && f.access == access && f.key == key)
        {
            f.dynamic |= dynamic;
            return;
        }
        let write = access.is_write();
        let n = self.connectors.entry((container, write)).or_insert(0);
        let connector = format!(
            "__{}_{}_{}",
            if write { "out" } else { "in" },
            self.containers[container].name.text,
            n
        );
        *n += 1;
        self.found.push(Found {
            container,
            access,
            index: index.to_vec(),
            key,
            dynamic,
            connector,
            span,
        });
    }
}

/// Whether `e` reads a local, a loop variable or container data.
fn depends_on_runtime_values(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |e| {
        if matches!(
            e.kind,
            ExprKind::Var(VarRef::Local(_)) | ExprKind::Load { .. }
        ) {
            found = true;
        }
    });
    found
}

/// A canonical text of an expression without spans ([`Expr::key`]).
pub(crate) fn expr_key(e: &Expr) -> String {
    e.key()
}
