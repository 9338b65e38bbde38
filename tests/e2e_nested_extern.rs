//! `extern sdfg`: a program defined by one `sdfg!` called from another,
//! across modules, through a chain (a program that itself calls an external
//! one) and under another name.

mod common;
use sdfg::prelude::*;

mod blas {
    use sdfg::prelude::*;

    sdfg! {
        /// V = a * U + V.
        pub sdfg Axpy {
            symbol M: i64; host a: f64; host U: f64[M]; host V: f64[M];
            state s { map axpy[i in 0..M] on cpu { V[i] = a * U[i] + V[i]; } }
        }
    }

    sdfg! {
        /// Axpy twice, through the first program.
        pub sdfg TwoAxpy {
            extern sdfg Axpy;
            symbol M: i64; host a: f64; host U: f64[M]; host V: f64[M];
            state s { Axpy(a = a, U = U, V = V); Axpy(a = a, U = U, V = V); }
        }
    }
}

use blas::TwoAxpy;

sdfg! {
    pub sdfg Caller {
        extern sdfg TwoAxpy;
        extern sdfg blas::Axpy as Single;
        symbol N: i64; host s: f64; host X: f64[N]; host Y: f64[N, 2];
        state main {
            TwoAxpy(a = s, U = X, V = Y[0..N, 0]);
            Single(a = s, U = X, V = Y[0..N, 1]);
        }
    }
}

#[test]
fn a_program_calls_programs_of_other_invocations() {
    for device in common::devices("nested_extern") {
        let n = 7usize;
        let x: Vec<f64> = (0..n).map(|i| i as f64 - 2.5).collect();
        let mut y = vec![1.0f64; 2 * n];
        Caller::load(&device)
            .unwrap()
            .run(CallerArgs {
                N: n as i64,
                s: 0.5,
                X: &x,
                Y: &mut y,
            })
            .unwrap();
        for i in 0..n {
            assert_eq!(y[2 * i], 1.0 + 0.5 * x[i] + 0.5 * x[i], "Y[{i}, 0]");
            assert_eq!(y[2 * i + 1], 1.0 + 0.5 * x[i], "Y[{i}, 1]");
        }
        // The called programs still run on their own.
        let mut v = vec![1.0f64; n];
        blas::Axpy::load(&device)
            .unwrap()
            .run(blas::AxpyArgs {
                M: n as i64,
                a: 2.0,
                U: &x,
                V: &mut v,
            })
            .unwrap();
        assert_eq!(v[0], 1.0 + 2.0 * x[0]);
    }
}

#[test]
fn the_caller_inlines_the_whole_chain() {
    let ir = Caller::ir().unwrap();
    let names: Vec<&str> = ir.states.iter().map(|s| s.name.text.as_str()).collect();
    assert!(names.contains(&"TwoAxpy_Axpy_2_s"), "{names:?}");
    assert!(names.contains(&"Single_s"), "{names:?}");
    assert_eq!(Caller::to_sdfg_json().matches("\"NestedSDFG\"").count(), 4);
}
