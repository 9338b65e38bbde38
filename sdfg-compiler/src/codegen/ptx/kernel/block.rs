//! Block maps: one kernel per block map (see `ir::block`).
//!
//! Launch contract: 1-D blocks of `block[0]` threads (the program's `B`
//! threads rounded up to whole warps: the warp reductions use `shfl.sync`
//! with a full member mask) and a 1-D grid that strides over the block
//! iterations (`grid.x = min(iterations, sm_count * 32)` is always
//! correct), with the dynamic shared memory the kernel's
//! [`BlockLaunch`](crate::codegen::ptx::BlockLaunch) names.
//!
//! Code shape: every thread runs the block-level code (so every thread
//! reaches every barrier: block-level conditions are the same for all of
//! them); a block-level store is guarded by "thread 0"; a thread map is a
//! per-thread loop over iterations `q = t, t + B, ...` that ends before the
//! next barrier; `Stmt::Barrier` is `bar.sync 0`. Threads `t >= B` (the
//! padding of the last warp) run no thread-map iteration but take part in
//! barriers and warp reductions.

use super::block_data::BlockData;
use super::block_reductions::ReductionSlots;
use super::regs::{arith, Class, Reg};
use super::KernelEmitter;
use crate::codegen::ptx::{BlockLaunch, PtxKernel};
use crate::ir::bounds::{is_prechecked, LoopScope};
use crate::ir::{
    uniform_reductions, BinOp, ContainerId, Expr, ExprKind, LocalId, ScalarType, StateId, Stmt,
    StmtId, Storage, ThreadMap, ThreadParam, VarRef,
};
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

/// Thread-map iterations per thread issued together (their leading loads
/// first) in a small straight-line thread map.
const THREAD_MAP_UNROLL: u32 = 4;

/// Launched block sizes whose kernels are compiled for two blocks per SM.
/// Two blocks of at most 128 threads fit the register file whatever ptxas
/// picks (at most 255 registers); above 256 threads two blocks would leave
/// fewer than 128 registers per thread.
const TWO_BLOCKS_THREADS: std::ops::RangeInclusive<u32> = 129..=256;

/// Shared memory of one SM that blocks can use (bytes; sm_90: 228 KiB, of
/// which a block may use 227 KiB).
const SM_SHARED_BYTES: u32 = 228 * 1024;

/// For a launched block size in [`TWO_BLOCKS_THREADS`] whose static shared
/// memory two blocks can hold: `.maxntid` (the launched block) and
/// `.minnctapersm 2`, so ptxas keeps the registers within what two
/// resident blocks allow (65536 / (2 x threads), at least 128) and one
/// block's barrier waits and global loads overlap the other's work. The
/// gemm example (256 threads, 8 x 8 results and a prefetched tile each)
/// would otherwise take more than 128 registers and run one block per SM.
/// Other block kernels get no directive: told a small block size, ptxas
/// takes more registers than it needs (fewer resident warps for the
/// memory-bound ones).
fn occupancy_directives(launched: u32, static_shared_bytes: u32) -> String {
    if TWO_BLOCKS_THREADS.contains(&launched) && 2 * static_shared_bytes <= SM_SHARED_BYTES {
        format!(".maxntid {launched}, 1, 1\n.minnctapersm 2\n")
    } else {
        String::new()
    }
}

/// The state of a block kernel's emission.
pub(super) struct BlockCx {
    /// `%tid.x`: this thread's index in the block.
    pub(super) tid: Reg,
    /// The threads the program sees, `B`, as a u32 operand (an immediate
    /// when constant).
    pub(super) threads: String,
    /// `tid < B`: the thread runs thread-map iterations.
    pub(super) active: Reg,
    /// `tid == 0`: the thread makes the block-level stores.
    pub(super) thread0: Reg,
    /// Emitting a thread map's body (else block-level code).
    pub(super) in_thread_map: bool,
    pub(super) data: BlockData,
    /// `for` loops unrolled at compile time (by variable), and the values
    /// of those being unrolled now.
    pub(super) unroll: HashSet<LocalId>,
    pub(super) unrolled: HashMap<LocalId, i64>,
    /// The block reductions of the thread map being emitted.
    pub(super) partials: Vec<super::block_reductions::Partial>,
    /// Declarations of the entry (`.shared`, `.local`).
    pub(super) decls: String,
}

