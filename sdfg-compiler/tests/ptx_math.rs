//! The math programs of the PTX backend (their Rust mirrors, which execute
//! the same instructions) against Rust std, over random and edge inputs.

use sdfg_compiler::math::mirror as m;
use sdfg_testkit::rng::Rng;

/// A random finite double with a random exponent in [lo_exp, hi_exp].
fn log_uniform(r: &mut Rng, lo_exp: i32, hi_exp: i32) -> f64 {
    let e = lo_exp + (r.next_u64() % (hi_exp - lo_exp + 1) as u64) as i32;
    let m = 1.0 + r.unit();
    let s = if r.next_u64() & 1 == 0 { 1.0 } else { -1.0 };
    s * m * 2f64.powi(e)
}

fn ulp64(a: f64, b: f64) -> f64 {
    if a.is_nan() && b.is_nan() {
        return 0.0;
    }
    if a == b {
        return 0.0;
    }
    if a.is_nan() || b.is_nan() || a.is_infinite() || b.is_infinite() {
        return f64::INFINITY;
    }
    let key = |x: f64| {
        let i = x.to_bits() as i64;
        if i < 0 {
            i64::MIN - i
        } else {
            i
        }
    };
    (key(a) as i128 - key(b) as i128).unsigned_abs() as f64
}

fn ulp32(a: f32, b: f32) -> f64 {
    if a.is_nan() && b.is_nan() {
        return 0.0;
    }
    if a == b {
        return 0.0;
    }
    if a.is_nan() || b.is_nan() || a.is_infinite() || b.is_infinite() {
        return f64::INFINITY;
    }
    let key = |x: f32| {
        let i = x.to_bits() as i32;
        if i < 0 {
            i32::MIN as i64 - i as i64
        } else {
            i as i64
        }
    };
    (key(a) - key(b)).unsigned_abs() as f64
}

const EDGE: [f64; 22] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    2.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    f64::MIN_POSITIVE,
    5e-324,
    -5e-324,
    1e-300,
    709.78,
    709.79,
    -745.1,
    -745.2,
    22.0,
    0.55,
    1e-10,
    1e300,
    3.0,
];

fn check64(name: &str, f: fn(f64) -> f64, g: fn(f64) -> f64, inputs: &[f64], bound: f64) {
    let mut worst = (0.0, 0.0);
    for &x in inputs.iter().chain(EDGE.iter()) {
        let (a, b) = (f(x), g(x));
        let u = ulp64(a, b);
        if u > worst.0 {
            worst = (u, x);
        }
    }
    println!("{name}: max {} ulp at x = {:e}", worst.0, worst.1);
    assert!(
        worst.0 <= bound,
        "{name}: {} ulp at x = {:e} (bound {bound}): got {:e} want {:e}",
        worst.0,
        worst.1,
        f(worst.1),
        g(worst.1)
    );
}

fn check32(name: &str, f: fn(f32) -> f32, g: fn(f32) -> f32, inputs: &[f64], bound: f64) {
    let mut worst = (0.0, 0.0f32);
    for &x in inputs.iter().chain(EDGE.iter()) {
        let x = x as f32;
        let (a, b) = (f(x), g(x));
        let u = ulp32(a, b);
        if u > worst.0 {
            worst = (u, x);
        }
    }
    println!("{name}: max {} ulp at x = {:e}", worst.0, worst.1);
    assert!(
        worst.0 <= bound,
        "{name}: {} ulp at x = {:e} (bound {bound}): got {:e} want {:e}",
        worst.0,
        worst.1,
        f(worst.1),
        g(worst.1)
    );
}

fn bound(name: &str) -> f64 {
    sdfg_compiler::codegen::ptx::ULP_BOUNDS
        .iter()
        .find(|b| b.function == name)
        .unwrap_or_else(|| panic!("no ULP bound for {name}"))
        .ulp
}

/// Samples per range (fewer in unoptimized builds, to keep `cargo test` quick).
const N: usize = if cfg!(debug_assertions) {
    40_000
} else {
    200_000
};

