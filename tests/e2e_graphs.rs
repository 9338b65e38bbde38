//! Graph segments (`#[graph(auto)]`, the default): what the schedule
//! captures and refuses (and why), and calls that run as graphs give the
//! results of calls on streams, on the CPU device (whose graphs replay the
//! recorded jobs) and on the GPU (CUDA graphs with conditional WHILE nodes).
//! The policy under test: a key's first call runs on streams, its second
//! records and launches the graph, later ones launch it again.

mod common;

use sdfg::prelude::*;

common::fixtures::time_loop!(sdfg);

use common::{time_loop_initial as initial, time_loop_reference};

#[test]
fn the_schedule_captures_gpu_only_states_and_unrolls_their_loop() {
    assert_eq!(
        TimeLoop::GRAPH_PLAN,
        [
            "state `init`: captured",
            "state `step`: captured; its loop is unrolled into the graph",
            "state `done`: captured",
        ]
    );
    let schedule = TimeLoop::schedule().unwrap();
    let ir = TimeLoop::ir().unwrap();
    use sdfg::compiler::schedule::graphs::LoopForm;
    assert_eq!(schedule.graphs.loop_form(&ir, 1), Some(LoopForm::Unrolled));
    assert_eq!(schedule.graphs.loop_form(&ir, 0), None);
}

#[test]
fn a_time_loop_runs_as_one_graph_from_its_second_call() {
    for device in common::devices("graph time loop") {
        let program = TimeLoop::load(&device).unwrap();
        let (n, t) = (64usize, 25usize);
        let (mut a, mut b) = (initial(n), vec![0.0; n]);
        time_loop_reference(&mut a, &mut b, t);
        let mut da = DeviceBuffer::from_slice(&device, &initial(n)).unwrap();
        let mut db = DeviceBuffer::<f64>::zeros(&device, n).unwrap();
        for run in 0..5 {
            da.copy_from_slice(&initial(n)).unwrap();
            db.copy_from_slice(&vec![0.0; n]).unwrap();
            let before = device.counters();
            let args = TimeLoopArgs {
                N: n as i64,
                T: t as i64,
                A: &mut da,
                B: &mut db,
            };
            if run % 2 == 0 {
                program.run(args).unwrap();
            } else {
                program.launch(args).unwrap().wait().unwrap();
            }
            let counts = device.counters() - before;
            assert_eq!(da.to_vec().unwrap(), a, "A, run {run} on {}", device.name());
            assert_eq!(db.to_vec().unwrap(), b, "B, run {run} on {}", device.name());
            if run == 0 {
                // First sighting of the key: on streams.
                assert_eq!(
                    (counts.graph_launches, counts.kernel_launches),
                    (0, 2 * t as u64)
                );
            } else {
                // Recorded at the second call, replayed after: one launch,
                // no kernel issued by the host, one wait at the end.
                assert_eq!(
                    (
                        counts.graph_launches,
                        counts.kernel_launches,
                        counts.host_syncs
                    ),
                    (1, 0, 1),
                    "run {run} on {}",
                    device.name()
                );
            }
        }
        assert!(
            program.graph_notes().is_empty(),
            "{:?}",
            program.graph_notes()
        );
    }
}

#[test]
fn graphs_off_at_run_time_and_new_symbols_run_on_streams() {
    for device in common::devices("graphs off") {
        let program = TimeLoop::load(&device).unwrap();
        let n = 32usize;
        let mut da = DeviceBuffer::from_slice(&device, &initial(n)).unwrap();
        let mut db = DeviceBuffer::<f64>::zeros(&device, n).unwrap();
        program.set_graphs(false);
        let before = device.counters();
        for _ in 0..4 {
            let args = TimeLoopArgs {
                N: n as i64,
                T: 4,
                A: &mut da,
                B: &mut db,
            };
            program.run(args).unwrap();
        }
        assert_eq!((device.counters() - before).graph_launches, 0);
        program.set_graphs(true);
        // More distinct keys than a context keeps (8): every call is right,
        // and a key seen again after being pushed out starts over.
        for round in 0..2 {
            for t in 1..=12usize {
                da.copy_from_slice(&initial(n)).unwrap();
                db.copy_from_slice(&vec![0.0; n]).unwrap();
                let args = TimeLoopArgs {
                    N: n as i64,
                    T: t as i64,
                    A: &mut da,
                    B: &mut db,
                };
                program.run(args).unwrap();
                let (mut a, mut b) = (initial(n), vec![0.0; n]);
                time_loop_reference(&mut a, &mut b, t);
                assert_eq!(da.to_vec().unwrap(), a, "T = {t}, round {round}");
            }
        }
    }
}

