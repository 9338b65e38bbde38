//! AXPY (`Y = a*X + Y`, f32) as one `gpu` map.

use crate::common::{
    bit_mismatch, call_program, f32_bits, random_f32, AnyResult, Call, Check, Launch, Options, Rng,
    Workload,
};
use rayon::prelude::*;
use sdfg::prelude::*;

sdfg! {
    /// `Y = a*X + Y` over N f32 elements; `A` is a host scalar, passed to the
    /// kernel by value.
    pub sdfg Axpy {
        symbol N: i64;
        host A: f32;
        gpu X: f32[N];
        gpu Y: f32[N];
        state only {
            map axpy[i in 0..N] on gpu { Y[i] = A * X[i] + Y[i]; }
        }
    }
}

pub const FULL_N: usize = 1 << 28;
pub const SMALL_N: usize = 1 << 20;

pub struct AxpyWorkload {
    program: Axpy,
    pub n: usize,
    a: f32,
    x: DeviceBuffer<f32>,
    y: DeviceBuffer<f32>,
    host_x: Vec<f32>,
    host_y: Vec<f32>,
}

impl AxpyWorkload {
    /// `--n` (default 2^28, or 2^20 with `small`).
    pub fn new(device: &Device, opts: &Options, small: bool) -> AnyResult<Self> {
        let n = opts.get("n", if small { SMALL_N } else { FULL_N });
        let host_x = random_f32(n, 1);
        let host_y = random_f32(n, 2);
        Ok(AxpyWorkload {
            program: Axpy::load(device)?,
            n,
            a: 1.5,
            x: DeviceBuffer::from_slice(device, &host_x)?,
            y: DeviceBuffer::from_slice(device, &host_y)?,
            host_x,
            host_y,
        })
    }
}

/// The plain Rust loop (the same operations in the same order: bit-exact).
// Written as the DSL writes it (`+=` would add in the other order: the same
// IEEE result, but less obviously so).
#[allow(clippy::assign_op_pattern)]
pub fn axpy_reference(a: f32, x: &[f32], y: &mut [f32]) {
    y.par_iter_mut().zip(x).for_each(|(y, &x)| *y = a * x + *y);
}

impl Launch for AxpyWorkload {
    fn launch<R>(
        &mut self,
        call: Call<'_>,
        then: impl FnOnce(Running<'_>) -> sdfg::runtime::Result<R>,
    ) -> sdfg::runtime::Result<Option<R>> {
        let args = AxpyArgs {
            N: self.n as i64,
            A: self.a,
            X: &self.x,
            Y: &mut self.y,
        };
        let running = call_program!(self.program, call, args)?;
        running.map(then).transpose()
    }
}

impl Workload for AxpyWorkload {
    fn name(&self) -> &'static str {
        "axpy"
    }
    fn sizes(&self) -> String {
        format!("N = {} f32", self.n)
    }
    fn min_bytes(&self) -> f64 {
        // X and Y read, Y written.
        3.0 * 4.0 * self.n as f64
    }
    fn flops(&self) -> f64 {
        2.0 * self.n as f64
    }
    fn check(&mut self, seed: u64) -> AnyResult<Check> {
        self.a = Rng::new(seed).range(0.5, 2.0) as f32;
        self.host_x = random_f32(self.n, seed ^ 1);
        self.host_y = random_f32(self.n, seed ^ 2);
        self.x.copy_from_slice(&self.host_x)?;
        // Y is both input and output: every element must change, so fresh
        // random values are the poison (an unwritten element keeps its input).
        self.y.copy_from_slice(&self.host_y)?;
        self.run_call()?;
        let got = self.y.to_vec()?;
        let mut want = self.host_y.clone();
        axpy_reference(self.a, &self.host_x, &mut want);
        let mismatch = bit_mismatch("Y", &got, &want, f32_bits);
        Ok(Check::bit_exact("Y", mismatch, self.n))
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
        let (a, x, y) = (self.a, &self.host_x, &mut self.host_y);
        crate::common::wall_ms(|| axpy_reference(a, x, y)).1
    }
}
