//! The vector path of 1-D maps: `lanes` consecutive iterations per thread
//! with one vector load or store per container, when the alignment allows.

use super::hoist::{hoistable_loads, is_param_itself};
use super::regs::{mem_type, Class, Reg};
use super::KernelEmitter;
use crate::ir::{ContainerId, Expr, ExprKind, ScalarType, Stmt, Storage};
use std::collections::HashMap;

/// The vectorized form of a 1-D map (see `KernelEmitter::vector_plan`).
pub(super) struct VectorPlan<'b> {
    /// Elements per vector access (2 or 4; 16 bytes at most).
    pub(super) lanes: u32,
    /// Loads `C[i]` done as one vector load per `lanes` iterations.
    pub(super) loads: Vec<(&'b Expr, ContainerId)>,
    /// Stores `C[i] = v` done as one vector store: (container, index slice address).
    pub(super) stores: Vec<(ContainerId, usize)>,
}

impl<'a> KernelEmitter<'a> {
    /// Whether a 1-D map can run `lanes` consecutive iterations per thread
    /// with vector loads/stores: a straight-line body (no `if`/`for`) whose
    /// accesses at exactly the map parameter are the leading (hoistable)
    /// loads and the plain stores, each stored container stored once and
    /// read only by those leading loads. Alignment is checked at run time.
    pub(super) fn vector_plan(&self) -> Option<VectorPlan<'a>> {
        let stmts: &'a [Stmt] = &self.map.body.stmts;
        if stmts
            .iter()
            .any(|s| matches!(s, Stmt::If { .. } | Stmt::For { .. } | Stmt::While { .. }))
        {
            return None;
        }
        let is_x = |index: &[Expr]| index.len() == 1 && is_param_itself(&index[0]);
        let vector_elem = |c: ContainerId| {
            let k = &self.sdfg.containers[c];
            // Elements of one full register (narrow, bool and
            // multi-register values take the scalar path).
            let full_register = matches!(
                k.elem,
                ScalarType::I32
                    | ScalarType::U32
                    | ScalarType::I64
                    | ScalarType::U64
                    | ScalarType::F32
                    | ScalarType::F64
            );
            k.storage == Storage::Gpu && k.shape.len() == 1 && full_register
        };
        let loads: Vec<(&'a Expr, ContainerId)> = hoistable_loads(self.sdfg, self.map)
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
    pub(super) fn vector_x_loop(
        &mut self,
        plan: &VectorPlan<'a>,
        range: (Reg, Reg, Reg),
        done: String,
    ) {
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
}
