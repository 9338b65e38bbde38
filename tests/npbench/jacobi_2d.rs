//! NPBench `jacobi_2d` (polybench):
//!
//! ```text
//! for t in range(1, TSTEPS):
//!     B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
//!     A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])
//! ```
//!
//! A loop of states with two maps. Array statements (issue 17, item 7)
//! would write each map as the NumPy line.

use super::arrays::*;
use super::common;
use sdfg::prelude::*;

sdfg! {
    pub sdfg Jacobi2dNp {
        symbol N: i64; symbol TSTEPS: i64;
        gpu A: f64[N, N]; gpu B: f64[N, N];
        state init {}
        state step {
            map b[i in 1..N - 1, j in 1..N - 1] on gpu { B[i, j] = 0.2 * (A[i, j] + A[i, j - 1] + A[i, j + 1] + A[i + 1, j] + A[i - 1, j]); }
            map a[i in 1..N - 1, j in 1..N - 1] on gpu { A[i, j] = 0.2 * (B[i, j] + B[i, j - 1] + B[i, j + 1] + B[i + 1, j] + B[i - 1, j]); }
        }
        init -> step if 1 < TSTEPS { t = 1 }
        step -> step if t + 1 < TSTEPS { t = t + 1 }
    }
}

fn reference(n: usize, tsteps: usize, a: &mut [f64], b: &mut [f64]) {
    let at = |x: &[f64], i: usize, j: usize| x[i * n + j];
    for _ in 1..tsteps {
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                b[i * n + j] = 0.2
                    * (at(a, i, j)
                        + at(a, i, j - 1)
                        + at(a, i, j + 1)
                        + at(a, i + 1, j)
                        + at(a, i - 1, j));
            }
        }
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                a[i * n + j] = 0.2
                    * (at(b, i, j)
                        + at(b, i, j - 1)
                        + at(b, i, j + 1)
                        + at(b, i + 1, j)
                        + at(b, i - 1, j));
            }
        }
    }
}

#[test]
fn jacobi_2d() {
    let (n, tsteps) = (14usize, 6usize);
    let (a0, b0) = (random(7, n * n), random(8, n * n));
    let (mut wa, mut wb) = (a0.clone(), b0.clone());
    reference(n, tsteps, &mut wa, &mut wb);
    for device in common::devices("npbench jacobi_2d") {
        let mut a = DeviceBuffer::from_slice(&device, &a0).unwrap();
        let mut b = DeviceBuffer::from_slice(&device, &b0).unwrap();
        Jacobi2dNp::load(&device)
            .unwrap()
            .run(Jacobi2dNpArgs {
                N: n as i64,
                TSTEPS: tsteps as i64,
                A: &mut a,
                B: &mut b,
            })
            .unwrap();
        let on = device.name();
        same_bits(&a.to_vec().unwrap(), &wa, &format!("A on {on}"));
        same_bits(&b.to_vec().unwrap(), &wb, &format!("B on {on}"));
    }
}
