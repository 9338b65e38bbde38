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
//! The language is described in the [`guide`] (`docs/GUIDE.md`), the
//! design in `DESIGN.md`.
//!
//! # Features
//!
//! - `introspect` (off by default): `Name::ir()` and `Name::schedule()`,
//!   which rebuild the SDFG's IR and its stream schedule from
//!   `Name::SOURCE` at run time, and the compiler itself as
//!   `sdfg::compiler`. It links the compiler and syn into your program;
//!   without it they run only inside the proc macro, at compile time.
//!   `Name::PTX`, `Name::SOURCE`, `Name::to_dot()` and `Name::to_sdfg_json()`
//!   are constants and always there. See what a build links with
//!   `cargo tree -p sdfg -e normal,no-proc-macro`: without the feature it
//!   lists neither `syn` nor `sdfg-compiler`.

#[cfg(feature = "introspect")]
pub use sdfg_compiler as compiler;
pub use sdfg_macros::sdfg;
pub use sdfg_runtime as runtime;

/// The introspection methods of a generated program type, decided by this
/// crate's `introspect` feature: generated code expands in the user's crate,
/// where a `cfg(feature)` would test the user's features instead.
#[cfg(feature = "introspect")]
#[doc(hidden)]
#[macro_export]
macro_rules! __introspection_methods {
    () => {
        /// The SDFG's IR, rebuilt from [`Self::SOURCE`] (feature `introspect`).
        pub fn ir(
        ) -> ::core::result::Result<$crate::compiler::ir::Sdfg, $crate::compiler::Diagnostics> {
            $crate::compiler::frontend_str(Self::SOURCE)
        }

        /// The stream assignment, events and sync points the glue uses
        /// (feature `introspect`).
        pub fn schedule() -> ::core::result::Result<
            $crate::compiler::schedule::Schedule,
            $crate::compiler::Diagnostics,
        > {
            Self::ir().map(|ir| $crate::compiler::schedule::schedule(&ir))
        }
    };
}

/// Without `introspect`: no introspection methods.
#[cfg(not(feature = "introspect"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __introspection_methods {
    () => {};
}

/// What a program using `sdfg!` needs in scope.
pub mod prelude {
    pub use crate::runtime::half::{bf16, f16};
    pub use crate::runtime::num_complex::Complex;
    pub use crate::runtime::{
        c32, c64, host_read, host_write, Device, DeviceBuffer, Error, HostBuffer, HostRead,
        HostWrite, Pending, Running, Stream,
    };
    pub use crate::sdfg;
}

// The user's guide (`docs/GUIDE.md`) as a page of these docs; its examples
// are this crate's doctests.
#[doc = include_str!("../docs/GUIDE.md")]
pub mod guide {}
