//! The 16-bit floats `f16` and `bf16`: 16 bits in memory and in `.param`s,
//! an f32 register in between. Arithmetic computes in f32 and rounds each
//! result to the type (to nearest, ties to even: `cvt.rn`) and back to f32,
//! so a register always holds a value of its type, the invariant
//! [`KernelEmitter::normalize`] restores after every instruction that
//! produces one (the 16-bit float analogue of the narrow integers' wrap).
//! For `+ - * /` and `sqrt` the f32 result rounded once equals the
//! correctly rounded 16-bit result (f32 has more than twice the bits plus
//! two), which is what `half`'s operators and the evaluator compute.

use super::regs::{Class, Reg};
use super::KernelEmitter;
use crate::ir::ScalarType;

/// The PTX spelling of a 16-bit float type in `cvt`.
fn cvt_name(ty: ScalarType) -> &'static str {
    if ty == ScalarType::BF16 {
        "bf16"
    } else {
        "f16"
    }
}

impl<'a> KernelEmitter<'a> {
    /// The f32 value `r` rounded to the 16-bit float `ty`, as bits in a
    /// `.b16` register.
    pub(super) fn half_bits_of_f32(&mut self, r: Reg, ty: ScalarType) -> Reg {
        let h = self.reg(Class::B16);
        self.ins(format!("cvt.rn.{}.f32 {h}, {r}", cvt_name(ty)));
        h
    }

    /// The f32 register holding the 16-bit float whose bits are in `h`
    /// (exact).
    pub(super) fn f32_of_half_bits(&mut self, h: Reg, ty: ScalarType) -> Reg {
        let r = self.reg(Class::F32);
        self.ins(format!("cvt.f32.{} {r}, {h}", cvt_name(ty)));
        r
    }

    /// The f32 `r` rounded to `ty` and widened back.
    pub(super) fn round_to_half(&mut self, r: Reg, ty: ScalarType) -> Reg {
        let h = self.half_bits_of_f32(r, ty);
        self.f32_of_half_bits(h, ty)
    }

    /// The f64 `d` rounded once to the 16-bit float `ty`, widened to f32.
    /// f16 converts directly; `cvt.rn.bf16.f64` needs sm_90, so bf16 goes
    /// through f32 rounded to odd (truncate, then set the last bit when
    /// inexact), which makes the second rounding exact (f32 has more than
    /// bf16's bits plus two).
    pub(super) fn half_of_f64(&mut self, d: Reg, ty: ScalarType) -> Reg {
        if ty == ScalarType::F16 {
            let h = self.reg(Class::B16);
            self.ins(format!("cvt.rn.f16.f64 {h}, {d}"));
            return self.f32_of_half_bits(h, ty);
        }
        let truncated = self.reg(Class::F32);
        self.ins(format!("cvt.rz.f32.f64 {truncated}, {d}"));
        let back = self.reg(Class::F64);
        self.ins(format!("cvt.f64.f32 {back}, {truncated}"));
        let exact = self.reg(Class::Pred);
        self.ins(format!("setp.equ.f64 {exact}, {back}, {d}"));
        let bits = self.reg(Class::B32);
        self.ins(format!("mov.b32 {bits}, {truncated}"));
        let odd = self.reg(Class::B32);
        self.ins(format!("or.b32 {odd}, {bits}, 1"));
        self.ins(format!("selp.b32 {bits}, {bits}, {odd}, {exact}"));
        let sticky = self.reg(Class::F32);
        self.ins(format!("mov.b32 {sticky}, {bits}"));
        self.round_to_half(sticky, ty)
    }

    /// `v as to` where `from` or `to` is a 16-bit float: a 16-bit float
    /// is the f32 in its register; a value becomes one by one rounding
    /// from f64, or from f32 after the conversion to f32 (the semantics of
    /// `ir::semantics::cast`).
    pub(super) fn convert_half(&mut self, v: Reg, from: ScalarType, to: ScalarType) -> Reg {
        let from = if from.is_half_float() {
            ScalarType::F32
        } else {
            from
        };
        if !to.is_half_float() {
            return self.convert(v, from, to);
        }
        if from == ScalarType::F64 {
            return self.half_of_f64(v, to);
        }
        let wide = self.convert(v, from, ScalarType::F32);
        self.round_to_half(wide, to)
    }

    /// A 16-bit float from memory or a `.param` (the `ld` of 16 bits that
    /// `load` spells for the `.b16` destination it gets), widened to f32;
    /// `zero_first` for a guarded load (it yields zero when skipped).
    pub(super) fn half_load(
        &mut self,
        ty: ScalarType,
        zero_first: bool,
        load: impl FnOnce(Reg) -> String,
    ) -> Reg {
        let h = self.reg(Class::B16);
        if zero_first {
            self.ins(format!("mov.b16 {h}, 0"));
        }
        let text = load(h);
        self.ins(text);
        self.f32_of_half_bits(h, ty)
    }
}