impl<'a> KernelEmitter<'a> {
    /// The kernel of a block map.
    pub(super) fn emit_block(mut self, state: StateId, stmt: StmtId) -> (String, PtxKernel) {
        let Some(block) = self.map.block.as_ref() else {
            return (String::new(), self.empty_kernel(state, stmt));
        };
        let threads = block
            .constant_threads()
            .filter(|n| (1..=crate::ir::MAX_BLOCK_THREADS).contains(n))
            .map(|n| n as u32);
        let name = self.abi.name.clone();
        let mut header = String::new();
        let _ = writeln!(
            header,
            "// block map `{}` (state {state}, statement {stmt}): {} thread(s) per block",
            self.map.name.text,
            threads.map_or_else(|| "B (from the symbols)".to_string(), |n| n.to_string())
        );
        header.push_str(&self.entry_header(&name));

        let ranges = self.load_params();
        self.locals = vec![None; self.map.body.locals.len()];
        self.setup_block(threads);
        self.block_iterations(&ranges);
        self.ins("ret");

        let mut decls = String::new();
        if let Some(cx) = &self.block {
            decls.push_str(&cx.decls);
        }
        decls.push_str(&self.register_decls());
        let static_shared_bytes = self.block.as_ref().map_or(0, |b| b.data.static_bytes);
        if let Some(n) = threads {
            header.push_str(&occupancy_directives(
                n.div_ceil(32) * 32,
                static_shared_bytes,
            ));
        }
        let text = format!(
            "{header}{{\n{decls}{}{}}}\n",
            crate::codegen::ptx::GRID_DEPENDENCY_MARK,
            self.code
        );
        let launch = BlockLaunch {
            threads,
            static_shared_bytes,
            dynamic_shared: self
                .block
                .as_ref()
                .map_or_else(Vec::new, |b| b.data.dynamic.clone()),
        };
        let kernel = PtxKernel {
            state,
            stmt,
            abi: self.abi.clone(),
            block: [threads.map_or(0, |n| n.div_ceil(32) * 32), 1, 1],
            items_per_thread: 1,
            rows_per_thread: 1,
            rows_in_z: false,
            reversed_blocks: false,
            phase: None,
            block_map: Some(launch),
        };
        (text, kernel)
    }

    /// Thread index, `B`, the predicates, block data.
    fn setup_block(&mut self, threads: Option<u32>) {
        let tid = self.reg(Class::B32);
        self.ins(format!("mov.u32 {tid}, %tid.x"));
        let threads = match threads {
            Some(n) => n.to_string(),
            None => {
                // B is the product of the block's dimensions (symbols).
                let map: &'a crate::ir::Map = self.map;
                let b = self.reg(Class::B32);
                self.ins(format!("mov.u32 {b}, 1"));
                if let Some(crate::ir::BlockSize::Given(dims)) = map.block.as_ref().map(|b| &b.size)
                {
                    for d in dims {
                        let v = self.expr(d);
                        let v = self.convert(v, d.ty, ScalarType::U32);
                        self.ins(format!("mul.lo.u32 {b}, {b}, {v}"));
                    }
                }
                b.to_string()
            }
        };
        let active = self.reg(Class::Pred);
        self.ins(format!("setp.lt.u32 {active}, {tid}, {threads}"));
        let thread0 = self.reg(Class::Pred);
        self.ins(format!("setp.eq.u32 {thread0}, {tid}, 0"));
        let unroll = self.plan_unrolling();
        self.block = Some(BlockCx {
            tid,
            threads,
            active,
            thread0,
            in_thread_map: false,
            data: BlockData::default(),
            unroll,
            unrolled: HashMap::new(),
            partials: Vec::new(),
            decls: String::new(),
        });
        self.setup_block_data();
    }

