//! Complex values (`c32`, `c64`): a pair of f32/f64 registers
//! ([`Class::Z32`], [`Class::Z64`]), interleaved re/im in memory (NumPy's
//! and DaCe's layout). Arithmetic follows num-complex's formulas with one
//! rounding per operation (`mul.rn`/`add.rn`, never fused), so `+ - * /`,
//! `conj`, `norm_sqr`, `re`, `im` and `==` agree bit for bit with the
//! evaluator; `abs` (a hypot), `arg` (an atan2) and `exp` (exp, cos, sin)
//! call the real subroutines and stay within their ULP bounds.

use super::regs::{arith, Class, Reg};
use super::KernelEmitter;
use crate::ir::{BinOp, Expr, MathFn, ScalarType, Value};

impl<'a> KernelEmitter<'a> {
    /// A complex pair from two registers of the part type.
    fn pair(&mut self, ty: ScalarType, re: Reg, im: Reg) -> Reg {
        let z = self.reg_of(ty);
        let t = arith(ty);
        self.ins(format!("mov.{t} {}, {re}", z.re()));
        self.ins(format!("mov.{t} {}, {im}", z.im()));
        z
    }

    /// `a (op) b` on the parts: `add`, `sub` or `mul` with `.rn`, `div.rn`.
    fn part_op(&mut self, op: &str, a: Reg, b: Reg, part: ScalarType) -> Reg {
        let r = self.reg_of(part);
        let t = arith(part);
        self.ins(format!("{op}.rn.{t} {r}, {a}, {b}"));
        r
    }

    /// `a op b` for complex operands (`+ - * /`, `==`, `!=`).
    pub(super) fn complex_binary(&mut self, op: BinOp, a: Reg, b: Reg, ty: ScalarType) -> Reg {
        let part = ty.real_part();
        let t = arith(part);
        let (ar, ai, br, bi) = (a.re(), a.im(), b.re(), b.im());
        match op {
            BinOp::Add | BinOp::Sub => {
                let f = if op == BinOp::Add { "add" } else { "sub" };
                let re = self.part_op(f, ar, br, part);
                let im = self.part_op(f, ai, bi, part);
                self.pair(ty, re, im)
            }
            BinOp::Mul => {
                // (ar br - ai bi) + (ar bi + ai br) i
                let t1 = self.part_op("mul", ar, br, part);
                let t2 = self.part_op("mul", ai, bi, part);
                let re = self.part_op("sub", t1, t2, part);
                let t3 = self.part_op("mul", ar, bi, part);
                let t4 = self.part_op("mul", ai, br, part);
                let im = self.part_op("add", t3, t4, part);
                self.pair(ty, re, im)
            }
            BinOp::Div => {
                // n = br^2 + bi^2; ((ar br + ai bi) / n) + ((ai br - ar bi) / n) i
                let n1 = self.part_op("mul", br, br, part);
                let n2 = self.part_op("mul", bi, bi, part);
                let n = self.part_op("add", n1, n2, part);
                let t1 = self.part_op("mul", ar, br, part);
                let t2 = self.part_op("mul", ai, bi, part);
                let re = self.part_op("add", t1, t2, part);
                let re = self.part_op("div", re, n, part);
                let t3 = self.part_op("mul", ai, br, part);
                let t4 = self.part_op("mul", ar, bi, part);
                let im = self.part_op("sub", t3, t4, part);
                let im = self.part_op("div", im, n, part);
                self.pair(ty, re, im)
            }
            BinOp::Eq | BinOp::Ne => {
                // Part by part: `==` both equal (ordered), `!=` either unequal.
                let (c, join) = if op == BinOp::Eq {
                    ("eq", "and")
                } else {
                    ("neu", "or")
                };
                let p = self.reg(Class::Pred);
                let q = self.reg(Class::Pred);
                self.ins(format!("setp.{c}.{t} {p}, {ar}, {br}"));
                self.ins(format!("setp.{c}.{t} {q}, {ai}, {bi}"));
                let r = self.reg(Class::Pred);
                self.ins(format!("{join}.pred {r}, {p}, {q}"));
                r
            }
            // Rejected by the front end: the left operand.
            _ => a,
        }
    }

