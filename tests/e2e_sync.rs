//! Synchronization scenarios (issue 5) on every device: the CPU device,
//! whose streams are real worker threads, and the GPU when there is one.
//! A spin kernel (about 50 ms) makes a missing wait visible: without the
//! waits the schedule placed, these results would be stale.

mod common;
use sdfg::prelude::*;
use std::time::Instant;

/// Spin iterations per element so that a map of `n` spinning elements takes
/// about `ms` milliseconds: a GPU runs the elements in parallel, the CPU
/// device has only its cores.
fn spin_per_element(device: &Device, ms: f64, n: usize) -> i64 {
    let total = spin_for(device, ms);
    if device.is_gpu() {
        total
    } else {
        (total * device.sm_count() as i64 / n as i64).max(1)
    }
}

/// Spin iterations that take about `ms` milliseconds on `device`.
fn spin_for(device: &Device, ms: f64) -> i64 {
    let program = Spin::load(device).unwrap();
    let mut out = DeviceBuffer::<i32>::zeros(device, 1).unwrap();
    let probe = 200_000i64;
    program
        .run(SpinArgs {
            SPIN: probe,
            OUT: &mut out,
        })
        .unwrap(); // warm-up (JIT)
    let t = Instant::now();
    program
        .run(SpinArgs {
            SPIN: probe,
            OUT: &mut out,
        })
        .unwrap();
    let per_iter = t.elapsed().as_secs_f64() * 1e3 / probe as f64;
    ((ms / per_iter) as i64).clamp(1, 200_000_000)
}

sdfg! {
    /// One thread spins SPIN dependent float steps, then writes 10.
    pub sdfg Spin {
        symbol SPIN: i64;
        gpu OUT: i32;
        state s {
            map spin[i in 0..1] on gpu {
                let mut acc = 0.5;
                for k in 0..SPIN { acc = acc * 0.999999 + 1.0; }
                OUT = if acc > 1.0e300 { 0 } else { 10 };
            }
        }
    }
}

macro_rules! slow_repro {
    ($name:ident, $($policy:tt)*) => {
        sdfg! {
            #[streams($($policy)*)]
            pub sdfg $name {
                symbol X_size: i32;
                symbol SPIN: i64;
                gpu T_GPU: i32;
                host X: i32[X_size];
                host U: i32[1];
                transient pinned T: i32;
                state first {
                    map write[i in 0..1] on gpu {
                        let mut acc = 0.5;
                        for k in 0..SPIN { acc = acc * 0.999999 + 1.0; }
                        T_GPU = if acc > 1.0e300 { 0 } else { 10 };
                    }
                    copy T_GPU -> T;
                    tasklet cpu_computation { U[0] = T + 1; }
                }
                state second {
                    map compute[i in 0..R] on cpu { X[i] = 1; }
                }
                first -> second { R = T; S = false; }
            }
        }
    };
}

slow_repro!(SlowReproDefault, default);
slow_repro!(SlowReproSingle, single);
slow_repro!(SlowReproMax2, max(2));
slow_repro!(SlowReproAuto, auto);

macro_rules! slow_repro_test {
    ($test:ident, $name:ident, $args:ident) => {
        #[test]
        fn $test() {
            for device in common::devices(stringify!($test)) {
                let spin = spin_for(&device, 50.0);
                let program = $name::load(&device).unwrap();
                let mut t_gpu = DeviceBuffer::<i32>::zeros(&device, 1).unwrap();
                for run in 0..20 {
                    t_gpu.copy_from_slice(&[-1]).unwrap();
                    let mut x = vec![0i32; 32];
                    let mut u = vec![0i32; 1];
                    let before = device.counters();
                    program
                        .run($args {
                            X_size: 32,
                            SPIN: spin,
                            T_GPU: &mut t_gpu,
                            X: &mut x,
                            U: &mut u,
                        })
                        .unwrap();
                    let after = device.counters();
                    assert_eq!(u[0], 11, "run {run} on {}", device.name());
                    assert_eq!(x.iter().filter(|&&v| v == 1).count(), 10, "run {run}");
                    // One wait for T before the tasklet; nothing is issued on a
                    // stream after it, so the end of the run needs no other.
                    assert_eq!(after.host_syncs - before.host_syncs, 1, "run {run}");
                    assert_eq!(after.event_waits - before.event_waits, 0, "run {run}");
                }
            }
        }
    };
}

