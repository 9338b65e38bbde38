//! The kernel ABI: for every `gpu` map, the kernel's entry name and its
//! parameter list. [`kernel_abis`] builds it once, before the generators;
//! the PTX kernel, its Rust twin (the CPU device) and the glue that
//! launches either all read this one list, so they agree by construction.
//!
//! Each parameter says what its value is ([`ParamValue`]: the glue obtains
//! it from there) and how it crosses ([`Passing`]: an address, the fault
//! slot's address, or a scalar of a type; the PTX `.param` type, the
//! twin's binding and the glue's `KernelArg` follow from it).
//!
//! A kernel's number is its position in [`kernel_abis`] (its launch index
//! in the module). The fault slot is the call's (the glue passes its
//! context's slot), 24 bytes: a guarded access that is out of bounds is
//! skipped, and the kernel writes [`fault_site`] of (kernel, access) at
//! [`FAULT_SITE_OFFSET`] with `atom.cas` from 0 (the first fault of the
//! call wins) and, when its CAS won, the row-major index at
//! [`FAULT_INDEX_OFFSET`]. Accesses are numbered from 1 in the order of
//! `ir::bounds::for_each_access`, by every backend alike. Offset 0 is the
//! `u32` code that raw kernels write; generated kernels leave it alone.
//! The runtime's `order/fault.rs` reads the same layout.
//!
//! Order: every parameter below, in this order, each group sorted by id:
//! 1. `Buffer` for each GPU container the body touches;
//! 2. `Extent` for each dimension of each such container (u64);
//! 3. `Symbol` for each symbol the body reads (its own type);
//! 4. `HostScalar` for each host scalar container the body reads (by value);
//! 5. per map dimension d (outermost first): `RangeStart(d)` (i64),
//!    `RangeCount(d)` (u64, iterations), `RangeStep(d)` (i64);
//! 6. `Fault` (u64 address of the call's fault slot, written on an
//!    out-of-bounds access).

use super::names;
use crate::ir::{
    Access, ContainerId, Expr, ExprKind, Map, MapSchedule, Memlet, ScalarType, Sdfg, StateId,
    StatementKind, StmtId, Storage, SymbolId, VarRef,
};
use std::collections::BTreeSet;

/// The kernel of one `gpu` map.
#[derive(Clone, Debug)]
pub struct KernelAbi {
    pub state: StateId,
    pub stmt: StmtId,
    /// The PTX entry name (`k_<state>_<map>`, see [`names::kernel_entries`]).
    pub name: String,
    pub params: Vec<KernelParam>,
}

/// One kernel parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelParam {
    /// What the value is.
    pub value: ParamValue,
    /// How it is passed.
    pub passing: Passing,
}

/// What a kernel parameter's value is: where the glue obtains it, and what
/// the kernel uses it for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamValue {
    /// The device address of a GPU container.
    Buffer {
        container: ContainerId,
        access: BufferAccess,
    },
    /// The length of dimension `dim` of `container`.
    Extent {
        container: ContainerId,
        dim: usize,
    },
    Symbol(SymbolId),
    /// The value of a host scalar container (synchronized before the launch).
    HostScalar(ContainerId),
    /// The first value of map dimension d.
    RangeStart(usize),
    /// The iteration count of map dimension d.
    RangeCount(usize),
    /// The step of map dimension d.
    RangeStep(usize),
    /// The address of the call's fault slot.
    Fault,
}

/// How the kernel uses a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferAccess {
    Read,
    /// Stores (plain or a reduction), no loads.
    Write,
    ReadWrite,
}

impl BufferAccess {
    pub fn writes(self) -> bool {
        self != BufferAccess::Read
    }
}

/// How a parameter's value crosses into the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Passing {
    /// A device address (u64) of elements of type `elem`; a twin sees them
    /// as atomic cells.
    Buffer {
        elem: ScalarType,
        access: BufferAccess,
    },
    /// The address (u64) of the call's fault slot; a twin reports through
    /// its arguments instead.
    FaultWord,
    /// A value of this type.
    Scalar(ScalarType),
}

impl Passing {
    /// The type of the parameter as the kernel declares it.
    pub fn param_type(self) -> ScalarType {
        match self {
            Passing::Buffer { .. } | Passing::FaultWord => ScalarType::U64,
            Passing::Scalar(t) => t,
        }
    }
}

impl KernelParam {
    fn new(sdfg: &Sdfg, value: ParamValue) -> KernelParam {
        let passing = match &value {
            ParamValue::Buffer { container, access } => Passing::Buffer {
                elem: sdfg.containers[*container].elem,
                access: *access,
            },
            ParamValue::Fault => Passing::FaultWord,
            ParamValue::Extent { .. } | ParamValue::RangeCount(_) => {
                Passing::Scalar(ScalarType::U64)
            }
            ParamValue::RangeStart(_) | ParamValue::RangeStep(_) => {
                Passing::Scalar(ScalarType::I64)
            }
            ParamValue::Symbol(s) => Passing::Scalar(sdfg.symbols[*s].ty),
            ParamValue::HostScalar(c) => Passing::Scalar(sdfg.containers[*c].elem),
        };
        KernelParam { value, passing }
    }

