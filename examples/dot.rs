//! Dot product through the DSL: a WCR `+=` reduction of 2^28 f32 products
//! into a `gpu` scalar, checked against an f64 sum with a bound for the
//! reordered f32 additions.
//!
//! Run: `cargo run --release --example dot [-- --n 268435456 --form blocks|partials|direct]`
//! (default `blocks`: block partials without atomics, see
//! examples/common/dot.rs; the CPU device, when there is no GPU, runs
//! `--small` sizes).

#[path = "common/mod.rs"]
mod common;
#[path = "common/dot.rs"]
mod dot;

fn main() -> common::AnyResult<()> {
    let device = sdfg::runtime::Device::auto();
    let opts = common::Options::from_env();
    let small = common::use_small_sizes(&device, &opts);
    let form = match opts.get("form", "blocks".to_string()).as_str() {
        "blocks" => dot::DotForm::Blocks,
        "partials" => dot::DotForm::Partials,
        "direct" => dot::DotForm::Direct,
        other => {
            return Err(format!("--form {other}: expected `blocks`, `partials` or `direct`").into())
        }
    };
    let work = dot::DotWorkload::new(&device, &opts, small, form)?;
    common::run_example(&device, &opts, work)
}
