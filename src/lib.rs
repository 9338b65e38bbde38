//! sdfg-rs: DaCe-style SDFGs in Rust.
pub use sdfg_compiler as compiler;
pub use sdfg_macros::sdfg;
pub use sdfg_runtime as runtime;
