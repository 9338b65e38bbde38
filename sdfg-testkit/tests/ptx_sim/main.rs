//! Differential tests: generated PTX run on the `ptxsim` interpreter versus
//! the reference evaluator, from the same inputs (odd sizes and small grids
//! so grid-stride loops, partial tiles and every launch axis are exercised).
//!
//! One topic per module; they share the imports and the two helpers below.

mod arithmetic;
mod blocks;
mod bodies;
mod maps;
mod reductions;
mod rows;

use sdfg_compiler::codegen::ptx::generate;
use sdfg_compiler::ir::*;
use sdfg_testkit::builder::{e, local, map_param, s, SdfgBuilder};
use sdfg_testkit::examples::{axpy, stencil};
use sdfg_testkit::harness::{
    eval_map, same_value, simulate_map, simulate_map_atomics, simulate_map_fault, Data, SimFault,
};
use sdfg_testkit::randexpr::{is_exact, random_inputs, random_kernel, random_value, GenConfig};
use sdfg_testkit::rng::Rng;
use ScalarType::*;

/// Random contents for every container of `sdfg` with the given shapes.
fn fill(sdfg: &Sdfg, shapes: &[(ContainerId, Vec<usize>)], seed: u64) -> Data {
    let mut rng = Rng::new(seed);
    let mut d = Data::new();
    for (c, shape) in shapes {
        let ty = sdfg.containers[*c].elem;
        let n: usize = shape.iter().product();
        d.insert(
            *c,
            (
                shape.clone(),
                (0..n).map(|_| random_value(&mut rng, ty)).collect(),
            ),
        );
    }
    d
}

/// Runs map 0 both ways and compares every container element (exactly).
fn check(name: &str, sdfg: &Sdfg, symbols: &[Value], data: &Data, grids: &[[u32; 3]]) -> u32 {
    check_module(name, sdfg, &generate(sdfg), symbols, data, grids)
}

/// [`check`] with the kernels of `m` (generated from `sdfg`).
fn check_module(
    name: &str,
    sdfg: &Sdfg,
    m: &sdfg_compiler::codegen::ptx::PtxModule,
    symbols: &[Value],
    data: &Data,
    grids: &[[u32; 3]],
) -> u32 {
    let k = &m.kernels[0];
    let (want, want_fault) = eval_map(sdfg, k.state, k.stmt, symbols, data);
    let mut fault_word = 0;
    for &grid in grids {
        let (got, fault) = simulate_map(sdfg, m, 0, symbols, data, grid)
            .unwrap_or_else(|e| panic!("{name}: {e}\n{}", m.text));
        for (c, (_, w)) in &want {
            let g = &got[c].1;
            for (idx, (a, b)) in g.iter().zip(w).enumerate() {
                assert!(
                    same_value(*a, *b),
                    "{name} grid {grid:?}: container {} [{idx}]: ptx {a} vs eval {b}",
                    sdfg.containers[*c].name.text
                );
            }
        }
        assert_eq!(
            fault != 0,
            want_fault.is_some(),
            "{name}: fault word {fault} vs eval {want_fault:?}"
        );
        fault_word = fault;
    }
    fault_word
}
