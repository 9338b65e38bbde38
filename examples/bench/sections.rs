//! The secondary sections: module load time (the PTX JIT and the module
//! cache) and registers and spills per kernel from `ptxas -v`. (The CPU
//! device against plain Rust is `cpu.rs`.)

use crate::baselines;
use crate::common::{wall_ms, AnyResult, Table};
use crate::kinds::Kind;
use crate::overhead::Tiny10;
use crate::{axpy, dot, gemm, heat3d, jacobi2d, softmax};
use sdfg::prelude::*;

/// Wall-clock ms of the first `Heat3d::load` on a fresh device (the PTX JIT
/// on a GPU) and of a second load on the same device (the module cache).
pub(crate) fn module_load(gpu: bool) -> AnyResult<(f64, f64)> {
    let fresh = if gpu { Device::gpu(0)? } else { Device::cpu() };
    let (first, first_ms) = wall_ms(|| heat3d::Heat3d::load(&fresh));
    first?;
    let (second, second_ms) = wall_ms(|| heat3d::Heat3d::load(&fresh));
    second?;
    Ok((first_ms, second_ms))
}

/// Registers and spills per kernel from `ptxas -v` (only when `SDFG_PTXAS`
/// names a ptxas binary).
pub(crate) fn ptxas_report(selected: &dyn Fn(Kind) -> bool) {
    if std::env::var_os("SDFG_PTXAS").is_none() {
        return;
    }
    use sdfg::compiler::codegen::ptx::ptxas;
    let modules: [(Option<Kind>, &str, &str); 13] = [
        (Some(Kind::Axpy), "Axpy", axpy::Axpy::PTX),
        (Some(Kind::Jacobi2d), "Jacobi2d", jacobi2d::Jacobi2d::PTX),
        (Some(Kind::Heat3d), "Heat3d", heat3d::Heat3d::PTX),
        (Some(Kind::DotBlocks), "BlockDot", dot::BlockDot::PTX),
        (
            Some(Kind::SoftmaxBlocks),
            "BlockSoftmaxRegisters",
            softmax::BlockSoftmaxRegisters::PTX,
        ),
        (Some(Kind::Gemm), "BlockGemm", gemm::BlockGemm::PTX),
        (
            Some(Kind::DotPartials),
            "DotPartials",
            dot::DotPartials::PTX,
        ),
        (Some(Kind::DotDirect), "DotDirect", dot::DotDirect::PTX),
        (
            Some(Kind::SoftmaxTwoPass),
            "SoftmaxTwoPass",
            softmax::SoftmaxTwoPass::PTX,
        ),
        (
            Some(Kind::SoftmaxOnline),
            "SoftmaxOnline",
            softmax::SoftmaxOnline::PTX,
        ),
        (
            Some(Kind::SoftmaxRows),
            "SoftmaxRows",
            softmax::SoftmaxRows::PTX,
        ),
        (None, "Tiny10", Tiny10::PTX),
        (None, "baselines.ptx", baselines::PTX),
    ];
    println!();
    println!("ptxas -arch=sm_90 -v (registers, spills, stack per kernel):");
    let mut t = Table::new(&["module", "kernel", "registers", "spill st/ld", "stack"]);
    for (kind, module, ptx) in modules {
        if kind.is_some_and(|k| !selected(k)) {
            continue;
        }
        match ptxas::assemble_check(ptx) {
            Ok(Some(log)) => {
                for u in ptxas::resource_usage(&log) {
                    t.row(vec![
                        module.into(),
                        u.function,
                        u.registers.to_string(),
                        format!("{}/{}", u.spill_stores, u.spill_loads),
                        u.stack_frame.to_string(),
                    ]);
                }
            }
            Ok(None) => {
                println!("  SDFG_PTXAS is set but ptxas did not run");
                return;
            }
            Err(e) => println!("  {module}: ptxas rejected it: {e}"),
        }
    }
    t.print();
}
