//! One `gpu` map -> one `.visible .entry`.
//!
//! The emitter is a straightforward tree walk: one method per construct,
//! virtual registers per class (ptxas allocates the real ones), a label
//! counter. Every value of the tasklet language lives in one register of the
//! class of its type: `i32`/`u32` in `%r` (.b32, also `i8 u8 i16 u16`,
//! extended from their width), `i64`/`u64` in `%rd`
//! (.b64), `f32` in `%f`, `f64` in `%fd`, `bool` in a predicate `%p`
//! (`%rs` (.b16) only carries bytes of `bool` memory and parameters).
//!
//! [`KernelEmitter`] holds the state of one kernel; its methods live beside
//! the construct they emit:
//! - [`regs`]: register classes, virtual registers, PTX type suffixes and
//!   immediates;
//! - [`launch`]: the parameters, the launch shape and the grid-stride loops
//!   (tiles of items in x, runs of rows in y);
//! - [`vector`]: the vector path of 1-D maps;
//! - [`hoist`]: which loads run ahead of a tile's items, and which of them
//!   neighbouring rows share;
//! - [`control`]: statements, locals, `if` and `for`;
//! - [`memory`]: addresses, bounds checks, loads and stores;
//! - [`row_run`]: addresses along a full tile's run of rows, one row
//!   stride apart;
//! - [`fault`]: the record of a skipped access in the call's fault slot;
//! - [`reductions`]: WCR updates (atomics, CAS loops) and per-thread
//!   partials of scalar reductions;
//! - [`expr`]: operators, comparisons, selects and conversions;
//! - [`calls`]: calls of the module's math subroutines;
//! - [`narrow`]: the 32-bit registers of `i8 u8 i16 u16` values and
//!   updates of 1- and 2-byte elements;
//! - [`half`]: `f16`/`bf16` values in f32 registers, rounded after each
//!   operation, 16 bits in memory;
//! - [`complex`]: `c32`/`c64` values as register pairs: arithmetic,
//!   functions, memory, reductions.
//! - [`persistent`]: a map as one phase of a persistent kernel, and the
//!   entry that loops over the phases with grid-wide barriers, or
//!   [`neighbours`] where each block waits for the adjacent tiles alone;
//! - [`block`]: the kernel of a block map (block iterations, block-level
//!   code, thread maps, barriers), [`block_data`] its shared and register
//!   data and block reductions.

mod block;
pub(crate) mod block_data;
mod block_reductions;
mod block_unroll;
mod calls;
mod complex;
mod control;
mod expr;
pub(crate) mod fault;
mod half;
mod hoist;
mod launch;
mod memory;
mod narrow;
mod neighbours;
pub(super) mod persistent;
mod reductions;
mod regs;
mod row_run;
mod vector;
mod walk;

use super::{MathFunc, PtxKernel, Tuning};
use crate::codegen::abi::{KernelAbi, KernelParam};
use crate::ir::bounds::LoopScope;
use crate::ir::{
    ContainerId, Expr, Map, ScalarType, Sdfg, StateId, StmtId, SymbolId, Value, WcrOp,
};
use launch::geometry;
use regs::{immediate, mem_type, Class, Reg, CLASSES};
use std::collections::{BTreeSet, HashMap};
use std::fmt::Write;

/// The registers of one buffer parameter.
struct BufferRegs {
    base: Reg,
    /// `ld.global.nc` allowed: read-only in this kernel and never aliased.
    read_only: bool,
    extents: Vec<Reg>,
}

/// The registers holding the addresses of the fault slot's site and index
/// words (see [`fault`]).
#[derive(Clone, Copy)]
struct FaultSlot {
    site_word: Reg,
    index_word: Reg,
}

