//! Whether kernel twins may use the CPU's fused multiply-add instruction.
//!
//! A crate built for the default x86-64 target (no `-C target-cpu`) cannot
//! assume FMA, so `f32::mul_add` compiles to a call into libm's `fmaf`: a
//! function call per element, which also keeps the loop around it from
//! being vectorized. A twin whose tasklets call `mul_add` is therefore
//! compiled a second time with `#[target_feature(enable = "fma")]`, and
//! runs that copy when [`has_fma`] says the CPU has the instruction. The
//! results are the same bits either way: both round the fused product
//! once, as IEEE 754 (and the GPU's `fma.rn`) define it.

/// True when this CPU executes FMA (x86-64 only; elsewhere `mul_add`
/// needs no second copy) and `SDFG_CPU_FMA=off` does not turn it off
/// (for measuring the difference). Public as `sdfg::runtime::cpu_fma`, so
/// that hand-written host code (the bench's rayon baseline) can choose
/// its own FMA copy exactly when the CPU device does.
///
/// ```
/// // The same answer every time: decided once per process.
/// assert_eq!(sdfg_runtime::cpu_fma(), sdfg_runtime::cpu_fma());
/// ```
pub fn has_fma() -> bool {
    static HAS_FMA: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS_FMA.get_or_init(|| {
        let wanted = std::env::var("SDFG_CPU_FMA").map_or(true, |v| v != "off");
        wanted && cpu_has_fma()
    })
}

#[cfg(target_arch = "x86_64")]
fn cpu_has_fma() -> bool {
    std::arch::is_x86_feature_detected!("fma")
}

#[cfg(not(target_arch = "x86_64"))]
fn cpu_has_fma() -> bool {
    false
}

#[cfg(test)]
mod tests {
    #[test]
    fn has_fma_follows_the_cpu_unless_turned_off() {
        let off = std::env::var("SDFG_CPU_FMA").is_ok_and(|v| v == "off");
        assert_eq!(super::has_fma(), !off && super::cpu_has_fma());
    }
}
