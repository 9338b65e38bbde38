//! The math methods and constants end to end: every function of f64 and f32
//! in a `gpu` map (on the CPU device: its Rust twin, which calls std, so the
//! results equal std's bit for bit, and for `erf`, which std lacks, the math
//! program's mirror's; on a GPU: the PTX subroutines, within the documented
//! ULP bounds), a host tasklet of the constants, and the arc distance of
//! NPBench.

mod common;
use sdfg::compiler::codegen::ptx::ULP_BOUNDS;
use sdfg::compiler::math::mirror;
use sdfg::prelude::*;

sdfg! {
    pub sdfg MathFns {
        symbol N: i64;
        gpu X: f64[N];
        gpu Y: f64[N];
        gpu O: f64[N, 9];
        gpu XS: f32[N];
        gpu YS: f32[N];
        gpu OS: f32[N, 9];
        state s {
            map f[i in 0..N] on gpu {
                let x = X[i];
                O[i, 0] = x.atan2(Y[i]);
                O[i, 1] = (x / 8.0).asin();
                O[i, 2] = (x / 8.0).acos();
                O[i, 3] = x.atan();
                O[i, 4] = x.sinh();
                O[i, 5] = x.cosh();
                O[i, 6] = x.hypot(Y[i]);
                O[i, 7] = (x * 1e3).cbrt();
                O[i, 8] = (x * 0.75).erf();
            }
            map g[i in 0..N] on gpu {
                let x = XS[i];
                OS[i, 0] = x.atan2(YS[i]);
                OS[i, 1] = (x / 8.0).asin();
                OS[i, 2] = (x / 8.0).acos();
                OS[i, 3] = x.atan();
                OS[i, 4] = x.sinh();
                OS[i, 5] = x.cosh();
                OS[i, 6] = x.hypot(YS[i]);
                OS[i, 7] = (x * 1e3).cbrt();
                OS[i, 8] = (x * 0.75).erf();
            }
        }
    }
}

const NAMES: [&str; 9] = [
    "atan2", "asin", "acos", "atan", "sinh", "cosh", "hypot", "cbrt", "erf",
];

// glibc's erf (std has none; libm is linked by std on Linux).
extern "C" {
    fn erf(x: f64) -> f64;
    fn erff(x: f32) -> f32;
}

/// std's functions, and erf's mirror (what the CPU device computes).
fn reference64(x: f64, y: f64) -> [f64; 9] {
    [
        x.atan2(y),
        (x / 8.0).asin(),
        (x / 8.0).acos(),
        x.atan(),
        x.sinh(),
        x.cosh(),
        x.hypot(y),
        (x * 1e3).cbrt(),
        mirror::erf_f64(x * 0.75),
    ]
}

fn reference32(x: f32, y: f32) -> [f32; 9] {
    [
        x.atan2(y),
        (x / 8.0).asin(),
        (x / 8.0).acos(),
        x.atan(),
        x.sinh(),
        x.cosh(),
        x.hypot(y),
        (x * 1e3).cbrt(),
        mirror::erf_f32(x * 0.75),
    ]
}

fn bound(name: &str) -> f64 {
    ULP_BOUNDS
        .iter()
        .find(|b| b.function == name)
        .unwrap_or_else(|| panic!("no ULP bound for {name}"))
        .ulp
}

fn ulps64(a: f64, b: f64) -> f64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0.0;
    }
    let key = |x: f64| {
        let i = x.to_bits() as i64;
        if i < 0 {
            i64::MIN as i128 - i as i128
        } else {
            i as i128
        }
    };
    (key(a) - key(b)).unsigned_abs() as f64
}

