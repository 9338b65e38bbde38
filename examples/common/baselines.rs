//! The hand-written PTX baselines (baselines.ptx) launched through raw
//! cudarc, and cuBLAS SGEMM for gemm: each checked on fresh random inputs
//! against the same plain Rust reference as the SDFG version, then timed
//! with driver events.

use crate::axpy::axpy_reference;
use crate::common::{bit_mismatch, f32_bits, f64_bits, median_ms, random_f32, random_f64, Check};
use crate::cublas::Cublas;
use crate::dot::dot_check;
use crate::gemm::{gemm_check, gemm_dims_ok};
use crate::heat3d::heat3d_reference;
use crate::jacobi2d::jacobi2d_reference;
use crate::raw::{arg, RawBuffer, RawCuda, RawModule, RawResult};
use crate::softmax::{softmax_check, softmax_input};
use cudarc::driver::sys::CUfunction;

pub const PTX: &str = include_str!("baselines.ptx");

/// A baseline's checked run and its median time.
pub struct BaselineResult {
    pub ms: f64,
    pub check: Check,
}

/// How often to run: untimed warm-up calls, then timed ones.
#[derive(Clone, Copy)]
pub struct Reps {
    pub warmup: usize,
    pub timed: usize,
}

pub struct Baselines<'a> {
    cuda: &'a RawCuda,
    module: RawModule,
    seed: u64,
}

/// (grid, block) of a launch.
type Geometry = ((u32, u32, u32), (u32, u32, u32));

fn ceil_div(a: usize, b: usize) -> u32 {
    a.div_ceil(b) as u32
}

impl<'a> Baselines<'a> {
    pub fn new(cuda: &'a RawCuda, seed: u64) -> RawResult<Self> {
        Ok(Baselines {
            module: cuda.load_module(PTX)?,
            cuda,
            seed,
        })
    }

    fn timed(&self, reps: Reps, mut issue: impl FnMut() -> RawResult<()>) -> RawResult<f64> {
        let ms = median_ms(reps.warmup, reps.timed, || {
            Ok(self.cuda.time_ms(&mut issue)?)
        })
        .map_err(|e| e.to_string())?;
        Ok(ms)
    }

    /// Grid-stride kernels: enough 256-thread blocks to fill every SM
    /// (2048 threads each), fewer when there is less work.
    fn grid_stride_blocks(&self, items: usize) -> u32 {
        ceil_div(items, 256).clamp(1, self.cuda.sm_count * 8)
    }

    pub fn axpy(&self, n: usize, reps: Reps) -> RawResult<BaselineResult> {
        let f = self.module.function("axpy_f32")?;
        let (x0, y0) = (random_f32(n, self.seed ^ 11), random_f32(n, self.seed ^ 12));
        let a = 1.25f32;
        let (x, y) = (self.cuda.upload(&x0)?, self.cuda.upload(&y0)?);
        let grid = self.grid_stride_blocks(n / 4);
        let launch = || -> RawResult<()> {
            let (mut px, mut py, mut pa, mut pn) = (x.ptr, y.ptr, a, n as u64);
            let mut params = [arg(&mut px), arg(&mut py), arg(&mut pa), arg(&mut pn)];
            // SAFETY: the parameters match axpy_f32; x and y hold n f32s.
            unsafe { self.cuda.launch(f, (grid, 1, 1), (256, 1, 1), &mut params) }
        };
        launch()?;
        let got: Vec<f32> = self.cuda.download(&y)?;
        let mut want = y0;
        axpy_reference(a, &x0, &mut want);
        let check = Check::bit_exact("Y", bit_mismatch("Y", &got, &want, f32_bits), n);
        let ms = self.timed(reps, launch)?;
        Ok(BaselineResult { ms, check })
    }

    /// `sweeps` alternating launches of a stencil kernel (src -> dst, then
    /// dst -> src), as one timed region.
    fn stencil_sweeps(
        &self,
        f: CUfunction,
        a: &RawBuffer,
        b: &RawBuffer,
        n: usize,
        steps: usize,
        (grid, block): Geometry,
    ) -> RawResult<()> {
        for _ in 0..steps {
            for (src, dst) in [(a, b), (b, a)] {
                let (mut ps, mut pd, mut pn) = (src.ptr, dst.ptr, n as u64);
                let mut params = [arg(&mut ps), arg(&mut pd), arg(&mut pn)];
                // SAFETY: the parameters match the stencil kernels; both
                // buffers hold the whole grid, and the grid covers at most
                // the interior (the kernel checks its bounds).
                unsafe { self.cuda.launch(f, grid, block, &mut params) }?;
            }
        }
        Ok(())
    }

    pub fn jacobi2d(&self, n: usize, tsteps: usize, reps: Reps) -> RawResult<BaselineResult> {
        let f = self.module.function("jacobi2d_f64")?;
        let (a0, b0) = (
            random_f64(n * n, self.seed ^ 21),
            random_f64(n * n, self.seed ^ 22),
        );
        let (a, b) = (self.cuda.upload(&a0)?, self.cuda.upload(&b0)?);
        let inner = n - 2;
        let geometry = ((ceil_div(inner, 32), ceil_div(inner, 8), 1), (32, 8, 1));
        self.stencil_sweeps(f, &a, &b, n, tsteps, geometry)?;
        let (got_a, got_b): (Vec<f64>, Vec<f64>) =
            (self.cuda.download(&a)?, self.cuda.download(&b)?);
        let (mut want_a, mut want_b) = (a0, b0);
        jacobi2d_reference(n, tsteps, &mut want_a, &mut want_b);
        let mismatch = bit_mismatch("A", &got_a, &want_a, f64_bits)
            .or_else(|| bit_mismatch("B", &got_b, &want_b, f64_bits));
        let check = Check::bit_exact("A and B", mismatch, 2 * n * n);
        let ms = self.timed(reps, || self.stencil_sweeps(f, &a, &b, n, tsteps, geometry))?;
        Ok(BaselineResult { ms, check })
    }

