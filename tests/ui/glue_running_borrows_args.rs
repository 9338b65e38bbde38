// A launched SDFG borrows its arguments until it is waited for: the host
// cannot touch `x` while the GPU may still write it.
use sdfg::prelude::*;

sdfg! {
    pub sdfg Fill {
        symbol N: i64;
        host X: f64[N];
        gpu G: f64[N];
        state s {
            map fill[i in 0..N] on gpu { G[i] = 1.0; }
            copy G -> X;
        }
    }
}

fn main() -> Result<(), Error> {
    let device = Device::cpu();
    let program = Fill::load(&device)?;
    let mut g = DeviceBuffer::<f64>::zeros(&device, 4)?;
    let mut x = vec![0.0; 4];
    let running = program.launch(FillArgs { N: 4, X: &mut x, G: &mut g })?;
    x[0] = 5.0;
    running.wait()?;
    Ok(())
}