    /// The type of the parameter as the kernel declares it.
    pub fn param_type(&self) -> ScalarType {
        self.passing.param_type()
    }
}

/// Byte offset of the site word (`u64`) in a fault slot.
pub const FAULT_SITE_OFFSET: u64 = 8;
/// Byte offset of the index word (`u64`) in a fault slot.
pub const FAULT_INDEX_OFFSET: u64 = 16;

/// The site word of access `access` (from 1) of kernel number `kernel`
/// (its launch index): `(kernel + 1) << 32 | access`, never 0.
pub fn fault_site(kernel: usize, access: u32) -> u64 {
    let kernel_no = u32::try_from(kernel + 1).unwrap_or(u32::MAX);
    (u64::from(kernel_no) << 32) | u64::from(access.max(1))
}

/// Every `gpu` map of the SDFG, in state and statement order.
pub fn gpu_maps(sdfg: &Sdfg) -> Vec<(StateId, StmtId)> {
    let mut out = Vec::new();
    for (si, state) in sdfg.states.iter().enumerate() {
        for (ti, stmt) in state.stmts.iter().enumerate() {
            if let StatementKind::Map(m) = &stmt.kind {
                if m.schedule == MapSchedule::Gpu {
                    out.push((si, ti));
                }
            }
        }
    }
    out
}

/// The ABI of every `gpu` map, in [`gpu_maps`] order.
pub fn kernel_abis(sdfg: &Sdfg) -> Vec<KernelAbi> {
    let maps = gpu_maps(sdfg);
    let names = names::kernel_entries(sdfg, &maps);
    maps.into_iter()
        .zip(names)
        .filter_map(|((state, stmt), name)| {
            let statement = &sdfg.states[state].stmts[stmt];
            let StatementKind::Map(map) = &statement.kind else {
                return None;
            };
            Some(KernelAbi {
                state,
                stmt,
                name,
                params: params(sdfg, &statement.memlets, map),
            })
        })
        .collect()
}

fn params(sdfg: &Sdfg, memlets: &[Memlet], map: &Map) -> Vec<KernelParam> {
    let mut reads = BTreeSet::new();
    let mut writes = BTreeSet::new();
    for m in memlets {
        if sdfg.containers[m.container].storage == Storage::Gpu {
            match m.access {
                Access::Read => reads.insert(m.container),
                Access::Write | Access::Reduce(_) => writes.insert(m.container),
            };
        }
    }
    let mut values = Vec::new();
    let buffers: BTreeSet<ContainerId> = reads.union(&writes).copied().collect();
    for &c in &buffers {
        let access = match (reads.contains(&c), writes.contains(&c)) {
            (true, true) => BufferAccess::ReadWrite,
            (false, true) => BufferAccess::Write,
            _ => BufferAccess::Read,
        };
        values.push(ParamValue::Buffer {
            container: c,
            access,
        });
    }
    for &c in &buffers {
        for dim in 0..sdfg.containers[c].shape.len() {
            values.push(ParamValue::Extent { container: c, dim });
        }
    }
    let (symbols, host_scalars) = free_values(sdfg, map);
    values.extend(symbols.into_iter().map(ParamValue::Symbol));
    values.extend(host_scalars.into_iter().map(ParamValue::HostScalar));
    for d in 0..map.params.len() {
        values.push(ParamValue::RangeStart(d));
        values.push(ParamValue::RangeCount(d));
        values.push(ParamValue::RangeStep(d));
    }
    values.push(ParamValue::Fault);
    values
        .into_iter()
        .map(|v| KernelParam::new(sdfg, v))
        .collect()
}

/// Symbols read by the map's body or by a dependent range (other ranges
/// are passed as RangeStart/Count/Step, so symbols used only in them are not
/// needed) or by a block map's block size and shared shapes, and host
/// scalar containers read by the body.
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
    // A dependent range (`ir::ranges`) is computed per iteration.
    for p in map.params.iter().filter(|p| p.is_dependent()) {
        p.start.walk(&mut visit);
        p.end.walk(&mut visit);
    }
    // A block map computes its block size and the shapes of its shared
    // data from symbols.
    if let Some(block) = &map.block {
        if let crate::ir::BlockSize::Given(dims) = &block.size {
            dims.iter().for_each(|d| d.walk(&mut visit));
        }
        for &c in &block.data {
            sdfg.containers[c]
                .shape
                .iter()
                .for_each(|d| d.walk(&mut visit));
        }
    }
    // Store targets are never host containers in a gpu map (validation); their
    // index expressions were walked above.
    (symbols, host_scalars)
}
