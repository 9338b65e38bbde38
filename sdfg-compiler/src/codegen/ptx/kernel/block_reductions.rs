//! Block reductions of thread maps (see `ir::block::uniform_reductions`):
//! each thread keeps a partial in a register, each warp combines its 32
//! partials with `shfl.sync.bfly`, lane 0 of each warp writes the warp's
//! value to a per-warp slot in shared memory, the reduction's own barrier,
//! then warp 0 combines the slots and thread 0 updates the target once
//! (one atomic per block for `gpu` data). The order is fixed for a block
//! size, so the result is too. Reductions into shared elements that are not
//! uniform (a histogram) are shared-memory atomics.

use super::regs::{arith, immediate, mem_type, Class, Reg};
use super::KernelEmitter;
use crate::ir::{
    uniform_reductions, ContainerId, Expr, ScalarType, Storage, ThreadMap, Value, WcrOp,
};

/// A block reduction's per-thread partial.
pub(super) struct Partial {
    container: ContainerId,
    key: String,
    op: WcrOp,
    elem: ScalarType,
    value: Reg,
    /// The thread updated it at least once (the first update starts it:
    /// no identity element, so NaN and signed zeros follow the updates).
    touched: Reg,
}

/// The per-warp slots of a thread map's block reductions (shared memory):
/// per reduction 32 values of 8 bytes, then 32 u32 flags.
pub(super) struct ReductionSlots {
    pub(super) base: Reg,
}

impl ReductionSlots {
    pub(super) const BYTES_PER_REDUCTION: usize = 32 * 8 + 32 * 4;
}

impl<'a> KernelEmitter<'a> {
    /// An update of a block reduction's target inside its thread map: the
    /// thread's partial instead (false when `c[index]` is no block
    /// reduction's target here).
    pub(super) fn partial_update(
        &mut self,
        c: ContainerId,
        index: &[Expr],
        value: &'a Expr,
    ) -> bool {
        let elem = self.sdfg.containers[c].elem;
        let key = index_key(index);
        let partial = self.block.as_ref().and_then(|b| {
            b.in_thread_map
                .then(|| {
                    b.partials
                        .iter()
                        .find(|p| p.container == c && p.key == key)
                        .map(|p| (p.op, p.value, p.touched))
                })
                .flatten()
        });
        if let Some((op, partial, touched)) = partial {
            let v = self.expr(value);
            let v = self.convert(v, value.ty, elem);
            let combined = self.combine(op, partial, v, elem);
            let next = self.selp(touched, combined, v);
            self.mov(partial, next);
            let yes = self.constant(Value::Bool(true));
            self.mov(touched, yes);
            return true;
        }
        false
    }

    /// A reduction of a thread-map iteration into a shared element other
    /// iterations may update at the same time.
    pub(super) fn shared_atomic(&mut self, addr: Reg, v: Reg, elem: ScalarType, op: WcrOp) {
        use ScalarType::*;
        let red = match (op, elem) {
            (WcrOp::Sum, I32 | U32 | I64 | U64) => Some(format!("red.shared.add.u{}", elem.bits())),
            (WcrOp::Sum, F32 | F64) => Some(format!("red.shared.add.{}", arith(elem))),
            (WcrOp::Min | WcrOp::Max, I32 | U32 | I64 | U64) => Some(format!(
                "red.shared.{}.{}",
                if op == WcrOp::Min { "min" } else { "max" },
                arith(elem)
            )),
            _ => None,
        };
        if let Some(red) = red {
            self.ins(format!("{red} [{addr}], {v}"));
            return;
        }
        if elem == Bool {
            // Rejected by validation; keep the kernel total.
            self.store_at("shared", addr, v, elem);
            return;
        }
        self.cas_loop("shared", addr, v, elem, op);
    }

