//! Helpers shared by the examples and the benchmark: command-line options,
//! random inputs, device-event timing, medians and checks.
//!
//! Included by every example with `#[path = "common/mod.rs"] mod common;`;
//! each uses only part of it (hence `allow(dead_code)`). The workloads
//! themselves (SDFG, reference, accounting) live beside it, one file each,
//! shared by their example and the benchmark.
#![allow(dead_code)]

/// The SDFGs the examples share with the tests.
#[path = "../../tests/common/fixtures.rs"]
pub mod fixtures;

use sdfg::runtime::{Device, DeviceBuffer, Event, Running, Stream};
use std::time::Instant;

pub type AnyResult<T> = Result<T, Box<dyn std::error::Error>>;

/// `--name value` options and `--flag` switches, parsed by hand from
/// `std::env::args` (no argument-parsing crate for a handful of numbers).
pub struct Options {
    args: Vec<String>,
}

impl Options {
    pub fn from_env() -> Options {
        Options {
            args: std::env::args().skip(1).collect(),
        }
    }

    /// No options: every workload takes its default sizes (the benchmark
    /// passes this, so its own options do not resize the workloads).
    pub fn none() -> Options {
        Options { args: Vec::new() }
    }

    /// `--name value` for each pair (the benchmark sizes workloads with it).
    pub fn from_pairs(pairs: &[(&str, String)]) -> Options {
        Options {
            args: pairs
                .iter()
                .flat_map(|(k, v)| [format!("--{k}"), v.clone()])
                .collect(),
        }
    }

    /// Whether `--name` was given.
    pub fn flag(&self, name: &str) -> bool {
        let key = format!("--{name}");
        self.args.contains(&key)
    }

    /// The value after `--name`, parsed; `None` when absent. A value that
    /// does not parse ends the program with a message (it is a typo, not
    /// something to recover from).
    pub fn value<T: std::str::FromStr>(&self, name: &str) -> Option<T> {
        let key = format!("--{name}");
        let pos = self.args.iter().position(|a| *a == key)?;
        let Some(text) = self.args.get(pos + 1) else {
            eprintln!("error: `{key}` needs a value");
            std::process::exit(2);
        };
        // As written first (paths keep their `_`), then without digit
        // separators (`268_435_456`).
        match text.parse().or_else(|_| text.replace('_', "").parse()) {
            Ok(v) => Some(v),
            Err(_) => {
                eprintln!("error: `{key} {text}`: not a valid value");
                std::process::exit(2);
            }
        }
    }

    /// `--name value`, else `default`.
    pub fn get<T: std::str::FromStr>(&self, name: &str, default: T) -> T {
        self.value(name).unwrap_or(default)
    }
}

/// The sizes of a run: the full benchmark sizes on a GPU, small ones on the
/// CPU device (or with `--small`) so that a run there takes seconds.
pub fn use_small_sizes(device: &Device, opts: &Options) -> bool {
    let small = opts.flag("small") || !device.is_gpu();
    if small && !device.is_gpu() && !opts.flag("small") {
        println!("note: no GPU: the CPU device runs the --small sizes unless sizes are given");
    }
    small
}

/// The workspace's one seeded generator (a dev-dependency of the examples).
pub use sdfg_testkit::rng::Rng;

/// `len` random values in [-1, 1) from `seed`, filled in parallel: each
/// chunk of 2^20 elements has its own generator, so the data depends only on
/// the seed, not on the number of threads.
pub fn random_f32(len: usize, seed: u64) -> Vec<f32> {
    random_vec(len, seed, |r| r.signed_unit() as f32)
}

pub fn random_f64(len: usize, seed: u64) -> Vec<f64> {
    random_vec(len, seed, |r| r.signed_unit())
}

fn random_vec<T: Send + Default + Clone>(
    len: usize,
    seed: u64,
    draw: impl Fn(&mut Rng) -> T + Sync,
) -> Vec<T> {
    use rayon::prelude::*;
    const CHUNK: usize = 1 << 20;
    let mut out = vec![T::default(); len];
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(c, chunk)| {
            let mut rng = Rng::new(seed ^ (c as u64).wrapping_mul(0xD1B5_4A32_D192_ED03));
            for v in chunk {
                *v = draw(&mut rng);
            }
        });
    out
}

/// A fresh seed per call (so every checked run sees new data), reproducible
/// from `--seed`.
pub struct Seeds(Rng);

impl Seeds {
    pub fn new(opts: &Options) -> Seeds {
        Seeds(Rng::new(opts.get("seed", 0x5DF6_u64)))
    }
    pub fn next(&mut self) -> u64 {
        self.0.next_u64()
    }
}

