//! NPBench `arc_distance` (pythran):
//!
//! ```text
//! temp = np.sin((theta_2 - theta_1) / 2)**2 + np.cos(theta_1) * np.cos(theta_2) * np.sin((phi_2 - phi_1) / 2)**2
//! distance_matrix = 2 * (np.arctan2(np.sqrt(temp), np.sqrt(1 - temp)))
//! return distance_matrix
//! ```
//!
//! One map over the points, the two NumPy lines its body: `temp` is a local
//! of each point here (array statements, GUIDE 5.5, would need a transient
//! array for it).

use super::arrays::*;
use super::common;
use sdfg::prelude::*;

sdfg! {
    pub sdfg ArcDistance {
        symbol N: i64;
        gpu theta_1: f64[N]; gpu phi_1: f64[N]; gpu theta_2: f64[N]; gpu phi_2: f64[N];
        gpu distance: f64[N];
        state s {
            map d[i in 0..N] on gpu {
                let temp = ((theta_2[i] - theta_1[i]) / 2.0).sin().powi(2)
                    + theta_1[i].cos() * theta_2[i].cos() * ((phi_2[i] - phi_1[i]) / 2.0).sin().powi(2);
                distance[i] = 2.0 * temp.sqrt().atan2((1.0 - temp).sqrt());
            }
        }
    }
}

fn reference(t1: &[f64], p1: &[f64], t2: &[f64], p2: &[f64]) -> Vec<f64> {
    (0..t1.len())
        .map(|i| {
            let temp = ((t2[i] - t1[i]) / 2.0).sin().powi(2)
                + t1[i].cos() * t2[i].cos() * ((p2[i] - p1[i]) / 2.0).sin().powi(2);
            2.0 * temp.sqrt().atan2((1.0 - temp).sqrt())
        })
        .collect()
}

#[test]
fn arc_distance() {
    let n = 37usize;
    // NPBench draws from [0, 1).
    let unit = |seed| -> Vec<f64> { random(seed, n).iter().map(|v| v.abs()).collect() };
    let (t1, p1, t2, p2) = (unit(40), unit(41), unit(42), unit(43));
    let want = reference(&t1, &p1, &t2, &p2);
    for device in common::devices("npbench arc_distance") {
        let up = |v: &[f64]| DeviceBuffer::from_slice(&device, v).unwrap();
        let (a, b, c, d) = (up(&t1), up(&p1), up(&t2), up(&p2));
        let mut out = DeviceBuffer::<f64>::zeros(&device, n).unwrap();
        ArcDistance::load(&device)
            .unwrap()
            .run(ArcDistanceArgs {
                N: n as i64,
                theta_1: &a,
                phi_1: &b,
                theta_2: &c,
                phi_2: &d,
                distance: &mut out,
            })
            .unwrap();
        // The CPU device runs the body as Rust (the same bits); the GPU's
        // sin, cos, sqrt and atan2 are within a few ulp (docs/PTX.md).
        close(
            &out.to_vec().unwrap(),
            &want,
            1e-14,
            &format!("distance on {}", device.name()),
        );
    }
}
