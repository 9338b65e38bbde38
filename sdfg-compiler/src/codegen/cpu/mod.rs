//! The CPU side of code generation: tasklet bodies as Rust ([`body`]), for
//! every place a body runs on the host ([`place`]: host tasklets, `cpu` and
//! `seq` maps, interstate edges), how a parallel map reaches each container
//! ([`access`]: plain where no two iterations share an element, partials
//! for reductions, atomic cells otherwise), map ranges iterated on the host
//! in chunks or in order ([`ranges`]), index ranges computed once on the
//! host ([`intervals`]), blocks of neighbouring points run side by side
//! where a loop strides across them ([`lanes`]), `min`/`max` loops as
//! vectorizable folds ([`fold`]), reductions into one
//! element per chunk ([`partials`]), and the Rust twin of each
//! `gpu` map that the CPU device runs in place of its PTX kernel ([`twin`],
//! which also holds the chunked loop `cpu` maps share; a block map's in
//! [`block`], its thread maps and block reductions in [`thread_map`]). The glue places these pieces in the state machine.

pub(crate) mod access;
pub(crate) mod block;
pub(crate) mod body;
pub(crate) mod fold;
pub(crate) mod intervals;
pub(crate) mod lanes;
pub(crate) mod partials;
pub(crate) mod place;
pub(crate) mod ranges;
pub(crate) mod replicas;
pub(crate) mod thread_map;
pub(crate) mod tokens;
pub(crate) mod twin;