#[test]
fn exp_within_bounds() {
    let mut r = Rng::new(1);
    let mut xs: Vec<f64> = (0..N).map(|_| r.range(-745.5, 709.9)).collect();
    xs.extend((0..N).map(|_| r.range(-2.0, 2.0)));
    xs.extend((0..N / 4).map(|_| log_uniform(&mut r, -60, 9)));
    check64("exp f64", m::exp_f64, f64::exp, &xs, bound("exp f64"));
    check32("exp f32", m::exp_f32, f32::exp, &xs, bound("exp f32"));
}

#[test]
fn ln_within_bounds() {
    let mut r = Rng::new(2);
    let mut xs: Vec<f64> = (0..N)
        .map(|_| log_uniform(&mut r, -1074, 1023).abs())
        .collect();
    xs.extend((0..N).map(|_| r.range(0.5, 2.0)));
    xs.extend((0..N / 4).map(|_| 1.0 + r.range(-1e-6, 1e-6)));
    xs.extend((0..1000).map(|_| -r.unit()));
    check64("ln f64", m::ln_f64, f64::ln, &xs, bound("ln f64"));
    let xs32: Vec<f64> = xs.iter().map(|x| x.clamp(-3e38, 3e38)).collect();
    check32("ln f32", m::ln_f32, f32::ln, &xs32, bound("ln f32"));
}

#[test]
fn sin_cos_within_bounds() {
    let mut r = Rng::new(3);
    let mut xs: Vec<f64> = (0..N).map(|_| r.range(-10.0, 10.0)).collect();
    xs.extend((0..N).map(|_| r.range(-1e6, 1e6)));
    xs.extend((0..N / 4).map(|_| log_uniform(&mut r, -80, 19)));
    // Near multiples of pi/2, where the reduction cancels.
    xs.extend((1..20000).map(|k| k as f64 * std::f64::consts::FRAC_PI_2));
    xs.extend([355.0, 103993.0, 104348.0, 208341.0, 312689.0, 833719.0]);
    check64("sin f64", m::sin_f64, f64::sin, &xs, bound("sin f64"));
    check64("cos f64", m::cos_f64, f64::cos, &xs, bound("cos f64"));
    check32("sin f32", m::sin_f32, f32::sin, &xs, bound("sin f32"));
    check32("cos f32", m::cos_f32, f32::cos, &xs, bound("cos f32"));
    // Large arguments (Payne-Hanek), including the worst cases for doubles.
    let mut big: Vec<f64> = (0..N).map(|_| log_uniform(&mut r, 19, 1023)).collect();
    big.extend([
        f64::MAX,
        -f64::MAX,
        1048576.0,
        1048575.9999999999,
        1e22,
        f64::from_bits(0x6b9d_c8e6_5c1b_1d0f), // near a multiple of pi/2 (~2^-61)
        8.98846567431158e307,
        2.0f64.powi(1000) * std::f64::consts::FRAC_PI_2,
    ]);
    check64("sin f64", m::sin_f64, f64::sin, &big, bound("sin f64"));
    check64("cos f64", m::cos_f64, f64::cos, &big, bound("cos f64"));
    let big32: Vec<f64> = (0..N).map(|_| log_uniform(&mut r, 19, 127)).collect();
    check32("sin f32", m::sin_f32, f32::sin, &big32, bound("sin f32"));
    check32("cos f32", m::cos_f32, f32::cos, &big32, bound("cos f32"));
}

#[test]
fn tanh_within_bounds() {
    let mut r = Rng::new(4);
    let mut xs: Vec<f64> = (0..N).map(|_| r.range(-25.0, 25.0)).collect();
    xs.extend((0..N).map(|_| r.range(-1.0, 1.0)));
    xs.extend((0..N / 4).map(|_| log_uniform(&mut r, -80, 5)));
    check64("tanh f64", m::tanh_f64, f64::tanh, &xs, bound("tanh f64"));
    check32("tanh f32", m::tanh_f32, f32::tanh, &xs, bound("tanh f32"));
}

