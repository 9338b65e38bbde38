//! The 16-bit floats `f16` and `bf16` (`half::f16`, `half::bf16`) end to
//! end, on every device, against a plain-Rust reference that computes the
//! way the language defines it: each operation in f32, rounded once to the
//! 16-bit type (what `half`'s operators do); an f64 rounded once
//! (correctly) to the type. Exact operations agree bit for bit; the
//! transcendental functions (f32's, rounded) within one unit in the last
//! place of the 16-bit type. And the DaCe export: `f16` is DaCe's
//! `float16`, `bf16` has no DaCe dtype.

mod common;
use sdfg::prelude::*;
use sdfg::runtime::__glue::f32_round_to_odd;
use sdfg::runtime::MinMaxNumber;

sdfg! {
    pub sdfg HalfOps {
        symbol N: i64;
        gpu A: f16[N];
        gpu B: f16[N];
        gpu D: f64[N];
        gpu OUT: f16[N, 9];
        gpu APPROX: f16[N, 3];
        gpu BOUT: bf16[N, 5];
        gpu WIDE: f32[N, 2];
        gpu INT: i32[N];
        gpu SUM: f16;
        gpu BSUM: bf16[2];
        host K: f16;
        state s {
            map m[i in 0..N] on gpu {
                let a = A[i];
                let b = B[i];
                OUT[i, 0] = a + b * K;
                OUT[i, 1] = a / b - 0.5;
                OUT[i, 2] = (a * a).sqrt();
                OUT[i, 3] = a.min(b).max(-2.0);
                OUT[i, 4] = D[i] as f16;
                OUT[i, 5] = (i as i32 * 1001) as f16;
                OUT[i, 6] = f16::MAX.min(a * 1000.0);
                OUT[i, 7] = -a.abs() + f16::consts::PI;
                OUT[i, 8] = if a < b { a } else { b % 0.75 };
                APPROX[i, 0] = a.exp();
                APPROX[i, 1] = b.sin();
                APPROX[i, 2] = a.tanh();
                let x = a as bf16;
                BOUT[i, 0] = x * 3.0 + 1.0;
                BOUT[i, 1] = D[i] as bf16;
                BOUT[i, 2] = (D[i] * 1e30) as bf16;
                BOUT[i, 3] = (x as f16 + b) as bf16;
                BOUT[i, 4] = bf16::EPSILON + x;
                WIDE[i, 0] = a as f32;
                WIDE[i, 1] = x as f32;
                INT[i] = (a * 100.0) as i32;
                if i < 16 {
                    SUM += a;
                    BSUM[i % 2] += x;
                }
            }
        }
    }
}

/// The language's f32-then-round operations.
fn r16(x: f32) -> f16 {
    f16::from_f32(x)
}
fn rb(x: f32) -> bf16 {
    bf16::from_f32(x)
}

fn ulps(a: f16, b: f16) -> i32 {
    // Ordered integer keys of the bit patterns.
    let key = |h: f16| {
        let b = h.to_bits() as i32;
        if b & 0x8000 != 0 {
            -(b & 0x7FFF)
        } else {
            b
        }
    };
    (key(a) - key(b)).abs()
}

