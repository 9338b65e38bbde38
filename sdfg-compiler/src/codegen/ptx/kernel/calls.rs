//! Calls of the module's subroutines: the math functions and the exact
//! float remainder.

use super::regs::{arith, Class, Reg};
use super::KernelEmitter;
use crate::codegen::ptx::MathFunc;
use crate::ir::{Expr, MathFn, ScalarType, Value};
use crate::math;
use std::fmt::Write;

impl<'a> KernelEmitter<'a> {
    pub(super) fn call(&mut self, func: MathFn, args: &'a [Expr], ty: ScalarType) -> Reg {
        let Some(first) = args.first() else {
            return self.constant(Value::from_bits(ty, 0));
        };
        if first.ty.is_complex() || func == MathFn::Complex {
            return self.complex_call(func, args, ty);
        }
        let a = self.expr(first);
        let a = self.convert(a, first.ty, ty);
        let second = match args.get(1) {
            Some(e) => {
                let r = self.expr(e);
                let want = if func == MathFn::Powi {
                    ScalarType::I32
                } else {
                    ty
                };
                Some(self.convert(r, e.ty, want))
            }
            None => None,
        };
        let r = self.reg_of(ty);
        let t = arith(ty);
        match func {
            MathFn::Abs if ty.is_float() => self.ins(format!("abs.{t} {r}, {a}")),
            MathFn::Abs if ty.is_signed_integer() => {
                // Wrapping: |MIN| == MIN.
                let neg = self.reg(a.class);
                self.int_negate(neg, a, ty);
                let p = self.reg(Class::Pred);
                self.ins(format!("setp.lt.{t} {p}, {a}, 0"));
                self.ins(format!("selp.{t} {r}, {neg}, {a}, {p}"));
                return self.normalize(r, ty);
            }
            MathFn::Min | MathFn::Max if ty != ScalarType::Bool => {
                let b = second.unwrap_or(a);
                let f = if func == MathFn::Min { "min" } else { "max" };
                // Float min/max return the non-NaN operand, like Rust.
                self.ins(format!("{f}.{t} {r}, {a}, {b}"));
            }
            _ if !ty.is_float() => return a,
            MathFn::Sqrt => self.ins(format!("sqrt.rn.{t} {r}, {a}")),
            MathFn::Floor => self.ins(format!("cvt.rmi.{t}.{t} {r}, {a}")),
            MathFn::Ceil => self.ins(format!("cvt.rpi.{t}.{t} {r}, {a}")),
            MathFn::MulAdd => {
                let b = second.unwrap_or(a);
                let c = match args.get(2) {
                    Some(e) => {
                        let x = self.expr(e);
                        self.convert(x, e.ty, ty)
                    }
                    None => a,
                };
                // One rounding: `a * b + c` as IEEE fusedMultiplyAdd.
                self.ins(format!("fma.rn.{t} {r}, {a}, {b}, {c}"));
            }
            f if f.is_transcendental() || f == MathFn::Powi => {
                let mut operands = vec![a];
                operands.extend(second);
                if ty.is_half_float() {
                    // The f32 function, rounded once to the 16-bit type.
                    let wide = self.call_subroutine(func, ScalarType::F32, &operands);
                    return self.normalize(wide, ty);
                }
                return self.call_subroutine(func, ty, &operands);
            }
            // abs, min and max of bool (rejected by validation).
            _ => self.mov(r, a),
        }
        // f16/bf16: `sqrt` rounds (the others are exact, rounding keeps them).
        self.normalize(r, ty)
    }

