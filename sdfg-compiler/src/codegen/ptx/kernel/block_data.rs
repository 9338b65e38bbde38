//! The data of a block map: `shared` arrays (static `.shared` variables, or
//! the module's dynamic shared memory when a shape uses symbols),
//! `register` data (one PTX register per element when every index is a
//! constant after unrolling, `.local` memory otherwise), and the block
//! reductions of thread maps (per-thread partials, a warp butterfly,
//! per-warp slots in shared memory, the reduction's own barrier, and one
//! update of the target by thread 0).

use super::regs::{arith, bits_suffix, immediate, mem_type, Class, Reg};
use super::KernelEmitter;
use crate::ir::bounds::is_prechecked;
use crate::ir::linear::{constant_value, Leaf, Linear};
use crate::ir::{
    uniform_reductions, ContainerId, Expr, ExprKind, LocalId, ScalarType, Stmt, Storage, ThreadMap,
    Value, VarRef, WcrOp,
};
use std::collections::HashMap;
use std::fmt::Write;

/// The name of the module's dynamic shared memory (`.extern .shared`).
pub(crate) const DYNAMIC_SHARED: &str = "__sdfg_dynamic_shared";

/// The block data of a kernel.
#[derive(Default)]
pub(super) struct BlockData {
    shared: HashMap<ContainerId, SharedArray>,
    registers: HashMap<ContainerId, RegisterArray>,
    /// Bytes of the static `.shared` declarations.
    pub(super) static_bytes: u32,
    /// Shared containers in dynamic shared memory, in layout order.
    pub(super) dynamic: Vec<ContainerId>,
}

struct SharedArray {
    /// Shared-window address (32 bits).
    base: Reg,
    extents: Vec<Extent>,
}

/// A dimension: its value when constant, and as a u64 register.
#[derive(Clone, Copy)]
struct Extent {
    constant: Option<u64>,
    wide: Reg,
}