slow_repro_test!(slow_repro_default, SlowReproDefault, SlowReproDefaultArgs);
slow_repro_test!(slow_repro_single, SlowReproSingle, SlowReproSingleArgs);
slow_repro_test!(slow_repro_max2, SlowReproMax2, SlowReproMax2Args);
slow_repro_test!(slow_repro_auto, SlowReproAuto, SlowReproAutoArgs);

sdfg! {
    /// GPU only: a slow producer and a consumer; results stay on the device.
    #[streams(auto)]
    pub sdfg GpuOnly {
        symbol N: i64;
        symbol SPIN: i64;
        gpu A: f64[N];
        gpu B: f64[N];
        state s {
            map slow[i in 0..N] on gpu {
                let mut acc = 0.5;
                for k in 0..SPIN { acc = acc * 0.999999 + 1.0; }
                A[i] = if acc > 1.0e300 { 0.0 } else { (i as f64) + 1.0 };
            }
            map twice[i in 0..N] on gpu { B[i] = 2.0 * A[i]; }
        }
    }
}

#[test]
fn gpu_only_results_are_complete_after_run_and_after_running_wait() {
    for device in common::devices("gpu_only") {
        let spin = spin_per_element(&device, 50.0, 1024);
        let program = GpuOnly::load(&device).unwrap();
        let n = 1024usize;
        let expected: Vec<f64> = (0..n).map(|i| 2.0 * (i as f64 + 1.0)).collect();
        for run in 0..20 {
            let mut a = DeviceBuffer::from_slice(&device, &vec![-1.0; n]).unwrap();
            let mut b = DeviceBuffer::from_slice(&device, &vec![-1.0; n]).unwrap();
            let before = device.counters();
            if run % 2 == 0 {
                program
                    .run(GpuOnlyArgs {
                        N: n as i64,
                        SPIN: spin,
                        A: &mut a,
                        B: &mut b,
                    })
                    .unwrap();
            } else {
                let running = program
                    .launch(GpuOnlyArgs {
                        N: n as i64,
                        SPIN: spin,
                        A: &mut a,
                        B: &mut b,
                    })
                    .unwrap();
                // `launch` returned without waiting for the slow kernel.
                assert_eq!(device.counters().host_syncs, before.host_syncs, "run {run}");
                running.wait().unwrap();
            }
            let counts = device.counters() - before;
            // Both kernels on one stream: no event, one wait at the end.
            assert_eq!((counts.host_syncs, counts.event_waits), (1, 0), "run {run}");
            assert_eq!(
                b.to_vec().unwrap(),
                expected,
                "run {run} on {}",
                device.name()
            );
        }
    }
}

sdfg! {
    /// Iterates until a residual computed on the GPU is small: the
    /// interstate condition reads GPU-produced data through a host copy.
    // Counts the stream schedule's waits per step: no graphs (tests/e2e_graphs.rs
    // runs the same loop as a conditional node).
    #[streams(auto)]
    #[graph(off)]
    pub sdfg Converge {
        symbol N: i64;
        gpu X: f64[N];
        gpu RES: f64;
        transient pinned R: f64;
        state init {
            map zero[i in 0..1] on gpu { RES = 0.0; }
        }
        state step {
            map halve[i in 0..N] on gpu { X[i] = 0.5 * X[i]; }
            map clear[i in 0..1] on gpu { RES = 0.0; }
            map norm[i in 0..N] on gpu { RES += X[i] * X[i]; }
            copy RES -> R;
        }
        state done {}
        init -> step { it = 0 }
        step -> step if R > 1.0e-6 && it < 1000 { it = it + 1 }
        step -> done;
    }
}