    /// The grid-stride loop over block iterations: iteration `b` decomposes
    /// row-major into the block map's parameters.
    fn block_iterations(&mut self, ranges: &[(Reg, Reg, Reg)]) {
        let total = self.reg(Class::B64);
        self.ins(format!("mov.u64 {total}, 1"));
        for r in ranges {
            self.ins(format!("mul.lo.u64 {total}, {total}, {}", r.1));
        }
        let (c, n) = (self.reg(Class::B32), self.reg(Class::B32));
        self.ins(format!("mov.u32 {c}, %ctaid.x"));
        self.ins(format!("mov.u32 {n}, %nctaid.x"));
        let b = self.reg(Class::B64);
        self.ins(format!("cvt.u64.u32 {b}, {c}"));
        let stride = self.reg(Class::B64);
        self.ins(format!("cvt.u64.u32 {stride}, {n}"));
        let head = self.label();
        let end = self.label();
        self.place(&head);
        let p = self.reg(Class::Pred);
        self.ins(format!("setp.ge.u64 {p}, {b}, {total}"));
        self.ins(format!("@{p} bra {end}"));
        self.params = vec![
            Reg {
                class: Class::B64,
                n: 0
            };
            ranges.len()
        ];
        // The values outermost first (a dependent range, `ir::ranges`,
        // reads the parameters before it).
        let indices = self.row_major_indices(b, ranges);
        for d in 0..ranges.len() {
            self.params[d] = self.param_value(d, indices[d], ranges[d]);
        }
        // A block iteration of the box past a dependent range's end skips
        // (the whole block alike, so no barrier is split).
        let next = self.label();
        self.branch_past_dependent_ends(&next, "bra.uni");
        self.comment("the block program: every thread runs the block-level code");
        self.conditional = false;
        // The scope the glue's prechecks used (`ir::bounds`): in a map with
        // a range that reads an earlier parameter, every access is guarded
        // here, since the host checked none of them.
        self.loops = LoopScope::for_map(self.map);
        let stmts = &self.map.body.stmts;
        self.stmts(stmts);
        self.place(&next);
        self.ins(format!("add.u64 {b}, {b}, {stride}"));
        self.ins(format!("bra.uni {head}"));
        self.place(&end);
    }

    /// Whether a store is block-level (made by thread 0 only).
    pub(super) fn block_level(&self) -> bool {
        self.block.as_ref().is_some_and(|b| !b.in_thread_map)
    }

    /// A block-level store: thread 0 makes it (its operands are evaluated
    /// there too).
    pub(super) fn store_by_thread0(&mut self, s: &'a Stmt) {
        let Stmt::Store {
            container,
            index,
            value,
            wcr,
            ..
        } = s
        else {
            return;
        };
        let Some(thread0) = self.block.as_ref().map(|b| b.thread0) else {
            return;
        };
        let skip = self.label();
        self.ins(format!("@!{thread0} bra {skip}"));
        self.store(*container, index, value, *wcr);
        self.place(&skip);
    }

    pub(super) fn barrier(&mut self, reason: &str) {
        self.comment(&format!("barrier: {reason}"));
        self.ins("bar.sync 0");
    }

