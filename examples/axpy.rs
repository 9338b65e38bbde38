//! AXPY through the DSL: `Y = a*X + Y` over 2^28 f32 as one `gpu` map,
//! checked bit for bit against plain Rust.
//!
//! Run: `cargo run --release --example axpy [-- --n 268435456 --reps 20]`
//! (the CPU device, when there is no GPU, runs `--small` sizes).

#[path = "common/axpy.rs"]
mod axpy;
#[path = "common/mod.rs"]
mod common;

fn main() -> common::AnyResult<()> {
    let device = sdfg::runtime::Device::auto();
    let opts = common::Options::from_env();
    let small = common::use_small_sizes(&device, &opts);
    let work = axpy::AxpyWorkload::new(&device, &opts, small)?;
    common::run_example(&device, &opts, work)
}
