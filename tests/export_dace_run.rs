//! DaCe must compute what we compute: each host-only SDFG runs on our CPU
//! device, then its DaCe export (`Name::ir()` -> `.sdfg`) plus the same
//! inputs and *our* outputs go to ci/dace_check.py, which has DaCe compile
//! and run it on the CPU and compare every output exactly.
//!
//! DaCe comes from `SDFG_DACE_PYTHON` (a python with dace==1.0.2); without
//! it the comparison is skipped with a printed line, unless
//! `SDFG_REQUIRE_DACE=1` (CI), which makes that a failure.

mod common;

use common::dace_run::{floats, ints, out_dir, record};
use sdfg::prelude::*;

common::fixtures::wcr_sum!(sdfg);
common::fixtures::copy_subsets!(sdfg);
common::fixtures::cpu_only!(sdfg);
common::fixtures::loop_cond!(sdfg);
common::fixtures::semantics!(sdfg);
common::fixtures::reductions2!(sdfg);
common::fixtures::nested_host!(sdfg);

#[test]
fn dace_computes_what_we_compute() {
    let device = Device::cpu();
    let dir = out_dir("fixtures");

    let a: Vec<i64> = (0..100).map(|i| i * i - 50).collect();
    let mut s = vec![7i64];
    WcrSum::load(&device)
        .unwrap()
        .run(WcrSumArgs {
            N: 100,
            A: &a,
            S: &mut s,
        })
        .unwrap();
    record(
        &dir,
        &WcrSum::ir().unwrap(),
        &[("N", 100)],
        &[("A", ints(&a)), ("S", ints(&[7]))],
        &[("S", ints(&s))],
    );

    let a: Vec<i32> = (0..20).map(|i| i * 3).collect();
    let m: Vec<i32> = (0..20).map(|i| 10 * (i / 5) + i % 5).collect();
    let (mut b, mut v) = (vec![-1i32; 10], vec![-1i32; 3]);
    CopySubsets::load(&device)
        .unwrap()
        .run(CopySubsetsArgs {
            A: &a,
            B: &mut b,
            M: &m,
            V: &mut v,
        })
        .unwrap();
    record(
        &dir,
        &CopySubsets::ir().unwrap(),
        &[],
        &[
            ("A", ints(&a)),
            ("B", ints(&[-1; 10])),
            ("M", ints(&m)),
            ("V", ints(&[-1; 3])),
        ],
        &[("B", ints(&b)), ("V", ints(&v))],
    );

    let x: Vec<i64> = (0..8).map(|i| i * 2 - 3).collect();
    let (mut y, mut total) = (vec![0i64; 8], vec![0i64]);
    CpuOnly::load(&device)
        .unwrap()
        .run(CpuOnlyArgs {
            N: 8,
            X: &x,
            Y: &mut y,
            total: &mut total,
        })
        .unwrap();
    record(
        &dir,
        &CpuOnly::ir().unwrap(),
        &[("N", 8)],
        &[("X", ints(&x)), ("Y", ints(&[0; 8])), ("total", ints(&[0]))],
        &[("Y", ints(&y)), ("total", ints(&total))],
    );

    let mut a: Vec<i64> = (0..5).collect();
    LoopCond::load(&device)
        .unwrap()
        .run(LoopCondArgs { N: 5, A: &mut a })
        .unwrap();
    record(
        &dir,
        &LoopCond::ir().unwrap(),
        &[("N", 5)],
        &[("A", ints(&[0, 1, 2, 3, 4]))],
        &[("A", ints(&a))],
    );

    let a: Vec<i64> = (0..10).map(|i| (i * 7) % 11 - 5).collect();
    let init = [i64::MAX, i64::MIN, 1, 100];
    let mut r = init.to_vec();
    Reductions2::load(&device)
        .unwrap()
        .run(Reductions2Args {
            N: 10,
            A: &a,
            R: &mut r,
        })
        .unwrap();
    record(
        &dir,
        &Reductions2::ir().unwrap(),
        &[("N", 10)],
        &[("A", ints(&a)), ("R", ints(&init))],
        &[("R", ints(&r))],
    );

    let inp = [7i64, 0, -7, i64::MIN, -1, 65];
    let fin = [0.0f64, 2.0];
    let (mut out, mut fout, mut f32out) = (vec![0i64; 22], vec![0.0f64; 7], vec![0.0f32]);
    Semantics::load(&device)
        .unwrap()
        .run(SemanticsArgs {
            inp: &inp,
            fin: &fin,
            out: &mut out,
            fout: &mut fout,
            f32out: &mut f32out,
        })
        .unwrap();
    record(
        &dir,
        &Semantics::ir().unwrap(),
        &[],
        &[
            ("inp", ints(&inp)),
            ("fin", floats(&fin)),
            ("out", ints(&[0; 22])),
            ("fout", floats(&[0.0; 7])),
            ("f32out", floats(&[0.0])),
        ],
        &[
            ("out", ints(&out)),
            ("fout", floats(&fout)),
            ("f32out", floats(&[f32out[0] as f64])),
        ],
    );

    // Nested SDFGs: DaCe runs the `NestedSDFG` nodes of the export.
    let x: Vec<f64> = (0..6).map(|i| i as f64 * 0.5 - 1.0).collect();
    let y0: Vec<f64> = (0..12).map(|i| (i * i) as f64 * 0.25).collect();
    let (mut y, mut total) = (y0.clone(), vec![0.0f64; 2]);
    NestedHost::load(&device)
        .unwrap()
        .run(NestedHostArgs {
            N: 6,
            X: &x,
            Y: &mut y,
            total: &mut total,
            scale: 1.5,
        })
        .unwrap();
    record(
        &dir,
        &NestedHost::ir().unwrap(),
        &[("N", 6)],
        &[
            ("X", floats(&x)),
            ("Y", floats(&y0)),
            ("total", floats(&[0.0, 0.0])),
            ("scale", floats(&[1.5])),
        ],
        &[("Y", floats(&y)), ("total", floats(&total))],
    );

    let Some(python) = common::dace::python_or_skip() else {
        return;
    };
    let (ok, text) = common::dace::check(&python, &[dir.as_os_str()]);
    assert!(
        ok,
        "DaCe disagrees with our CPU device:
{text}"
    );
}
