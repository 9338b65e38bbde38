//! DaCe computes what we compute for the language forms of issue 17:
//! `while`/`break`/`continue` in tasklets, map ranges that depend on an
//! earlier parameter, array statements, and library statements (exported
//! as DaCe's `MatMul`, `Transpose` and `Reduce` nodes, which DaCe expands
//! and runs itself). Each SDFG runs on our CPU device;
//! its DaCe export, the inputs and our outputs go to ci/dace_check.py,
//! which has DaCe validate, compile and run it and compare every output.

mod common;

use common::dace_run::{floats, ints, out_dir, record};
use sdfg::prelude::*;

sdfg! {
    /// Loops in tasklets: a `while` with `continue`, a `for` left by
    /// `break`, a stepped `for` with `continue` (DaCe's C++ runs the
    /// overflow guard first), a `loop` in a host tasklet.
    pub sdfg ControlFlow {
        symbol N: i64;
        host X: i64[N];
        host Steps: i64[N];
        host First: i64[N];
        host Sum: i64[N];
        host Last: i64;
        state s {
            map collatz[i in 0..N] on cpu {
                let mut v = X[i];
                let mut steps = 0i64;
                while v > 1 && steps < 500 {
                    if v % 2 == 0 { v = v / 2; continue; }
                    v = 3 * v + 1;
                    steps += 1;
                }
                Steps[i] = steps;
            }
            map first_zero[i in 0..N] on cpu {
                let mut found = -1i64;
                for j in i..N + 5 {
                    if j >= N { break; }
                    if X[j] == 0 { found = j; break; }
                }
                First[i] = found;
            }
            map skip[i in 0..N] on seq {
                let mut s = 0i64;
                for k in (0..i * 3).step_by(2) {
                    if k % 3 == 0 { continue; }
                    s += k;
                }
                Sum[i] = s;
            }
            tasklet last_nonzero {
                let mut k = N - 1;
                loop {
                    if k < 0 { break; }
                    if X[k] != 0 { break; }
                    k -= 1;
                }
                Last = k;
            }
        }
    }
}

sdfg! {
    /// Triangles: a range that reads the parameter before it, a stepped
    /// band, three dependent dimensions.
    pub sdfg Triangles {
        symbol N: i64;
        host A: i64[N, N];
        host L: i64[N, N];
        host B: i64[N, N];
        host C: i64[N, N, N];
        state s {
            map lower[i in 0..N, j in 0..i] on cpu { L[i, j] = A[i, j] + A[j, i]; }
            map band[i in 0..N, j in (i..2 * i + 1).step_by(2)] on cpu { B[i, j % N] += j; }
            map tetra[i in 0..N, j in 1..i + 1, k in j - 1..i] on cpu { C[i, j, k] = 100 * i + 10 * j + k; }
        }
    }
}

sdfg! {
    /// gemm and atax as NPBench writes them, reductions, a stencil.
    pub sdfg ArrayForms {
        symbol NI: i64; symbol NJ: i64; symbol NK: i64;
        host alpha: f64; host beta: f64;
        host A: f64[NI, NK];
        host B: f64[NK, NJ];
        host C: f64[NI, NJ];
        host x: f64[NK];
        host y: f64[NK];
        host AT: f64[NK, NI];
        host RowMax: f64[NI];
        host ColMin: f64[NK];
        host Total: f64[1];
        host S: f64[NI];
        transient host AB: f64[NI, NJ];
        transient host Ax: f64[NI];
        state gemm {
            AB = matmul(A, B);
            C = alpha * AB + beta * C;
        }
        state atax {
            Ax = matmul(A, x);
            y = matmul(Ax, A);
            AT = transpose(A);
            RowMax = reduce max(A, axis 1);
            ColMin = reduce min(A, axes [0]);
            Total = reduce sum(A);
            S[1..NI - 1] = 0.5 * (Ax[0..NI - 2] + Ax[2..NI]);
        }
        gemm -> atax;
    }
}

