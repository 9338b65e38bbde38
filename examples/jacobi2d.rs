//! Polybench/NPBench jacobi-2d through the DSL (DESIGN.md section 3): a host
//! loop counter drives two 5-point stencil maps per step; checked bit for
//! bit against plain Rust.
//!
//! Run: `cargo run --release --example jacobi2d [-- --n 2800 --tsteps 1000]`
//! (the CPU device, when there is no GPU, runs `--small` sizes).

#[path = "common/mod.rs"]
mod common;
#[path = "common/jacobi2d.rs"]
mod jacobi2d;

fn main() -> common::AnyResult<()> {
    let device = sdfg::runtime::Device::auto();
    let opts = common::Options::from_env();
    let small = common::use_small_sizes(&device, &opts);
    let work = jacobi2d::Jacobi2dWorkload::new(&device, &opts, small)?;
    common::run_example(&device, &opts, work)
}
