//! sdfg-rs: DaCe-style Stateful DataFlow multiGraphs in Rust.
//!
//! One [`sdfg!`] macro describes symbols, data containers, states, mapped
//! tasklets, copies and interstate edges. At compile time it generates a PTX
//! kernel for every `gpu` map, Rust for the CPU side, and the host glue that
//! runs the state machine against [`runtime`], where data a GPU stream is
//! still producing can only be read after `.wait()`: a missing
//! synchronization is a compile error, not a race.
//!
//! ```
//! use sdfg::prelude::*;
//!
//! sdfg! {
//!     pub sdfg Scale {
//!         symbol N: i64;
//!         host X: f64[N];
//!         state only {
//!             map scale[i in 0..N] on cpu { X[i] = 2.0 * X[i]; }
//!         }
//!     }
//! }
//!
//! let device = Device::cpu();
//! let program = Scale::load(&device)?;
//! let mut x = vec![1.0, 2.0, 3.0];
//! program.run(ScaleArgs { N: 3, X: &mut x })?;
//! assert_eq!(x, [2.0, 4.0, 6.0]);
//! # Ok::<(), sdfg::runtime::Error>(())
//! ```
//!
//! The language is described in `docs/GUIDE.md`; the design in `DESIGN.md`.

pub use sdfg_compiler as compiler;
pub use sdfg_macros::sdfg;
pub use sdfg_runtime as runtime;

/// What a program using `sdfg!` needs in scope.
pub mod prelude {
    pub use crate::runtime::{
        host_read, host_write, Device, DeviceBuffer, Error, HostBuffer, HostRead, HostWrite,
        Pending, Running, Stream,
    };
    pub use crate::sdfg;
}