/// Per-kernel emission state.
pub(super) struct KernelEmitter<'a> {
    sdfg: &'a Sdfg,
    map: &'a Map,
    abi: &'a KernelAbi,
    /// The kernel's number in the module (its launch index).
    kernel_index: usize,
    funcs: &'a mut BTreeSet<MathFunc>,
    code: String,
    reg_counts: [u32; CLASSES.len()],
    labels: u32,
    buffers: HashMap<ContainerId, BufferRegs>,
    symbols: HashMap<SymbolId, Reg>,
    host_scalars: HashMap<ContainerId, Reg>,
    fault: Option<FaultSlot>,
    /// Values of the map parameters for the iteration being emitted.
    params: Vec<Reg>,
    /// Per dependent dimension (`ir::ranges`): its value for this
    /// iteration as a 64-bit integer, tested against its end before the body.
    dependent_values: Vec<Option<Reg>>,
    locals: Vec<Option<Reg>>,
    /// Loads already issued for the current iteration (see `hoist::hoistable_loads`).
    hoisted: HashMap<*const Expr, Reg>,
    /// Access code (1 + index in program order) of each indexed access,
    /// keyed by the address of its index slice.
    site_codes: HashMap<(usize, bool), u32>,
    conditional: bool,
    loops: LoopScope,
    /// The labels `continue` and `break` branch to, innermost loop last.
    loop_labels: Vec<(String, String)>,
    /// Vector path: per deferred store (address of its index slice), the
    /// values of the lanes emitted so far.
    deferred: HashMap<usize, Vec<Reg>>,
    /// Cache hints of global loads (`.L2::128B`) and plain stores (`.cs`).
    load_hint: String,
    store_hint: &'static str,
    /// Per-thread partial results of WCR updates of scalar containers:
    /// container -> (operator, partial, "updated at least once").
    partials: HashMap<ContainerId, (WcrOp, Reg, Reg)>,
    /// The state of a block map's kernel (None for a flat map).
    block: Option<block::BlockCx>,
    /// Between `$L` and a label's number: empty for a kernel, `p<k>` for
    /// phase `k` of a persistent kernel (its labels share one entry).
    label_prefix: String,
    /// Containers some phase of a persistent kernel writes: never loaded
    /// with `ld.global.nc` (that cache is not coherent with the writes of
    /// earlier phases of the same launch).
    coherent: BTreeSet<ContainerId>,
    /// A 3-D map's rows run along z (dimension 0) instead of y.
    rows_in_z: bool,
    /// A thread's run of rows is a walk (`walk`), not a tile: the
    /// registers the kernel is capped at (`walk::walk_register_cap`).
    walk: Option<u32>,
    /// Inside a walk whose buffers are small enough: host-checked
    /// accesses compute element offsets in 32 bits (`walk`).
    narrow_offsets: bool,
    /// A full tile's run of rows: addresses one row stride apart.
    row_run: Option<row_run::RowRun>,
    /// Inside a pipelined walk (`walk`): the current row's unguarded plain
    /// stores, held back to follow the next row's loads.
    held_stores: Option<String>,
    /// A flat map's kernel runs its blocks in reverse order
    /// (`ptx::reversed_kernels`).
    reversed_blocks: bool,
}

impl<'a> KernelEmitter<'a> {
    pub(super) fn new(
        sdfg: &'a Sdfg,
        map: &'a Map,
        abi: &'a KernelAbi,
        kernel_index: usize,
        funcs: &'a mut BTreeSet<MathFunc>,
    ) -> Self {
        let mut site_codes = HashMap::new();
        let mut n = 0u32;
        crate::ir::bounds::for_each_access(&map.body.stmts, &mut |site| {
            n += 1;
            if !site.index.is_empty() {
                site_codes.insert((site.index.as_ptr() as usize, site.is_store), n);
            }
        });
        KernelEmitter {
            sdfg,
            map,
            abi,
            kernel_index,
            funcs,
            code: String::new(),
            reg_counts: [0; CLASSES.len()],
            labels: 0,
            buffers: HashMap::new(),
            symbols: HashMap::new(),
            host_scalars: HashMap::new(),
            fault: None,
            params: Vec::new(),
            dependent_values: Vec::new(),
            locals: Vec::new(),
            hoisted: HashMap::new(),
            site_codes,
            conditional: false,
            loops: LoopScope::default(),
            loop_labels: Vec::new(),
            deferred: HashMap::new(),
            load_hint: String::new(),
            store_hint: "",
            partials: HashMap::new(),
            block: None,
            label_prefix: String::new(),
            coherent: BTreeSet::new(),
            rows_in_z: false,
            walk: None,
            narrow_offsets: false,
            row_run: None,
            held_stores: None,
            reversed_blocks: false,
        }
    }