/// The median of `samples` (the mean of the middle two for an even count).
pub fn median(samples: &[f64]) -> f64 {
    assert!(!samples.is_empty(), "median of no samples");
    let mut s = samples.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        0.5 * (s[n / 2 - 1] + s[n / 2])
    }
}

/// Milliseconds of device work on `stream`, between a timing event recorded
/// before `issue` and the one `issue` returns. `issue` records its end event
/// right after the last operation it issues and before it waits, so the
/// host's wake-up after the final sync is not counted.
pub fn device_time_ms(
    stream: &Stream,
    issue: impl FnOnce(&Stream) -> sdfg::runtime::Result<Event>,
) -> sdfg::runtime::Result<f64> {
    let start = stream.record_timing_event()?;
    let end = issue(stream)?;
    end.synchronize()?;
    Ok(Event::elapsed_ms(&start, &end)? as f64)
}

/// For `device_time_ms`: records the end event behind a launched program
/// call, then waits for the call.
pub fn end_after(stream: &Stream, running: Running<'_>) -> sdfg::runtime::Result<Event> {
    let end = stream.record_timing_event()?;
    running.wait()?;
    Ok(end)
}

/// `warmup` untimed calls, then the median of `reps` timed ones (ms).
pub fn median_ms(
    warmup: usize,
    reps: usize,
    mut once: impl FnMut() -> AnyResult<f64>,
) -> AnyResult<f64> {
    for _ in 0..warmup {
        once()?;
    }
    let samples = (0..reps).map(|_| once()).collect::<AnyResult<Vec<f64>>>()?;
    Ok(median(&samples))
}

/// Wall-clock milliseconds of `f`.
pub fn wall_ms<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let out = f();
    (out, t.elapsed().as_secs_f64() * 1e3)
}

/// Bytes per millisecond as GB/s (10^9 bytes per second).
pub fn gb_per_s(bytes: f64, ms: f64) -> f64 {
    bytes / (ms * 1e-3) / 1e9
}

/// The first element whose bit pattern differs, described (`None`: all
/// equal). The same IEEE operations in the same order give the same bits on
/// every device, so the stencils and axpy are compared this way.
pub fn bit_mismatch<T: Copy + std::fmt::Display>(
    name: &str,
    got: &[T],
    want: &[T],
    bits: impl Fn(T) -> u64,
) -> Option<String> {
    assert_eq!(got.len(), want.len(), "{name}: result length");
    let k = got
        .iter()
        .zip(want)
        .position(|(&g, &w)| bits(g) != bits(w))?;
    Some(format!("{name}[{k}] = {}, expected {}", got[k], want[k]))
}

pub fn f32_bits(x: f32) -> u64 {
    x.to_bits() as u64
}

pub fn f64_bits(x: f64) -> u64 {
    x.to_bits()
}

/// The outcome of a checked run, printed by the examples and the benchmark.
pub struct Check {
    pub passed: bool,
    pub detail: String,
}

impl Check {
    pub fn bit_exact(what: &str, mismatch: Option<String>, count: usize) -> Check {
        match mismatch {
            None => Check {
                passed: true,
                detail: format!("{what}: all {count} elements bit-exact"),
            },
            Some(m) => Check {
                passed: false,
                detail: format!("{m} (bit-exact check)"),
            },
        }
    }

    /// `error <= bound` (NaN fails).
    pub fn within(what: &str, error: f64, bound: f64) -> Check {
        let passed = error <= bound;
        Check {
            passed,
            detail: format!(
                "{what}: error {error:.2e} {} bound {bound:.1e}",
                if passed { "<=" } else { "EXCEEDS" }
            ),
        }
    }
}

/// ‖got − want‖₂ / ‖want‖₂ over f32 results against an f64 reference;
/// infinite when any result is NaN or infinite (an unwritten, poisoned element).
pub fn relative_l2(got: &[f32], want: &[f64]) -> f64 {
    let (mut diff, mut norm) = (0.0f64, 0.0f64);
    for (&g, &w) in got.iter().zip(want) {
        if !g.is_finite() {
            return f64::INFINITY;
        }
        diff += (g as f64 - w) * (g as f64 - w);
        norm += w * w;
    }
    (diff / norm.max(f64::MIN_POSITIVE)).sqrt()
}

