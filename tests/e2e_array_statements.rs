//! Array statements (NumPy-like slices and whole arrays) and library
//! statements (`matmul`, `transpose`, `reduce`), on the CPU device and on
//! a GPU when there is one, against plain Rust.

mod common;

use sdfg::prelude::*;

sdfg! {
    /// NPBench's jacobi_2d, written as NumPy writes it.
    pub sdfg Jacobi2dArrays {
        symbol N: i64; symbol TSTEPS: i64;
        gpu A: f64[N, N];
        gpu B: f64[N, N];
        state init {}
        state step {
            B[1..N-1, 1..N-1] = 0.2 * (A[1..N-1, 1..N-1] + A[1..N-1, 0..N-2] + A[1..N-1, 2..N]
                                       + A[2..N, 1..N-1] + A[0..N-2, 1..N-1]);
            A[1..N-1, 1..N-1] = 0.2 * (B[1..N-1, 1..N-1] + B[1..N-1, 0..N-2] + B[1..N-1, 2..N]
                                       + B[2..N, 1..N-1] + B[0..N-2, 1..N-1]);
        }
        state done {}
        init -> step { t = 1 }
        step -> step if t + 1 < TSTEPS { t = t + 1 }
        step -> done if t + 1 >= TSTEPS;
    }
}

sdfg! {
    /// Whole arrays, scalars that broadcast, rows, steps, updates.
    pub sdfg Elementwise {
        symbol N: i64;
        host alpha: f64;
        host X: f64[N];
        host Y: f64[N];
        host M: f64[N, N];
        host Row: f64[N];
        host Even: f64[N];
        host Z: f64[N];
        state s {
            Y = alpha * X + 1.0;
            Row = M[2, 0..N] * X;
            Even[(0..N).step_by(2)] = X[(1..N + 1).step_by(2)] - X[(0..N).step_by(2)];
        }
        state t {
            Z = Y;
            Z += Row;
            Z[0..N / 2] *= 2.0;
        }
        s -> t;
    }
}

sdfg! {
    /// gemm (`C = alpha * A @ B + beta * C`) and atax, as NPBench writes
    /// them, and the reductions over axes.
    pub sdfg Blas {
        symbol NI: i64; symbol NJ: i64; symbol NK: i64;
        host alpha: f64; host beta: f64;
        gpu A: f64[NI, NK];
        gpu B: f64[NK, NJ];
        gpu C: f64[NI, NJ];
        gpu x: f64[NK];
        gpu y: f64[NK];
        gpu AT: f64[NK, NI];
        gpu RowMax: f64[NI];
        gpu ColSum: f64[NK];
        gpu Total: f64;
        transient gpu AB: f64[NI, NJ];
        transient gpu Ax: f64[NI];
        state gemm {
            AB = matmul(A, B);
            C = alpha * AB + beta * C;
        }
        state atax {
            Ax = matmul(A, x);
            y = matmul(Ax, A);
            AT = transpose(A);
            RowMax = reduce max(A, axis 1);
            ColSum = reduce sum(A, axis 0);
            Total = reduce sum(A);
        }
        gemm -> atax;
    }
}

sdfg! {
    /// Slices of constant bounds pair by their lengths, steps included:
    /// `(3..8).step_by(2)` has 3 elements, as `0..3` has (the shapes were
    /// once "[(5) / 2 rounded up]" against "[3]", refused).
    pub sdfg ConstantSteps {
        gpu X: f32[10];
        gpu Y: f32[4, 10];
        gpu Even: f32[3];
        gpu Cols: f32[4, 3];
        state s {
            Even[0..3] = X[(3..8).step_by(2)] + X[(0..9).step_by(3)];
            Cols[0..=3, (0..3).step_by(1)] = Y[0..4, (1..10).step_by(4)] * 2.0;
        }
    }
}