#[test]
fn half_precision_floats_compute_like_half_on_every_device() {
    let n = 300usize;
    let mut rng = sdfg_testkit::rng::Rng::new(16);
    let a: Vec<f16> = (0..n)
        .map(|_| f16::from_f64(rng.range(-4.0, 4.0)))
        .collect();
    let mut b: Vec<f16> = (0..n)
        .map(|_| f16::from_f64(rng.range(-3.0, 3.0)))
        .collect();
    b[1] = f16::ZERO;
    b[2] = f16::NAN;
    let mut d: Vec<f64> = (0..n).map(|_| rng.range(-70000.0, 70000.0)).collect();
    // Values where rounding f64 -> f32 -> 16 bits twice would be wrong.
    d[0] = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
    d[1] = 1.0 + 2f64.powi(-8) + 2f64.powi(-45);
    d[2] = 65520.0;
    d[3] = f64::NAN;
    let k = f16::from_f32(0.375);
    let half = |x: f64| f16::from_f32(f32_round_to_odd(x));
    let bhalf = |x: f64| bf16::from_f32(f32_round_to_odd(x));
    assert_eq!(half(d[0]), f16::from_f32(1.0 + 2f32.powi(-10)));
    for device in common::devices("half_precision_floats") {
        let on = device.name();
        let program = HalfOps::load(&device).unwrap();
        let da = DeviceBuffer::from_slice(&device, &a).unwrap();
        let db = DeviceBuffer::from_slice(&device, &b).unwrap();
        let dd = DeviceBuffer::from_slice(&device, &d).unwrap();
        let mut out = DeviceBuffer::<f16>::zeros(&device, n * 9).unwrap();
        let mut approx = DeviceBuffer::<f16>::zeros(&device, n * 3).unwrap();
        let mut bout = DeviceBuffer::<bf16>::zeros(&device, n * 5).unwrap();
        let mut wide = DeviceBuffer::<f32>::zeros(&device, n * 2).unwrap();
        let mut int = DeviceBuffer::<i32>::zeros(&device, n).unwrap();
        let mut sum = DeviceBuffer::<f16>::zeros(&device, 1).unwrap();
        let mut bsum = DeviceBuffer::<bf16>::zeros(&device, 2).unwrap();
        program
            .run(HalfOpsArgs {
                N: n as i64,
                A: &da,
                B: &db,
                D: &dd,
                OUT: &mut out,
                APPROX: &mut approx,
                BOUT: &mut bout,
                WIDE: &mut wide,
                INT: &mut int,
                SUM: &mut sum,
                BSUM: &mut bsum,
                K: k,
            })
            .unwrap();
        let (out, approx, bout) = (
            out.to_vec().unwrap(),
            approx.to_vec().unwrap(),
            bout.to_vec().unwrap(),
        );
        let (wide, int) = (wide.to_vec().unwrap(), int.to_vec().unwrap());
        for i in 0..n {
            let (x, y) = (a[i].to_f32(), b[i].to_f32());
            let prod = r16(y * k.to_f32()).to_f32();
            let quot = r16(x / y).to_f32();
            let sq = r16(x * x).to_f32();
            let min = MinMaxNumber::min_number(x, y);
            let xb = rb(x);
            let want: [f16; 9] = [
                r16(x + prod),
                r16(quot - 0.5),
                r16(sq.sqrt()),
                r16(MinMaxNumber::max_number(min, -2.0)),
                half(d[i]),
                r16((i as i32 * 1001) as f32),
                r16(MinMaxNumber::min_number(
                    f16::MAX.to_f32(),
                    r16(x * 1000.0).to_f32(),
                )),
                r16(-x.abs() + half(std::f64::consts::PI).to_f32()),
                if x < y { a[i] } else { r16(y % 0.75) },
            ];
            for (j, w) in want.iter().enumerate() {
                let got = out[i * 9 + j];
                assert!(
                    got.to_bits() == w.to_bits() || (got.is_nan() && w.is_nan()),
                    "{on}: OUT[{i}, {j}] = {got} (bits {:#06x}), want {w} (bits {:#06x}); a = {}, b = {}",
                    got.to_bits(),
                    w.to_bits(),
                    a[i],
                    b[i]
                );
            }
            let want_approx = [r16(x.exp()), r16(y.sin()), r16(x.tanh())];
            for (j, w) in want_approx.iter().enumerate() {
                let got = approx[i * 3 + j];
                assert!(
                    (got.is_nan() && w.is_nan()) || ulps(got, *w) <= 1,
                    "{on}: APPROX[{i}, {j}] = {got}, want {w} within 1 ulp"
                );
            }
            let want_b: [bf16; 5] = [
                rb(rb(xb.to_f32() * 3.0).to_f32() + 1.0),
                bhalf(d[i]),
                bhalf(d[i] * 1e30),
                rb(r16(f16::from_f32(xb.to_f32()).to_f32() + y).to_f32()),
                rb(bf16::EPSILON.to_f32() + xb.to_f32()),
            ];
            for (j, w) in want_b.iter().enumerate() {
                let got = bout[i * 5 + j];
                assert!(
                    got.to_bits() == w.to_bits() || (got.is_nan() && w.is_nan()),
                    "{on}: BOUT[{i}, {j}] = {got} (bits {:#06x}), want {w} (bits {:#06x})",
                    got.to_bits(),
                    w.to_bits()
                );
            }
            assert_eq!(wide[i * 2], x, "{on}: WIDE[{i}, 0]");
            assert_eq!(wide[i * 2 + 1], xb.to_f32(), "{on}: WIDE[{i}, 1]");
            assert_eq!(int[i], r16(x * 100.0).to_f32() as i32, "{on}: INT[{i}]");
        }
        // Sums of 16-bit floats depend on the order: 16 values of at most
        // 4 (partial sums below 64) are within 16 half-ulps of 2^-5 (f16)
        // or 2^-2 (bf16) of the exact sum in every order.
        let exact: f64 = a[..16].iter().map(|v| v.to_f64()).sum();
        let got = sum.to_vec().unwrap()[0].to_f64();
        assert!(
            (got - exact).abs() <= 0.25,
            "{on}: SUM = {got}, exact {exact}"
        );
        let bs = bsum.to_vec().unwrap();
        let exact_b: f64 = a[..16].iter().map(|v| rb(v.to_f32()).to_f64()).sum();
        let got_b = bs[0].to_f64() + bs[1].to_f64();
        assert!(
            (got_b - exact_b).abs() <= 2.0,
            "{on}: BSUM = {bs:?}, exact {exact_b}"
        );
    }
}

#[test]
fn the_half_kernel_assembles() {
    // SDFG_REQUIRE_PTXAS=1 makes a missing ptxas an error.
    match sdfg::compiler::codegen::ptx::ptxas::assemble_check(HalfOps::PTX) {
        Ok(_) => {}
        Err(msg) => panic!("ptxas rejected the f16/bf16 kernel:\n{msg}"),
    }
}

sdfg! {
    pub sdfg HalfExport {
        symbol N: i64;
        host A: f16[N];
        host B: f16[N];
        state s {
            map m[i in 0..N] on cpu { B[i] = A[i] * 2.0 + 1.0; }
        }
    }
}

sdfg! {
    pub sdfg BfloatExport {
        symbol N: i64;
        host A: f32[N];
        host WEIGHTS: bf16[N];
        state s {
            map m[i in 0..N] on cpu { A[i] = A[i] * WEIGHTS[i] as f32; }
        }
    }
}

#[test]
fn f16_exports_as_float16_and_bf16_has_no_dace_export() {
    let json = HalfExport::to_sdfg_json();
    assert!(json.contains("\"float16\""), "{json}");
    let err = std::panic::catch_unwind(BfloatExport::to_sdfg_json).unwrap_err();
    let msg = err
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(
        msg.contains("container `WEIGHTS` has type `bf16`") && msg.contains("DaCe"),
        "{msg}"
    );
    let ir = BfloatExport::ir().unwrap();
    let why = sdfg::compiler::export::dace::unexportable(&ir).unwrap();
    assert!(why.contains("`WEIGHTS`"), "{why}");
    assert!(sdfg::compiler::export::dace::unexportable(&HalfExport::ir().unwrap()).is_none());
}
