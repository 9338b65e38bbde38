//! WCR updates: hardware reductions, compare-and-swap loops, and the
//! per-thread partials (combined per warp) of reductions into scalars.

use super::regs::{arith, bits_suffix, Class, Reg};
use super::KernelEmitter;
use crate::ir::{BinOp, ContainerId, ExprKind, ScalarType, Stmt, Storage, Value, WcrOp};
use std::collections::{HashMap, HashSet};

impl<'a> KernelEmitter<'a> {
    /// WCR updates of a scalar GPU container (`S += x`, `M = M.max(x)`, ...)
    /// that the body never reads and always updates with one operator are
    /// accumulated per thread and applied with one atomic per thread at the
    /// end, instead of one atomic per iteration on one contended address.
    pub(super) fn start_scalar_reductions(&mut self) {
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
            .filter(|(c, op)| {
                let k = &self.sdfg.containers[*c];
                // Complex values reduce only with `+=` (validation), one
                // partial per part.
                let summable = k.elem.is_numeric() || (k.elem.is_complex() && *op == WcrOp::Sum);
                !read.contains(c)
                    && k.is_scalar()
                    && k.storage == Storage::Gpu
                    && summable
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

    pub(super) fn finish_scalar_reductions(&mut self) {
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
        if elem.is_complex() {
            // Part by part, each from the same "updated" flags (the first
            // pass updates `touched`; the second reads a copy of it).
            let part = elem.real_part();
            let flags = self.reg(Class::Pred);
            self.mov(flags, touched);
            self.warp_reduce(op, partial.re(), touched, part);
            self.warp_reduce(op, partial.im(), flags, part);
            return;
        }
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
    pub(super) fn combine(&mut self, op: WcrOp, a: Reg, b: Reg, elem: ScalarType) -> Reg {
        if elem.is_complex() {
            // `+=`, the only reduction of complex values (validation).
            return self.complex_binary(BinOp::Add, a, b, elem);
        }
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
        self.normalize(r, elem)
    }

    /// A WCR update: hardware reductions where PTX has them, a CAS loop otherwise.
    pub(super) fn reduce(&mut self, addr: Reg, v: Reg, elem: ScalarType, op: WcrOp) {
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
        if elem.is_complex() {
            // `+=` is the only reduction of complex values (validation).
            self.complex_reduce(addr, v, elem);
            return;
        }
        if elem.is_half_float() {
            self.comment(&format!(
                "wcr {} on {elem}: compare-and-swap loop on the containing word",
                op.name()
            ));
            self.subword_update(addr, 2, |k, old_bits| {
                let h = k.reg(Class::B16);
                k.ins(format!("cvt.u16.u32 {h}, {old_bits}"));
                let old = k.f32_of_half_bits(h, elem);
                let new = k.combine(op, old, v, elem);
                let new_h = k.half_bits_of_f32(new, elem);
                let out = k.reg(Class::B32);
                k.ins(format!("cvt.u32.u16 {out}, {new_h}"));
                out
            });
            return;
        }
        if elem.is_narrow_integer() {
            self.comment(&format!(
                "wcr {} on {elem}: compare-and-swap loop on the containing word",
                op.name()
            ));
            self.subword_update(addr, elem.size_bytes() as u32, |k, old_bits| {
                let old = k.normalize(old_bits, elem);
                k.combine(op, old, v, elem)
            });
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
        self.cas_loop("global", addr, v, elem, op);
    }

    /// `[addr] = [addr] (op) v` in state space `space` (`global`, `shared`)
    /// as a compare-and-swap loop on the element's 32 or 64 bits: where PTX
    /// has no reduction instruction for the operator and type.
    pub(super) fn cas_loop(&mut self, space: &str, addr: Reg, v: Reg, elem: ScalarType, op: WcrOp) {
        self.comment(&format!(
            "wcr {} on {space} {elem}: compare-and-swap loop",
            op.name()
        ));
        let bclass = if elem.bits() == 64 {
            Class::B64
        } else {
            Class::B32
        };
        let b = bits_suffix(elem);
        let expected = self.reg(bclass);
        self.ins(format!("ld.{space}.{b} {expected}, [{addr}]"));
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
            "atom.{space}.cas.{b} {got}, [{addr}], {expected}, {new_bits}"
        ));
        let p = self.reg(Class::Pred);
        self.ins(format!("setp.eq.{b} {p}, {got}, {expected}"));
        self.mov(expected, got);
        self.ins(format!("@!{p} bra {head}"));
    }
}
