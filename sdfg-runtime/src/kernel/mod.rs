//! Kernels (floor 2, with `device.rs` and `memory/`): modules, launch
//! configurations, arguments, and the CPU twins the CPU device runs.
//!
//! `Device` keeps a cache of loaded modules, so `module.rs` and everything it
//! names sit below `device.rs`; what needs a `Device` (loading, sizing a
//! grid) is in `for_device.rs`, above it.

pub(crate) mod args;
pub(crate) mod cpu_twin;
pub(crate) mod for_device;
pub(crate) mod launch_config;
pub(crate) mod module;
