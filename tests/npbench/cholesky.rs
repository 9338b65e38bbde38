//! NPBench `cholesky` (polybench):
//!
//! ```text
//! A[0, 0] = np.sqrt(A[0, 0])
//! for i in range(1, A.shape[0]):
//!     for j in range(i):
//!         A[i, j] -= np.dot(A[i, :j], A[j, :j])
//!         A[i, j] /= A[j, j]
//!     A[i, i] -= np.dot(A[i, :i], A[i, :i])
//!     A[i, i] = np.sqrt(A[i, i])
//! ```
//!
//! One state per row `i`, the row sequential in `j`, then the diagonal.
//! A `matmul` of slices (issue 17, item 6) would shorten the dot products.

use super::arrays::*;
use super::common;
use sdfg::prelude::*;

sdfg! {
    pub sdfg Cholesky {
        symbol N: i64;
        host A: f64[N, N];
        state first { tasklet root { A[0, 0] = A[0, 0].sqrt(); } }
        state row {
            map left[j in 0..i] on seq {
                let mut d = 0.0;
                for k in 0..j { d += A[i, k] * A[j, k]; }
                A[i, j] = (A[i, j] - d) / A[j, j];
            }
            tasklet diagonal {
                let mut d = 0.0;
                for k in 0..i { d += A[i, k] * A[i, k]; }
                A[i, i] = (A[i, i] - d).sqrt();
            }
        }
        first -> row if 1 < N { i = 1 }
        row -> row if i + 1 < N { i = i + 1 }
    }
}

fn reference(n: usize, a: &mut [f64]) {
    let dot = |a: &[f64], r: usize, s: usize, len: usize| {
        (0..len).fold(0.0, |d, k| d + a[r * n + k] * a[s * n + k])
    };
    a[0] = a[0].sqrt();
    for i in 1..n {
        for j in 0..i {
            a[i * n + j] -= dot(a, i, j, j);
            a[i * n + j] /= a[j * n + j];
        }
        a[i * n + i] -= dot(a, i, i, i);
        a[i * n + i] = a[i * n + i].sqrt();
    }
}

#[test]
fn cholesky() {
    let n = 10usize;
    // Symmetric positive definite: B Bᵀ + n I.
    let b = random(11, n * n);
    let mut a0 = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            a0[i * n + j] = (0..n).map(|k| b[i * n + k] * b[j * n + k]).sum::<f64>();
        }
        a0[i * n + i] += n as f64;
    }
    let mut want = a0.clone();
    reference(n, &mut want);
    for device in common::devices("npbench cholesky") {
        let mut a = a0.clone();
        Cholesky::load(&device)
            .unwrap()
            .run(CholeskyArgs {
                N: n as i64,
                A: &mut a,
            })
            .unwrap();
        same_bits(&a, &want, &format!("A on {}", device.name()));
    }
}
