//! The Rust executor of the programs and the mirrors built on it.

use super::handwritten::powi_mirror;
use super::Ops;

/// The Rust executor of [`Ops`]: each method is the semantics of its PTX instruction.
pub struct Interp;

impl Ops for Interp {
    type F = f64;
    type I = i64;
    type P = bool;
    fn fconst(&mut self, v: f64) -> f64 {
        v
    }
    fn iconst(&mut self, v: i64) -> i64 {
        v
    }
    fn add(&mut self, a: f64, b: f64) -> f64 {
        a + b
    }
    fn sub(&mut self, a: f64, b: f64) -> f64 {
        a - b
    }
    fn mul(&mut self, a: f64, b: f64) -> f64 {
        a * b
    }
    fn div(&mut self, a: f64, b: f64) -> f64 {
        a / b
    }
    fn fma(&mut self, a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, c)
    }
    fn neg(&mut self, a: f64) -> f64 {
        -a
    }
    fn abs(&mut self, a: f64) -> f64 {
        a.abs()
    }
    fn sqrt(&mut self, a: f64) -> f64 {
        a.sqrt()
    }
    fn rint(&mut self, a: f64) -> f64 {
        a.round_ties_even()
    }
    fn f2i(&mut self, a: f64) -> i64 {
        a as i64
    }
    fn i2f(&mut self, a: i64) -> f64 {
        a as f64
    }
    fn bits(&mut self, a: f64) -> i64 {
        a.to_bits() as i64
    }
    fn float(&mut self, a: i64) -> f64 {
        f64::from_bits(a as u64)
    }
    fn iadd(&mut self, a: i64, b: i64) -> i64 {
        a.wrapping_add(b)
    }
    fn isub(&mut self, a: i64, b: i64) -> i64 {
        a.wrapping_sub(b)
    }
    fn iand(&mut self, a: i64, b: i64) -> i64 {
        a & b
    }
    fn ior(&mut self, a: i64, b: i64) -> i64 {
        a | b
    }
    fn ishl(&mut self, a: i64, n: u32) -> i64 {
        a.wrapping_shl(n)
    }
    fn isar(&mut self, a: i64, n: u32) -> i64 {
        a >> n
    }
    fn flt(&mut self, a: f64, b: f64) -> bool {
        a < b
    }
    fn fgt(&mut self, a: f64, b: f64) -> bool {
        a > b
    }
    fn feq(&mut self, a: f64, b: f64) -> bool {
        a == b
    }
    fn isnan(&mut self, a: f64) -> bool {
        a.is_nan()
    }
    fn ilt(&mut self, a: i64, b: i64) -> bool {
        a < b
    }
    fn ieq(&mut self, a: i64, b: i64) -> bool {
        a == b
    }
    fn pand(&mut self, a: bool, b: bool) -> bool {
        a && b
    }
    fn por(&mut self, a: bool, b: bool) -> bool {
        a || b
    }
    fn pnot(&mut self, a: bool) -> bool {
        !a
    }
    fn sel(&mut self, p: bool, a: f64, b: f64) -> f64 {
        if p {
            a
        } else {
            b
        }
    }
    fn seli(&mut self, p: bool, a: i64, b: i64) -> i64 {
        if p {
            a
        } else {
            b
        }
    }
    fn imul_lo(&mut self, a: i64, b: i64) -> i64 {
        a.wrapping_mul(b)
    }
    fn imul_hi(&mut self, a: i64, b: i64) -> i64 {
        ((a as u64 as u128 * b as u64 as u128) >> 64) as u64 as i64
    }
    fn ishr(&mut self, a: i64, n: u32) -> i64 {
        ((a as u64) >> n) as i64
    }
    fn ishl_var(&mut self, a: i64, n: i64) -> i64 {
        // PTX takes the amount as u32 (low bits) and clamps it to 64.
        let n = n as u64 as u32;
        if n >= 64 {
            0
        } else {
            ((a as u64) << n) as i64
        }
    }
    fn ishr_var(&mut self, a: i64, n: i64) -> i64 {
        let n = n as u64 as u32;
        if n >= 64 {
            0
        } else {
            ((a as u64) >> n) as i64
        }
    }
    fn iult(&mut self, a: i64, b: i64) -> bool {
        (a as u64) < (b as u64)
    }
    fn u2f(&mut self, a: i64) -> f64 {
        a as u64 as f64
    }
    fn skip_unless(&mut self, _p: bool) -> u32 {
        0
    }
    fn end_skip(&mut self, _label: u32) {}
}