#[test]
fn a_loop_condition_computed_on_the_gpu() {
    for device in common::devices("converge") {
        let program = Converge::load(&device).unwrap();
        for run in 0..20 {
            let x0: Vec<f64> = (0..256).map(|i| 1.0 + (i % 7) as f64).collect();
            let mut x = DeviceBuffer::from_slice(&device, &x0).unwrap();
            let mut res = DeviceBuffer::<f64>::zeros(&device, 1).unwrap();
            let before = device.counters();
            program
                .run(ConvergeArgs {
                    N: 256,
                    X: &mut x,
                    RES: &mut res,
                })
                .unwrap();
            let counts = device.counters() - before;
            // Plain Rust: halve until the squared norm is <= 1e-6.
            let mut y = x0.clone();
            let mut steps = 0u64;
            loop {
                y.iter_mut().for_each(|v| *v *= 0.5);
                steps += 1;
                if y.iter().map(|v| v * v).sum::<f64>() <= 1.0e-6 {
                    break;
                }
            }
            assert_eq!(x.to_vec().unwrap(), y, "run {run} on {}", device.name());
            // Each step waits once on the host, for the residual R its edge
            // reads, and once on the GPU: `norm` (stream 1) for `halve`
            // (stream 0). In the first step `clear` already waited for
            // `init`, past `halve`, so `norm` needs none there. The end of
            // the run waits for nothing: the host saw stream 1 finish, and
            // so the `halve` it had waited for.
            assert_eq!(counts.host_syncs, steps, "run {run}");
            assert_eq!(counts.event_waits, steps, "run {run}");
        }
    }
}

sdfg! {
    /// A scalar computed on the GPU, copied back, passed by value to the next kernel.
    #[streams(single)]
    pub sdfg ScalarByValue {
        symbol N: i64;
        symbol SPIN: i64;
        gpu A: f64[N];
        gpu M: f64;
        transient pinned H: f64;
        state s {
            map slow_max[i in 0..1] on gpu {
                let mut acc = 0.5;
                for k in 0..SPIN { acc = acc * 0.999999 + 1.0; }
                M = if acc > 1.0e300 { 0.0 } else { 4.0 };
            }
            copy M -> H;
            map scale[i in 0..N] on gpu { A[i] = A[i] / H; }
        }
    }
}

#[test]
fn a_scalar_copied_back_is_passed_by_value_after_its_wait() {
    use sdfg::compiler::schedule::{SyncReason, SyncSite};
    let schedule = ScalarByValue::schedule().unwrap();
    assert_eq!(schedule.states[0].syncs.len(), 1);
    assert_eq!(schedule.states[0].syncs[0].site, SyncSite::Before(2));
    assert_eq!(
        schedule.states[0].syncs[0].reason,
        SyncReason::KernelArgument
    );
    for device in common::devices("scalar_by_value") {
        let spin = spin_for(&device, 50.0);
        let program = ScalarByValue::load(&device).unwrap();
        for run in 0..20 {
            let mut a = DeviceBuffer::from_slice(&device, &[8.0; 16]).unwrap();
            let mut m = DeviceBuffer::from_slice(&device, &[-1.0]).unwrap();
            let before = device.counters();
            program
                .run(ScalarByValueArgs {
                    N: 16,
                    SPIN: spin,
                    A: &mut a,
                    M: &mut m,
                })
                .unwrap();
            let after = device.counters();
            assert_eq!(
                a.to_vec().unwrap(),
                vec![2.0; 16],
                "run {run} on {}",
                device.name()
            );
            assert_eq!(after.host_syncs - before.host_syncs, 2);
        }
    }
}

sdfg! {
    /// Fork and join across streams: `left` and `right` both need `src`
    /// and are independent of each other; `join` needs both.
    // Counts the events of the stream schedule: no graphs (tests/e2e_graphs.rs
    // replays a fork as a graph).
    #[streams(auto)]
    #[graph(off)]
    pub sdfg Diamond {
        symbol N: i64;
        symbol SPIN: i64;
        gpu S: f64[N];
        gpu L: f64[N];
        gpu R: f64[N];
        gpu J: f64[N];
        state s {
            map src[i in 0..N] on gpu { S[i] = (i as f64) + 1.0; }
            map left[i in 0..N] on gpu {
                let mut acc = 0.5;
                for k in 0..SPIN { acc = acc * 0.999999 + 1.0; }
                L[i] = if acc > 1.0e300 { 0.0 } else { 2.0 * S[i] };
            }
            map right[i in 0..N] on gpu {
                let mut acc = 0.5;
                for k in 0..SPIN { acc = acc * 0.999999 + 1.0; }
                R[i] = if acc > 1.0e300 { 0.0 } else { 3.0 * S[i] };
            }
            map join[i in 0..N] on gpu { J[i] = L[i] + R[i]; }
        }
    }
}