#[test]
fn powf_within_bounds() {
    let mut r = Rng::new(5);
    let mut worst64 = (0.0f64, 0.0, 0.0);
    let mut worst32 = (0.0f64, 0.0f32, 0.0f32);
    let specials = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.0,
        -2.0,
        0.5,
        -0.5,
        3.0,
        -3.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e-310,
        1e300,
    ];
    let mut pairs: Vec<(f64, f64)> = Vec::new();
    for &x in &specials {
        for &y in &specials {
            pairs.push((x, y));
        }
    }
    for _ in 0..N {
        let x = log_uniform(&mut r, -60, 60).abs();
        let y = r.range(-20.0, 20.0);
        pairs.push((x, y));
        pairs.push((-x, y.round()));
        // Large |y ln x|: results near overflow / underflow.
        let b = r.range(0.5, 3.0);
        let t = r.range(-740.0, 709.0);
        pairs.push((b, t / b.ln()));
    }
    for &(x, y) in &pairs {
        let want = x.powf(y);
        let got = m::powf_f64(x, y);
        // The bound grows with |y ln x| (documented): scale it.
        let u = ulp64(got, want);
        if u > worst64.0 {
            worst64 = (u, x, y);
        }
        let (x32, y32) = (x as f32, y as f32);
        let u = ulp32(m::powf_f32(x32, y32), x32.powf(y32));
        if u > worst32.0 {
            worst32 = (u, x32, y32);
        }
    }
    println!(
        "powf f64: worst ulp/allowed {} at {:e}^{:e}",
        worst64.0, worst64.1, worst64.2
    );
    println!(
        "powf f32: worst {} ulp at {:e}^{:e}",
        worst32.0, worst32.1, worst32.2
    );
    assert!(
        worst64.0 <= 1.0,
        "powf f64 {:?}: got {:e} want {:e}",
        worst64,
        m::powf_f64(worst64.1, worst64.2),
        worst64.1.powf(worst64.2)
    );
    assert!(worst32.0 <= bound("powf f32"), "powf f32 {:?}", worst32);
}

#[test]
fn powi_is_bit_exact() {
    let mut r = Rng::new(6);
    for _ in 0..N {
        let x = log_uniform(&mut r, -40, 40);
        let n = r.below(200) as i32 - 100;
        let n = if r.chance(2) {
            r.pick(&[i32::MIN, i32::MAX, 0, -1])
        } else {
            n
        };
        assert_eq!(m::powi_f64(x, n).to_bits(), x.powi(n).to_bits(), "{x}^{n}");
        let x32 = x as f32;
        let a = m::powi_f32(x32, n);
        let b = x32.powi(n);
        assert!(
            a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
            "{x32}^{n}: {a} vs {b}"
        );
    }
}

#[test]
fn fmod_is_exact() {
    use sdfg_compiler::math::fmod_mirror;
    let mut r = Rng::new(7);
    let specials = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        1.5,
        3.0,
        1e300,
        -1e-300,
        5e-324,
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        0.1,
    ];
    let mut pairs = Vec::new();
    for &x in &specials {
        for &y in &specials {
            pairs.push((x, y));
        }
    }
    for _ in 0..N {
        pairs.push((
            log_uniform(&mut r, -1074, 1023),
            log_uniform(&mut r, -1074, 1023),
        ));
        pairs.push((log_uniform(&mut r, -30, 60), log_uniform(&mut r, -30, 30)));
        let x32 = log_uniform(&mut r, -149, 127) as f32 as f64;
        pairs.push((x32, log_uniform(&mut r, -149, 127) as f32 as f64));
    }
    for (x, y) in pairs {
        let (a, b) = (fmod_mirror(x, y), x % y);
        assert!(
            a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
            "{x:e} % {y:e}: {a:e} vs {b:e}"
        );
    }
}

/// A two-argument function of f64 and its reference.
type Pair64 = (fn(f64, f64) -> f64, fn(f64, f64) -> f64);
/// A two-argument function of f32 and its reference.
type Pair32 = (fn(f32, f32) -> f32, fn(f32, f32) -> f32);

