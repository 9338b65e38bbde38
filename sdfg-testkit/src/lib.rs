//! Test support for sdfg-rs, never a dependency of the `sdfg!` macro: the
//! crates' test suites and examples take it as a dev-dependency.
//!
//! - [`builder`]: builds `ir::Sdfg` values directly, without the parser;
//! - [`examples`]: SDFGs several test suites share (axpy, stencil, dot);
//! - [`randexpr`]: random well-typed expressions and bodies for
//!   differential tests of the backends against the evaluator;
//! - [`randarray`]: random array statements (NumPy's slices, as `sdfg!`
//!   source);
//! - [`randblock`]: random block-map programs (as `sdfg!` source) whose
//!   results do not depend on the order of combination;
//! - [`randcopy`]: random copies of boxes between containers of every
//!   storage (as `sdfg!` source);
//! - [`ptxsim`]: a sequential interpreter of the PTX subset the backend
//!   emits, and [`harness`], which runs one `gpu` map through it and through
//!   the evaluator from the same inputs;
//! - [`randloop`]: random state machines looping over a symbol (as
//!   `sdfg!` source);
//! - [`randnested`]: random calls of a nested SDFG on views of the
//!   caller's data (as `sdfg!` source);
//! - [`rng`]: the one seeded generator every test, fuzzer and example uses;
//! - [`source`]: `sdfg!` source text of random programs, for tests that
//!   compile them through the macro;
//! - [`quiet`]: catching the panics a fuzzer provokes without printing them;
//! - [`architecture`]: checks that a crate's modules import only their own
//!   floor or below (the tables in the crates' `src/lib.rs`).

pub mod architecture;
pub mod builder;
pub mod examples;
pub mod harness;
pub mod ptxsim;
pub mod quiet;
pub mod randarray;
pub mod randblock;
pub mod randcopy;
pub mod randexpr;
pub mod randloop;
pub mod randnested;
pub mod rng;
pub mod source;
