// A program's call on a caller's cudarc stream borrows it: the caller's
// handle cannot be dropped before the call was waited for.
use sdfg::prelude::*;

sdfg! {
    pub sdfg Fill {
        symbol N: i64;
        gpu A: f32[N];
        state s {
            map fill[i in 0..N] on gpu { A[i] = 1.0; }
        }
    }
}

fn main() -> Result<(), Error> {
    let device = Device::gpu(0)?;
    let program = Fill::load(&device)?;
    let mut a = DeviceBuffer::<f32>::zeros(&device, 4)?;
    let theirs = sdfg::runtime::cudarc::driver::CudaContext::new(0)
        .unwrap()
        .new_stream()
        .unwrap();
    let ours = device.borrow_cudarc_stream(&theirs)?;
    let running = program.launch_on(&ours, FillArgs { N: 4, A: &mut a })?;
    drop(theirs);
    running.wait()
}
