//! Export of an SDFG for people and for DaCe.
//!
//! - [`dot`]: a Graphviz drawing (states as clusters, maps, tasklets,
//!   copies, memlets, interstate edges; with a schedule, streams, events and
//!   sync points).
//! - [`dace`]: the DaCe 1.x `.sdfg` JSON, loadable by `dace.SDFG.from_file`.
//! - [`print`]: tasklet-language expressions in Rust and Python syntax;
//!   [`cpp`]: tasklet bodies in C++ (DaCe's tasklet language here).
//!
//! Every function here accepts any IR the front end can produce and never
//! panics; dangling ids print as `?name` placeholders.

pub mod cpp;
pub mod dace;
pub mod dot;
pub mod print;