fn jacobi_reference(n: usize, steps: usize, a: &mut [f64], b: &mut [f64]) {
    let sweep = |src: &[f64], dst: &mut [f64]| {
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                dst[i * n + j] = 0.2
                    * (src[i * n + j]
                        + src[i * n + j - 1]
                        + src[i * n + j + 1]
                        + src[(i + 1) * n + j]
                        + src[(i - 1) * n + j]);
            }
        }
    };
    for _ in 1..steps {
        sweep(a, b);
        sweep(b, a);
    }
}

#[test]
fn jacobi_2d_in_the_array_form() {
    let (n, steps) = (12usize, 5usize);
    let init: Vec<f64> = (0..n * n).map(|k| ((k * 7) % 17) as f64 / 4.0).collect();
    let (mut want_a, mut want_b) = (init.clone(), vec![0.0; n * n]);
    jacobi_reference(n, steps, &mut want_a, &mut want_b);
    for device in common::devices("jacobi_2d_in_the_array_form") {
        let program = Jacobi2dArrays::load(&device).expect("load");
        let mut a = DeviceBuffer::from_slice(&device, &init).expect("upload");
        let mut b = DeviceBuffer::<f64>::zeros(&device, n * n).expect("alloc");
        program
            .run(Jacobi2dArraysArgs {
                N: n as i64,
                TSTEPS: steps as i64,
                A: &mut a,
                B: &mut b,
            })
            .expect("run");
        assert_eq!(a.to_vec().unwrap(), want_a, "A on {device:?}");
        assert_eq!(b.to_vec().unwrap(), want_b, "B on {device:?}");
    }
}

#[test]
fn whole_arrays_rows_steps_and_updates() {
    let n = 8usize;
    let x: Vec<f64> = (0..n).map(|k| k as f64 + 0.5).collect();
    let m: Vec<f64> = (0..n * n).map(|k| k as f64).collect();
    let (mut y, mut row, mut even, mut z) =
        (vec![0.0; n], vec![0.0; n], vec![-1.0; n], vec![0.0; n]);
    let program = Elementwise::load(&Device::cpu()).expect("load");
    program
        .run(ElementwiseArgs {
            N: n as i64,
            alpha: 3.0,
            X: &x,
            Y: &mut y,
            M: &m,
            Row: &mut row,
            Even: &mut even,
            Z: &mut z,
        })
        .expect("run");
    let want_y: Vec<f64> = x.iter().map(|v| 3.0 * v + 1.0).collect();
    let want_row: Vec<f64> = (0..n).map(|j| m[2 * n + j] * x[j]).collect();
    let mut want_even = vec![-1.0; n];
    for (t, j) in (0..n).step_by(2).enumerate() {
        let _ = t;
        want_even[j] = x[j + 1] - x[j];
    }
    let want_z: Vec<f64> = (0..n)
        .map(|j| (want_y[j] + want_row[j]) * if j < n / 2 { 2.0 } else { 1.0 })
        .collect();
    assert_eq!(y, want_y);
    assert_eq!(row, want_row);
    assert_eq!(even, want_even);
    assert_eq!(z, want_z);
}

