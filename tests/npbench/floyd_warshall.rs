//! NPBench `floyd_warshall` (polybench):
//!
//! ```text
//! for k in range(path.shape[0]):
//!     path[:] = np.minimum(path[:], np.add.outer(path[:, k], path[k, :]))
//! ```
//!
//! One state per `k`: NumPy reads row and column `k` before it writes
//! `path`, so they are copied first (the race test rejects the relaxation
//! in place: iterations `(k, j)` and `(i, k)` write what the others read).

use super::common;
use sdfg::prelude::*;

sdfg! {
    pub sdfg FloydWarshall {
        symbol N: i64;
        gpu path: i32[N, N]; transient gpu row: i32[N]; transient gpu col: i32[N];
        state init {}
        state step {
            map take[i in 0..N] on gpu { row[i] = path[k, i]; col[i] = path[i, k]; }
            map relax[i in 0..N, j in 0..N] on gpu { path[i, j] = path[i, j].min(col[i] + row[j]); }
        }
        init -> step if 0 < N { k = 0 }
        step -> step if k + 1 < N { k = k + 1 }
    }
}

fn reference(n: usize, path: &mut [i32]) {
    for k in 0..n {
        let row: Vec<i32> = (0..n).map(|j| path[k * n + j]).collect();
        let col: Vec<i32> = (0..n).map(|i| path[i * n + k]).collect();
        for i in 0..n {
            for j in 0..n {
                path[i * n + j] = path[i * n + j].min(col[i] + row[j]);
            }
        }
    }
}

#[test]
fn floyd_warshall() {
    let n = 13usize;
    // NPBench's input: `i * j % 7 + 1`, every 13th pair far apart.
    let p0: Vec<i32> = (0..n * n)
        .map(|x| {
            let (i, j) = ((x / n) as i32, (x % n) as i32);
            if (i + j) % 13 == 0 || (i + j) % 7 == 0 || (i + j) % 11 == 0 {
                999
            } else {
                i * j % 7 + 1
            }
        })
        .collect();
    let mut want = p0.clone();
    reference(n, &mut want);
    for device in common::devices("npbench floyd_warshall") {
        let mut path = DeviceBuffer::from_slice(&device, &p0).unwrap();
        FloydWarshall::load(&device)
            .unwrap()
            .run(FloydWarshallArgs {
                N: n as i64,
                path: &mut path,
            })
            .unwrap();
        assert_eq!(path.to_vec().unwrap(), want, "path on {}", device.name());
    }
}
