//! The element types beyond `i32 i64 u32 u64 f32 f64 bool`, the newer math
//! methods and Rust's constants in DaCe: host programs run on our CPU
//! device, then their exports (with DaCe's dtypes `int8 uint8 int16
//! uint16`, ...) go to ci/dace_check.py
//! with the same inputs and *our* outputs: DaCe loads, validates, compiles
//! and runs each on the CPU and compares every output exactly.
//!
//! DaCe comes from `SDFG_DACE_PYTHON`; without it the comparison is skipped
//! with a printed line, unless `SDFG_REQUIRE_DACE=1` (CI).

mod common;

use common::dace_run::{complexes, floats, ints, out_dir, record, record_within_ulps};
use sdfg::compiler::export::dace::to_sdfg_json_string;
use sdfg::prelude::*;
use std::path::Path;

sdfg! {
    /// Wrapping arithmetic, masked shifts, casts and reductions of narrow
    /// integers (C++ computes them in `int`: the export casts back).
    pub sdfg NarrowTypes {
        symbol N: i64;
        host A: u8[N];
        host B: i16[N];
        host W: i8[N];
        host S: u16[N];
        host COUNT: u16[4];
        host LOW: i8[4];
        state s {
            map m[i in 0..N] on cpu {
                let x = A[i];
                W[i] = (x as i8) * 3 - 100 + (x >> 3) as i8;
                S[i] = (x as u16 * 300) ^ (!(B[i] as u16) << (x % 20)) + (B[i] / -7) as u16;
                COUNT[i % 4] += (x >> 5) as u16 + 1000;
                LOW[i % 4] = LOW[i % 4].min(-(x as i8));
            }
            tasklet t {
                let mut crc: u16 = 0xFFFF;
                for k in 0..N {
                    crc = (crc << 3) ^ (A[k] as u16 * 77) ^ (crc >> 13);
                }
                B[0] = crc as i16;
                let m: i16 = -32768;
                B[1] = m;
                B[2] = m - 1;
            }
        }
    }
}

sdfg! {
    /// Casts that narrow 64-bit values which do not fit: they wrap, in
    /// values, in indices and in a tasklet.
    pub sdfg NarrowCasts {
        symbol N: i64;
        host X: i64[N];
        host Y: i64[N];
        host Z: u32[N];
        host T: i32[2];
        state s {
            map m[i in 0..N] on cpu {
                Y[i] = ((X[i] * 1000003) as i32) as i64 + 1;
                Z[i] = (X[i] as u64 * 4000000007) as u32 + (X[i] as u8) as u32;
            }
            tasklet t {
                T[0] = (X[0] * 3000000000) as i32;
                T[1] = ((X[1] as i32) as i64 * 3) as i32;
            }
        }
    }
}

sdfg! {
    /// `f16` (DaCe's `float16`).
    pub sdfg HalfTypes {
        symbol N: i64;
        host A: f16[N];
        host B: f16[N];
        host D: f64[N];
        host O: f16[N, 5];
        host T: f16[2];
        state s {
            map m[i in 0..N] on cpu {
                let a = A[i];
                O[i, 0] = a * B[i] + 0.1;
                O[i, 1] = (a * a).sqrt() / B[i];
                O[i, 2] = a.max(B[i]) - f16::EPSILON;
                O[i, 3] = D[i] as f16;
                O[i, 4] = (i as i32 * 997) as f16;
            }
            tasklet t {
                let mut acc: f16 = 0.0;
                for k in 0..N {
                    acc = acc + A[k];
                }
                T[0] = acc;
                T[1] = acc * 2.0;
            }
        }
    }
}

sdfg! {
    /// The math methods beyond `sqrt exp ln sin cos tanh powi powf` and
    /// Rust's constants: DaCe's C++ calls the same libm as our CPU device
    /// (but for `erf`, which std lacks: ours is the GPU's program).
    pub sdfg MathAndConstants {
        symbol N: i64;
        host X: f64[N];
        host O: f64[N, 9];
        host XS: f32[N];
        host OS: f32[N, 4];
        host K: f64[4];
        host KI: i64[3];
        state s {
            map m[i in 0..N] on cpu {
                let x = X[i];
                O[i, 0] = x.atan2(1.5 - x);
                O[i, 1] = (x / 4.0).asin();
                O[i, 2] = (x / 4.0).acos();
                O[i, 3] = x.atan();
                O[i, 4] = x.sinh();
                O[i, 5] = x.cosh();
                O[i, 6] = x.hypot(f64::consts::PI);
                O[i, 7] = x.cbrt();
                O[i, 8] = (x * 0.5).erf();
                OS[i, 0] = XS[i].atan2(f32::consts::E);
                OS[i, 1] = XS[i].sinh();
                OS[i, 2] = XS[i].hypot(2.0).cbrt();
                OS[i, 3] = (XS[i] * 0.5).erf();
            }
            tasklet k {
                K[0] = f64::MAX;
                K[1] = f64::EPSILON;
                K[2] = f64::NEG_INFINITY;
                K[3] = std::f64::consts::LN_10;
                KI[0] = i64::MIN;
                KI[1] = u16::MAX as i64;
                KI[2] = i8::MIN as i64;
            }
        }
    }
}

