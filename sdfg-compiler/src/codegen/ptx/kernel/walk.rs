//! A thread's run of rows as a *walk*: the rows one after the other, each
//! issuing only the loads no earlier row made just before its own body,
//! behind its own range test. The loads a row shares with the next ones
//! (with rows in z, the plane neighbours of a 3-D stencil) stay in
//! registers, and the offsets step one row stride per row
//! ([`super::row_run`]). 3-D maps of plain bodies walk by default
//! (`Tuning::walk_3d`: 64 x 2 threads, 8 planes each; which bodies:
//! [`KernelEmitter::walk_register_cap`]).
//!
//! The full tiles of `launch` issue every row's loads first, which keeps
//! many loads in flight but holds them all in registers (heat3d's 8 rows in
//! z: 128 registers per thread); a walk holds one row's (32), so each SM
//! runs four times as many threads, which hides the latency better. A
//! global load is never moved above the branch that guards it, so the range
//! test before each row is also what keeps ptxas from hoisting every row's
//! loads to the top.
//!
//! Three more things make the 32 registers: the walk's host-checked
//! accesses compute their offsets in 32 bits when every buffer holds fewer
//! than [`NARROW_LIMIT`] elements ([`KernelEmitter::narrow_address`]; 64-bit
//! index products take two registers per value and three multiply-adds);
//! a grid that covers the map (the one the runtime launches) runs one walk
//! per thread without the grid-stride loops, whose state would stay live
//! across it ([`KernelEmitter::single_pass_walk`]); and the kernel is capped
//! at the registers one row needs ([`KernelEmitter::walk_register_cap`]),
//! so ptxas spills the rest of its state (the other paths') rather than
//! spend registers on it. A grid that does not cover the map takes the
//! grid-stride loops, which walk each run too; a step other than 1 along
//! the rows or larger buffers take the plain loops of a partial tile,
//! which are correct for all.
//!
//! A walk's kernel lets the kernels that depend on it start only as its
//! blocks finish ([`crate::codegen::ptx::GRID_WAIT_MARK`]): a walk's grid
//! is one wave of fully occupied SMs, and blocks of the next kernel
//! scheduled early would wait in the place of the walk's own. A thread
//! that walked triggers them after its last store
//! ([`crate::codegen::ptx::GRID_TRIGGER_MARK`]).
//!
//! A row's plain stores wait until the next row's loads are issued (the
//! walk is *pipelined*), so those loads are in flight while the row
//! stores, as nvcc schedules a plane loop of its own; only where the body
//! stores into no container it reads. Issuing them before the row's
//! arithmetic too, as nvcc's loop does in 31 registers, made ptxas spill
//! 620 bytes inside this walk under the cap (212 under 40 registers).
//!
//! On the H200, heat3d N=120 T=500 (998 sweeps in one graph) took 6.8-6.9
//! ms this way against 7.55 with the rows-in-y tiles, 6.7 once every
//! sweep ran its blocks forward (`ptx::reversed_kernels`), and 6.63-6.66
//! with the held stores against 6.68-6.71 without (docs/BENCHMARKS.md,
//! run RR).

use super::hoist::{hoistable_loads, shared_load, write_shape, SharedLoad};
use super::regs::{Class, Reg};
use super::row_run::RowRun;
use super::KernelEmitter;
use crate::ir::{BinOp, ContainerId, Expr, ExprKind, MathFn, ScalarType, Stmt};
use std::collections::{HashMap, HashSet};

/// Buffers of at most this many elements are walked with 32-bit offsets:
/// every offset of an access in bounds, less a constant of at most
/// [`FOLDED_CONSTANT`] elements folded into the address, is then a signed
/// 32-bit value (`2^31 - 2^21`).
const NARROW_LIMIT: u64 = (1 << 31) - (1 << 21);

/// The largest constant of an innermost index (`A[.., k + c]`) added to the
/// address as a byte offset rather than to the 32-bit element offset.
const FOLDED_CONSTANT: u64 = 1 << 20;

