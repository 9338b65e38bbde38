//! NPBench `gemm` (polybench): `C[:] = alpha * A @ B + beta * C`, where
//! `alpha * A @ B` is `(alpha * A) @ B`.
//!
//! A `matmul` library statement and an array statement (GUIDE 5.5, 5.6):
//! the product goes through a transient, and `alpha` scales it after the
//! sum (`alpha * (A @ B)`), so the result is within a few ulp of NumPy's
//! order, not bit for bit.
//!
//! Lines: 3 against NumPy's 2, within the 2x (docs/NPBENCH.md).

use super::arrays::*;
use super::common;
use sdfg::prelude::*;

sdfg! {
    pub sdfg Gemm {
        symbol NI: i64; symbol NJ: i64; symbol NK: i64; host alpha: f64; host beta: f64;
        gpu A: f64[NI, NK]; gpu B: f64[NK, NJ]; gpu C: f64[NI, NJ]; transient gpu AB: f64[NI, NJ];
        state s { AB = matmul(A, B); C = alpha * AB + beta * C; }
    }
}

/// NumPy's `C[:] = alpha * A @ B + beta * C` on row-major `ni x nk`,
/// `nk x nj` and `ni x nj` arrays.
fn reference(
    (ni, nj, nk): (usize, usize, usize),
    alpha: f64,
    beta: f64,
    a: &[f64],
    b: &[f64],
    c: &mut [f64],
) {
    for i in 0..ni {
        for j in 0..nj {
            let mut ab = 0.0;
            for k in 0..nk {
                ab += alpha * a[i * nk + k] * b[k * nj + j];
            }
            c[i * nj + j] = ab + beta * c[i * nj + j];
        }
    }
}

#[test]
fn gemm() {
    let (ni, nj, nk) = (7usize, 9usize, 5usize);
    let (alpha, beta) = (1.5, 1.2);
    let (a, b, c0) = (random(1, ni * nk), random(2, nk * nj), random(3, ni * nj));
    let mut want = c0.clone();
    reference((ni, nj, nk), alpha, beta, &a, &b, &mut want);
    for device in common::devices("npbench gemm") {
        let a = DeviceBuffer::from_slice(&device, &a).unwrap();
        let b = DeviceBuffer::from_slice(&device, &b).unwrap();
        let mut c = DeviceBuffer::from_slice(&device, &c0).unwrap();
        Gemm::load(&device)
            .unwrap()
            .run(GemmArgs {
                NI: ni as i64,
                NJ: nj as i64,
                NK: nk as i64,
                alpha,
                beta,
                A: &a,
                B: &b,
                C: &mut c,
            })
            .unwrap();
        close_to_scale(
            &c.to_vec().unwrap(),
            &want,
            1e-13,
            &format!("C on {}", device.name()),
        );
    }
}
