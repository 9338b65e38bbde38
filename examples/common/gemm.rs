//! C = A B in f32 with block maps (GUIDE section 14.5): 128 x 128 tiles of
//! C per block iteration, `shared` tiles of A and B per step of 16 in k
//! (the next step's tiles loaded into registers while this step computes),
//! an 8 x 8 `register` block of C per thread, `mul_add`. The program is the
//! `block_gemm` fixture of tests/common/fixtures.rs (the e2e tests run the
//! same one). M and N must be multiples of 128, K of 16.
//!
//! The check compares sampled elements of C with an f64 reference, in units
//! of the rounding-error bound of an f32 dot product of length K.

use crate::common::{
    call_program, random_f32, wall_ms, AnyResult, Call, Check, Launch, Options, Rng, Workload,
};
use rayon::prelude::*;
use sdfg::prelude::*;

crate::common::fixtures::block_gemm!(sdfg);

/// M = N = K of the benchmark and of `--small`.
pub const FULL: usize = 4096;
pub const SMALL: usize = 256;

/// Elements of C the check compares (all of them when C is smaller).
const SAMPLES: usize = 1 << 14;

pub struct GemmWorkload {
    program: BlockGemm,
    /// M, N, K.
    pub dims: [usize; 3],
    a: DeviceBuffer<f32>,
    b: DeviceBuffer<f32>,
    c: DeviceBuffer<f32>,
    host_a: Vec<f32>,
    host_b: Vec<f32>,
}

/// The sizes the block program takes: M and N multiples of 128, K of 16.
pub fn gemm_dims_ok([m, n, k]: [usize; 3]) -> Result<(), String> {
    if m == 0 || n == 0 || k == 0 || m % 128 != 0 || n % 128 != 0 || k % 16 != 0 {
        return Err(format!(
            "gemm: M and N must be positive multiples of 128 and K of 16 (got {m}, {n}, {k})"
        ));
    }
    Ok(())
}

/// Compares sampled elements of `got` (row-major `m x n`) with the f64
/// product of `a` (`m x k`) and `b` (`k x n`). Each element's error must
/// stay within `(k + 2) u sum_l |a_il b_lj|`, the bound of an f32 dot
/// product of length k (with or without fma, in any order); the check
/// reports the largest error in units of that bound. NaN (an element not
/// written) fails.
pub fn gemm_check(dims: [usize; 3], a: &[f32], b: &[f32], got: &[f32], seed: u64) -> Check {
    let [m, n, k] = dims;
    let samples: Vec<(usize, usize)> = if m * n <= SAMPLES {
        (0..m * n).map(|e| (e / n, e % n)).collect()
    } else {
        let mut rng = Rng::new(seed ^ 0x6E);
        (0..SAMPLES).map(|_| (rng.below(m), rng.below(n))).collect()
    };
    let u = f32::EPSILON as f64 / 2.0;
    let worst = samples
        .par_iter()
        .map(|&(i, j)| {
            let (mut exact, mut magnitude) = (0.0f64, 0.0f64);
            for l in 0..k {
                let t = a[i * k + l] as f64 * b[l * n + j] as f64;
                exact += t;
                magnitude += t.abs();
            }
            let g = got[i * n + j];
            if !g.is_finite() {
                return f64::INFINITY;
            }
            let bound = (k as f64 + 2.0) * u * magnitude + f64::MIN_POSITIVE;
            (g as f64 - exact).abs() / bound
        })
        .reduce(|| 0.0, f64::max);
    let mut check = Check::within("C (sampled; in units of (K+2) u sum|a b|)", worst, 1.0);
    check.detail = format!("{} of {} elements; {}", samples.len(), m * n, check.detail);
    check
}