/// Registers a walk needs besides the values of one row's loads (its
/// offsets, strides, bases, row count and the grid loops' state), as
/// ptxas allocated them for heat3d's walk.
const WALK_OVERHEAD_REGISTERS: u32 = 18;

impl<'a> KernelEmitter<'a> {
    /// The registers per thread a walk's kernel is capped at (`.maxnreg`),
    /// or None where the map does not walk. Left alone, ptxas keeps the
    /// grid loops' 64-bit state and the buffers' parameters in registers
    /// across the whole walk (56 for heat3d's, which ran slower than the
    /// tiles); capped, it spills them around the walk, whose rows then run
    /// without a spill at full occupancy. The cap is the row's values (its
    /// distinct loads and `let`s) plus [`WALK_OVERHEAD_REGISTERS`], rounded
    /// up to a multiple of 8, at least 32 and at most 64.
    ///
    /// Only bodies of that shape walk: `let`s and stores of loads that
    /// every iteration issues first (`hoist`), and arithmetic without
    /// division. A branch, a load that is not issued first, a division or
    /// `%`, a call of a math subroutine or a complex value all need
    /// registers the estimate does not see: under the cap ptxas 13 spilled
    /// 200 to 1,900 bytes per thread for such bodies (heat3d: 136, all of
    /// them outside the one-pass walk), so they keep the tiles of rows.
    pub(super) fn walk_register_cap(&self) -> Option<u32> {
        let hoisted = hoistable_loads(self.sdfg, self.map);
        let issued_first: HashSet<*const Expr> =
            hoisted.iter().map(|&e| e as *const Expr).collect();
        let mut plain = true;
        let mut values = 0u32;
        for s in &self.map.body.stmts {
            match s {
                Stmt::Let { init, .. } => values += init.ty.size_bytes().div_ceil(4) as u32,
                Stmt::Store { wcr: None, .. } => {}
                _ => plain = false,
            }
            s.walk_exprs(&mut |e| {
                plain &= !e.ty.is_complex()
                    && match &e.kind {
                        ExprKind::Load { index, .. } => {
                            index.is_empty() || issued_first.contains(&(e as *const Expr))
                        }
                        ExprKind::Call { func, .. } => matches!(
                            func,
                            MathFn::Abs
                                | MathFn::Min
                                | MathFn::Max
                                | MathFn::Floor
                                | MathFn::Ceil
                                | MathFn::MulAdd
                        ),
                        ExprKind::Binary { op, .. } => !matches!(op, BinOp::Div | BinOp::Rem),
                        _ => true,
                    };
            });
        }
        if !plain {
            return None;
        }
        // Each distinct load once (heat3d reads `A[i, j, k]` four times).
        let mut distinct = HashSet::new();
        values += hoisted
            .into_iter()
            .filter(|e| {
                let mut shape = String::new();
                write_shape(e, &mut shape);
                distinct.insert(shape)
            })
            .map(|e| e.ty.size_bytes().div_ceil(4) as u32)
            .sum::<u32>();
        let cap = (values + WALK_OVERHEAD_REGISTERS).div_ceil(8) * 8;
        (cap <= 64).then_some(cap.max(32))
    }