    /// A thread map: iterations `q = t, t + B, ...` of the row-major
    /// linearized iteration space (one iteration `q = t` when it touches
    /// register data), then its block reductions.
    pub(super) fn thread_map(&mut self, t: &'a ThreadMap) {
        self.comment(&format!("thread map `{}`", t.name.text));
        let ranges: Vec<ThreadRange> = t.params.iter().map(|p| self.thread_range(p)).collect();
        let total = self.reg(Class::B64);
        self.ins(format!("mov.u64 {total}, 1"));
        for r in &ranges {
            self.ins(format!("mul.lo.u64 {total}, {total}, {}", r.count));
        }
        let reductions = uniform_reductions(t, &self.sdfg.containers);
        self.start_block_reductions(&reductions);
        let outer_loops = self.loops.clone();
        for p in &t.params {
            self.loops = self
                .loops
                .enter_loop(p.local, &p.start, &p.end, p.step.as_ref(), &t.body);
        }
        let was = self.enter_thread_map(true);
        let Some((tid, threads, active)) = self
            .block
            .as_ref()
            .map(|b| (b.tid, b.threads.clone(), b.active))
        else {
            return;
        };
        let q = self.reg(Class::B64);
        self.ins(format!("cvt.u64.u32 {q}, {tid}"));
        let stride = self.reg(Class::B64);
        if threads.parse::<u32>().is_ok() {
            self.ins(format!("mov.u64 {stride}, {threads}"));
        } else {
            self.ins(format!("cvt.u64.u32 {stride}, {threads}"));
        }
        let done = self.label();
        self.ins(format!("@!{active} bra {done}"));
        if self.touches_register_data(&t.body) {
            // Register data: at most B iterations (validated), iteration q
            // on thread q, so each thread's registers are its iteration's.
            let p = self.reg(Class::Pred);
            self.ins(format!("setp.ge.u64 {p}, {q}, {total}"));
            self.ins(format!("@{p} bra {done}"));
            self.set_thread_params(t, &ranges, q);
            self.stmts(&t.body);
        } else {
            let unroll = if is_small_straight_line(&t.body) {
                THREAD_MAP_UNROLL
            } else {
                1
            };
            if unroll > 1 {
                self.unrolled_thread_loop(t, &ranges, q, stride, total, unroll);
            }
            let head = self.label();
            self.place(&head);
            let p = self.reg(Class::Pred);
            self.ins(format!("setp.ge.u64 {p}, {q}, {total}"));
            self.ins(format!("@{p} bra {done}"));
            self.set_thread_params(t, &ranges, q);
            self.stmts(&t.body);
            self.ins(format!("add.u64 {q}, {q}, {stride}"));
            self.ins(format!("bra.uni {head}"));
        }
        self.place(&done);
        self.enter_thread_map(was);
        self.loops = outer_loops;
        self.finish_block_reductions(t);
    }

    /// Full steps of `unroll` iterations `q, q + B, ...` with the leading
    /// loads of all of them issued first (several loads in flight per
    /// thread); the remaining iterations run in the plain loop after it.
    fn unrolled_thread_loop(
        &mut self,
        t: &'a ThreadMap,
        ranges: &[ThreadRange],
        q: Reg,
        stride: Reg,
        total: Reg,
        unroll: u32,
    ) {
        let head = self.label();
        let rest = self.label();
        self.place(&head);
        let last = self.reg(Class::B64);
        self.ins(format!("mad.lo.u64 {last}, {stride}, {}, {q}", unroll - 1));
        let p = self.reg(Class::Pred);
        self.ins(format!("setp.ge.u64 {p}, {last}, {total}"));
        self.ins(format!("@{p} bra {rest}"));
        let leading = self.leading_loads(t);
        // Bytes between the element a load reads in consecutive items, when
        // constant: item k then loads at item 0's address plus k of them.
        let steps: Vec<Option<i64>> = leading
            .iter()
            .map(|e| self.item_stride_bytes(t, ranges, e))
            .collect();
        let mut first: Vec<Option<Reg>> = vec![None; leading.len()];
        let mut items = Vec::new();
        for k in 0..unroll {
            let qk = if k == 0 {
                q
            } else {
                let r = self.reg(Class::B64);
                self.ins(format!("mad.lo.u64 {r}, {stride}, {k}, {q}"));
                r
            };
            self.set_thread_params(t, ranges, qk);
            let locals = self.locals.clone();
            let mut loaded = HashMap::new();
            for (j, e) in leading.iter().enumerate() {
                let r = match (steps[j], first[j]) {
                    (Some(bytes), Some(addr0)) => {
                        let addr = self.reg(Class::B64);
                        self.ins(format!("add.s64 {addr}, {addr0}, {}", bytes * k as i64));
                        self.global_load_at(e, addr)
                    }
                    (Some(_), None) => match self.leading_address(e) {
                        Some(addr) => {
                            first[j] = Some(addr);
                            self.global_load_at(e, addr)
                        }
                        None => self.expr(e),
                    },
                    _ => self.expr(e),
                };
                loaded.insert(*e as *const Expr, r);
            }
            items.push((locals, loaded));
        }
        for (locals, loaded) in items {
            self.locals = locals;
            self.hoisted = loaded;
            self.stmts(&t.body);
        }
        self.hoisted.clear();
        self.ins(format!("mad.lo.u64 {q}, {stride}, {unroll}, {q}"));
        self.ins(format!("bra.uni {head}"));
        self.place(&rest);
    }

