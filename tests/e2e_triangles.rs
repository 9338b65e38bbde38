//! Map ranges that depend on an earlier parameter (triangles), on every
//! schedule and device (a block map's too), against plain Rust; and the
//! bounds checks of such a map (where the accesses run: the box is more
//! than what runs).

mod common;

use sdfg::prelude::*;

sdfg! {
    /// The lower triangle of A (strictly below the diagonal) on the GPU,
    /// its transpose's upper band on the CPU, and the row sums of the lower
    /// triangle including the diagonal in a sequential map.
    pub sdfg Triangles {
        symbol N: i64;
        gpu A: f64[N, N];
        gpu L: f64[N, N];
        host H: f64[N, N];
        host U: f64[N, N];
        host Sums: f64[N];
        state s {
            map lower[i in 0..N, j in 0..i] on gpu { L[i, j] = A[i, j] * 2.0; }
            map upper[i in 0..N, j in i + 1..N] on cpu { U[i, j] = H[j, i] + 1.0; }
            map rows[i in 0..N] on seq {
                let mut s = 0.0;
                for j in 0..i + 1 { s += H[i, j]; }
                Sums[i] = s;
            }
        }
    }
}

sdfg! {
    /// A stepped band and a tetrahedron (3 dependent dimensions).
    pub sdfg Pyramid {
        symbol N: i64;
        host C: i64[N, N, N];
        host B: i64[N, N];
        state s {
            map tetra[i in 0..N, j in 0..i + 1, k in j..i + 1] on cpu { C[i, j, k] = 100 * i + 10 * j + k; }
            map band[i in 0..N, j in (i..2 * i + 1).step_by(2)] on cpu { B[i, j % N] += 1; }
        }
    }
}

sdfg! {
    /// `j` reaches `i + 1`, so the box of `A[i, j + 1]` passes the end of A
    /// on the last row: the host says so before the map runs.
    pub sdfg PastTheEnd {
        symbol N: i64;
        host A: f64[N, N];
        state s {
            map m[i in 0..N, j in 0..i + 1] on cpu { A[i, j + 1] = 1.0; }
        }
    }
}

#[test]
fn triangles_match_plain_rust() {
    let n = 9usize;
    let a: Vec<f64> = (0..n * n).map(|k| k as f64 * 0.5).collect();
    for device in common::devices("triangles_match_plain_rust") {
        let program = Triangles::load(&device).expect("load");
        let ad = DeviceBuffer::from_slice(&device, &a).expect("upload");
        let mut l = DeviceBuffer::from_slice(&device, &vec![-1.0; n * n]).expect("alloc");
        let mut u = vec![-1.0; n * n];
        let mut sums = vec![0.0; n];
        program
            .run(TrianglesArgs {
                N: n as i64,
                A: &ad,
                L: &mut l,
                H: &a,
                U: &mut u,
                Sums: &mut sums,
            })
            .expect("run");
        let l = l.to_vec().unwrap();
        for i in 0..n {
            for j in 0..n {
                let want_l = if j < i { a[i * n + j] * 2.0 } else { -1.0 };
                let want_u = if j > i { a[j * n + i] + 1.0 } else { -1.0 };
                assert_eq!(l[i * n + j], want_l, "L[{i}, {j}] on {device:?}");
                assert_eq!(u[i * n + j], want_u, "U[{i}, {j}] on {device:?}");
            }
            let want: f64 = (0..=i).map(|j| a[i * n + j]).sum();
            assert_eq!(sums[i], want, "Sums[{i}]");
        }
    }
}

#[test]
fn three_dependent_dimensions_and_a_stepped_band() {
    let n = 6usize;
    let program = Pyramid::load(&Device::cpu()).expect("load");
    let (mut c, mut b) = (vec![-1i64; n * n * n], vec![0i64; n * n]);
    program
        .run(PyramidArgs {
            N: n as i64,
            C: &mut c,
            B: &mut b,
        })
        .expect("run");
    let (mut want_c, mut want_b) = (vec![-1i64; n * n * n], vec![0i64; n * n]);
    for i in 0..n {
        for j in 0..=i {
            for k in j..=i {
                want_c[(i * n + j) * n + k] = (100 * i + 10 * j + k) as i64;
            }
        }
        for j in (i..2 * i + 1).step_by(2) {
            want_b[i * n + j % n] += 1;
        }
    }
    assert_eq!(c, want_c);
    assert_eq!(b, want_b);
}

