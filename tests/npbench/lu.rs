//! NPBench `lu` (polybench):
//!
//! ```text
//! for i in range(A.shape[0]):
//!     for j in range(i):
//!         A[i, j] -= A[i, :j] @ A[:j, j]
//!         A[i, j] /= A[j, j]
//!     for j in range(i, A.shape[0]):
//!         A[i, j] -= A[i, :i] @ A[:i, j]
//! ```
//!
//! One state per row `i`: the left part is sequential in `j` (each element
//! reads the ones before it), the right part parallel. The map ranges use
//! the loop symbol `i`; ranges depending on a map parameter (triangles,
//! issue 17 item 4) and a `matmul` of slices would shorten the dot products.

use super::arrays::*;
use super::common;
use sdfg::prelude::*;

sdfg! {
    pub sdfg Lu {
        symbol N: i64;
        host A: f64[N, N];
        state init {}
        state row {
            map left[j in 0..i] on seq {
                let mut d = 0.0;
                for k in 0..j { d += A[i, k] * A[k, j]; }
                A[i, j] = (A[i, j] - d) / A[j, j];
            }
            map right[j in i..N] on cpu {
                let mut d = 0.0;
                for k in 0..i { d += A[i, k] * A[k, j]; }
                A[i, j] = A[i, j] - d;
            }
        }
        init -> row if 0 < N { i = 0 }
        row -> row if i + 1 < N { i = i + 1 }
    }
}

pub fn dot(n: usize, a: &[f64], row: usize, col: usize, len: usize) -> f64 {
    (0..len).fold(0.0, |d, k| d + a[row * n + k] * a[k * n + col])
}

fn reference(n: usize, a: &mut [f64]) {
    for i in 0..n {
        for j in 0..i {
            a[i * n + j] -= dot(n, a, i, j, j);
            a[i * n + j] /= a[j * n + j];
        }
        for j in i..n {
            a[i * n + j] -= dot(n, a, i, j, i);
        }
    }
}

/// A matrix that needs no pivoting: diagonally dominant.
pub fn dominant(seed: u64, n: usize) -> Vec<f64> {
    let mut a = random(seed, n * n);
    for i in 0..n {
        a[i * n + i] += n as f64;
    }
    a
}

#[test]
fn lu() {
    let n = 11usize;
    let a0 = dominant(10, n);
    let mut want = a0.clone();
    reference(n, &mut want);
    for device in common::devices("npbench lu") {
        let mut a = a0.clone();
        Lu::load(&device)
            .unwrap()
            .run(LuArgs {
                N: n as i64,
                A: &mut a,
            })
            .unwrap();
        same_bits(&a, &want, &format!("A on {}", device.name()));
    }
}