sdfg! {
    /// Four kernels that fork onto two streams and join: one graph, whose
    /// edges come from the buffers.
    #[streams(auto)]
    pub sdfg Fork {
        symbol N: i64;
        gpu S: f64[N];
        gpu L: f64[N];
        gpu R: f64[N];
        gpu J: f64[N];
        state s {
            map src[i in 0..N] on gpu { S[i] = (i as f64) + 1.0; }
            map left[i in 0..N] on gpu { L[i] = 2.0 * S[i]; }
            map right[i in 0..N] on gpu { R[i] = 3.0 * S[i]; }
            map join[i in 0..N] on gpu { J[i] = L[i] + R[i]; }
        }
    }
}

#[test]
fn a_fork_across_streams_runs_as_one_graph() {
    for device in common::devices("graph fork") {
        let program = Fork::load(&device).unwrap();
        let n = 1000usize;
        let mut bufs: Vec<DeviceBuffer<f64>> = (0..4)
            .map(|_| DeviceBuffer::<f64>::zeros(&device, n).unwrap())
            .collect();
        let expected: Vec<f64> = (0..n).map(|i| 5.0 * (i as f64 + 1.0)).collect();
        for run in 0..4 {
            bufs[3].copy_from_slice(&vec![-1.0; n]).unwrap();
            let before = device.counters();
            let [s, l, r, j] = &mut bufs[..] else {
                unreachable!()
            };
            program
                .run(ForkArgs {
                    N: n as i64,
                    S: s,
                    L: l,
                    R: r,
                    J: j,
                })
                .unwrap();
            let counts = device.counters() - before;
            assert_eq!(
                bufs[3].to_vec().unwrap(),
                expected,
                "run {run} on {}",
                device.name()
            );
            let graphs = if run == 0 { 0 } else { 1 };
            assert_eq!(counts.graph_launches, graphs, "run {run}");
        }
    }
}

/// A loop whose condition the GPU computes, under a stream policy: the
/// state's kernels run in a conditional WHILE node, `R` and `it` reach the
/// host once after it, and the last state records `it` on the GPU.
macro_rules! halving_loop {
    ($name:ident, $args:ident, $policy:tt) => {
        sdfg! {
            #[streams $policy]
            pub sdfg $name {
                symbol N: i64; symbol MAXIT: i64;
                gpu X: f64[N];
                gpu RES: f64;
                gpu ITERS: i64;
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
                state done {
                    map count[i in 0..1] on gpu { ITERS = it; }
                }
                init -> step { it = 0 }
                step -> step if R > 1.0e-6 && it + 1 < MAXIT { it = it + 1 }
                step -> done;
            }
        }
    };
}

halving_loop!(HalveDefault, HalveDefaultArgs, (default));
halving_loop!(HalveSingle, HalveSingleArgs, (single));
halving_loop!(HalveTwo, HalveTwoArgs, (max(2)));
halving_loop!(HalveAuto, HalveAutoArgs, (auto));

/// Plain Rust: (x after the loop, iterations).
fn halving_reference(x0: &[f64], maxit: u64) -> (Vec<f64>, u64) {
    let mut x = x0.to_vec();
    let mut steps = 0u64;
    loop {
        x.iter_mut().for_each(|v| *v *= 0.5);
        steps += 1;
        let norm: f64 = x.iter().map(|v| v * v).sum();
        if !(norm > 1.0e-6 && steps < maxit) {
            return (x, steps);
        }
    }
}

#[test]
fn the_schedule_turns_a_loop_on_gpu_data_into_a_conditional_node() {
    assert_eq!(
        HalveAuto::GRAPH_PLAN[1],
        "state `step`: a conditional node (while loop decided on the gpu from `R`; copied to the host once after it)"
    );
    let (schedule, ir) = (HalveAuto::schedule().unwrap(), HalveAuto::ir().unwrap());
    use sdfg::compiler::schedule::graphs::LoopForm;
    assert_eq!(
        schedule.graphs.loop_form(&ir, 1),
        Some(LoopForm::Conditional)
    );
}