    /// The rows `y0 .. y0 + rows` of item `tx` (one item per thread in x)
    /// as a walk (see the module). Rows in range are a prefix: the caller
    /// checked `tx` and the first row against the ranges; each later row
    /// ends the walk when it is out of range. With a step other than 1
    /// along the rows (no loads shared, offsets not one row apart) or a
    /// buffer too large for 32-bit offsets, the plain loops of a partial
    /// tile. `tested`: the caller branched elsewhere for those already
    /// (and no fallback is emitted).
    pub(super) fn walk_rows(
        &mut self,
        tx: Reg,
        ntid_x: Reg,
        count_x: Reg,
        ranges: &[(Reg, Reg, Reg)],
        (y0, rows): (Reg, u32),
        tested: bool,
    ) {
        let dims = ranges.len();
        let dy = self.row_dim(dims);
        let (_, count_y, step_y) = ranges[dy];
        let done = self.label();
        let loops = self.label();
        if !tested {
            self.branch_unless_walkable(step_y, &loops);
        }
        // The rows in range, at most `rows`, in 32 bits: one register
        // for every row's test (not the 64-bit row and end).
        let left = self.reg(Class::B64);
        self.ins(format!("sub.u64 {left}, {count_y}, {y0}"));
        self.ins(format!("min.u64 {left}, {left}, {rows}"));
        let left32 = self.reg(Class::B32);
        self.ins(format!("cvt.u32.u64 {left32}, {left}"));
        self.params[dims - 1] = self.param_value(dims - 1, tx, ranges[dims - 1]);
        self.comment("walk: each row's new loads just before its body");
        self.walk_run(ranges, (y0, rows), left32, &done);
        if !tested {
            self.ins(format!("bra.uni {done}"));
            self.place(&loops);
            self.partial_tile_loops(tx, ntid_x, count_x, ranges, 1, Some((y0, rows)), &done);
        }
        self.place(&done);
    }

    /// The walk of a grid that covers every iteration, which is the grid
    /// the runtime launches (`LaunchConfig::for_tiles_in_z`) for all but
    /// huge maps: each thread's one run, then the kernel's end (`exit`),
    /// without the grid-stride loops, whose 64-bit state would otherwise
    /// stay live across the walk (spilled under its register cap). A grid
    /// that does not cover the ranges branches to `loops`, the grid-stride
    /// loops (which walk too).
    pub(super) fn single_pass_walk(
        &mut self,
        ranges: &[(Reg, Reg, Reg)],
        rows: u32,
        loops: &str,
        exit: &str,
    ) {
        let dims = ranges.len();
        let (count_z, count_y, count_x) = (ranges[0].1, ranges[dims - 2].1, ranges[dims - 1].1);
        let (tz, stride_z, _) = self.thread_start_and_stride('z', 1);
        let (ty, stride_y, _) = self.thread_start_and_stride('y', 1);
        let (tx, stride_x, ntid_x) = self.thread_start_and_stride('x', 1);
        let p = self.reg(Class::Pred);
        let span = self.reg(Class::B64);
        self.ins(format!("mul.lo.u64 {span}, {stride_z}, {rows}"));
        for (count, covered) in [(count_z, span), (count_y, stride_y), (count_x, stride_x)] {
            self.ins(format!("setp.gt.u64 {p}, {count}, {covered}"));
            self.ins(format!("@{p} bra {loops}"));
        }
        // Tested here, so that nothing the walk's fallback would need
        // stays live (or spilled) across the walk.
        self.branch_unless_walkable(ranges[0].2, loops);
        self.comment("the grid covers the ranges: one run per thread");
        let z0 = self.reg(Class::B64);
        self.ins(format!("mul.lo.u64 {z0}, {tz}, {rows}"));
        for (t, count) in [(z0, count_z), (ty, count_y), (tx, count_x)] {
            self.ins(format!("setp.ge.u64 {p}, {t}, {count}"));
            self.ins(format!("@{p} bra {exit}"));
        }
        self.params[dims - 2] = self.param_value(dims - 2, ty, ranges[dims - 2]);
        self.walk_rows(tx, ntid_x, count_x, ranges, (z0, rows), true);
        // Every run ends here (each row out of range branches to the
        // walk's end): one trigger after the last store. Each exit on its
        // own path was no faster, and a trigger at the kernel's `ret` made
        // ptxas spill in the walk (docs/BENCHMARKS.md, runs LL and OO).
        self.code.push_str(crate::codegen::ptx::GRID_TRIGGER_MARK);
        self.ins(format!("bra.uni {exit}"));
    }