#[test]
fn matmul_transpose_and_reductions() {
    let (ni, nj, nk) = (5usize, 4usize, 3usize);
    // Small integers: every sum is exact in any order.
    let a: Vec<f64> = (0..ni * nk).map(|k| ((k * 5) % 7) as f64 - 3.0).collect();
    let b: Vec<f64> = (0..nk * nj).map(|k| ((k * 3) % 5) as f64 - 2.0).collect();
    let c0: Vec<f64> = (0..ni * nj).map(|k| (k % 4) as f64).collect();
    let x: Vec<f64> = (0..nk).map(|k| k as f64 + 1.0).collect();
    let (alpha, beta) = (2.0, 0.5);
    let mut want_c = c0.clone();
    for i in 0..ni {
        for j in 0..nj {
            let ab: f64 = (0..nk).map(|k| a[i * nk + k] * b[k * nj + j]).sum();
            want_c[i * nj + j] = alpha * ab + beta * c0[i * nj + j];
        }
    }
    let ax: Vec<f64> = (0..ni)
        .map(|i| (0..nk).map(|k| a[i * nk + k] * x[k]).sum())
        .collect();
    let want_y: Vec<f64> = (0..nk)
        .map(|k| (0..ni).map(|i| ax[i] * a[i * nk + k]).sum())
        .collect();
    let want_at: Vec<f64> = (0..nk * ni).map(|t| a[(t % ni) * nk + t / ni]).collect();
    let want_max: Vec<f64> = (0..ni)
        .map(|i| {
            (0..nk)
                .map(|k| a[i * nk + k])
                .fold(f64::NEG_INFINITY, f64::max)
        })
        .collect();
    let want_colsum: Vec<f64> = (0..nk)
        .map(|k| (0..ni).map(|i| a[i * nk + k]).sum())
        .collect();
    let want_total: f64 = a.iter().sum();
    for device in common::devices("matmul_transpose_and_reductions") {
        let program = Blas::load(&device).expect("load");
        let up = |v: &[f64]| DeviceBuffer::from_slice(&device, v).expect("upload");
        let (ad, bd, xd) = (up(&a), up(&b), up(&x));
        let mut cd = up(&c0);
        let mut yd = up(&vec![0.0; nk]);
        let mut atd = up(&vec![0.0; nk * ni]);
        let mut maxd = up(&vec![0.0; ni]);
        let mut colsumd = up(&vec![0.0; nk]);
        let mut totald = up(&[0.0]);
        program
            .run(BlasArgs {
                NI: ni as i64,
                NJ: nj as i64,
                NK: nk as i64,
                alpha,
                beta,
                A: &ad,
                B: &bd,
                C: &mut cd,
                x: &xd,
                y: &mut yd,
                AT: &mut atd,
                RowMax: &mut maxd,
                ColSum: &mut colsumd,
                Total: &mut totald,
            })
            .expect("run");
        assert_eq!(cd.to_vec().unwrap(), want_c, "C on {device:?}");
        assert_eq!(yd.to_vec().unwrap(), want_y, "y on {device:?}");
        assert_eq!(atd.to_vec().unwrap(), want_at, "AT on {device:?}");
        assert_eq!(maxd.to_vec().unwrap(), want_max, "RowMax on {device:?}");
        assert_eq!(
            colsumd.to_vec().unwrap(),
            want_colsum,
            "ColSum on {device:?}"
        );
        assert_eq!(
            totald.to_vec().unwrap(),
            [want_total],
            "Total on {device:?}"
        );
    }
}

#[test]
fn constant_slices_with_steps_pair_by_length() {
    for device in common::devices("constant_steps") {
        let program = ConstantSteps::load(&device).unwrap();
        let x: Vec<f32> = (0..10).map(|v| v as f32).collect();
        let y: Vec<f32> = (0..40).map(|v| v as f32 * 0.5).collect();
        let dx = DeviceBuffer::from_slice(&device, &x).unwrap();
        let dy = DeviceBuffer::from_slice(&device, &y).unwrap();
        let mut even = DeviceBuffer::<f32>::zeros(&device, 3).unwrap();
        let mut cols = DeviceBuffer::<f32>::zeros(&device, 12).unwrap();
        program
            .run(ConstantStepsArgs {
                X: &dx,
                Y: &dy,
                Even: &mut even,
                Cols: &mut cols,
            })
            .unwrap();
        let want_even: Vec<f32> = (0..3).map(|k| x[3 + 2 * k] + x[3 * k]).collect();
        let want_cols: Vec<f32> = (0..12)
            .map(|k| y[(k / 3) * 10 + 1 + 4 * (k % 3)] * 2.0)
            .collect();
        assert_eq!(even.to_vec().unwrap(), want_even, "on {}", device.name());
        assert_eq!(cols.to_vec().unwrap(), want_cols, "on {}", device.name());
    }
}
