//! Dot product: a WCR `+=` sum reduction of f32 products into a `gpu` scalar,
//! in two forms.
//!
//! - `direct`: one map iteration per element, every product a `+=` into the
//!   scalar (one atomic per element: the plainest DSL form).
//! - `partials`: `P` map iterations, each summing `K = N / P` products
//!   strided by `P` (so neighbouring threads read neighbouring elements,
//!   coalesced) in a local, then one `+=` per iteration: `P` atomics instead
//!   of `N`.
//! - `blocks`: block maps (GUIDE section 14). Each block iteration reduces a
//!   chunk of `CHUNK` products with a block reduction (per-thread partials,
//!   warp shuffles, no atomics) into one element of a transient `P`; a
//!   second block map sums `P` in one block. Deterministic for a block size.

use crate::common::{
    call_program, random_f32, wall_ms, AnyResult, Call, Check, Launch, Options, Rng, Workload,
};
use rayon::prelude::*;
use sdfg::prelude::*;

sdfg! {
    /// `S += X[i] * Y[i]` for every i.
    pub sdfg DotDirect {
        symbol N: i64;
        gpu X: f32[N];
        gpu Y: f32[N];
        gpu S: f32;
        state only {
            map dot[i in 0..N] on gpu { S += X[i] * Y[i]; }
        }
    }
}

sdfg! {
    /// `P` strided partial sums of `K` products each, then `S += partial`.
    pub sdfg DotPartials {
        symbol N: i64; symbol P: i64; symbol K: i64;
        gpu X: f32[N];
        gpu Y: f32[N];
        gpu S: f32;
        state only {
            map dot[p in 0..P] on gpu {
                let mut acc = 0.0f32;
                for k in 0..K {
                    acc += X[p + k * P] * Y[p + k * P];
                }
                S += acc;
            }
        }
    }
}

// Block partials of `CHUNK` products each, then their sum in one block,
// added to `S`: the `block_dot` fixture of tests/common/fixtures.rs (the e2e
// and simulator tests run the same program).
crate::common::fixtures::block_dot!(sdfg);

pub const FULL_N: usize = 1 << 28;
/// Products per block iteration of the `blocks` form (at most; a divisor of
/// N): 64 per thread of 256, enough iterations to balance the SMs.
pub const BLOCK_CHUNK: usize = 1 << 14;
pub const SMALL_N: usize = 1 << 20;
/// Threads of the `partials` form (at most; a divisor of N): enough to keep
/// every SM's memory pipeline busy, few enough that the atomics are cheap.
pub const PARTIALS: usize = 1 << 17;

/// Which DSL form runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum DotForm {
    Direct,
    Partials,
    Blocks,
}

enum Loaded {
    Direct(DotDirect),
    Partials(DotPartials),
    Blocks(BlockDot),
}

pub struct DotWorkload {
    program: Loaded,
    pub n: usize,
    /// Threads and products per thread of the `partials` form, block
    /// iterations and products per block iteration of the `blocks` form
    /// (`p * k == n`).
    p: usize,
    k: usize,
    x: DeviceBuffer<f32>,
    y: DeviceBuffer<f32>,
    s: DeviceBuffer<f32>,
    host_x: Vec<f32>,
    host_y: Vec<f32>,
}

/// The largest power of two <= `limit` that divides `n`.
fn threads_for(n: usize, limit: usize) -> usize {
    let mut p = 1;
    while p * 2 <= limit && n.is_multiple_of(p * 2) {
        p *= 2;
    }
    p
}

impl DotWorkload {
    /// `--n` (default 2^28, or 2^20 small), `--p` (threads of the
    /// `partials` form; default: the largest power of two <= 2^17 dividing
    /// N; block iterations of the `blocks` form, default N over the largest
    /// power of two <= 2^14 dividing N).
    pub fn new(device: &Device, opts: &Options, small: bool, form: DotForm) -> AnyResult<Self> {
        let n: usize = opts.get("n", if small { SMALL_N } else { FULL_N });
        let default_p = match form {
            DotForm::Blocks => n / threads_for(n, BLOCK_CHUNK).max(1),
            _ => threads_for(n, PARTIALS),
        };
        let p: usize = opts.get("p", default_p);
        if n == 0 || p == 0 || !n.is_multiple_of(p) {
            return Err(format!("dot: --p {p} must divide --n {n}").into());
        }
        let (host_x, host_y) = (random_f32(n, 1), random_f32(n, 2));
        let program = match form {
            DotForm::Direct => Loaded::Direct(DotDirect::load(device)?),
            DotForm::Partials => Loaded::Partials(DotPartials::load(device)?),
            DotForm::Blocks => Loaded::Blocks(BlockDot::load(device)?),
        };
        Ok(DotWorkload {
            program,
            n,
            p,
            k: n / p,
            x: DeviceBuffer::from_slice(device, &host_x)?,
            y: DeviceBuffer::from_slice(device, &host_y)?,
            s: DeviceBuffer::from_slice(device, &[0.5f32])?,
            host_x,
            host_y,
        })
    }

    fn form(&self) -> DotForm {
        match self.program {
            Loaded::Direct(_) => DotForm::Direct,
            Loaded::Partials(_) => DotForm::Partials,
            Loaded::Blocks(_) => DotForm::Blocks,
        }
    }
}

