//! NPBench `atax` (polybench): `return (A @ x) @ A`.
//!
//! Two `matmul` library statements (GUIDE 5.6), each a map with a loop.
//!
//! Lines: 2 against NumPy's 1, within the 2x (docs/NPBENCH.md).

use super::arrays::*;
use super::common;
use sdfg::prelude::*;

sdfg! {
    pub sdfg Atax {
        symbol M: i64; symbol N: i64; gpu A: f64[M, N]; gpu x: f64[N]; gpu y: f64[N]; transient gpu Ax: f64[M];
        state s { Ax = matmul(A, x); y = matmul(Ax, A); }
    }
}

fn reference(m: usize, n: usize, a: &[f64], x: &[f64]) -> Vec<f64> {
    let ax: Vec<f64> = (0..m)
        .map(|i| (0..n).fold(0.0, |s, j| s + a[i * n + j] * x[j]))
        .collect();
    (0..n)
        .map(|j| (0..m).fold(0.0, |s, i| s + ax[i] * a[i * n + j]))
        .collect()
}

#[test]
fn atax() {
    let (m, n) = (11usize, 13usize);
    let (a, x) = (random(4, m * n), random(5, n));
    let want = reference(m, n, &a, &x);
    for device in common::devices("npbench atax") {
        let a = DeviceBuffer::from_slice(&device, &a).unwrap();
        let x = DeviceBuffer::from_slice(&device, &x).unwrap();
        let mut y = DeviceBuffer::<f64>::zeros(&device, n).unwrap();
        Atax::load(&device)
            .unwrap()
            .run(AtaxArgs {
                M: m as i64,
                N: n as i64,
                A: &a,
                x: &x,
                y: &mut y,
            })
            .unwrap();
        close_to_scale(
            &y.to_vec().unwrap(),
            &want,
            1e-13,
            &format!("y on {}", device.name()),
        );
    }
}