    /// The rows of a walk (see the module): each row after the first
    /// tested against `left` (the rows in range) and ending the walk (at
    /// `done`) when out of range, then its new loads and its body. The
    /// test stays in full runs too: without it ptxas issued later rows'
    /// loads early and spilled under the register cap (heat3d 7.4-7.8 ms
    /// against 6.9; docs/BENCHMARKS.md). In a pipelined walk each body's
    /// plain stores unguarded by a device check are held back
    /// (`held_stores`) and emitted after the next row's loads, or, where
    /// that row is out of range, on the walk's way out.
    fn walk_run(
        &mut self,
        ranges: &[(Reg, Reg, Reg)],
        (y0, rows): (Reg, u32),
        left: Reg,
        done: &str,
    ) {
        let dy = self.row_dim(ranges.len());
        let hoist = hoistable_loads(self.sdfg, self.map);
        let mut issued: HashMap<SharedLoad, Reg> = HashMap::new();
        self.row_run = Some(RowRun::new(dy));
        self.narrow_offsets = true;
        let pipelined = self.stores_may_follow_next_loads();
        // The stores the row before held back, and per row after the
        // first, the label of the path that ends the walk before it: the
        // row before's stores, then `done`.
        let mut held = String::new();
        let mut endings = Vec::new();
        for r in 0..rows {
            if let Some(run) = self.row_run.as_mut() {
                run.row = r;
            }
            if r > 0 {
                let out = self.reg(Class::Pred);
                self.ins(format!("setp.le.u32 {out}, {left}, {r}"));
                let end = if pipelined {
                    self.label()
                } else {
                    done.to_string()
                };
                self.ins(format!("@{out} bra {end}"));
                if pipelined {
                    endings.push((end, held.clone()));
                }
            }
            let t = self.reg(Class::B64);
            self.ins(format!("add.u64 {t}, {y0}, {r}"));
            self.params[dy] = self.param_value(dy, t, ranges[dy]);
            // The row before's loads are not this row's.
            self.hoisted.clear();
            let key = |e: &Expr| shared_load(e, dy, r, 0);
            self.hoisted = self.issue_leading_loads(&hoist, key, &mut issued);
            self.code.push_str(&held);
            self.held_stores = pipelined.then(String::new);
            self.body();
            held = self.held_stores.take().unwrap_or_default();
        }
        self.code.push_str(&held);
        if !endings.is_empty() {
            self.ins(format!("bra.uni {done}"));
            for (end, stores) in endings {
                self.place(&end);
                self.code.push_str(&stores);
                self.ins(format!("bra.uni {done}"));
            }
        }
        self.narrow_offsets = false;
        self.hoisted.clear();
        self.row_run = None;
    }

    /// Whether a row's stores may wait until the next row's loads are
    /// issued (the walk is then pipelined, see the module): when the body
    /// stores into no container it also reads, so that no load of a later
    /// row can read what a store of an earlier one wrote.
    fn stores_may_follow_next_loads(&self) -> bool {
        let mut read = HashSet::new();
        let mut written = HashSet::new();
        for s in &self.map.body.stmts {
            if let Stmt::Store { container, .. } = s {
                written.insert(*container);
            }
            s.walk_exprs(&mut |e| {
                if let ExprKind::Load { container, .. } = &e.kind {
                    read.insert(*container);
                }
            });
        }
        read.is_disjoint(&written)
    }

    /// Branches to `fallback` unless the rows can be walked: a step of 1
    /// along them (`step`) and every buffer of the kernel at most
    /// [`NARROW_LIMIT`] elements long. (The product of a buffer's extents
    /// does not wrap: it is the length of a buffer that exists.)
    fn branch_unless_walkable(&mut self, step: Reg, fallback: &str) {
        let p = self.reg(Class::Pred);
        self.ins(format!("setp.ne.s64 {p}, {step}, 1"));
        self.ins(format!("@{p} bra {fallback}"));
        let mut buffers: Vec<(ContainerId, Vec<Reg>)> = self
            .buffers
            .iter()
            .map(|(&c, b)| (c, b.extents.clone()))
            .collect();
        buffers.sort_unstable_by_key(|(c, _)| *c);
        // Buffers of the same extents (heat3d's A and B) are tested once.
        let mut tested: Vec<Vec<Reg>> = Vec::new();
        for (_, extents) in buffers {
            if tested.contains(&extents) {
                continue;
            }
            tested.push(extents.clone());
            let Some((&first, rest)) = extents.split_first() else {
                continue;
            };
            let len = self.reg(Class::B64);
            self.mov(len, first);
            for e in rest {
                self.ins(format!("mul.lo.u64 {len}, {len}, {e}"));
            }
            let p = self.reg(Class::Pred);
            self.ins(format!("setp.gt.u64 {p}, {len}, {NARROW_LIMIT}"));
            self.ins(format!("@{p} bra {fallback}"));
        }
    }

