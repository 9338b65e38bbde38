//! NPBench `covariance` (polybench):
//!
//! ```text
//! mean = np.sum(data, axis=0) / float_n
//! data -= mean
//! for i in range(M):
//!     cov[i:M, i] = cov[i, i:M] = data[:, i] @ data[:, i:M] / (float_n - 1.0)
//! ```
//!
//! The whole matrix is computed (both triangles give the same bits: the
//! products commute and the sums run in one order). A `reduce` library node
//! and array statements (issue 17, items 6 and 7) would make the mean and
//! the centering one line each, `matmul` with a transpose the covariance.
//!
//! Lines: 11 against NumPy's 6, within the issue's 2x (docs/NPBENCH.md).

use super::arrays::*;
use super::common;
use sdfg::prelude::*;

sdfg! {
    pub sdfg Covariance {
        symbol M: i64; symbol N: i64; host float_n: f64;
        gpu data: f64[N, M]; gpu cov: f64[M, M]; transient gpu mean: f64[M];
        state s {
            map mean[j in 0..M] on gpu { let mut s = 0.0; for i in 0..N { s += data[i, j]; } mean[j] = s / float_n; }
            map center[i in 0..N, j in 0..M] on gpu { data[i, j] = data[i, j] - mean[j]; }
            map cov[i in 0..M, j in 0..M] on gpu {
                let mut s = 0.0;
                for k in 0..N { s += data[k, i] * data[k, j]; }
                cov[i, j] = s / (float_n - 1.0);
            }
        }
    }
}

fn reference(m: usize, n: usize, float_n: f64, data: &mut [f64]) -> Vec<f64> {
    for j in 0..m {
        let mean = (0..n).fold(0.0, |s, i| s + data[i * m + j]) / float_n;
        for i in 0..n {
            data[i * m + j] -= mean;
        }
    }
    let mut cov = vec![0.0; m * m];
    for i in 0..m {
        for j in 0..m {
            let s = (0..n).fold(0.0, |s, k| s + data[k * m + i] * data[k * m + j]);
            cov[i * m + j] = s / (float_n - 1.0);
        }
    }
    cov
}

#[test]
fn covariance() {
    let (m, n) = (8usize, 12usize);
    let data0 = random(6, n * m);
    let mut want_data = data0.clone();
    let want = reference(m, n, n as f64, &mut want_data);
    for device in common::devices("npbench covariance") {
        let mut data = DeviceBuffer::from_slice(&device, &data0).unwrap();
        let mut cov = DeviceBuffer::<f64>::zeros(&device, m * m).unwrap();
        Covariance::load(&device)
            .unwrap()
            .run(CovarianceArgs {
                M: m as i64,
                N: n as i64,
                float_n: n as f64,
                data: &mut data,
                cov: &mut cov,
            })
            .unwrap();
        let on = device.name();
        same_bits(&cov.to_vec().unwrap(), &want, &format!("cov on {on}"));
        same_bits(
            &data.to_vec().unwrap(),
            &want_data,
            &format!("data on {on}"),
        );
    }
}
