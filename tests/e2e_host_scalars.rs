//! Host scalars in `Args`: one the program only reads is passed by value,
//! one it writes is a `&mut T` that holds the result when the call returns
//! (written by a host tasklet, or by a copy from the GPU). Runs on the CPU
//! device (a `gpu` map runs its Rust twin there) and on a GPU when present.

mod common;

use sdfg::prelude::*;

sdfg! {
    /// y = a * x + b on the GPU, then the sum of y and the last y to host scalars.
    pub sdfg ScalarsByValue {
        symbol N: i64;
        host a: f64;
        host b: f64;
        host total: f64;
        host last: f64;
        gpu X: f64[N];
        transient gpu Y: f64[N];
        transient gpu Last: f64;
        transient host H: f64[N];
        state compute {
            map axpb[i in 0..N] on gpu { Y[i] = a * X[i] + b; }
            map pick[i in 0..1] on gpu { Last = Y[N - 1]; }
            copy Y -> H;
            copy Last -> last;
        }
        state reduce {
            tasklet sum {
                let mut s = 0.0;
                for i in 0..N { s += H[i]; }
                total = s;
            }
        }
        compute -> reduce;
    }
}

fn check(device: &Device) {
    let program = ScalarsByValue::load(device).expect("load");
    let x = DeviceBuffer::from_slice(device, &[1.0, 2.0, 3.0, 4.0]).expect("upload");
    let (mut total, mut last) = (-1.0, -1.0);
    let a = 2.0;
    program
        .run(ScalarsByValueArgs {
            N: 4,
            a,
            b: 0.5,
            total: &mut total,
            last: &mut last,
            X: &x,
        })
        .expect("run");
    // y = 2.5, 4.5, 6.5, 8.5
    assert_eq!((total, last), (22.0, 8.5));
    // `a` was copied into the call; the caller's value is untouched.
    assert_eq!(a, 2.0);
}

#[test]
fn host_scalars_by_value_and_by_mut() {
    for device in common::devices("host_scalars_by_value_and_by_mut") {
        check(&device);
    }
}

#[test]
fn launch_copies_a_scalar_and_borrows_the_written_one() {
    let device = Device::cpu();
    let program = ScalarsByValue::load(&device).expect("load");
    let x = DeviceBuffer::from_slice(&device, &[1.0; 3]).expect("upload");
    let (mut total, mut last) = (0.0, 0.0);
    let running = {
        // The by-value scalars may go out of scope before the wait.
        let (a, b) = (1.0, 1.0);
        program
            .launch(ScalarsByValueArgs {
                N: 3,
                a,
                b,
                total: &mut total,
                last: &mut last,
                X: &x,
            })
            .expect("launch")
    };
    running.wait().expect("wait");
    assert_eq!((total, last), (6.0, 2.0));
}
