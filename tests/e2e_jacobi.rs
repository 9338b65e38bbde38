//! Polybench jacobi-2d through the DSL: a loop of two GPU maps driven by a
//! host loop counter, compared bit for bit with plain Rust.

mod common;
use sdfg::prelude::*;

common::fixtures::jacobi2d!(sdfg);

fn reference(n: usize, tsteps: usize, a: &mut [f64], b: &mut [f64]) {
    for _ in 0..tsteps {
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                b[i * n + j] = 0.2
                    * (a[i * n + j]
                        + a[i * n + j - 1]
                        + a[i * n + j + 1]
                        + a[(i + 1) * n + j]
                        + a[(i - 1) * n + j]);
            }
        }
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                a[i * n + j] = 0.2
                    * (b[i * n + j]
                        + b[i * n + j - 1]
                        + b[i * n + j + 1]
                        + b[(i + 1) * n + j]
                        + b[(i - 1) * n + j]);
            }
        }
    }
}

#[test]
fn matches_plain_rust_bit_for_bit() {
    for device in common::devices("jacobi2d") {
        let (n, tsteps) = (37usize, 12usize);
        let mut rng = sdfg_testkit::rng::Rng::new(7);
        let a0: Vec<f64> = (0..n * n).map(|_| rng.signed_unit()).collect();
        let b0: Vec<f64> = (0..n * n).map(|_| rng.signed_unit()).collect();
        let program = Jacobi2d::load(&device).unwrap();
        let mut a = DeviceBuffer::from_slice(&device, &a0).unwrap();
        let mut b = DeviceBuffer::from_slice(&device, &b0).unwrap();
        program
            .run(Jacobi2dArgs {
                N: n as i64,
                TSTEPS: tsteps as i64,
                A: &mut a,
                B: &mut b,
            })
            .unwrap();
        let (mut ra, mut rb) = (a0.clone(), b0.clone());
        reference(n, tsteps, &mut ra, &mut rb);
        let (ga, gb) = (a.to_vec().unwrap(), b.to_vec().unwrap());
        for k in 0..n * n {
            assert_eq!(
                ga[k].to_bits(),
                ra[k].to_bits(),
                "A[{k}] on {}",
                device.name()
            );
            assert_eq!(
                gb[k].to_bits(),
                rb[k].to_bits(),
                "B[{k}] on {}",
                device.name()
            );
        }
    }
}

#[test]
fn the_loop_runs_tsteps_times_and_needs_no_host_wait_inside() {
    let schedule = Jacobi2d::schedule().unwrap();
    assert!(schedule.states.iter().all(|s| s.syncs.is_empty()));
    // Both maps of `step` depend on each other through A and B: one stream.
    assert_eq!(schedule.states[1].stream_of, vec![Some(0), Some(0)]);
    assert!(schedule.states[1].events.is_empty());
}