    /// Runs a flat map's blocks in reverse order (`ptx::reversed_kernels`).
    pub(super) fn with_reversed_blocks(mut self, reversed: bool) -> Self {
        self.reversed_blocks = reversed;
        self
    }

    fn reg(&mut self, class: Class) -> Reg {
        let i = class.index();
        self.reg_counts[i] += 1;
        Reg {
            class,
            n: self.reg_counts[i] - 1,
        }
    }

    fn reg_of(&mut self, ty: ScalarType) -> Reg {
        self.reg(Class::of(ty))
    }

    fn label(&mut self) -> String {
        self.labels += 1;
        format!("$L{}_{}", self.label_prefix, self.labels)
    }

    fn ins(&mut self, s: impl AsRef<str>) {
        self.code.push('\t');
        self.code.push_str(s.as_ref());
        self.code.push_str(";\n");
    }

    fn place(&mut self, label: &str) {
        self.code.push_str(label);
        self.code.push_str(":\n");
    }

    fn comment(&mut self, s: &str) {
        let _ = writeln!(self.code, "\t// {s}");
    }

    fn mov(&mut self, dst: Reg, src: Reg) {
        if dst.class.is_pair() {
            self.ins(format!(
                "mov{} {}, {}",
                dst.class.decl(),
                dst.re(),
                src.re()
            ));
            self.ins(format!(
                "mov{} {}, {}",
                dst.class.decl(),
                dst.im(),
                src.im()
            ));
            return;
        }
        self.ins(format!("mov.{} {dst}, {src}", dst.class.mov()));
    }

    fn constant(&mut self, v: Value) -> Reg {
        let r = self.reg_of(v.ty());
        match v {
            Value::Bool(b) => {
                let bit = self.zero_b32(b);
                self.ins(format!("setp.ne.u32 {r}, {bit}, 0"));
            }
            Value::C32(z) => {
                self.ins(format!(
                    "mov.f32 {}, {}",
                    r.re(),
                    immediate(Value::F32(z.re))
                ));
                self.ins(format!(
                    "mov.f32 {}, {}",
                    r.im(),
                    immediate(Value::F32(z.im))
                ));
            }
            Value::C64(z) => {
                self.ins(format!(
                    "mov.f64 {}, {}",
                    r.re(),
                    immediate(Value::F64(z.re))
                ));
                self.ins(format!(
                    "mov.f64 {}, {}",
                    r.im(),
                    immediate(Value::F64(z.im))
                ));
            }
            _ => self.ins(format!("mov.{} {r}, {}", r.class.mov(), immediate(v))),
        }
        r
    }

    /// A b32 register holding 0 or 1 (setp needs a register operand).
    fn zero_b32(&mut self, one: bool) -> Reg {
        let r = self.reg(Class::B32);
        self.ins(format!("mov.b32 {r}, {}", one as u32));
        r
    }

    /// Emits the kernel; returns its PTX text and launch description.
    pub(super) fn emit(
        mut self,
        state: StateId,
        stmt: StmtId,
        tuning: &Tuning,
    ) -> (String, PtxKernel) {
        if self.map.block.is_some() {
            return self.emit_block(state, stmt);
        }
        let (block, ipt, rows) = self.flat_shape(tuning);
        let name = self.abi.name.clone();
        let mut header = String::new();
        let _ = writeln!(
            header,
            "// map `{}` (state {state}, statement {stmt}): block {:?}, {ipt} item(s) per thread in x, {rows} row(s) in {}",
            self.map.name.text, block, if self.rows_in_z { "z" } else { "y" }
        );
        header.push_str(&self.entry_header(&name));
        // Only the unrolled kernels take the tuned shape (and its occupancy).
        if tuning.min_blocks_per_sm > 0 && (ipt > 1 || rows > 1) {
            let _ = writeln!(header, ".maxntid {}, {}, {}", block[0], block[1], block[2]);
            let _ = writeln!(header, ".minnctapersm {}", tuning.min_blocks_per_sm);
        } else if let Some(cap) = self.walk {
            let _ = writeln!(header, ".maxnreg {cap}");
        }
        header.push_str("{\n");

        let ranges = self.load_params();
        self.start_scalar_reductions();
        self.grid_loops(&ranges, ipt, rows);
        self.finish_scalar_reductions();
        self.ins("ret");

        let decls = self.register_decls();
        let mark = if self.walk.is_some() {
            crate::codegen::ptx::GRID_WAIT_MARK
        } else {
            crate::codegen::ptx::GRID_DEPENDENCY_MARK
        };
        let text = format!("{header}{decls}{mark}{}}}\n", self.code);
        let kernel = PtxKernel {
            state,
            stmt,
            abi: self.abi.clone(),
            block,
            items_per_thread: ipt,
            rows_per_thread: rows,
            rows_in_z: self.rows_in_z,
            reversed_blocks: self.reversed_blocks,
            phase: None,
            block_map: None,
        };
        (text, kernel)
    }

