//! The math functions the tasklet language has and the hardware does not:
//! written once as programs, run in Rust (the evaluator, the tests), emitted
//! as PTX subroutines (`codegen::ptx`) and, for `erf`, which std lacks, as
//! Rust for the CPU device (`codegen::cpu`). A room of the vocabulary floor:
//! like the IR's numeric semantics, every later stage reads it.
//!
//! PTX has no f64 `exp`, `ln`, `sin`, `cos`, `tanh` or `pow`, and its f32
//! `.approx` instructions are too inaccurate (tanh.approx: ~2^-11 relative).
//! Each function here is a *branch-free straight-line program* over the small
//! instruction set of [`Ops`]. The program is generic: [`PtxOps`] turns it
//! into the body of a PTX `.func` (one instruction per call), [`Interp`]
//! executes it in Rust with exactly the semantics of those PTX instructions
//! (`fma.rn` is `f64::mul_add`, `cvt.rni` is `round_ties_even`, ...). The
//! Rust run is therefore an instruction-by-instruction mirror of the PTX by
//! construction, and the tests compare it with `std` over many inputs to
//! establish the bounds in [`crate::codegen::ptx::ULP_BOUNDS`].
//!
//! `erf` has no `std` counterpart for the CPU device and the evaluator to
//! call, so its program is their implementation too: [`RustOps`] emits it as
//! a Rust function (one `let` per instruction, each the expression `Interp`
//! evaluates), which the CPU backend puts at every `erf` call, and the
//! evaluator runs the program on `Interp`. One source (`erf.rs`), three
//! executions that agree bit for bit; the tests compare it with glibc's `erf`.
//!
//! f32 versions convert to f64 (exact), run the f64 program and round once
//! with `cvt.rn.f32.f64`, except `exp`, which has an f32 program of its own
//! (`exp_f32`: softmax-like kernels would otherwise be bound by the f64
//! units).
//!
//! `powi` (a loop) and its mirror are written out by hand: repeated
//! squaring exactly as compiler-rt's `__powidf2`/`__powisf2`, which is what
//! Rust's `powi` calls, so it is bit-exact; so is the exact `fmod`.
//!
//! The rooms: [`Ops`] (the instruction set, here) and `horner`; `blocks`
//! (bit fields and double-double steps); `reduce` (the range reductions of
//! exp, ln, sin and cos); `functions` (the f64 programs of exp, ln, sin,
//! cos, tanh and pow, which the f32 functions wrap); `inverse` (atan2,
//! atan, asin, acos); `hyperbolic` (sinh, cosh); `roots` (hypot, cbrt);
//! `erf`; [`Interp`] and [`mirror`] (the Rust executor and the
//! mirrors the tests call); [`PtxOps`] (the PTX emitter); [`RustOps`] (the
//! Rust emitter); `handwritten`
//! (`powi` and `fmod`, PTX with loops, and their mirrors); `exp_f32` (f32
//! `exp` in f32 arithmetic, PTX and mirror).

mod blocks;
mod erf;
mod exp_f32;
mod functions;
mod handwritten;
mod hyperbolic;
mod interp;
mod inverse;
mod ptx_ops;
mod reduce;
mod roots;
mod rust_ops;

pub use erf::erf_prog;
pub use exp_f32::{exp_f32_function, exp_f32_inline, exp_f32_mirror};
pub use functions::{cos_prog, exp_prog, ln_prog, powf_prog, sin_prog, tanh_prog};
pub use handwritten::{fmod_function, fmod_mirror, powi_function};
pub use hyperbolic::{cosh_prog, sinh_prog};
pub use interp::{mirror, Interp};
pub use inverse::{acos_prog, asin_prog, atan2_prog, atan_prog};
pub use ptx_ops::PtxOps;
pub use reduce::TRIG_DOMAIN;
pub use roots::{cbrt_prog, hypot_prog};
pub use rust_ops::RustOps;

