// Both graph policies compile in a crate that forbids unsafe code (the
// segment glue's `unsafe` blocks belong to the expansion) and compute the
// same: a loop over symbols captured whole, and a loop decided on the GPU.
#![forbid(unsafe_code)]

use sdfg::prelude::*;

sdfg! {
    #[graph(auto)]
    pub sdfg Captured {
        symbol N: i64; symbol T: i64;
        gpu A: i64[N];
        state init {}
        state step {
            map inc[i in 0..N] on gpu { A[i] = A[i] + 1; }
            map dbl[i in 0..N] on gpu { A[i] = A[i] * 2; }
        }
        init -> step { t = 0 }
        step -> step if t + 1 < T { t = t + 1 }
    }
}

sdfg! {
    #[graph(off)]
    pub sdfg OnStreams {
        symbol N: i64;
        gpu A: i64[N];
        gpu M: i64;
        transient host H: i64;
        state step {
            map inc[i in 0..N] on gpu { A[i] = A[i] + 1; }
            map top[i in 0..1] on gpu { M = A[0]; }
            copy M -> H;
        }
        step -> step if H < 10;
    }
}

fn main() -> Result<(), Error> {
    assert_eq!(
        Captured::GRAPH_PLAN,
        ["state `init`: captured", "state `step`: captured; its loop is unrolled into the graph"]
    );
    let device = Device::cpu();
    let captured = Captured::load(&device)?;
    let streams = OnStreams::load(&device)?;
    let mut a = DeviceBuffer::<i64>::zeros(&device, 4)?;
    let mut m = DeviceBuffer::<i64>::zeros(&device, 1)?;
    for _ in 0..3 {
        a.copy_from_slice(&[0; 4])?;
        captured.run(CapturedArgs { N: 4, T: 3, A: &mut a })?;
        assert_eq!(a.to_vec()?, [14; 4]);
        a.copy_from_slice(&[0; 4])?;
        streams.run(OnStreamsArgs { N: 4, A: &mut a, M: &mut m })?;
        assert_eq!(a.to_vec()?, [10; 4]);
    }
    Ok(())
}
