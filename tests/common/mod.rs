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

/// Inputs that tell a fused multiply-add from an unfused one: x = 1 + k
/// 2^-12 (k = 1..=64, repeating), so x * x - 1 = k 2^-11 + k^2 2^-24 is
/// exact in f32 and rounding the product first drops the 2^-24 part for
/// odd k: `x.mul_add(x, -1.0)` is the f64 product rounded once.
pub fn fma_witnesses(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| 1.0 + ((i % 64) as f32 + 1.0) * (2.0f32).powi(-12))
        .collect()
}

/// `fixtures::time_loop!` in plain Rust, in the kernels' operation order.
pub fn time_loop_reference(a: &mut [f64], b: &mut [f64], t: usize) {
    let n = a.len();
    for _ in 0..t {
        for i in 1..n - 1 {
            b[i] = 0.5 * (a[i - 1] + a[i + 1]);
        }
        for i in 1..n - 1 {
            a[i] = 0.5 * (b[i - 1] + b[i + 1]);
        }
    }
}

/// The start of `fixtures::time_loop!`'s A: small integers, none equal to its neighbours'.
pub fn time_loop_initial(n: usize) -> Vec<f64> {
    (0..n).map(|i| ((i * 37) % 11) as f64 - 3.0).collect()
}
