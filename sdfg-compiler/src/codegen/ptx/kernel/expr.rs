//! Expressions: literals, variables, operators with Rust's semantics
//! (wrapping, non-trapping division, masked shifts, NaN-aware
//! comparisons), lazy logic, selects and conversions.

use super::regs::{arith, bits_suffix, immediate, Class, Reg};
use super::KernelEmitter;
use crate::ir::{BinOp, Expr, ExprKind, ScalarType, Sdfg, UnOp, Value, VarRef};

impl<'a> KernelEmitter<'a> {
    pub(super) fn expr(&mut self, e: &'a Expr) -> Reg {
        match &e.kind {
            ExprKind::Lit(v) => {
                let v = if v.ty() == e.ty {
                    *v
                } else {
                    crate::ir::semantics::cast(*v, e.ty)
                };
                self.constant(v)
            }
            ExprKind::Var(VarRef::Local(l)) if self.unrolled_value(*l).is_some() => {
                let v = self.unrolled_value(*l).unwrap_or(0);
                self.constant(crate::ir::semantics::cast(Value::I64(v), e.ty))
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
                if arg.ty.is_complex() {
                    return self.complex_neg(a, arg.ty);
                }
                let r = self.unary(*op, a, arg.ty);
                self.normalize(r, arg.ty)
            }
            ExprKind::Binary {
                op: op @ (BinOp::And | BinOp::Or),
                lhs,
                rhs,
            } => self.logic(*op, lhs, rhs),
            ExprKind::Binary {
                op: op @ (BinOp::Div | BinOp::Rem),
                lhs,
                rhs,
            } if safe_literal_divisor(lhs.ty, rhs).is_some() => {
                // A literal divisor that can neither be zero nor `MIN / -1`:
                // one `div`/`rem` by an immediate (ptxas turns it into a
                // multiply and shifts) instead of the guarded form, which
                // leaves ptxas a 64-bit division routine.
                let d = safe_literal_divisor(lhs.ty, rhs).unwrap_or(1);
                let a = self.expr(lhs);
                let r = self.div_rem_by_literal(*op, a, d, lhs.ty);
                self.normalize(r, lhs.ty)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let a = self.expr(lhs);
                let b = self.expr(rhs);
                let b = if matches!(op, BinOp::Shl | BinOp::Shr) || rhs.ty == lhs.ty {
                    b
                } else {
                    self.convert(b, rhs.ty, lhs.ty)
                };
                if lhs.ty.is_complex() {
                    return self.complex_binary(*op, a, b, lhs.ty);
                }
                let r = self.binary(*op, a, b, lhs.ty);
                if op.is_comparison() {
                    r
                } else {
                    self.normalize(r, lhs.ty)
                }
            }
            ExprKind::Cast { arg } => {
                let a = self.expr(arg);
                self.convert(a, arg.ty, e.ty)
            }
            ExprKind::Select { cond, then, else_ } => self.select(cond, then, else_, e.ty),
            ExprKind::Call { func, args } => self.call(*func, args, e.ty),
        }
    }

    pub(super) fn predicate(&mut self, r: Reg, ty: ScalarType) -> Reg {
        if r.class == Class::Pred {
            r
        } else {
            self.convert(r, ty, ScalarType::Bool)
        }
    }

