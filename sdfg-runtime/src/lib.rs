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

mod buffer;
pub mod check;
mod cpu;
mod cuda;
mod device;
mod elem;
mod error;
mod host;
mod kernel;
mod pending;
mod program;
mod region;
mod stream;
mod tracker;

pub use buffer::{DeviceBuffer, HostBuffer};
pub use device::{Counters, Device};
pub use elem::{cells, Elem, ElemType, NumElem};
pub use error::{Error, Result};
pub use host::{host_read, host_write, HostRead, HostWrite};
pub use kernel::{CpuKernel, KernelArg, KernelArgs, KernelEntry, LaunchConfig, Module};
pub use pending::{Pending, Running};
pub use program::{Context, ContextGuard, Program, ProgramSpec, StreamSpec};
pub use region::Region;
pub use stream::{Event, Stream};

/// Re-exported for generated `cpu` maps (`::sdfg::runtime::rayon`).
pub use rayon;
