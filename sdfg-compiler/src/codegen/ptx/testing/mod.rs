//! Test support (not a stable API): a programmatic SDFG builder and the
//! random expression generator for differential tests of the PTX backend.

pub mod builder;
pub mod examples;
pub mod harness;
pub mod ptxsim;
pub mod randexpr;
