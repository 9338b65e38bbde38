//! The typed runtime of sdfg-rs.
//!
//! Devices (a CUDA GPU through cudarc, or a CPU emulator with real
//! asynchrony), streams, events, device and host buffers, and the two
//! handles that make missing synchronization a compile error:
//! [`Pending`] (a value a stream is still producing: readable only after
//! `.wait()`) and [`Running`] (a program call in flight: it borrows the
//! arguments until `.wait()`).
//!
//! Ordering between streams is automatic: every buffer tracks its last
//! writer and its readers, and an operation on one stream waits (with an
//! event) for conflicting work on another. Soundness never depends on a
//! destructor running.
//!
//! # How it stays sound
//!
//! - Memory a stream writes asynchronously is owned by the runtime while the
//!   stream may touch it: moved into the `Pending` (`copy_to_host`), or a
//!   runtime-owned staging buffer whose contents reach a borrowed `&mut [T]`
//!   only inside `wait()` (`copy_to_slice`). A forgotten `Pending` leaks.
//! - Borrowed `HostBuffer`s and all `DeviceBuffer`s carry a tracker: host
//!   access to a `HostBuffer` waits for device work still using it; dropping
//!   a CUDA buffer waits for its users first; CPU-device memory is reference
//!   counted by the queued jobs.
//! - The CPU device writes device and host memory through atomic cells, so
//!   even the deliberately racy `Pending::peek_unsynchronized` is not UB there.
//!
//! # Positions, events, counts
//!
//! Each stream numbers its operations (kernel launches, copies, event waits,
//! timing events). The host knows a position finished only after a host wait
//! covered it; that knowledge, not timing, decides whether an event or a
//! wait is needed, so the counts in [`Counters`] are deterministic and equal
//! on the CPU and the CUDA device for the same sequence of calls. The exact
//! rules are documented on [`Counters`].
//!
//! ```
//! use sdfg_runtime::{Device, DeviceBuffer, HostBuffer, Region};
//! let dev = Device::auto();
//! let x = DeviceBuffer::from_slice(&dev, &[1i32, 2, 3])?;
//! let s = dev.new_stream()?;
//! let pending = s.copy_to_host(&x, &Region::whole(3), HostBuffer::new(&dev, 3)?, &Region::whole(3))?;
//! let host = pending.wait()?; // the only way to the data
//! assert_eq!(host.as_slice(), [1, 2, 3]);
//! # Ok::<(), sdfg_runtime::Error>(())
//! ```

#![warn(missing_docs)]

// Ground floor: the driver, the CPU back end, leaf helpers.
mod cpu;
mod cuda;
mod elem;
mod error;
mod lock;
mod region;
// Floor 1: the ordering core.
mod order;
// Floor 2: the device, its memory and its kernels.
mod device;
mod kernel;
mod memory;
// Floor 3: streams, events, pending values and running calls.
mod streams;
// Floor 4: what generated code calls.
#[doc(hidden)]
#[path = "glue/mod.rs"]
pub mod __glue;

pub use device::Device;
pub use elem::{Elem, ElemType, MinMaxNumber, NumElem};
pub use error::{Error, Result};
pub use kernel::args::KernelArg;
pub use kernel::launch_config::LaunchConfig;
pub use kernel::module::Module;
pub use memory::device_buffer::DeviceBuffer;
pub use memory::host_access::{host_read, host_write, HostRead, HostWrite};
pub use memory::host_buffer::HostBuffer;
pub use order::counters::Counters;
pub use region::Region;
pub use streams::event::Event;
pub use streams::pending::Pending;
pub use streams::running::Running;
pub use streams::stream::Stream;
