//! What the parallel loops of generated code use: the chunking of a map
//! ([`Chunks`], [`for_each_chunk`], [`map_chunks`] on [`Workers`]) and
//! plain access to the memory its iterations own ([`PlainView`],
//! [`assert_covers`]). One fast path for `cpu` maps and kernel twins.

pub use crate::cpu::chunks::{for_each_chunk, map_chunks, Chunks, Workers};
pub use crate::cpu::plain::{assert_covers, PlainView};