    /// For a leading load of a 1-D thread map whose index moves with the
    /// parameter in its last dimension only (coefficient 1, so consecutive
    /// elements): the bytes between the elements of consecutive unrolled
    /// items (`B * step * size`), when `B` and the step are constants.
    fn item_stride_bytes(&self, t: &ThreadMap, ranges: &[ThreadRange], e: &Expr) -> Option<i64> {
        let [p] = t.params.as_slice() else {
            return None;
        };
        let ExprKind::Load { container, index } = &e.kind else {
            return None;
        };
        let elem = self.sdfg.containers[*container].elem;
        if elem == ScalarType::Bool {
            return None;
        }
        let threads: i64 = self.block.as_ref()?.threads.parse().ok()?;
        let step: i64 = ranges[0].step.parse().ok()?;
        let (last, outer) = index.split_last()?;
        if outer.iter().any(|x| mentions_local(x, p.local)) {
            return None;
        }
        let form = crate::ir::linear::Linear::<String>::from_expr(last, &mut |x: &Expr| {
            use crate::ir::linear::{Leaf, Linear};
            if matches!(x.kind, ExprKind::Var(VarRef::Local(l)) if l == p.local) {
                Leaf::Form(Linear::var(String::from("p")))
            } else if !mentions_local(x, p.local) && !matches!(x.kind, ExprKind::Lit(_)) {
                Leaf::Form(Linear::var(x.key()))
            } else {
                Leaf::Descend
            }
        })?;
        if form.terms.get("p") != Some(&1) {
            return None;
        }
        threads
            .checked_mul(step)?
            .checked_mul(elem.size_bytes() as i64)
    }

    /// The address of a leading (host-checked) load.
    fn leading_address(&mut self, e: &'a Expr) -> Option<Reg> {
        let ExprKind::Load { container, index } = &e.kind else {
            return None;
        };
        match self.address(*container, index)? {
            (addr, None) => Some(addr),
            _ => None,
        }
    }

    /// A global load of `e`'s element at `addr` (host-checked).
    fn global_load_at(&mut self, e: &'a Expr, addr: Reg) -> Reg {
        let ExprKind::Load { container, .. } = &e.kind else {
            return self.expr(e);
        };
        let read_only = self.buffers.get(container).is_some_and(|b| b.read_only);
        let space = if read_only { "global.nc" } else { "global" };
        let space = format!("{space}{}", self.load_hint);
        self.load_at(e.ty, addr, &space, None)
    }

