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

sdfg! {
    /// A time loop over symbols: each of its 2 T kernels reads what the
    /// one before it wrote.
    #[streams(single)]
    pub sdfg Chain {
        symbol N: i64; symbol T: i64;
        gpu A: f64[N];
        gpu B: f64[N];
        state init {}
        state step {
            map b[i in 1..N-1] on gpu { B[i] = 0.5 * (A[i - 1] + A[i + 1]); }
            map a[i in 1..N-1] on gpu { A[i] = 0.5 * (B[i - 1] + B[i + 1]); }
        }
        state done {}
        init -> step { t = 0 }
        step -> step if t + 1 < T { t = t + 1 }
        step -> done;
    }
}

/// `Chain` in plain Rust, in the kernels' operation order.
fn chain_reference(a: &mut [f64], b: &mut [f64], t: usize) {
    let n = a.len();
    for _ in 0..t {
        for i in 1..n - 1 {
            b[i] = 0.5 * (a[i - 1] + a[i + 1]);
        }
        for i in 1..n - 1 {
            a[i] = 0.5 * (b[i - 1] + b[i + 1]);
        }
    }
}

fn initial(n: usize) -> Vec<f64> {
    (0..n).map(|i| ((i * 37) % 11) as f64 - 3.0).collect()
}

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
        programmatic_chain(&device, graphs);
    }
}

fn programmatic_chain(device: &Device, graphs: bool) {
    let program = Chain::load(device).unwrap();
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
    let (n, t) = (1usize << 20, 20usize);
    let (mut a, mut b) = (initial(n), vec![0.0; n]);
    chain_reference(&mut a, &mut b, t);
    let mut da = DeviceBuffer::from_slice(device, &initial(n)).unwrap();
    let mut db = DeviceBuffer::<f64>::zeros(device, n).unwrap();
    for run in 0..6 {
        da.copy_from_slice(&initial(n)).unwrap();
        db.copy_from_slice(&vec![0.0; n]).unwrap();
        let before = device.counters();
        program
            .run(ChainArgs {
                N: n as i64,
                T: t as i64,
                A: &mut da,
                B: &mut db,
            })
            .unwrap();
        let launched = (device.counters() - before).graph_launches;
        assert_eq!(launched, u64::from(graphs && run > 0), "run {run}");
        assert!(da.to_vec().unwrap() == a, "A, run {run}, graphs {graphs}");
        assert!(db.to_vec().unwrap() == b, "B, run {run}, graphs {graphs}");
    }
}

/// The CPU device has no programmatic launches (its kernels are Rust
/// twins) and computes the same chain.
#[test]
fn the_cpu_device_launches_nothing_programmatically() {
    let device = Device::cpu();
    let program = Chain::load(&device).unwrap();
    assert!(!program.programmatic_launches());
    let (n, t) = (1000usize, 5usize);
    let (mut a, mut b) = (initial(n), vec![0.0; n]);
    chain_reference(&mut a, &mut b, t);
    let mut da = DeviceBuffer::from_slice(&device, &initial(n)).unwrap();
    let mut db = DeviceBuffer::<f64>::zeros(&device, n).unwrap();
    program
        .run(ChainArgs {
            N: n as i64,
            T: t as i64,
            A: &mut da,
            B: &mut db,
        })
        .unwrap();
    assert_eq!(da.to_vec().unwrap(), a);
    assert_eq!(db.to_vec().unwrap(), b);
}
