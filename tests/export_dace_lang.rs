//! DaCe computes what we compute for the language forms of issue 17:
//! `while`/`break`/`continue` in tasklets, map ranges that depend on an
//! earlier parameter. Each SDFG runs on our CPU device;
//! its DaCe export, the inputs and our outputs go to ci/dace_check.py,
//! which has DaCe validate, compile and run it and compare every output.

mod common;

use common::dace_run::{ints, out_dir, record};
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

    let Some(python) = common::dace::python_or_skip() else {
        return;
    };
    let (ok, text) = common::dace::check(&python, &[dir.as_os_str()]);
    assert!(ok, "DaCe disagrees with our CPU device:\n{text}");
}