macro_rules! check_halving {
    ($name:ident, $args:ident, $device:expr) => {{
        let device: &Device = $device;
        let program = $name::load(device).unwrap();
        let x0: Vec<f64> = (0..256).map(|i| 1.0 + (i % 7) as f64).collect();
        let mut x = DeviceBuffer::from_slice(device, &x0).unwrap();
        let mut res = DeviceBuffer::<f64>::zeros(device, 1).unwrap();
        let mut iters = DeviceBuffer::<i64>::zeros(device, 1).unwrap();
        // 20 calls to convergence, then 5 stopped by MAXIT.
        for run in 0..25 {
            let maxit: u64 = if run < 20 { 1000 } else { 7 };
            x.copy_from_slice(&x0).unwrap();
            let before = device.counters();
            program
                .run($args {
                    N: x0.len() as i64,
                    MAXIT: maxit as i64,
                    X: &mut x,
                    RES: &mut res,
                    ITERS: &mut iters,
                })
                .unwrap();
            let counts = device.counters() - before;
            let (expected, steps) = halving_reference(&x0, maxit);
            let what = format!("{} run {run} on {}", stringify!($name), device.name());
            assert_eq!(x.to_vec().unwrap(), expected, "{what}");
            assert_eq!(iters.to_vec().unwrap(), [steps as i64 - 1], "{what}");
            if run == 0 || run == 20 {
                // A new key: on streams, one host wait per iteration.
                assert_eq!(counts.graph_launches, 0, "{what}");
                assert!(counts.host_syncs >= steps, "{what}: {counts:?}");
            } else {
                // The loop is one graph launch; the host waits only after
                // it (the residual and `it` come back once), not per
                // iteration.
                assert_eq!(
                    counts.graph_launches,
                    1,
                    "{what}: {:?}",
                    program.graph_notes()
                );
                assert!(steps > 5, "{what}");
                assert!(counts.host_syncs <= 3, "{what}: {counts:?}");
            }
        }
    }};
}

#[test]
fn a_loop_decided_on_the_gpu_needs_no_host_wait_per_iteration() {
    for device in common::devices("graph conditional loop") {
        check_halving!(HalveDefault, HalveDefaultArgs, &device);
        check_halving!(HalveSingle, HalveSingleArgs, &device);
        check_halving!(HalveTwo, HalveTwoArgs, &device);
        check_halving!(HalveAuto, HalveAutoArgs, &device);
    }
}

sdfg! {
    /// A captured loop, then data to the host: the segment ends where the
    /// host reads GPU data.
    #[streams(auto)]
    pub sdfg LoopThenHost {
        symbol N: i64; symbol T: i64;
        gpu A: f64[N];
        gpu B: f64[N];
        host H: f64[N];
        host SUM: f64[1];
        state init {}
        state step {
            map b[i in 1..N-1] on gpu { B[i] = 0.5 * (A[i - 1] + A[i + 1]); }
            map a[i in 1..N-1] on gpu { A[i] = 0.5 * (B[i - 1] + B[i + 1]); }
        }
        state fetch {
            copy A -> H;
            tasklet total { SUM[0] = H[1] + H[N - 2]; }
        }
        init -> step { t = 0 }
        step -> step if t + 1 < T { t = t + 1 }
        step -> fetch;
    }
}

