//! Programmatic dependent launch (GUIDE section 15, "Programmatic
//! launches"): on a GPU of compute capability 9.0 or later that loaded the
//! embedded cubin, the kernels of a graph are linked by programmatic edges
//! and a kernel launched on a stream after another uses programmatic
//! stream serialization. Each kernel is then scheduled while the one before
//! it finishes, and waits (`griddepcontrol.wait`, its first instruction)
//! before it touches memory; these tests check that no dependency is lost.
//! The PTX side (the waits come before every access, ptxas takes the
//! `sm_90` text) is `sdfg-testkit/tests/ptx_ptxas.rs`.

mod common;

use sdfg::prelude::*;

common::fixtures::time_loop!(sdfg);

use common::{time_loop_initial as initial, time_loop_reference};

/// A chain of 2 x 20 kernels of many blocks each, where every kernel reads
/// what the one before it wrote, must give the reference bits on streams
/// and as a graph at every call: a kernel that read early would see the
/// previous step's values.
#[test]
fn programmatic_launches_keep_every_dependency() {
    let Some(device) = common::gpu_or_skip("programmatic launches") else {
        return;
    };
    for graphs in [true, false] {
        check_chain(&device, graphs, 1 << 20, 20, 6);
    }
}

/// The CPU device has no programmatic launches (its kernels are Rust
/// twins) and computes the same chain.
#[test]
fn the_cpu_device_launches_nothing_programmatically() {
    for graphs in [true, false] {
        check_chain(&Device::cpu(), graphs, 1000, 5, 3);
    }
}

/// Runs `TimeLoop` `runs` times on `device` (graphs on or off) and checks
/// that programmatic launches are on exactly where they can be, that the
/// second and later calls are one graph launch when graphs are on, and the
/// results bit for bit.
fn check_chain(device: &Device, graphs: bool, n: usize, t: usize, runs: usize) {
    let program = TimeLoop::load(device).unwrap();
    program.set_graphs(graphs);
    let embedded = program.module_origin() == sdfg::runtime::ModuleOrigin::EmbeddedCubin;
    let hopper = device
        .compute_capability()
        .is_some_and(|(major, _)| major >= 9);
    let switched_off = std::env::var("SDFG_PDL").is_ok_and(|v| v.trim() == "off");
    assert_eq!(
        program.programmatic_launches(),
        embedded && hopper && !switched_off,
        "origin {:?}, capability {:?}",
        program.module_origin(),
        device.compute_capability()
    );
    let (mut a, mut b) = (initial(n), vec![0.0; n]);
    time_loop_reference(&mut a, &mut b, t);
    let mut da = DeviceBuffer::from_slice(device, &initial(n)).unwrap();
    let mut db = DeviceBuffer::<f64>::zeros(device, n).unwrap();
    for run in 0..runs {
        da.copy_from_slice(&initial(n)).unwrap();
        db.copy_from_slice(&vec![0.0; n]).unwrap();
        let before = device.counters();
        program
            .run(TimeLoopArgs {
                N: n as i64,
                T: t as i64,
                A: &mut da,
                B: &mut db,
            })
            .unwrap();
        let launched = (device.counters() - before).graph_launches;
        let on = device.name();
        assert_eq!(launched, u64::from(graphs && run > 0), "run {run} on {on}");
        assert!(
            da.to_vec().unwrap() == a,
            "A, run {run}, graphs {graphs}, {on}"
        );
        assert!(
            db.to_vec().unwrap() == b,
            "B, run {run}, graphs {graphs}, {on}"
        );
    }
}
