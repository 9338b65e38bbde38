//! C = A B in f32 through the DSL with block maps: 128 x 128 tiles of C per
//! thread block, shared tiles of A and B (the next ones loaded while the
//! current ones are used), an 8 x 8 register block of C per thread,
//! `mul_add` (examples/common/gemm.rs; GUIDE section 14.5). Checked on
//! sampled elements against an f64 reference.
//!
//! Run: `cargo run --release --example gemm [-- --m 4096 --n 4096 --k 4096]`
//! (M and N multiples of 128, K of 16; the CPU device, when there is no GPU,
//! runs `--small` sizes).

#[path = "common/mod.rs"]
mod common;
#[path = "common/gemm.rs"]
mod gemm;

fn main() -> common::AnyResult<()> {
    let device = sdfg::runtime::Device::auto();
    let opts = common::Options::from_env();
    let small = common::use_small_sizes(&device, &opts);
    let work = gemm::GemmWorkload::new(&device, &opts, small)?;
    common::run_example(&device, &opts, work)
}