/// A text table with right-aligned columns after the first.
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: &[&str]) -> Table {
        Table {
            header: header.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
        }
    }
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }
    pub fn print(&self) {
        let cols = self.header.len();
        let mut width = vec![0; cols];
        for r in std::iter::once(&self.header).chain(&self.rows) {
            for (c, cell) in r.iter().enumerate().take(cols) {
                width[c] = width[c].max(cell.chars().count());
            }
        }
        let line = |r: &[String]| {
            let cells: Vec<String> = (0..cols)
                .map(|c| {
                    let cell = r.get(c).map(String::as_str).unwrap_or("");
                    if c == 0 {
                        format!("{cell:<w$}", w = width[c])
                    } else {
                        format!("{cell:>w$}", w = width[c])
                    }
                })
                .collect();
            println!("  {}", cells.join("  "));
        };
        line(&self.header);
        let rule: Vec<String> = width.iter().map(|w| "-".repeat(*w)).collect();
        println!("  {}", rule.join("  "));
        for r in &self.rows {
            line(r);
        }
    }
}

/// Prints an example's report and ends the process with status 1 on a wrong
/// result.
pub fn report_and_exit(
    name: &str,
    device: &Device,
    sizes: &str,
    ms: f64,
    (bytes, flops): (f64, f64),
    check: &Check,
) -> ! {
    println!("{name} on {}", device.name());
    println!("  sizes: {sizes}");
    println!(
        "  time:  {ms:.3} ms (median, device events), {:.1} GB/s effective ({:.3} GB moved at least), {:.1} GFLOP/s",
        gb_per_s(bytes, ms),
        bytes / 1e9,
        flops / (ms * 1e-3) / 1e9
    );
    println!(
        "  check: {} ({})",
        if check.passed { "passed" } else { "FAILED" },
        check.detail
    );
    std::process::exit(if check.passed { 0 } else { 1 });
}

/// One benchmarked computation: an SDFG loaded on a device with its
/// buffers, a plain Rust reference and the byte/flop accounting.
pub trait Workload {
    /// Short name (table rows, JSON keys).
    fn name(&self) -> &'static str;
    /// The sizes, for the report.
    fn sizes(&self) -> String;
    /// The fewest bytes the computation must move through device memory:
    /// each input read once, each output written once (per time step for
    /// the stencils).
    fn min_bytes(&self) -> f64;
    /// Floating-point operations (exp counted as one).
    fn flops(&self) -> f64;
    /// Fresh random inputs from `seed`, poisoned outputs, one `run()`, and
    /// the comparison with the plain Rust reference.
    fn check(&mut self, seed: u64) -> AnyResult<Check>;
    /// One call of the SDFG on `stream`, timed with device events (ms).
    fn time_once(&mut self, stream: &Stream) -> AnyResult<f64>;
    /// One plain `run()` (to count its host syncs and event waits).
    fn run_plain(&mut self) -> AnyResult<()>;
    /// Graph segments on or off for later calls (`set_graphs` of the
    /// program): the benchmark compares the two modes.
    fn set_graphs(&mut self, on: bool);
    /// Wall-clock ms of the plain Rust (rayon) version of the same loop
    /// nest over host copies of the inputs.
    fn host_version_ms(&mut self) -> f64;
}

/// How a [`Launch::launch`] calls a workload's program.
#[derive(Clone, Copy)]
pub enum Call<'s> {
    /// `launch_on(stream, args)`: on the caller's stream (timed).
    On(&'s Stream),
    /// `run(args)`: to completion, as a user's synchronous call.
    Run,
}

