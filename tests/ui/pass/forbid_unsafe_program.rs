// A crate that forbids unsafe code still uses `sdfg!` with gpu and cpu maps:
// the `unsafe` blocks of the generated glue (its own PTX, its own launches)
// belong to the macro's expansion, which the lint does not reach into.
#![forbid(unsafe_code)]

use sdfg::prelude::*;

sdfg! {
    pub sdfg ScaleThenShift {
        symbol N: i64;
        host a: f64;
        host X: f64[N];
        gpu G: f64[N];
        state on_gpu {
            copy X -> G;
            map scale[i in 0..N] on gpu { G[i] = a * G[i]; }
            copy G -> X;
        }
        state on_cpu {
            map shift[i in 0..N] on cpu { X[i] = X[i] + 1.0; }
        }
        on_gpu -> on_cpu;
    }
}

fn main() -> Result<(), Error> {
    let device = Device::cpu();
    let program = ScaleThenShift::load(&device)?;
    let mut g = DeviceBuffer::<f64>::zeros(&device, 3)?;
    let mut x = vec![1.0, 2.0, 3.0];
    program.run(ScaleThenShiftArgs {
        N: 3,
        a: 2.0,
        X: &mut x,
        G: &mut g,
    })?;
    assert_eq!(x, [3.0, 5.0, 7.0]);
    Ok(())
}
