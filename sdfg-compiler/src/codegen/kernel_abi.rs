//! The parameter list of the kernel generated for one `gpu` map.
//!
//! Order: every parameter below, in this order, each group sorted by id:
//! 1. `Buffer` for each GPU container the body touches;
//! 2. `Extent` for each dimension of each such container (u64);
//! 3. `Symbol` for each symbol the body or the ranges read (its own type);
//! 4. `HostScalar` for each host scalar container the body reads (by value);
//! 5. per map dimension d (outermost first): `RangeStart(d)` (i64),
//!    `RangeCount(d)` (u64, iterations), `RangeStep(d)` (i64);
//! 6. `Fault` (u64 address of the fault word, written on an out-of-bounds access).

use crate::ir::{
    Access, ContainerId, Expr, ExprKind, Map, ScalarType, Sdfg, Statement, StatementKind, Storage,
    SymbolId, VarRef,
};
use std::collections::BTreeSet;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelParam {
    /// Device pointer (u64) to a GPU container. `writes`: the kernel stores to
    /// it (plain or WCR); otherwise it is read-only in this kernel.
    Buffer {
        container: ContainerId,
        writes: bool,
        reads: bool,
    },
    /// Length of dimension `dim` of `container` (u64).
    Extent {
        container: ContainerId,
        dim: usize,
    },
    Symbol(SymbolId),
    HostScalar(ContainerId),
    RangeStart(usize),
    RangeCount(usize),
    RangeStep(usize),
    Fault,
}

impl KernelParam {
    /// The type of the parameter's value as passed to the kernel.
    pub fn value_type(&self, sdfg: &Sdfg) -> ScalarType {
        match self {
            KernelParam::Buffer { .. } | KernelParam::Extent { .. } => ScalarType::U64,
            KernelParam::Symbol(s) => sdfg.symbols[*s].ty,
            KernelParam::HostScalar(c) => sdfg.containers[*c].elem,
            KernelParam::RangeStart(_) | KernelParam::RangeStep(_) => ScalarType::I64,
            KernelParam::RangeCount(_) | KernelParam::Fault => ScalarType::U64,
        }
    }
}

#[derive(Clone, Debug)]
pub struct KernelAbi {
    /// The PTX entry name: `k_<state>_<map>`.
    pub name: String,
    pub params: Vec<KernelParam>,
}

/// The ABI of the `gpu` map `stmt` of `state`. Panics if it is not a `gpu` map
/// (callers iterate over gpu maps only).
pub fn kernel_abi(sdfg: &Sdfg, state: usize, stmt: usize) -> KernelAbi {
    let statement: &Statement = &sdfg.states[state].stmts[stmt];
    let StatementKind::Map(map) = &statement.kind else {
        panic!("kernel_abi: statement {stmt} of state {state} is not a map")
    };
    let mut reads = BTreeSet::new();
    let mut writes = BTreeSet::new();
    for m in &statement.memlets {
        if sdfg.containers[m.container].storage == Storage::Gpu {
            match m.access {
                Access::Read => reads.insert(m.container),
                Access::Write | Access::Reduce(_) => writes.insert(m.container),
            };
        }
    }
    let mut params = Vec::new();
    let buffers: BTreeSet<ContainerId> = reads.union(&writes).copied().collect();
    for &c in &buffers {
        params.push(KernelParam::Buffer {
            container: c,
            writes: writes.contains(&c),
            reads: reads.contains(&c),
        });
    }
    for &c in &buffers {
        for dim in 0..sdfg.containers[c].shape.len() {
            params.push(KernelParam::Extent { container: c, dim });
        }
    }
    let (symbols, host_scalars) = free_values(sdfg, map);
    params.extend(symbols.into_iter().map(KernelParam::Symbol));
    params.extend(host_scalars.into_iter().map(KernelParam::HostScalar));
    for d in 0..map.params.len() {
        params.push(KernelParam::RangeStart(d));
        params.push(KernelParam::RangeCount(d));
        params.push(KernelParam::RangeStep(d));
    }
    params.push(KernelParam::Fault);
    KernelAbi {
        name: format!("k_{}_{}", sdfg.states[state].name.text, map.name.text),
        params,
    }
}

/// Symbols read by the map's body (ranges are passed as RangeStart/Count/Step,
/// so symbols used only in ranges are not needed) or by a block map's block
/// size and shared shapes, and host scalar containers read by the body.
fn free_values(sdfg: &Sdfg, map: &Map) -> (BTreeSet<SymbolId>, BTreeSet<ContainerId>) {
    let mut symbols = BTreeSet::new();
    let mut host_scalars = BTreeSet::new();
    let mut visit = |e: &Expr| match &e.kind {
        ExprKind::Var(VarRef::Symbol(s)) => {
            symbols.insert(*s);
        }
        ExprKind::Load { container, .. } if sdfg.containers[*container].storage.is_host() => {
            host_scalars.insert(*container);
        }
        _ => {}
    };
    for s in &map.body.stmts {
        s.walk_exprs(&mut visit);
    }
    // A block map computes its block size and the shapes of its shared
    // data from symbols.
    if let Some(block) = &map.block {
        if let crate::ir::BlockSize::Given(dims) = &block.size {
            dims.iter().for_each(|d| d.walk(&mut visit));
        }
        for &c in &block.data {
            sdfg.containers[c].shape.iter().for_each(|d| d.walk(&mut visit));
        }
    }
    // Store targets are never host containers in a gpu map (validation); their
    // index expressions were walked above.
    (symbols, host_scalars)
}
