//! One `gpu` map -> one `.visible .entry`.
//!
//! The emitter is a straightforward tree walk: one method per construct,
//! virtual registers per class (ptxas allocates the real ones), a label
//! counter. Every value of the tasklet language lives in one register of the
//! class of its type: `i32`/`u32` in `%r` (.b32), `i64`/`u64` in `%rd`
//! (.b64), `f32` in `%f`, `f64` in `%fd`, `bool` in a predicate `%p`
//! (`%rs` (.b16) only carries bytes of `bool` memory and parameters).

use super::{MathFunc, PtxKernel, Tuning};
use crate::codegen::abi::{BufferAccess, KernelAbi, KernelParam, ParamValue};
use crate::ir::bounds::{is_prechecked, LoopScope};
use crate::ir::{
    BinOp, ContainerId, Expr, ExprKind, Map, MathFn, ScalarType, Sdfg, StateId, Stmt, StmtId,
    Storage, SymbolId, UnOp, Value, VarRef, WcrOp,
};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::{self, Write};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Class {
    Pred,
    B16,
    B32,
    B64,
    F32,
    F64,
}

const CLASSES: [Class; 6] = [
    Class::Pred,
    Class::B16,
    Class::B32,
    Class::B64,
    Class::F32,
    Class::F64,
];

impl Class {
    fn of(ty: ScalarType) -> Class {
        match ty {
            ScalarType::I32 | ScalarType::U32 => Class::B32,
            ScalarType::I64 | ScalarType::U64 => Class::B64,
            ScalarType::F32 => Class::F32,
            ScalarType::F64 => Class::F64,
            ScalarType::Bool => Class::Pred,
        }
    }
    fn prefix(self) -> &'static str {
        match self {
            Class::Pred => "%p",
            Class::B16 => "%rs",
            Class::B32 => "%r",
            Class::B64 => "%rd",
            Class::F32 => "%f",
            Class::F64 => "%fd",
        }
    }
    fn decl(self) -> &'static str {
        match self {
            Class::Pred => ".pred",
            Class::B16 => ".b16",
            Class::B32 => ".b32",
            Class::B64 => ".b64",
            Class::F32 => ".f32",
            Class::F64 => ".f64",
        }
    }
    /// The `mov` suffix.
    fn mov(self) -> &'static str {
        &self.decl()[1..]
    }
    fn index(self) -> usize {
        CLASSES.iter().position(|c| *c == self).unwrap_or(0)
    }
}

/// A virtual register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Reg {
    class: Class,
    n: u32,
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.class.prefix(), self.n)
    }
}

/// The PTX type suffix for arithmetic on `ty` (`s32`, `u64`, `f32`, ...).
fn arith(ty: ScalarType) -> &'static str {
    match ty {
        ScalarType::I32 => "s32",
        ScalarType::I64 => "s64",
        ScalarType::U32 => "u32",
        ScalarType::U64 => "u64",
        ScalarType::F32 => "f32",
        ScalarType::F64 => "f64",
        ScalarType::Bool => "pred",
    }
}

/// The PTX type of a value in memory or a `.param` (bool: one byte).
pub(super) fn mem_type(ty: ScalarType) -> &'static str {
    match ty {
        ScalarType::Bool => "u8",
        t => arith(t),
    }
}

fn bits_suffix(ty: ScalarType) -> &'static str {
    if ty.bits() == 64 {
        "b64"
    } else {
        "b32"
    }
}

/// A constant as a PTX immediate of its type.
fn immediate(v: Value) -> String {
    match v {
        Value::I32(_) | Value::U32(_) => format!("0x{:08X}", v.to_bits() as u32),
        Value::I64(_) | Value::U64(_) => format!("0x{:016X}", v.to_bits()),
        Value::F32(x) => format!("0f{:08X}", x.to_bits()),
        Value::F64(x) => format!("0d{:016X}", x.to_bits()),
        Value::Bool(b) => (b as u32).to_string(),
    }
}

/// Does evaluating `e` read memory (a guarded or global load)? Such operands
/// of `&&`, `||` and `if` must not be evaluated speculatively.
fn reads_memory(sdfg: &Sdfg, e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if let ExprKind::Load { container, .. } = &x.kind {
            if !sdfg.containers[*container].storage.is_host() {
                found = true;
            }
        }
    });
    found
}

struct BufferRegs {
    base: Reg,
    /// `ld.global.nc` allowed: read-only in this kernel and never aliased.
    read_only: bool,
    extents: Vec<Reg>,
}

/// Per-kernel emission state.
pub(super) struct KernelEmitter<'a> {
    sdfg: &'a Sdfg,
    map: &'a Map,
    abi: &'a KernelAbi,
    funcs: &'a mut BTreeSet<MathFunc>,
    code: String,
    reg_counts: [u32; 6],
    labels: u32,
    buffers: HashMap<ContainerId, BufferRegs>,
    symbols: HashMap<SymbolId, Reg>,
    host_scalars: HashMap<ContainerId, Reg>,
    fault: Option<Reg>,
    /// Values of the map parameters for the iteration being emitted.
    params: Vec<Reg>,
    locals: Vec<Option<Reg>>,
    /// Loads already issued for the current iteration (see `hoistable_loads`).
    hoisted: HashMap<*const Expr, Reg>,
    /// Fault code (1 + index in program order) of each indexed access, keyed
    /// by the address of its index slice.
    site_codes: HashMap<(usize, bool), u32>,
    conditional: bool,
    loops: LoopScope,
    /// Vector path: per deferred store (address of its index slice), the
    /// values of the lanes emitted so far.
    deferred: HashMap<usize, Vec<Reg>>,
    /// Cache hints of global loads (`.L2::128B`) and plain stores (`.cs`).
    load_hint: String,
    store_hint: &'static str,
    /// Per-thread partial results of WCR updates of scalar containers:
    /// container -> (operator, partial, "updated at least once").
    partials: HashMap<ContainerId, (WcrOp, Reg, Reg)>,
}

/// The vectorized form of a 1-D map (see `KernelEmitter::vector_plan`).
struct VectorPlan<'b> {
    /// Elements per vector access (2 or 4; 16 bytes at most).
    lanes: u32,
    /// Loads `C[i]` done as one vector load per `lanes` iterations.
    loads: Vec<(&'b Expr, ContainerId)>,
    /// Stores `C[i] = v` done as one vector store: (container, index slice address).
    stores: Vec<(ContainerId, usize)>,
}

/// Launch shape chosen for a map of `dims` dimensions: (block, items per
/// thread in x, rows per thread in y).
fn geometry(dims: usize, body: &[Stmt], tuning: &Tuning) -> ([u32; 3], u32, u32) {
    let mut has_loop = false;
    let mut n_stmts = 0;
    for s in body {
        s.walk(&mut |s| {
            n_stmts += 1;
            if matches!(s, Stmt::For { .. }) {
                has_loop = true;
            }
        });
    }
    // Unrolling duplicates the body: only for small straight-line bodies,
    // where it buys independent loads in flight (and, over rows, loads
    // shared by neighbouring rows).
    let unroll = !has_loop && n_stmts <= 8;
    match (dims <= 1, unroll) {
        (true, true) => ([tuning.block_1d, 1, 1], tuning.items_1d.max(1), 1),
        (true, false) => ([256, 1, 1], 1, 1),
        (false, true) => (
            [tuning.block_2d[0], tuning.block_2d[1], 1],
            tuning.items_2d.max(1),
            tuning.rows_2d.max(1),
        ),
        (false, false) => ([128, 2, 1], 1, 1),
    }
}