    /// The unconditional global loads of a thread map's top-level
    /// statements whose indices the host checked and that read only
    /// uniform values and the thread map's parameters, of containers the
    /// body does not write before them.
    fn leading_loads(&self, t: &'a ThreadMap) -> Vec<&'a Expr> {
        let inner: HashSet<LocalId> = crate::ir::thread_map_locals(t)
            .into_iter()
            .filter(|l| !t.params.iter().any(|p| p.local == *l))
            .collect();
        let mut out = Vec::new();
        let mut written: HashSet<ContainerId> = HashSet::new();
        let loops = self.loops.clone();
        let sdfg = self.sdfg;
        let collect = |e: &'a Expr, written: &HashSet<ContainerId>, out: &mut Vec<&'a Expr>| {
            visit_unconditional(e, &mut |x| {
                if let ExprKind::Load { container, index } = &x.kind {
                    let ok = sdfg.containers[*container].storage == Storage::Gpu
                        && !index.is_empty()
                        && !written.contains(container)
                        && index.iter().all(|i| reads_no_data_or(i, &inner))
                        && is_prechecked(index, false, &loops);
                    if ok {
                        out.push(x);
                    }
                }
            });
        };
        for s in &t.body {
            match s {
                Stmt::Let { init, .. } | Stmt::AssignLocal { value: init, .. } => {
                    collect(init, &written, &mut out)
                }
                Stmt::Store {
                    container,
                    index,
                    value,
                    ..
                } => {
                    for i in index {
                        collect(i, &written, &mut out);
                    }
                    collect(value, &written, &mut out);
                    written.insert(*container);
                }
                _ => break,
            }
        }
        out
    }

    /// Marks thread-map code (returns the previous mark).
    fn enter_thread_map(&mut self, inside: bool) -> bool {
        match self.block.as_mut() {
            Some(b) => std::mem::replace(&mut b.in_thread_map, inside),
            None => false,
        }
    }

    /// (start, step) as i64 and the iteration count (u64) of a dimension:
    /// immediates when the range is made of literals.
    fn thread_range(&mut self, p: &'a ThreadParam) -> ThreadRange {
        let ty = p.start.ty;
        let c = crate::ir::linear::constant_value;
        let constant = (c(&p.start), c(&p.end), p.step.as_ref().map_or(Some(1), c));
        if let (Some(a), Some(b), Some(st)) = constant {
            if st > 0 && a.abs() < 1 << 62 && b.abs() < 1 << 62 && st < 1 << 62 {
                let count = if b > a { (b - a + st - 1) / st } else { 0 };
                return ThreadRange {
                    start: a.to_string(),
                    step: st.to_string(),
                    count: count.to_string(),
                    ty,
                };
            }
        }
        let start = self.expr(&p.start);
        // `start..=last` compares with `last` itself (it may be the type's
        // maximum, where `last + 1` wraps).
        let (end, inclusive) = match crate::ir::range_end(&p.end, p.inclusive) {
            crate::ir::RangeEnd::Exclusive(e) => (e, false),
            crate::ir::RangeEnd::Inclusive(last) => (last, true),
        };
        let end_ty = end.ty;
        let end = self.expr(end);
        let end = self.convert(end, end_ty, ty);
        let step = match &p.step {
            Some(s) => {
                let r = self.expr(s);
                self.convert(r, s.ty, ty)
            }
            None => self.constant(crate::ir::Value::from_bits(ty, 1)),
        };
        let wide = |this: &mut Self, r: Reg| -> Reg {
            if ty.bits() == 64 {
                r
            } else {
                let w = this.reg(Class::B64);
                let s = if ty.is_signed_integer() {
                    "s64.s32"
                } else {
                    "u64.u32"
                };
                this.ins(format!("cvt.{s} {w}, {r}"));
                w
            }
        };
        // count = end > start && step > 0 ? (end - start - 1) / step + 1 : 0,
        // the difference unsigned (exact: end > start); inclusive:
        // last >= start, the difference plus one.
        let a = arith(ty);
        let nonempty = self.reg(Class::Pred);
        let cmp = if inclusive { "ge" } else { "gt" };
        self.ins(format!("setp.{cmp}.{a} {nonempty}, {end}, {start}"));
        let positive = self.reg(Class::Pred);
        self.ins(format!("setp.gt.{a} {positive}, {step}, 0"));
        self.ins(format!("and.pred {nonempty}, {nonempty}, {positive}"));
        let start64 = wide(self, start);
        let step64 = wide(self, step);
        let end64 = wide(self, end);
        let count = self.reg(Class::B64);
        self.ins(format!("sub.u64 {count}, {end64}, {start64}"));
        if ty.bits() == 32 {
            // The difference of two 32-bit values fits 32 bits unsigned.
            self.ins(format!("and.b64 {count}, {count}, 0xFFFFFFFF"));
        }
        if inclusive {
            self.ins(format!("add.u64 {count}, {count}, 1"));
        }
        match p.step.as_ref().map_or(Some(1), c).filter(|&k| k > 0) {
            // A constant step: no division (ptxas calls a subroutine for a
            // 64-bit one), or a shift.
            Some(1) => {}
            Some(k) if k.count_ones() == 1 && k < 1 << 62 => {
                self.ins(format!("sub.u64 {count}, {count}, 1"));
                self.ins(format!("shr.u64 {count}, {count}, {}", k.trailing_zeros()));
                self.ins(format!("add.u64 {count}, {count}, 1"));
            }
            _ => {
                self.ins(format!("sub.u64 {count}, {count}, 1"));
                let step_u = self.reg(Class::B64);
                self.ins(format!("selp.u64 {step_u}, {step64}, 1, {positive}"));
                self.ins(format!("div.u64 {count}, {count}, {step_u}"));
                self.ins(format!("add.u64 {count}, {count}, 1"));
            }
        }
        self.ins(format!("selp.u64 {count}, {count}, 0, {nonempty}"));
        // A constant start or step stays an immediate.
        let known = |e: Option<&Expr>, reg: Reg| match e.map_or(Some(1), c) {
            Some(v) if v.abs() < 1 << 62 => v.to_string(),
            _ => reg.to_string(),
        };
        ThreadRange {
            start: known(Some(&p.start), start64),
            step: known(p.step.as_ref(), step64),
            count: count.to_string(),
            ty,
        }
    }

    /// The parameters of iteration `q` (u64): row-major decomposition. With
    /// constant counts the divisions are by immediates: shifts and masks
    /// for powers of two (ptxas calls a subroutine for any 64-bit
    /// division), 32-bit divisions when the whole space fits 32 bits.
    fn set_thread_params(&mut self, t: &ThreadMap, ranges: &[ThreadRange], q: Reg) {
        let counts: Option<Vec<u64>> = ranges.iter().map(|r| r.count.parse::<u64>().ok()).collect();
        let narrow = counts
            .as_ref()
            .and_then(|c| c.iter().try_fold(1u64, |a, &n| a.checked_mul(n)))
            .is_some_and(|total| total <= u32::MAX as u64);
        let rest = if narrow {
            let r = self.reg(Class::B32);
            self.ins(format!("cvt.u32.u64 {r}, {q}"));
            r
        } else {
            let r = self.reg(Class::B64);
            self.mov(r, q);
            r
        };
        let (w, class) = if narrow {
            ("u32", Class::B32)
        } else {
            ("u64", Class::B64)
        };
        for (d, p) in t.params.iter().enumerate().rev() {
            let r = &ranges[d];
            let idx = if d == 0 {
                rest
            } else {
                let quot = self.reg(class);
                let i = self.reg(class);
                match r.count.parse::<u64>().ok().filter(|n| n.is_power_of_two()) {
                    Some(n) => {
                        let bits = if narrow { "b32" } else { "b64" };
                        self.ins(format!("shr.{w} {quot}, {rest}, {}", n.trailing_zeros()));
                        self.ins(format!("and.{bits} {i}, {rest}, {}", n - 1));
                    }
                    None => {
                        self.ins(format!("div.{w} {quot}, {rest}, {}", r.count));
                        self.ins(format!("mul.lo.{w} {i}, {quot}, {}", r.count));
                        self.ins(format!("sub.{w} {i}, {rest}, {i}"));
                    }
                }
                self.mov(rest, quot);
                i
            };
            let idx = if narrow {
                let wide = self.reg(Class::B64);
                self.ins(format!("cvt.u64.u32 {wide}, {idx}"));
                wide
            } else {
                idx
            };
            let v = self.reg(Class::B64);
            self.ins(format!("mad.lo.s64 {v}, {idx}, {}, {}", r.step, r.start));
            let value = if r.ty.bits() == 64 {
                v
            } else {
                let n = self.reg(Class::B32);
                self.ins(format!("cvt.u32.u64 {n}, {v}"));
                n
            };
            if self.locals.len() <= p.local {
                self.locals.resize(p.local + 1, None);
            }
            self.locals[p.local] = Some(value);
        }
    }

    /// The slots of the block reductions of thread map `t`, declared once.
    pub(super) fn reduction_slots(&mut self, t: &ThreadMap, count: usize) -> ReductionSlots {
        let name = format!("{}_red_{}", self.abi.name, t.name.text);
        let bytes = count * ReductionSlots::BYTES_PER_REDUCTION;
        if let Some(cx) = self.block.as_mut() {
            if !cx.decls.contains(&format!(" {name}[")) {
                let _ = writeln!(cx.decls, "\t.shared .align 8 .b8 {name}[{bytes}];");
                cx.data.static_bytes += bytes as u32;
            }
        }
        let base = self.reg(Class::B32);
        self.ins(format!("mov.u32 {base}, {name}"));
        ReductionSlots { base }
    }
}

/// One dimension of a thread map: u64 operands (registers or immediates).
pub(super) struct ThreadRange {
    start: String,
    step: String,
    count: String,
    ty: ScalarType,
}

/// Small straight-line bodies are worth several iterations in flight.
fn is_small_straight_line(body: &[Stmt]) -> bool {
    body.len() <= 8
        && body.iter().all(|s| {
            matches!(
                s,
                Stmt::Let { .. } | Stmt::Store { .. } | Stmt::AssignLocal { .. }
            )
        })
}

/// Whether `e` reads local `l`.
pub(super) fn mentions_local(e: &Expr, l: LocalId) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if matches!(x.kind, ExprKind::Var(VarRef::Local(m)) if m == l) {
            found = true;
        }
    });
    found
}

