//! Values narrower than a register: `i8 u8 i16 u16` live in a 32-bit
//! register, sign- or zero-extended from their width (the invariant every
//! instruction that produces one restores with [`KernelEmitter::normalize`]:
//! loads, parameters and conversions extend by themselves, arithmetic wraps
//! by normalizing its 32-bit result); and read-modify-write updates of 1- and
//! 2-byte elements, for which PTX has no atomics: a compare-and-swap loop on
//! the aligned 32-bit word that holds the element.

use super::regs::{Class, Reg};
use super::KernelEmitter;
use crate::ir::ScalarType;

impl<'a> KernelEmitter<'a> {
    /// `r` wrapped to the width of the narrow integer type `ty` and
    /// extended back to 32 bits (a no-op for other types).
    /// For `f16`/`bf16` in their f32 register: rounded to the type.
    pub(super) fn normalize(&mut self, r: Reg, ty: ScalarType) -> Reg {
        if ty.is_half_float() && r.class == Class::F32 {
            return self.round_to_half(r, ty);
        }
        if !ty.is_narrow_integer() || r.class != Class::B32 {
            return r;
        }
        let out = self.reg(Class::B32);
        let src = match ty {
            ScalarType::I8 => "s8",
            ScalarType::U8 => "u8",
            ScalarType::I16 => "s16",
            _ => "u16",
        };
        let dst = if ty.is_signed_integer() { "s32" } else { "u32" };
        self.ins(format!("cvt.{dst}.{src} {out}, {r}"));
        out
    }

    /// An update of the `bytes`-wide (1 or 2) element at `addr`: a CAS loop
    /// on the containing aligned word. `update` gets the element's old value
    /// (its bits zero-extended in a 32-bit register) and returns the new bits
    /// (only the low `8 * bytes` are stored). Only this element's bits of the
    /// word change, so neighbours updated concurrently are never lost.
    pub(super) fn subword_update(
        &mut self,
        addr: Reg,
        bytes: u32,
        update: impl FnOnce(&mut Self, Reg) -> Reg,
    ) {
        let mask = if bytes == 1 { 0xFF } else { 0xFFFF };
        let word = self.reg(Class::B64);
        self.ins(format!("and.b64 {word}, {addr}, -4"));
        let byte_off = self.reg(Class::B64);
        self.ins(format!("and.b64 {byte_off}, {addr}, 3"));
        let shift = self.reg(Class::B32);
        self.ins(format!("cvt.u32.u64 {shift}, {byte_off}"));
        self.ins(format!("shl.b32 {shift}, {shift}, 3"));
        let keep = self.reg(Class::B32);
        self.ins(format!("mov.b32 {keep}, {mask}"));
        self.ins(format!("shl.b32 {keep}, {keep}, {shift}"));
        self.ins(format!("not.b32 {keep}, {keep}"));
        let expected = self.reg(Class::B32);
        self.ins(format!("ld.global.b32 {expected}, [{word}]"));
        let head = self.label();
        self.place(&head);
        let old = self.reg(Class::B32);
        self.ins(format!("shr.b32 {old}, {expected}, {shift}"));
        self.ins(format!("and.b32 {old}, {old}, {mask}"));
        let new = update(self, old);
        let new_bits = self.reg(Class::B32);
        self.ins(format!("and.b32 {new_bits}, {new}, {mask}"));
        self.ins(format!("shl.b32 {new_bits}, {new_bits}, {shift}"));
        let desired = self.reg(Class::B32);
        self.ins(format!("and.b32 {desired}, {expected}, {keep}"));
        self.ins(format!("or.b32 {desired}, {desired}, {new_bits}"));
        let got = self.reg(Class::B32);
        self.ins(format!(
            "atom.global.cas.b32 {got}, [{word}], {expected}, {desired}"
        ));
        let same = self.reg(Class::Pred);
        self.ins(format!("setp.eq.b32 {same}, {got}, {expected}"));
        self.mov(expected, got);
        self.ins(format!("@!{same} bra {head}"));
    }
}