enum RegisterArray {
    /// Every index a compile-time constant: one register per element
    /// (created at its first use).
    Regs {
        extents: Vec<u64>,
        elems: HashMap<u64, Reg>,
    },
    /// `.local` memory of the thread.
    Local { base: Reg, extents: Vec<u64> },
}

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
    /// Declares and addresses the block map's shared and register data.
    pub(super) fn setup_block_data(&mut self) {
        let Some(block) = self.map.block.as_ref() else {
            return;
        };
        let sdfg: &'a crate::ir::Sdfg = self.sdfg;
        let entry = self.abi.name.clone();
        let mut dynamic_offset: Option<Reg> = None;
        for &c in &block.data {
            let container = &sdfg.containers[c];
            let size = container.elem.size_bytes() as u64;
            let constants: Option<Vec<u64>> = container
                .shape
                .iter()
                .map(|d| constant_value(d).and_then(|v| u64::try_from(v).ok()))
                .collect();
            match container.storage {
                Storage::Shared => {
                    let mut extents = Vec::new();
                    for (k, d) in container.shape.iter().enumerate() {
                        let wide = self.reg(Class::B64);
                        match constants.as_ref().map(|v| v[k]) {
                            Some(v) => self.ins(format!("mov.u64 {wide}, {v}")),
                            None => {
                                let r = self.expr(d);
                                let r = self.convert(r, d.ty, ScalarType::U64);
                                self.mov(wide, r);
                            }
                        }
                        extents.push(Extent {
                            constant: constants.as_ref().map(|v| v[k]),
                            wide,
                        });
                    }
                    let base = self.reg(Class::B32);
                    match &constants {
                        Some(dims) => {
                            let bytes = (dims.iter().product::<u64>() * size).max(1);
                            let name = format!("{entry}_sh_{}", container.name.text);
                            if let Some(cx) = self.block.as_mut() {
                                let _ =
                                    writeln!(cx.decls, "\t.shared .align 16 .b8 {name}[{bytes}];");
                                cx.data.static_bytes += bytes as u32;
                            }
                            self.ins(format!("mov.u32 {base}, {name}"));
                        }
                        None => {
                            // Dynamic shared memory: the containers in
                            // declaration order, each 16-byte aligned (the
                            // glue passes the same total at the launch).
                            let off = match dynamic_offset {
                                Some(r) => r,
                                None => {
                                    let r = self.reg(Class::B32);
                                    self.ins(format!("mov.u32 {r}, 0"));
                                    dynamic_offset = Some(r);
                                    r
                                }
                            };
                            self.ins(format!("mov.u32 {base}, {DYNAMIC_SHARED}"));
                            self.ins(format!("add.u32 {base}, {base}, {off}"));
                            let bytes = self.reg(Class::B64);
                            self.ins(format!("mov.u64 {bytes}, {size}"));
                            for e in &extents {
                                self.ins(format!("mul.lo.u64 {bytes}, {bytes}, {}", e.wide));
                            }
                            self.ins(format!("add.u64 {bytes}, {bytes}, 15"));
                            self.ins(format!("and.b64 {bytes}, {bytes}, 0xFFFFFFFFFFFFFFF0"));
                            let b32 = self.reg(Class::B32);
                            self.ins(format!("cvt.u32.u64 {b32}, {bytes}"));
                            self.ins(format!("add.u32 {off}, {off}, {b32}"));
                            if let Some(cx) = self.block.as_mut() {
                                cx.data.dynamic.push(c);
                            }
                        }
                    }
                    if let Some(cx) = self.block.as_mut() {
                        cx.data.shared.insert(c, SharedArray { base, extents });
                    }
                }
                Storage::Register => {
                    // Validation requires constant shapes for register data.
                    let extents = constants.unwrap_or_default();
                    let array = if self.register_indices_constant(c) {
                        RegisterArray::Regs {
                            extents,
                            elems: HashMap::new(),
                        }
                    } else {
                        let bytes = (extents.iter().product::<u64>() * size).max(1);
                        let name = format!("{entry}_rg_{}", container.name.text);
                        if let Some(cx) = self.block.as_mut() {
                            let _ = writeln!(cx.decls, "\t.local .align 16 .b8 {name}[{bytes}];");
                        }
                        let base = self.reg(Class::B64);
                        self.ins(format!("mov.u64 {base}, {name}"));
                        RegisterArray::Local { base, extents }
                    };
                    if let Some(cx) = self.block.as_mut() {
                        cx.data.registers.insert(c, array);
                    }
                }
                _ => {}
            }
        }
    }

    /// Whether every access of register container `c` has indices that are
    /// constants once the planned loops are unrolled.
    fn register_indices_constant(&self, c: ContainerId) -> bool {
        let Some(cx) = self.block.as_ref() else {
            return false;
        };
        let constant = |index: &[Expr]| {
            index.iter().all(|e| {
                Linear::<()>::from_expr(e, &mut |x: &Expr| match &x.kind {
                    ExprKind::Var(VarRef::Local(l)) if cx.unroll.contains(l) => {
                        Leaf::Form(Linear::constant(0))
                    }
                    ExprKind::Var(_) | ExprKind::Load { .. } | ExprKind::Call { .. } => {
                        Leaf::NotLinear
                    }
                    _ => Leaf::Descend,
                })
                .is_some_and(|f| f.as_constant().is_some())
            })
        };
        let mut ok = true;
        for s in &self.map.body.stmts {
            s.walk(&mut |x| {
                if let Stmt::Store {
                    container, index, ..
                } = x
                {
                    if *container == c && !constant(index) {
                        ok = false;
                    }
                }
            });
            s.walk_exprs(&mut |e| {
                if let ExprKind::Load { container, index } = &e.kind {
                    if *container == c && !constant(index) {
                        ok = false;
                    }
                }
            });
        }
        ok
    }

    /// The value of a compile-time-constant index (unrolled loop variables
    /// at their current values).
    fn constant_index(&self, e: &Expr) -> Option<i64> {
        let cx = self.block.as_ref()?;
        Linear::<()>::from_expr(e, &mut |x: &Expr| match &x.kind {
            ExprKind::Var(VarRef::Local(l)) => match cx.unrolled.get(l) {
                Some(v) => Leaf::Form(Linear::constant(*v as i128)),
                None => Leaf::NotLinear,
            },
            ExprKind::Var(_) | ExprKind::Load { .. } | ExprKind::Call { .. } => Leaf::NotLinear,
            _ => Leaf::Descend,
        })?
        .as_constant()
        .and_then(|v| i64::try_from(v).ok())
    }

    fn is_block_data(&self, c: ContainerId) -> bool {
        self.block.is_some() && self.sdfg.containers[c].storage.is_block_local()
    }

    /// A load of block data (None: not block data).
    pub(super) fn block_load(&mut self, c: ContainerId, index: &'a [Expr]) -> Option<Reg> {
        if !self.is_block_data(c) {
            return None;
        }
        let elem = self.sdfg.containers[c].elem;
        match self.sdfg.containers[c].storage {
            Storage::Shared => {
                let (addr, oob) = self.shared_address(c, index)?;
                Some(self.space_load("shared", addr, oob, elem, index))
            }
            _ => match self.register_slot(c, index)? {
                Slot::Reg(r) => Some(r),
                Slot::Local(addr, oob) => Some(self.space_load("local", addr, oob, elem, index)),
                Slot::Outside => {
                    self.fault_always(index, false);
                    Some(self.constant(Value::from_bits(elem, 0)))
                }
            },
        }
    }

    /// A store to block data, or an update of a block reduction's partial;
    /// false when neither (the caller stores to global data).
    pub(super) fn block_store(
        &mut self,
        c: ContainerId,
        index: &'a [Expr],
        value: &'a Expr,
        wcr: Option<WcrOp>,
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
        if !self.is_block_data(c) {
            return false;
        }
        // Rust evaluates the right side of an assignment first.
        let v = self.expr(value);
        let v = self.convert(v, value.ty, elem);
        match self.sdfg.containers[c].storage {
            Storage::Shared => {
                let Some((addr, oob)) = self.shared_address(c, index) else {
                    return true;
                };
                let skip = self.label();
                if let Some(p) = oob {
                    self.fault_if(p, index, true);
                    self.ins(format!("@{p} bra {skip}"));
                }
                match wcr {
                    None => self.space_store("shared", addr, v, elem),
                    // Iterations of a thread map run concurrently: atomics.
                    Some(op) if !self.block_level() => self.shared_atomic(addr, v, elem, op),
                    // A block-level store: thread 0 alone.
                    Some(op) => {
                        let old = self.space_load("shared", addr, None, elem, index);
                        let new = self.combine(op, old, v, elem);
                        self.space_store("shared", addr, new, elem);
                    }
                }
                self.place(&skip);
            }
            _ => match self.register_slot(c, index) {
                Some(Slot::Reg(r)) => {
                    let new = match wcr {
                        Some(op) => self.combine(op, r, v, elem),
                        None => v,
                    };
                    self.mov(r, new);
                }
                Some(Slot::Local(addr, oob)) => {
                    let skip = self.label();
                    if let Some(p) = oob {
                        self.fault_if(p, index, true);
                        self.ins(format!("@{p} bra {skip}"));
                    }
                    let new = match wcr {
                        Some(op) => {
                            let old = self.space_load("local", addr, None, elem, index);
                            self.combine(op, old, v, elem)
                        }
                        None => v,
                    };
                    self.space_store("local", addr, new, elem);
                    self.place(&skip);
                }
                Some(Slot::Outside) => self.fault_always(index, true),
                None => {}
            },
        }
        true
    }

    /// The shared-window address of `c[index]` and, unless the host checked
    /// the access, the predicate "out of bounds".
    fn shared_address(&mut self, c: ContainerId, index: &'a [Expr]) -> Option<(Reg, Option<Reg>)> {
        let (base, extents) = {
            let a = self.block.as_ref()?.data.shared.get(&c)?;
            (a.base, a.extents.clone())
        };
        if index.is_empty() {
            return Some((base, None));
        }
        if extents.len() != index.len() {
            return None;
        }
        let size = self.sdfg.containers[c].elem.size_bytes();
        let prechecked = is_prechecked(index, self.conditional, &self.loops);
        let mut narrow = Vec::new();
        let mut oob = None;
        for (d, e) in index.iter().enumerate() {
            let r = self.expr(e);
            if !prechecked {
                let w = self.widen(r, e.ty);
                let p = self.reg(Class::Pred);
                self.ins(format!("setp.ge.u64 {p}, {w}, {}", extents[d].wide));
                oob = Some(match oob {
                    None => p,
                    Some(q) => {
                        self.ins(format!("or.pred {p}, {p}, {q}"));
                        p
                    }
                });
            }
            narrow.push(self.narrow(r, e.ty));
        }
        // Row-major offset in 32 bits (shared memory is smaller than 4 GiB,
        // so in-bounds offsets are exact).
        let lin = self.reg(Class::B32);
        self.mov(lin, narrow[0]);
        for d in 1..narrow.len() {
            let ext = match extents[d].constant {
                Some(v) => v.to_string(),
                None => {
                    let r = self.reg(Class::B32);
                    self.ins(format!("cvt.u32.u64 {r}, {}", extents[d].wide));
                    r.to_string()
                }
            };
            self.ins(format!("mad.lo.u32 {lin}, {lin}, {ext}, {}", narrow[d]));
        }
        let addr = self.reg(Class::B32);
        self.ins(format!("mad.lo.u32 {addr}, {lin}, {size}, {base}"));
        Some((addr, oob))
    }

    fn widen(&mut self, r: Reg, ty: ScalarType) -> Reg {
        match ty {
            ScalarType::I64 | ScalarType::U64 => r,
            t => self.convert(
                r,
                t,
                if t.is_signed_integer() {
                    ScalarType::I64
                } else {
                    ScalarType::U64
                },
            ),
        }
    }

    fn narrow(&mut self, r: Reg, ty: ScalarType) -> Reg {
        if ty.bits() == 64 {
            let n = self.reg(Class::B32);
            self.ins(format!("cvt.u32.u64 {n}, {r}"));
            n
        } else {
            r
        }
    }

    /// Where element `index` of register data `c` lives.
    fn register_slot(&mut self, c: ContainerId, index: &'a [Expr]) -> Option<Slot> {
        let constant: Option<Vec<i64>> = index.iter().map(|e| self.constant_index(e)).collect();
        let elem = self.sdfg.containers[c].elem;
        let size = elem.size_bytes() as u64;
        let is_regs = matches!(
            self.block.as_ref()?.data.registers.get(&c)?,
            RegisterArray::Regs { .. }
        );
        if is_regs {
            let flat = {
                let Some(RegisterArray::Regs { extents, .. }) =
                    self.block.as_ref()?.data.registers.get(&c)
                else {
                    return None;
                };
                flat_offset(constant.as_deref()?, extents)
            };
            let Some(flat) = flat else {
                return Some(Slot::Outside);
            };
            if let Some(r) = self.block_register(c, flat) {
                return Some(Slot::Reg(r));
            }
            let r = self.reg_of(elem);
            if let Some(RegisterArray::Regs { elems, .. }) =
                self.block.as_mut()?.data.registers.get_mut(&c)
            {
                elems.insert(flat, r);
            }
            return Some(Slot::Reg(r));
        }
        let (base, extents) = match self.block.as_ref()?.data.registers.get(&c)? {
            RegisterArray::Local { base, extents } => (*base, extents.clone()),
            RegisterArray::Regs { .. } => return None,
        };
        if let Some(k) = &constant {
            return Some(match flat_offset(k, &extents) {
                Some(flat) => {
                    let addr = self.reg(Class::B64);
                    self.ins(format!("add.u64 {addr}, {base}, {}", flat * size));
                    Slot::Local(addr, None)
                }
                None => Slot::Outside,
            });
        }
        // A computed index: checked here unless the host checked it.
        let prechecked = is_prechecked(index, self.conditional, &self.loops);
        let mut wide = Vec::new();
        let mut oob = None;
        for (d, e) in index.iter().enumerate() {
            let r = self.expr(e);
            let w = self.widen(r, e.ty);
            if !prechecked {
                let p = self.reg(Class::Pred);
                self.ins(format!("setp.ge.u64 {p}, {w}, {}", extents[d]));
                oob = Some(match oob {
                    None => p,
                    Some(q) => {
                        self.ins(format!("or.pred {p}, {p}, {q}"));
                        p
                    }
                });
            }
            wide.push(w);
        }
        let lin = self.reg(Class::B64);
        self.mov(lin, wide[0]);
        for d in 1..wide.len() {
            self.ins(format!(
                "mad.lo.u64 {lin}, {lin}, {}, {}",
                extents[d], wide[d]
            ));
        }
        let addr = self.reg(Class::B64);
        self.ins(format!("mad.lo.u64 {addr}, {lin}, {size}, {base}"));
        Some(Slot::Local(addr, oob))
    }

    fn block_register(&self, c: ContainerId, flat: u64) -> Option<Reg> {
        match self.block.as_ref()?.data.registers.get(&c)? {
            RegisterArray::Regs { elems, .. } => elems.get(&flat).copied(),
            RegisterArray::Local { .. } => None,
        }
    }

    /// `ld.<space>` of one element (zero when `oob` holds).
    fn space_load(
        &mut self,
        space: &str,
        addr: Reg,
        oob: Option<Reg>,
        elem: ScalarType,
        index: &'a [Expr],
    ) -> Reg {
        let guard = oob.map(|p| format!("@!{p} ")).unwrap_or_default();
        let r = if elem == ScalarType::Bool {
            let byte = self.reg(Class::B16);
            if oob.is_some() {
                self.ins(format!("mov.b16 {byte}, 0"));
            }
            self.ins(format!("{guard}ld.{space}.u8 {byte}, [{addr}]"));
            let r = self.reg(Class::Pred);
            self.ins(format!("setp.ne.u16 {r}, {byte}, 0"));
            r
        } else {
            let r = self.reg_of(elem);
            if oob.is_some() {
                self.ins(format!(
                    "mov.{} {r}, {}",
                    r.class.mov(),
                    immediate(Value::from_bits(elem, 0))
                ));
            }
            self.ins(format!(
                "{guard}ld.{space}.{} {r}, [{addr}]",
                mem_type(elem)
            ));
            r
        };
        if let Some(p) = oob {
            self.fault_if(p, index, false);
        }
        r
    }

    fn space_store(&mut self, space: &str, addr: Reg, v: Reg, elem: ScalarType) {
        if elem == ScalarType::Bool {
            let byte = self.reg(Class::B16);
            self.ins(format!("selp.u16 {byte}, 1, 0, {v}"));
            self.ins(format!("st.{space}.u8 [{addr}], {byte}"));
        } else {
            self.ins(format!("st.{space}.{} [{addr}], {v}", mem_type(elem)));
        }
    }

    /// A reduction of a thread-map iteration into a shared element other
    /// iterations may update at the same time.
    fn shared_atomic(&mut self, addr: Reg, v: Reg, elem: ScalarType, op: WcrOp) {
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
            self.space_store("shared", addr, v, elem);
            return;
        }
        self.comment(&format!(
            "shared {} on {elem}: compare-and-swap loop",
            op.name()
        ));
        let bclass = if elem.bits() == 64 {
            Class::B64
        } else {
            Class::B32
        };
        let b = bits_suffix(elem);
        let expected = self.reg(bclass);
        self.ins(format!("ld.shared.{b} {expected}, [{addr}]"));
        let head = self.label();
        self.place(&head);
        let old = if elem.is_float() {
            let f = self.reg_of(elem);
            self.ins(format!("mov.{b} {f}, {expected}"));
            f
        } else {
            expected
        };
        let new = self.combine(op, old, v, elem);
        let new_bits = if elem.is_float() {
            let r = self.reg(bclass);
            self.ins(format!("mov.{b} {r}, {new}"));
            r
        } else {
            new
        };
        let got = self.reg(bclass);
        self.ins(format!(
            "atom.shared.cas.{b} {got}, [{addr}], {expected}, {new_bits}"
        ));
        let p = self.reg(Class::Pred);
        self.ins(format!("setp.eq.{b} {p}, {got}, {expected}"));
        self.mov(expected, got);
        self.ins(format!("@!{p} bra {head}"));
    }

    /// `for i in a..b { R[.., i] = S[.., c + i]; }` unrolled, with `R`
    /// register data in registers and `S` shared data whose elements are
    /// consecutive in `i` and 16-byte aligned at every group of lanes: one
    /// `ld.shared.v4` (or `.v2` for 8-byte elements) per group instead of
    /// one load per element. False (nothing emitted) when the loop is not
    /// of that form.
    pub(super) fn vector_register_copy(
        &mut self,
        var: LocalId,
        a: i64,
        b: i64,
        body: &'a [Stmt],
    ) -> bool {
        let [Stmt::Store {
            container: r,
            index: ridx,
            value,
            wcr: None,
            ..
        }] = body
        else {
            return false;
        };
        let ExprKind::Load {
            container: sc,
            index: sidx,
        } = &value.kind
        else {
            return false;
        };
        let (r, sc) = (*r, *sc);
        let elem = self.sdfg.containers[r].elem;
        let shared = &self.sdfg.containers[sc];
        let in_regs = self
            .block
            .as_ref()
            .and_then(|cx| cx.data.registers.get(&r))
            .is_some_and(|d| matches!(d, RegisterArray::Regs { .. }));
        let lanes = match elem.size_bytes() {
            4 => 4,
            8 => 2,
            _ => return false,
        };
        if !in_regs
            || shared.storage != Storage::Shared
            || shared.elem != elem
            || value.ty != elem
            || (b - a) <= 0
            || (b - a) % lanes != 0
            || !is_prechecked(sidx, self.conditional, &self.loops)
        {
            return false;
        }
        // The flat offset of S's element, linear in the loop variable with
        // coefficient 1, every other term a multiple of the lanes.
        let Some(strides) = constant_strides(&shared.shape) else {
            return false;
        };
        // Variables as ordered keys: (0, local), (1, parameter), (2, symbol).
        let key = |v: VarRef| match v {
            VarRef::Local(l) => (0u8, l),
            VarRef::Param(p) => (1, p),
            VarRef::Symbol(s) => (2, s),
        };
        let mut flat: Linear<(u8, usize)> = Linear::constant(0);
        for (e, stride) in sidx.iter().zip(&strides) {
            let Some(f) = Linear::from_expr(e, &mut |x: &Expr| match &x.kind {
                ExprKind::Var(v) => Leaf::Form(Linear::var(key(*v))),
                ExprKind::Load { .. } | ExprKind::Call { .. } | ExprKind::Select { .. } => {
                    Leaf::NotLinear
                }
                _ => Leaf::Descend,
            }) else {
                return false;
            };
            let Some(next) = f
                .scale(*stride as i128)
                .and_then(|f| flat.clone().add(&f, 1))
            else {
                return false;
            };
            flat = next;
        }
        let lanes128 = lanes as i128;
        let aligned = flat.terms.get(&(0, var)) == Some(&1)
            && flat
                .terms
                .iter()
                .all(|(v, k)| *v == (0, var) || k % lanes128 == 0)
            && (flat.constant + a as i128) % lanes128 == 0;
        if !aligned {
            return false;
        }
        // The registers of each group, distinct.
        let mut groups = Vec::new();
        for first in (a..b).step_by(lanes as usize) {
            let mut regs = Vec::new();
            for k in 0..lanes {
                if let Some(cx) = self.block.as_mut() {
                    cx.unrolled.insert(var, first + k);
                }
                match self.register_slot(r, ridx) {
                    Some(Slot::Reg(reg)) if !regs.contains(&reg) => regs.push(reg),
                    _ => return false,
                }
            }
            groups.push((first, regs));
        }
        let t = mem_type(elem);
        for (first, regs) in groups {
            if let Some(cx) = self.block.as_mut() {
                cx.unrolled.insert(var, first);
            }
            let Some((addr, _)) = self.shared_address(sc, sidx) else {
                return false;
            };
            let list: Vec<String> = regs.iter().map(|r| r.to_string()).collect();
            self.ins(format!(
                "ld.shared.v{lanes}.{t} {{{}}}, [{addr}]",
                list.join(", ")
            ));
        }
        if let Some(cx) = self.block.as_mut() {
            cx.unrolled.remove(&var);
        }
        true
    }

    /// Records the fault of access `index` when `p` holds.
    fn fault_if(&mut self, p: Reg, index: &[Expr], is_store: bool) {
        let code = self.site_code(index, is_store);
        if let Some(f) = self.fault {
            let old = self.reg(Class::B32);
            self.ins(format!("@{p} atom.cas.b32 {old}, [{f}], 0, {code}"));
        }
    }

    /// An access outside register data with constant indices.
    fn fault_always(&mut self, index: &[Expr], is_store: bool) {
        let p = self.constant(Value::Bool(true));
        self.fault_if(p, index, is_store);
    }

    // ---------------------------------------------------------------- reductions

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
    /// The order is fixed for a block size, so the result is too.
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
                    if let Some(p) = oob {
                        self.fault_if(p, r.index, true);
                        self.ins(format!("@{p} bra {skip}"));
                    }
                    let old = self.space_load("shared", addr, None, elem, r.index);
                    let new = self.combine(r.op, old, v, elem);
                    self.space_store("shared", addr, new, elem);
                    self.place(&skip);
                }
            }
            _ => {
                // One atomic per block: other blocks update it too.
                if let Some((addr, oob)) = self.address(r.container, r.index) {
                    let skip = self.label();
                    if let Some(p) = oob {
                        self.fault_if(p, r.index, true);
                        self.ins(format!("@{p} bra {skip}"));
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

    fn slot_store(&mut self, addr: Reg, v: Reg, elem: ScalarType) {
        if elem == ScalarType::Bool {
            let w = self.reg(Class::B32);
            self.ins(format!("selp.u32 {w}, 1, 0, {v}"));
            self.ins(format!("st.shared.u32 [{addr}], {w}"));
        } else {
            self.ins(format!("st.shared.{} [{addr}], {v}", mem_type(elem)));
        }
    }

    fn slot_load(&mut self, v: Reg, addr: Reg, elem: ScalarType, present: Reg) {
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

/// Where a register element lives.
enum Slot {
    Reg(Reg),
    /// `.local` memory at an address; out of bounds when the predicate holds.
    Local(Reg, Option<Reg>),
    /// A constant index outside the data.
    Outside,
}

/// The row-major strides of a constant shape (elements).
fn constant_strides(shape: &[Expr]) -> Option<Vec<u64>> {
    let dims: Vec<u64> = shape
        .iter()
        .map(|d| constant_value(d).and_then(|v| u64::try_from(v).ok()))
        .collect::<Option<_>>()?;
    let mut strides = vec![1u64; dims.len()];
    for d in (0..dims.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1].checked_mul(dims[d + 1])?;
    }
    Some(strides)
}

/// Row-major offset of constant indices; None when one is out of range.
fn flat_offset(index: &[i64], extents: &[u64]) -> Option<u64> {
    if index.len() != extents.len() {
        return None;
    }
    let mut off = 0u64;
    for (&i, &n) in index.iter().zip(extents) {
        let i = u64::try_from(i).ok().filter(|&i| i < n)?;
        off = off * n + i;
    }
    Some(off)
}

/// The identity of an element across the accesses of a thread map.
fn index_key(index: &[Expr]) -> String {
    index.iter().map(Expr::key).collect::<Vec<_>>().join(",")
}