impl<'a> KernelEmitter<'a> {
    pub(super) fn new(
        sdfg: &'a Sdfg,
        map: &'a Map,
        abi: &'a KernelAbi,
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
            funcs,
            code: String::new(),
            reg_counts: [0; 6],
            labels: 0,
            buffers: HashMap::new(),
            symbols: HashMap::new(),
            host_scalars: HashMap::new(),
            fault: None,
            params: Vec::new(),
            locals: Vec::new(),
            hoisted: HashMap::new(),
            site_codes,
            conditional: false,
            loops: LoopScope::default(),
            deferred: HashMap::new(),
            load_hint: String::new(),
            store_hint: "",
            partials: HashMap::new(),
        }
    }

    /// Whether a 1-D map can run `lanes` consecutive iterations per thread
    /// with vector loads/stores: a straight-line body (no `if`/`for`) whose
    /// accesses at exactly the map parameter are the leading (hoistable)
    /// loads and the plain stores, each stored container stored once and
    /// read only by those leading loads. Alignment is checked at run time.
    fn vector_plan(&self) -> Option<VectorPlan<'a>> {
        let stmts: &'a [Stmt] = &self.map.body.stmts;
        if stmts
            .iter()
            .any(|s| matches!(s, Stmt::If { .. } | Stmt::For { .. }))
        {
            return None;
        }
        let is_x = |index: &[Expr]| index.len() == 1 && is_param_itself(&index[0]);
        let vector_elem = |c: ContainerId| {
            let k = &self.sdfg.containers[c];
            k.storage == Storage::Gpu && k.shape.len() == 1 && k.elem != ScalarType::Bool
        };
        let loads: Vec<(&'a Expr, ContainerId)> = hoistable_loads(self.sdfg, stmts)
            .into_iter()
            .filter_map(|e| match &e.kind {
                ExprKind::Load { container, index } if is_x(index) && vector_elem(*container) => {
                    Some((e, *container))
                }
                _ => None,
            })
            .collect();
        let mut stores = Vec::new();
        for s in stmts {
            if let Stmt::Store {
                container,
                index,
                wcr: None,
                ..
            } = s
            {
                if is_x(index) && vector_elem(*container) {
                    if stores.iter().any(|(c, _)| c == container) {
                        return None;
                    }
                    stores.push((*container, index.as_ptr() as usize));
                }
            }
        }
        // Every other access of a stored container would see a deferred value.
        let mut other_access = false;
        for s in stmts {
            s.walk_exprs(&mut |e| {
                if let ExprKind::Load { container, .. } = &e.kind {
                    let vector_load = loads.iter().any(|(l, _)| std::ptr::eq(*l, e));
                    if !vector_load && stores.iter().any(|(c, _)| c == container) {
                        other_access = true;
                    }
                }
            });
            if let Stmt::Store {
                container, index, ..
            } = s
            {
                let deferred = stores.iter().any(|(_, p)| *p == index.as_ptr() as usize);
                if !deferred && stores.iter().any(|(c, _)| c == container) {
                    other_access = true;
                }
            }
        }
        if other_access || (loads.is_empty() && stores.is_empty()) {
            return None;
        }
        let widest = loads
            .iter()
            .map(|(_, c)| *c)
            .chain(stores.iter().map(|(c, _)| *c))
            .map(|c| self.sdfg.containers[c].elem.size_bytes())
            .max()
            .unwrap_or(8);
        let lanes = (16 / widest) as u32;
        (lanes >= 2).then_some(VectorPlan {
            lanes,
            loads,
            stores,
        })
    }

    /// The vector path of a 1-D map, taken when the step is 1, the start a
    /// multiple of `lanes` and every vector buffer aligned to its vector
    /// size: thread t handles iterations `lanes * v .. lanes * v + lanes`
    /// for v = t, t + threads, ...; the remaining `count % lanes` iterations
    /// run one per thread. Falls through to the scalar loop otherwise;
    /// jumps to `done` when finished.
    fn vector_x_loop(&mut self, plan: &VectorPlan<'a>, range: (Reg, Reg, Reg), done: String) {
        let (start, count, step) = range;
        let lanes = plan.lanes;
        let scalar = self.label();
        self.comment(&format!(
            "vector path: {lanes} consecutive iterations per thread"
        ));
        let ok = self.reg(Class::Pred);
        self.ins(format!("setp.eq.s64 {ok}, {step}, 1"));
        let low = self.reg(Class::B64);
        self.ins(format!("and.b64 {low}, {start}, {}", lanes - 1));
        let p = self.reg(Class::Pred);
        self.ins(format!("setp.eq.s64 {p}, {low}, 0"));
        self.ins(format!("and.pred {ok}, {ok}, {p}"));
        let mut containers: Vec<ContainerId> = plan
            .loads
            .iter()
            .map(|(_, c)| *c)
            .chain(plan.stores.iter().map(|(c, _)| *c))
            .collect();
        containers.sort_unstable();
        containers.dedup();
        for &c in &containers {
            let Some(base) = self.buffers.get(&c).map(|b| b.base) else {
                return;
            };
            let bytes = lanes as usize * self.sdfg.containers[c].elem.size_bytes();
            let low = self.reg(Class::B64);
            self.ins(format!("and.b64 {low}, {base}, {}", bytes - 1));
            let p = self.reg(Class::Pred);
            self.ins(format!("setp.eq.s64 {p}, {low}, 0"));
            self.ins(format!("and.pred {ok}, {ok}, {p}"));
        }
        self.ins(format!("@!{ok} bra {scalar}"));
        let shift = lanes.trailing_zeros();
        let n_vec = self.reg(Class::B64);
        self.ins(format!("shr.u64 {n_vec}, {count}, {shift}"));
        let (v, stride, _) = self.thread_start_and_stride('x', 1);
        let head = self.label();
        let tail = self.label();
        self.place(&head);
        let p = self.reg(Class::Pred);
        self.ins(format!("setp.ge.u64 {p}, {v}, {n_vec}"));
        self.ins(format!("@{p} bra {tail}"));
        let first = self.reg(Class::B64);
        self.ins(format!("shl.b64 {first}, {v}, {shift}"));
        // The element index of lane 0 (step 1): start + first.
        let elem0 = self.reg(Class::B64);
        self.ins(format!("add.s64 {elem0}, {start}, {first}"));
        let mut lane_values: Vec<HashMap<*const Expr, Reg>> = vec![HashMap::new(); lanes as usize];
        for &(e, c) in &plan.loads {
            let ty = self.sdfg.containers[c].elem;
            let addr = self.vector_address(c, elem0);
            let regs: Vec<Reg> = (0..lanes).map(|_| self.reg_of(ty)).collect();
            let list = regs
                .iter()
                .map(|r| r.to_string())
                .collect::<Vec<_>>()
                .join(", ");
            let read_only = self.buffers.get(&c).is_some_and(|b| b.read_only);
            let space = if read_only { "global.nc" } else { "global" };
            self.ins(format!(
                "ld.{space}{}.v{lanes}.{} {{{list}}}, [{addr}]",
                self.load_hint,
                mem_type(ty)
            ));
            for (k, r) in regs.into_iter().enumerate() {
                lane_values[k].insert(e as *const Expr, r);
            }
        }
        self.deferred = plan.stores.iter().map(|(_, p)| (*p, Vec::new())).collect();
        for (k, values) in lane_values.into_iter().enumerate() {
            let t = self.reg(Class::B64);
            self.ins(format!("add.u64 {t}, {first}, {k}"));
            self.params[0] = self.param_value(0, t, range);
            self.hoisted = values;
            self.body();
        }
        self.hoisted.clear();
        let deferred = std::mem::take(&mut self.deferred);
        for &(c, p) in &plan.stores {
            let ty = self.sdfg.containers[c].elem;
            let addr = self.vector_address(c, elem0);
            let values = deferred.get(&p).cloned().unwrap_or_default();
            if values.len() != lanes as usize {
                continue; // not reached: every lane runs every top-level store once
            }
            let list = values
                .iter()
                .map(|r| r.to_string())
                .collect::<Vec<_>>()
                .join(", ");
            self.ins(format!(
                "st.global{}.v{lanes}.{} [{addr}], {{{list}}}",
                self.store_hint,
                mem_type(ty)
            ));
        }
        self.ins(format!("add.u64 {v}, {v}, {stride}"));
        self.ins(format!("bra.uni {head}"));
        self.place(&tail);
        self.comment("the last count % lanes iterations, one per thread");
        let (t0, stride, _) = self.thread_start_and_stride('x', 1);
        let t = self.reg(Class::B64);
        self.ins(format!("shl.b64 {t}, {n_vec}, {shift}"));
        self.ins(format!("add.u64 {t}, {t}, {t0}"));
        let head = self.label();
        self.place(&head);
        let p = self.reg(Class::Pred);
        self.ins(format!("setp.ge.u64 {p}, {t}, {count}"));
        self.ins(format!("@{p} bra {done}"));
        self.params[0] = self.param_value(0, t, range);
        self.body();
        self.ins(format!("add.u64 {t}, {t}, {stride}"));
        self.ins(format!("bra.uni {head}"));
        self.place(&scalar);
    }

    /// `base + element * size` for a 1-D vector access.
    fn vector_address(&mut self, c: ContainerId, element: Reg) -> Reg {
        let size = self.sdfg.containers[c].elem.size_bytes();
        let base = self.buffers.get(&c).map(|b| b.base).unwrap_or(Reg {
            class: Class::B64,
            n: 0,
        });
        let addr = self.reg(Class::B64);
        self.ins(format!("mad.lo.u64 {addr}, {element}, {size}, {base}"));
        addr
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
        format!("$L_{}", self.labels)
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
        self.ins(format!("mov.{} {dst}, {src}", dst.class.mov()));
    }

    fn constant(&mut self, v: Value) -> Reg {
        let r = self.reg_of(v.ty());
        match v {
            Value::Bool(b) => {
                let bit = self.zero_b32(b);
                self.ins(format!("setp.ne.u32 {r}, {bit}, 0"));
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
        let dims = self.map.params.len();
        let (block, ipt, rows) = geometry(dims, &self.map.body.stmts, tuning);
        if matches!(tuning.l2_prefetch, 64 | 128 | 256) {
            self.load_hint = format!(".L2::{}B", tuning.l2_prefetch);
        }
        if tuning.streaming_stores {
            self.store_hint = ".cs";
        }
        let name = self.abi.name.clone();
        let mut header = String::new();
        let _ = writeln!(
            header,
            "// map `{}` (state {state}, statement {stmt}): block {:?}, {ipt} item(s) per thread in x, {rows} row(s) in y",
            self.map.name.text, block
        );
        let _ = writeln!(header, ".visible .entry {name}(");
        let params: Vec<String> = self
            .abi
            .params
            .iter()
            .enumerate()
            .map(|(k, p)| format!("\t.param .{} {name}_param_{k}", param_ptx_type(p)))
            .collect();
        header.push_str(&params.join(",\n"));
        header.push_str("\n)\n");
        // Only the unrolled kernels take the tuned shape (and its occupancy).
        if tuning.min_blocks_per_sm > 0 && (ipt > 1 || rows > 1) {
            let _ = writeln!(header, ".maxntid {}, {}, {}", block[0], block[1], block[2]);
            let _ = writeln!(header, ".minnctapersm {}", tuning.min_blocks_per_sm);
        }
        header.push_str("{\n");

        let ranges = self.load_params();
        self.start_scalar_reductions();
        self.grid_loops(&ranges, ipt, rows);
        self.finish_scalar_reductions();
        self.ins("ret");

        let mut decls = String::new();
        for c in CLASSES {
            let n = self.reg_counts[c.index()];
            if n > 0 {
                let _ = writeln!(decls, "\t.reg {} {}<{}>;", c.decl(), c.prefix(), n);
            }
        }
        let text = format!("{header}{decls}{}}}\n", self.code);
        let kernel = PtxKernel {
            state,
            stmt,
            abi: self.abi.clone(),
            block,
            items_per_thread: ipt,
            rows_per_thread: rows,
        };
        (text, kernel)
    }

    /// Loads every parameter; returns (start, count, step) per map dimension.
    fn load_params(&mut self) -> Vec<(Reg, Reg, Reg)> {
        let name = self.abi.name.clone();
        let mut starts = HashMap::new();
        let mut counts = HashMap::new();
        let mut steps = HashMap::new();
        let mut extents: HashMap<(ContainerId, usize), Reg> = HashMap::new();
        let abi_params = self.abi.params.clone();
        for (k, p) in abi_params.iter().enumerate() {
            let slot = format!("[{name}_param_{k}]");
            match &p.value {
                ParamValue::Buffer { container, access } => {
                    let raw = self.reg(Class::B64);
                    self.ins(format!("ld.param.u64 {raw}, {slot}"));
                    let base = self.reg(Class::B64);
                    self.ins(format!("cvta.to.global.u64 {base}, {raw}"));
                    self.buffers.insert(
                        *container,
                        BufferRegs {
                            base,
                            read_only: *access == BufferAccess::Read,
                            extents: Vec::new(),
                        },
                    );
                }
                ParamValue::Extent { container, dim } => {
                    let r = self.reg(Class::B64);
                    self.ins(format!("ld.param.u64 {r}, {slot}"));
                    extents.insert((*container, *dim), r);
                }
                ParamValue::Symbol(s) => {
                    let r = self.load_scalar_param(p.param_type(), &slot);
                    self.symbols.insert(*s, r);
                }
                ParamValue::HostScalar(c) => {
                    let r = self.load_scalar_param(p.param_type(), &slot);
                    self.host_scalars.insert(*c, r);
                }
                ParamValue::RangeStart(d) | ParamValue::RangeStep(d) => {
                    let r = self.reg(Class::B64);
                    self.ins(format!("ld.param.s64 {r}, {slot}"));
                    if matches!(p.value, ParamValue::RangeStart(_)) {
                        starts.insert(*d, r);
                    } else {
                        steps.insert(*d, r);
                    }
                }
                ParamValue::RangeCount(d) => {
                    let r = self.reg(Class::B64);
                    self.ins(format!("ld.param.u64 {r}, {slot}"));
                    counts.insert(*d, r);
                }
                ParamValue::Fault => {
                    let r = self.reg(Class::B64);
                    self.ins(format!("ld.param.u64 {r}, {slot}"));
                    self.fault = Some(r);
                }
            }
        }
        for (c, buf) in self.buffers.iter_mut() {
            let rank = self.sdfg.containers[*c].shape.len();
            buf.extents = (0..rank)
                .map(|d| extents.get(&(*c, d)).copied())
                .collect::<Option<Vec<_>>>()
                .unwrap_or_default();
        }
        let dims = self.map.params.len();
        (0..dims)
            .map(|d| {
                let zero = Reg {
                    class: Class::B64,
                    n: 0,
                };
                (
                    starts.get(&d).copied().unwrap_or(zero),
                    counts.get(&d).copied().unwrap_or(zero),
                    steps.get(&d).copied().unwrap_or(zero),
                )
            })
            .collect()
    }

    fn load_scalar_param(&mut self, ty: ScalarType, slot: &str) -> Reg {
        if ty == ScalarType::Bool {
            let byte = self.reg(Class::B16);
            self.ins(format!("ld.param.u8 {byte}, {slot}"));
            let p = self.reg(Class::Pred);
            self.ins(format!("setp.ne.u16 {p}, {byte}, 0"));
            p
        } else {
            let r = self.reg_of(ty);
            self.ins(format!("ld.param.{} {r}, {slot}", arith(ty)));
            r
        }
    }

    /// `%ctaid.a * %ntid.a * scale + %tid.a` and `%nctaid.a * %ntid.a * scale` as u64.
    fn thread_start_and_stride(&mut self, axis: char, scale: u32) -> (Reg, Reg, Reg) {
        let tid = self.reg(Class::B32);
        let ntid = self.reg(Class::B32);
        let ctaid = self.reg(Class::B32);
        let nctaid = self.reg(Class::B32);
        self.ins(format!("mov.u32 {tid}, %tid.{axis}"));
        self.ins(format!("mov.u32 {ntid}, %ntid.{axis}"));
        self.ins(format!("mov.u32 {ctaid}, %ctaid.{axis}"));
        self.ins(format!("mov.u32 {nctaid}, %nctaid.{axis}"));
        let tile = self.reg(Class::B32);
        self.ins(format!("mul.lo.u32 {tile}, {ntid}, {scale}"));
        let start = self.reg(Class::B64);
        self.ins(format!("mul.wide.u32 {start}, {ctaid}, {tile}"));
        let tid64 = self.reg(Class::B64);
        self.ins(format!("cvt.u64.u32 {tid64}, {tid}"));
        self.ins(format!("add.u64 {start}, {start}, {tid64}"));
        let stride = self.reg(Class::B64);
        self.ins(format!("mul.wide.u32 {stride}, {nctaid}, {tile}"));
        let ntid64 = self.reg(Class::B64);
        self.ins(format!("cvt.u64.u32 {ntid64}, {ntid}"));
        (start, stride, ntid64)
    }

    /// The value of map parameter `d` for iteration `t`: `start + t * step`,
    /// converted to the parameter's type.
    fn param_value(&mut self, d: usize, t: Reg, range: (Reg, Reg, Reg)) -> Reg {
        let v = self.reg(Class::B64);
        self.ins(format!("mad.lo.s64 {v}, {t}, {}, {}", range.2, range.0));
        let ty = self.map.params[d].ty;
        if ty.bits() == 64 {
            v
        } else {
            let r = self.reg(Class::B32);
            self.ins(format!("cvt.u32.u64 {r}, {v}"));
            r
        }
    }

    /// The grid-stride loops: x = innermost dimension, y = the next, z = the
    /// product of all outer ones (decomposed with div/rem).
    fn grid_loops(&mut self, ranges: &[(Reg, Reg, Reg)], ipt: u32, rows: u32) {
        let dims = ranges.len();
        self.params = vec![
            Reg {
                class: Class::B64,
                n: 0
            };
            dims
        ];
        // z: the product of the outer dimensions.
        let mut z_end = None;
        if dims >= 3 {
            let count_z = self.reg(Class::B64);
            self.mov(count_z, ranges[0].1);
            for r in &ranges[1..dims - 2] {
                self.ins(format!("mul.lo.u64 {count_z}, {count_z}, {}", r.1));
            }
            let (tz, stride_z, _) = self.thread_start_and_stride('z', 1);
            let head = self.label();
            let end = self.label();
            self.place(&head);
            let p = self.reg(Class::Pred);
            self.ins(format!("setp.ge.u64 {p}, {tz}, {count_z}"));
            self.ins(format!("@{p} bra {end}"));
            // Row-major decomposition, innermost of the outer dimensions first.
            let rest = self.reg(Class::B64);
            self.mov(rest, tz);
            for d in (0..dims - 2).rev() {
                let idx = if d == 0 {
                    rest
                } else {
                    let q = self.reg(Class::B64);
                    let i = self.reg(Class::B64);
                    self.ins(format!("div.u64 {q}, {rest}, {}", ranges[d].1));
                    self.ins(format!("mul.lo.u64 {i}, {q}, {}", ranges[d].1));
                    self.ins(format!("sub.u64 {i}, {rest}, {i}"));
                    self.mov(rest, q);
                    i
                };
                self.params[d] = self.param_value(d, idx, ranges[d]);
            }
            z_end = Some((head, end, tz, stride_z));
        }
        let mut y_end = None;
        // With several rows per thread: the iteration index of the first.
        let mut y_run = None;
        if dims >= 2 {
            let d = dims - 2;
            let (ty, stride_y, _) = self.thread_start_and_stride('y', 1);
            let head = self.label();
            let end = self.label();
            self.place(&head);
            let p = self.reg(Class::Pred);
            if rows <= 1 {
                self.ins(format!("setp.ge.u64 {p}, {ty}, {}", ranges[d].1));
                self.ins(format!("@{p} bra {end}"));
                self.params[d] = self.param_value(d, ty, ranges[d]);
            } else {
                let y0 = self.reg(Class::B64);
                self.ins(format!("mul.lo.u64 {y0}, {ty}, {rows}"));
                self.ins(format!("setp.ge.u64 {p}, {y0}, {}", ranges[d].1));
                self.ins(format!("@{p} bra {end}"));
                y_run = Some((y0, rows));
            }
            y_end = Some((head, end, ty, stride_y));
        }
        // x: the innermost dimension (or a single iteration for a 0-d map).
        let count_x = if dims >= 1 {
            ranges[dims - 1].1
        } else {
            let c = self.reg(Class::B64);
            self.ins(format!("mov.u64 {c}, 1"));
            c
        };
        let plan = if dims == 1 { self.vector_plan() } else { None };
        let after_x = self.label();
        if let Some(plan) = &plan {
            self.vector_x_loop(plan, ranges[0], after_x.clone());
        }
        let (tx, stride_x, ntid_x) = self.thread_start_and_stride('x', ipt);
        let head = self.label();
        let end = self.label();
        self.place(&head);
        let p = self.reg(Class::Pred);
        self.ins(format!("setp.ge.u64 {p}, {tx}, {count_x}"));
        self.ins(format!("@{p} bra {end}"));
        self.tile(tx, ntid_x, count_x, ranges, ipt, y_run);
        self.ins(format!("add.u64 {tx}, {tx}, {stride_x}"));
        self.ins(format!("bra.uni {head}"));
        self.place(&end);
        self.place(&after_x);
        for (head, end, t, stride) in [y_end, z_end].into_iter().flatten() {
            self.ins(format!("add.u64 {t}, {t}, {stride}"));
            self.ins(format!("bra.uni {head}"));
            self.place(&end);
        }
    }

    /// One grid-stride step in x: `ipt` iterations `tx + k * ntid.x`
    /// (coalesced across the block for every k), for one row or, with
    /// `y_run = Some((y0, rows))`, for the rows `y0 .. y0 + rows`. A full
    /// tile runs unrolled with the leading loads of all items issued first;
    /// with step 1 in y, a load that several rows share is issued once. The
    /// last, partial tiles run plain loops.
    fn tile(
        &mut self,
        tx: Reg,
        ntid_x: Reg,
        count_x: Reg,
        ranges: &[(Reg, Reg, Reg)],
        ipt: u32,
        y_run: Option<(Reg, u32)>,
    ) {
        let dims = ranges.len();
        let set_x = |this: &mut Self, t: Reg| {
            if dims >= 1 {
                this.params[dims - 1] = this.param_value(dims - 1, t, ranges[dims - 1]);
            }
        };
        if ipt <= 1 && y_run.is_none() {
            set_x(self, tx);
            self.body();
            return;
        }
        let dy = dims.wrapping_sub(2);
        let partial = self.label();
        let done = self.label();
        let p = self.reg(Class::Pred);
        if ipt > 1 {
            let last = self.reg(Class::B64);
            self.ins(format!("mad.lo.u64 {last}, {ntid_x}, {}, {tx}", ipt - 1));
            self.ins(format!("setp.ge.u64 {p}, {last}, {count_x}"));
            self.ins(format!("@{p} bra {partial}"));
        }
        if let Some((y0, rows)) = y_run {
            let (_, count_y, step_y) = ranges[dy];
            let last = self.reg(Class::B64);
            self.ins(format!("add.u64 {last}, {y0}, {}", rows - 1));
            self.ins(format!("setp.ge.u64 {p}, {last}, {count_y}"));
            self.ins(format!("@{p} bra {partial}"));
            // Sharing loads between rows assumes row r + 1 is row r's i + 1.
            self.ins(format!("setp.ne.s64 {p}, {step_y}, 1"));
            self.ins(format!("@{p} bra {partial}"));
        }
        self.comment("full tile: every item in range; leading loads of all items first");
        let hoist = hoistable_loads(self.sdfg, &self.map.body.stmts);
        let rows = y_run.map_or(1, |(_, rows)| rows);
        let mut issued: HashMap<SharedLoad, Reg> = HashMap::new();
        let mut items = Vec::new();
        for r in 0..rows {
            if let Some((y0, _)) = y_run {
                let t = self.reg(Class::B64);
                self.ins(format!("add.u64 {t}, {y0}, {r}"));
                self.params[dy] = self.param_value(dy, t, ranges[dy]);
            }
            for k in 0..ipt {
                let t = if k == 0 {
                    tx
                } else {
                    let t = self.reg(Class::B64);
                    self.ins(format!("mad.lo.u64 {t}, {ntid_x}, {k}, {tx}"));
                    t
                };
                set_x(self, t);
                let params = self.params.clone();
                let mut loaded = HashMap::new();
                for e in &hoist {
                    let key = y_run.and_then(|_| shared_load(e, dy, r, k));
                    let reg = match key.as_ref().and_then(|key| issued.get(key)) {
                        Some(&reg) => reg,
                        None => {
                            let reg = self.expr(e);
                            if let Some(key) = key {
                                issued.insert(key, reg);
                            }
                            reg
                        }
                    };
                    loaded.insert(*e as *const Expr, reg);
                }
                items.push((params, loaded));
            }
        }
        for (params, loaded) in items {
            self.params = params;
            self.hoisted = loaded;
            self.body();
        }
        self.hoisted.clear();
        self.ins(format!("bra.uni {done}"));
        self.place(&partial);
        self.comment("partial tile: items while in range");
        let mut row_loop = None;
        if let Some((y0, rows)) = y_run {
            let r = self.reg(Class::B64);
            self.ins(format!("mov.u64 {r}, 0"));
            let row_head = self.label();
            let row_next = self.label();
            self.place(&row_head);
            let p = self.reg(Class::Pred);
            self.ins(format!("setp.ge.u64 {p}, {r}, {rows}"));
            self.ins(format!("@{p} bra {done}"));
            let t = self.reg(Class::B64);
            self.ins(format!("add.u64 {t}, {y0}, {r}"));
            self.ins(format!("setp.ge.u64 {p}, {t}, {}", ranges[dy].1));
            self.ins(format!("@{p} bra {done}"));
            self.params[dy] = self.param_value(dy, t, ranges[dy]);
            row_loop = Some((r, row_head, row_next));
        }
        let x_done = row_loop
            .as_ref()
            .map_or(done.clone(), |(_, _, next)| next.clone());
        // The items of this tile only: with several rows the partial path
        // also runs for a full x tile whose rows are not all in range.
        let x_end = self.reg(Class::B64);
        self.ins(format!("mad.lo.u64 {x_end}, {ntid_x}, {ipt}, {tx}"));
        self.ins(format!("min.u64 {x_end}, {x_end}, {count_x}"));
        let t = self.reg(Class::B64);
        self.mov(t, tx);
        let head = self.label();
        self.place(&head);
        let p = self.reg(Class::Pred);
        self.ins(format!("setp.ge.u64 {p}, {t}, {x_end}"));
        self.ins(format!("@{p} bra {x_done}"));
        set_x(self, t);
        self.body();
        self.ins(format!("add.u64 {t}, {t}, {ntid_x}"));
        self.ins(format!("bra.uni {head}"));
        if let Some((r, row_head, row_next)) = row_loop {
            self.place(&row_next);
            self.ins(format!("add.u64 {r}, {r}, 1"));
            self.ins(format!("bra.uni {row_head}"));
        }
        self.place(&done);
    }

    fn body(&mut self) {
        self.locals = vec![None; self.map.body.locals.len()];
        self.conditional = false;
        self.loops = LoopScope::default();
        let stmts = &self.map.body.stmts;
        self.stmts(stmts);
    }

    fn stmts(&mut self, stmts: &'a [Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn local_reg(&mut self, local: usize, ty: ScalarType) -> Reg {
        if self.locals.len() <= local {
            self.locals.resize(local + 1, None);
        }
        match self.locals[local] {
            Some(r) if r.class == Class::of(ty) => r,
            _ => {
                let r = self.reg_of(ty);
                self.locals[local] = Some(r);
                r
            }
        }
    }

    fn local_type(&self, local: usize, fallback: ScalarType) -> ScalarType {
        self.map
            .body
            .locals
            .get(local)
            .map(|l| l.ty)
            .unwrap_or(fallback)
    }

    fn stmt(&mut self, s: &'a Stmt) {
        match s {
            Stmt::Let { local, init, .. } => {
                let v = self.expr(init);
                let ty = self.local_type(*local, init.ty);
                let v = self.convert(v, init.ty, ty);
                // A fresh register per `let`: shadowing and re-execution in loops are plain moves.
                if self.locals.len() <= *local {
                    self.locals.resize(*local + 1, None);
                }
                let r = self.reg_of(ty);
                self.locals[*local] = Some(r);
                self.mov(r, v);
            }
            Stmt::AssignLocal { local, value, .. } => {
                let v = self.expr(value);
                let ty = self.local_type(*local, value.ty);
                let v = self.convert(v, value.ty, ty);
                let r = self.local_reg(*local, ty);
                self.mov(r, v);
            }
            Stmt::Store {
                container,
                index,
                value,
                wcr,
                ..
            } => self.store(*container, index, value, *wcr),
            Stmt::If {
                cond, then, else_, ..
            } => {
                let c = self.expr(cond);
                let c = self.to_pred(c, cond.ty);
                let l_else = self.label();
                let l_end = self.label();
                self.ins(format!("@!{c} bra {l_else}"));
                let outer = std::mem::replace(&mut self.conditional, true);
                self.stmts(then);
                self.ins(format!("bra.uni {l_end}"));
                self.place(&l_else);
                self.stmts(else_);
                self.place(&l_end);
                self.conditional = outer;
            }
            Stmt::For {
                var,
                start,
                end,
                step,
                body,
                ..
            } => self.for_loop(*var, start, end, step.as_ref(), body),
        }
    }

    /// `for var in (start..end).step_by(step)` with Rust's semantics: bounds
    /// evaluated once, empty when start >= end, a step <= 0 runs nothing, and
    /// the loop ends when `var + step` would pass `end` or overflow.
    fn for_loop(
        &mut self,
        var: usize,
        start: &'a Expr,
        end: &'a Expr,
        step: Option<&'a Expr>,
        body: &'a [Stmt],
    ) {
        let ty = start.ty;
        if !ty.is_integer() {
            return; // rejected by validation
        }
        let s = self.expr(start);
        let e = self.expr(end);
        let e = self.convert(e, end.ty, ty);
        let st = match step {
            Some(x) => {
                let r = self.expr(x);
                self.convert(r, x.ty, ty)
            }
            None => self.constant(Value::from_bits(ty, 1)),
        };
        let counter = self.reg_of(ty);
        self.mov(counter, s);
        let l_head = self.label();
        let l_end = self.label();
        let a = arith(ty);
        let p = self.reg(Class::Pred);
        self.ins(format!("setp.le.{a} {p}, {st}, 0"));
        self.ins(format!("@{p} bra {l_end}"));
        self.place(&l_head);
        let p = self.reg(Class::Pred);
        self.ins(format!("setp.ge.{a} {p}, {counter}, {e}"));
        self.ins(format!("@{p} bra {l_end}"));
        let v = self.local_reg(var, ty);
        self.mov(v, counter);
        let outer = self.loops.clone();
        self.loops = outer.enter_loop(var, start, end, step);
        self.stmts(body);
        self.loops = outer;
        // Stop when the distance to the end (unsigned) is at most the step.
        let distance = self.reg_of(ty);
        let u = if ty.bits() == 64 { "u64" } else { "u32" };
        self.ins(format!("sub.{u} {distance}, {e}, {counter}"));
        let p = self.reg(Class::Pred);
        self.ins(format!("setp.le.{u} {p}, {distance}, {st}"));
        self.ins(format!("@{p} bra {l_end}"));
        self.ins(format!("add.{u} {counter}, {counter}, {st}"));
        self.ins(format!("bra.uni {l_head}"));
        self.place(&l_end);
    }

    // ---- memory ------------------------------------------------------------

    /// The byte address of `container[index]` (64-bit offsets) and, when the
    /// access is not prechecked, the predicate "out of bounds".
    fn address(&mut self, container: ContainerId, index: &'a [Expr]) -> Option<(Reg, Option<Reg>)> {
        let elem = self.sdfg.containers[container].elem;
        let size = elem.size_bytes();
        let (base, extents) = {
            let b = self.buffers.get(&container)?;
            (b.base, b.extents.clone())
        };
        if index.is_empty() {
            return Some((base, None));
        }
        if extents.len() != index.len() {
            return None; // rank mismatch: rejected by validation
        }
        let prechecked = is_prechecked(index, self.conditional, &self.loops);
        // One dimension with a 32-bit index that the host checked: mul.wide.
        if index.len() == 1 && prechecked && index[0].ty.bits() == 32 {
            let i = self.expr(&index[0]);
            let off = self.reg(Class::B64);
            let s = if index[0].ty.is_signed_integer() {
                "s32"
            } else {
                "u32"
            };
            self.ins(format!("mul.wide.{s} {off}, {i}, {size}"));
            let addr = self.reg(Class::B64);
            self.ins(format!("add.s64 {addr}, {base}, {off}"));
            return Some((addr, None));
        }
        // Host-checked indices `e + c` are split: the offset of `e` is shared
        // by neighbouring accesses (A[i, j - 1], A[i + 1, j], ... in a
        // stencil: ptxas reuses one product), `c` adds a constant stride.
        // Exact: the host proved every index in range, so no wrap happens.
        let mut wide = Vec::new();
        let mut consts = Vec::new();
        for e in index {
            let (core, c) = if prechecked {
                split_constant(e)
            } else {
                (e, 0)
            };
            let r = self.expr(core);
            wide.push(self.widen_index(r, core.ty));
            consts.push(c);
        }
        let oob = if prechecked {
            None
        } else {
            let any = self.reg(Class::Pred);
            for (d, (i, ext)) in wide.iter().zip(&extents).enumerate() {
                // A negative index is a huge unsigned one: one compare covers both ends.
                if d == 0 {
                    self.ins(format!("setp.ge.u64 {any}, {i}, {ext}"));
                } else {
                    let p = self.reg(Class::Pred);
                    self.ins(format!("setp.ge.u64 {p}, {i}, {ext}"));
                    self.ins(format!("or.pred {any}, {any}, {p}"));
                }
            }
            Some(any)
        };
        // Row-major linear offset by Horner: ((i0 * E1 + i1) * E2 + i2) ...
        let lin = self.reg(Class::B64);
        self.mov(lin, wide[0]);
        for d in 1..wide.len() {
            self.ins(format!(
                "mad.lo.u64 {lin}, {lin}, {}, {}",
                extents[d], wide[d]
            ));
        }
        // The byte address of the core; neighbours add a byte offset to it,
        // so ptxas computes the core once for a stencil's accesses and folds
        // a constant offset into the load (`[core+8]`).
        let core = self.reg(Class::B64);
        self.ins(format!("mad.lo.u64 {core}, {lin}, {size}, {base}"));
        if consts.iter().all(|&c| c == 0) {
            return Some((core, oob));
        }
        let addr = self.reg(Class::B64);
        if consts[..consts.len() - 1].iter().all(|&c| c == 0) {
            // Only the innermost index has a constant: a constant byte offset.
            let bytes = consts[consts.len() - 1].wrapping_mul(size as i64);
            self.ins(format!("add.s64 {addr}, {core}, {bytes}"));
        } else {
            // The same Horner scheme over the constants, in elements.
            let k = self.reg(Class::B64);
            self.ins(format!("mov.b64 {k}, 0x{:016X}", consts[0] as u64));
            for d in 1..consts.len() {
                self.ins(format!(
                    "mad.lo.u64 {k}, {k}, {}, 0x{:016X}",
                    extents[d], consts[d] as u64
                ));
            }
            self.ins(format!("mad.lo.u64 {addr}, {k}, {size}, {core}"));
        }
        Some((addr, oob))
    }

    /// An index value as 64 bits, extended by the signedness of its type.
    fn widen_index(&mut self, r: Reg, ty: ScalarType) -> Reg {
        match ty {
            ScalarType::I32 => {
                let w = self.reg(Class::B64);
                self.ins(format!("cvt.s64.s32 {w}, {r}"));
                w
            }
            ScalarType::U32 => {
                let w = self.reg(Class::B64);
                self.ins(format!("cvt.u64.u32 {w}, {r}"));
                w
            }
            ScalarType::I64 | ScalarType::U64 => r,
            other => self.convert(r, other, ScalarType::I64),
        }
    }

    fn site_code(&self, index: &[Expr], is_store: bool) -> u32 {
        self.site_codes
            .get(&(index.as_ptr() as usize, is_store))
            .copied()
            .unwrap_or(u32::MAX)
    }

    /// Records an out-of-bounds access: the first code wins (CAS 0 -> code).
    fn record_fault(&mut self, oob: Reg, code: u32) {
        if let Some(f) = self.fault {
            let old = self.reg(Class::B32);
            self.ins(format!("@{oob} atom.cas.b32 {old}, [{f}], 0, {code}"));
        }
    }

    fn load(&mut self, e: &'a Expr, container: ContainerId, index: &'a [Expr]) -> Reg {
        if let Some(r) = self.hoisted.get(&(e as *const Expr)) {
            return *r;
        }
        let ty = e.ty;
        if let Some(r) = self.host_scalars.get(&container) {
            return *r;
        }
        let Some((addr, oob)) = self.address(container, index) else {
            return self.constant(Value::from_bits(ty, 0));
        };
        let read_only = self.buffers.get(&container).is_some_and(|b| b.read_only);
        let space = if read_only { "global.nc" } else { "global" };
        let guard = oob.map(|p| format!("@!{p} ")).unwrap_or_default();
        let result = if ty == ScalarType::Bool {
            let byte = self.reg(Class::B16);
            if oob.is_some() {
                self.ins(format!("mov.b16 {byte}, 0"));
            }
            self.ins(format!(
                "{guard}ld.{space}{}.u8 {byte}, [{addr}]",
                self.load_hint
            ));
            let r = self.reg(Class::Pred);
            self.ins(format!("setp.ne.u16 {r}, {byte}, 0"));
            r
        } else {
            let r = self.reg_of(ty);
            if oob.is_some() {
                self.ins(format!(
                    "mov.{} {r}, {}",
                    r.class.mov(),
                    immediate(Value::from_bits(ty, 0))
                ));
            }
            self.ins(format!(
                "{guard}ld.{space}{}.{} {r}, [{addr}]",
                self.load_hint,
                mem_type(ty)
            ));
            r
        };
        if let Some(p) = oob {
            let code = self.site_code(index, false);
            self.record_fault(p, code);
        }
        result
    }

    fn store(
        &mut self,
        container: ContainerId,
        index: &'a [Expr],
        value: &'a Expr,
        wcr: Option<WcrOp>,
    ) {
        let elem = self.sdfg.containers[container].elem;
        if self.sdfg.containers[container].storage != Storage::Gpu {
            // Kernels never write host data (validation); evaluate for effects only.
            let _ = self.expr(value);
            return;
        }
        // Rust evaluates the right side of an assignment first.
        let v = self.expr(value);
        let v = self.convert(v, value.ty, elem);
        if let (Some(&(op, partial, touched)), true) =
            (self.partials.get(&container), index.is_empty())
        {
            // Combined into the thread's partial; one atomic at the end.
            // The first update starts the partial (no identity element needed,
            // so NaN and signed-zero cases match the evaluator's order).
            let combined = self.combine(op, partial, v, elem);
            let next = self.selp(touched, combined, v);
            self.mov(partial, next);
            let yes = self.constant(Value::Bool(true));
            self.mov(touched, yes);
            return;
        }
        if let Some(lanes) = self.deferred.get_mut(&(index.as_ptr() as usize)) {
            // Vector path: stored with one vector store after the last lane.
            lanes.push(v);
            return;
        }
        let Some((addr, oob)) = self.address(container, index) else {
            return;
        };
        let skip = self.label();
        if let Some(p) = oob {
            let code = self.site_code(index, true);
            self.record_fault(p, code);
            self.ins(format!("@{p} bra {skip}"));
        }
        match wcr {
            None => self.plain_store(addr, v, elem),
            Some(op) => self.reduce(addr, v, elem, op),
        }
        self.place(&skip);
    }

    /// WCR updates of a scalar GPU container (`S += x`, `M = M.max(x)`, ...)
    /// that the body never reads and always updates with one operator are
    /// accumulated per thread and applied with one atomic per thread at the
    /// end, instead of one atomic per iteration on one contended address.
    fn start_scalar_reductions(&mut self) {
        let stmts = &self.map.body.stmts;
        let mut ops: HashMap<ContainerId, Option<WcrOp>> = HashMap::new();
        let mut read: HashSet<ContainerId> = HashSet::new();
        for s in stmts {
            s.walk(&mut |x| {
                if let Stmt::Store {
                    container,
                    index,
                    wcr,
                    ..
                } = x
                {
                    let entry = ops.entry(*container).or_insert(*wcr);
                    if *entry != *wcr || !index.is_empty() {
                        *entry = None;
                    }
                }
            });
            s.walk_exprs(&mut |e| {
                if let ExprKind::Load { container, .. } = &e.kind {
                    read.insert(*container);
                }
            });
        }
        let mut chosen: Vec<(ContainerId, WcrOp)> = ops
            .into_iter()
            .filter_map(|(c, op)| op.map(|op| (c, op)))
            .filter(|(c, _)| {
                let k = &self.sdfg.containers[*c];
                !read.contains(c)
                    && k.is_scalar()
                    && k.storage == Storage::Gpu
                    && k.elem.is_numeric()
                    && self.buffers.contains_key(c)
            })
            .collect();
        chosen.sort_by_key(|(c, _)| *c);
        for (c, op) in chosen {
            let elem = self.sdfg.containers[c].elem;
            self.comment(&format!(
                "per-thread partial of the {} into scalar {}",
                op.name(),
                self.sdfg.containers[c].name.text
            ));
            let start = self.constant(Value::from_bits(elem, 0));
            let partial = self.reg_of(elem);
            self.mov(partial, start);
            let no = self.constant(Value::Bool(false));
            let touched = self.reg(Class::Pred);
            self.mov(touched, no);
            self.partials.insert(c, (op, partial, touched));
        }
    }

    fn finish_scalar_reductions(&mut self) {
        let mut partials: Vec<(ContainerId, (WcrOp, Reg, Reg))> =
            self.partials.iter().map(|(c, p)| (*c, *p)).collect();
        partials.sort_by_key(|(c, _)| *c);
        for (c, (op, partial, touched)) in partials {
            let Some(base) = self.buffers.get(&c).map(|b| b.base) else {
                continue;
            };
            let elem = self.sdfg.containers[c].elem;
            self.warp_reduce(op, partial, touched, elem);
            // Lane 0 holds the warp's result.
            let lane = self.reg(Class::B32);
            self.ins(format!("mov.u32 {lane}, %laneid"));
            let first = self.reg(Class::Pred);
            self.ins(format!("setp.eq.u32 {first}, {lane}, 0"));
            self.ins(format!("and.pred {first}, {first}, {touched}"));
            let skip = self.label();
            self.ins(format!("@!{first} bra {skip}"));
            self.reduce(base, partial, elem, op);
            self.place(&skip);
        }
    }

    /// Combines the partials of the 32 lanes of a warp into lane 0 with
    /// `shfl.sync.down` (offsets 16, 8, 4, 2, 1), carrying the "updated"
    /// flags so lanes without updates contribute nothing. Every thread
    /// reaches this point (kernels have no early exit; blocks are whole
    /// warps), as the full member mask requires.
    fn warp_reduce(&mut self, op: WcrOp, partial: Reg, touched: Reg, elem: ScalarType) {
        self.comment("warp reduction of the partial (lane 0 gets the result)");
        let flag = self.reg(Class::B32);
        self.ins(format!("selp.b32 {flag}, 1, 0, {touched}"));
        for offset in [16, 8, 4, 2, 1] {
            let other = self.reg_of(elem);
            let in_range = self.reg(Class::Pred);
            if elem.bits() == 64 {
                let (lo, hi) = (self.reg(Class::B32), self.reg(Class::B32));
                let (olo, ohi) = (self.reg(Class::B32), self.reg(Class::B32));
                self.ins(format!("mov.b64 {{{lo}, {hi}}}, {partial}"));
                self.ins(format!(
                    "shfl.sync.down.b32 {olo}|{in_range}, {lo}, {offset}, 31, 0xffffffff"
                ));
                self.ins(format!(
                    "shfl.sync.down.b32 {ohi}, {hi}, {offset}, 31, 0xffffffff"
                ));
                self.ins(format!("mov.b64 {other}, {{{olo}, {ohi}}}"));
            } else {
                self.ins(format!(
                    "shfl.sync.down.b32 {other}|{in_range}, {partial}, {offset}, 31, 0xffffffff"
                ));
            }
            let other_flag = self.reg(Class::B32);
            self.ins(format!(
                "shfl.sync.down.b32 {other_flag}, {flag}, {offset}, 31, 0xffffffff"
            ));
            let use_other = self.reg(Class::Pred);
            self.ins(format!(
                "setp.ne.and.b32 {use_other}, {other_flag}, 0, {in_range}"
            ));
            let combined = self.combine(op, partial, other, elem);
            let merged = self.selp(touched, combined, other);
            let next = self.selp(use_other, merged, partial);
            self.mov(partial, next);
            self.ins(format!("or.pred {touched}, {touched}, {use_other}"));
            self.ins(format!("selp.b32 {flag}, 1, 0, {touched}"));
        }
    }

    /// `a (op) b` as the WCR operator computes it.
    fn combine(&mut self, op: WcrOp, a: Reg, b: Reg, elem: ScalarType) -> Reg {
        let r = self.reg_of(elem);
        let t = arith(elem);
        let f = match (op, elem.is_float()) {
            (WcrOp::Sum, true) => "add.rn",
            (WcrOp::Sum, false) => "add",
            (WcrOp::Product, true) => "mul.rn",
            (WcrOp::Product, false) => "mul.lo",
            (WcrOp::Min, _) => "min",
            (WcrOp::Max, _) => "max",
        };
        self.ins(format!("{f}.{t} {r}, {a}, {b}"));
        r
    }

    fn plain_store(&mut self, addr: Reg, v: Reg, elem: ScalarType) {
        if elem == ScalarType::Bool {
            let byte = self.reg(Class::B16);
            self.ins(format!("selp.u16 {byte}, 1, 0, {v}"));
            self.ins(format!("st.global{}.u8 [{addr}], {byte}", self.store_hint));
        } else {
            self.ins(format!(
                "st.global{}.{} [{addr}], {v}",
                self.store_hint,
                mem_type(elem)
            ));
        }
    }

    /// A WCR update: hardware reductions where PTX has them, a CAS loop otherwise.
    fn reduce(&mut self, addr: Reg, v: Reg, elem: ScalarType, op: WcrOp) {
        use ScalarType::*;
        let red = match (op, elem) {
            (WcrOp::Sum, I32 | U32 | I64 | U64) => {
                let t = if elem.bits() == 64 { "u64" } else { "u32" };
                Some(format!("red.global.add.{t}"))
            }
            (WcrOp::Sum, F32 | F64) => Some(format!("red.global.add.{}", arith(elem))),
            (WcrOp::Min, I32 | U32 | I64 | U64) => Some(format!("red.global.min.{}", arith(elem))),
            (WcrOp::Max, I32 | U32 | I64 | U64) => Some(format!("red.global.max.{}", arith(elem))),
            _ => None,
        };
        if let Some(red) = red {
            self.ins(format!("{red} [{addr}], {v}"));
            return;
        }
        if elem == Bool {
            // No byte atomics: a plain read-modify-write (bool WCR is rejected by validation).
            let byte = self.reg(Class::B16);
            self.ins(format!("ld.global.u8 {byte}, [{addr}]"));
            let old = self.reg(Class::Pred);
            self.ins(format!("setp.ne.u16 {old}, {byte}, 0"));
            let new = self.reg(Class::Pred);
            let f = if matches!(op, WcrOp::Sum | WcrOp::Max) {
                "or"
            } else {
                "and"
            };
            self.ins(format!("{f}.pred {new}, {old}, {v}"));
            self.plain_store(addr, new, Bool);
            return;
        }
        // CAS loop on the element's bits.
        self.comment(&format!(
            "wcr {} on {}: compare-and-swap loop",
            op.name(),
            elem
        ));
        let bclass = if elem.bits() == 64 {
            Class::B64
        } else {
            Class::B32
        };
        let b = bits_suffix(elem);
        let expected = self.reg(bclass);
        self.ins(format!("ld.global.{b} {expected}, [{addr}]"));
        let head = self.label();
        let done = self.label();
        self.place(&head);
        let old = if elem.is_float() {
            let f = self.reg_of(elem);
            self.ins(format!("mov.{b} {f}, {expected}"));
            f
        } else {
            expected
        };
        let new = match op {
            WcrOp::Product => {
                let r = self.reg_of(elem);
                if elem.is_float() {
                    self.ins(format!("mul.rn.{} {r}, {old}, {v}", arith(elem)));
                } else {
                    self.ins(format!("mul.lo.{} {r}, {old}, {v}", arith(elem)));
                }
                r
            }
            WcrOp::Min | WcrOp::Max | WcrOp::Sum => {
                let r = self.reg_of(elem);
                let f = match op {
                    WcrOp::Min => "min",
                    WcrOp::Max => "max",
                    _ => "add.rn",
                };
                self.ins(format!("{f}.{} {r}, {old}, {v}", arith(elem)));
                r
            }
        };
        let new_bits = if elem.is_float() {
            let r = self.reg(bclass);
            self.ins(format!("mov.{b} {r}, {new}"));
            r
        } else {
            new
        };
        let got = self.reg(bclass);
        self.ins(format!(
            "atom.global.cas.{b} {got}, [{addr}], {expected}, {new_bits}"
        ));
        let p = self.reg(Class::Pred);
        self.ins(format!("setp.eq.{b} {p}, {got}, {expected}"));
        self.mov(expected, got);
        self.ins(format!("@!{p} bra {head}"));
        self.place(&done);
    }

    // ---- expressions -------------------------------------------------------

    fn expr(&mut self, e: &'a Expr) -> Reg {
        match &e.kind {
            ExprKind::Lit(v) => {
                let v = if v.ty() == e.ty {
                    *v
                } else {
                    crate::eval::cast(*v, e.ty)
                };
                self.constant(v)
            }
            ExprKind::Var(VarRef::Local(l)) => match self.locals.get(*l).copied().flatten() {
                Some(r) => r,
                None => self.constant(Value::from_bits(e.ty, 0)),
            },
            ExprKind::Var(VarRef::Param(p)) => match self.params.get(*p).copied() {
                Some(r) if r.class == Class::of(e.ty) => r,
                _ => self.constant(Value::from_bits(e.ty, 0)),
            },
            ExprKind::Var(VarRef::Symbol(s)) => match self.symbols.get(s).copied() {
                Some(r) => r,
                None => self.constant(Value::from_bits(e.ty, 0)),
            },
            ExprKind::Load { container, index } => self.load(e, *container, index),
            ExprKind::Unary { op, arg } => {
                let a = self.expr(arg);
                self.unary(*op, a, arg.ty)
            }
            ExprKind::Binary {
                op: op @ (BinOp::And | BinOp::Or),
                lhs,
                rhs,
            } => self.logic(*op, lhs, rhs),
            ExprKind::Binary { op, lhs, rhs } => {
                let a = self.expr(lhs);
                let b = self.expr(rhs);
                let b = if matches!(op, BinOp::Shl | BinOp::Shr) || rhs.ty == lhs.ty {
                    b
                } else {
                    self.convert(b, rhs.ty, lhs.ty)
                };
                self.binary(*op, a, b, lhs.ty)
            }
            ExprKind::Cast { arg } => {
                let a = self.expr(arg);
                self.convert(a, arg.ty, e.ty)
            }
            ExprKind::Select { cond, then, else_ } => self.select(cond, then, else_, e.ty),
            ExprKind::Call { func, args } => self.call(*func, args, e.ty),
        }
    }

    fn to_pred(&mut self, r: Reg, ty: ScalarType) -> Reg {
        if r.class == Class::Pred {
            r
        } else {
            self.convert(r, ty, ScalarType::Bool)
        }
    }

    /// `&&` / `||`: evaluates the right side only when needed if it reads memory.
    fn logic(&mut self, op: BinOp, lhs: &'a Expr, rhs: &'a Expr) -> Reg {
        let a = self.expr(lhs);
        let a = self.to_pred(a, lhs.ty);
        let outer = std::mem::replace(&mut self.conditional, true);
        let f = if op == BinOp::And { "and" } else { "or" };
        let result = if reads_memory(self.sdfg, rhs) {
            let r = self.reg(Class::Pred);
            self.mov(r, a);
            let skip = self.label();
            // &&: a false decides; ||: a true decides.
            let neg = if op == BinOp::And { "!" } else { "" };
            self.ins(format!("@{neg}{a} bra {skip}"));
            let b = self.expr(rhs);
            let b = self.to_pred(b, rhs.ty);
            self.mov(r, b);
            self.place(&skip);
            r
        } else {
            let b = self.expr(rhs);
            let b = self.to_pred(b, rhs.ty);
            let r = self.reg(Class::Pred);
            self.ins(format!("{f}.pred {r}, {a}, {b}"));
            r
        };
        self.conditional = outer;
        result
    }

    /// `if c { a } else { b }`: `selp` when neither side reads memory, branches otherwise.
    fn select(&mut self, cond: &'a Expr, then: &'a Expr, else_: &'a Expr, ty: ScalarType) -> Reg {
        let c = self.expr(cond);
        let c = self.to_pred(c, cond.ty);
        let outer = std::mem::replace(&mut self.conditional, true);
        let result = if reads_memory(self.sdfg, then) || reads_memory(self.sdfg, else_) {
            let r = self.reg_of(ty);
            let l_else = self.label();
            let l_end = self.label();
            self.ins(format!("@!{c} bra {l_else}"));
            let a = self.expr(then);
            let a = self.convert(a, then.ty, ty);
            self.mov(r, a);
            self.ins(format!("bra.uni {l_end}"));
            self.place(&l_else);
            let b = self.expr(else_);
            let b = self.convert(b, else_.ty, ty);
            self.mov(r, b);
            self.place(&l_end);
            r
        } else {
            let a = self.expr(then);
            let a = self.convert(a, then.ty, ty);
            let b = self.expr(else_);
            let b = self.convert(b, else_.ty, ty);
            self.selp(c, a, b)
        };
        self.conditional = outer;
        result
    }

    fn selp(&mut self, c: Reg, a: Reg, b: Reg) -> Reg {
        let r = self.reg(a.class);
        if a.class == Class::Pred {
            // (c && a) || (!c && b)
            let t1 = self.reg(Class::Pred);
            let t2 = self.reg(Class::Pred);
            self.ins(format!("and.pred {t1}, {c}, {a}"));
            self.ins(format!("and.pred {t2}, !{c}, {b}"));
            self.ins(format!("or.pred {r}, {t1}, {t2}"));
        } else {
            self.ins(format!("selp.{} {r}, {a}, {b}, {c}", a.class.mov()));
        }
        r
    }

    /// `dst = -a` for an integer type, wrapping (-MIN == MIN). 32-bit values
    /// are negated as `!a + 1`, not with `neg.s32`: the ptxas of CUDA 13.0
    /// (the JIT of driver 580) drops the negation when it fuses `neg.s32`
    /// into a three-input `min`/`max` (`a.max(b.max(-c))` became
    /// `max(a, b, c)`; found by tests/gpu_differential.rs on an H200).
    fn int_negate(&mut self, dst: Reg, a: Reg, ty: ScalarType) {
        if ty.bits() == 64 {
            self.ins(format!("neg.s64 {dst}, {a}"));
        } else {
            self.ins(format!("not.b32 {dst}, {a}"));
            self.ins(format!("add.s32 {dst}, {dst}, 1"));
        }
    }

    fn unary(&mut self, op: UnOp, a: Reg, ty: ScalarType) -> Reg {
        let r = self.reg(a.class);
        match (op, ty) {
            (UnOp::Neg, ScalarType::Bool) => self.mov(r, a),
            (UnOp::Neg, t) if t.is_float() => self.ins(format!("neg.{} {r}, {a}", arith(t))),
            (UnOp::Neg, t) => self.int_negate(r, a, t),
            (UnOp::Not, ScalarType::Bool) => self.ins(format!("not.pred {r}, {a}")),
            (UnOp::Not, t) if t.is_integer() => {
                self.ins(format!("not.{} {r}, {a}", bits_suffix(t)))
            }
            (UnOp::Not, _) => self.mov(r, a),
        }
        r
    }

    fn binary(&mut self, op: BinOp, a: Reg, b: Reg, ty: ScalarType) -> Reg {
        if op.is_comparison() {
            return self.compare(op, a, b, ty);
        }
        if ty == ScalarType::Bool {
            let r = self.reg(Class::Pred);
            let f = match op {
                BinOp::BitAnd | BinOp::Mul => "and",
                BinOp::BitOr => "or",
                _ => "xor",
            };
            self.ins(format!("{f}.pred {r}, {a}, {b}"));
            return r;
        }
        let t = arith(ty);
        let r = self.reg(a.class);
        match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul if ty.is_float() => {
                let f = match op {
                    BinOp::Add => "add",
                    BinOp::Sub => "sub",
                    _ => "mul",
                };
                self.ins(format!("{f}.rn.{t} {r}, {a}, {b}"));
            }
            BinOp::Add => self.ins(format!("add.{t} {r}, {a}, {b}")),
            BinOp::Sub => self.ins(format!("sub.{t} {r}, {a}, {b}")),
            BinOp::Mul => self.ins(format!("mul.lo.{t} {r}, {a}, {b}")),
            BinOp::Div if ty.is_float() => self.ins(format!("div.rn.{t} {r}, {a}, {b}")),
            BinOp::Rem if ty.is_float() => return self.float_rem(a, b, ty),
            BinOp::Div | BinOp::Rem => return self.int_div_rem(op, a, b, ty),
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                let f = match op {
                    BinOp::BitAnd => "and",
                    BinOp::BitOr => "or",
                    _ => "xor",
                };
                self.ins(format!("{f}.{} {r}, {a}, {b}", bits_suffix(ty)));
            }
            BinOp::Shl | BinOp::Shr => return self.shift(op, a, b, ty),
            _ => self.mov(r, a),
        }
        r
    }

    /// Integer `/` and `%` that never trap: x / 0 == 0, x % 0 == x,
    /// MIN / -1 == MIN, MIN % -1 == 0 (divide by 1 in those cases).
    fn int_div_rem(&mut self, op: BinOp, a: Reg, b: Reg, ty: ScalarType) -> Reg {
        let t = arith(ty);
        let bs = bits_suffix(ty);
        let b_zero = self.reg(Class::Pred);
        self.ins(format!("setp.eq.{bs} {b_zero}, {b}, 0"));
        let special = self.reg(Class::Pred);
        if ty.is_signed_integer() {
            let min = if ty.bits() == 64 {
                "0x8000000000000000"
            } else {
                "0x80000000"
            };
            let a_min = self.reg(Class::Pred);
            let b_m1 = self.reg(Class::Pred);
            self.ins(format!("setp.eq.{bs} {a_min}, {a}, {min}"));
            self.ins(format!("setp.eq.{t} {b_m1}, {b}, -1"));
            self.ins(format!("and.pred {special}, {a_min}, {b_m1}"));
            self.ins(format!("or.pred {special}, {special}, {b_zero}"));
        } else {
            self.mov(special, b_zero);
        }
        let safe = self.reg(a.class);
        self.ins(format!("selp.{bs} {safe}, 1, {b}, {special}"));
        let q = self.reg(a.class);
        let f = if op == BinOp::Div { "div" } else { "rem" };
        self.ins(format!("{f}.{t} {q}, {a}, {safe}"));
        let r = self.reg(a.class);
        if op == BinOp::Div {
            self.ins(format!("selp.{bs} {r}, 0, {q}, {b_zero}"));
        } else {
            self.ins(format!("selp.{bs} {r}, {a}, {q}, {b_zero}"));
        }
        r
    }

    /// Float `%` (fmod), computed in f64 (exact for f32 operands too, the
    /// remainder being representable): fast path q = trunc(a / b) with the
    /// division rounded toward zero, r = fma(-q, b, a), exact while
    /// |q| < 2^53; otherwise (huge quotients, and every special case the
    /// fast path may get wrong) a call to the exact bitwise `__sdfg_fmod_f64`.
    fn float_rem(&mut self, a: Reg, b: Reg, ty: ScalarType) -> Reg {
        let (a, b) = if ty == ScalarType::F32 {
            let a64 = self.convert(a, ty, ScalarType::F64);
            let b64 = self.convert(b, ty, ScalarType::F64);
            (a64, b64)
        } else {
            (a, b)
        };
        let q = self.reg(Class::F64);
        self.ins(format!("div.rz.f64 {q}, {a}, {b}"));
        self.ins(format!("cvt.rzi.f64.f64 {q}, {q}"));
        let nq = self.reg(Class::F64);
        self.ins(format!("neg.f64 {nq}, {q}"));
        let r = self.reg(Class::F64);
        self.ins(format!("fma.rn.f64 {r}, {nq}, {b}, {a}"));
        // The remainder has the sign of a (matters for a zero remainder).
        let abs_r = self.reg(Class::F64);
        self.ins(format!("abs.f64 {abs_r}, {r}"));
        let result = self.reg(Class::F64);
        self.ins(format!("copysign.f64 {result}, {a}, {abs_r}"));
        // Fast path only for finite a, nonzero finite b and |q| < 2^53.
        let fast = self.reg(Class::Pred);
        let p = self.reg(Class::Pred);
        let abs_q = self.reg(Class::F64);
        self.ins(format!("abs.f64 {abs_q}, {q}"));
        self.ins(format!("setp.lt.f64 {fast}, {abs_q}, 0d4340000000000000"));
        self.ins(format!("testp.finite.f64 {p}, {a}"));
        self.ins(format!("and.pred {fast}, {fast}, {p}"));
        let p2 = self.reg(Class::Pred);
        self.ins(format!("testp.finite.f64 {p2}, {b}"));
        self.ins(format!("and.pred {fast}, {fast}, {p2}"));
        let p3 = self.reg(Class::Pred);
        self.ins(format!("setp.ne.f64 {p3}, {b}, 0d0000000000000000"));
        self.ins(format!("and.pred {fast}, {fast}, {p3}"));
        let done = self.label();
        self.ins(format!("@{fast} bra {done}"));
        self.funcs.insert(MathFunc::Fmod);
        let mut s =
            String::from("\t{\n\t.param .f64 retval;\n\t.param .f64 arg0;\n\t.param .f64 arg1;\n");
        let _ = writeln!(s, "\tst.param.f64 [arg0], {a};");
        let _ = writeln!(s, "\tst.param.f64 [arg1], {b};");
        let _ = writeln!(
            s,
            "\tcall (retval), {}, (arg0, arg1);",
            MathFunc::Fmod.name()
        );
        let _ = writeln!(s, "\tld.param.f64 {result}, [retval];");
        s.push_str("\t}\n");
        self.code.push_str(&s);
        self.place(&done);
        if ty == ScalarType::F32 {
            self.convert(result, ScalarType::F64, ScalarType::F32)
        } else {
            result
        }
    }

    /// Shifts: the amount (any integer type) is masked to the width of `a`.
    fn shift(&mut self, op: BinOp, a: Reg, b: Reg, ty: ScalarType) -> Reg {
        if !ty.is_integer() {
            return a;
        }
        let amount = self.reg(Class::B32);
        match b.class {
            Class::B64 => self.ins(format!("cvt.u32.u64 {amount}, {b}")),
            Class::B32 => self.mov(amount, b),
            _ => self.ins(format!("mov.b32 {amount}, 0")),
        }
        self.ins(format!("and.b32 {amount}, {amount}, {}", ty.bits() - 1));
        let r = self.reg(a.class);
        let f = match op {
            BinOp::Shl => format!("shl.{}", bits_suffix(ty)),
            _ => format!("shr.{}", arith(ty)),
        };
        self.ins(format!("{f} {r}, {a}, {amount}"));
        r
    }

    /// Comparisons exactly like Rust: float `!=` is unordered (true on NaN),
    /// the others ordered; bool compares false < true.
    fn compare(&mut self, op: BinOp, a: Reg, b: Reg, ty: ScalarType) -> Reg {
        let r = self.reg(Class::Pred);
        if ty == ScalarType::Bool {
            match op {
                BinOp::Eq => {
                    self.ins(format!("xor.pred {r}, {a}, {b}"));
                    self.ins(format!("not.pred {r}, {r}"));
                }
                BinOp::Ne => self.ins(format!("xor.pred {r}, {a}, {b}")),
                BinOp::Lt => self.ins(format!("and.pred {r}, !{a}, {b}")),
                BinOp::Le => self.ins(format!("or.pred {r}, !{a}, {b}")),
                BinOp::Gt => self.ins(format!("and.pred {r}, {a}, !{b}")),
                _ => self.ins(format!("or.pred {r}, {a}, !{b}")),
            }
            return r;
        }
        let c = match op {
            BinOp::Eq => "eq",
            BinOp::Ne if ty.is_float() => "neu",
            BinOp::Ne => "ne",
            BinOp::Lt => "lt",
            BinOp::Le => "le",
            BinOp::Gt => "gt",
            _ => "ge",
        };
        self.ins(format!("setp.{c}.{} {r}, {a}, {b}", arith(ty)));
        r
    }

    /// `v as to` with Rust's semantics (see `crate::eval::cast`).
    fn convert(&mut self, v: Reg, from: ScalarType, to: ScalarType) -> Reg {
        use ScalarType::*;
        if from == to {
            return v;
        }
        if Class::of(from) != v.class {
            // Defensive: a value whose register does not match its type
            // (invalid IR); use zero rather than emit ill-typed PTX.
            return self.constant(Value::from_bits(to, 0));
        }
        let r = self.reg_of(to);
        match (from, to) {
            (Bool, t) if t.is_integer() => {
                self.ins(format!("selp.{} {r}, 1, 0, {v}", bits_suffix(t)));
            }
            (Bool, F32) => self.ins(format!("selp.f32 {r}, 0f3F800000, 0f00000000, {v}")),
            (Bool, F64) => self.ins(format!(
                "selp.f64 {r}, 0d3FF0000000000000, 0d0000000000000000, {v}"
            )),
            (f, Bool) if f.is_float() => self.ins(format!("setp.neu.{} {r}, {v}, 0", arith(f))),
            (f, Bool) => self.ins(format!("setp.ne.{} {r}, {v}, 0", bits_suffix(f))),
            (f, t) if f.is_integer() && t.is_integer() => {
                if f.bits() == t.bits() {
                    self.mov(r, v);
                } else if f.bits() > t.bits() {
                    self.ins(format!("cvt.u32.u64 {r}, {v}"));
                } else if f.is_signed_integer() {
                    self.ins(format!("cvt.s64.s32 {r}, {v}"));
                } else {
                    self.ins(format!("cvt.u64.u32 {r}, {v}"));
                }
            }
            (f, t) if f.is_integer() && t.is_float() => {
                self.ins(format!("cvt.rn.{}.{} {r}, {v}", arith(t), arith(f)));
            }
            (f, t) if f.is_float() && t.is_integer() => {
                // Rust's `as`: truncate, saturate, NaN -> 0. cvt.rzi clamps by
                // itself; the bounds and NaN are also made explicit so the
                // result never depends on that reading of the ISA.
                self.ins(format!("cvt.rzi.{}.{} {r}, {v}", arith(t), arith(f)));
                let b = bits_suffix(t);
                let float_imm = |x: f64| match f {
                    F32 => immediate(Value::F32(x as f32)),
                    _ => immediate(Value::F64(x)),
                };
                let (lo, hi) = if t.is_signed_integer() {
                    let h = 2f64.powi(t.bits() as i32 - 1);
                    (-h, h)
                } else {
                    (-1.0, 2f64.powi(t.bits() as i32))
                };
                let max = immediate(Value::from_bits(
                    t,
                    u64::MAX >> (64 - t.bits() + t.is_signed_integer() as u32),
                ));
                let min = if t.is_signed_integer() {
                    immediate(Value::from_bits(t, 1u64 << (t.bits() - 1)))
                } else {
                    immediate(Value::from_bits(t, 0))
                };
                let above = self.reg(Class::Pred);
                self.ins(format!(
                    "setp.ge.{} {above}, {v}, {}",
                    arith(f),
                    float_imm(hi)
                ));
                self.ins(format!("selp.{b} {r}, {max}, {r}, {above}"));
                let below = self.reg(Class::Pred);
                let cmp = if t.is_signed_integer() { "lt" } else { "le" };
                self.ins(format!(
                    "setp.{cmp}.{} {below}, {v}, {}",
                    arith(f),
                    float_imm(lo)
                ));
                self.ins(format!("selp.{b} {r}, {min}, {r}, {below}"));
                let nan = self.reg(Class::Pred);
                self.ins(format!("setp.nan.{} {nan}, {v}, {v}", arith(f)));
                self.ins(format!("selp.{b} {r}, 0, {r}, {nan}"));
            }
            (F32, F64) => self.ins(format!("cvt.f64.f32 {r}, {v}")),
            (F64, F32) => self.ins(format!("cvt.rn.f32.f64 {r}, {v}")),
            _ => self.mov(r, v),
        }
        r
    }

    fn call(&mut self, func: MathFn, args: &'a [Expr], ty: ScalarType) -> Reg {
        let Some(first) = args.first() else {
            return self.constant(Value::from_bits(ty, 0));
        };
        let a = self.expr(first);
        let a = self.convert(a, first.ty, ty);
        let second = match args.get(1) {
            Some(e) => {
                let r = self.expr(e);
                let want = if func == MathFn::Powi {
                    ScalarType::I32
                } else {
                    ty
                };
                Some(self.convert(r, e.ty, want))
            }
            None => None,
        };
        let r = self.reg_of(ty);
        let t = arith(ty);
        match func {
            MathFn::Abs if ty.is_float() => self.ins(format!("abs.{t} {r}, {a}")),
            MathFn::Abs if ty.is_signed_integer() => {
                // Wrapping: |MIN| == MIN.
                let neg = self.reg(a.class);
                self.int_negate(neg, a, ty);
                let p = self.reg(Class::Pred);
                self.ins(format!("setp.lt.{t} {p}, {a}, 0"));
                self.ins(format!("selp.{t} {r}, {neg}, {a}, {p}"));
            }
            MathFn::Min | MathFn::Max if ty != ScalarType::Bool => {
                let b = second.unwrap_or(a);
                let f = if func == MathFn::Min { "min" } else { "max" };
                // Float min/max return the non-NaN operand, like Rust.
                self.ins(format!("{f}.{t} {r}, {a}, {b}"));
            }
            _ if !ty.is_float() => return a,
            MathFn::Sqrt => self.ins(format!("sqrt.rn.{t} {r}, {a}")),
            MathFn::Floor => self.ins(format!("cvt.rmi.{t}.{t} {r}, {a}")),
            MathFn::Ceil => self.ins(format!("cvt.rpi.{t}.{t} {r}, {a}")),
            MathFn::Exp
            | MathFn::Ln
            | MathFn::Sin
            | MathFn::Cos
            | MathFn::Tanh
            | MathFn::Powf
            | MathFn::Powi => {
                let mf = MathFunc::Call {
                    func,
                    f32: ty == ScalarType::F32,
                };
                self.funcs.insert(mf);
                let mut operands = vec![(a, t)];
                if let Some(b) = second {
                    operands.push((b, if func == MathFn::Powi { "s32" } else { t }));
                }
                let mut s = String::from("{\n");
                let _ = writeln!(s, "\t.param .{t} retval;");
                for (k, (_, pt)) in operands.iter().enumerate() {
                    let _ = writeln!(s, "\t.param .{pt} arg{k};");
                }
                for (k, (reg, pt)) in operands.iter().enumerate() {
                    let _ = writeln!(s, "\tst.param.{pt} [arg{k}], {reg};");
                }
                let names: Vec<String> = (0..operands.len()).map(|k| format!("arg{k}")).collect();
                let _ = writeln!(s, "\tcall (retval), {}, ({});", mf.name(), names.join(", "));
                let _ = writeln!(s, "\tld.param.{t} {r}, [retval];");
                s.push_str("\t}\n");
                self.code.push_str(&s);
            }
            MathFn::Abs | MathFn::Min | MathFn::Max => self.mov(r, a),
        }
        r
    }
}