#[test]
fn math_functions_match_std_on_every_device() {
    let n = 2000usize;
    let mut rng = sdfg_testkit::rng::Rng::new(17);
    let mut x: Vec<f64> = (0..n).map(|_| rng.range(-8.0, 8.0)).collect();
    let mut y: Vec<f64> = (0..n).map(|_| rng.range(-8.0, 8.0)).collect();
    // Special values: signed zeros, infinities, NaN, the ends of asin's domain.
    let specials = [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        8.0,
        -8.0,
        30.0,
    ];
    for (k, &s) in specials.iter().enumerate() {
        for (j, &t) in specials.iter().enumerate() {
            x[k * specials.len() + j] = s;
            y[k * specials.len() + j] = t;
        }
    }
    let xs: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    let ys: Vec<f32> = y.iter().map(|&v| v as f32).collect();
    for device in common::devices("math_functions") {
        let program = MathFns::load(&device).unwrap();
        let dx = DeviceBuffer::from_slice(&device, &x).unwrap();
        let dy = DeviceBuffer::from_slice(&device, &y).unwrap();
        let dxs = DeviceBuffer::from_slice(&device, &xs).unwrap();
        let dys = DeviceBuffer::from_slice(&device, &ys).unwrap();
        let mut o = DeviceBuffer::<f64>::zeros(&device, n * 9).unwrap();
        let mut os = DeviceBuffer::<f32>::zeros(&device, n * 9).unwrap();
        program
            .run(MathFnsArgs {
                N: n as i64,
                X: &dx,
                Y: &dy,
                O: &mut o,
                XS: &dxs,
                YS: &dys,
                OS: &mut os,
            })
            .unwrap();
        let (o, os) = (o.to_vec().unwrap(), os.to_vec().unwrap());
        let exact = !device.is_gpu();
        for i in 0..n {
            let (w64, w32) = (reference64(x[i], y[i]), reference32(xs[i], ys[i]));
            for f in 0..9 {
                let (g64, g32) = (o[i * 9 + f], os[i * 9 + f]);
                let (d64, d32) = (ulps64(g64, w64[f]), ulps64(g32 as f64, w32[f] as f64));
                let (b64, b32) = if exact {
                    (0.0, 0.0)
                } else {
                    // f32 results compared in f64 ulps: scale the bound.
                    (
                        bound(&format!("{} f64", NAMES[f])),
                        bound(&format!("{} f32", NAMES[f])) * 2f64.powi(29),
                    )
                };
                assert!(
                    d64 <= b64,
                    "{} f64 ({}, {}) on {}: {g64:e} vs std {:e}",
                    NAMES[f],
                    x[i],
                    y[i],
                    device.name(),
                    w64[f]
                );
                assert!(
                    d32 <= b32,
                    "{} f32 ({}, {}) on {}: {g32:e} vs std {:e}",
                    NAMES[f],
                    xs[i],
                    ys[i],
                    device.name(),
                    w32[f]
                );
            }
            // erf on every device within its bound of glibc's.
            let (g64, g32) = (o[i * 9 + 8], os[i * 9 + 8]);
            // SAFETY: pure libm functions.
            let (w64, w32) = unsafe { (erf(x[i] * 0.75), erff(xs[i] * 0.75)) };
            assert!(
                ulps64(g64, w64) <= bound("erf f64"),
                "erf f64 ({}) on {}: {g64:e} vs glibc {w64:e}",
                x[i],
                device.name()
            );
            assert!(
                ulps64(g32 as f64, w32 as f64) <= bound("erf f32") * 2f64.powi(29),
                "erf f32 ({}) on {}: {g32:e} vs glibc {w32:e}",
                xs[i],
                device.name()
            );
        }
    }
}

sdfg! {
    /// Rust's constants, typed like Rust's.
    pub sdfg Constants {
        host F: f64[12];
        host S: f32[6];
        host I: i64[10];
        host U: u64[3];
        state s {
            tasklet t {
                F[0] = f64::consts::PI;
                F[1] = std::f64::consts::E;
                F[2] = core::f64::consts::TAU;
                F[3] = f64::INFINITY;
                F[4] = f64::NEG_INFINITY;
                F[5] = f64::NAN;
                F[6] = f64::MAX;
                F[7] = f64::MIN;
                F[8] = f64::EPSILON;
                F[9] = f64::MIN_POSITIVE;
                F[10] = f64::consts::FRAC_PI_2 * f64::consts::SQRT_2;
                F[11] = std::f64::consts::LN_2;
                S[0] = f32::consts::PI;
                S[1] = f32::MAX;
                S[2] = f32::EPSILON;
                S[3] = f32::NEG_INFINITY;
                S[4] = std::f32::consts::E;
                S[5] = f32::MIN;
                I[0] = i32::MAX as i64;
                I[1] = i32::MIN as i64;
                I[2] = i8::MIN as i64;
                I[3] = i8::MAX as i64;
                I[4] = i16::MIN as i64;
                I[5] = u16::MAX as i64;
                I[6] = u8::MAX as i64;
                I[7] = i64::MIN;
                I[8] = i64::MAX;
                I[9] = u8::BITS as i64;
                U[0] = u64::MAX;
                U[1] = u32::MAX as u64;
                U[2] = u64::MIN;
            }
        }
    }
}

