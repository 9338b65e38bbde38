//! What the parallel loops of generated code use: the chunking of a map
//! ([`Chunks`], [`for_each_chunk`], [`map_chunks`] on [`Workers`]) and
//! plain access to the memory its iterations own ([`PlainView`],
//! [`assert_covers`]), and whether a twin may use the CPU's FMA
//! ([`has_fma`]). One fast path for `cpu` maps and kernel twins.

pub use crate::cpu::chunks::{for_each_chunk, map_chunks, Chunks, Workers};
pub use crate::cpu::fused::has_fma;
pub use crate::cpu::plain::{assert_covers, PlainView};