fn param_ptx_type(p: &KernelParam) -> &'static str {
    mem_type(p.param_type())
}

/// Loads that every iteration performs first and unconditionally: the
/// unconditional, host-checked loads of top-level statements whose indices
/// read only map parameters, symbols and literals, of containers not written
/// earlier in the body. Issuing them for all items of a tile before any item
/// runs keeps several loads in flight per thread (map iterations are
/// independent, so reordering across items is allowed).
fn hoistable_loads<'b>(sdfg: &Sdfg, stmts: &'b [Stmt]) -> Vec<&'b Expr> {
    let mut out = Vec::new();
    let mut written: HashSet<ContainerId> = HashSet::new();
    fn collect<'b>(
        sdfg: &Sdfg,
        e: &'b Expr,
        written: &HashSet<ContainerId>,
        out: &mut Vec<&'b Expr>,
    ) {
        match &e.kind {
            ExprKind::Load { container, index } => {
                let c = &sdfg.containers[*container];
                if c.storage == Storage::Gpu
                    && !index.is_empty()
                    && !written.contains(container)
                    && index.iter().all(index_reads_only_params)
                    && is_prechecked(index, false, &LoopScope::default())
                {
                    out.push(e);
                }
            }
            ExprKind::Unary { arg, .. } | ExprKind::Cast { arg } => {
                collect(sdfg, arg, written, out)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                collect(sdfg, lhs, written, out);
                if !matches!(op, BinOp::And | BinOp::Or) {
                    collect(sdfg, rhs, written, out);
                }
            }
            // Only the condition of a select runs unconditionally.
            ExprKind::Select { cond, .. } => collect(sdfg, cond, written, out),
            ExprKind::Call { args, .. } => args.iter().for_each(|a| collect(sdfg, a, written, out)),
            ExprKind::Lit(_) | ExprKind::Var(_) => {}
        }
    }
    for s in stmts {
        match s {
            Stmt::Let { init, .. } | Stmt::AssignLocal { value: init, .. } => {
                collect(sdfg, init, &written, &mut out)
            }
            Stmt::Store {
                container,
                index,
                value,
                ..
            } => {
                index
                    .iter()
                    .for_each(|e| collect(sdfg, e, &written, &mut out));
                collect(sdfg, value, &written, &mut out);
                written.insert(*container);
            }
            Stmt::If { cond, .. } => {
                collect(sdfg, cond, &written, &mut out);
                s.walk(&mut |x| {
                    if let Stmt::Store { container, .. } = x {
                        written.insert(*container);
                    }
                });
            }
            Stmt::For { .. } => s.walk(&mut |x| {
                if let Stmt::Store { container, .. } = x {
                    written.insert(*container);
                }
            }),
        }
    }
    out
}

