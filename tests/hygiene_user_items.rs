//! A `const`, a `static` and a unit struct in scope, named like the SDFG's
//! symbols and containers, do not change the generated code: the glue never
//! binds a user's name as a pattern (`let Args { N, .. }` would turn `N`
//! into a constant pattern) and never reads one as a value. Runs on the CPU
//! device, where `gpu` maps run their Rust twins.

#![allow(non_upper_case_globals, dead_code)]

use sdfg::prelude::*;

const N: i64 = 3;
static X: [f64; 2] = [7.0, 8.0];
struct M;
const T: bool = false;

sdfg! {
    /// Scales `X` into `M` on the GPU, adds a host scalar by value, and
    /// writes the trip count through a symbol an edge assigns (`T`).
    pub sdfg Shadowed {
        symbol N: i64;
        symbol S: i64;
        gpu X: f64[N];
        gpu M: f64[N];
        host B: f64;
        host C: i64[1];
        transient host Y: f64[N];

        state first {
            map scale[i in 0..N] on gpu { M[i] = X[i] * (S as f64) + B; }
            copy M -> Y;
            tasklet sum { C[0] = (Y[0] + Y[N - 1]) as i64; }
        }
        state second {
            map count[i in 0..T] on cpu { C[0] += 1; }
        }
        first -> second { T = N + 1; }
    }
}

#[test]
fn user_items_named_like_symbols_and_containers() {
    let device = Device::cpu();
    let program = Shadowed::load(&device).expect("load");
    let x = DeviceBuffer::from_slice(&device, &[1.0, 2.0, 3.0, 4.0]).expect("alloc");
    let mut m = DeviceBuffer::<f64>::zeros(&device, 4).expect("alloc");
    let mut c = [0i64];
    program
        .run(ShadowedArgs {
            N: 4,
            S: 2,
            X: &x,
            M: &mut m,
            B: 1.0,
            C: &mut c,
        })
        .expect("run");
    assert_eq!(m.to_vec().expect("read"), [3.0, 5.0, 7.0, 9.0]);
    // Y[0] + Y[3] = 12, then T = 5 increments.
    assert_eq!(c, [17]);
    // The user's items are untouched and still usable.
    assert_eq!((N, X[0], T), (3, 7.0, false));
    let _ = M;
}