    /// `-z`: both parts negated.
    pub(super) fn complex_neg(&mut self, a: Reg, ty: ScalarType) -> Reg {
        let t = arith(ty.real_part());
        let z = self.reg_of(ty);
        self.ins(format!("neg.{t} {}, {}", z.re(), a.re()));
        self.ins(format!("neg.{t} {}, {}", z.im(), a.im()));
        z
    }

    /// `c64::new(re, im)` and the functions of a complex value; `ty` is the
    /// call's type (complex, or the part type for `abs norm_sqr arg re im`).
    pub(super) fn complex_call(&mut self, func: MathFn, args: &'a [Expr], ty: ScalarType) -> Reg {
        if func == MathFn::Complex {
            let part = ty.real_part();
            let mut parts = Vec::new();
            for e in args.iter().take(2) {
                let r = self.expr(e);
                parts.push(self.convert(r, e.ty, part));
            }
            let zero = self.constant(Value::from_bits(part, 0));
            let (re, im) = (parts.first().copied(), parts.get(1).copied());
            return self.pair(ty, re.unwrap_or(zero), im.unwrap_or(zero));
        }
        let z_ty = args[0].ty;
        let part = z_ty.real_part();
        let t = arith(part);
        let z = self.expr(&args[0]);
        match func {
            MathFn::Re | MathFn::Im => {
                let r = self.reg_of(part);
                let src = if func == MathFn::Re { z.re() } else { z.im() };
                self.ins(format!("mov.{t} {r}, {src}"));
                r
            }
            MathFn::Conj => {
                let im = self.reg_of(part);
                self.ins(format!("neg.{t} {im}, {}", z.im()));
                self.pair(z_ty, z.re(), im)
            }
            MathFn::NormSqr => {
                let a = self.part_op("mul", z.re(), z.re(), part);
                let b = self.part_op("mul", z.im(), z.im(), part);
                self.part_op("add", a, b, part)
            }
            // norm: re.hypot(im); arg: im.atan2(re).
            MathFn::Abs => self.call_subroutine(MathFn::Hypot, part, &[z.re(), z.im()]),
            MathFn::Arg => self.call_subroutine(MathFn::Atan2, part, &[z.im(), z.re()]),
            MathFn::Exp => self.complex_exp(z, z_ty),
            // Rejected by the front end: the value itself.
            _ => z,
        }
    }

