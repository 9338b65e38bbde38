//! The kernel's parameters and launch shape: loading the `.param`s, the
//! grid-stride loops over x, y and z, and the tiles (several items in x,
//! runs of rows in y, or in z for 3-D maps with `rows_in_z`) each thread
//! runs per step.

use super::fault::slot_words;
use super::hoist::{hoistable_loads, shared_load, write_shape, SharedLoad};
use super::regs::{mem_type, Class, Reg};
use super::row_run::RowRun;
use super::{BufferRegs, FaultSlot, KernelEmitter};
use crate::codegen::abi::{BufferAccess, ParamValue};
use crate::codegen::ptx::Tuning;
use crate::ir::{ContainerId, Expr, ScalarType, Stmt};
use std::collections::HashMap;

impl<'a> KernelEmitter<'a> {
    /// Loads every parameter; returns (start, count, step) per map dimension.
    pub(super) fn load_params(&mut self) -> Vec<(Reg, Reg, Reg)> {
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
                            read_only: *access == BufferAccess::Read
                                && !self.coherent.contains(container),
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
                    let words = FaultSlot {
                        site_word: self.reg(Class::B64),
                        index_word: self.reg(Class::B64),
                    };
                    let (site, index) = (words.site_word.to_string(), words.index_word.to_string());
                    for i in slot_words(&r.to_string(), &site, &index) {
                        self.ins(i);
                    }
                    self.fault = Some(words);
                }
            }
        }
        // Containers of one shape (the same expressions of the symbols,
        // which are fixed for the call) share their extents' registers: the
        // strides and offsets computed from them are then one value for
        // all of them (heat3d's A and B), which ptxas keeps once.
        let mut by_shape: HashMap<String, ContainerId> = HashMap::new();
        let mut containers: Vec<ContainerId> = self.buffers.keys().copied().collect();
        containers.sort_unstable();
        for c in containers {
            let shape = &self.sdfg.containers[c].shape;
            let mut key = String::new();
            for e in shape {
                write_shape(e, &mut key);
                key.push(';');
            }
            let owner = *by_shape.entry(key).or_insert(c);
            let regs = (0..shape.len())
                .map(|d| extents.get(&(owner, d)).or(extents.get(&(c, d))).copied())
                .collect::<Option<Vec<_>>>()
                .unwrap_or_default();
            if let Some(buf) = self.buffers.get_mut(&c) {
                buf.extents = regs;
            }
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
        if ty.is_complex() {
            return self.complex_param(ty, slot);
        }
        if ty.is_half_float() {
            return self.half_load(ty, false, |h| format!("ld.param.b16 {h}, {slot}"));
        }
        if ty == ScalarType::Bool {
            let byte = self.reg(Class::B16);
            self.ins(format!("ld.param.u8 {byte}, {slot}"));
            let p = self.reg(Class::Pred);
            self.ins(format!("setp.ne.u16 {p}, {byte}, 0"));
            p
        } else {
            let r = self.reg_of(ty);
            self.ins(format!("ld.param.{} {r}, {slot}", mem_type(ty)));
            r
        }
    }

    /// `%ctaid.a * %ntid.a * scale + %tid.a` and `%nctaid.a * %ntid.a * scale` as u64
    /// (with reversed blocks, `%nctaid.a - 1 - %ctaid.a` for `%ctaid.a`).
    pub(super) fn thread_start_and_stride(&mut self, axis: char, scale: u32) -> (Reg, Reg, Reg) {
        let tid = self.reg(Class::B32);
        let ntid = self.reg(Class::B32);
        let ctaid = self.reg(Class::B32);
        let nctaid = self.reg(Class::B32);
        self.ins(format!("mov.u32 {tid}, %tid.{axis}"));
        self.ins(format!("mov.u32 {ntid}, %ntid.{axis}"));
        self.ins(format!("mov.u32 {ctaid}, %ctaid.{axis}"));
        self.ins(format!("mov.u32 {nctaid}, %nctaid.{axis}"));
        if self.reversed_blocks {
            // Block n - 1 - b: the same blocks, in the other order.
            self.ins(format!("sub.u32 {ctaid}, {nctaid}, {ctaid}"));
            self.ins(format!("sub.u32 {ctaid}, {ctaid}, 1"));
        }
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
    /// converted to the parameter's type. A dependent range (`ir::ranges`)
    /// starts where the earlier parameters put it (they are set already).
    pub(super) fn param_value(&mut self, d: usize, t: Reg, range: (Reg, Reg, Reg)) -> Reg {
        let v = self.reg(Class::B64);
        let param = &self.map.params[d];
        let ty = param.ty;
        if param.is_dependent() {
            let start = self.expr(&param.start);
            let start = self.convert(start, ty, wide_type(ty));
            self.ins(format!("mad.lo.s64 {v}, {t}, {}, {start}", range.2));
            if self.dependent_values.len() <= d {
                self.dependent_values.resize(d + 1, None);
            }
            self.dependent_values[d] = Some(v);
        } else {
            self.ins(format!("mad.lo.s64 {v}, {t}, {}, {}", range.2, range.0));
        }
        if ty.bits() == 64 {
            v
        } else {
            let r = self.reg(Class::B32);
            self.ins(format!("cvt.u32.u64 {r}, {v}"));
            self.normalize(r, ty)
        }
    }

    /// The per-dimension counters of the row-major position `flat` over
    /// `ranges` (their counts), innermost decomposed first; the outermost
    /// takes what is left.
    pub(super) fn row_major_indices(&mut self, flat: Reg, ranges: &[(Reg, Reg, Reg)]) -> Vec<Reg> {
        let rest = self.reg(Class::B64);
        self.mov(rest, flat);
        let mut indices = vec![rest; ranges.len()];
        for d in (1..ranges.len()).rev() {
            let q = self.reg(Class::B64);
            let i = self.reg(Class::B64);
            self.ins(format!("div.u64 {q}, {rest}, {}", ranges[d].1));
            self.ins(format!("mul.lo.u64 {i}, {q}, {}", ranges[d].1));
            self.ins(format!("sub.u64 {i}, {rest}, {i}"));
            self.mov(rest, q);
            indices[d] = i;
        }
        indices
    }

    /// The grid-stride loops: x = innermost dimension, y = the next, z = the
    /// product of all outer ones (decomposed with div/rem).
    pub(super) fn grid_loops(&mut self, ranges: &[(Reg, Reg, Reg)], ipt: u32, rows: u32) {
        let dims = ranges.len();
        self.params = vec![
            Reg {
                class: Class::B64,
                n: 0
            };
            dims
        ];
        let exit = self.label();
        if self.walk.is_some() && dims == 3 && rows > 1 {
            let loops = self.label();
            self.single_pass_walk(ranges, rows, &loops, &exit);
            self.place(&loops);
        }
        // z: the product of the outer dimensions.
        let mut z_end = None;
        // With several rows per thread: the iteration index of the first.
        let mut y_run = None;
        if dims == 3 && self.rows_in_z && rows > 1 {
            // Runs of `rows` planes: dimension 0 is the row dimension.
            let (tz, stride_z, _) = self.thread_start_and_stride('z', 1);
            let head = self.label();
            let end = self.label();
            self.place(&head);
            let z0 = self.reg(Class::B64);
            self.ins(format!("mul.lo.u64 {z0}, {tz}, {rows}"));
            let p = self.reg(Class::Pred);
            self.ins(format!("setp.ge.u64 {p}, {z0}, {}", ranges[0].1));
            self.ins(format!("@{p} bra {end}"));
            y_run = Some((z0, rows));
            z_end = Some((head, end, tz, stride_z));
        } else if dims >= 3 {
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
            // The values outermost first (a dependent range reads the
            // parameters before it).
            let indices = self.row_major_indices(tz, &ranges[..dims - 2]);
            for (d, idx) in indices.into_iter().enumerate() {
                self.params[d] = self.param_value(d, idx, ranges[d]);
            }
            z_end = Some((head, end, tz, stride_z));
        }
        let mut y_end = None;
        if dims >= 2 {
            let d = dims - 2;
            let (ty, stride_y, _) = self.thread_start_and_stride('y', 1);
            let head = self.label();
            let end = self.label();
            self.place(&head);
            let p = self.reg(Class::Pred);
            if rows <= 1 || y_run.is_some() {
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
        self.place(&exit);
    }

    /// The dimension a thread's rows run along: y (the second innermost),
    /// or z (dimension 0) for a 3-D map with `rows_in_z`.
    pub(super) fn row_dim(&self, dims: usize) -> usize {
        if self.rows_in_z && dims == 3 {
            0
        } else {
            dims.wrapping_sub(2)
        }
    }

    /// One grid-stride step in x: `ipt` iterations `tx + k * ntid.x`
    /// (coalesced across the block for every k), for one row or, with
    /// `y_run = Some((y0, rows))`, for the rows `y0 .. y0 + rows`. A full
    /// tile runs unrolled with the leading loads of all items issued first;
    /// with step 1 in y, a load that several rows share is issued once. The
    /// last, partial tiles run the same unrolled items, each guarded by its
    /// range test ([`Self::unrolled_items`]); with a step other than 1 in y,
    /// plain loops.
    pub(super) fn tile(
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
        if let (true, 1, Some(run)) = (self.walk.is_some(), ipt, y_run) {
            self.walk_rows(tx, ntid_x, count_x, ranges, run, false);
            return;
        }
        let dy = self.row_dim(dims);
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
        self.unrolled_items(tx, ntid_x, count_x, ranges, ipt, y_run, false);
        self.ins(format!("bra.uni {done}"));
        self.place(&partial);
        let loops = self.label();
        if y_run.is_some() {
            // Sharing loads between rows assumes row r + 1 is row r's i + 1.
            let step_y = ranges[dy].2;
            self.ins(format!("setp.ne.s64 {p}, {step_y}, 1"));
            self.ins(format!("@{p} bra {loops}"));
        }
        self.comment(
            "partial tile: the leading loads of all items first, bodies of the items in range",
        );
        self.unrolled_items(tx, ntid_x, count_x, ranges, ipt, y_run, true);
        if y_run.is_some() {
            self.ins(format!("bra.uni {done}"));
            self.place(&loops);
            self.partial_tile_loops(tx, ntid_x, count_x, ranges, ipt, y_run, &done);
        }
        self.place(&done);
    }

    /// A partial tile as plain loops over its rows and items in range:
    /// for a step other than 1 in y, where rows share no loads.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn partial_tile_loops(
        &mut self,
        tx: Reg,
        ntid_x: Reg,
        count_x: Reg,
        ranges: &[(Reg, Reg, Reg)],
        ipt: u32,
        y_run: Option<(Reg, u32)>,
        done: &str,
    ) {
        let done = done.to_string();
        let dims = ranges.len();
        let dy = self.row_dim(dims);
        let set_x = |this: &mut Self, t: Reg| {
            if dims >= 1 {
                this.params[dims - 1] = this.param_value(dims - 1, t, ranges[dims - 1]);
            }
        };
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
    }

    /// The `ipt` items in x of `rows` rows (one without `y_run`), unrolled:
    /// the leading loads of all items first (with step 1 in y, a load that
    /// several rows share is issued once), then each item's body.
    ///
    /// `guarded`: the last, partial tiles of the grid. Each item is tested
    /// against the ranges; one out of range issues its leading loads at
    /// one of this thread's own in-range items (its x or its row replaced
    /// by the tile's first), so every load is valid and all of them are in
    /// flight at once, as in a full tile (a loop over the items would wait
    /// for each item's loads in turn, and small grids are made of partial
    /// tiles only), and its body is skipped. Rows in range are a prefix, so
    /// an in-range row only shares loads with in-range rows. The caller
    /// checked `tx` and the first row against the ranges and, with
    /// `y_run`, a step of 1 in y.
    #[allow(clippy::too_many_arguments)]
    fn unrolled_items(
        &mut self,
        tx: Reg,
        ntid_x: Reg,
        count_x: Reg,
        ranges: &[(Reg, Reg, Reg)],
        ipt: u32,
        y_run: Option<(Reg, u32)>,
        guarded: bool,
    ) {
        let dims = ranges.len();
        let dy = self.row_dim(dims);
        let hoist = hoistable_loads(self.sdfg, self.map);
        let rows = y_run.map_or(1, |(_, rows)| rows);
        // Per item k in x: its iteration and (guarded) whether it is in range.
        let mut xs: Vec<(Reg, Option<Reg>)> = vec![(tx, None)];
        for k in 1..ipt {
            let t = self.reg(Class::B64);
            self.ins(format!("mad.lo.u64 {t}, {ntid_x}, {k}, {tx}"));
            let mut inside = None;
            if guarded {
                let p = self.reg(Class::Pred);
                self.ins(format!("setp.lt.u64 {p}, {t}, {count_x}"));
                self.ins(format!("selp.u64 {t}, {t}, {tx}, {p}"));
                inside = Some(p);
            }
            xs.push((t, inside));
        }
        // Each item's x parameter, computed once for all rows (the same
        // register in every row, which `RowRun` keys the item by).
        let x_values: Vec<(Option<Reg>, Option<Reg>)> = xs
            .iter()
            .map(|&(t, inside)| {
                let x = (dims >= 1).then(|| self.param_value(dims - 1, t, ranges[dims - 1]));
                (x, inside)
            })
            .collect();
        let mut issued: HashMap<SharedLoad, Reg> = HashMap::new();
        let mut items = Vec::new();
        // Full tiles run their rows with step 1: addresses one row apart.
        if y_run.is_some() && !guarded {
            self.row_run = Some(RowRun::new(dy));
        }
        for r in 0..rows {
            if let Some(run) = self.row_run.as_mut() {
                run.row = r;
            }
            let mut row_inside = None;
            if let Some((y0, _)) = y_run {
                let t = self.reg(Class::B64);
                self.ins(format!("add.u64 {t}, {y0}, {r}"));
                if guarded && r > 0 {
                    let p = self.reg(Class::Pred);
                    self.ins(format!("setp.lt.u64 {p}, {t}, {}", ranges[dy].1));
                    self.ins(format!("selp.u64 {t}, {t}, {y0}, {p}"));
                    row_inside = Some(p);
                }
                self.params[dy] = self.param_value(dy, t, ranges[dy]);
            }
            for (k, &(x_value, x_inside)) in x_values.iter().enumerate() {
                if let Some(x) = x_value {
                    self.params[dims - 1] = x;
                }
                let guard = match (row_inside, x_inside) {
                    (Some(a), Some(b)) => {
                        let both = self.reg(Class::Pred);
                        self.ins(format!("and.pred {both}, {a}, {b}"));
                        Some(both)
                    }
                    (a, b) => a.or(b),
                };
                let params = self.params.clone();
                let key = |e: &Expr| y_run.and_then(|_| shared_load(e, dy, r, k as u32));
                let loaded = self.issue_leading_loads(&hoist, key, &mut issued);
                items.push((params, loaded, guard, r));
            }
        }
        for (params, loaded, guard, row) in items {
            if let Some(run) = self.row_run.as_mut() {
                run.row = row;
            }
            let skip = self.label();
            if let Some(g) = guard {
                self.ins(format!("@!{g} bra {skip}"));
            }
            self.params = params;
            self.hoisted = loaded;
            self.body();
            if guard.is_some() {
                self.place(&skip);
            }
        }
        self.hoisted.clear();
        self.row_run = None;
    }
}

/// The launch shape of a map with a dependent range: one item per thread.
pub(super) fn dependent_geometry(dims: usize) -> ([u32; 3], u32, u32) {
    if dims <= 1 {
        ([256, 1, 1], 1, 1)
    } else {
        ([32, 8, 1], 1, 1)
    }
}

/// The 64-bit type a parameter's value is computed in: its own, or `i64`
/// for 32-bit ones (which it holds exactly).
pub(super) fn wide_type(ty: ScalarType) -> ScalarType {
    if ty.bits() == 64 {
        ty
    } else {
        ScalarType::I64
    }
}

/// Launch shape chosen for a map of `dims` dimensions: (block, items per
/// thread in x, rows per thread in y).
pub(super) fn geometry(dims: usize, body: &[Stmt], tuning: &Tuning) -> ([u32; 3], u32, u32) {
    let mut has_loop = false;
    let mut n_stmts = 0;
    for s in body {
        s.walk(&mut |s| {
            n_stmts += 1;
            if matches!(s, Stmt::For { .. } | Stmt::While { .. }) {
                has_loop = true;
            }
        });
    }
    // Unrolling duplicates the body: only for small straight-line bodies,
    // where it buys independent loads in flight (and, over rows, loads
    // shared by neighbouring rows).
    let unroll = !has_loop && n_stmts <= 8;
    if dims == 3 && unroll && tuning.walk_3d {
        return (
            [tuning.block_3d[0], tuning.block_3d[1], 1],
            1,
            tuning.rows_3d.max(1),
        );
    }
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
