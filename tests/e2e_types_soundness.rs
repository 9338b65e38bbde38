//! The soundness guarantees of issue 13 (exact index prechecks, transients
//! zero at the start of every call) hold for the narrow, half-precision and
//! complex types too: a complex or narrow transient starts at zero, and an
//! index whose narrow intermediate wraps around is an error before any
//! work (the precheck computes in the intermediate's own type).
//! On the CPU device always, and on the GPU when there is one.

mod common;
use sdfg::prelude::*;
use sdfg::runtime::c64;

sdfg! {
    /// Each call reads every transient before writing it.
    pub sdfg TypedTransients {
        symbol N: i64;
        host OUT_C: c64[N];
        host OUT_U: u8[N];
        gpu OUT_CG: c64[N];
        gpu OUT_IG: i16[N];
        transient host TC: c64[N];
        transient host TU: u8[N];
        transient gpu TCG: c64[N];
        transient gpu TI: i16[N];
        state s {
            map h[i in 0..N] on seq {
                OUT_C[i] = TC[i];
                TC[i] = TC[i] + c64::new(1.0, 2.0);
                OUT_U[i] = TU[i];
                TU[i] = TU[i] + 7;
            }
            map g[i in 0..N] on gpu {
                OUT_CG[i] = TCG[i];
                TCG[i] = TCG[i] + c64::new(1.0, -1.0);
                OUT_IG[i] = TI[i];
                TI[i] = TI[i] - 3;
            }
        }
    }
}

#[test]
fn complex_and_narrow_transients_are_zero_at_the_start_of_every_call() {
    for device in common::devices("complex_and_narrow_transients_are_zero") {
        let on = &device.name();
        let program = TypedTransients::load(&device).unwrap();
        for call in 0..3 {
            let mut out_c = vec![c64::new(-1.0, -1.0); 3];
            let mut out_u = vec![9u8; 3];
            let mut out_cg = DeviceBuffer::from_slice(&device, &[c64::new(5.0, 5.0); 3]).unwrap();
            let mut out_ig = DeviceBuffer::from_slice(&device, &[11i16; 3]).unwrap();
            program
                .run(TypedTransientsArgs {
                    N: 3,
                    OUT_C: &mut out_c,
                    OUT_U: &mut out_u,
                    OUT_CG: &mut out_cg,
                    OUT_IG: &mut out_ig,
                })
                .unwrap();
            let zero = c64::new(0.0, 0.0);
            assert_eq!(out_c, [zero; 3], "call {call} on {on}: c64 host transient");
            assert_eq!(out_u, [0; 3], "call {call} on {on}: u8 host transient");
            assert_eq!(
                out_cg.to_vec().unwrap(),
                [zero; 3],
                "call {call} on {on}: c64 gpu transient"
            );
            assert_eq!(
                out_ig.to_vec().unwrap(),
                [0; 3],
                "call {call} on {on}: i16 gpu transient"
            );
        }
    }
}

sdfg! {
    /// `(i as i8) + 100` wraps around i8 once `i` reaches 28.
    pub sdfg NarrowIndex {
        symbol N: i64;
        gpu A: i64[256];
        gpu O: i64[N];
        host H: i64[256];
        host P: i64[N];
        state s {
            map g[i in 0..N] on gpu { O[i] = A[((i as i8) + 100) as i64]; }
            map c[i in 0..N] on cpu { P[i] = H[((i as i8) + 100) as i64]; }
        }
    }
}

#[test]
fn a_narrow_intermediate_that_wraps_is_an_error_before_any_work() {
    let a: Vec<i64> = (0..256).collect();
    for device in common::devices("a_narrow_intermediate_that_wraps") {
        let on = &device.name();
        let program = NarrowIndex::load(&device).unwrap();
        let da = DeviceBuffer::from_slice(&device, &a).unwrap();
        for n in [20usize, 40] {
            let mut o = DeviceBuffer::<i64>::zeros(&device, n).unwrap();
            let mut p = vec![-1i64; n];
            let r = program.run(NarrowIndexArgs {
                N: n as i64,
                A: &da,
                O: &mut o,
                H: &a,
                P: &mut p,
            });
            if n == 20 {
                r.unwrap();
                let want: Vec<i64> = (100..120).collect();
                assert_eq!(o.to_vec().unwrap(), want, "on {on}");
                assert_eq!(p, want, "on {on}");
                continue;
            }
            match r {
                Err(Error::OutOfBounds { what }) => {
                    assert!(what.contains("wraps around `i8`"), "on {on}: {what}");
                    assert!(what.contains("`A`") || what.contains("`H`"), "{what}");
                }
                other => panic!("on {on}: expected a wrap error, got {other:?}"),
            }
            assert_eq!(p, vec![-1; n], "on {on}: no work may have run");
        }
    }
}