#[test]
fn a_diamond_forks_onto_two_streams_and_joins_through_events() {
    let schedule = Diamond::schedule().unwrap();
    let s = &schedule.states[0];
    // `left` continues `src`'s stream; `right` forks a second one; `join`
    // continues its most recent predecessor (`right`).
    assert_eq!(s.stream_of, vec![Some(0), Some(0), Some(1), Some(1)]);
    // right waits for src (stream 0 -> 1); join waits for left (0 -> 1).
    assert_eq!(s.events.len(), 2, "{:?}", s.events);
    for device in common::devices("diamond") {
        let spin = spin_per_element(&device, 50.0, 512);
        let program = Diamond::load(&device).unwrap();
        let n = 512usize;
        for run in 0..20 {
            let mut bufs: Vec<DeviceBuffer<f64>> = (0..4)
                .map(|_| DeviceBuffer::from_slice(&device, &vec![-1.0; n]).unwrap())
                .collect();
            let (s_, rest) = bufs.split_at_mut(1);
            let (l, rest) = rest.split_at_mut(1);
            let (r, j) = rest.split_at_mut(1);
            let before = device.counters();
            program
                .run(DiamondArgs {
                    N: n as i64,
                    SPIN: spin,
                    S: &mut s_[0],
                    L: &mut l[0],
                    R: &mut r[0],
                    J: &mut j[0],
                })
                .unwrap();
            let after = device.counters();
            let expected: Vec<f64> = (0..n).map(|i| 5.0 * (i as f64 + 1.0)).collect();
            assert_eq!(
                j[0].to_vec().unwrap(),
                expected,
                "run {run} on {}",
                device.name()
            );
            assert_eq!(after.event_waits - before.event_waits, 2, "run {run}");
            // The end of the run synchronizes both streams.
            assert_eq!(after.host_syncs - before.host_syncs, 2, "run {run}");
        }
    }
}

sdfg! {
    /// The range of the second state's map is computed on the GPU.
    #[streams(auto)]
    pub sdfg GpuRange {
        symbol N: i64;
        symbol SPIN: i64;
        gpu COUNT: i64;
        gpu OUT: i64[N];
        transient pinned C: i64;
        state count {
            map c[i in 0..1] on gpu {
                let mut acc = 0.5;
                for k in 0..SPIN { acc = acc * 0.999999 + 1.0; }
                COUNT = if acc > 1.0e300 { 0 } else { N / 2 };
            }
            copy COUNT -> C;
        }
        state fill {
            map f[i in 0..K] on gpu { OUT[i] = i; }
        }
        count -> fill { K = C }
    }
}

#[test]
fn a_map_range_that_comes_from_gpu_computed_data() {
    for device in common::devices("gpu_range") {
        let spin = spin_for(&device, 50.0);
        let program = GpuRange::load(&device).unwrap();
        for run in 0..20 {
            let mut count = DeviceBuffer::from_slice(&device, &[-1i64]).unwrap();
            let mut out = DeviceBuffer::from_slice(&device, &[-1i64; 64]).unwrap();
            let before = device.counters();
            program
                .run(GpuRangeArgs {
                    N: 64,
                    SPIN: spin,
                    COUNT: &mut count,
                    OUT: &mut out,
                })
                .unwrap();
            let counts = device.counters() - before;
            // The copy of COUNT before the edge reads it, then the end of the run.
            assert_eq!((counts.host_syncs, counts.event_waits), (2, 0), "run {run}");
            let got = out.to_vec().unwrap();
            let expected: Vec<i64> = (0..64).map(|i| if i < 32 { i } else { -1 }).collect();
            assert_eq!(got, expected, "run {run} on {}", device.name());
        }
    }
}

sdfg! {
    #[streams(default)]
    pub sdfg ProduceDefault {
        symbol N: i64;
        symbol SPIN: i64;
        gpu A: f64[N];
        state s {
            map p[i in 0..N] on gpu {
                let mut acc = 0.5;
                for k in 0..SPIN { acc = acc * 0.999999 + 1.0; }
                A[i] = if acc > 1.0e300 { 0.0 } else { (i as f64) * 3.0 };
            }
        }
    }
}

sdfg! {
    #[streams(auto)]
    pub sdfg ConsumeAuto {
        symbol N: i64;
        gpu A: f64[N];
        gpu B: f64[N];
        state s {
            map c[i in 0..N] on gpu { B[i] = A[i] + 1.0; }
        }
    }
}

