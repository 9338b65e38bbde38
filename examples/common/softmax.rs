//! NPBench softmax over the last axis of an f32 [N, H, SM, SM] tensor, in two
//! DSL forms.
//!
//! - `two-pass`: a 3-D map over the rows computes each row's
//!   max and sum of exp(x - max) with `for` loops into transient row buffers;
//!   then a 4-D elementwise map writes exp(x - max) / sum. The output pass,
//!   half of the minimum traffic, is coalesced (consecutive threads take
//!   consecutive elements); only the statistics pass walks rows per thread.
//! - `online`: like `two-pass`, but the statistics map reads each row once,
//!   keeping a running max and rescaling the running sum when the max grows
//!   (one exp per element, as before). The per-thread row walks, which no
//!   cache holds between two passes (every thread in flight walks its own
//!   2 KiB row), then read 1 GiB instead of 2: 3 GiB per call instead of 4.
//! - `rows`: one 3-D map over the rows with three `for` loops (max, sum,
//!   write). One kernel and no transients, but every pass, the writes
//!   included, walks a 2 KiB row per thread: neighbouring threads touch
//!   addresses 2 KiB apart (uncoalesced).
//!
//! - `blocks` (the default): one warp per row (a block map with blocks of
//!   32 threads, GUIDE section 14), for rows of 512. Each thread keeps 16 of
//!   the row's elements in registers (columns `q + 32 u`: each `u` is 128
//!   consecutive bytes across the warp), the row's max and sum are block
//!   reductions into `shared` scalars (warp shuffles), and the row is read
//!   from memory once and written once: the minimum traffic, coalesced,
//!   with one `exp` per element.
//!
//! Without block maps a row cannot be split across the threads of a block;
//! of the three flat forms, `online` is the best: like `two-pass`, its
//! output pass (half of the minimum traffic) is coalesced, which `rows`
//! cannot be, and it walks the rows once instead of twice. The benchmark
//! times all four on the GPU (docs/BENCHMARKS.md).

use crate::common::{
    call_program, random_f32, wall_ms, AnyResult, Call, Check, Launch, Options, Workload,
};
use rayon::prelude::*;
use sdfg::prelude::*;

sdfg! {
    /// Row statistics into transients, then an elementwise normalization.
    pub sdfg SoftmaxTwoPass {
        symbol N: i64; symbol H: i64; symbol SM: i64;
        gpu X: f32[N, H, SM, SM];
        gpu OUT: f32[N, H, SM, SM];
        transient gpu ROW_MAX: f32[N, H, SM];
        transient gpu ROW_SUM: f32[N, H, SM];
        state only {
            map stats[i in 0..N, j in 0..H, k in 0..SM] on gpu {
                let mut m = X[i, j, k, 0];
                for l in 1..SM {
                    m = m.max(X[i, j, k, l]);
                }
                let mut s = 0.0f32;
                for l in 0..SM {
                    s += (X[i, j, k, l] - m).exp();
                }
                ROW_MAX[i, j, k] = m;
                ROW_SUM[i, j, k] = s;
            }
            map normalize[i in 0..N, j in 0..H, k in 0..SM, l in 0..SM] on gpu {
                OUT[i, j, k, l] = (X[i, j, k, l] - ROW_MAX[i, j, k]).exp() / ROW_SUM[i, j, k];
            }
        }
    }
}

sdfg! {
    /// Row statistics in one pass (running max, rescaled running sum), then
    /// an elementwise normalization.
    pub sdfg SoftmaxOnline {
        symbol N: i64; symbol H: i64; symbol SM: i64;
        gpu X: f32[N, H, SM, SM];
        gpu OUT: f32[N, H, SM, SM];
        transient gpu ROW_MAX: f32[N, H, SM];
        transient gpu ROW_SUM: f32[N, H, SM];
        state only {
            map stats[i in 0..N, j in 0..H, k in 0..SM] on gpu {
                let mut m = X[i, j, k, 0];
                let mut s = 1.0f32;
                for l in 1..SM {
                    let v = X[i, j, k, l];
                    if v > m {
                        s = s * (m - v).exp() + 1.0;
                        m = v;
                    } else {
                        s += (v - m).exp();
                    }
                }
                ROW_MAX[i, j, k] = m;
                ROW_SUM[i, j, k] = s;
            }
            map normalize[i in 0..N, j in 0..H, k in 0..SM, l in 0..SM] on gpu {
                OUT[i, j, k, l] = (X[i, j, k, l] - ROW_MAX[i, j, k]).exp() / ROW_SUM[i, j, k];
            }
        }
    }
}

