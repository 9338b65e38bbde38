//! The one error type of the runtime.

/// Everything that can go wrong in the runtime.
///
/// Messages are lowercase and name the container, size or driver call
/// involved. No runtime function panics on bad user input: it returns one of
/// these instead.
///
/// ```
/// use sdfg_runtime::{Device, DeviceBuffer, Error};
/// let dev = Device::cpu();
/// let buf = DeviceBuffer::<f32>::zeros(&dev, usize::MAX / 4);
/// assert!(matches!(buf, Err(Error::OutOfMemory { .. })));
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// CUDA is not usable in this process (no libcuda, no GPU, bad ordinal).
    #[error("cuda is not available: {reason}")]
    NoCuda {
        /// Why not, in words.
        reason: String,
    },
    /// A CUDA driver call failed.
    #[error("cuda driver call `{call}` failed: {message}")]
    Driver {
        /// The driver function that failed.
        call: &'static str,
        /// The driver's error name and description.
        message: String,
    },
    /// The driver could not JIT-compile a PTX module.
    #[error("the cuda driver could not compile the ptx module:\n{log}")]
    JitFailed {
        /// The JIT error log (and info log, if any).
        log: String,
    },
    /// A device allocation did not fit in the device's memory.
    #[error("out of device memory: could not allocate {bytes} bytes")]
    OutOfMemory {
        /// The size of the refused allocation.
        bytes: u64,
    },
    /// An object of one device was used with another device.
    #[error("wrong device: {what}")]
    WrongDevice {
        /// Which object, on which device.
        what: String,
    },
    /// A container's length does not match what it is used as.
    #[error("length mismatch for `{name}`: expected {expected} elements, got {actual}")]
    LengthMismatch {
        /// The container.
        name: String,
        /// The length that was required.
        expected: usize,
        /// The length that was given.
        actual: usize,
    },
    /// A region or index lies outside its container.
    #[error("out of bounds: {what}")]
    OutOfBounds {
        /// What, where, and the container's size.
        what: String,
    },
    /// A kernel skipped an out-of-bounds access and reported it through its
    /// fault slot. A program call (`run`, `Running::wait`) reports the
    /// faults of its own kernels, with the `site` of the first one; a raw
    /// kernel's code is reported by its stream's `synchronize()`.
    #[error("{}", describe_kernel_fault(kernel, *code, site.as_deref()))]
    KernelFault {
        /// The kernel's entry name (raw kernels on a GPU: the kernels
        /// launched on the stream since its last check).
        kernel: String,
        /// The nonzero code the kernel reported (a program's kernel: the
        /// number of the access in its map's body, from 1).
        code: u32,
        /// Where a program's kernel faulted: map, state, container, access
        /// and index. `None` for raw kernels.
        site: Option<Box<FaultSite>>,
    },
    /// A CPU kernel panicked (a bug in generated code); the stream keeps working.
    #[error("cpu kernel `{kernel}` panicked: {message}")]
    KernelPanicked {
        /// The kernel.
        kernel: String,
        /// The panic message.
        message: String,
    },
    /// The operation is not available on this device (e.g. raw PTX on the CPU device).
    #[error("not supported: {0}")]
    Unsupported(String),
    /// Any other invalid argument, described in words.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

/// The access of a program's kernel that went out of bounds (the first
/// one of its call): see [`Error::KernelFault`].
///
/// ```
/// use sdfg_runtime::{Error, FaultSite};
/// let site = FaultSite::new("scatter", "s", "A", true, 1, 16);
/// let e = Error::KernelFault { kernel: "k_s_scatter".into(), code: 1, site: Some(Box::new(site)) };
/// assert_eq!(
///     e.to_string(),
///     "map `scatter` in state `s`: the write to `A` at index 16 was out of bounds \
///      and skipped (kernel `k_s_scatter`)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FaultSite {
    /// The `gpu` map the kernel runs.
    pub map: String,
    /// The state of the map.
    pub state: String,
    /// The container the access touches.
    pub container: String,
    /// A store or reduction (else a load).
    pub write: bool,
    /// The container's number of dimensions.
    pub rank: usize,
    /// The row-major offset the access computed (one dimension: its
    /// index), in wrapping 64-bit arithmetic; for two or more dimensions
    /// some index was outside its dimension even when this is in range.
    pub index: i64,
}

impl FaultSite {
    /// A site (for tests and messages).
    ///
    /// ```
    /// let s = sdfg_runtime::FaultSite::new("m", "s", "A", false, 2, 7);
    /// assert_eq!((s.container.as_str(), s.write, s.index), ("A", false, 7));
    /// ```
    pub fn new(
        map: &str,
        state: &str,
        container: &str,
        write: bool,
        rank: usize,
        index: i64,
    ) -> Self {
        FaultSite {
            map: map.to_string(),
            state: state.to_string(),
            container: container.to_string(),
            write,
            rank,
            index,
        }
    }
}

/// "the write to `A` at index 16" (two or more dimensions: "at row-major
/// index"); `index` None when unknown. Shared by kernel faults and the
/// glue's faults of host code, so both read alike.
pub(crate) fn describe_access(
    write: bool,
    container: &str,
    rank: usize,
    index: Option<i64>,
) -> String {
    let what = if write { "write to" } else { "read of" };
    match index {
        None => format!("the {what} `{container}`"),
        Some(i) if rank <= 1 => format!("the {what} `{container}` at index {i}"),
        Some(i) => format!("the {what} `{container}` at row-major index {i}"),
    }
}

fn describe_kernel_fault(kernel: &str, code: u32, site: Option<&FaultSite>) -> String {
    match site {
        Some(s) => format!(
            "map `{}` in state `{}`: {} was out of bounds and skipped (kernel `{kernel}`)",
            s.map,
            s.state,
            describe_access(s.write, &s.container, s.rank, Some(s.index))
        ),
        None => format!(
            "kernel `{kernel}` reported fault code {code} (an out-of-bounds access was skipped)"
        ),
    }
}

/// The runtime's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The message of a caught panic.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_string()
    }
}
