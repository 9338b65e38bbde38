//! Complex numbers end to end: `c64`/`c32` containers, `c64::new`, `.re`,
//! `.im`, `+ - * /` with num-complex's formulas, `conj`, `norm_sqr`,
//! `norm`/`abs`, `arg`, `exp`, `==`, `+=` reductions and a complex host
//! scalar passed to a kernel, on every device against num-complex itself;
//! and NPBench's mandelbrot1.

mod common;
use sdfg::prelude::*;

sdfg! {
    pub sdfg ComplexOps {
        symbol N: i64;
        gpu A: c64[N];
        gpu B: c64[N];
        gpu S: c32[N];
        gpu OUT: c64[N, 5];
        gpu REAL: f64[N, 6];
        gpu OUTS: c32[N, 2];
        gpu EQ: bool[N];
        gpu SUM: c64;
        host K: c64;
        state s {
            map m[i in 0..N] on gpu {
                let a = A[i];
                let b = B[i];
                OUT[i, 0] = a * b + K;
                OUT[i, 1] = a / b - a.conj();
                OUT[i, 2] = -a * c64::new(b.im, 2.0 * b.re);
                OUT[i, 3] = (a * c64::new(0.25, 0.0)).exp();
                OUT[i, 4] = Complex::new(a.norm_sqr(), a.re - b.im);
                REAL[i, 0] = a.re;
                REAL[i, 1] = b.im;
                REAL[i, 2] = a.norm_sqr();
                REAL[i, 3] = a.norm();
                REAL[i, 4] = b.abs();
                REAL[i, 5] = a.arg();
                let s = S[i];
                OUTS[i, 0] = s * s / (s + c32::new(1.0, -0.5));
                OUTS[i, 1] = (s * c32::new(0.1, 0.0)).exp().conj();
                EQ[i] = a == b || a != a;
                SUM += a;
            }
        }
    }
}

#[test]
fn complex_arithmetic_matches_num_complex_on_every_device() {
    use sdfg::runtime::{c32, c64};
    let n = 500usize;
    let mut rng = sdfg_testkit::rng::Rng::new(9);
    let mut z = |scale: f64| c64::new(rng.range(-scale, scale), rng.range(-scale, scale));
    let mut a: Vec<c64> = (0..n).map(|_| z(4.0)).collect();
    let b: Vec<c64> = (0..n).map(|_| z(3.0)).collect();
    let s: Vec<c32> = (0..n)
        .map(|_| {
            let v = z(2.0);
            c32::new(v.re as f32, v.im as f32)
        })
        .collect();
    a[3] = b[3];
    a[5] = c64::new(f64::NAN, 1.0);
    let k = c64::new(0.5, -1.25);
    for device in common::devices("complex_ops") {
        let program = ComplexOps::load(&device).unwrap();
        let da = DeviceBuffer::from_slice(&device, &a).unwrap();
        let db = DeviceBuffer::from_slice(&device, &b).unwrap();
        let ds = DeviceBuffer::from_slice(&device, &s).unwrap();
        let mut out = DeviceBuffer::<c64>::zeros(&device, n * 5).unwrap();
        let mut real = DeviceBuffer::<f64>::zeros(&device, n * 6).unwrap();
        let mut outs = DeviceBuffer::<c32>::zeros(&device, n * 2).unwrap();
        let mut eq = DeviceBuffer::<bool>::zeros(&device, n).unwrap();
        let mut sum = DeviceBuffer::from_slice(&device, &[c64::new(1.0, 2.0)]).unwrap();
        program
            .run(ComplexOpsArgs {
                N: n as i64,
                A: &da,
                B: &db,
                S: &ds,
                OUT: &mut out,
                REAL: &mut real,
                OUTS: &mut outs,
                EQ: &mut eq,
                SUM: &mut sum,
                K: k,
            })
            .unwrap();
        let (out, real, outs, eq) = (
            out.to_vec().unwrap(),
            real.to_vec().unwrap(),
            outs.to_vec().unwrap(),
            eq.to_vec().unwrap(),
        );
        let exact = !device.is_gpu();
        let same = |x: f64, y: f64| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
        // exp, norm and arg call the real subroutines on a GPU (ULP bounds).
        let close = |x: f64, y: f64, exact_here: bool| {
            same(x, y) || (!exact_here && (x - y).abs() <= 1e-14 * y.abs().max(1e-300))
        };
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let want = [
                x * y + k,
                x / y - x.conj(),
                -x * c64::new(y.im, 2.0 * y.re),
                (x * c64::new(0.25, 0.0)).exp(),
                c64::new(x.norm_sqr(), x.re - y.im),
            ];
            for (f, w) in want.iter().enumerate() {
                let g = out[i * 5 + f];
                let exact_here = exact || f != 3;
                assert!(
                    close(g.re, w.re, exact_here) && close(g.im, w.im, exact_here),
                    "OUT[{i}, {f}] on {}: {g} vs {w}",
                    device.name()
                );
            }
            let want_real = [x.re, y.im, x.norm_sqr(), x.norm(), y.norm(), x.arg()];
            for (f, w) in want_real.iter().enumerate() {
                let exact_here = exact || f < 3;
                assert!(
                    close(real[i * 6 + f], *w, exact_here),
                    "REAL[{i}, {f}] on {}: {} vs {w}",
                    device.name(),
                    real[i * 6 + f]
                );
            }
            let sv = s[i];
            let w0 = sv * sv / (sv + c32::new(1.0, -0.5));
            let g0 = outs[i * 2];
            assert!(
                same(g0.re as f64, w0.re as f64) && same(g0.im as f64, w0.im as f64),
                "OUTS[{i}, 0] on {}: {g0} vs {w0}",
                device.name()
            );
            let w1 = (sv * c32::new(0.1, 0.0)).exp().conj();
            let g1 = outs[i * 2 + 1];
            let tol = if exact {
                0.0
            } else {
                4.0 * f32::EPSILON as f64
            };
            assert!(
                (g1.re as f64 - w1.re as f64).abs() <= tol * (w1.re.abs() as f64).max(1.0)
                    && (g1.im as f64 - w1.im as f64).abs() <= tol * (w1.im.abs() as f64).max(1.0),
                "OUTS[{i}, 1] on {}: {g1} vs {w1}",
                device.name()
            );
            #[allow(clippy::eq_op)]
            let want_eq = x == y || x != x;
            assert_eq!(eq[i], want_eq, "EQ[{i}]");
        }
        // The sum of a NaN element is NaN; without it, within reassociation.
        let total = sum.to_vec().unwrap()[0];
        assert!(total.re.is_nan(), "{total}");
        let im_sum: f64 = 2.0 + a.iter().map(|v| v.im).sum::<f64>();
        assert!((total.im - im_sum).abs() <= 1e-9, "{total} vs {im_sum}");
    }
}

