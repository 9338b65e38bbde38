//! What the `sdfg!` macro emits for one SDFG: its name, PTX, kernels and
//! stream policy.

use crate::kernel::cpu_twin::KernelEntry;

/// How a program uses streams.
///
/// ```
/// use sdfg_runtime::__glue::StreamSpec;
/// assert_ne!(StreamSpec::Default, StreamSpec::Created(1));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamSpec {
    /// Everything on the device's default stream (CUDA: the legacy default
    /// stream); every stream index maps to it.
    Default,
    /// This many created streams per context (indices `0..n`).
    Created(usize),
}

/// What the `sdfg!` macro emits for one SDFG: name, PTX, kernels, streams.
///
/// ```
/// use sdfg_runtime::__glue::{ProgramSpec, StreamSpec};
/// static SPEC: ProgramSpec = ProgramSpec { name: "axpy", ptx: "", kernels: &[], streams: StreamSpec::Created(1) };
/// assert_eq!(SPEC.name, "axpy");
/// ```
#[derive(Debug)]
pub struct ProgramSpec {
    /// The SDFG's name (for messages).
    pub name: &'static str,
    /// The PTX module of its `gpu` maps.
    pub ptx: &'static str,
    /// Its kernels, in launch-index order.
    pub kernels: &'static [KernelEntry],
    /// Its stream policy.
    pub streams: StreamSpec,
}