sdfg! {
    /// One thread per row: max, sum and the normalized row in three loops.
    pub sdfg SoftmaxRows {
        symbol N: i64; symbol H: i64; symbol SM: i64;
        gpu X: f32[N, H, SM, SM];
        gpu OUT: f32[N, H, SM, SM];
        state only {
            map rows[i in 0..N, j in 0..H, k in 0..SM] on gpu {
                let mut m = X[i, j, k, 0];
                for l in 1..SM {
                    m = m.max(X[i, j, k, l]);
                }
                let mut s = 0.0f32;
                for l in 0..SM {
                    s += (X[i, j, k, l] - m).exp();
                }
                for l in 0..SM {
                    OUT[i, j, k, l] = (X[i, j, k, l] - m).exp() / s;
                }
            }
        }
    }
}

// One thread block per row, the row in registers: the
// `block_softmax_registers` fixture of tests/common/fixtures.rs (the e2e and
// simulator tests run the same program), over the rows of [N, H, SM, SM].
crate::common::fixtures::block_softmax_registers!(sdfg);

/// The row length `BlockSoftmaxRegisters` takes: 16 elements per thread of
/// a warp (a literal in the program, so every index is known in bounds).
pub const BLOCK_ROW: usize = 512;

/// [N, H, SM] of the benchmark (NPBench) and of `--small`.
pub const FULL: [usize; 3] = [64, 16, 512];
pub const SMALL: [usize; 3] = [4, 4, 128];

/// Which DSL form runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SoftmaxForm {
    TwoPass,
    Online,
    Rows,
    Blocks,
}

enum Loaded {
    TwoPass(SoftmaxTwoPass),
    Online(SoftmaxOnline),
    Rows(SoftmaxRows),
    Blocks(BlockSoftmaxRegisters),
}

pub struct SoftmaxWorkload {
    program: Loaded,
    /// N, H, SM.
    pub dims: [usize; 3],
    x: DeviceBuffer<f32>,
    out: DeviceBuffer<f32>,
    host_x: Vec<f32>,
}

/// The plain Rust (rayon) version in f64: the reference of the check.
pub fn softmax_reference(sm: usize, x: &[f32]) -> Vec<f64> {
    let mut out = vec![0.0f64; x.len()];
    out.par_chunks_mut(sm)
        .zip(x.par_chunks(sm))
        .for_each(|(o, row)| {
            let m = row.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b)) as f64;
            let mut s = 0.0;
            for (o, &v) in o.iter_mut().zip(row) {
                *o = (v as f64 - m).exp();
                s += *o;
            }
            o.iter_mut().for_each(|v| *v /= s);
        });
    out
}

/// The plain Rust (rayon) version in f32, the same loop nest as the `rows`
/// form (for the CPU timing comparison).
pub fn softmax_rayon(sm: usize, x: &[f32], out: &mut [f32]) {
    out.par_chunks_mut(sm)
        .zip(x.par_chunks(sm))
        .for_each(|(o, row)| {
            let m = row[1..].iter().fold(row[0], |a, &b| a.max(b));
            let s: f32 = row.iter().map(|&v| (v - m).exp()).sum();
            for (o, &v) in o.iter_mut().zip(row) {
                *o = (v - m).exp() / s;
            }
        });
}

/// Compares `got` elementwise with the f64 reference. `roundings_per_step`:
/// relative rounding errors per element of the row sum (1 for a plain sum;
/// 3 for the online form, which may also rescale: exp, multiply, add).
pub fn softmax_check(sm: usize, x: &[f32], got: &[f32], roundings_per_step: usize) -> Check {
    let want = softmax_reference(sm, x);
    // Per element: exp within a few ulp, a sequential f32 sum of SM positive
    // terms (relative error <= (SM - 1) u per rounding per step), one
    // division. The bound (r * SM + 16) u covers that; NaN (an unwritten
    // element) fails.
    let u = f32::EPSILON as f64 / 2.0;
    let bound = ((roundings_per_step * sm) as f64 + 16.0) * u;
    let worst = got
        .par_iter()
        .zip(&want)
        .map(|(&g, &w)| {
            if g.is_finite() {
                (g as f64 - w).abs() / w
            } else {
                f64::INFINITY
            }
        })
        .reduce(|| 0.0, f64::max);
    let mut check = Check::within("OUT (largest elementwise relative error)", worst, bound);
    check.detail = format!(
        "{}; relative L2 error {:.2e}",
        check.detail,
        crate::common::relative_l2(got, &want)
    );
    check
}

/// Fresh softmax inputs in [-8, 8): exp spans ~7 orders of magnitude per row.
pub fn softmax_input(len: usize, seed: u64) -> Vec<f32> {
    random_f32(len, seed).iter().map(|v| 8.0 * v).collect()
}

