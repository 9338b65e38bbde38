//! Code generation: PTX kernels for `gpu` maps (`ptx`), Rust for the CPU
//! device and host-side maps/tasklets (`cpu`), and the host state machine
//! written against sdfg-runtime (`host`).
//!
//! `abi` fixes, once, for every `gpu` map, the kernel's parameter list. The
//! PTX kernel, its Rust twin for the CPU device and the host glue that
//! launches either all read this one list, so they agree by construction.

pub mod abi;
pub mod host;
pub mod ptx;
pub(crate) mod rust_body;
