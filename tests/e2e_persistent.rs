//! Persistent kernels (`#[persistent] state`): the loop of a state over
//! itself runs as one kernel, its maps as phases with grid-wide barriers.
//! Results equal the launch-by-launch program bit for bit on the CPU device
//! and on the GPU (one cooperative launch per call), the schedule says how
//! the state runs, and the PTX assembles.

mod common;

use sdfg::prelude::*;

// heat3d's loop (the fixture `examples/common/heat3d.rs` runs), once per form.
common::fixtures::heat3d!(sdfg, Heat3dStreams);
common::fixtures::heat3d!(sdfg, Heat3dPersistent, #[persistent]);

sdfg! {
    /// A persistent loop with a reduction, a 1-D stencil and a symbol the
    /// exit edge reads after the loop (`t` must hold its last value).
    pub sdfg Smooth {
        symbol N: i64; symbol T: i64;
        gpu X: f64[N];
        gpu Y: f64[N];
        gpu S: f64;
        gpu LAST: i64;
        state init {}
        #[persistent]
        state step {
            map y[i in 1..N-1] on gpu { Y[i] = 0.25 * X[i - 1] + 0.5 * X[i] + 0.25 * X[i + 1]; }
            map x[i in 1..N-1] on gpu { X[i] = Y[i]; }
            map s[i in 0..N] on gpu { S += X[i]; }
        }
        state done {
            map last[i in 0..1] on gpu { LAST = t; }
        }
        init -> step { t = 0 }
        step -> step if t + 1 < T { t = t + 1 }
        step -> done;
    }
}

sdfg! {
    /// A captured segment (four maps) runs into a persistent state: the
    /// segment ends there, the persistent kernel follows on streams.
    pub sdfg Segmented {
        symbol N: i64; symbol T: i64;
        gpu X: f64[N];
        gpu Y: f64[N];
        gpu Z: f64[N];
        state init {
            map x[i in 0..N] on gpu { X[i] = (i as f64) * 0.5; }
            map y[i in 0..N] on gpu { Y[i] = 1.0; }
            map z[i in 0..N] on gpu { Z[i] = X[i] + Y[i]; }
            map w[i in 0..N] on gpu { X[i] = Z[i] * 2.0; }
        }
        #[persistent]
        state step {
            map y2[i in 1..N-1] on gpu { Y[i] = 0.5 * (X[i - 1] + X[i + 1]); }
            map x2[i in 1..N-1] on gpu { X[i] = 0.5 * (Y[i - 1] + Y[i + 1]) + Z[i]; }
        }
        init -> step { t = 0 }
        step -> step if t + 1 < T { t = t + 1 }
    }
}

fn initial(len: usize, seed: u64) -> Vec<f64> {
    (0..len)
        .map(|i| (((i as u64 * 2654435761 + seed) % 1000) as f64) / 999.0)
        .collect()
}

fn run_heat3d(device: &Device, n: usize, tsteps: i64, persistent: bool) -> (Vec<f64>, Vec<f64>) {
    run_heat3d_with(device, n, tsteps, persistent, true)
}

/// `switch`: the persistent program's `set_persistent`.
fn run_heat3d_with(
    device: &Device,
    n: usize,
    tsteps: i64,
    persistent: bool,
    switch: bool,
) -> (Vec<f64>, Vec<f64>) {
    let len = n * n * n;
    let mut a = DeviceBuffer::from_slice(device, &initial(len, 1)).unwrap();
    let mut b = DeviceBuffer::from_slice(device, &initial(len, 2)).unwrap();
    if persistent {
        let program = Heat3dPersistent::load(device).unwrap();
        program.set_persistent(switch);
        run_persistent(&program, n, tsteps, &mut a, &mut b);
    } else {
        let program = Heat3dStreams::load(device).unwrap();
        program
            .run(Heat3dStreamsArgs {
                N: n as i64,
                TSTEPS: tsteps,
                A: &mut a,
                B: &mut b,
            })
            .unwrap();
    }
    (a.to_vec().unwrap(), b.to_vec().unwrap())
}

fn run_persistent(
    program: &Heat3dPersistent,
    n: usize,
    tsteps: i64,
    a: &mut DeviceBuffer<f64>,
    b: &mut DeviceBuffer<f64>,
) {
    program
        .run(Heat3dPersistentArgs {
            N: n as i64,
            TSTEPS: tsteps,
            A: a,
            B: b,
        })
        .unwrap();
}

#[test]
fn the_schedule_runs_the_state_as_a_persistent_kernel() {
    assert_eq!(
        Heat3dPersistent::GRAPH_PLAN[1],
        "state `step`: a persistent kernel (one cooperative launch runs every iteration of its loop: 2 phase(s), before each, each block waits for the blocks of its adjacent tiles where the phases' grid is resident at once, else a grid-wide barrier after each; launch by launch where the device has no cooperative launch)"
    );
    // A 1-D loop does not walk: its blocks meet grid-wide.
    assert!(
        Smooth::GRAPH_PLAN
            .iter()
            .any(|l| l.contains("phase(s), a grid-wide barrier after each;")),
        "{:?}",
        Smooth::GRAPH_PLAN
    );
    let schedule = Heat3dPersistent::schedule().unwrap();
    let ir = Heat3dPersistent::ir().unwrap();
    use sdfg::compiler::schedule::graphs::LoopForm;
    assert_eq!(
        schedule.graphs.loop_form(&ir, 1),
        Some(LoopForm::Persistent)
    );
    assert!(schedule.graphs.persistent(1).is_some());
    assert!(Heat3dStreams::schedule()
        .unwrap()
        .graphs
        .persistent(1)
        .is_none());
    // One entry more than the maps: the persistent kernel, with its barrier.
    assert!(Heat3dPersistent::PTX.contains(".visible .entry p_step("));
    assert!(Heat3dPersistent::PTX.contains("atom.acq_rel.gpu.global.add.u32"));
    assert!(!Heat3dStreams::PTX.contains("p_step"));
}

#[test]
fn the_persistent_kernel_assembles_and_reads_written_data_coherently() {
    let ptx = Heat3dPersistent::PTX;
    let entry = &ptx[ptx.find(".visible .entry p_step(").unwrap()..];
    // A and B are written by a phase: no non-coherent loads in the kernel.
    assert!(!entry.contains("ld.global.nc"), "{entry}");
    if std::env::var("SDFG_REQUIRE_PTXAS").as_deref() == Ok("1") {
        for (name, ptx) in [
            ("Heat3dPersistent", Heat3dPersistent::PTX),
            ("Smooth", Smooth::PTX),
        ] {
            let assembled = sdfg::compiler::codegen::ptx::ptxas::assemble_check(ptx);
            assert!(matches!(assembled, Ok(Some(_))), "{name}: {assembled:?}");
        }
    }
}

#[test]
fn heat3d_persistent_equals_the_streams_version_bit_for_bit_on_the_cpu_device() {
    let device = Device::cpu();
    for (n, tsteps) in [(6, 2), (9, 7), (12, 20), (5, 1)] {
        let before = device.counters();
        let persistent = run_heat3d(&device, n, tsteps, true);
        let launches = device.counters().kernel_launches - before.kernel_launches;
        let streams = run_heat3d(&device, n, tsteps, false);
        assert_eq!(persistent, streams, "N = {n}, TSTEPS = {tsteps}");
        // One launch for the whole loop (none when it never runs).
        assert_eq!(
            launches,
            u64::from(tsteps > 1),
            "N = {n}, TSTEPS = {tsteps}"
        );
    }
}

#[test]
fn a_graph_segment_ends_where_the_persistent_state_begins() {
    assert_eq!(Segmented::GRAPH_PLAN[0], "state `init`: captured");
    let device = Device::cpu();
    let n = 500;
    let program = Segmented::load(&device).unwrap();
    let mut results = Vec::new();
    for persistent in [false, true, true, true] {
        program.set_persistent(persistent);
        let mut x = DeviceBuffer::<f64>::zeros(&device, n).unwrap();
        let mut y = DeviceBuffer::<f64>::zeros(&device, n).unwrap();
        let mut z = DeviceBuffer::<f64>::zeros(&device, n).unwrap();
        let before = device.counters();
        program
            .run(SegmentedArgs {
                N: n as i64,
                T: 25,
                X: &mut x,
                Y: &mut y,
                Z: &mut z,
            })
            .unwrap();
        let counts = device.counters() - before;
        results.push((x.to_vec().unwrap(), y.to_vec().unwrap()));
        if persistent {
            // The segment: streams, then recorded and replayed as a graph.
            assert!(counts.kernel_launches <= 5, "{counts:?}");
        }
    }
    assert!(device.counters().graph_launches > 0);
    assert!(results.iter().all(|r| *r == results[0]));
}

#[test]
fn switched_off_the_persistent_state_runs_launch_by_launch_with_the_same_results() {
    let device = Device::cpu();
    let (n, tsteps) = (9, 7);
    let before = device.counters();
    let off = run_heat3d_with(&device, n, tsteps, true, false);
    let launches = device.counters().kernel_launches - before.kernel_launches;
    assert_eq!(launches, 2 * (tsteps as u64 - 1));
    assert_eq!(off, run_heat3d(&device, n, tsteps, true));
}

fn smooth_reference(x: &mut [f64], t: usize) -> (f64, i64) {
    let n = x.len();
    let mut y = vec![0.0; n];
    let mut s = 0.0;
    for _ in 0..t {
        for i in 1..n - 1 {
            y[i] = 0.25 * x[i - 1] + 0.5 * x[i] + 0.25 * x[i + 1];
        }
        x[1..n - 1].copy_from_slice(&y[1..n - 1]);
        // Integer-valued sums: exact in any order.
        s += x.iter().map(|v| v.floor()).sum::<f64>();
    }
    (s, t as i64 - 1)
}

fn run_smooth(device: &Device, n: usize, t: i64) -> (Vec<f64>, f64, i64) {
    let program = Smooth::load(device).unwrap();
    let x0: Vec<f64> = initial(n, 3).iter().map(|v| (v * 64.0).floor()).collect();
    let mut x = DeviceBuffer::from_slice(device, &x0).unwrap();
    let mut y = DeviceBuffer::<f64>::zeros(device, n).unwrap();
    let mut s = DeviceBuffer::<f64>::zeros(device, 1).unwrap();
    let mut last = DeviceBuffer::<i64>::zeros(device, 1).unwrap();
    program
        .run(SmoothArgs {
            N: n as i64,
            T: t,
            X: &mut x,
            Y: &mut y,
            S: &mut s,
            LAST: &mut last,
        })
        .unwrap();
    (
        x.to_vec().unwrap(),
        s.to_vec().unwrap()[0],
        last.to_vec().unwrap()[0],
    )
}

#[test]
fn a_persistent_loop_keeps_its_symbols_and_reductions_on_the_cpu_device() {
    let device = Device::cpu();
    let n = 300;
    for t in [1, 2, 17] {
        let (x, _, last) = run_smooth(&device, n, t);
        let mut reference: Vec<f64> = initial(n, 3).iter().map(|v| (v * 64.0).floor()).collect();
        smooth_reference(&mut reference, t as usize);
        assert_eq!(x, reference, "T = {t}");
        assert_eq!(last, t - 1, "T = {t}");
    }
}

/// One program, several calls: each launch must find its blocks' flags
/// at zero again (the kernel clears them as it ends), or a later call's
/// blocks would not wait for their neighbours.
#[test]
fn gpu_heat3d_persistent_calls_of_one_program_each_wait_for_their_neighbours() {
    let Some(gpu) = common::gpu_or_skip("gpu_heat3d_persistent_calls") else {
        return;
    };
    let program = Heat3dPersistent::load(&gpu).unwrap();
    for (n, tsteps) in [(40, 6), (40, 7), (120, 4), (9, 30), (120, 9)] {
        let len = n * n * n;
        let mut a = DeviceBuffer::from_slice(&gpu, &initial(len, 1)).unwrap();
        let mut b = DeviceBuffer::from_slice(&gpu, &initial(len, 2)).unwrap();
        run_persistent(&program, n, tsteps, &mut a, &mut b);
        let streams = run_heat3d(&gpu, n, tsteps, false);
        assert_eq!(
            (a.to_vec().unwrap(), b.to_vec().unwrap()),
            streams,
            "N = {n}, TSTEPS = {tsteps}"
        );
    }
}

#[test]
fn gpu_heat3d_persistent_is_one_launch_and_equals_the_streams_version() {
    let Some(gpu) = common::gpu_or_skip("gpu_heat3d_persistent") else {
        return;
    };
    // N = 9, 40, 120: the phases' grid is resident at once, so each block
    // waits for its neighbours alone; N = 200 (9900 blocks): the grid is
    // cut to the resident blocks, which meet grid-wide.
    for (n, tsteps) in [(9, 7), (40, 20), (120, 50), (200, 5)] {
        let before = gpu.counters();
        let persistent = run_heat3d(&gpu, n, tsteps, true);
        let launches = gpu.counters().kernel_launches - before.kernel_launches;
        let streams = run_heat3d(&gpu, n, tsteps, false);
        assert_eq!(persistent, streams, "N = {n}, TSTEPS = {tsteps}");
        // The H200 runs cooperative launches: one launch, and no note.
        assert_eq!(launches, 1, "N = {n}, TSTEPS = {tsteps}");
        let cpu = run_heat3d(&Device::cpu(), n.min(40), tsteps, true);
        let gpu_small = run_heat3d(&gpu, n.min(40), tsteps, true);
        assert_eq!(
            cpu, gpu_small,
            "N = {n}, TSTEPS = {tsteps}: cpu device vs gpu"
        );
    }
    let (x, _, last) = run_smooth(&gpu, 5000, 33);
    let (x_cpu, _, last_cpu) = run_smooth(&Device::cpu(), 5000, 33);
    assert_eq!((x, last), (x_cpu, last_cpu));
}

sdfg! {
    /// A gather in a persistent loop: an index outside `A` is a read fault
    /// of the map `gather`, reported by the call that ran it.
    pub sdfg GatherLoop {
        symbol N: i64; symbol M: i64; symbol T: i64;
        gpu A: i32[N];
        gpu IDX: i64[M];
        gpu B: i32[M];
        gpu C: i32[M];
        state init {}
        #[persistent]
        state step {
            map gather[i in 0..M] on gpu { B[i] = A[IDX[i]]; }
            map bump[i in 0..M] on gpu { C[i] = C[i] + B[i]; }
        }
        init -> step { t = 0 }
        step -> step if t + 1 < T { t = t + 1 }
    }
}

fn gather_loop(device: &Device, idx: &[i64]) -> (Result<(), Error>, Vec<i32>) {
    let program = GatherLoop::load(device).unwrap();
    let a = DeviceBuffer::from_slice(device, &[10, 11, 12, 13]).unwrap();
    let idx = DeviceBuffer::from_slice(device, idx).unwrap();
    let mut b = DeviceBuffer::<i32>::zeros(device, 3).unwrap();
    let mut c = DeviceBuffer::<i32>::zeros(device, 3).unwrap();
    let result = program.run(GatherLoopArgs {
        N: 4,
        M: 3,
        T: 5,
        A: &a,
        IDX: &idx,
        B: &mut b,
        C: &mut c,
    });
    (result, c.to_vec().unwrap())
}

fn faults_reach_the_call_and_name_the_map(device: &Device) {
    let (ok, c) = gather_loop(device, &[3, 1, 0]);
    ok.unwrap();
    assert_eq!(c, [65, 55, 50]);
    let (fault, c) = gather_loop(device, &[3, 16, 0]);
    match fault {
        Err(e @ Error::KernelFault { .. }) => assert_eq!(
            e.to_string(),
            "map `gather` in state `step`: the read of `A` at index 16 was out of bounds \
             and skipped (kernel `k_step_gather`)"
        ),
        other => panic!("expected the call's fault, got {other:?}"),
    }
    // The access was skipped (a read gives zero); the rest ran every step.
    assert_eq!(c, [65, 0, 50]);
}

#[test]
fn faults_of_a_phase_reach_the_call_and_name_the_map_on_the_cpu_device() {
    faults_reach_the_call_and_name_the_map(&Device::cpu());
}

#[test]
fn gpu_faults_of_a_phase_reach_the_call_and_name_the_map() {
    let Some(gpu) = common::gpu_or_skip("gpu_faults_of_a_phase") else {
        return;
    };
    faults_reach_the_call_and_name_the_map(&gpu);
}
