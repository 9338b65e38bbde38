//! Issue 13, item 2: bounds checks are sound for every index expression.
//!
//! Random index expressions (every integer operator, casts, selects,
//! extreme constants; `sdfg_testkit::randexpr::IndexGen`) over random
//! symbol values, in `gpu` maps of one and two dimensions, some inside a
//! `for` loop and some under an `if`:
//! - the host's prechecks run as the glue runs them: the plan
//!   `ir::bounds` made for each prechecked index, evaluated by the
//!   runtime's `__glue::interval`; each range is compared with the index's
//!   value at every iteration (it must be exact, and a reported wrap real);
//! - when they pass, the map's PTX runs on the `ptxsim` interpreter, whose
//!   memory has nothing around each buffer (any byte outside one is an
//!   error, so no byte outside a buffer can change), and its results and
//!   fault word are compared with the evaluator's;
//! - whenever an iteration touches outside a container, the call fails
//!   (a precheck naming that container, or the kernel's fault naming it).
//!
//! Deterministic: `SDFG_BOUNDS_SEED` (default 13) and `SDFG_BOUNDS_CASES`
//! (default 250, a few seconds) choose the cases.
//!
//! The parts: `cases` (random programs), `reference` (the evaluator's run),
//! `prechecks` (the host's range checks), `random_indices` (the interpreted
//! check) and `devices` (whole programs on the CPU device and the GPU).

mod common;

#[path = "bounds_property/cases.rs"]
mod cases;
#[path = "bounds_property/devices.rs"]
mod devices;
#[path = "bounds_property/prechecks.rs"]
mod prechecks;
#[path = "bounds_property/random_indices.rs"]
mod random_indices;
#[path = "bounds_property/reference.rs"]
mod reference;

pub fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
