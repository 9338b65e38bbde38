//! NPBench `azimint_naive` (pyFAI's naive azimuthal integration):
//!
//! ```text
//! rmax = radius.max()
//! res = np.zeros(npt, dtype=np.float64)
//! for i in range(npt):
//!     r1 = rmax * i / npt
//!     r2 = rmax * (i + 1) / npt
//!     mask_r12 = np.logical_and((r1 <= radius), (radius < r2))
//!     values_r12 = data[mask_r12]
//!     res[i] = values_r12.mean()
//! return res
//! ```
//!
//! A max reduction, then one map over (bin, point) that sums the values
//! and counts the points of each bin, then the means. Constants such as
//! `f64::NEG_INFINITY` (issue 17, item 3) would start the maximum without
//! a state of its own; a `reduce` node would take the sums.

use super::arrays::*;
use super::common;
use sdfg::prelude::*;

sdfg! {
    pub sdfg AzimintNaive {
        symbol N: i64; symbol NPT: i64;
        gpu data: f64[N]; gpu radius: f64[N]; gpu res: f64[NPT];
        transient gpu rmax: f64; transient gpu sum: f64[NPT]; transient gpu count: f64[NPT];
        state init {
            map first[i in 0..1] on gpu { rmax = radius[0]; }
            map zero[i in 0..NPT] on gpu { sum[i] = 0.0; count[i] = 0.0; }
        }
        state bins {
            map max[j in 0..N] on gpu { rmax = rmax.max(radius[j]); }
            map bin[i in 0..NPT, j in 0..N] on gpu {
                let r1 = rmax * (i as f64) / (NPT as f64);
                let r2 = rmax * ((i + 1) as f64) / (NPT as f64);
                if r1 <= radius[j] && radius[j] < r2 { sum[i] += data[j]; count[i] += 1.0; }
            }
            map mean[i in 0..NPT] on gpu { res[i] = sum[i] / count[i]; }
        }
        init -> bins;
    }
}

fn reference(data: &[f64], radius: &[f64], npt: usize) -> Vec<f64> {
    let rmax = radius.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    (0..npt)
        .map(|i| {
            let r1 = rmax * i as f64 / npt as f64;
            let r2 = rmax * (i + 1) as f64 / npt as f64;
            let values: Vec<f64> = (0..data.len())
                .filter(|&j| r1 <= radius[j] && radius[j] < r2)
                .map(|j| data[j])
                .collect();
            values.iter().sum::<f64>() / values.len() as f64
        })
        .collect()
}

#[test]
fn azimint_naive() {
    let (n, npt) = (200usize, 9usize);
    let data = random(13, n);
    let radius: Vec<f64> = random(14, n).iter().map(|r| r.abs()).collect();
    let want = reference(&data, &radius, npt);
    for device in common::devices("npbench azimint_naive") {
        let d = DeviceBuffer::from_slice(&device, &data).unwrap();
        let r = DeviceBuffer::from_slice(&device, &radius).unwrap();
        let mut res = DeviceBuffer::<f64>::zeros(&device, npt).unwrap();
        AzimintNaive::load(&device)
            .unwrap()
            .run(AzimintNaiveArgs {
                N: n as i64,
                NPT: npt as i64,
                data: &d,
                radius: &r,
                res: &mut res,
            })
            .unwrap();
        // The sums run in any order.
        close(
            &res.to_vec().unwrap(),
            &want,
            1e-12,
            &format!("res on {}", device.name()),
        );
    }
}