    /// The byte address of a host-checked access inside a narrow walk:
    /// the row-major element offset of its index cores in 32 bits (exact
    /// modulo 2^32; one row stride after the previous row's in a run), the
    /// other constants added to it, then `mad.wide.s32` by the element
    /// size onto the base; a small constant of the innermost index is a
    /// byte offset that ptxas folds into the load (`[addr+8]`). The offset
    /// given to `mad.wide` is that of an element in bounds (less the folded
    /// constant), below [`NARROW_LIMIT`] + [`FOLDED_CONSTANT`] in magnitude,
    /// so its 32-bit value read as signed is the true one.
    pub(super) fn narrow_address(
        &mut self,
        container: ContainerId,
        cores: &[&'a Expr],
        consts: &[i64],
        extents: &[Reg],
        size: usize,
        base: Reg,
    ) -> Reg {
        let extents: Vec<Reg> = extents
            .iter()
            .map(|&e| {
                let w = self.reg(Class::B32);
                self.ins(format!("cvt.u32.u64 {w}, {e}"));
                w
            })
            .collect();
        let core = match self.next_core(container, cores, &extents, None) {
            Some(core) => core,
            None => {
                let lin = self.reg(Class::B32);
                for (d, e) in cores.iter().enumerate() {
                    let v = self.expr(e);
                    let v = self.low_word(v, e.ty);
                    if d == 0 {
                        self.ins(format!("mov.b32 {lin}, {v}"));
                    } else {
                        self.ins(format!("mad.lo.u32 {lin}, {lin}, {}, {v}", extents[d]));
                    }
                }
                self.remember_row_core(container, cores, lin);
                lin
            }
        };
        let last = consts.len() - 1;
        let folded = if consts[last].unsigned_abs() <= FOLDED_CONSTANT {
            consts[last]
        } else {
            0
        };
        let mut offset = core;
        if consts[..last].iter().any(|&c| c != 0) || consts[last] != folded {
            // The constants' offset by Horner's scheme, wrapping in 32 bits.
            let k = self.reg(Class::B32);
            self.ins(format!("mov.b32 {k}, {}", consts[0] as u32));
            for d in 1..consts.len() {
                let c = if d == last {
                    consts[d] - folded
                } else {
                    consts[d]
                };
                self.ins(format!("mad.lo.u32 {k}, {k}, {}, {}", extents[d], c as u32));
            }
            if last == 0 {
                self.ins(format!("sub.u32 {k}, {k}, {}", folded as u32));
            }
            offset = self.reg(Class::B32);
            self.ins(format!("add.u32 {offset}, {core}, {k}"));
        }
        let addr = self.reg(Class::B64);
        self.ins(format!("mad.wide.s32 {addr}, {offset}, {size}, {base}"));
        if folded == 0 {
            return addr;
        }
        let moved = self.reg(Class::B64);
        let bytes = folded * size as i64;
        self.ins(format!("add.s64 {moved}, {addr}, {bytes}"));
        moved
    }

    /// The low 32 bits of an index value (its value modulo 2^32).
    fn low_word(&mut self, v: Reg, ty: ScalarType) -> Reg {
        match v.class {
            Class::B32 => v,
            Class::B64 => {
                let w = self.reg(Class::B32);
                self.ins(format!("cvt.u32.u64 {w}, {v}"));
                w
            }
            _ => {
                let wide = self.convert(v, ty, ScalarType::I64);
                self.low_word(wide, ScalarType::I64)
            }
        }
    }
}
