//! The compiler tests' SDFGs as source text, lowered by the real front end
//! (`sdfg_compiler::frontend_str`). The SDFGs themselves are written once,
//! in the facade's `tests/common/fixtures.rs` (what each one exercises is
//! said there); the facade's tests and the examples declare the same ones
//! with `sdfg!`.
#![allow(dead_code)]

#[path = "../../../tests/common/dace.rs"]
pub mod dace;
#[path = "../../../tests/common/fixtures.rs"]
mod fixtures;

use sdfg_compiler::ir::Sdfg;

/// Lowers `source` (the inside of an `sdfg! { ... }`); a front-end error
/// fails the test with every diagnostic.
pub fn lower(source: &str) -> Sdfg {
    match sdfg_compiler::frontend_str(source) {
        Ok(sdfg) => sdfg,
        Err(diags) => panic!("the front end rejected a test SDFG:\n{diags}\n{source}"),
    }
}

/// The sources, as `stringify!` spells the fixtures' tokens.
pub const REPRO: &str = fixtures::repro!(stringify, Repro, default);
pub const JACOBI2D: &str = fixtures::jacobi2d!(stringify);
pub const WCR_SUM: &str = fixtures::wcr_sum!(stringify);
pub const COPY_SUBSETS: &str = fixtures::copy_subsets!(stringify);
pub const CPU_ONLY: &str = fixtures::cpu_only!(stringify);
pub const LOOP_COND: &str = fixtures::loop_cond!(stringify);
pub const STREAMS: &str = fixtures::streams!(stringify);
pub const SEMANTICS: &str = fixtures::semantics!(stringify);
pub const REDUCTIONS2: &str = fixtures::reductions2!(stringify);
pub const MANUAL: &str = fixtures::manual!(stringify);
pub const NESTED_HOST: &str = fixtures::nested_host!(stringify);
pub const NESTED_GPU: &str = fixtures::nested_gpu!(stringify);
pub const BLOCK_SOFTMAX: &str = fixtures::block_softmax!(stringify);
pub const BLOCK_SOFTMAX_REGISTERS: &str = fixtures::block_softmax_registers!(stringify);
pub const BLOCK_DOT: &str = fixtures::block_dot!(stringify);
pub const BLOCK_GEMM: &str = fixtures::block_gemm!(stringify);
pub const BLOCK_FEATURES: &str = fixtures::block_features!(stringify);

/// The block-map SDFGs' sources.
pub const BLOCK_SOURCES: [&str; 5] = [
    BLOCK_SOFTMAX,
    BLOCK_SOFTMAX_REGISTERS,
    BLOCK_DOT,
    BLOCK_GEMM,
    BLOCK_FEATURES,
];

/// Every test SDFG's source.
pub const SOURCES: [&str; 12] = [
    REPRO,
    JACOBI2D,
    WCR_SUM,
    COPY_SUBSETS,
    CPU_ONLY,
    LOOP_COND,
    STREAMS,
    SEMANTICS,
    REDUCTIONS2,
    MANUAL,
    NESTED_HOST,
    NESTED_GPU,
];

/// Every test SDFG, lowered.
pub fn all() -> Vec<Sdfg> {
    SOURCES.into_iter().map(lower).collect()
}

pub fn repro() -> Sdfg {
    lower(REPRO)
}

pub fn jacobi2d() -> Sdfg {
    lower(JACOBI2D)
}

pub fn wcr_sum() -> Sdfg {
    lower(WCR_SUM)
}

pub fn copy_subsets() -> Sdfg {
    lower(COPY_SUBSETS)
}

pub fn cpu_only() -> Sdfg {
    lower(CPU_ONLY)
}

pub fn loop_cond() -> Sdfg {
    lower(LOOP_COND)
}

pub fn streams() -> Sdfg {
    lower(STREAMS)
}

pub fn semantics() -> Sdfg {
    lower(SEMANTICS)
}

pub fn reductions2() -> Sdfg {
    lower(REDUCTIONS2)
}

pub fn manual() -> Sdfg {
    lower(MANUAL)
}

pub fn nested_host() -> Sdfg {
    lower(NESTED_HOST)
}

pub fn nested_gpu() -> Sdfg {
    lower(NESTED_GPU)
}

/// Every block-map test SDFG, lowered.
pub fn block_maps() -> Vec<Sdfg> {
    BLOCK_SOURCES.into_iter().map(lower).collect()
}
