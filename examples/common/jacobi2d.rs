//! Polybench/NPBench jacobi-2d: a host-driven loop of two 5-point stencil maps.

use crate::common::{impl_two_grid_launch, AnyResult, Check, Launch, Options, TwoGrids, Workload};
use rayon::prelude::*;
use sdfg::prelude::*;

// DESIGN.md section 3: `TSTEPS` steps of B from A, then A from B (the
// SDFG is written once for the examples and the tests).
crate::common::fixtures::jacobi2d!(sdfg);

/// One sweep `dst = 0.2 * (5-point sum of src)` over the interior, in the
/// DSL's operation order (bit-exact); rows in parallel, each through slices
/// of its neighbours (bounds checks the compiler hoists: a vectorized loop).
pub fn sweep(n: usize, src: &[f64], dst: &mut [f64]) {
    let row = |i: usize| &src[i * n..][..n];
    dst.par_chunks_mut(n)
        .enumerate()
        .filter(|(i, _)| *i >= 1 && *i < n - 1)
        .for_each(|(i, out)| {
            let (c, down, up) = (row(i), row(i + 1), row(i - 1));
            for j in 1..n - 1 {
                out[j] = 0.2 * (c[j] + c[j - 1] + c[j + 1] + down[j] + up[j]);
            }
        });
}

/// The plain Rust (rayon) version of the loop nest.
pub fn jacobi2d_reference(n: usize, tsteps: usize, a: &mut [f64], b: &mut [f64]) {
    for _ in 0..tsteps {
        sweep(n, a, b);
        sweep(n, b, a);
    }
}

/// (N, TSTEPS) of the benchmark (Polybench/NPBench) and of `--small`.
pub const FULL: (usize, usize) = (2800, 1000);
pub const SMALL: (usize, usize) = (200, 20);
/// (N, TSTEPS) of the bandwidth-bound form the PTX issue measures (a 2-D
/// 5-point stencil on 8192^2 f64: 512 MiB per grid, far beyond L2, and
/// ~0.25 ms per sweep, so launches do not count) and of its `--small`.
#[allow(dead_code)] // the benchmark's stencil2d row
pub const WIDE: (usize, usize) = (8192, 5);
#[allow(dead_code)]
pub const WIDE_SMALL: (usize, usize) = (256, 2);

pub struct Jacobi2dWorkload {
    name: &'static str,
    program: Jacobi2d,
    grids: TwoGrids,
}

impl Jacobi2dWorkload {
    /// `--n` (default 2800; 200 small), `--tsteps` (default 1000; 20 small).
    pub fn new(device: &Device, opts: &Options, small: bool) -> AnyResult<Self> {
        let (n, tsteps) = if small { SMALL } else { FULL };
        let (n, tsteps): (usize, usize) = (opts.get("n", n), opts.get("tsteps", tsteps));
        Self::with_sizes(device, "jacobi2d", n, tsteps)
    }

    /// The workload at these sizes, reported as `name`.
    pub fn with_sizes(
        device: &Device,
        name: &'static str,
        n: usize,
        tsteps: usize,
    ) -> AnyResult<Self> {
        if n < 3 || tsteps < 1 {
            return Err("jacobi2d needs --n >= 3 and --tsteps >= 1".into());
        }
        Ok(Jacobi2dWorkload {
            name,
            program: Jacobi2d::load(device)?,
            grids: TwoGrids::new(device, n, tsteps, n * n)?,
        })
    }
}

impl_two_grid_launch!(Jacobi2dWorkload, Jacobi2dArgs);

impl Workload for Jacobi2dWorkload {
    fn name(&self) -> &'static str {
        self.name
    }
    fn sizes(&self) -> String {
        format!("N = {}, TSTEPS = {} (f64)", self.grids.n, self.grids.tsteps)
    }
    fn min_bytes(&self) -> f64 {
        // Per sweep: the source read once, the interior of the target written.
        let (n, inner) = (self.grids.n as f64, (self.grids.n - 2) as f64);
        2.0 * self.grids.tsteps as f64 * 8.0 * (n * n + inner * inner)
    }
    fn flops(&self) -> f64 {
        // 4 adds + 1 multiply per interior point per sweep.
        let inner = (self.grids.n - 2) as f64;
        2.0 * self.grids.tsteps as f64 * 5.0 * inner * inner
    }
    fn check(&mut self, seed: u64) -> AnyResult<Check> {
        self.grids.randomize(seed)?;
        self.run_call()?;
        self.grids.check(jacobi2d_reference)
    }
    fn time_once(&mut self, stream: &Stream) -> AnyResult<f64> {
        self.time_call(stream)
    }
    fn run_plain(&mut self) -> AnyResult<()> {
        self.run_call()
    }
    fn host_version_ms(&mut self) -> f64 {
        self.grids.reference_ms(jacobi2d_reference)
    }
}
