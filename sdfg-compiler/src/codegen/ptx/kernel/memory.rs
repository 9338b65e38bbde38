//! Global memory: addresses (with bounds checks where the host did not
//! prove them), loads and stores; a guarded access that is out of bounds
//! is skipped (a load gives zero) and recorded in the call's fault slot.

use super::fault::record_fault;
use super::regs::{immediate, mem_type, Class, Reg};
use super::KernelEmitter;
use crate::ir::bounds::is_prechecked;
use crate::ir::bounds::split_constant;
use crate::ir::{ContainerId, Expr, ScalarType, Storage, Value, WcrOp};

/// The bounds check of an access the host did not prove in bounds.
#[derive(Clone, Copy)]
pub(super) struct Guard {
    /// Some index is outside its dimension.
    pub(super) oob: Reg,
    /// The row-major offset (.b64, wrapping), for the fault record.
    pub(super) index: Reg,
}

impl<'a> KernelEmitter<'a> {
    /// The byte address of `container[index]` (64-bit offsets) and, when the
    /// access is not prechecked, its guard.
    pub(super) fn address(
        &mut self,
        container: ContainerId,
        index: &'a [Expr],
    ) -> Option<(Reg, Option<Guard>)> {
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
        let split: Vec<(&Expr, i64)> = index
            .iter()
            .enumerate()
            .map(|(d, e)| {
                // Unrolled constants only in the innermost index: a byte
                // offset (in outer ones they would cost a product with the
                // extents per access, and registers).
                if !prechecked {
                    (e, 0)
                } else if d + 1 == index.len() {
                    self.split_index(e)
                } else {
                    split_constant(e)
                }
            })
            .collect();
        let cores: Vec<&Expr> = split.iter().map(|&(e, _)| e).collect();
        let consts: Vec<i64> = split.iter().map(|&(_, c)| c).collect();
        if prechecked && self.narrow_offsets {
            let addr = self.narrow_address(container, &cores, &consts, &extents, size, base);
            return Some((addr, None));
        }
        let next_row = if prechecked {
            self.next_row_core(container, &cores, &extents, size)
        } else {
            None
        };
        let (core, guard) = match next_row {
            Some(core) => (core, None),
            None => {
                let (core, guard) = self.core_address(&cores, &extents, size, base, prechecked);
                if prechecked {
                    self.remember_row_core(container, &cores, core);
                }
                (core, guard)
            }
        };
        if consts.iter().all(|&c| c == 0) {
            return Some((core, guard));
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
        Some((addr, guard))
    }

    /// The byte address of an access's index cores (row-major, by Horner:
    /// `((i0 * E1 + i1) * E2 + i2) * size + base`) and, when the host did
    /// not check them, their bounds guard.
    fn core_address(
        &mut self,
        cores: &[&'a Expr],
        extents: &[Reg],
        size: usize,
        base: Reg,
        prechecked: bool,
    ) -> (Reg, Option<Guard>) {
        let mut wide = Vec::with_capacity(cores.len());
        for core in cores {
            let r = self.expr(core);
            wide.push(self.widen_index(r, core.ty));
        }
        let oob = if prechecked {
            None
        } else {
            let any = self.reg(Class::Pred);
            for (d, (i, ext)) in wide.iter().zip(extents).enumerate() {
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
        (core, oob.map(|oob| Guard { oob, index: lin }))
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

    pub(super) fn site_code(&self, index: &[Expr], is_store: bool) -> u32 {
        self.site_codes
            .get(&(index.as_ptr() as usize, is_store))
            .copied()
            .unwrap_or(u32::MAX)
    }

    /// Records the access `index` guards in the call's fault slot when it
    /// is out of bounds (the call's first fault wins).
    pub(super) fn record_fault(&mut self, guard: Guard, index: &[Expr], is_store: bool) {
        let Some(slot) = self.fault else {
            return;
        };
        let access = self.site_code(index, is_store);
        let (old, won) = (self.reg(Class::B64), self.reg(Class::Pred));
        let words = (slot.site_word.to_string(), slot.index_word.to_string());
        for i in record_fault(
            &guard.oob.to_string(),
            (&words.0, &words.1),
            (self.kernel_index, access),
            &guard.index.to_string(),
            (&old.to_string(), &won.to_string()),
        ) {
            self.ins(i);
        }
    }

    pub(super) fn load(&mut self, e: &'a Expr, container: ContainerId, index: &'a [Expr]) -> Reg {
        if let Some(r) = self.hoisted.get(&(e as *const Expr)) {
            return *r;
        }
        if let Some(r) = self.block_load(container, index) {
            return r;
        }
        let ty = e.ty;
        if let Some(r) = self.host_scalars.get(&container) {
            return *r;
        }
        let Some((addr, checked)) = self.address(container, index) else {
            return self.constant(Value::from_bits(ty, 0));
        };
        let oob = checked.map(|g| g.oob);
        let read_only = self.buffers.get(&container).is_some_and(|b| b.read_only);
        let space = if read_only { "global.nc" } else { "global" };
        let space = format!("{space}{}", self.load_hint);
        let result = self.load_at(ty, addr, &space, oob);
        if let Some(g) = checked {
            self.record_fault(g, index, false);
        }
        result
    }

    /// A `ty` element at `addr` in state space `space` (with its cache
    /// hints: `global.nc.L2::128B`, `shared`, `local`), as the value
    /// registers hold it: a bool from its byte, a 16-bit float widened to
    /// f32, a complex pair from `ld.v2`; zero where `oob` skips the load.
    pub(super) fn load_at(
        &mut self,
        ty: ScalarType,
        addr: Reg,
        space: &str,
        oob: Option<Reg>,
    ) -> Reg {
        let guard = oob.map(|p| format!("@!{p} ")).unwrap_or_default();
        if ty == ScalarType::Bool {
            let byte = self.reg(Class::B16);
            if oob.is_some() {
                self.ins(format!("mov.b16 {byte}, 0"));
            }
            self.ins(format!("{guard}ld.{space}.u8 {byte}, [{addr}]"));
            let r = self.reg(Class::Pred);
            self.ins(format!("setp.ne.u16 {r}, {byte}, 0"));
            r
        } else if ty.is_complex() {
            self.complex_load(ty, addr, space, &guard)
        } else if ty.is_half_float() {
            self.half_load(ty, oob.is_some(), |h| {
                format!("{guard}ld.{space}.b16 {h}, [{addr}]")
            })
        } else {
            let r = self.reg_of(ty);
            if oob.is_some() {
                self.ins(format!(
                    "mov.{} {r}, {}",
                    r.class.mov(),
                    immediate(Value::from_bits(ty, 0))
                ));
            }
            self.ins(format!("{guard}ld.{space}.{} {r}, [{addr}]", mem_type(ty)));
            r
        }
    }

    /// The value `v` (as registers hold it) stored as an `elem` element at
    /// `addr` in state space `space` (with its hints): the counterpart of
    /// [`Self::load_at`].
    pub(super) fn store_at(&mut self, space: &str, addr: Reg, v: Reg, elem: ScalarType) {
        if elem.is_complex() {
            self.complex_store(space, addr, v, elem);
        } else if elem.is_half_float() {
            let h = self.half_bits_of_f32(v, elem);
            self.ins(format!("st.{space}.b16 [{addr}], {h}"));
        } else if elem == ScalarType::Bool {
            let byte = self.reg(Class::B16);
            self.ins(format!("selp.u16 {byte}, 1, 0, {v}"));
            self.ins(format!("st.{space}.u8 [{addr}], {byte}"));
        } else {
            self.ins(format!("st.{space}.{} [{addr}], {v}", mem_type(elem)));
        }
    }

    pub(super) fn store(
        &mut self,
        container: ContainerId,
        index: &'a [Expr],
        value: &'a Expr,
        wcr: Option<WcrOp>,
    ) {
        if self.block.is_some() && self.block_store(container, index, value, wcr) {
            return;
        }
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
        let Some((addr, guard)) = self.address(container, index) else {
            return;
        };
        let skip = self.label();
        if let Some(g) = guard {
            // A guarded store stays behind its guard: the stores held
            // before it go first, in program order.
            if let Some(held) = self.held_stores.as_mut() {
                let held = std::mem::take(held);
                self.code.push_str(&held);
            }
            self.record_fault(g, index, true);
            self.ins(format!("@{} bra {skip}", g.oob));
        }
        match wcr {
            None => {
                let start = self.code.len();
                self.plain_store(addr, v, elem);
                if let (Some(held), None) = (self.held_stores.as_mut(), guard) {
                    // Held whole (a conversion and the store; no labels).
                    held.push_str(&self.code[start..]);
                    self.code.truncate(start);
                }
            }
            Some(op) => self.reduce(addr, v, elem, op),
        }
        self.place(&skip);
    }

    pub(super) fn plain_store(&mut self, addr: Reg, v: Reg, elem: ScalarType) {
        let space = format!("global{}", self.store_hint);
        self.store_at(&space, addr, v, elem);
    }
}