#[test]
fn two_programs_share_a_buffer_without_a_wait_between_them() {
    for device in common::devices("shared_buffer") {
        let spin = spin_per_element(&device, 50.0, 256);
        let producer = ProduceDefault::load(&device).unwrap();
        let consumer = ConsumeAuto::load(&device).unwrap();
        let n = 256usize;
        for run in 0..20 {
            let mut a = DeviceBuffer::from_slice(&device, &vec![-1.0; n]).unwrap();
            let mut b = DeviceBuffer::from_slice(&device, &vec![-1.0; n]).unwrap();
            let before = device.counters();
            let first = producer
                .launch(ProduceDefaultArgs {
                    N: n as i64,
                    SPIN: spin,
                    A: &mut a,
                })
                .unwrap();
            // Not waited for: the consumer is ordered after it through A's events.
            std::mem::forget(first);
            consumer
                .run(ConsumeAutoArgs {
                    N: n as i64,
                    A: &mut a,
                    B: &mut b,
                })
                .unwrap();
            let after = device.counters();
            let expected: Vec<f64> = (0..n).map(|i| i as f64 * 3.0 + 1.0).collect();
            assert_eq!(
                b.to_vec().unwrap(),
                expected,
                "run {run} on {}",
                device.name()
            );
            assert_eq!(after.event_waits - before.event_waits, 1, "run {run}");
        }
    }
}

#[test]
fn the_negative_control_sees_a_stale_value_without_the_wait() {
    for device in common::devices("negative_control") {
        let spin = spin_for(&device, 50.0);
        let program = Spin::load(&device).unwrap();
        let stream = device.new_stream().unwrap();
        let mut stale_seen = 0;
        for _ in 0..5 {
            let mut out = DeviceBuffer::from_slice(&device, &[-1i32]).unwrap();
            let running = program
                .launch(SpinArgs {
                    SPIN: spin,
                    OUT: &mut out,
                })
                .unwrap();
            std::mem::forget(running);
            let host = HostBuffer::from_slice(&device, &[-7i32]).unwrap();
            let whole = sdfg::runtime::Region::whole(1);
            let pending = stream.copy_to_host(&out, &whole, host, &whole).unwrap();
            // SAFETY: a deliberately racy read of memory a stream may still
            // write, to show what the type system prevents.
            let early = unsafe { pending.peek_unsynchronized() };
            if early != vec![10] {
                stale_seen += 1;
            }
            let done = pending.wait().unwrap();
            assert_eq!(done.as_slice(), &[10], "the safe path is always right");
        }
        assert!(
            stale_seen >= 4,
            "the unsynchronized read saw the final value {} of 5 times",
            5 - stale_seen
        );
    }
}

#[test]
fn a_buffer_of_another_device_is_rejected_before_any_work() {
    let device = Device::cpu();
    let other = Device::cpu();
    let program = ConsumeAuto::load(&device).unwrap();
    let mut a = DeviceBuffer::from_slice(&other, &[1.0; 4]).unwrap();
    let mut b = DeviceBuffer::from_slice(&device, &[-1.0; 4]).unwrap();
    let err = program
        .run(ConsumeAutoArgs {
            N: 4,
            A: &mut a,
            B: &mut b,
        })
        .unwrap_err();
    assert!(err.to_string().contains('A'), "{err}");
    assert_eq!(b.to_vec().unwrap(), vec![-1.0; 4]);
}

#[test]
fn a_loaded_program_runs_from_eight_threads() {
    fn is_send_sync<T: Send + Sync>() {}
    is_send_sync::<ConsumeAuto>();
    for device in common::devices("threads") {
        let program = ConsumeAuto::load(&device).unwrap();
        std::thread::scope(|scope| {
            for t in 0..8 {
                let (program, device) = (&program, &device);
                scope.spawn(move || {
                    for run in 0..100 {
                        let base = (t * 1000 + run) as f64;
                        let mut a = DeviceBuffer::from_slice(device, &[base; 64]).unwrap();
                        let mut b = DeviceBuffer::<f64>::zeros(device, 64).unwrap();
                        program
                            .run(ConsumeAutoArgs {
                                N: 64,
                                A: &mut a,
                                B: &mut b,
                            })
                            .unwrap();
                        assert_eq!(b.to_vec().unwrap(), vec![base + 1.0; 64]);
                    }
                });
            }
        });
    }
}