/// One call of a workload's program, made as `call` says; `then` gets the
/// running call (`None` for [`Call::Run`], which has none). The check, the
/// timing and the plain run all go through it, so each workload builds its
/// arguments in one place.
pub trait Launch {
    fn launch<R>(
        &mut self,
        call: Call<'_>,
        then: impl FnOnce(Running<'_>) -> sdfg::runtime::Result<R>,
    ) -> sdfg::runtime::Result<Option<R>>;

    /// `Workload::time_once`: device milliseconds of one call on `stream`.
    fn time_call(&mut self, stream: &Stream) -> AnyResult<f64> {
        Ok(device_time_ms(stream, |st| {
            self.launch(Call::On(st), |running| end_after(st, running))
                .map(|ended| ended.expect("a launched call is running"))
        })?)
    }

    /// `Workload::run_plain`: one `run()` of the program on its own
    /// streams.
    fn run_call(&mut self) -> AnyResult<()> {
        self.launch(Call::Run, |running| running.wait())?;
        Ok(())
    }
}

/// `program.launch_on(stream, args)` or `program.run(args)` as `call`
/// says: how a [`Launch::launch`] issues its call (the generated programs
/// share no trait). `Some(running)` but for `run`.
#[allow(unused_macros)] // by the workloads, not every example has one
macro_rules! call_program {
    ($program:expr, $call:expr, $args:expr) => {
        match $call {
            $crate::common::Call::On(stream) => $program.launch_on(stream, $args).map(Some),
            $crate::common::Call::Run => $program.run($args).map(|()| None),
        }
    };
}
#[allow(unused_imports)]
pub(crate) use call_program;

/// The two f64 grids of a stencil that sweeps B from A, then A from B, for
/// `tsteps` steps (jacobi2d, heat3d): on the device, and the host copies
/// that the plain Rust reference runs on.
pub struct TwoGrids {
    pub n: usize,
    pub tsteps: usize,
    pub a: DeviceBuffer<f64>,
    pub b: DeviceBuffer<f64>,
    host_a: Vec<f64>,
    host_b: Vec<f64>,
}

/// `impl Launch` for a two-grid stencil workload (fields `program` and
/// `grids: TwoGrids`) whose program takes `N`, `TSTEPS`, `A` and `B` in
/// arguments of type `$args`.
#[allow(unused_macros)] // by the stencils, not every example has one
macro_rules! impl_two_grid_launch {
    ($workload:ty, $args:ident) => {
        impl $crate::common::Launch for $workload {
            fn launch<R>(
                &mut self,
                call: $crate::common::Call<'_>,
                then: impl FnOnce(::sdfg::runtime::Running<'_>) -> ::sdfg::runtime::Result<R>,
            ) -> ::sdfg::runtime::Result<Option<R>> {
                let g = &mut self.grids;
                let args = $args {
                    N: g.n as i64,
                    TSTEPS: g.tsteps as i64,
                    A: &mut g.a,
                    B: &mut g.b,
                };
                let running = $crate::common::call_program!(self.program, call, args)?;
                running.map(then).transpose()
            }
        }
    };
}
#[allow(unused_imports)]
pub(crate) use impl_two_grid_launch;

/// The plain Rust version of a two-grid stencil: `(n, tsteps, a, b)`.
pub type TwoGridReference = fn(usize, usize, &mut [f64], &mut [f64]);

impl TwoGrids {
    /// Grids of `len` elements each, random.
    pub fn new(device: &Device, n: usize, tsteps: usize, len: usize) -> AnyResult<TwoGrids> {
        let (host_a, host_b) = (random_f64(len, 1), random_f64(len, 2));
        Ok(TwoGrids {
            n,
            tsteps,
            a: DeviceBuffer::from_slice(device, &host_a)?,
            b: DeviceBuffer::from_slice(device, &host_b)?,
            host_a,
            host_b,
        })
    }

    /// Fresh random A and B from `seed`, on the device and on the host. B's
    /// boundary is read by the second sweep and its interior must be
    /// overwritten: random values are the poison.
    pub fn randomize(&mut self, seed: u64) -> AnyResult<()> {
        let len = self.host_a.len();
        self.host_a = random_f64(len, seed ^ 1);
        self.host_b = random_f64(len, seed ^ 2);
        self.a.copy_from_slice(&self.host_a)?;
        self.b.copy_from_slice(&self.host_b)?;
        Ok(())
    }

    /// The device grids against `reference` run on the host copies, bit
    /// for bit.
    pub fn check(&self, reference: TwoGridReference) -> AnyResult<Check> {
        let (got_a, got_b) = (self.a.to_vec()?, self.b.to_vec()?);
        let (mut want_a, mut want_b) = (self.host_a.clone(), self.host_b.clone());
        reference(self.n, self.tsteps, &mut want_a, &mut want_b);
        let mismatch = bit_mismatch("A", &got_a, &want_a, f64_bits)
            .or_else(|| bit_mismatch("B", &got_b, &want_b, f64_bits));
        Ok(Check::bit_exact("A and B", mismatch, 2 * want_a.len()))
    }

    /// Wall-clock milliseconds of `reference` on the host copies.
    pub fn reference_ms(&mut self, reference: TwoGridReference) -> f64 {
        let (n, t) = (self.n, self.tsteps);
        let (a, b) = (&mut self.host_a, &mut self.host_b);
        wall_ms(|| reference(n, t, a, b)).1
    }
}

/// The body of every example: one checked run on fresh random inputs, then
/// the median of `--reps` (default 10; 3 on the CPU device) event-timed
/// calls after `--warmup` (default 2) untimed ones, then the report. Exits
/// with status 1 when the check failed.
pub fn run_example(device: &Device, opts: &Options, mut work: impl Workload) -> AnyResult<()> {
    let mut seeds = Seeds::new(opts);
    let check = work.check(seeds.next())?;
    let stream = device.new_stream()?;
    let reps = opts.get("reps", if device.is_gpu() { 10 } else { 3 });
    let warmup = opts.get("warmup", if device.is_gpu() { 2 } else { 1 });
    let ms = median_ms(warmup, reps.max(1), || work.time_once(&stream))?;
    report_and_exit(
        work.name(),
        device,
        &work.sizes(),
        ms,
        (work.min_bytes(), work.flops()),
        &check,
    )
}
