//! A program on a caller's cudarc stream (GPU only; skipped without one,
//! a failure with `SDFG_REQUIRE_GPU=1`): the work goes onto that stream, in
//! order with the caller's own, also when it runs as a graph.

mod common;

use sdfg::prelude::*;
use sdfg::runtime::cudarc::driver::{sys, CudaContext};

sdfg! {
    /// One slow thread: the stream stays busy for a while.
    #[streams(single)]
    pub sdfg SlowWrite {
        symbol SPIN: i64;
        gpu OUT: f64;
        state s {
            map slow[i in 0..1] on gpu {
                let mut acc = 0.5;
                for k in 0..SPIN { acc = acc * 0.999999 + 1.0; }
                OUT = if acc > 1.0e300 { 0.0 } else { 7.0 };
            }
        }
    }
}

sdfg! {
    /// A captured time loop (one graph launch from the second call).
    #[streams(single)]
    pub sdfg Steps {
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

/// Is the caller's stream still busy (`cuStreamQuery` says not ready)?
fn busy(stream: &std::sync::Arc<sdfg::runtime::cudarc::driver::CudaStream>) -> bool {
    // SAFETY: a query of a live stream handle.
    let status = unsafe { sys::cuStreamQuery(stream.cu_stream()) };
    status == sys::CUresult::CUDA_ERROR_NOT_READY
}

#[test]
fn a_program_runs_on_a_callers_cudarc_stream() {
    let Some(device) = common::gpu_or_skip("cudarc stream") else {
        return;
    };
    let context = CudaContext::new(0).unwrap();
    let theirs = context.new_stream().unwrap();
    let ours = device.borrow_cudarc_stream(&theirs).unwrap();
    assert!(Device::cpu().borrow_cudarc_stream(&theirs).is_err());

    let slow = SlowWrite::load(&device).unwrap();
    let mut out = DeviceBuffer::<f64>::zeros(&device, 1).unwrap();
    slow.run_on(
        &ours,
        SlowWriteArgs {
            SPIN: 10,
            OUT: &mut out,
        },
    )
    .unwrap(); // the JIT, before timing matters
    let running = slow
        .launch_on(
            &ours,
            SlowWriteArgs {
                SPIN: 20_000_000,
                OUT: &mut out,
            },
        )
        .unwrap();
    assert!(
        busy(&theirs),
        "the program's kernel is on the caller's stream"
    );
    running.wait().unwrap();
    assert!(
        !busy(&theirs),
        "waiting for the call waited for the caller's stream"
    );
    assert_eq!(out.to_vec().unwrap(), [7.0]);

    let steps = Steps::load(&device).unwrap();
    let mut a = DeviceBuffer::<i64>::zeros(&device, 100).unwrap();
    for run in 0..4 {
        a.copy_from_slice(&[1; 100]).unwrap();
        let before = device.counters();
        steps
            .run_on(
                &ours,
                StepsArgs {
                    N: 100,
                    T: 5,
                    A: &mut a,
                },
            )
            .unwrap();
        let counts = device.counters() - before;
        // (((((1 + 1) * 2 + 1) * 2 + 1) * 2 + 1) * 2 + 1) * 2
        assert_eq!(a.to_vec().unwrap(), [94; 100], "run {run}");
        assert_eq!(counts.graph_launches, u64::from(run > 0), "run {run}");
    }
}

#[test]
fn a_program_loads_the_cubin_built_for_its_gpu() {
    let Some(device) = common::gpu_or_skip("embedded cubin") else {
        return;
    };
    let (major, minor) = device.compute_capability().unwrap();
    let program = Steps::load(&device).unwrap();
    let origin = program.module_origin();
    println!(
        "sm_{major}{minor}: built for {:?}, loaded from {origin:?}",
        Steps::CUBINS
    );
    if Steps::CUBINS.contains(&(major * 10 + minor)) {
        assert_eq!(origin, sdfg::runtime::ModuleOrigin::EmbeddedCubin);
    } else {
        assert_ne!(origin, sdfg::runtime::ModuleOrigin::EmbeddedCubin);
    }
    let mut a = DeviceBuffer::<i64>::from_slice(&device, &[1; 8]).unwrap();
    program
        .run(StepsArgs {
            N: 8,
            T: 1,
            A: &mut a,
        })
        .unwrap();
    assert_eq!(a.to_vec().unwrap(), [4; 8]);
}