#[test]
fn a_segment_ends_where_the_host_needs_gpu_data() {
    assert_eq!(
        LoopThenHost::GRAPH_PLAN[2],
        "state `fetch`: runs on streams: copy `A -> H` has a host end"
    );
    for device in common::devices("graph prefix") {
        let program = LoopThenHost::load(&device).unwrap();
        let (n, t) = (40usize, 9usize);
        let (mut a, mut b) = (initial(n), vec![0.0; n]);
        time_loop_reference(&mut a, &mut b, t);
        let mut da = DeviceBuffer::from_slice(&device, &initial(n)).unwrap();
        let mut db = DeviceBuffer::<f64>::zeros(&device, n).unwrap();
        for run in 0..4 {
            da.copy_from_slice(&initial(n)).unwrap();
            let (mut h, mut sum) = (vec![0.0; n], [0.0]);
            let before = device.counters();
            program
                .run(LoopThenHostArgs {
                    N: n as i64,
                    T: t as i64,
                    A: &mut da,
                    B: &mut db,
                    H: &mut h,
                    SUM: &mut sum,
                })
                .unwrap();
            let counts = device.counters() - before;
            assert_eq!(h, a, "run {run} on {}", device.name());
            assert_eq!(sum[0], a[1] + a[n - 2], "run {run}");
            assert_eq!(counts.graph_launches, u64::from(run > 0), "run {run}");
        }
    }
}

sdfg! {
    /// What the schedule refuses, one reason per state.
    #[streams(single)]
    pub sdfg Refusals {
        symbol N: i64;
        gpu G: f64[N];
        gpu GS: f64;
        host HS: f64;
        host HA: f64[N];
        transient host C: f64;
        state by_value {
            map scale[i in 0..N] on gpu { G[i] = G[i] * HS; }
        }
        state on_host {
            tasklet t { HA[0] = 1.0; }
        }
        state reads_host {
            map touch[i in 0..N] on gpu { G[i] = G[i] + 1.0; }
        }
        state loop_on_host_data {
            map inc[i in 0..N] on gpu { G[i] = G[i] + 1.0; }
        }
        state loop_uses_its_symbol {
            map set[i in 0..1] on gpu { GS = k as f64; }
            copy GS -> C;
        }
        state written_after_copy {
            map set2[i in 0..1] on gpu { GS = 1.0; }
            copy GS -> C;
            map again[i in 0..1] on gpu { GS = 2.0; }
        }
        state end {}
        by_value -> on_host;
        on_host -> reads_host;
        reads_host -> loop_on_host_data if HA[0] > 0.0;
        loop_on_host_data -> loop_on_host_data if HA[0] > 5.0;
        loop_on_host_data -> loop_uses_its_symbol { k = 0 }
        loop_uses_its_symbol -> loop_uses_its_symbol if C < 3.0 { k = k + 1 }
        loop_uses_its_symbol -> written_after_copy;
        written_after_copy -> written_after_copy if C < 0.0;
        written_after_copy -> end;
    }
}

#[test]
fn the_schedule_says_why_states_run_on_streams() {
    assert_eq!(
        Refusals::GRAPH_PLAN,
        [
            "state `by_value`: runs on streams: map `scale` reads the host scalar `HS` by value (host data is not part of a graph)",
            "state `on_host`: runs on streams: tasklet `t` runs on the host",
            "state `reads_host`: runs on streams: edge `reads_host -> loop_on_host_data` reads the host data `HA`",
            "state `loop_on_host_data`: runs on streams; its loop runs on the host: edge `loop_on_host_data -> loop_on_host_data` reads the host data `HA`",
            "state `loop_uses_its_symbol`: runs on streams; its loop runs on the host: the symbol `k` changes every iteration and the state's statements use it",
            "state `written_after_copy`: runs on streams; its loop runs on the host: `GS` is written after its copy to `C` in state `written_after_copy`",
            "state `end`: captured",
        ]
    );
}

