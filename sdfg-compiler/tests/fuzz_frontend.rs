//! The front end never panics: a property test over (a) token-level
//! mutations of valid SDFGs, (b) random token streams from the grammar's
//! vocabulary and (c) random SDFGs generated from the grammar. Every input runs through `frontend_str` under `catch_unwind`;
//! a panic fails the test and prints the input. `the_whole_macro_never_panics`
//! runs generated SDFGs (also well-typed ones) and mutants through the whole
//! macro, `expand()`, code generation included.
//!
//! `SDFG_FUZZ_ITERS` sets the number of inputs per part (default small
//! enough for about 20 s in a debug build); `SDFG_FUZZ_SEED` the seed.
//! Example: `SDFG_FUZZ_ITERS=2000000 cargo test --release -p sdfg-compiler --test fuzz_frontend -- --nocapture`.
//!
//! The parts: `inputs` (seeds, token mutations, random streams),
//! `grammar` (SDFGs generated from the grammar), `invariants` (what every
//! accepted IR satisfies), `front_end` (the front end under fuzzing) and
//! `whole_macro` (`expand()` under fuzzing).

mod common;

#[path = "fuzz_frontend/front_end.rs"]
mod front_end;
#[path = "fuzz_frontend/grammar.rs"]
mod grammar;
#[path = "fuzz_frontend/inputs.rs"]
mod inputs;
#[path = "fuzz_frontend/invariants.rs"]
mod invariants;
#[path = "fuzz_frontend/whole_macro.rs"]
mod whole_macro;

pub fn iterations() -> usize {
    std::env::var("SDFG_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) { 6000 } else { 100000 })
}

pub fn seed() -> u64 {
    std::env::var("SDFG_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5df9_0001)
}

/// The message of a caught panic (empty when it carried none).
pub fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}