/// What identifies a hoisted load across the rows of a tile (step 1 in y):
/// its container, the position of the index component that is the row
/// parameter plus a constant (if any), the row that component lands on
/// (item row + constant), the x item, and the shape of the other components
/// (which read no row parameter, so they are equal for equal shapes).
#[derive(Clone, PartialEq, Eq, Hash)]
struct SharedLoad {
    container: ContainerId,
    row_component: Option<usize>,
    row: i64,
    x_item: u32,
    rest: String,
}

/// The [`SharedLoad`] of hoisted load `e` for item row `r`, x item `k`, or
/// `None` when its index uses the row parameter `dy` in another way.
fn shared_load(e: &Expr, dy: usize, r: u32, k: u32) -> Option<SharedLoad> {
    let ExprKind::Load { container, index } = &e.kind else {
        return None;
    };
    let mut row_component = None;
    let mut row = r as i64;
    let mut rest = String::new();
    for (q, component) in index.iter().enumerate() {
        let (core, c) = split_constant(component);
        if is_param_var(core, dy) && row_component.is_none() {
            row_component = Some(q);
            row = (r as i64).checked_add(c)?;
            rest.push_str("_,");
        } else if reads_param(component, dy) {
            return None;
        } else {
            write_shape(component, &mut rest);
            rest.push(',');
        }
    }
    Some(SharedLoad {
        container: *container,
        row_component,
        // A load that reads no row parameter is the same for every row.
        row: if row_component.is_some() { row } else { 0 },
        x_item: k,
        rest,
    })
}

