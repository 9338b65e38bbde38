//! The PTX that records a skipped access in the call's fault slot (layout:
//! `codegen::abi`). Free functions over register names, so every kernel
//! emitter records faults the same way.

use crate::codegen::abi::{fault_site, FAULT_INDEX_OFFSET, FAULT_SITE_OFFSET};

/// The addresses of the slot's site and index words, from the slot's
/// address `slot` (the kernel's `Fault` parameter): computed once per
/// kernel.
pub(crate) fn slot_words(slot: &str, site_word: &str, index_word: &str) -> [String; 2] {
    [
        format!("add.s64 {site_word}, {slot}, {FAULT_SITE_OFFSET}"),
        format!("add.s64 {index_word}, {slot}, {FAULT_INDEX_OFFSET}"),
    ]
}

/// Records, when predicate `oob` holds, that access `access` (from 1) of
/// kernel number `kernel` skipped row-major index `index` (a .b64
/// register): `atom.cas` 0 -> site on the site word, so the call's first
/// fault wins, and only the winner stores its index. `old` (.b64) and
/// `won` (.pred) are scratch registers. Generic addressing: the slot is
/// mapped host memory on a GPU.
pub(crate) fn record_fault(
    oob: &str,
    (site_word, index_word): (&str, &str),
    (kernel, access): (usize, u32),
    index: &str,
    (old, won): (&str, &str),
) -> [String; 4] {
    let site = fault_site(kernel, access);
    [
        format!("mov.b64 {old}, 1"),
        format!("@{oob} atom.cas.b64 {old}, [{site_word}], 0, 0x{site:016X}"),
        format!("setp.eq.u64 {won}, {old}, 0"),
        format!("@{won} st.u64 [{index_word}], {index}"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_record_is_a_first_wins_cas_then_the_index() {
        let [a, b] = slot_words("%rd1", "%rd2", "%rd3");
        assert_eq!(a, "add.s64 %rd2, %rd1, 8");
        assert_eq!(b, "add.s64 %rd3, %rd1, 16");
        let code = record_fault("%p4", ("%rd2", "%rd3"), (2, 5), "%rd9", ("%rd10", "%p5"));
        assert_eq!(
            code,
            [
                "mov.b64 %rd10, 1",
                "@%p4 atom.cas.b64 %rd10, [%rd2], 0, 0x0000000300000005",
                "setp.eq.u64 %p5, %rd10, 0",
                "@%p5 st.u64 [%rd3], %rd9",
            ]
        );
    }
}