sdfg! {
    /// Complex arithmetic (num-complex's formulas through the exporter's
    /// helpers), parts, `conj`, `norm_sqr`, `norm`, `arg`, `exp` and a `+=`
    /// reduction, in DaCe's complex64/complex128.
    pub sdfg ComplexTypes {
        symbol N: i64;
        host A: c64[N];
        host B: c64[N];
        host O: c64[N, 4];
        host R: f64[N, 4];
        host S: c32[N];
        host OS: c32[N];
        host T: c64[1];
        state s {
            map m[i in 0..N] on cpu {
                let a = A[i];
                let b = B[i];
                O[i, 0] = a * b - a / b;
                O[i, 1] = -a.conj() + c64::new(b.im, a.re);
                O[i, 2] = (a * c64::new(0.5, 0.0)).exp();
                O[i, 3] = if a == b { a } else { b };
                R[i, 0] = a.re + b.im;
                R[i, 1] = a.norm_sqr();
                R[i, 2] = a.norm();
                R[i, 3] = a.arg();
                OS[i] = S[i] * S[i] / c32::new(1.5, S[i].im);
                T[0] += a;
            }
        }
    }
}

sdfg! {
    /// The same types in GPU storage: DaCe validates the export and
    /// generates its CUDA code (CI has no GPU to run it).
    pub sdfg GpuTypes {
        symbol N: i64;
        gpu Z: c64[N];
        gpu ZS: c32[N];
        gpu B: u8[N];
        gpu H: i16[N];
        gpu F: f64[N];
        gpu HF: f16[N];
        gpu T: c64;
        state s {
            map m[i in 0..N] on gpu {
                let z = Z[i] * c64::new(F[i].atan2(2.0), F[i].cbrt());
                Z[i] = z / (z.conj() + c64::new(1.0, 0.0));
                ZS[i] = ZS[i] * ZS[i];
                B[i] = B[i] * 3 + (H[i] >> 2) as u8;
                F[i] = z.norm() + F[i].hypot(f64::consts::PI) + F[i].sinh();
                T += z;
                HF[i] = HF[i] * 0.5 + F[i] as f16;
            }
        }
    }
}

fn math_and_constants(device: &Device, dir: &Path) {
    let n = 40usize;
    let x: Vec<f64> = (0..n).map(|i| i as f64 * 0.37 - 7.0).collect();
    let xs: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    let (mut o, mut os, mut k, mut ki) = (
        vec![0.0; n * 9],
        vec![0.0f32; n * 4],
        vec![0.0; 4],
        vec![0i64; 3],
    );
    MathAndConstants::load(device)
        .unwrap()
        .run(MathAndConstantsArgs {
            N: n as i64,
            X: &x,
            O: &mut o,
            XS: &xs,
            OS: &mut os,
            K: &mut k,
            KI: &mut ki,
        })
        .unwrap();
    let wide = |v: &[f32]| -> Vec<f64> { v.iter().map(|&x| x as f64).collect() };
    record_within_ulps(
        dir,
        &MathAndConstants::ir().unwrap(),
        &[("N", n as i64)],
        &[
            ("X", floats(&x)),
            ("O", floats(&vec![0.0; n * 9])),
            ("XS", floats(&wide(&xs))),
            ("OS", floats(&vec![0.0; n * 4])),
            ("K", floats(&[0.0; 4])),
            ("KI", ints(&[0; 3])),
        ],
        &[
            ("O", floats(&o)),
            ("OS", floats(&wide(&os))),
            ("K", floats(&k)),
            ("KI", ints(&ki)),
        ],
        // Transcendental functions: C++ may reach another libm entry point
        // than Rust's std (`cbrt`, or `sinh` of a float computed in double),
        // and `erf` is libm's there, the math program's here.
        &[("O", 2), ("OS", 2)],
    );
}