/// The worst ulp distance of a two-argument function over `pairs` (f64 and
/// the same pairs rounded to f32), against std, checked against the bounds.
fn check_pairs(name: &str, f64s: Pair64, f32s: Pair32, pairs: &[(f64, f64)]) {
    let mut worst64 = (0.0f64, 0.0, 0.0);
    let mut worst32 = (0.0f64, 0.0f32, 0.0f32);
    for &(x, y) in pairs {
        let u = ulp64(f64s.0(x, y), f64s.1(x, y));
        if u > worst64.0 {
            worst64 = (u, x, y);
        }
        let (x32, y32) = (x as f32, y as f32);
        let u = ulp32(f32s.0(x32, y32), f32s.1(x32, y32));
        if u > worst32.0 {
            worst32 = (u, x32, y32);
        }
    }
    println!(
        "{name} f64: max {} ulp at ({:e}, {:e}); f32: max {} ulp at ({:e}, {:e})",
        worst64.0, worst64.1, worst64.2, worst32.0, worst32.1, worst32.2
    );
    let (x, y) = (worst64.1, worst64.2);
    assert!(
        worst64.0 <= bound(&format!("{name} f64")),
        "{name} f64 {worst64:?}: got {:e} want {:e}",
        f64s.0(x, y),
        f64s.1(x, y)
    );
    assert!(
        worst32.0 <= bound(&format!("{name} f32")),
        "{name} f32 {worst32:?}"
    );
}

/// Every pair of the edge values, plus random pairs of every magnitude.
fn pairs_of_every_magnitude(r: &mut Rng) -> Vec<(f64, f64)> {
    let mut pairs = Vec::new();
    for &x in &EDGE {
        for &y in &EDGE {
            pairs.push((x, y));
            pairs.push((-x, y));
        }
    }
    for _ in 0..N {
        pairs.push((log_uniform(r, -1074, 1023), log_uniform(r, -1074, 1023)));
        pairs.push((log_uniform(r, -30, 30), log_uniform(r, -30, 30)));
        pairs.push((r.range(-2.0, 2.0), r.range(-2.0, 2.0)));
        let x = log_uniform(r, -60, 60);
        pairs.push((x, x * r.range(0.999, 1.001)));
    }
    pairs
}

#[test]
fn atan2_and_hypot_within_bounds() {
    let mut r = Rng::new(8);
    let pairs = pairs_of_every_magnitude(&mut r);
    check_pairs(
        "atan2",
        (m::atan2_f64, f64::atan2),
        (m::atan2_f32, f32::atan2),
        &pairs,
    );
    check_pairs(
        "hypot",
        (m::hypot_f64, f64::hypot),
        (m::hypot_f32, f32::hypot),
        &pairs,
    );
}

#[test]
fn atan_asin_acos_within_bounds() {
    let mut r = Rng::new(9);
    let mut xs: Vec<f64> = (0..N).map(|_| r.range(-1.0, 1.0)).collect();
    xs.extend((0..N / 4).map(|_| log_uniform(&mut r, -1074, 1023)));
    xs.extend((0..N / 4).map(|_| 1.0 - log_uniform(&mut r, -53, -1).abs()));
    xs.extend((0..N / 4).map(|_| -1.0 + log_uniform(&mut r, -53, -1).abs()));
    xs.extend((0..N / 4).map(|_| r.range(-20.0, 20.0)));
    check64("atan f64", m::atan_f64, f64::atan, &xs, bound("atan f64"));
    check32("atan f32", m::atan_f32, f32::atan, &xs, bound("atan f32"));
    check64("asin f64", m::asin_f64, f64::asin, &xs, bound("asin f64"));
    check32("asin f32", m::asin_f32, f32::asin, &xs, bound("asin f32"));
    check64("acos f64", m::acos_f64, f64::acos, &xs, bound("acos f64"));
    check32("acos f32", m::acos_f32, f32::acos, &xs, bound("acos f32"));
}