    /// Starts a partial for each block reduction of a thread map.
    pub(super) fn start_block_reductions(
        &mut self,
        reductions: &[crate::ir::UniformReduction<'a>],
    ) {
        let mut partials = Vec::new();
        for r in reductions {
            let elem = self.sdfg.containers[r.container].elem;
            self.comment(&format!(
                "per-thread partial of the {} into `{}`",
                r.op.name(),
                self.sdfg.containers[r.container].name.text
            ));
            let zero = self.constant(Value::from_bits(elem, 0));
            let value = self.reg_of(elem);
            self.mov(value, zero);
            let no = self.constant(Value::Bool(false));
            let touched = self.reg(Class::Pred);
            self.mov(touched, no);
            partials.push(Partial {
                container: r.container,
                key: index_key(r.index),
                op: r.op,
                elem,
                value,
                touched,
            });
        }
        if let Some(cx) = self.block.as_mut() {
            cx.partials = partials;
        }
    }

    /// After a thread map: each warp combines its threads' partials
    /// (`shfl.sync.bfly`), lane 0 of each warp writes the warp's result to
    /// its slot, the reduction's barrier, then warp 0 combines the slots and
    /// thread 0 updates the target (one atomic per block for `gpu` data).
    /// A block of one warp skips the slots and the barrier. The order is
    /// fixed for a block size, so the result is too.
    pub(super) fn finish_block_reductions(&mut self, t: &'a ThreadMap) {
        let reductions = uniform_reductions(t, &self.sdfg.containers);
        let Some(cx) = self.block.as_mut() else {
            return;
        };
        let partials = std::mem::take(&mut cx.partials);
        let (tid, thread0) = (cx.tid, cx.thread0);
        if partials.is_empty() {
            return;
        }
        for p in &partials {
            self.warp_butterfly(p.op, p.value, p.touched, p.elem);
        }
        if self.map.block.as_ref().is_some_and(|b| b.single_warp()) {
            // One warp: every lane holds the block's value already (the
            // slots' stage would combine it with nothing).
            for (p, r) in partials.iter().zip(&reductions) {
                let skip = self.label();
                let apply = self.reg(Class::Pred);
                self.ins(format!("and.pred {apply}, {thread0}, {}", p.touched));
                self.ins(format!("@!{apply} bra {skip}"));
                self.update_target(r, p.value);
                self.place(&skip);
            }
            return;
        }
        let slots = self.reduction_slots(t, partials.len());
        let lane = self.reg(Class::B32);
        self.ins(format!("and.b32 {lane}, {tid}, 31"));
        let warp = self.reg(Class::B32);
        self.ins(format!("shr.u32 {warp}, {tid}, 5"));
        let lane0 = self.reg(Class::Pred);
        self.ins(format!("setp.eq.u32 {lane0}, {lane}, 0"));
        let skip = self.label();
        self.ins(format!("@!{lane0} bra {skip}"));
        for (j, p) in partials.iter().enumerate() {
            let (value_at, flag_at) = self.slot_addresses(&slots, j, warp);
            self.slot_store(value_at, p.value, p.elem);
            let flag = self.reg(Class::B32);
            self.ins(format!("selp.u32 {flag}, 1, 0, {}", p.touched));
            self.ins(format!("st.shared.u32 [{flag_at}], {flag}"));
        }
        self.place(&skip);
        self.barrier("the block reduction's own: the warps' slots are written");
        let warp0 = self.reg(Class::Pred);
        self.ins(format!("setp.lt.u32 {warp0}, {tid}, 32"));
        let done = self.label();
        self.ins(format!("@!{warp0} bra {done}"));
        let warps = self.reg(Class::B32);
        self.ins(format!("mov.u32 {warps}, %ntid.x"));
        self.ins(format!("shr.u32 {warps}, {warps}, 5"));
        let present = self.reg(Class::Pred);
        self.ins(format!("setp.lt.u32 {present}, {lane}, {warps}"));
        for (j, (p, r)) in partials.iter().zip(&reductions).enumerate() {
            let (value_at, flag_at) = self.slot_addresses(&slots, j, lane);
            let v = self.reg_of(p.elem);
            let zero = immediate(Value::from_bits(p.elem, 0));
            self.ins(format!("mov.{} {v}, {zero}", v.class.mov()));
            self.slot_load(v, value_at, p.elem, present);
            let flag = self.reg(Class::B32);
            self.ins(format!("mov.u32 {flag}, 0"));
            self.ins(format!("@{present} ld.shared.u32 {flag}, [{flag_at}]"));
            let touched = self.reg(Class::Pred);
            self.ins(format!("setp.ne.u32 {touched}, {flag}, 0"));
            self.warp_butterfly(p.op, v, touched, p.elem);
            let skip = self.label();
            let apply = self.reg(Class::Pred);
            self.ins(format!("and.pred {apply}, {thread0}, {touched}"));
            self.ins(format!("@!{apply} bra {skip}"));
            self.update_target(r, v);
            self.place(&skip);
        }
        self.place(&done);
    }

    /// Thread 0's update of a block reduction's target with the block's value.
    fn update_target(&mut self, r: &crate::ir::UniformReduction<'a>, v: Reg) {
        let elem = self.sdfg.containers[r.container].elem;
        match self.sdfg.containers[r.container].storage {
            Storage::Shared => {
                if let Some((addr, oob)) = self.shared_address(r.container, r.index) {
                    let skip = self.label();
                    if let Some(g) = oob {
                        self.record_fault(g, r.index, true);
                        self.ins(format!("@{} bra {skip}", g.oob));
                    }
                    let old = self.space_load("shared", addr, None, elem, r.index);
                    let new = self.combine(r.op, old, v, elem);
                    self.store_at("shared", addr, new, elem);
                    self.place(&skip);
                }
            }
            _ => {
                // One atomic per block: other blocks update it too.
                if let Some((addr, oob)) = self.address(r.container, r.index) {
                    let skip = self.label();
                    if let Some(g) = oob {
                        self.record_fault(g, r.index, true);
                        self.ins(format!("@{} bra {skip}", g.oob));
                    }
                    self.reduce(addr, v, elem, r.op);
                    self.place(&skip);
                }
            }
        }
    }

    fn slot_addresses(&mut self, slots: &ReductionSlots, j: usize, i: Reg) -> (Reg, Reg) {
        let base = j * ReductionSlots::BYTES_PER_REDUCTION;
        let value_at = self.reg(Class::B32);
        self.ins(format!("mad.lo.u32 {value_at}, {i}, 8, {}", slots.base));
        self.ins(format!("add.u32 {value_at}, {value_at}, {base}"));
        let flag_at = self.reg(Class::B32);
        self.ins(format!("mad.lo.u32 {flag_at}, {i}, 4, {}", slots.base));
        self.ins(format!("add.u32 {flag_at}, {flag_at}, {}", base + 32 * 8));
        (value_at, flag_at)
    }

    /// The type a partial is kept in a warp's slot: a 16-bit float as the
    /// f32 its register holds (the slot has room; storing its bits as 16
    /// would keep the low half of the f32's).
    fn slot_type(elem: ScalarType) -> ScalarType {
        if elem.is_half_float() {
            ScalarType::F32
        } else {
            elem
        }
    }

    fn slot_store(&mut self, addr: Reg, v: Reg, elem: ScalarType) {
        let elem = Self::slot_type(elem);
        if elem == ScalarType::Bool {
            let w = self.reg(Class::B32);
            self.ins(format!("selp.u32 {w}, 1, 0, {v}"));
            self.ins(format!("st.shared.u32 [{addr}], {w}"));
        } else {
            self.ins(format!("st.shared.{} [{addr}], {v}", mem_type(elem)));
        }
    }

    fn slot_load(&mut self, v: Reg, addr: Reg, elem: ScalarType, present: Reg) {
        let elem = Self::slot_type(elem);
        if elem == ScalarType::Bool {
            let w = self.reg(Class::B32);
            self.ins(format!("mov.u32 {w}, 0"));
            self.ins(format!("@{present} ld.shared.u32 {w}, [{addr}]"));
            self.ins(format!("setp.ne.u32 {v}, {w}, 0"));
        } else {
            self.ins(format!(
                "@{present} ld.shared.{} {v}, [{addr}]",
                mem_type(elem)
            ));
        }
    }

    /// Combines the values of the 32 lanes of a warp (`shfl.sync.bfly`,
    /// offsets 16, 8, 4, 2, 1): afterwards every lane holds the warp's
    /// result. Lanes without updates (`touched` false) contribute nothing.
    /// Every thread of the block runs this (whole warps, full mask).
    fn warp_butterfly(&mut self, op: WcrOp, value: Reg, touched: Reg, elem: ScalarType) {
        self.comment("warp butterfly of the partials");
        let flag = self.reg(Class::B32);
        self.ins(format!("selp.b32 {flag}, 1, 0, {touched}"));
        for offset in [16, 8, 4, 2, 1] {
            let other = self.reg_of(elem);
            match elem.bits() {
                64 => {
                    let (lo, hi) = (self.reg(Class::B32), self.reg(Class::B32));
                    let (olo, ohi) = (self.reg(Class::B32), self.reg(Class::B32));
                    self.ins(format!("mov.b64 {{{lo}, {hi}}}, {value}"));
                    self.ins(format!(
                        "shfl.sync.bfly.b32 {olo}, {lo}, {offset}, 31, 0xffffffff"
                    ));
                    self.ins(format!(
                        "shfl.sync.bfly.b32 {ohi}, {hi}, {offset}, 31, 0xffffffff"
                    ));
                    self.ins(format!("mov.b64 {other}, {{{olo}, {ohi}}}"));
                }
                1 => {
                    let w = self.reg(Class::B32);
                    self.ins(format!("selp.u32 {w}, 1, 0, {value}"));
                    let o = self.reg(Class::B32);
                    self.ins(format!(
                        "shfl.sync.bfly.b32 {o}, {w}, {offset}, 31, 0xffffffff"
                    ));
                    self.ins(format!("setp.ne.u32 {other}, {o}, 0"));
                }
                _ => self.ins(format!(
                    "shfl.sync.bfly.b32 {other}, {value}, {offset}, 31, 0xffffffff"
                )),
            }
            let other_flag = self.reg(Class::B32);
            self.ins(format!(
                "shfl.sync.bfly.b32 {other_flag}, {flag}, {offset}, 31, 0xffffffff"
            ));
            let use_other = self.reg(Class::Pred);
            self.ins(format!("setp.ne.u32 {use_other}, {other_flag}, 0"));
            let combined = self.combine(op, value, other, elem);
            let merged = self.selp(touched, combined, other);
            let next = self.selp(use_other, merged, value);
            self.mov(value, next);
            self.ins(format!("or.pred {touched}, {touched}, {use_other}"));
            self.ins(format!("selp.b32 {flag}, 1, 0, {touched}"));
        }
    }
}

/// The identity of an element across the accesses of a thread map.
fn index_key(index: &[Expr]) -> String {
    index.iter().map(Expr::key).collect::<Vec<_>>().join(",")
}