// The same loop with `#[graph(off)]`: every call on streams.
common::fixtures::time_loop!(sdfg, TimeLoopOff, #[graph(off)]);

#[test]
fn graph_off_runs_every_call_on_streams() {
    assert_eq!(
        TimeLoopOff::GRAPH_PLAN,
        [
            "state `init`: runs on streams: `#[graph(off)]`",
            "state `step`: runs on streams; its loop runs on the host: `#[graph(off)]`",
            "state `done`: runs on streams: `#[graph(off)]`",
        ]
    );
    let device = Device::cpu();
    let program = TimeLoopOff::load(&device).unwrap();
    let n = 16usize;
    let mut da = DeviceBuffer::from_slice(&device, &initial(n)).unwrap();
    let mut db = DeviceBuffer::<f64>::zeros(&device, n).unwrap();
    let before = device.counters();
    for _ in 0..4 {
        let args = TimeLoopOffArgs {
            N: n as i64,
            T: 3,
            A: &mut da,
            B: &mut db,
        };
        program.run(args).unwrap();
    }
    let counts = device.counters() - before;
    assert_eq!((counts.graph_launches, counts.kernel_launches), (0, 24));
}

sdfg! {
    /// A loop whose map range depends on a symbol: out of bounds when K > 0,
    /// an error before the state's work (also while recording it).
    #[streams(single)]
    pub sdfg Bump {
        symbol N: i64; symbol K: i64; symbol T: i64;
        gpu A: f64[N];
        state init {}
        state step {
            map w[i in 0..K+N] on gpu { A[i] = A[i] + 1.0; }
        }
        state done {}
        init -> step { t = 0 }
        step -> step if t + 1 < T { t = t + 1 }
        step -> done;
    }
}

#[test]
fn an_error_while_recording_leaves_nothing_recorded() {
    for device in common::devices("graph error while recording") {
        let program = Bump::load(&device).unwrap();
        let n = 10usize;
        let mut a = DeviceBuffer::<f64>::zeros(&device, n).unwrap();
        for _ in 0..3 {
            let args = BumpArgs {
                N: n as i64,
                K: 1,
                T: 5,
                A: &mut a,
            };
            assert!(program.run(args).is_err());
        }
        // Nothing of this thread is recorded any more: plain stream work
        // runs, and the program's calls do their work.
        assert_eq!(a.to_vec().unwrap(), vec![0.0; n]);
        for run in 1..=4 {
            let args = BumpArgs {
                N: n as i64,
                K: 0,
                T: 5,
                A: &mut a,
            };
            program.run(args).unwrap();
            assert_eq!(a.to_vec().unwrap(), vec![5.0 * run as f64; n], "run {run}");
        }
    }
}

#[test]
fn a_segment_too_long_to_record_runs_on_streams() {
    // 2 kernels per step: 10,001 steps are more operations than one
    // recording holds (20,000); the call starts over on streams.
    let device = Device::cpu();
    let program = TimeLoop::load(&device).unwrap();
    let (n, t) = (8usize, 10_001usize);
    let (mut a, mut b) = (initial(n), vec![0.0; n]);
    time_loop_reference(&mut a, &mut b, t);
    let mut da = DeviceBuffer::from_slice(&device, &initial(n)).unwrap();
    let mut db = DeviceBuffer::<f64>::zeros(&device, n).unwrap();
    for run in 0..3 {
        da.copy_from_slice(&initial(n)).unwrap();
        db.copy_from_slice(&vec![0.0; n]).unwrap();
        let args = TimeLoopArgs {
            N: n as i64,
            T: t as i64,
            A: &mut da,
            B: &mut db,
        };
        let before = device.counters();
        program.run(args).unwrap();
        assert_eq!((device.counters() - before).graph_launches, 0, "run {run}");
        assert_eq!(da.to_vec().unwrap(), a, "run {run}");
    }
    let notes = program.graph_notes();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("more than 20000 operations")),
        "{notes:?}"
    );
}

#[test]
fn the_build_embeds_cubins_when_ptxas_is_at_hand() {
    if std::env::var("SDFG_REQUIRE_PTXAS").as_deref() == Ok("1") {
        assert!(
            !TimeLoop::CUBINS.is_empty(),
            "ptxas was required but nothing was embedded"
        );
        // The modules with the generated maps of a conditional node assemble.
        for (name, ptx) in [
            ("HalveDefault", HalveDefault::PTX),
            ("HalveSingle", HalveSingle::PTX),
            ("HalveTwo", HalveTwo::PTX),
            ("HalveAuto", HalveAuto::PTX),
        ] {
            assert!(ptx.contains("__graph_condition"), "{name}");
            let assembled = sdfg::compiler::codegen::ptx::ptxas::assemble_check(ptx);
            assert!(matches!(assembled, Ok(Some(_))), "{name}: {assembled:?}");
        }
        assert!(!HalveAuto::CUBINS.is_empty());
    }
    let program = TimeLoop::load(&Device::cpu()).unwrap();
    assert_eq!(
        program.module_origin(),
        sdfg::runtime::ModuleOrigin::CpuTwins
    );
}

