//! The CPU side of code generation: tasklet bodies as Rust ([`body`]), for
//! every place a body runs on the host ([`place`]: host tasklets, `cpu` and
//! `seq` maps, interstate edges), map ranges iterated on the host
//! ([`ranges`]), index ranges computed once on the host ([`intervals`]),
//! and the Rust twin of each `gpu` map that the CPU device runs in place of
//! its PTX kernel ([`twin`]; a block map's in [`block`]). The glue places
//! these pieces in the state machine.

pub(crate) mod block;
pub(crate) mod body;
pub(crate) mod intervals;
pub(crate) mod place;
pub(crate) mod ranges;
pub(crate) mod twin;