/// Whether `e` reads map parameter `d`.
fn reads_param(e: &Expr, d: usize) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if matches!(x.kind, ExprKind::Var(VarRef::Param(p)) if p == d) {
            found = true;
        }
    });
    found
}

/// The structure of `e` (operators, types, values; no spans) as text:
/// equal text, equal value for equal parameters and symbols.
fn write_shape(e: &Expr, out: &mut String) {
    let _ = write!(out, "{}:", e.ty);
    let all = |out: &mut String, args: &[&Expr]| {
        out.push('(');
        for a in args {
            write_shape(a, out);
            out.push(' ');
        }
        out.push(')');
    };
    match &e.kind {
        ExprKind::Lit(v) => {
            let _ = write!(out, "{:x}", v.to_bits());
        }
        ExprKind::Var(v) => {
            let _ = write!(out, "{v:?}");
        }
        ExprKind::Load { container, index } => {
            let _ = write!(out, "load{container}");
            all(out, &index.iter().collect::<Vec<_>>());
        }
        ExprKind::Unary { op, arg } => {
            let _ = write!(out, "{op:?}");
            all(out, &[arg]);
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let _ = write!(out, "{op:?}");
            all(out, &[lhs, rhs]);
        }
        ExprKind::Cast { arg } => {
            out.push_str("as");
            all(out, &[arg]);
        }
        ExprKind::Select { cond, then, else_ } => {
            out.push_str("select");
            all(out, &[cond, then, else_]);
        }
        ExprKind::Call { func, args } => {
            let _ = write!(out, "{func:?}");
            all(out, &args.iter().collect::<Vec<_>>());
        }
    }
}