/// The Rust mirrors (what the PTX `.func`s compute).
pub mod mirror {
    use super::super::{
        acos_prog, asin_prog, atan2_prog, atan_prog, cbrt_prog, cos_prog, cosh_prog, erf_prog,
        exp_prog, hypot_prog, ln_prog, powf_prog, sin_prog, sinh_prog, tanh_prog,
    };
    use super::{powi_mirror, Interp};
    use crate::ir::MathFn;
    pub fn exp_f64(x: f64) -> f64 {
        exp_prog(&mut Interp, x)
    }
    pub fn ln_f64(x: f64) -> f64 {
        ln_prog(&mut Interp, x)
    }
    pub fn sin_f64(x: f64) -> f64 {
        sin_prog(&mut Interp, x)
    }
    pub fn cos_f64(x: f64) -> f64 {
        cos_prog(&mut Interp, x)
    }
    pub fn tanh_f64(x: f64) -> f64 {
        tanh_prog(&mut Interp, x)
    }
    pub fn powf_f64(x: f64, y: f64) -> f64 {
        powf_prog(&mut Interp, x, y)
    }
    pub fn atan2_f64(y: f64, x: f64) -> f64 {
        atan2_prog(&mut Interp, y, x)
    }
    pub fn atan_f64(x: f64) -> f64 {
        atan_prog(&mut Interp, x)
    }
    pub fn asin_f64(x: f64) -> f64 {
        asin_prog(&mut Interp, x)
    }
    pub fn acos_f64(x: f64) -> f64 {
        acos_prog(&mut Interp, x)
    }
    pub fn sinh_f64(x: f64) -> f64 {
        sinh_prog(&mut Interp, x)
    }
    pub fn cosh_f64(x: f64) -> f64 {
        cosh_prog(&mut Interp, x)
    }
    pub fn hypot_f64(x: f64, y: f64) -> f64 {
        hypot_prog(&mut Interp, x, y)
    }
    pub fn cbrt_f64(x: f64) -> f64 {
        cbrt_prog(&mut Interp, x)
    }
    /// Also what the evaluator and the CPU device compute (std has no erf).
    pub fn erf_f64(x: f64) -> f64 {
        erf_prog(&mut Interp, x)
    }
    pub fn erf_f32(x: f32) -> f32 {
        erf_f64(x as f64) as f32
    }
    pub fn atan2_f32(y: f32, x: f32) -> f32 {
        atan2_f64(y as f64, x as f64) as f32
    }
    pub fn atan_f32(x: f32) -> f32 {
        atan_f64(x as f64) as f32
    }
    pub fn asin_f32(x: f32) -> f32 {
        asin_f64(x as f64) as f32
    }
    pub fn acos_f32(x: f32) -> f32 {
        acos_f64(x as f64) as f32
    }
    pub fn sinh_f32(x: f32) -> f32 {
        sinh_f64(x as f64) as f32
    }
    pub fn cosh_f32(x: f32) -> f32 {
        cosh_f64(x as f64) as f32
    }
    pub fn hypot_f32(x: f32, y: f32) -> f32 {
        hypot_f64(x as f64, y as f64) as f32
    }
    pub fn cbrt_f32(x: f32) -> f32 {
        cbrt_f64(x as f64) as f32
    }
    /// Not the f64 program: f32 arithmetic of its own (`exp_f32`).
    pub fn exp_f32(x: f32) -> f32 {
        super::super::exp_f32_mirror(x)
    }
    pub fn ln_f32(x: f32) -> f32 {
        ln_f64(x as f64) as f32
    }
    pub fn sin_f32(x: f32) -> f32 {
        sin_f64(x as f64) as f32
    }
    pub fn cos_f32(x: f32) -> f32 {
        cos_f64(x as f64) as f32
    }
    pub fn tanh_f32(x: f32) -> f32 {
        tanh_f64(x as f64) as f32
    }
    pub fn powf_f32(x: f32, y: f32) -> f32 {
        powf_f64(x as f64, y as f64) as f32
    }
    /// The mirror of the subroutine of `f` (a transcendental function or
    /// `powi`, whose exponent is `b as i32`) on f64 values; `b` is ignored
    /// by one-argument functions. None for the exact functions (no
    /// subroutine).
    pub fn call_f64(f: MathFn, a: f64, b: f64) -> Option<f64> {
        Some(match f {
            MathFn::Exp => exp_f64(a),
            MathFn::Ln => ln_f64(a),
            MathFn::Sin => sin_f64(a),
            MathFn::Cos => cos_f64(a),
            MathFn::Tanh => tanh_f64(a),
            MathFn::Powf => powf_f64(a, b),
            MathFn::Powi => powi_f64(a, b as i32),
            MathFn::Atan2 => atan2_f64(a, b),
            MathFn::Asin => asin_f64(a),
            MathFn::Acos => acos_f64(a),
            MathFn::Atan => atan_f64(a),
            MathFn::Sinh => sinh_f64(a),
            MathFn::Cosh => cosh_f64(a),
            MathFn::Hypot => hypot_f64(a, b),
            MathFn::Cbrt => cbrt_f64(a),
            MathFn::Erf => erf_f64(a),
            MathFn::Sqrt
            | MathFn::Abs
            | MathFn::Min
            | MathFn::Max
            | MathFn::Floor
            | MathFn::Ceil
            | MathFn::Conj
            | MathFn::NormSqr
            | MathFn::Arg
            | MathFn::Re
            | MathFn::Im
            | MathFn::Complex
            | MathFn::MulAdd => return None,
        })
    }

    /// [`call_f64`] for f32 values (the f32 subroutines: the f64 program
    /// on the widened arguments, rounded once; `powi` and `exp` in f32).
    pub fn call_f32(f: MathFn, a: f32, b: f32) -> Option<f32> {
        match f {
            MathFn::Powi => return Some(powi_f32(a, b as i32)),
            MathFn::Exp => return Some(exp_f32(a)),
            _ => {}
        }
        call_f64(f, a as f64, b as f64).map(|v| v as f32)
    }

    /// compiler-rt `__powidf2`: the PTX `powi` loop, operation for operation.
    pub fn powi_f64(a: f64, b: i32) -> f64 {
        powi_mirror(a, b, 1.0)
    }
    /// compiler-rt `__powisf2`.
    pub fn powi_f32(a: f32, b: i32) -> f32 {
        powi_mirror(a, b, 1.0)
    }
}