fn complex_types(device: &Device, dir: &Path) {
    use sdfg::runtime::{c32, c64};
    let n = 24usize;
    let a: Vec<c64> = (0..n)
        .map(|i| c64::new(i as f64 * 0.3 - 2.0, 1.0 - i as f64 * 0.11))
        .collect();
    let mut b: Vec<c64> = (0..n)
        .map(|i| c64::new((i * 7 % 5) as f64 - 1.5, i as f64 * 0.25))
        .collect();
    b[4] = a[4];
    let s: Vec<c32> = (0..n)
        .map(|i| c32::new(i as f32 * 0.5 - 3.0, 0.75))
        .collect();
    let (mut o, mut r, mut os, mut t) = (
        vec![c64::new(0.0, 0.0); n * 4],
        vec![0.0; n * 4],
        vec![c32::new(0.0, 0.0); n],
        vec![c64::new(1.0, -1.0)],
    );
    ComplexTypes::load(device)
        .unwrap()
        .run(ComplexTypesArgs {
            N: n as i64,
            A: &a,
            B: &b,
            O: &mut o,
            R: &mut r,
            S: &s,
            OS: &mut os,
            T: &mut t,
        })
        .unwrap();
    let wide = |v: &[c32]| -> Vec<c64> {
        v.iter()
            .map(|z| c64::new(z.re as f64, z.im as f64))
            .collect()
    };
    record_within_ulps(
        dir,
        &ComplexTypes::ir().unwrap(),
        &[("N", n as i64)],
        &[
            ("A", complexes(&a)),
            ("B", complexes(&b)),
            ("O", complexes(&vec![c64::new(0.0, 0.0); n * 4])),
            ("R", floats(&vec![0.0; n * 4])),
            ("S", complexes(&wide(&s))),
            ("OS", complexes(&wide(&os))),
            ("T", complexes(&[c64::new(1.0, -1.0)])),
        ],
        &[
            ("O", complexes(&o)),
            ("R", floats(&r)),
            ("OS", complexes(&wide(&os))),
            ("T", complexes(&t)),
        ],
        // exp, hypot and atan2 of another libm entry point (C++ may call
        // the double versions, glibc's own complex code is not used).
        // T: a parallel sum on our side (reassociated).
        &[("O", 2), ("R", 2), ("T", 64)],
    );
}

fn narrow_casts(device: &Device, dir: &Path) {
    let n = 16usize;
    let x: Vec<i64> = (0..n as i64)
        .map(|i| (i - 8) * 987_654_321_987 + i * 7)
        .collect();
    let (mut y, mut z, mut t) = (vec![0i64; n], vec![0u32; n], [0i32; 2]);
    NarrowCasts::load(device)
        .unwrap()
        .run(NarrowCastsArgs {
            N: n as i64,
            X: &x,
            Y: &mut y,
            Z: &mut z,
            T: &mut t,
        })
        .unwrap();
    record(
        dir,
        &NarrowCasts::ir().unwrap(),
        &[("N", n as i64)],
        &[
            ("X", ints(&x)),
            ("Y", ints(&[0i64; 16])),
            ("Z", ints(&[0u32; 16])),
            ("T", ints(&[0i32; 2])),
        ],
        &[("Y", ints(&y)), ("Z", ints(&z)), ("T", ints(&t))],
    );
}

fn narrow_types(device: &Device, dir: &Path) {
    let n = 64usize;
    let a: Vec<u8> = (0..n).map(|i| (i * 37 + 11) as u8).collect();
    let b: Vec<i16> = (0..n).map(|i| (i as i16 - 30).wrapping_mul(1111)).collect();
    let (mut b_out, mut w, mut s) = (b.clone(), vec![0i8; n], vec![0u16; n]);
    let (mut count, mut low) = ([1u16, 2, 3, 4], [i8::MAX; 4]);
    NarrowTypes::load(device)
        .unwrap()
        .run(NarrowTypesArgs {
            N: n as i64,
            A: &a,
            B: &mut b_out,
            W: &mut w,
            S: &mut s,
            COUNT: &mut count,
            LOW: &mut low,
        })
        .unwrap();
    record(
        dir,
        &NarrowTypes::ir().unwrap(),
        &[("N", n as i64)],
        &[
            ("A", ints(&a)),
            ("B", ints(&b)),
            ("W", ints(&[0; 64])),
            ("S", ints(&[0; 64])),
            ("COUNT", ints(&[1, 2, 3, 4])),
            ("LOW", ints(&[i8::MAX; 4])),
        ],
        &[
            ("B", ints(&b_out)),
            ("W", ints(&w)),
            ("S", ints(&s)),
            ("COUNT", ints(&count)),
            ("LOW", ints(&low)),
        ],
    );
}

/// `f16` loads and validates in DaCe as `float16`. Not run: DaCe 1.0.2's
/// CPU `dace::float16` is a stub (no default constructor, a truncating
/// conversion from float), so its C++ neither compiles for a tasklet that
/// declares one nor rounds like IEEE half precision; the CUDA code
/// generator uses CUDA's `half`.
fn half_types(dir: &Path) {
    let ir = HalfTypes::ir().unwrap();
    let json = to_sdfg_json_string(&ir);
    assert!(json.contains("\"float16\""));
    std::fs::write(dir.join("HalfTypes.sdfg"), json).unwrap();
}

#[test]
fn dace_computes_what_we_compute_for_every_type() {
    let device = Device::cpu();
    let dir = out_dir("types");
    half_types(&dir);
    narrow_types(&device, &dir);
    narrow_casts(&device, &dir);
    math_and_constants(&device, &dir);
    complex_types(&device, &dir);
    let gpu = GpuTypes::ir().unwrap();
    std::fs::write(dir.join("GpuTypes.sdfg"), to_sdfg_json_string(&gpu)).unwrap();
    let Some(python) = common::dace::python_or_skip() else {
        return;
    };
    let (ok, text) = common::dace::check(&python, &[dir.as_os_str()]);
    assert!(ok, "DaCe disagrees with our CPU device:\n{text}");
}
