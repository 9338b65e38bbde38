//! NPBench heat_3d through the DSL: a host loop counter drives two 7-point
//! stencil maps per step (B from A, then A from B); checked bit for bit
//! against plain Rust.
//!
//! Run: `cargo run --release --example heat3d [-- --n 120 --tsteps 500]`
//! (the CPU device, when there is no GPU, runs `--small` sizes);
//! `--persistent` runs `Heat3dPersistent`: the same program with
//! `#[persistent] state step`, every step in one cooperative launch;
//! `--two-step` runs `Heat3dTwoStep`: both sweeps of a step in one block
//! kernel (tests/common/heat3d_fixtures.rs, `heat3d_two_step!`);
//! `--write-ptx DIR` writes the module and its kernels' parameters for
//! `scripts/heat3d_harness.py` and runs nothing.

#[path = "common/mod.rs"]
mod common;
#[path = "common/heat3d.rs"]
mod heat3d;

fn main() -> common::AnyResult<()> {
    let opts = common::Options::from_env();
    if let Some(dir) = opts.value::<String>("write-ptx") {
        return heat3d::write_ptx(std::path::Path::new(&dir));
    }
    let device = sdfg::runtime::Device::auto();
    let small = common::use_small_sizes(&device, &opts);
    let work = heat3d::Heat3dWorkload::new(&device, &opts, small)?;
    common::run_example(&device, &opts, work)
}
