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
    /// A kernel reported an out-of-bounds access through its fault word.
    #[error("kernel `{kernel}` reported fault code {code} (an out-of-bounds access was skipped)")]
    KernelFault {
        /// The kernel (or the kernels launched on the stream since the last check).
        kernel: String,
        /// The nonzero code the kernel wrote.
        code: u32,
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