impl Launch for DotWorkload {
    fn launch<R>(
        &mut self,
        call: Call<'_>,
        then: impl FnOnce(Running<'_>) -> sdfg::runtime::Result<R>,
    ) -> sdfg::runtime::Result<Option<R>> {
        let (n, p, k) = (self.n as i64, self.p as i64, self.k as i64);
        let (x, y, s) = (&self.x, &self.y, &mut self.s);
        let running = match &self.program {
            Loaded::Direct(program) => {
                let args = DotDirectArgs {
                    N: n,
                    X: x,
                    Y: y,
                    S: s,
                };
                call_program!(program, call, args)?
            }
            Loaded::Partials(program) => {
                let args = DotPartialsArgs {
                    N: n,
                    P: p,
                    K: k,
                    X: x,
                    Y: y,
                    S: s,
                };
                call_program!(program, call, args)?
            }
            Loaded::Blocks(program) => {
                let args = BlockDotArgs {
                    BLOCKS: p,
                    CHUNK: k,
                    X: x,
                    Y: y,
                    S: s,
                };
                call_program!(program, call, args)?
            }
        };
        running.map(then).transpose()
    }
}

/// The plain Rust (rayon) version: per-chunk partial sums in f32.
pub fn dot_rayon(x: &[f32], y: &[f32]) -> f32 {
    x.par_chunks(1 << 16)
        .zip(y.par_chunks(1 << 16))
        .map(|(a, b)| a.iter().zip(b).map(|(p, q)| p * q).sum::<f32>())
        .sum()
}

/// Compares `got` (the reduction of `x . y` onto the initial value `s0`)
/// with an f64 sum.
pub fn dot_check(x: &[f32], y: &[f32], s0: f32, got: f32) -> Check {
    // Products of f32s are exact in f64; the f64 sum is far more precise
    // than any f32 one.
    let (sum, sum_sq) = x
        .par_iter()
        .zip(y)
        .map(|(&a, &b)| {
            let t = a as f64 * b as f64;
            (t, t * t)
        })
        .reduce(|| (0.0, 0.0), |p, q| (p.0 + q.0, p.1 + q.1));
    let exact = s0 as f64 + sum;
    // Rounding errors of a sum in any order, with random-sign terms: each of
    // the n additions errs by at most u * |partial sum|, with partial sums
    // ~ sqrt(k) * rms(t); together about u * rms(t) * n. Scaled by that, the
    // error must stay under a small constant (8; a probabilistic bound in
    // the sense of Higham & Mary 2019). Dropped or misread elements move the
    // sum by ~ sqrt(count) * rms(t): far more, already for a few elements.
    let n = x.len() as f64;
    let scale = f32::EPSILON as f64 / 2.0 * (sum_sq / n).sqrt() * n + f64::MIN_POSITIVE;
    let error = (got as f64 - exact).abs() / scale;
    let mut check = Check::within("S (in units of u*rms(t)*N)", error, 8.0);
    check.detail = format!("S = {got}, exact {exact:.3}; {}", check.detail);
    check
}

impl Workload for DotWorkload {
    fn name(&self) -> &'static str {
        match self.form() {
            DotForm::Direct => "dot (direct)",
            DotForm::Partials => "dot (partials)",
            DotForm::Blocks => "dot (blocks)",
        }
    }
    fn sizes(&self) -> String {
        match self.form() {
            DotForm::Direct => format!("N = {} f32, one atomic per element", self.n),
            DotForm::Partials => format!(
                "N = {} f32, P = {} partial sums of K = {} products",
                self.n, self.p, self.k
            ),
            DotForm::Blocks => format!(
                "N = {} f32, {} block partials of {} products (256 threads), their sum in one block",
                self.n, self.p, self.k
            ),
        }
    }
    fn min_bytes(&self) -> f64 {
        // X and Y read once; the scalar's 4 bytes are negligible.
        2.0 * 4.0 * self.n as f64
    }
    fn flops(&self) -> f64 {
        2.0 * self.n as f64
    }
    fn check(&mut self, seed: u64) -> AnyResult<Check> {
        // Random-sign data (products in [-1, 1)): the partial sums stay near
        // sqrt(N), where f32 keeps precision in any summation order. (All
        // positive terms would make any f32 running sum of 2^28 terms
        // stagnate: a property of f32, not of the code under test.)
        self.host_x = random_f32(self.n, seed ^ 1);
        self.host_y = random_f32(self.n, seed ^ 2);
        self.x.copy_from_slice(&self.host_x)?;
        self.y.copy_from_slice(&self.host_y)?;
        // The reduction adds to S's old value: start from a random one.
        let s0 = Rng::new(seed).signed_unit() as f32;
        self.s.copy_from_slice(&[s0])?;
        self.run_plain()?;
        let got = self.s.to_vec()?[0];
        Ok(dot_check(&self.host_x, &self.host_y, s0, got))
    }
    fn time_once(&mut self, stream: &Stream) -> AnyResult<f64> {
        self.time_call(stream)
    }
    fn run_plain(&mut self) -> AnyResult<()> {
        self.run_call()
    }
    fn set_graphs(&mut self, on: bool) {
        match &self.program {
            Loaded::Direct(p) => p.set_graphs(on),
            Loaded::Partials(p) => p.set_graphs(on),
            Loaded::Blocks(p) => p.set_graphs(on),
        }
    }
    fn host_version_ms(&mut self) -> f64 {
        let (x, y) = (&self.host_x, &self.host_y);
        let (sum, ms) = wall_ms(|| dot_rayon(x, y));
        std::hint::black_box(sum);
        ms
    }
}