/// An index that reads only map parameters, symbols and literals.
fn index_reads_only_params(e: &Expr) -> bool {
    let mut ok = true;
    e.walk(&mut |x| match &x.kind {
        ExprKind::Var(VarRef::Local(_)) | ExprKind::Load { .. } => ok = false,
        _ => {}
    });
    ok
}

/// `e` is exactly a map parameter (possibly widened by casts): the access
/// `C[e]` walks the container with stride one.
fn is_param_itself(e: &Expr) -> bool {
    is_param_var(e, 0)
}

/// `e` is exactly map parameter `d` (possibly widened by casts).
fn is_param_var(e: &Expr, d: usize) -> bool {
    match &e.kind {
        ExprKind::Var(VarRef::Param(p)) => *p == d,
        ExprKind::Cast { arg } => {
            crate::ir::bounds::is_widening(arg.ty, e.ty) && is_param_var(arg, d)
        }
        _ => false,
    }
}

/// `e + c`, `c + e` or `e - c` with an integer literal `c`: (e, c) (the
/// constant as an i64, wrapping); otherwise (e, 0).
fn split_constant(e: &Expr) -> (&Expr, i64) {
    let lit = |x: &Expr| match &x.kind {
        ExprKind::Lit(v) if v.ty().is_integer() => v.as_i128().map(|c| c as i64),
        _ => None,
    };
    match &e.kind {
        ExprKind::Binary {
            op: BinOp::Add,
            lhs,
            rhs,
        } => match (lit(lhs), lit(rhs)) {
            (_, Some(c)) => (lhs, c),
            (Some(c), None) => (rhs, c),
            _ => (e, 0),
        },
        ExprKind::Binary {
            op: BinOp::Sub,
            lhs,
            rhs,
        } => match lit(rhs) {
            Some(c) => (lhs, c.wrapping_neg()),
            None => (e, 0),
        },
        _ => (e, 0),
    }
}