    /// `&&` / `||`: evaluates the right side only when needed if it reads memory.
    fn logic(&mut self, op: BinOp, lhs: &'a Expr, rhs: &'a Expr) -> Reg {
        let a = self.expr(lhs);
        let a = self.predicate(a, lhs.ty);
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
            let b = self.predicate(b, rhs.ty);
            self.mov(r, b);
            self.place(&skip);
            r
        } else {
            let b = self.expr(rhs);
            let b = self.predicate(b, rhs.ty);
            let r = self.reg(Class::Pred);
            self.ins(format!("{f}.pred {r}, {a}, {b}"));
            r
        };
        self.conditional = outer;
        result
    }

    /// `if c { a } else { b }`: `selp` when neither side reads memory, branches otherwise.
    pub(super) fn select(
        &mut self,
        cond: &'a Expr,
        then: &'a Expr,
        else_: &'a Expr,
        ty: ScalarType,
    ) -> Reg {
        let c = self.expr(cond);
        let c = self.predicate(c, cond.ty);
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

    pub(super) fn selp(&mut self, c: Reg, a: Reg, b: Reg) -> Reg {
        let r = self.reg(a.class);
        if a.class.is_pair() {
            let t = &a.class.decl()[1..];
            self.ins(format!("selp.{t} {}, {}, {}, {c}", r.re(), a.re(), b.re()));
            self.ins(format!("selp.{t} {}, {}, {}, {c}", r.im(), a.im(), b.im()));
        } else if a.class == Class::Pred {
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
    pub(super) fn int_negate(&mut self, dst: Reg, a: Reg, ty: ScalarType) {
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

    pub(super) fn binary(&mut self, op: BinOp, a: Reg, b: Reg, ty: ScalarType) -> Reg {
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

    /// `a / d` or `a % d` for a divisor of [`safe_literal_divisor`]. A
    /// positive power of two takes shifts (ptxas calls a routine for a
    /// 64-bit `div` even by an immediate): truncating signed division adds
    /// `d - 1` to a negative dividend before the arithmetic shift, and the
    /// remainder is `a - (a / d) * d`. Other divisors: one `div`/`rem` by
    /// the immediate.
    fn div_rem_by_literal(&mut self, op: BinOp, a: Reg, d: i32, ty: ScalarType) -> Reg {
        let (t, bs, bits) = (arith(ty), bits_suffix(ty), ty.bits());
        let r = self.reg(a.class);
        if d <= 0 || d.count_ones() != 1 {
            let f = if op == BinOp::Div { "div" } else { "rem" };
            self.ins(format!("{f}.{t} {r}, {a}, {d}"));
            return r;
        }
        let k = d.trailing_zeros();
        if k == 0 {
            // `a / 1 == a`, `a % 1 == 0`.
            if op == BinOp::Div {
                self.mov(r, a);
            } else {
                self.ins(format!("mov.{bs} {r}, 0"));
            }
            return r;
        }
        let q = self.reg(a.class);
        if ty.is_signed_integer() {
            let bias = self.reg(a.class);
            self.ins(format!("shr.s{bits} {bias}, {a}, {}", bits - 1));
            self.ins(format!("shr.u{bits} {bias}, {bias}, {}", bits - k));
            self.ins(format!("add.s{bits} {bias}, {a}, {bias}"));
            self.ins(format!("shr.s{bits} {q}, {bias}, {k}"));
        } else {
            self.ins(format!("shr.u{bits} {q}, {a}, {k}"));
        }
        if op == BinOp::Div {
            return q;
        }
        self.ins(format!("shl.b{bits} {r}, {q}, {k}"));
        self.ins(format!("sub.{t} {r}, {a}, {r}"));
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

    /// Shifts: the amount (any integer type) is masked to the width of `a`.
    pub(super) fn shift(&mut self, op: BinOp, a: Reg, b: Reg, ty: ScalarType) -> Reg {
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
    pub(super) fn compare(&mut self, op: BinOp, a: Reg, b: Reg, ty: ScalarType) -> Reg {
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

    /// `v as to` with Rust's semantics (see `crate::ir::semantics::cast`).
    pub(super) fn convert(&mut self, v: Reg, from: ScalarType, to: ScalarType) -> Reg {
        use ScalarType::*;
        if from == to {
            return v;
        }
        if Class::of(from) != v.class {
            // Defensive: a value whose register does not match its type
            // (invalid IR); use zero rather than emit ill-typed PTX.
            return self.constant(Value::from_bits(to, 0));
        }
        if from.is_half_float() || to.is_half_float() {
            return self.convert_half(v, from, to);
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
                // Registers hold 32 or 64 bits (narrow types extended by
                // their own signedness, so widening reads the source's).
                let (fw, tw) = (f.bits().max(32), t.bits().max(32));
                if fw == tw {
                    self.mov(r, v);
                } else if fw > tw {
                    self.ins(format!("cvt.u32.u64 {r}, {v}"));
                } else if f.is_signed_integer() {
                    self.ins(format!("cvt.s64.s32 {r}, {v}"));
                } else {
                    self.ins(format!("cvt.u64.u32 {r}, {v}"));
                }
                return self.normalize(r, t);
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
                    (u64::MAX >> (64 - t.bits() + t.is_signed_integer() as u32)) as u128,
                ));
                let min = if t.is_signed_integer() {
                    immediate(Value::from_bits(t, 1u128 << (t.bits() - 1)))
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

/// The value of `rhs` when it is an integer literal of `ty` (32 or 64 bits)
/// by which `/` and `%` need no guard: not zero, and not -1 (`MIN / -1`);
/// within `i32` (a plain PTX immediate of every integer type).
fn safe_literal_divisor(ty: ScalarType, rhs: &Expr) -> Option<i32> {
    let ExprKind::Lit(v) = &rhs.kind else {
        return None;
    };
    let d = i32::try_from(v.as_i128()?).ok()?;
    let unsigned_ok = ty.is_signed_integer() || d > 0;
    (ty.is_integer()
        && rhs.ty == ty
        && matches!(ty.bits(), 32 | 64)
        && d != 0
        && d != -1
        && unsigned_ok)
        .then_some(d)
}