#[test]
fn constants_have_rusts_values_and_types() {
    let (mut f, mut s, mut i, mut u) = (
        vec![0.0; 12],
        vec![0.0f32; 6],
        vec![0i64; 10],
        vec![1u64; 3],
    );
    Constants::load(&Device::cpu())
        .unwrap()
        .run(ConstantsArgs {
            F: &mut f,
            S: &mut s,
            I: &mut i,
            U: &mut u,
        })
        .unwrap();
    use std::f64::consts as c;
    assert_eq!(
        f[..5],
        [c::PI, c::E, c::TAU, f64::INFINITY, f64::NEG_INFINITY]
    );
    assert!(f[5].is_nan());
    assert_eq!(
        f[6..],
        [
            f64::MAX,
            f64::MIN,
            f64::EPSILON,
            f64::MIN_POSITIVE,
            c::FRAC_PI_2 * c::SQRT_2,
            c::LN_2
        ]
    );
    assert_eq!(
        s,
        [
            std::f32::consts::PI,
            f32::MAX,
            f32::EPSILON,
            f32::NEG_INFINITY,
            std::f32::consts::E,
            f32::MIN
        ]
    );
    assert_eq!(
        i,
        [
            i32::MAX as i64,
            i32::MIN as i64,
            -128,
            127,
            -32768,
            65535,
            255,
            i64::MIN,
            i64::MAX,
            8
        ]
    );
    assert_eq!(u, [u64::MAX, u32::MAX as u64, 0]);
}

sdfg! {
    /// NPBench arc_distance: the great-circle distance of point pairs.
    pub sdfg ArcDistance {
        symbol N: i64;
        gpu T1: f64[N];
        gpu P1: f64[N];
        gpu T2: f64[N];
        gpu P2: f64[N];
        gpu D: f64[N];
        state s {
            map d[i in 0..N] on gpu {
                let a = ((T2[i] - T1[i]) / 2.0).sin();
                let b = ((P2[i] - P1[i]) / 2.0).sin();
                let temp = a * a + T1[i].cos() * T2[i].cos() * b * b;
                D[i] = 2.0 * temp.sqrt().atan2((1.0 - temp).sqrt());
            }
        }
    }
}

#[test]
fn arc_distance_matches_numpys_formula() {
    let n = 1000usize;
    let mut rng = sdfg_testkit::rng::Rng::new(3);
    let mut v = || -> Vec<f64> {
        (0..n)
            .map(|_| rng.range(0.0, std::f64::consts::PI))
            .collect()
    };
    let (t1, p1, t2, p2) = (v(), v(), v(), v());
    for device in common::devices("arc_distance") {
        let up = |v: &[f64]| DeviceBuffer::from_slice(&device, v).unwrap();
        let (dt1, dp1, dt2, dp2) = (up(&t1), up(&p1), up(&t2), up(&p2));
        let mut d = DeviceBuffer::<f64>::zeros(&device, n).unwrap();
        ArcDistance::load(&device)
            .unwrap()
            .run(ArcDistanceArgs {
                N: n as i64,
                T1: &dt1,
                P1: &dp1,
                T2: &dt2,
                P2: &dp2,
                D: &mut d,
            })
            .unwrap();
        for (i, got) in d.to_vec().unwrap().into_iter().enumerate() {
            let temp = ((t2[i] - t1[i]) / 2.0).sin().powi(2)
                + t1[i].cos() * t2[i].cos() * ((p2[i] - p1[i]) / 2.0).sin().powi(2);
            let want = 2.0 * temp.sqrt().atan2((1.0 - temp).sqrt());
            assert!(
                (got - want).abs() <= 1e-13 * want.abs().max(1.0),
                "[{i}] {got} vs {want} on {}",
                device.name()
            );
        }
    }
}

/// What the GPU would run: ptxas accepts the module with every new
/// subroutine (CI requires ptxas: SDFG_REQUIRE_PTXAS=1).
#[test]
fn the_kernels_assemble() {
    for f in NAMES {
        for ty in ["f32", "f64"] {
            let name = format!("__sdfg_{f}_{ty}");
            assert!(MathFns::PTX.contains(&name), "{name}");
        }
    }
    match sdfg::compiler::codegen::ptx::ptxas::assemble_check(MathFns::PTX) {
        Ok(Some(_)) => {}
        Ok(None) if std::env::var("SDFG_REQUIRE_PTXAS").as_deref() != Ok("1") => {
            println!("ptxas not found: the PTX was not assembled");
        }
        other => panic!("ptxas: {other:?}"),
    }
}