/// The instruction set of the math programs. `F`: an f64 value, `I`: an
/// i64/b64 value, `P`: a predicate.
pub trait Ops {
    type F: Copy;
    type I: Copy;
    type P: Copy;
    fn fconst(&mut self, v: f64) -> Self::F;
    fn iconst(&mut self, v: i64) -> Self::I;
    /// `add.rn.f64`
    fn add(&mut self, a: Self::F, b: Self::F) -> Self::F;
    /// `sub.rn.f64`
    fn sub(&mut self, a: Self::F, b: Self::F) -> Self::F;
    /// `mul.rn.f64`
    fn mul(&mut self, a: Self::F, b: Self::F) -> Self::F;
    /// `div.rn.f64`
    fn div(&mut self, a: Self::F, b: Self::F) -> Self::F;
    /// `fma.rn.f64`: a * b + c with one rounding.
    fn fma(&mut self, a: Self::F, b: Self::F, c: Self::F) -> Self::F;
    /// `neg.f64`
    fn neg(&mut self, a: Self::F) -> Self::F;
    /// `abs.f64`
    fn abs(&mut self, a: Self::F) -> Self::F;
    /// `sqrt.rn.f64` (correctly rounded)
    fn sqrt(&mut self, a: Self::F) -> Self::F;
    /// `cvt.rni.f64.f64`: round to nearest integer, ties to even.
    fn rint(&mut self, a: Self::F) -> Self::F;
    /// `cvt.rzi.s64.f64` (saturating, NaN -> 0).
    fn f2i(&mut self, a: Self::F) -> Self::I;
    /// `cvt.rn.f64.s64`
    fn i2f(&mut self, a: Self::I) -> Self::F;
    /// `mov.b64` f64 -> bits
    fn bits(&mut self, a: Self::F) -> Self::I;
    /// `mov.b64` bits -> f64
    fn float(&mut self, a: Self::I) -> Self::F;
    fn iadd(&mut self, a: Self::I, b: Self::I) -> Self::I;
    fn isub(&mut self, a: Self::I, b: Self::I) -> Self::I;
    fn iand(&mut self, a: Self::I, b: Self::I) -> Self::I;
    fn ior(&mut self, a: Self::I, b: Self::I) -> Self::I;
    /// `shl.b64` by a constant
    fn ishl(&mut self, a: Self::I, n: u32) -> Self::I;
    /// `shr.s64` (arithmetic) by a constant
    fn isar(&mut self, a: Self::I, n: u32) -> Self::I;
    /// `setp.lt.f64` (ordered)
    fn flt(&mut self, a: Self::F, b: Self::F) -> Self::P;
    /// `setp.gt.f64` (ordered)
    fn fgt(&mut self, a: Self::F, b: Self::F) -> Self::P;
    /// `setp.eq.f64` (ordered)
    fn feq(&mut self, a: Self::F, b: Self::F) -> Self::P;
    /// `setp.nan.f64`: either operand NaN
    fn isnan(&mut self, a: Self::F) -> Self::P;
    /// `setp.lt.s64`
    fn ilt(&mut self, a: Self::I, b: Self::I) -> Self::P;
    /// `setp.eq.s64`
    fn ieq(&mut self, a: Self::I, b: Self::I) -> Self::P;
    fn pand(&mut self, a: Self::P, b: Self::P) -> Self::P;
    fn por(&mut self, a: Self::P, b: Self::P) -> Self::P;
    fn pnot(&mut self, a: Self::P) -> Self::P;
    /// `selp.f64 d, a, b, p` (p ? a : b)
    fn sel(&mut self, p: Self::P, a: Self::F, b: Self::F) -> Self::F;
    /// `selp.b64`
    fn seli(&mut self, p: Self::P, a: Self::I, b: Self::I) -> Self::I;
    /// `mul.lo.u64` (wrapping)
    fn imul_lo(&mut self, a: Self::I, b: Self::I) -> Self::I;
    /// `mul.hi.u64`: the high 64 bits of the unsigned 128-bit product
    fn imul_hi(&mut self, a: Self::I, b: Self::I) -> Self::I;
    /// `shr.u64` (logical) by a constant
    fn ishr(&mut self, a: Self::I, n: u32) -> Self::I;
    /// `shl.b64` by a register amount (amounts >= 64 give 0)
    fn ishl_var(&mut self, a: Self::I, n: Self::I) -> Self::I;
    /// `shr.u64` by a register amount (amounts >= 64 give 0)
    fn ishr_var(&mut self, a: Self::I, n: Self::I) -> Self::I;
    /// `setp.lt.u64`
    fn iult(&mut self, a: Self::I, b: Self::I) -> Self::P;
    /// `cvt.rn.f64.u64`
    fn u2f(&mut self, a: Self::I) -> Self::F;
    /// Starts a block the PTX skips (a branch) when `p` is false. Values
    /// computed inside must only be used through a `sel` on `p`; the Rust
    /// executor computes them anyway, which cannot change a selected result.
    fn skip_unless(&mut self, p: Self::P) -> u32;
    fn end_skip(&mut self, label: u32);
}

/// Horner evaluation `((c[0] * x + c[1]) * x + ...) + c[n-1]` with `fma.rn`.
fn horner<O: Ops>(o: &mut O, x: O::F, coeffs: &[f64]) -> O::F {
    let mut acc = o.fconst(coeffs[0]);
    for &c in &coeffs[1..] {
        let k = o.fconst(c);
        acc = o.fma(acc, x, k);
    }
    acc
}

fn factorial(n: u32) -> f64 {
    (1..=n).fold(1.0f64, |a, k| a * k as f64)
}
