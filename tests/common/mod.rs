//! Shared helpers of the end-to-end tests.
#![allow(dead_code)]

pub mod dace;
pub mod dace_run;
pub mod fixtures;

use sdfg::runtime::Device;

/// The GPU when the test needs one: `None` (with a printed line) when there
/// is none, a failure instead when `SDFG_REQUIRE_GPU=1`.
pub fn gpu_or_skip(test: &str) -> Option<Device> {
    match Device::gpu(0) {
        Ok(d) => Some(d),
        Err(e) => {
            if std::env::var("SDFG_REQUIRE_GPU").as_deref() == Ok("1") {
                panic!("{test}: SDFG_REQUIRE_GPU=1 but no GPU: {e}");
            }
            println!("skipped {test}: no GPU ({e})");
            None
        }
    }
}

/// The devices an end-to-end test runs on: always the CPU device, plus the
/// GPU when there is one.
pub fn devices(test: &str) -> Vec<Device> {
    let mut out = vec![Device::cpu()];
    out.extend(gpu_or_skip(test));
    out
}