/// The plain Rust (rayon) version: rows of C in parallel, i-l-j loops with
/// `mul_add` (the same roundings as the block program per element). Where
/// the CPU has FMA it runs a copy compiled for it, as the CPU device's twin
/// of the block program does (`sdfg::runtime` chooses the same way), so the
/// comparison is between the same instructions, not between an FMA and a
/// call into libm's `fmaf`.
pub fn gemm_rayon(dims: [usize; 3], a: &[f32], b: &[f32], c: &mut [f32]) {
    // The loops, written once for the two copies (a closure takes the
    // target features of the function it is written in, not of the one
    // it is inlined into).
    macro_rules! rows {
        ($dims:expr, $a:expr, $b:expr, $c:expr) => {{
            let ([_, n, k], a, b): ([usize; 3], &[f32], &[f32]) = ($dims, $a, $b);
            $c.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
                row.iter_mut().for_each(|x| *x = 0.0);
                for l in 0..k {
                    let ail = a[i * k + l];
                    for (x, &blj) in row.iter_mut().zip(&b[l * n..(l + 1) * n]) {
                        *x = ail.mul_add(blj, *x);
                    }
                }
            })
        }};
    }
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "fma")]
        unsafe fn with_fma(dims: [usize; 3], a: &[f32], b: &[f32], c: &mut [f32]) {
            rows!(dims, a, b, c)
        }
        if sdfg::runtime::cpu_fma() {
            // SAFETY: the CPU executes FMA (`cpu_fma` checked it).
            return unsafe { with_fma(dims, a, b, c) };
        }
    }
    rows!(dims, a, b, c)
}

impl GemmWorkload {
    /// `--m`, `--n`, `--k` (default 4096 each, 256 small).
    pub fn new(device: &Device, opts: &Options, small: bool) -> AnyResult<Self> {
        let side = if small { SMALL } else { FULL };
        let dims = [
            opts.get("m", side),
            opts.get("n", side),
            opts.get("k", side),
        ];
        gemm_dims_ok(dims)?;
        let [m, n, k] = dims;
        let (host_a, host_b) = (random_f32(m * k, 1), random_f32(k * n, 2));
        Ok(GemmWorkload {
            program: BlockGemm::load(device)?,
            dims,
            a: DeviceBuffer::from_slice(device, &host_a)?,
            b: DeviceBuffer::from_slice(device, &host_b)?,
            c: DeviceBuffer::from_slice(device, &vec![f32::NAN; m * n])?,
            host_a,
            host_b,
        })
    }
}

impl Launch for GemmWorkload {
    fn launch<R>(
        &mut self,
        call: Call<'_>,
        then: impl FnOnce(Running<'_>) -> sdfg::runtime::Result<R>,
    ) -> sdfg::runtime::Result<Option<R>> {
        let [m, n, k] = self.dims.map(|d| d as i64);
        let args = BlockGemmArgs {
            M: m,
            N: n,
            K: k,
            A: &self.a,
            B: &self.b,
            C: &mut self.c,
        };
        let running = call_program!(self.program, call, args)?;
        running.map(then).transpose()
    }
}

impl Workload for GemmWorkload {
    fn name(&self) -> &'static str {
        "gemm (blocks)"
    }
    fn sizes(&self) -> String {
        let [m, n, k] = self.dims;
        format!("M = {m}, N = {n}, K = {k} f32; 128 x 128 tiles, 8 x 8 per thread, prefetch")
    }
    fn min_bytes(&self) -> f64 {
        let [m, n, k] = self.dims.map(|d| d as f64);
        4.0 * (m * k + k * n + m * n)
    }
    fn flops(&self) -> f64 {
        let [m, n, k] = self.dims.map(|d| d as f64);
        2.0 * m * n * k
    }
    fn check(&mut self, seed: u64) -> AnyResult<Check> {
        let [m, n, k] = self.dims;
        self.host_a = random_f32(m * k, seed ^ 1);
        self.host_b = random_f32(k * n, seed ^ 2);
        self.a.copy_from_slice(&self.host_a)?;
        self.b.copy_from_slice(&self.host_b)?;
        self.c.copy_from_slice(&vec![f32::NAN; m * n])?; // poison
        self.run_plain()?;
        let got = self.c.to_vec()?;
        Ok(gemm_check(
            self.dims,
            &self.host_a,
            &self.host_b,
            &got,
            seed,
        ))
    }
    fn time_once(&mut self, stream: &Stream) -> AnyResult<f64> {
        self.time_call(stream)
    }
    fn run_plain(&mut self) -> AnyResult<()> {
        self.run_call()
    }
    fn set_graphs(&mut self, on: bool) {
        self.program.set_graphs(on)
    }
    fn host_version_ms(&mut self) -> f64 {
        let [m, n, _] = self.dims;
        let mut c = vec![0.0f32; m * n];
        let (a, b, dims) = (&self.host_a, &self.host_b, self.dims);
        wall_ms(|| gemm_rayon(dims, a, b, &mut c)).1
    }
}