    /// The launch shape of a flat map's kernel (block, items per thread in
    /// x, rows per thread in y); sets the tuning's cache hints.
    fn flat_shape(&mut self, tuning: &Tuning) -> ([u32; 3], u32, u32) {
        let dims = self.map.params.len();
        let simple = !self.map.gpu_tasklet && !self.map.has_dependent_ranges();
        // 3-D maps walk where the body has the shape walks were measured
        // with (`walk::walk_register_cap`); the others take the tiles.
        let cap = (simple && dims == 3 && tuning.walk_3d)
            .then(|| self.walk_register_cap())
            .flatten();
        let walk_3d = cap.is_some();
        let shape = if self.map.gpu_tasklet {
            // One thread: the body runs once (a 0-d map's single iteration).
            ([1, 1, 1], 1, 1)
        } else if self.map.has_dependent_ranges() {
            // One item per thread: an iteration past a dependent range's end
            // must not issue the loads a tile would hoist (`ir::ranges`).
            launch::dependent_geometry(dims)
        } else {
            geometry(dims, &self.map.body.stmts, &Tuning { walk_3d, ..*tuning })
        };
        self.walk = cap.filter(|_| shape.1 == 1 && shape.2 > 1);
        let walk = self.walk.is_some();
        self.rows_in_z = walk || (dims == 3 && shape.2 > 1 && tuning.rows_3d_in_z);
        if matches!(tuning.l2_prefetch, 64 | 128 | 256) {
            self.load_hint = format!(".L2::{}B", tuning.l2_prefetch);
        }
        if tuning.streaming_stores {
            self.store_hint = ".cs";
        }
        shape
    }

    /// `.visible .entry NAME(params)` (without the body's brace).
    fn entry_header(&self, name: &str) -> String {
        let mut header = format!(".visible .entry {name}(\n");
        let params: Vec<String> = self
            .abi
            .params
            .iter()
            .enumerate()
            .map(|(k, p)| format!("\t{}", param_decl(p, &format!("{name}_param_{k}"))))
            .collect();
        header.push_str(&params.join(",\n"));
        header.push_str("\n)\n");
        header
    }

    /// The `.reg` declarations of every register used.
    fn register_decls(&self) -> String {
        let mut decls = String::new();
        for c in CLASSES {
            let n = self.reg_counts[c.index()];
            if n == 0 {
                continue;
            }
            if c.is_pair() {
                // A complex pair: its parts are declared as two families.
                let z = Reg { class: c, n: 0 };
                for part in [z.re(), z.im()] {
                    let pc = part.class;
                    let _ = writeln!(decls, "\t.reg {} {}<{}>;", pc.decl(), pc.prefix(), n);
                }
            } else {
                let _ = writeln!(decls, "\t.reg {} {}<{}>;", c.decl(), c.prefix(), n);
            }
        }
        decls
    }

    /// The description of a kernel that has no body (invalid IR).
    fn empty_kernel(&self, state: StateId, stmt: StmtId) -> PtxKernel {
        PtxKernel {
            state,
            stmt,
            abi: self.abi.clone(),
            block: [1, 1, 1],
            items_per_thread: 1,
            rows_per_thread: 1,
            rows_in_z: false,
            reversed_blocks: false,
            phase: None,
            block_map: None,
        }
    }
}

/// The `.param` declaration of a parameter: its type, or for a complex
/// value 8 or 16 aligned bytes (re then im).
fn param_decl(p: &KernelParam, name: &str) -> String {
    let ty = p.param_type();
    if ty.is_complex() {
        let size = ty.size_bytes();
        return format!(".param .align {size} .b8 {name}[{size}]");
    }
    format!(".param .{} {name}", mem_type(ty))
}