/// Whether `e` reads no data and none of the locals `inner`.
fn reads_no_data_or(e: &Expr, inner: &HashSet<LocalId>) -> bool {
    let mut ok = true;
    e.walk(&mut |x| match &x.kind {
        ExprKind::Load { .. } => ok = false,
        ExprKind::Var(VarRef::Local(l)) if inner.contains(l) => ok = false,
        _ => {}
    });
    ok
}

/// Visits the subexpressions of `e` that every evaluation evaluates (not
/// the right side of `&&`/`||`, not the branches of a select).
fn visit_unconditional<'e>(e: &'e Expr, f: &mut dyn FnMut(&'e Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Load { index, .. } => index.iter().for_each(|i| visit_unconditional(i, f)),
        ExprKind::Unary { arg, .. } | ExprKind::Cast { arg } => visit_unconditional(arg, f),
        ExprKind::Binary { op, lhs, rhs } => {
            visit_unconditional(lhs, f);
            if !matches!(op, BinOp::And | BinOp::Or) {
                visit_unconditional(rhs, f);
            }
        }
        ExprKind::Select { cond, .. } => visit_unconditional(cond, f),
        ExprKind::Call { args, .. } => args.iter().for_each(|a| visit_unconditional(a, f)),
        ExprKind::Lit(_) | ExprKind::Var(_) => {}
    }
}