sdfg! {
    /// `j` steps by 2 from `i`, so it takes odd values for odd `i`, off the
    /// stride of its box `(0..N + 1).step_by(2)`: the box of `k` must still
    /// count up to the largest `j` (`N` for odd `N`).
    pub sdfg SteppedOuter {
        symbol N: i64;
        gpu Z: i64[N, N + 1];
        state s {
            map zig[i in 0..N, j in (i..N + 1).step_by(2), k in 0..j + 1] on gpu { Z[i, k] += 1; }
        }
    }
}

sdfg! {
    /// For `i = 0` no `j` runs, so `A[i - 1, j]` never reads row -1, though
    /// the box of `i` is `0..N`: no precheck may refuse this (the accesses
    /// of a map with a dependent range are checked where they run).
    pub sdfg EmptyFirstRow {
        symbol N: i64;
        host A: f64[N, N];
        host B: f64[N, N];
        state s {
            map m[i in 0..N, j in 0..i] on cpu { B[i, j] = A[i - 1, j] + 1.0; }
        }
    }
}

#[test]
fn an_access_past_the_end_in_a_dependent_map_is_an_error() {
    let program = PastTheEnd::load(&Device::cpu()).expect("load");
    let mut a = vec![0.0; 16];
    let err = program
        .run(PastTheEndArgs { N: 4, A: &mut a })
        .expect_err("A[3, 4] is past the end");
    let text = err.to_string();
    assert!(text.contains("`A`"), "{text}");
    // Guarded: the access past the end is skipped, the others ran.
    assert_eq!(a[4 * 3 + 3], 1.0);
}

#[test]
fn iterations_that_do_not_run_are_not_checked() {
    let n = 5usize;
    let a: Vec<f64> = (0..n * n).map(|k| k as f64).collect();
    let mut b = vec![0.0; n * n];
    EmptyFirstRow::load(&Device::cpu())
        .expect("load")
        .run(EmptyFirstRowArgs {
            N: n as i64,
            A: &a,
            B: &mut b,
        })
        .expect("row -1 is never read");
    for i in 0..n {
        for j in 0..n {
            let want = if j < i { a[(i - 1) * n + j] + 1.0 } else { 0.0 };
            assert_eq!(b[i * n + j], want, "B[{i}, {j}]");
        }
    }
}

#[test]
fn a_range_after_a_stepped_dependent_one_covers_its_values() {
    for device in common::devices("a_range_after_a_stepped_dependent_one_covers_its_values") {
        for n in [3usize, 4, 5] {
            let mut z = DeviceBuffer::from_slice(&device, &vec![0i64; n * (n + 1)]).expect("alloc");
            SteppedOuter::load(&device)
                .expect("load")
                .run(SteppedOuterArgs {
                    N: n as i64,
                    Z: &mut z,
                })
                .expect("run");
            let mut want = vec![0i64; n * (n + 1)];
            for i in 0..n {
                for j in (i..n + 1).step_by(2) {
                    for k in 0..=j {
                        want[i * (n + 1) + k] += 1;
                    }
                }
            }
            assert_eq!(z.to_vec().unwrap(), want, "N = {n}, {device:?}");
        }
    }
}

sdfg! {
    /// A triangular block map: block `(i, j)` for `j in i..N` adds row `j`
    /// of `X`, times `i + 1`, into `S[i, j]` with a block reduction. The
    /// box is `N x N`; its blocks below the diagonal skip.
    pub sdfg BlockTriangle {
        symbol N: i64;
        symbol C: i64;
        gpu X: f64[N, C];
        gpu S: f64[N, N];
        state s {
            map b[i in 0..N, j in i..N] on gpu block(64) {
                map t[k in 0..C] on threads { S[i, j] += X[j, k] * (i + 1) as f64; }
            }
        }
    }
}

/// Every device runs exactly the triangle of a block map's box (small
/// integers: every sum is exact in any order).
#[test]
fn a_triangular_block_map_runs_its_triangle() {
    let (n, c) = (7usize, 100usize);
    let x: Vec<f64> = (0..n * c).map(|k| ((k * 7) % 5) as f64 - 2.0).collect();
    let mut want = vec![-1.0f64; n * n];
    for i in 0..n {
        for j in i..n {
            let row: f64 = x[j * c..(j + 1) * c].iter().sum();
            want[i * n + j] += row * (i + 1) as f64;
        }
    }
    for device in common::devices("block triangle") {
        let xs = DeviceBuffer::from_slice(&device, &x).unwrap();
        let mut s = DeviceBuffer::from_slice(&device, &vec![-1.0f64; n * n]).unwrap();
        BlockTriangle::load(&device)
            .unwrap()
            .run(BlockTriangleArgs {
                N: n as i64,
                C: c as i64,
                X: &xs,
                S: &mut s,
            })
            .unwrap();
        assert_eq!(s.to_vec().unwrap(), want, "{}", device.name());
    }
}