#[test]
fn ten_thousand_runs_leak_no_device_memory() {
    for device in common::devices("no_leak") {
        let program = ConsumeAuto::load(&device).unwrap();
        let mut a = DeviceBuffer::from_slice(&device, &[1.5f64; 32]).unwrap();
        let mut b = DeviceBuffer::<f64>::zeros(&device, 32).unwrap();
        // Warm up: the context pool, the module cache, staging buffers.
        for _ in 0..10 {
            program
                .run(ConsumeAutoArgs {
                    N: 32,
                    A: &mut a,
                    B: &mut b,
                })
                .unwrap();
        }
        let before = device.memory_in_use().unwrap();
        for _ in 0..10_000 {
            program
                .run(ConsumeAutoArgs {
                    N: 32,
                    A: &mut a,
                    B: &mut b,
                })
                .unwrap();
        }
        let after = device.memory_in_use().unwrap();
        assert_eq!(
            after,
            before,
            "device memory in use changed over 10,000 runs on {}",
            device.name()
        );
        assert_eq!(b.to_vec().unwrap(), vec![2.5; 32]);
    }
}

#[test]
fn the_device_keeps_working_after_a_recoverable_error() {
    for device in common::devices("recoverable") {
        let program = ConsumeAuto::load(&device).unwrap();
        // A bad argument, then an impossible allocation: both are errors...
        let mut short = DeviceBuffer::from_slice(&device, &[1.0f64; 3]).unwrap();
        let mut b = DeviceBuffer::<f64>::zeros(&device, 4).unwrap();
        assert!(program
            .run(ConsumeAutoArgs {
                N: 4,
                A: &mut short,
                B: &mut b
            })
            .is_err());
        assert!(DeviceBuffer::<f64>::zeros(&device, usize::MAX / 16).is_err());
        // ...and the device still runs programs correctly afterwards.
        let mut a = DeviceBuffer::from_slice(&device, &[2.0f64; 4]).unwrap();
        program
            .run(ConsumeAutoArgs {
                N: 4,
                A: &mut a,
                B: &mut b,
            })
            .unwrap();
        assert_eq!(b.to_vec().unwrap(), vec![3.0; 4]);
    }
}

#[test]
fn run_on_puts_all_gpu_work_on_the_callers_stream() {
    for device in common::devices("run_on") {
        let program = Diamond::load(&device).unwrap();
        let stream = device.new_stream().unwrap();
        let n = 64usize;
        let mut bufs: Vec<DeviceBuffer<f64>> = (0..4)
            .map(|_| DeviceBuffer::from_slice(&device, &vec![-1.0; n]).unwrap())
            .collect();
        let (s_, rest) = bufs.split_at_mut(1);
        let (l, rest) = rest.split_at_mut(1);
        let (r, j) = rest.split_at_mut(1);
        let before = device.counters();
        program
            .run_on(
                &stream,
                DiamondArgs {
                    N: n as i64,
                    SPIN: 10,
                    S: &mut s_[0],
                    L: &mut l[0],
                    R: &mut r[0],
                    J: &mut j[0],
                },
            )
            .unwrap();
        let counts = device.counters() - before;
        // One stream: the fork and the join need no event.
        assert_eq!((counts.host_syncs, counts.event_waits), (1, 0));
        let expected: Vec<f64> = (0..n).map(|i| 5.0 * (i as f64 + 1.0)).collect();
        assert_eq!(j[0].to_vec().unwrap(), expected);
        // launch_on: later work on the caller's stream is ordered after the
        // program by the stream itself, even with the handle forgotten.
        j[0].copy_from_slice(&vec![-1.0; n]).unwrap();
        let out = DeviceBuffer::<f64>::zeros(&device, n).unwrap();
        let running = program
            .launch_on(
                &stream,
                DiamondArgs {
                    N: n as i64,
                    SPIN: 10,
                    S: &mut s_[0],
                    L: &mut l[0],
                    R: &mut r[0],
                    J: &mut j[0],
                },
            )
            .unwrap();
        std::mem::forget(running);
        let whole = sdfg::runtime::Region::whole(n);
        stream.copy_device(&j[0], &whole, &out, &whole).unwrap();
        assert_eq!(out.to_vec().unwrap(), expected);
    }
}
