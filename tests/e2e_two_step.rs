//! heat3d with both sweeps of a time step in one block kernel
//! (`heat3d_two_step!`): the same bits as the program of two maps per
//! step on the CPU device and on the GPU, for sizes whose tiles and chunks
//! end inside the grid and for odd and even step counts.

mod common;

use sdfg::prelude::*;

common::fixtures::heat3d!(sdfg, Heat3dSweeps);
common::fixtures::heat3d_two_step!(sdfg, Heat3dTwoStep, 8, 10);

fn initial(len: usize, seed: u64) -> Vec<f64> {
    (0..len)
        .map(|i| (((i as u64 * 2654435761 + seed) % 1000) as f64) / 999.0)
        .collect()
}

/// (A, B) after a call of either program from the same start.
fn run(device: &Device, n: usize, tsteps: i64, two_step: bool) -> (Vec<f64>, Vec<f64>) {
    let len = n * n * n;
    let mut a = DeviceBuffer::from_slice(device, &initial(len, 1)).unwrap();
    let mut b = DeviceBuffer::from_slice(device, &initial(len, 2)).unwrap();
    let (a_ref, b_ref) = (&mut a, &mut b);
    if two_step {
        Heat3dTwoStep::load(device)
            .unwrap()
            .run(Heat3dTwoStepArgs {
                N: n as i64,
                TSTEPS: tsteps,
                A: a_ref,
                B: b_ref,
            })
            .unwrap();
    } else {
        Heat3dSweeps::load(device)
            .unwrap()
            .run(Heat3dSweepsArgs {
                N: n as i64,
                TSTEPS: tsteps,
                A: a_ref,
                B: b_ref,
            })
            .unwrap();
    }
    (a.to_vec().unwrap(), b.to_vec().unwrap())
}

/// Both programs from the same start give the same bits, for each size.
fn assert_two_step_is_two_sweeps(device: &Device, sizes: &[(usize, i64)]) {
    for &(n, tsteps) in sizes {
        assert_eq!(
            run(device, n, tsteps, true),
            run(device, n, tsteps, false),
            "N = {n}, TSTEPS = {tsteps}"
        );
    }
}

#[test]
fn two_steps_per_kernel_equal_two_sweeps_bit_for_bit_on_the_cpu_device() {
    let sizes = [(3, 2), (5, 1), (9, 2), (9, 5), (20, 4), (35, 3), (45, 2)];
    assert_two_step_is_two_sweeps(&Device::cpu(), &sizes);
}

/// One step's kernel (A -> B and C) on the `ptxsim` interpreter, over two
/// CTAs (so each runs several tiles): what the GPU computes, checked
/// without one, against the CPU device's two sweeps.
#[test]
fn the_step_kernel_in_ptxsim_computes_two_sweeps() {
    use sdfg::compiler::ir::Value;
    use sdfg_testkit::harness::{simulate_map, Data};
    let ir = Heat3dTwoStep::ir().unwrap();
    let module = sdfg::compiler::codegen::ptx::generate(&ir);
    let n = 24;
    let len = n * n * n;
    let symbols: Vec<Value> = ir
        .symbols
        .iter()
        .map(|s| match s.name.text.as_str() {
            "N" => Value::I64(n as i64),
            "TSTEPS" => Value::I64(2),
            _ => Value::I64(1),
        })
        .collect();
    let kernel = module
        .kernels
        .iter()
        .position(|k| ir.states[k.state].name.text == "Step_s")
        .expect("the first step's kernel");
    let container = |name: &str| ir.container_by_name(name).unwrap();
    let values = |seed: u64| {
        (
            vec![n, n, n],
            initial(len, seed).into_iter().map(Value::F64).collect(),
        )
    };
    let mut data = Data::new();
    data.insert(container("A"), values(1));
    data.insert(container("B"), values(2));
    data.insert(container("C"), values(1));
    let (got, fault) = simulate_map(&ir, &module, kernel, &symbols, &data, [2, 1, 1]).unwrap();
    assert_eq!(fault, 0);
    let (want_a, want_b) = run(&Device::cpu(), n, 2, false);
    let as_f64 = |c: &str| -> Vec<f64> {
        got[&container(c)]
            .1
            .iter()
            .map(|v| match v {
                Value::F64(x) => *x,
                other => panic!("{other:?}"),
            })
            .collect()
    };
    assert_eq!(as_f64("C"), want_a, "the new A");
    assert_eq!(as_f64("B"), want_b);
}

/// The GPU runs the same bits (in the H200 pack with `SDFG_REQUIRE_GPU=1`):
/// odd and even step counts, chunks and tiles that end inside the grid,
/// and heat3d's own N = 120.
#[test]
fn gpu_two_steps_per_kernel_equal_two_sweeps_bit_for_bit() {
    let Some(gpu) = common::gpu_or_skip("gpu_two_steps_per_kernel") else {
        return;
    };
    let sizes = [(9, 5), (40, 7), (45, 2), (120, 4), (120, 5)];
    assert_two_step_is_two_sweeps(&gpu, &sizes);
}

/// The kernel of a step: one per call of `Step`, two barriers per plane
/// (the shared planes written, then read: the compiler's reasons are in
/// the PTX), `w` in registers, no `%`, no checked load of the source, and
/// the module assembles.
#[test]
fn each_step_is_one_block_kernel_with_two_barriers_per_plane() {
    let ptx = Heat3dTwoStep::PTX;
    let entries: Vec<&str> = ptx
        .lines()
        .filter(|l| l.starts_with(".visible .entry"))
        .collect();
    assert_eq!(entries.len(), 2, "{entries:?}");
    let first = &ptx[ptx.find(".visible .entry").unwrap()..];
    let kernel = &first[..first[1..].find(".visible .entry").unwrap()];
    assert_eq!(kernel.matches("bar.sync").count(), 2, "{kernel}");
    for reason in [
        "// barrier: `dplane` reads `Bs`, which `bplane` wrote",
        "// barrier: `bplane` reads `B`, which `dplane` wrote in the previous iteration of `for u`",
    ] {
        assert!(kernel.contains(reason), "{reason}\n{kernel}");
    }
    assert!(!kernel.contains("rem.s64"), "{kernel}");
    // Eight loads of the source, none checked in the kernel (the host
    // proved them); only the read of `B` on the boundary is.
    let loads: Vec<&str> = kernel
        .lines()
        .map(str::trim)
        .filter(|l| l.contains("ld.global"))
        .collect();
    assert_eq!(loads.len(), 9, "{loads:?}");
    assert_eq!(
        loads.iter().filter(|l| l.starts_with('@')).count(),
        1,
        "{loads:?}"
    );
    // w lives in registers: no thread-local memory.
    assert!(!ptx.contains(".local"), "{ptx}");
    if std::env::var("SDFG_REQUIRE_PTXAS").as_deref() == Ok("1") {
        let assembled = sdfg::compiler::codegen::ptx::ptxas::assemble_check(ptx);
        assert!(matches!(assembled, Ok(Some(_))), "{assembled:?}");
    }
}
