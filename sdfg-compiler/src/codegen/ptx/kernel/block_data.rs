//! The data of a block map: `shared` arrays (static `.shared` variables, or
//! the module's dynamic shared memory when a shape uses symbols) and
//! `register` data (one PTX register per element when every index is a
//! constant after unrolling, `.local` memory otherwise). The block
//! reductions of thread maps are `block_reductions`.

use super::memory::Guard;
use super::regs::{mem_type, Class, Reg};
use super::KernelEmitter;
use crate::ir::bounds::is_prechecked;
use crate::ir::linear::{constant_value, Leaf, Linear};
use crate::ir::{
    ContainerId, Expr, ExprKind, LocalId, ScalarType, Stmt, Storage, Value, VarRef, WcrOp,
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
                Slot::Outside(flat) => {
                    self.fault_always(index, false, flat);
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
        if self.partial_update(c, index, value) {
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
                if let Some(g) = oob {
                    self.record_fault(g, index, true);
                    self.ins(format!("@{} bra {skip}", g.oob));
                }
                match wcr {
                    None => self.store_at("shared", addr, v, elem),
                    // Iterations of a thread map run concurrently: atomics.
                    Some(op) if !self.block_level() => self.shared_atomic(addr, v, elem, op),
                    // A block-level store: thread 0 alone.
                    Some(op) => {
                        let old = self.space_load("shared", addr, None, elem, index);
                        let new = self.combine(op, old, v, elem);
                        self.store_at("shared", addr, new, elem);
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
                    if let Some(g) = oob {
                        self.record_fault(g, index, true);
                        self.ins(format!("@{} bra {skip}", g.oob));
                    }
                    let new = match wcr {
                        Some(op) => {
                            let old = self.space_load("local", addr, None, elem, index);
                            self.combine(op, old, v, elem)
                        }
                        None => v,
                    };
                    self.store_at("local", addr, new, elem);
                    self.place(&skip);
                }
                Some(Slot::Outside(flat)) => self.fault_always(index, true, flat),
                None => {}
            },
        }
        true
    }

    /// The shared-window address of `c[index]` and, unless the host checked
    /// the access, its guard (predicate "out of bounds" and the row-major
    /// index in wrapping 64-bit arithmetic, for the fault record).
    pub(super) fn shared_address(
        &mut self,
        c: ContainerId,
        index: &'a [Expr],
    ) -> Option<(Reg, Option<Guard>)> {
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
        let mut flat: Option<Reg> = None;
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
                flat = Some(match flat {
                    None => w,
                    Some(f) => {
                        let n = self.reg(Class::B64);
                        self.ins(format!("mad.lo.u64 {n}, {f}, {}, {w}", extents[d].wide));
                        n
                    }
                });
            }
            narrow.push(self.narrow(r, e.ty));
        }
        let guard = oob.zip(flat).map(|(oob, index)| Guard { oob, index });
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
        Some((addr, guard))
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
                let extents = match self.block.as_ref()?.data.registers.get(&c) {
                    Some(RegisterArray::Regs { extents, .. }) => extents.clone(),
                    _ => return None,
                };
                return Some(Slot::Outside(wrapping_flat(constant.as_deref()?, &extents)));
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
                None => Slot::Outside(wrapping_flat(k, &extents)),
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
        Some(Slot::Local(addr, oob.map(|oob| Guard { oob, index: lin })))
    }

    fn block_register(&self, c: ContainerId, flat: u64) -> Option<Reg> {
        match self.block.as_ref()?.data.registers.get(&c)? {
            RegisterArray::Regs { elems, .. } => elems.get(&flat).copied(),
            RegisterArray::Local { .. } => None,
        }
    }

    /// `ld.<space>` of one element (zero, and a fault, when `checked` says
    /// it is out of bounds).
    pub(super) fn space_load(
        &mut self,
        space: &str,
        addr: Reg,
        checked: Option<Guard>,
        elem: ScalarType,
        index: &'a [Expr],
    ) -> Reg {
        let r = self.load_at(elem, addr, space, checked.map(|g| g.oob));
        if let Some(g) = checked {
            self.record_fault(g, index, false);
        }
        r
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
        // Whole elements of one register each (a complex pair is two).
        let lanes = match elem.size_bytes() {
            _ if elem.is_complex() || elem == ScalarType::Bool => return false,
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

    /// An access outside register data with constant indices, at
    /// row-major `flat`.
    fn fault_always(&mut self, index: &[Expr], is_store: bool, flat: i64) {
        let oob = self.constant(Value::Bool(true));
        let index_reg = self.constant(Value::I64(flat));
        self.record_fault(
            Guard {
                oob,
                index: index_reg,
            },
            index,
            is_store,
        );
    }
}

/// Where a register element lives.
enum Slot {
    Reg(Reg),
    /// `.local` memory at an address; out of bounds when the guard says so.
    Local(Reg, Option<Guard>),
    /// A constant index outside the data, at this row-major index.
    Outside(i64),
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

/// The row-major index of constant indices in wrapping 64-bit arithmetic
/// (`check::flat_index`, what a fault record holds).
fn wrapping_flat(index: &[i64], extents: &[u64]) -> i64 {
    index.iter().enumerate().fold(0i64, |flat, (d, &i)| {
        if d == 0 {
            i
        } else {
            let n = extents.get(d).copied().unwrap_or(1) as i64;
            flat.wrapping_mul(n).wrapping_add(i)
        }
    })
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