#[test]
fn the_complex_kernels_assemble() {
    for part in [
        "ld.global.nc.v2.f64",
        "st.global.v2.f64",
        "red.global.add.f64",
        "ld.param.v2.f64",
    ] {
        assert!(
            ComplexOps::PTX.contains(part),
            "{part} in\n{}",
            ComplexOps::PTX
        );
    }
    for ptx in [ComplexOps::PTX, Mandelbrot::PTX] {
        match sdfg::compiler::codegen::ptx::ptxas::assemble_check(ptx) {
            Ok(Some(_)) => {}
            Ok(None) if std::env::var("SDFG_REQUIRE_PTXAS").as_deref() != Ok("1") => {
                println!("ptxas not found: the PTX was not assembled");
            }
            other => panic!("ptxas: {other:?}"),
        }
    }
}

sdfg! {
    /// NPBench mandelbrot1: Z = Z^2 + C while |Z| < horizon, N = the last
    /// iteration Z was inside.
    pub sdfg Mandelbrot {
        symbol H: i64;
        symbol W: i64;
        symbol MAXITER: i64;
        gpu X: f64[W];
        gpu Y: f64[H];
        gpu Z: c64[H, W];
        gpu N: i64[H, W];
        host HORIZON: f64;
        state s {
            map m[i in 0..H, j in 0..W] on gpu {
                let c = c64::new(X[j], Y[i]);
                let horizon = HORIZON;
                let mut z = c64::new(0.0, 0.0);
                let mut last = 0i64;
                for n in 0..MAXITER {
                    if z.abs() < horizon {
                        last = n;
                        z = z * z + c;
                    }
                }
                if last == MAXITER - 1 {
                    last = 0;
                }
                Z[i, j] = z;
                N[i, j] = last;
            }
        }
    }
}

#[test]
fn mandelbrot_matches_a_plain_rust_reference() {
    use sdfg::runtime::c64;
    let (h, w, maxiter, horizon) = (24usize, 32usize, 40i64, 2.0f64);
    let x: Vec<f64> = (0..w)
        .map(|j| -2.25 + 3.0 * j as f64 / (w - 1) as f64)
        .collect();
    let y: Vec<f64> = (0..h)
        .map(|i| -1.5 + 3.0 * i as f64 / (h - 1) as f64)
        .collect();
    let mut want_z = vec![c64::new(0.0, 0.0); h * w];
    let mut want_n = vec![0i64; h * w];
    for i in 0..h {
        for j in 0..w {
            let c = c64::new(x[j], y[i]);
            let mut z = c64::new(0.0, 0.0);
            let mut last = 0;
            for n in 0..maxiter {
                if z.norm() < horizon {
                    last = n;
                    z = z * z + c;
                }
            }
            if last == maxiter - 1 {
                last = 0;
            }
            want_z[i * w + j] = z;
            want_n[i * w + j] = last;
        }
    }
    for device in common::devices("mandelbrot") {
        let dx = DeviceBuffer::from_slice(&device, &x).unwrap();
        let dy = DeviceBuffer::from_slice(&device, &y).unwrap();
        let mut z = DeviceBuffer::<c64>::zeros(&device, h * w).unwrap();
        let mut n = DeviceBuffer::<i64>::zeros(&device, h * w).unwrap();
        Mandelbrot::load(&device)
            .unwrap()
            .run(MandelbrotArgs {
                H: h as i64,
                W: w as i64,
                MAXITER: maxiter,
                X: &dx,
                Y: &dy,
                Z: &mut z,
                N: &mut n,
                HORIZON: horizon,
            })
            .unwrap();
        let (z, n) = (z.to_vec().unwrap(), n.to_vec().unwrap());
        if device.is_gpu() {
            // |z| through the GPU's hypot (1 ulp) can decide a step
            // differently only where |z| is within an ulp of the horizon.
            let differ = (0..h * w).filter(|&k| n[k] != want_n[k]).count();
            assert!(differ <= 2, "{differ} iteration counts differ");
        } else {
            assert_eq!(n, want_n);
            for k in 0..h * w {
                let (g, r) = (z[k], want_z[k]);
                assert!(
                    g == r || (g.re.is_nan() || g.im.is_nan()) == (r.re.is_nan() || r.im.is_nan()),
                    "Z[{k}]: {g} vs {r}"
                );
            }
        }
    }
}