    /// NPBench heat_3d: `tsteps - 1` steps.
    pub fn heat3d(&self, n: usize, tsteps: usize, reps: Reps) -> RawResult<BaselineResult> {
        let f = self.module.function("heat3d_f64")?;
        let len = n * n * n;
        let (a0, b0) = (
            random_f64(len, self.seed ^ 31),
            random_f64(len, self.seed ^ 32),
        );
        let (a, b) = (self.cuda.upload(&a0)?, self.cuda.upload(&b0)?);
        let inner = n - 2;
        let geometry = (
            (ceil_div(inner, 32), ceil_div(inner, 8), inner as u32),
            (32, 8, 1),
        );
        let steps = tsteps - 1;
        self.stencil_sweeps(f, &a, &b, n, steps, geometry)?;
        let (got_a, got_b): (Vec<f64>, Vec<f64>) =
            (self.cuda.download(&a)?, self.cuda.download(&b)?);
        let (mut want_a, mut want_b) = (a0, b0);
        heat3d_reference(n, tsteps, &mut want_a, &mut want_b);
        let mismatch = bit_mismatch("A", &got_a, &want_a, f64_bits)
            .or_else(|| bit_mismatch("B", &got_b, &want_b, f64_bits));
        let check = Check::bit_exact("A and B", mismatch, 2 * len);
        let ms = self.timed(reps, || self.stencil_sweeps(f, &a, &b, n, steps, geometry))?;
        Ok(BaselineResult { ms, check })
    }

    pub fn dot(&self, n: usize, reps: Reps) -> RawResult<BaselineResult> {
        let f = self.module.function("dot_f32")?;
        let (x0, y0) = (random_f32(n, self.seed ^ 41), random_f32(n, self.seed ^ 42));
        let s0 = -0.75f32;
        let (x, y, s) = (
            self.cuda.upload(&x0)?,
            self.cuda.upload(&y0)?,
            self.cuda.upload(&[s0])?,
        );
        let grid = self.grid_stride_blocks(n / 4);
        let launch = || -> RawResult<()> {
            let (mut px, mut py, mut ps, mut pn) = (x.ptr, y.ptr, s.ptr, n as u64);
            let mut params = [arg(&mut px), arg(&mut py), arg(&mut ps), arg(&mut pn)];
            // SAFETY: the parameters match dot_f32; x and y hold n f32s, s one.
            unsafe { self.cuda.launch(f, (grid, 1, 1), (256, 1, 1), &mut params) }
        };
        launch()?;
        let got: Vec<f32> = self.cuda.download(&s)?;
        let check = dot_check(&x0, &y0, s0, got[0]);
        let ms = self.timed(reps, launch)?;
        Ok(BaselineResult { ms, check })
    }

    /// `dims` = [N, H, SM]: rows of SM over N * H * SM rows.
    pub fn softmax(&self, dims: [usize; 3], reps: Reps) -> RawResult<BaselineResult> {
        let f = self.module.function("softmax_f32")?;
        let [n, h, sm] = dims;
        let rows = n * h * sm;
        let len = rows * sm;
        let x0 = softmax_input(len, self.seed ^ 51);
        let x = self.cuda.upload(&x0)?;
        let out = self.cuda.upload(&vec![f32::NAN; len])?; // poison
                                                           // 8 warps per block, one row per warp (grid-stride beyond 2^20 blocks).
        let grid = ceil_div(rows, 8).clamp(1, 1 << 20);
        let launch = || -> RawResult<()> {
            let (mut px, mut po, mut pr, mut ps) = (x.ptr, out.ptr, rows as u64, sm as u32);
            let mut params = [arg(&mut px), arg(&mut po), arg(&mut pr), arg(&mut ps)];
            // SAFETY: the parameters match softmax_f32; x and out hold
            // rows * sm f32s.
            unsafe { self.cuda.launch(f, (grid, 1, 1), (256, 1, 1), &mut params) }
        };
        launch()?;
        let got: Vec<f32> = self.cuda.download(&out)?;
        let check = softmax_check(sm, &x0, &got, 1);
        let ms = self.timed(reps, launch)?;
        Ok(BaselineResult { ms, check })
    }

    /// cuBLAS SGEMM (FP32, no tensor cores), `dims` = [M, N, K] row-major.
    pub fn gemm(&self, dims: [usize; 3], reps: Reps) -> RawResult<BaselineResult> {
        gemm_dims_ok(dims)?;
        let blas = Cublas::new(self.cuda)?;
        let [m, n, k] = dims;
        let (a0, b0) = (
            random_f32(m * k, self.seed ^ 61),
            random_f32(k * n, self.seed ^ 62),
        );
        let (a, b) = (self.cuda.upload(&a0)?, self.cuda.upload(&b0)?);
        let c = self.cuda.upload(&vec![f32::NAN; m * n])?; // poison
        blas.sgemm(m, n, k, &a, &b, &c)?;
        let got: Vec<f32> = self.cuda.download(&c)?;
        let mut check = gemm_check(dims, &a0, &b0, &got, self.seed);
        check.detail = format!("{} ({})", check.detail, blas.path);
        let ms = self.timed(reps, || blas.sgemm(m, n, k, &a, &b, &c))?;
        Ok(BaselineResult { ms, check })
    }
}