    /// num-complex's `exp`: from_polar(e^re, im) = (e^re cos im, e^re sin im),
    /// after its special cases (re = -inf with a non-finite im: 0; re = +inf
    /// with im zero or non-finite: (re, im, an infinite im becoming NaN);
    /// re = NaN with im = 0: z itself).
    fn complex_exp(&mut self, z: Reg, ty: ScalarType) -> Reg {
        let part = ty.real_part();
        let t = arith(part);
        let (re, im) = (z.re(), z.im());
        let r = self.call_subroutine(MathFn::Exp, part, &[re]);
        let c = self.call_subroutine(MathFn::Cos, part, &[im]);
        let s = self.call_subroutine(MathFn::Sin, part, &[im]);
        let out_re = self.part_op("mul", r, c, part);
        let out_im = self.part_op("mul", r, s, part);
        let float =
            |k: &mut Self, x: f64| k.constant(crate::ir::semantics::cast(Value::F64(x), part));
        let inf = float(self, f64::INFINITY);
        let neg_inf = float(self, f64::NEG_INFINITY);
        let zero = float(self, 0.0);
        let nan = float(self, f64::NAN);
        let pred = |k: &mut Self| k.reg(Class::Pred);
        // Predicates on the parts.
        let im_finite = pred(self);
        self.ins(format!("testp.finite.{t} {im_finite}, {im}"));
        let im_zero = pred(self);
        self.ins(format!("setp.eq.{t} {im_zero}, {im}, {zero}"));
        let im_inf = pred(self);
        self.ins(format!("testp.infinite.{t} {im_inf}, {im}"));
        let re_pinf = pred(self);
        self.ins(format!("setp.eq.{t} {re_pinf}, {re}, {inf}"));
        let re_ninf = pred(self);
        self.ins(format!("setp.eq.{t} {re_ninf}, {re}, {neg_inf}"));
        let re_nan = pred(self);
        self.ins(format!("testp.notanumber.{t} {re_nan}, {re}"));
        // re = -inf, im not finite: (0, 0).
        let p1 = pred(self);
        self.ins(format!("and.pred {p1}, {re_ninf}, !{im_finite}"));
        // re = +inf, im zero or not finite: (re, im or NaN).
        let p2 = pred(self);
        self.ins(format!("or.pred {p2}, {im_zero}, !{im_finite}"));
        self.ins(format!("and.pred {p2}, {p2}, {re_pinf}"));
        // re = NaN, im = 0: z.
        let p3 = pred(self);
        self.ins(format!("and.pred {p3}, {re_nan}, {im_zero}"));
        let im_or_nan = self.reg_of(part);
        self.ins(format!("selp.{t} {im_or_nan}, {nan}, {im}, {im_inf}"));
        let res_re = self.reg_of(part);
        let res_im = self.reg_of(part);
        self.ins(format!("selp.{t} {res_re}, {zero}, {out_re}, {p1}"));
        self.ins(format!("selp.{t} {res_im}, {zero}, {out_im}, {p1}"));
        self.ins(format!("selp.{t} {res_re}, {re}, {res_re}, {p2}"));
        self.ins(format!("selp.{t} {res_im}, {im_or_nan}, {res_im}, {p2}"));
        self.ins(format!("selp.{t} {res_re}, {re}, {res_re}, {p3}"));
        self.ins(format!("selp.{t} {res_im}, {im}, {res_im}, {p3}"));
        self.pair(ty, res_re, res_im)
    }

    /// A complex element from state space `space` (with its hints;
    /// `ld.v2`; zero where `guard` skips it).
    pub(super) fn complex_load(
        &mut self,
        ty: ScalarType,
        addr: Reg,
        space: &str,
        guard: &str,
    ) -> Reg {
        let z = self.reg_of(ty);
        let t = arith(ty.real_part());
        if !guard.is_empty() {
            let zero = self.constant(Value::from_bits(ty, 0));
            self.mov(z, zero);
        }
        self.ins(format!(
            "{guard}ld.{space}.v2.{t} {{{}, {}}}, [{addr}]",
            z.re(),
            z.im()
        ));
        z
    }

    /// A complex element to state space `space` (with its hints; `st.v2`).
    pub(super) fn complex_store(&mut self, space: &str, addr: Reg, v: Reg, ty: ScalarType) {
        let t = arith(ty.real_part());
        self.ins(format!(
            "st.{space}.v2.{t} [{addr}], {{{}, {}}}",
            v.re(),
            v.im()
        ));
    }

    /// `A[k] += z` on a complex element: one float reduction per part (the
    /// only reduction of complex values).
    pub(super) fn complex_reduce(&mut self, addr: Reg, v: Reg, ty: ScalarType) {
        let part = ty.real_part();
        let t = arith(part);
        self.ins(format!("red.global.add.{t} [{addr}], {}", v.re()));
        let im_addr = self.reg(Class::B64);
        self.ins(format!("add.s64 {im_addr}, {addr}, {}", part.size_bytes()));
        self.ins(format!("red.global.add.{t} [{im_addr}], {}", v.im()));
    }

    /// A complex scalar parameter: 8 or 16 bytes, re then im.
    pub(super) fn complex_param(&mut self, ty: ScalarType, slot: &str) -> Reg {
        let z = self.reg_of(ty);
        let t = arith(ty.real_part());
        self.ins(format!(
            "ld.param.v2.{t} {{{}, {}}}, {slot}",
            z.re(),
            z.im()
        ));
        z
    }
}
