//! Polybench/NPBench jacobi-2d: a host-driven loop of two 5-point stencil maps.

use crate::common::{
    bit_mismatch, device_time_ms, end_after, f64_bits, random_f64, wall_ms, AnyResult, Check,
    Options, Workload,
};
use rayon::prelude::*;
use sdfg::prelude::*;

// DESIGN.md section 3: `TSTEPS` steps of B from A, then A from B (the
// SDFG is written once for the examples and the tests).
crate::common::fixtures::jacobi2d!(sdfg);

/// One sweep `dst = 0.2 * (5-point sum of src)` over the interior, in the
/// DSL's operation order (bit-exact); rows in parallel.
pub fn sweep(n: usize, src: &[f64], dst: &mut [f64]) {
    dst.par_chunks_mut(n)
        .enumerate()
        .filter(|(i, _)| *i >= 1 && *i < n - 1)
        .for_each(|(i, row)| {
            for j in 1..n - 1 {
                row[j] = 0.2
                    * (src[i * n + j]
                        + src[i * n + j - 1]
                        + src[i * n + j + 1]
                        + src[(i + 1) * n + j]
                        + src[(i - 1) * n + j]);
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
    pub n: usize,
    pub tsteps: usize,
    a: DeviceBuffer<f64>,
    b: DeviceBuffer<f64>,
    host_a: Vec<f64>,
    host_b: Vec<f64>,
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
        let host_a = random_f64(n * n, 1);
        let host_b = random_f64(n * n, 2);
        Ok(Jacobi2dWorkload {
            name,
            program: Jacobi2d::load(device)?,
            n,
            tsteps,
            a: DeviceBuffer::from_slice(device, &host_a)?,
            b: DeviceBuffer::from_slice(device, &host_b)?,
            host_a,
            host_b,
        })
    }
}

impl Workload for Jacobi2dWorkload {
    fn name(&self) -> &'static str {
        self.name
    }
    fn sizes(&self) -> String {
        format!("N = {}, TSTEPS = {} (f64)", self.n, self.tsteps)
    }
    fn min_bytes(&self) -> f64 {
        // Per sweep: the source read once, the interior of the target written.
        let (n, inner) = (self.n as f64, (self.n - 2) as f64);
        2.0 * self.tsteps as f64 * 8.0 * (n * n + inner * inner)
    }
    fn flops(&self) -> f64 {
        // 4 adds + 1 multiply per interior point per sweep.
        2.0 * self.tsteps as f64 * 5.0 * ((self.n - 2) * (self.n - 2)) as f64
    }
    fn check(&mut self, seed: u64) -> AnyResult<Check> {
        // Random A and B: B's boundary is read by the second sweep, and its
        // interior must be overwritten (random values are the poison).
        self.host_a = random_f64(self.n * self.n, seed ^ 1);
        self.host_b = random_f64(self.n * self.n, seed ^ 2);
        self.a.copy_from_slice(&self.host_a)?;
        self.b.copy_from_slice(&self.host_b)?;
        self.run_plain()?;
        let (got_a, got_b) = (self.a.to_vec()?, self.b.to_vec()?);
        let (mut want_a, mut want_b) = (self.host_a.clone(), self.host_b.clone());
        jacobi2d_reference(self.n, self.tsteps, &mut want_a, &mut want_b);
        let mismatch = bit_mismatch("A", &got_a, &want_a, f64_bits)
            .or_else(|| bit_mismatch("B", &got_b, &want_b, f64_bits));
        Ok(Check::bit_exact("A and B", mismatch, 2 * self.n * self.n))
    }
    fn time_once(&mut self, stream: &Stream) -> AnyResult<f64> {
        let (program, n, tsteps) = (&self.program, self.n as i64, self.tsteps as i64);
        let (a, b) = (&mut self.a, &mut self.b);
        Ok(device_time_ms(stream, |s| {
            let args = Jacobi2dArgs {
                N: n,
                TSTEPS: tsteps,
                A: a,
                B: b,
            };
            end_after(s, program.launch_on(s, args)?)
        })?)
    }
    fn run_plain(&mut self) -> AnyResult<()> {
        self.program.run(Jacobi2dArgs {
            N: self.n as i64,
            TSTEPS: self.tsteps as i64,
            A: &mut self.a,
            B: &mut self.b,
        })?;
        Ok(())
    }
    fn host_version_ms(&mut self) -> f64 {
        let (n, t) = (self.n, self.tsteps);
        let (a, b) = (&mut self.host_a, &mut self.host_b);
        wall_ms(|| jacobi2d_reference(n, t, a, b)).1
    }
}