impl SoftmaxWorkload {
    /// `--n`, `--h`, `--sm` (default 64, 16, 512; small 4, 4, 128).
    pub fn new(device: &Device, opts: &Options, small: bool, form: SoftmaxForm) -> AnyResult<Self> {
        let dims = match (small, form) {
            (false, _) => FULL,
            // Rows of 512 for the blocks form, fewer of them.
            (true, SoftmaxForm::Blocks) => [1, 2, BLOCK_ROW],
            (true, _) => SMALL,
        };
        let dims = [
            opts.get("n", dims[0]),
            opts.get("h", dims[1]),
            opts.get("sm", dims[2]),
        ];
        if dims.contains(&0) {
            return Err("softmax: --n, --h and --sm must be positive".into());
        }
        if form == SoftmaxForm::Blocks && dims[2] != BLOCK_ROW {
            return Err(format!(
                "softmax: the `blocks` form takes rows of {BLOCK_ROW} (--sm {})",
                dims[2]
            )
            .into());
        }
        let len = dims[0] * dims[1] * dims[2] * dims[2];
        let host_x = random_f32(len, 1);
        let program = match form {
            SoftmaxForm::TwoPass => Loaded::TwoPass(SoftmaxTwoPass::load(device)?),
            SoftmaxForm::Online => Loaded::Online(SoftmaxOnline::load(device)?),
            SoftmaxForm::Rows => Loaded::Rows(SoftmaxRows::load(device)?),
            SoftmaxForm::Blocks => Loaded::Blocks(BlockSoftmaxRegisters::load(device)?),
        };
        Ok(SoftmaxWorkload {
            program,
            dims,
            x: DeviceBuffer::from_slice(device, &host_x)?,
            out: DeviceBuffer::from_slice(device, &vec![f32::NAN; len])?,
            host_x,
        })
    }

    fn len(&self) -> usize {
        self.dims[0] * self.dims[1] * self.dims[2] * self.dims[2]
    }
}

impl Launch for SoftmaxWorkload {
    fn launch<R>(
        &mut self,
        call: Call<'_>,
        then: impl FnOnce(Running<'_>) -> sdfg::runtime::Result<R>,
    ) -> sdfg::runtime::Result<Option<R>> {
        let [n, h, sm] = self.dims.map(|d| d as i64);
        let (x, out) = (&self.x, &mut self.out);
        // The programs take the same arguments under their own type names.
        macro_rules! call {
            ($program:expr, $args:ident) => {{
                let args = $args {
                    N: n,
                    H: h,
                    SM: sm,
                    X: x,
                    OUT: out,
                };
                call_program!($program, call, args)?
            }};
        }
        let running = match &self.program {
            Loaded::TwoPass(program) => call!(program, SoftmaxTwoPassArgs),
            Loaded::Online(program) => call!(program, SoftmaxOnlineArgs),
            Loaded::Rows(program) => call!(program, SoftmaxRowsArgs),
            Loaded::Blocks(program) => {
                let args = BlockSoftmaxRegistersArgs {
                    ROWS: n * h * sm,
                    X: x,
                    Y: out,
                };
                call_program!(program, call, args)?
            }
        };
        running.map(then).transpose()
    }
}

impl Workload for SoftmaxWorkload {
    fn name(&self) -> &'static str {
        match self.program {
            Loaded::TwoPass(_) => "softmax (two-pass)",
            Loaded::Online(_) => "softmax (online)",
            Loaded::Rows(_) => "softmax (rows)",
            Loaded::Blocks(_) => "softmax (blocks)",
        }
    }
    fn sizes(&self) -> String {
        let [n, h, sm] = self.dims;
        format!("[{n}, {h}, {sm}, {sm}] f32, rows of {sm}")
    }
    fn min_bytes(&self) -> f64 {
        // X read once, OUT written once (row statistics stay on chip).
        2.0 * 4.0 * self.len() as f64
    }
    fn flops(&self) -> f64 {
        // Per element: max, subtract, exp, add, divide (exp counted once).
        5.0 * self.len() as f64
    }
    fn check(&mut self, seed: u64) -> AnyResult<Check> {
        let len = self.len();
        self.host_x = softmax_input(len, seed);
        self.x.copy_from_slice(&self.host_x)?;
        self.out.copy_from_slice(&vec![f32::NAN; len])?; // poison
        self.run_plain()?;
        let got = self.out.to_vec()?;
        let roundings = match self.program {
            Loaded::Online(_) => 3,
            // Block reductions sum in a tree: fewer roundings per element
            // than a sequential sum, bounded the same way.
            _ => 1,
        };
        Ok(softmax_check(self.dims[2], &self.host_x, &got, roundings))
    }
    fn time_once(&mut self, stream: &Stream) -> AnyResult<f64> {
        self.time_call(stream)
    }
    fn run_plain(&mut self) -> AnyResult<()> {
        self.run_call()
    }
    fn set_graphs(&mut self, on: bool) {
        match &self.program {
            Loaded::TwoPass(p) => p.set_graphs(on),
            Loaded::Online(p) => p.set_graphs(on),
            Loaded::Rows(p) => p.set_graphs(on),
            Loaded::Blocks(p) => p.set_graphs(on),
        }
    }
    fn host_version_ms(&mut self) -> f64 {
        let mut out = vec![0.0f32; self.len()];
        let (sm, x) = (self.dims[2], &self.host_x);
        wall_ms(|| softmax_rayon(sm, x, &mut out)).1
    }
}