    /// A call of the subroutine of `func` for floats of type `ty` (f32 or
    /// f64) with `operands` (of type `ty`; `powi`'s exponent an i32).
    pub(super) fn call_subroutine(
        &mut self,
        func: MathFn,
        ty: ScalarType,
        operands: &[Reg],
    ) -> Reg {
        if let (MathFn::Exp, ScalarType::F32, [a]) = (func, ty, operands) {
            // Inline (no call): see `exp_f32_inline`.
            let r = self.reg_of(ty);
            self.code
                .push_str(&math::exp_f32_inline(&a.to_string(), &r.to_string()));
            return r;
        }
        let mf = MathFunc::Call {
            func,
            f32: ty == ScalarType::F32,
        };
        self.funcs.insert(mf);
        let t = arith(ty);
        let r = self.reg_of(ty);
        let mut s = String::from("{\n");
        let _ = writeln!(s, "\t.param .{t} retval;");
        let param_type = |k: usize| {
            if func == MathFn::Powi && k == 1 {
                "s32"
            } else {
                t
            }
        };
        for k in 0..operands.len() {
            let _ = writeln!(s, "\t.param .{} arg{k};", param_type(k));
        }
        for (k, reg) in operands.iter().enumerate() {
            let _ = writeln!(s, "\tst.param.{} [arg{k}], {reg};", param_type(k));
        }
        let names: Vec<String> = (0..operands.len()).map(|k| format!("arg{k}")).collect();
        let _ = writeln!(s, "\tcall (retval), {}, ({});", mf.name(), names.join(", "));
        let _ = writeln!(s, "\tld.param.{t} {r}, [retval];");
        s.push_str("\t}\n");
        self.code.push_str(&s);
        r
    }

    /// Float `%` (fmod), computed in f64 (exact for f32 operands too, the
    /// remainder being representable): fast path q = trunc(a / b) with the
    /// division rounded toward zero, r = fma(-q, b, a), exact while
    /// |q| < 2^53; otherwise (huge quotients, and every special case the
    /// fast path may get wrong) a call to the exact bitwise `__sdfg_fmod_f64`.
    pub(super) fn float_rem(&mut self, a: Reg, b: Reg, ty: ScalarType) -> Reg {
        let (a, b) = if ty != ScalarType::F64 {
            let a64 = self.convert(a, ty, ScalarType::F64);
            let b64 = self.convert(b, ty, ScalarType::F64);
            (a64, b64)
        } else {
            (a, b)
        };
        let q = self.reg(Class::F64);
        self.ins(format!("div.rz.f64 {q}, {a}, {b}"));
        self.ins(format!("cvt.rzi.f64.f64 {q}, {q}"));
        let nq = self.reg(Class::F64);
        self.ins(format!("neg.f64 {nq}, {q}"));
        let r = self.reg(Class::F64);
        self.ins(format!("fma.rn.f64 {r}, {nq}, {b}, {a}"));
        // The remainder has the sign of a (matters for a zero remainder).
        let abs_r = self.reg(Class::F64);
        self.ins(format!("abs.f64 {abs_r}, {r}"));
        let result = self.reg(Class::F64);
        self.ins(format!("copysign.f64 {result}, {a}, {abs_r}"));
        // Fast path only for finite a, nonzero finite b and |q| < 2^53.
        let fast = self.reg(Class::Pred);
        let p = self.reg(Class::Pred);
        let abs_q = self.reg(Class::F64);
        self.ins(format!("abs.f64 {abs_q}, {q}"));
        self.ins(format!("setp.lt.f64 {fast}, {abs_q}, 0d4340000000000000"));
        self.ins(format!("testp.finite.f64 {p}, {a}"));
        self.ins(format!("and.pred {fast}, {fast}, {p}"));
        let p2 = self.reg(Class::Pred);
        self.ins(format!("testp.finite.f64 {p2}, {b}"));
        self.ins(format!("and.pred {fast}, {fast}, {p2}"));
        let p3 = self.reg(Class::Pred);
        self.ins(format!("setp.ne.f64 {p3}, {b}, 0d0000000000000000"));
        self.ins(format!("and.pred {fast}, {fast}, {p3}"));
        let done = self.label();
        self.ins(format!("@{fast} bra {done}"));
        self.funcs.insert(MathFunc::Fmod);
        let mut s =
            String::from("\t{\n\t.param .f64 retval;\n\t.param .f64 arg0;\n\t.param .f64 arg1;\n");
        let _ = writeln!(s, "\tst.param.f64 [arg0], {a};");
        let _ = writeln!(s, "\tst.param.f64 [arg1], {b};");
        let _ = writeln!(
            s,
            "\tcall (retval), {}, (arg0, arg1);",
            MathFunc::Fmod.name()
        );
        let _ = writeln!(s, "\tld.param.f64 {result}, [retval];");
        s.push_str("\t}\n");
        self.code.push_str(&s);
        self.place(&done);
        if ty != ScalarType::F64 {
            // Exact: the remainder is a value of the operands' type.
            self.convert(result, ScalarType::F64, ty)
        } else {
            result
        }
    }
}
