//! `min`/`max` loops over a float local (`for l in 1..L { m = m.max(X[i, l]); }`)
//! end to end. The CPU device runs them as folds of integer order keys
//! (`codegen::cpu::fold`), which vectorize; the value must still be the
//! language's `min`/`max` applied in order, bit for bit: NaN ignored (a NaN
//! only when every value is one), `-0.0 < +0.0`. Rows full of those cases
//! run on every device against the sequential fold in plain Rust.

mod common;
use sdfg::prelude::*;
use sdfg::runtime::MinMaxNumber;

sdfg! {
    pub sdfg Folds {
        symbol N: i64; symbol L: i64;
        gpu X: f32[N, L];
        gpu D: f64[N, L];
        gpu R: f32[N, 3];
        gpu RD: f64[N, 2];
        state s {
            map f[i in 0..N] on gpu {
                let mut m = X[i, 0];
                for l in 1..L {
                    m = m.max(X[i, l]);
                }
                R[i, 0] = m;
                let mut n = X[i, 0];
                for l in 1..L {
                    n = X[i, l].min(n);
                }
                R[i, 1] = n;
                let mut e = -1.0f32;
                for l in (0..=L - 1).step_by(2) {
                    e = e.max(X[i, l] * 2.0);
                }
                R[i, 2] = e;
            }
            map g[i in 0..N] on gpu {
                let mut m = D[i, L - 1];
                for l in 0..L {
                    m = D[i, l].max(m);
                }
                RD[i, 0] = m;
                let mut n = f64::INFINITY;
                for l in 0..L {
                    n = n.min(D[i, l] - 1.0);
                }
                RD[i, 1] = n;
            }
        }
    }
}

const L: usize = 8;

/// Rows of special values (NaNs, signed zeros, infinities) and random ones.
fn rows(n: usize) -> Vec<f32> {
    let specials = [
        f32::NAN,
        -f32::NAN,
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -1.0,
        f32::MAX,
    ];
    let mut rng = sdfg_testkit::rng::Rng::new(29);
    let mut x: Vec<f32> = (0..n * L)
        .map(|_| {
            if rng.chance(60) {
                rng.pick(&specials)
            } else {
                rng.range(-4.0, 4.0) as f32
            }
        })
        .collect();
    let fixed: [[f32; L]; 5] = [
        [f32::NAN; L],
        [-0.0; L],
        [-0.0, 0.0, -0.0, -0.0, 0.0, -0.0, -0.0, -0.0],
        [
            f32::NAN,
            -0.0,
            f32::NAN,
            -0.0,
            f32::NAN,
            -0.0,
            f32::NAN,
            f32::NAN,
        ],
        [0.0, -0.0, f32::NAN, -0.0, f32::NAN, 0.0, -0.0, f32::NAN],
    ];
    for (r, row) in fixed.iter().enumerate() {
        x[r * L..(r + 1) * L].copy_from_slice(row);
    }
    x
}

fn same<T: Into<f64> + Copy>(got: T, want: T) -> bool {
    let (g, w) = (got.into(), want.into());
    g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan())
}

#[test]
fn min_max_loops_equal_the_sequential_fold_on_every_device() {
    let n = 600usize;
    let x = rows(n);
    let d: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    for device in common::devices("min_max_loops") {
        let program = Folds::load(&device).unwrap();
        let dx = DeviceBuffer::from_slice(&device, &x).unwrap();
        let dd = DeviceBuffer::from_slice(&device, &d).unwrap();
        let mut r = DeviceBuffer::<f32>::zeros(&device, n * 3).unwrap();
        let mut rd = DeviceBuffer::<f64>::zeros(&device, n * 2).unwrap();
        program
            .run(FoldsArgs {
                N: n as i64,
                L: L as i64,
                X: &dx,
                D: &dd,
                R: &mut r,
                RD: &mut rd,
            })
            .unwrap();
        let (r, rd) = (r.to_vec().unwrap(), rd.to_vec().unwrap());
        for i in 0..n {
            let row = &x[i * L..(i + 1) * L];
            let drow = &d[i * L..(i + 1) * L];
            let want = [
                row[1..].iter().fold(row[0], |m, &v| m.max_number(v)),
                row[1..].iter().fold(row[0], |m, &v| v.min_number(m)),
                row.iter()
                    .step_by(2)
                    .fold(-1.0f32, |m, &v| m.max_number(v * 2.0)),
            ];
            let want_d = [
                drow.iter().fold(drow[L - 1], |m, &v| v.max_number(m)),
                drow.iter()
                    .fold(f64::INFINITY, |m, &v| m.min_number(v - 1.0)),
            ];
            for k in 0..3 {
                assert!(
                    same(r[i * 3 + k], want[k]),
                    "fold {k} of row {i} {row:?} on {}: {:?} (bits {:#x}), want {:?} (bits {:#x})",
                    device.name(),
                    r[i * 3 + k],
                    r[i * 3 + k].to_bits(),
                    want[k],
                    want[k].to_bits()
                );
            }
            for k in 0..2 {
                assert!(
                    same(rd[i * 2 + k], want_d[k]),
                    "f64 fold {k} of row {i} {drow:?} on {}: {:?}, want {:?}",
                    device.name(),
                    rd[i * 2 + k],
                    want_d[k]
                );
            }
        }
    }
}
