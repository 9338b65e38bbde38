//! Shared helpers of the end-to-end tests.
#![allow(dead_code)]

pub mod dace;
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

/// A small deterministic generator for test data (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [-1, 1).
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
    pub fn f32(&mut self) -> f32 {
        self.f64() as f32
    }
}
