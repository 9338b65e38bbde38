//! 64-bit indexing on the GPU: a 1-D array and a 2-D array of more than
//! 2^31 elements are written, reduced and read back at their far end (an
//! index computed in 32 bits would wrap and miss those elements).
//!
//! GPU only (2^31 iterations are too slow for the CPU device in CI):
//! skipped without a GPU, a failure when `SDFG_REQUIRE_GPU=1`.

mod common;
use sdfg::prelude::*;

sdfg! {
    pub sdfg Large {
        symbol N: i64; symbol R: i64; symbol C: i64;
        gpu A: bool[N];
        gpu B: bool[R, C];
        gpu COUNT_A: i64;
        gpu COUNT_B: i64;
        host TAIL_A: bool[8];
        host TAIL_B: bool[2, 8];
        state fill {
            map a[i in 0..N] on gpu { A[i] = i % 3 == 0; }
            map b[i in 0..R, j in 0..C] on gpu { B[i, j] = (i + j) % 5 == 0; }
        }
        state count {
            map ca[i in 0..N] on gpu { COUNT_A += A[i] as i64; }
            map cb[i in 0..R, j in 0..C] on gpu { COUNT_B += B[i, j] as i64; }
            copy A[N - 8..N] -> TAIL_A;
            copy B[R - 2..R, C - 8..C] -> TAIL_B;
        }
        fill -> count;
    }
}

/// Runs `Large` at these sizes and checks the counts and the tails.
fn check(device: &Device, n: i64, r: i64, c: i64) {
    let program = Large::load(device).unwrap();
    let mut a = DeviceBuffer::<bool>::zeros(device, n as usize).unwrap();
    let mut b = DeviceBuffer::<bool>::zeros(device, (r * c) as usize).unwrap();
    let mut count_a = DeviceBuffer::from_slice(device, &[0i64]).unwrap();
    let mut count_b = DeviceBuffer::from_slice(device, &[0i64]).unwrap();
    let mut tail_a = vec![false; 8];
    let mut tail_b = vec![false; 16];
    program
        .run(LargeArgs {
            N: n,
            R: r,
            C: c,
            A: &mut a,
            B: &mut b,
            COUNT_A: &mut count_a,
            COUNT_B: &mut count_b,
            TAIL_A: &mut tail_a,
            TAIL_B: &mut tail_b,
        })
        .unwrap();
    // Multiples of 3 below n.
    assert_eq!(
        count_a.to_vec().unwrap()[0],
        (n + 2) / 3,
        "{}",
        device.name()
    );
    // Row i: the j in 0..c with j = -i (mod 5).
    let want_b: i64 = (0..r)
        .map(|i| {
            let s = (5 - i % 5) % 5;
            if s < c {
                (c - s + 4) / 5
            } else {
                0
            }
        })
        .sum();
    assert_eq!(count_b.to_vec().unwrap()[0], want_b, "{}", device.name());
    let want_tail_a: Vec<bool> = (n - 8..n).map(|i| i % 3 == 0).collect();
    assert_eq!(tail_a, want_tail_a, "{}", device.name());
    let want_tail_b: Vec<bool> = (r - 2..r)
        .flat_map(|i| (c - 8..c).map(move |j| (i + j) % 5 == 0))
        .collect();
    assert_eq!(tail_b, want_tail_b, "{}", device.name());
}

/// The same program at small sizes on the CPU device (the check itself).
#[test]
fn small_arrays_on_the_cpu_device() {
    check(&Device::cpu(), 1_000, 37, 41);
}

#[test]
fn arrays_over_two_to_the_31_elements() {
    let Some(device) = common::gpu_or_skip("gpu_large_arrays") else {
        return;
    };
    let n: i64 = (1 << 31) + 77;
    let (r, c): (i64, i64) = (65_537, 32_771); // 2^31 + 163,845 elements
    assert!(r * c > 1 << 31);
    check(&device, n, r, c);
}