sdfg! {
    /// The GUIDE's example (section 15), word for word.
    #[streams(auto)]
    pub sdfg GuideConverge {
        symbol N: i64;
        gpu X: f64[N];
        gpu RES: f64;
        transient pinned R: f64;
        state init {}
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
fn the_guides_plan_is_what_the_schedule_says() {
    assert_eq!(
        GuideConverge::GRAPH_PLAN,
        [
            "state `init`: captured",
            "state `step`: a conditional node (while loop decided on the gpu from `R`; copied to the host once after it)",
            "state `done`: captured",
        ]
    );
}

sdfg! {
    /// A captured loop whose read through an index array may leave `A`:
    /// a guarded access, reported through the call's fault slot.
    #[streams(single)]
    pub sdfg Gather {
        symbol N: i64; symbol T: i64;
        gpu A: f64[N];
        gpu IDX: i64[N];
        gpu B: f64[N];
        state init {}
        state step {
            map g[i in 0..N] on gpu { B[i] = A[IDX[i]] + 1.0; }
            map c[i in 0..N] on gpu { A[i] = B[i]; }
        }
        init -> step { t = 0 }
        step -> step if t + 1 < T { t = t + 1 }
    }
}

#[test]
fn a_fault_inside_a_graph_reaches_the_call_that_ran_it() {
    for device in common::devices("graph fault") {
        let program = Gather::load(&device).unwrap();
        let n = 16usize;
        let mut a = DeviceBuffer::<f64>::zeros(&device, n).unwrap();
        let mut b = DeviceBuffer::<f64>::zeros(&device, n).unwrap();
        let mut bad: Vec<i64> = (0..n as i64).collect();
        bad[3] = 99;
        let mut idx = DeviceBuffer::from_slice(&device, &bad).unwrap();
        for run in 0..4 {
            let before = device.counters();
            let args = GatherArgs {
                N: n as i64,
                T: 3,
                A: &mut a,
                IDX: &mut idx,
                B: &mut b,
            };
            let err = program.run(args).expect_err("index 99 is out of bounds");
            let text = err.to_string();
            assert!(
                text.contains("`A`") && text.contains("99"),
                "run {run}: {text}"
            );
            let graphs = (device.counters() - before).graph_launches;
            assert_eq!(graphs, u64::from(run > 0), "run {run}");
        }
        // The same graph with good indices: no fault, right values.
        idx.copy_from_slice(&(0..n as i64).collect::<Vec<_>>())
            .unwrap();
        a.copy_from_slice(&[0.0; 16]).unwrap();
        let args = GatherArgs {
            N: n as i64,
            T: 3,
            A: &mut a,
            IDX: &mut idx,
            B: &mut b,
        };
        program.run(args).unwrap();
        assert_eq!(a.to_vec().unwrap(), [3.0; 16]);
    }
}

sdfg! {
    /// Transients start every call at zero, also when the call is a graph:
    /// `ACC` sums `A` over a captured time loop, `CNT` counts the turns of a
    /// loop decided on the GPU. A call that saw the last call's values
    /// would give twice the sum, and stop its loop at once.
    #[streams(auto)]
    pub sdfg Transients {
        symbol N: i64; symbol T: i64; symbol K: i64;
        gpu A: f64[N];
        gpu SUM: f64[N];
        gpu TURNS: i64;
        transient gpu ACC: f64[N];
        transient gpu CNT: i64;
        transient pinned H: i64;
        state init {}
        state add {
            map acc[i in 0..N] on gpu { ACC[i] = ACC[i] + A[i]; }
        }
        state sum {
            map out[i in 0..N] on gpu { SUM[i] = ACC[i]; }
        }
        state count {
            map inc[i in 0..1] on gpu { CNT = CNT + 1; }
            copy CNT -> H;
        }
        state done {
            map out[i in 0..1] on gpu { TURNS = CNT; }
        }
        init -> add { t = 0 }
        add -> add if t + 1 < T { t = t + 1 }
        add -> sum;
        sum -> count;
        count -> count if H < K;
        count -> done;
    }
}

#[test]
fn transients_start_every_graph_call_at_zero() {
    assert_eq!(
        Transients::GRAPH_PLAN,
        [
            "state `init`: captured",
            "state `add`: captured; its loop is unrolled into the graph",
            "state `sum`: captured",
            "state `count`: a conditional node (while loop decided on the gpu from `H`; copied to the host once after it)",
            "state `done`: captured",
        ]
    );
    for device in common::devices("graph transients") {
        let program = Transients::load(&device).unwrap();
        let (n, t, k) = (48usize, 6i64, 9i64);
        let a = initial(n);
        let mut da = DeviceBuffer::from_slice(&device, &a).unwrap();
        let mut sum = DeviceBuffer::<f64>::zeros(&device, n).unwrap();
        let mut turns = DeviceBuffer::<i64>::zeros(&device, 1).unwrap();
        let expected: Vec<f64> = a
            .iter()
            .map(|&x| (0..t).fold(0.0, |acc, _| acc + x))
            .collect();
        let mut graph_calls = 0;
        for run in 0..5 {
            let before = device.counters();
            program
                .run(TransientsArgs {
                    N: n as i64,
                    T: t,
                    K: k,
                    A: &mut da,
                    SUM: &mut sum,
                    TURNS: &mut turns,
                })
                .unwrap();
            let counts = device.counters() - before;
            let what = format!("run {run} on {}", device.name());
            assert_eq!(sum.to_vec().unwrap(), expected, "{what}");
            assert_eq!(turns.to_vec().unwrap(), [k], "{what}");
            graph_calls += usize::from(counts.graph_launches > 0);
        }
        // The first call runs on streams, every later one replays its graph.
        assert_eq!(graph_calls, 4, "{:?}", program.graph_notes());
    }
}

sdfg! {
    /// Block maps (with dynamic shared memory) and a GPU tasklet in a
    /// captured time loop: each step reverses every row of `A` through a
    /// shared tile, and the tasklet counts the steps in `STEPS`.
    #[streams(single)]
    pub sdfg BlockLoop {
        symbol R: i64; symbol C: i64; symbol T: i64;
        gpu A: f64[R, C];
        gpu STEPS: i64;
        state init {}
        state step {
            map rev[r in 0..R] on gpu block(64) {
                shared tile: f64[C];
                map load[c in 0..C] on threads { tile[c] = A[r, c]; }
                map store[c in 0..C] on threads { A[r, c] = tile[C - 1 - c] + 1.0; }
            }
            tasklet count on gpu { STEPS = STEPS + 1; }
        }
        state done {}
        init -> step { t = 0 }
        step -> step if t + 1 < T { t = t + 1 }
        step -> done;
    }
}

#[test]
fn block_maps_and_gpu_tasklets_replay_in_graphs() {
    assert_eq!(
        BlockLoop::GRAPH_PLAN,
        [
            "state `init`: captured",
            "state `step`: captured; its loop is unrolled into the graph",
            "state `done`: captured",
        ]
    );
    for device in common::devices("graph block maps") {
        let program = BlockLoop::load(&device).unwrap();
        let (rows, cols, t) = (5usize, 200usize, 7usize);
        let a0: Vec<f64> = (0..rows * cols).map(|i| (i % 13) as f64).collect();
        let mut expected = a0.clone();
        for _ in 0..t {
            for row in expected.chunks_mut(cols) {
                row.reverse();
                row.iter_mut().for_each(|x| *x += 1.0);
            }
        }
        let mut a = DeviceBuffer::from_slice(&device, &a0).unwrap();
        let mut steps = DeviceBuffer::<i64>::zeros(&device, 1).unwrap();
        for run in 0..4 {
            a.copy_from_slice(&a0).unwrap();
            steps.copy_from_slice(&[0]).unwrap();
            let before = device.counters();
            program
                .run(BlockLoopArgs {
                    R: rows as i64,
                    C: cols as i64,
                    T: t as i64,
                    A: &mut a,
                    STEPS: &mut steps,
                })
                .unwrap();
            let counts = device.counters() - before;
            let what = format!("run {run} on {}", device.name());
            assert_eq!(a.to_vec().unwrap(), expected, "{what}");
            assert_eq!(steps.to_vec().unwrap(), [t as i64], "{what}");
            assert_eq!(
                counts.graph_launches,
                u64::from(run > 0),
                "{what}: {:?}",
                program.graph_notes()
            );
        }
    }
}