#[test]
fn dace_computes_what_we_compute_for_the_language_forms() {
    let device = Device::cpu();
    let dir = out_dir("lang");

    let x: Vec<i64> = (0..12)
        .map(|k| if k % 5 == 2 { 0 } else { k * 3 + 1 })
        .collect();
    let n = x.len();
    let (mut steps, mut first, mut sum, mut last) = (vec![0i64; n], vec![0; n], vec![0; n], 0);
    ControlFlow::load(&device)
        .unwrap()
        .run(ControlFlowArgs {
            N: n as i64,
            X: &x,
            Steps: &mut steps,
            First: &mut first,
            Sum: &mut sum,
            Last: &mut last,
        })
        .unwrap();
    let want_first: Vec<i64> = (0..n)
        .map(|i| (i..n).find(|&j| x[j] == 0).map_or(-1, |j| j as i64))
        .collect();
    let want_sum: Vec<i64> = (0..n as i64)
        .map(|i| (0..i * 3).step_by(2).filter(|k| k % 3 != 0).sum())
        .collect();
    assert_eq!(first, want_first);
    assert_eq!(sum, want_sum);
    assert_eq!(last, 11);
    record(
        &dir,
        &ControlFlow::ir().unwrap(),
        &[("N", n as i64)],
        &[
            ("X", ints(&x)),
            ("Steps", ints(&vec![0; n])),
            ("First", ints(&vec![0; n])),
            ("Sum", ints(&vec![0; n])),
            ("Last", ints(&[0])),
        ],
        &[
            ("Steps", ints(&steps)),
            ("First", ints(&first)),
            ("Sum", ints(&sum)),
            ("Last", ints(&[last])),
        ],
    );

    let n = 6usize;
    let a: Vec<i64> = (0..n * n).map(|k| (k * 7 % 11) as i64).collect();
    let (mut l, mut b, mut c) = (vec![0i64; n * n], vec![0i64; n * n], vec![0i64; n * n * n]);
    Triangles::load(&device)
        .unwrap()
        .run(TrianglesArgs {
            N: n as i64,
            A: &a,
            L: &mut l,
            B: &mut b,
            C: &mut c,
        })
        .unwrap();
    assert_eq!(l[n], a[n] + a[1], "L[1, 0]");
    assert_eq!(l[0], 0, "nothing on the diagonal");
    record(
        &dir,
        &Triangles::ir().unwrap(),
        &[("N", n as i64)],
        &[
            ("A", ints(&a)),
            ("L", ints(&vec![0; n * n])),
            ("B", ints(&vec![0; n * n])),
            ("C", ints(&vec![0; n * n * n])),
        ],
        &[("L", ints(&l)), ("B", ints(&b)), ("C", ints(&c))],
    );

    let (ni, nj, nk) = (5usize, 4usize, 3usize);
    // Small integers: sums are exact in any order.
    let a: Vec<f64> = (0..ni * nk).map(|k| ((k * 5) % 7) as f64 - 3.0).collect();
    let b: Vec<f64> = (0..nk * nj).map(|k| ((k * 3) % 5) as f64 - 2.0).collect();
    let c0: Vec<f64> = (0..ni * nj).map(|k| (k % 4) as f64).collect();
    let x: Vec<f64> = (0..nk).map(|k| k as f64 + 1.0).collect();
    let mut c = c0.clone();
    let (mut y, mut at, mut rowmax, mut colmin, mut total, mut s) = (
        vec![0.0; nk],
        vec![0.0; nk * ni],
        vec![0.0; ni],
        vec![0.0; nk],
        vec![0.0],
        vec![0.0; ni],
    );
    ArrayForms::load(&device)
        .unwrap()
        .run(ArrayFormsArgs {
            NI: ni as i64,
            NJ: nj as i64,
            NK: nk as i64,
            alpha: 2.0,
            beta: 0.5,
            A: &a,
            B: &b,
            C: &mut c,
            x: &x,
            y: &mut y,
            AT: &mut at,
            RowMax: &mut rowmax,
            ColMin: &mut colmin,
            Total: &mut total,
            S: &mut s,
        })
        .unwrap();
    assert_eq!(total[0], a.iter().sum::<f64>());
    record(
        &dir,
        &ArrayForms::ir().unwrap(),
        &[("NI", ni as i64), ("NJ", nj as i64), ("NK", nk as i64)],
        &[
            ("alpha", floats(&[2.0])),
            ("beta", floats(&[0.5])),
            ("A", floats(&a)),
            ("B", floats(&b)),
            ("C", floats(&c0)),
            ("x", floats(&x)),
            ("y", floats(&vec![0.0; nk])),
            ("AT", floats(&vec![0.0; nk * ni])),
            ("RowMax", floats(&vec![0.0; ni])),
            ("ColMin", floats(&vec![0.0; nk])),
            ("Total", floats(&[0.0])),
            ("S", floats(&vec![0.0; ni])),
        ],
        &[
            ("C", floats(&c)),
            ("y", floats(&y)),
            ("AT", floats(&at)),
            ("RowMax", floats(&rowmax)),
            ("ColMin", floats(&colmin)),
            ("Total", floats(&total)),
            ("S", floats(&s)),
        ],
    );

    let Some(python) = common::dace::python_or_skip() else {
        return;
    };
    let (ok, text) = common::dace::check(&python, &[dir.as_os_str()]);
    assert!(ok, "DaCe disagrees with our CPU device:\n{text}");
}
