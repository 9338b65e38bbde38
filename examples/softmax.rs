//! NPBench softmax through the DSL: f32 [N=64, H=16, SM=512, SM=512] over the
//! last axis (row max, exp(x - max), sum, divide), checked elementwise
//! against an f64 reference.
//!
//! Run: `cargo run --release --example softmax [-- --n 64 --h 16 --sm 512 --form blocks|online|two-pass|rows]`
//! (default `blocks`, one thread block per row: see examples/common/softmax.rs;
//! the CPU device, when there is no GPU, runs `--small` sizes).

#[path = "common/mod.rs"]
mod common;
#[path = "common/softmax.rs"]
mod softmax;

fn main() -> common::AnyResult<()> {
    let device = sdfg::runtime::Device::auto();
    let opts = common::Options::from_env();
    let small = common::use_small_sizes(&device, &opts);
    let form = match opts.get("form", "blocks".to_string()).as_str() {
        "blocks" => softmax::SoftmaxForm::Blocks,
        "two-pass" => softmax::SoftmaxForm::TwoPass,
        "online" => softmax::SoftmaxForm::Online,
        "rows" => softmax::SoftmaxForm::Rows,
        other => {
            return Err(format!(
                "--form {other}: expected `blocks`, `two-pass`, `online` or `rows`"
            )
            .into())
        }
    };
    let work = softmax::SoftmaxWorkload::new(&device, &opts, small, form)?;
    common::run_example(&device, &opts, work)
}