#[test]
fn sinh_cosh_within_bounds() {
    let mut r = Rng::new(10);
    let mut xs: Vec<f64> = (0..N).map(|_| r.range(-25.0, 25.0)).collect();
    xs.extend((0..N).map(|_| r.range(-1.0, 1.0)));
    xs.extend((0..N / 4).map(|_| log_uniform(&mut r, -80, 5)));
    xs.extend((0..N / 4).map(|_| r.range(-712.0, 712.0)));
    xs.extend([22.0, -22.0, 710.4, 710.5, 0.5 * std::f64::consts::LN_2]);
    check64("sinh f64", m::sinh_f64, f64::sinh, &xs, bound("sinh f64"));
    check32("sinh f32", m::sinh_f32, f32::sinh, &xs, bound("sinh f32"));
    check64("cosh f64", m::cosh_f64, f64::cosh, &xs, bound("cosh f64"));
    check32("cosh f32", m::cosh_f32, f32::cosh, &xs, bound("cosh f32"));
}

#[test]
fn cbrt_within_bounds() {
    let mut r = Rng::new(11);
    let mut xs: Vec<f64> = (0..N).map(|_| log_uniform(&mut r, -1074, 1023)).collect();
    xs.extend((0..N).map(|_| r.range(-10.0, 10.0)));
    xs.extend((1..2000i64).map(|k| (k * k * k) as f64));
    check64("cbrt f64", m::cbrt_f64, f64::cbrt, &xs, bound("cbrt f64"));
    check32("cbrt f32", m::cbrt_f32, f32::cbrt, &xs, bound("cbrt f32"));
}

// glibc's erf (std has none; libm is linked by std on Linux).
extern "C" {
    fn erf(x: f64) -> f64;
    fn erff(x: f32) -> f32;
}

fn glibc_erf(x: f64) -> f64 {
    // SAFETY: a pure libm function of a double.
    unsafe { erf(x) }
}

fn glibc_erff(x: f32) -> f32 {
    // SAFETY: a pure libm function of a float.
    unsafe { erff(x) }
}

#[test]
fn erf_within_bounds() {
    let mut r = Rng::new(12);
    let mut xs: Vec<f64> = (0..N).map(|_| r.range(-7.0, 7.0)).collect();
    xs.extend((0..N).map(|_| r.range(-1.5, 1.5)));
    xs.extend((0..N / 4).map(|_| log_uniform(&mut r, -1074, 1023)));
    xs.extend((0..N / 4).map(|_| log_uniform(&mut r, -40, 3)));
    // The ends of each range and their neighbours.
    for c in [
        0.84375f64,
        1.25,
        2.857142857142857,
        2.8571414947509766,
        5.9,
        6.0,
        1.0,
        2.0,
    ] {
        for k in -3i64..=3 {
            let v = f64::from_bits(c.to_bits().wrapping_add(k as u64));
            xs.extend([v, -v]);
        }
    }
    xs.extend([1e-300, -1e-300, 2f64.powi(-28), 1e300, -1e300, 27.0, -28.0]);
    check64("erf f64", m::erf_f64, glibc_erf, &xs, bound("erf f64"));
    check32("erf f32", m::erf_f32, glibc_erff, &xs, bound("erf f32"));
    // Exact special values: odd, signed zero, saturation.
    assert_eq!(m::erf_f64(-0.0).to_bits(), (-0.0f64).to_bits());
    assert_eq!(m::erf_f64(0.0).to_bits(), 0.0f64.to_bits());
    assert_eq!(m::erf_f32(-0.0).to_bits(), (-0.0f32).to_bits());
    assert_eq!(m::erf_f64(f64::INFINITY), 1.0);
    assert_eq!(m::erf_f64(f64::NEG_INFINITY), -1.0);
    assert_eq!(m::erf_f32(f32::NEG_INFINITY), -1.0);
    assert_eq!(m::erf_f64(6.0), 1.0);
    assert_eq!(m::erf_f64(-1e300), -1.0);
    assert!(m::erf_f64(f64::NAN).is_nan());
    assert!(m::erf_f32(f32::NAN).is_nan());
    assert_eq!(m::erf_f64(5e-324), 5e-324);
    for x in xs.iter().take(1000) {
        assert_eq!(
            m::erf_f64(-x).to_bits(),
            (-m::erf_f64(*x)).to_bits(),
            "odd at {x}"
        );
    }
}
