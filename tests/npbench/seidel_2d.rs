//! NPBench `seidel_2d` (polybench):
//!
//! ```text
//! for t in range(0, TSTEPS - 1):
//!     for i in range(1, N - 1):
//!         A[i, 1:-1] += A[i - 1, :-2] + A[i - 1, 1:-1] + A[i - 1, 2:] + A[i, 2:] + A[i + 1, :-2] + A[i + 1, 1:-1] + A[i + 1, 2:]
//!         for j in range(1, N - 1):
//!             A[i, j] += A[i, j - 1]
//!             A[i, j] /= 9.0
//! ```
//!
//! Gauss-Seidel is sequential along `i` and `j`: a `seq` map over the rows
//! in a loop of states over `t`. The row's vector statement reads the old
//! right neighbours, so its sums go to `S` before the row changes. Sequential
//! code on the GPU (the block-cooperation issue) would keep `A` there.

use super::arrays::*;
use super::common;
use sdfg::prelude::*;

sdfg! {
    pub sdfg Seidel2d {
        symbol N: i64; symbol TSTEPS: i64;
        host A: f64[N, N]; transient host S: f64[N];
        state init {}
        state step {
            map rows[i in 1..N - 1] on seq {
                for j in 1..N - 1 {
                    S[j] = A[i - 1, j - 1] + A[i - 1, j] + A[i - 1, j + 1] + A[i, j + 1] + A[i + 1, j - 1] + A[i + 1, j] + A[i + 1, j + 1];
                }
                for j in 1..N - 1 { A[i, j] = (A[i, j] + S[j] + A[i, j - 1]) / 9.0; }
            }
        }
        init -> step if 1 < TSTEPS { t = 0 }
        step -> step if t + 2 < TSTEPS { t = t + 1 }
    }
}

fn reference(n: usize, tsteps: usize, a: &mut [f64]) {
    for _ in 0..tsteps.saturating_sub(1) {
        for i in 1..n - 1 {
            let at = |a: &[f64], r: usize, c: usize| a[r * n + c];
            let s: Vec<f64> = (1..n - 1)
                .map(|j| {
                    at(a, i - 1, j - 1)
                        + at(a, i - 1, j)
                        + at(a, i - 1, j + 1)
                        + at(a, i, j + 1)
                        + at(a, i + 1, j - 1)
                        + at(a, i + 1, j)
                        + at(a, i + 1, j + 1)
                })
                .collect();
            for j in 1..n - 1 {
                a[i * n + j] += s[j - 1];
            }
            for j in 1..n - 1 {
                a[i * n + j] += a[i * n + j - 1];
                a[i * n + j] /= 9.0;
            }
        }
    }
}

#[test]
fn seidel_2d() {
    let (n, tsteps) = (12usize, 5usize);
    let a0 = random(9, n * n);
    let mut want = a0.clone();
    reference(n, tsteps, &mut want);
    for device in common::devices("npbench seidel_2d") {
        let mut a = a0.clone();
        Seidel2d::load(&device)
            .unwrap()
            .run(Seidel2dArgs {
                N: n as i64,
                TSTEPS: tsteps as i64,
                A: &mut a,
            })
            .unwrap();
        same_bits(&a, &want, &format!("A on {}", device.name()));
    }
}
