//! The acceptance list of issue 17: NPBench kernels (github.com/spcl/npbench)
//! written in the DSL from their NumPy definitions, one module each in
//! `tests/npbench/`. Each runs on the CPU device (and on the GPU when there
//! is one) at a small size and is compared with a plain-Rust reference that
//! spells out the NumPy code's operations in its order: bit for bit where
//! the order of every floating-point operation is fixed, within a relative
//! bound where a parallel reduction sums in any order. Each module's doc
//! says which NumPy lines it follows and which language feature would make
//! it shorter; docs/NPBENCH.md counts the lines.

mod common;

#[path = "npbench/arrays.rs"]
mod arrays;

#[path = "npbench/arc_distance.rs"]
mod arc_distance;
#[path = "npbench/atax.rs"]
mod atax;
#[path = "npbench/azimint_naive.rs"]
mod azimint_naive;
#[path = "npbench/cholesky.rs"]
mod cholesky;
#[path = "npbench/covariance.rs"]
mod covariance;
#[path = "npbench/crc16.rs"]
mod crc16;
#[path = "npbench/floyd_warshall.rs"]
mod floyd_warshall;
#[path = "npbench/gemm.rs"]
mod gemm;
#[path = "npbench/jacobi_2d.rs"]
mod jacobi_2d;
#[path = "npbench/lu.rs"]
mod lu;
#[path = "npbench/mandelbrot1.rs"]
mod mandelbrot1;
#[path = "npbench/nbody.rs"]
mod nbody;
#[path = "npbench/seidel_2d.rs"]
mod seidel_2d;
