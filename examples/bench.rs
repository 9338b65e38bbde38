//! Every example as a benchmark, against hand-written PTX baselines launched
//! through raw cudarc, plus host overhead, syncs per call, module load time
//! and the CPU device against plain Rust (rayon). Prints tables and writes
//! `docs/benchmarks.json` and `docs/benchmarks.svg` (`--out DIR` elsewhere).
//!
//! Run: `cargo run --release --example bench` (the GPU when there is one,
//! else the CPU device with small sizes). Options: `--small`, `--reps 20`,
//! `--warmup 3`, `--calls 1000` (host overhead), `--only NAME[,NAME]`,
//! `--seed S`, `--out DIR`. Method and byte counts: docs/BENCHMARKS.md.

#[path = "common/axpy.rs"]
mod axpy;
#[path = "common/baselines.rs"]
mod baselines;
#[path = "common/mod.rs"]
mod common;
#[path = "common/dot.rs"]
mod dot;
#[path = "common/heat3d.rs"]
mod heat3d;
#[path = "common/jacobi2d.rs"]
mod jacobi2d;
#[path = "common/raw.rs"]
mod raw;
#[path = "common/shapes.rs"]
mod shapes;
#[path = "common/softmax.rs"]
mod softmax;

use baselines::{BaselineResult, Baselines, Reps};
use common::{
    device_time_ms, gb_per_s, median, median_ms, use_small_sizes, wall_ms, AnyResult, Options,
    Seeds, Table, Workload,
};
use raw::{arg, RawCuda};
use sdfg::compiler::codegen::abi::ParamValue;
use sdfg::prelude::*;
use sdfg::runtime::Region;
use std::time::Instant;

sdfg! {
    /// One tiny map: what a call costs on the host beyond the launch.
    #[streams(single)]
    pub sdfg Tiny {
        symbol N: i64;
        gpu Y: f32[N];
        state s {
            map t0[i in 0..N] on gpu { Y[i] = Y[i] + 1.0; }
        }
    }
}

sdfg! {
    /// Ten tiny maps in one state on one stream: the per-kernel cost.
    #[streams(single)]
    pub sdfg Tiny10 {
        symbol N: i64;
        gpu Y: f32[N];
        state s {
            map t0[i in 0..N] on gpu { Y[i] = Y[i] + 1.0; }
            map t1[i in 0..N] on gpu { Y[i] = Y[i] + 1.0; }
            map t2[i in 0..N] on gpu { Y[i] = Y[i] + 1.0; }
            map t3[i in 0..N] on gpu { Y[i] = Y[i] + 1.0; }
            map t4[i in 0..N] on gpu { Y[i] = Y[i] + 1.0; }
            map t5[i in 0..N] on gpu { Y[i] = Y[i] + 1.0; }
            map t6[i in 0..N] on gpu { Y[i] = Y[i] + 1.0; }
            map t7[i in 0..N] on gpu { Y[i] = Y[i] + 1.0; }
            map t8[i in 0..N] on gpu { Y[i] = Y[i] + 1.0; }
            map t9[i in 0..N] on gpu { Y[i] = Y[i] + 1.0; }
        }
    }
}

/// Elements of the tiny maps (one block's worth of work).
const TINY_N: usize = 1024;

/// The benchmarked computations, in table order.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Axpy,
    Stencil2d,
    Jacobi2d,
    Heat3d,
    DotPartials,
    DotDirect,
    SoftmaxTwoPass,
    SoftmaxOnline,
    SoftmaxRows,
}

const KINDS: [Kind; 9] = [
    Kind::Axpy,
    Kind::Stencil2d,
    Kind::Jacobi2d,
    Kind::Heat3d,
    Kind::DotPartials,
    Kind::DotDirect,
    Kind::SoftmaxTwoPass,
    Kind::SoftmaxOnline,
    Kind::SoftmaxRows,
];

impl Kind {
    /// `--only` matches these (a prefix of the example's name).
    fn family(self) -> &'static str {
        match self {
            Kind::Axpy => "axpy",
            Kind::Stencil2d => "stencil2d",
            Kind::Jacobi2d => "jacobi2d",
            Kind::Heat3d => "heat3d",
            Kind::DotPartials | Kind::DotDirect => "dot",
            Kind::SoftmaxTwoPass | Kind::SoftmaxOnline | Kind::SoftmaxRows => "softmax",
        }
    }

    /// The target: % of the device-to-device copy bandwidth (DESIGN.md 8).
    fn target_pct(self) -> f64 {
        match self {
            Kind::Axpy | Kind::Stencil2d | Kind::Jacobi2d | Kind::Heat3d => 90.0,
            Kind::DotPartials | Kind::DotDirect => 80.0,
            Kind::SoftmaxTwoPass | Kind::SoftmaxOnline | Kind::SoftmaxRows => 70.0,
        }
    }

    fn load(self, device: &Device, small: bool) -> AnyResult<Box<dyn Workload>> {
        let opts = Options::none();
        Ok(match self {
            Kind::Axpy => Box::new(axpy::AxpyWorkload::new(device, &opts, small)?),
            Kind::Stencil2d => {
                let (n, t) = stencil2d_sizes(small);
                Box::new(jacobi2d::Jacobi2dWorkload::with_sizes(
                    device,
                    "stencil2d",
                    n,
                    t,
                )?)
            }
            Kind::Jacobi2d => Box::new(jacobi2d::Jacobi2dWorkload::new(device, &opts, small)?),
            Kind::Heat3d => Box::new(heat3d::Heat3dWorkload::new(device, &opts, small)?),
            Kind::DotPartials => Box::new(dot::DotWorkload::new(
                device,
                &opts,
                small,
                dot::DotForm::Partials,
            )?),
            Kind::DotDirect => Box::new(dot::DotWorkload::new(
                device,
                &opts,
                small,
                dot::DotForm::Direct,
            )?),
            Kind::SoftmaxTwoPass => Box::new(softmax::SoftmaxWorkload::new(
                device,
                &opts,
                small,
                softmax::SoftmaxForm::TwoPass,
            )?),
            Kind::SoftmaxOnline => Box::new(softmax::SoftmaxWorkload::new(
                device,
                &opts,
                small,
                softmax::SoftmaxForm::Online,
            )?),
            Kind::SoftmaxRows => Box::new(softmax::SoftmaxWorkload::new(
                device,
                &opts,
                small,
                softmax::SoftmaxForm::Rows,
            )?),
        })
    }

    /// The baseline of this computation (one per family: both dot forms and
    /// both softmax forms compare with the same hand-written kernel).
    fn baseline(
        self,
        b: &Baselines<'_>,
        small: bool,
        reps: Reps,
    ) -> raw::RawResult<BaselineResult> {
        // The sizes the workloads take by default.
        match self {
            Kind::Axpy => b.axpy(if small { axpy::SMALL_N } else { axpy::FULL_N }, reps),
            Kind::Stencil2d => {
                let (n, t) = stencil2d_sizes(small);
                b.jacobi2d(n, t, reps)
            }
            Kind::Jacobi2d => {
                let (n, t) = if small {
                    jacobi2d::SMALL
                } else {
                    jacobi2d::FULL
                };
                b.jacobi2d(n, t, reps)
            }
            Kind::Heat3d => {
                let (n, t) = if small { heat3d::SMALL } else { heat3d::FULL };
                b.heat3d(n, t, reps)
            }
            Kind::DotPartials | Kind::DotDirect => {
                b.dot(if small { dot::SMALL_N } else { dot::FULL_N }, reps)
            }
            Kind::SoftmaxTwoPass | Kind::SoftmaxOnline | Kind::SoftmaxRows => {
                b.softmax(if small { softmax::SMALL } else { softmax::FULL }, reps)
            }
        }
    }
}

/// (N, TSTEPS) of the 8192^2 stencil row (its `--small` form otherwise).
fn stencil2d_sizes(small: bool) -> (usize, usize) {
    if small {
        jacobi2d::WIDE_SMALL
    } else {
        jacobi2d::WIDE
    }
}

/// One row of the main table.
struct KernelRow {
    name: String,
    sizes: String,
    bytes: f64,
    flops: f64,
    ms: f64,
    check_passed: bool,
    check_detail: String,
    counts: sdfg::runtime::Counters,
    target_pct: f64,
    baseline: Option<(f64, bool, String)>,
}

impl KernelRow {
    fn gbs(&self) -> f64 {
        gb_per_s(self.bytes, self.ms)
    }
    fn pct(&self, copy_gbs: f64) -> f64 {
        100.0 * self.gbs() / copy_gbs
    }
    fn baseline_pct(&self, copy_gbs: f64) -> Option<f64> {
        self.baseline
            .as_ref()
            .map(|(ms, ..)| 100.0 * gb_per_s(self.bytes, *ms) / copy_gbs)
    }
}

fn main() -> AnyResult<()> {
    let opts = Options::from_env();
    let device = Device::auto();
    let small = use_small_sizes(&device, &opts);
    let gpu = device.is_gpu();
    let reps = Reps {
        warmup: opts.get("warmup", 3),
        timed: opts.get("reps", if gpu { 20 } else { 5 }).max(1),
    };
    let calls: usize = opts.get("calls", 1000);
    let out_dir: String = opts.get("out", "docs".to_string());
    let only: Option<String> = opts.value("only");
    let selected = |k: Kind| {
        only.as_deref()
            .map_or(true, |list| list.split(',').any(|n| n == k.family()))
    };
    let mut seeds = Seeds::new(&opts);

    println!("sdfg-rs benchmarks on {}", device.name());
    println!(
        "  sizes: {}; {} warm-up + {} timed calls per kernel (median, device events)",
        if small { "small" } else { "full" },
        reps.warmup,
        reps.timed
    );

    // First, before anything else loads Heat3d's module in this process.
    let load = module_load(gpu)?;
    let stream = device.new_stream()?;
    let copy_bytes: usize = if small { 64 << 20 } else { 1 << 30 };
    let copy_gbs = copy_bandwidth(&device, &stream, copy_bytes, reps)?;
    println!(
        "  device-to-device copy of {} MiB: {copy_gbs:.1} GB/s (read + write bytes)",
        copy_bytes >> 20
    );

    // A failure of the raw baseline machinery is reported, not fatal: the
    // SDFG measurements stand on their own.
    let raw = if gpu {
        RawCuda::new()
            .map_err(|e| eprintln!("raw cudarc unavailable: {e}"))
            .ok()
    } else {
        None
    };
    let baselines = raw.as_ref().and_then(|r| {
        Baselines::new(r, seeds.next())
            .map_err(|e| eprintln!("baselines.ptx did not load: {e}"))
            .ok()
    });

    let mut rows = Vec::new();
    for kind in KINDS.into_iter().filter(|k| selected(*k)) {
        let mut work = kind.load(&device, small)?;
        println!("  running {} ...", work.name());
        let check = work.check(seeds.next())?;
        let ms = median_ms(reps.warmup, reps.timed, || work.time_once(&stream))?;
        let before = device.counters();
        work.run_plain()?;
        let counts = device.counters() - before;
        let row = KernelRow {
            name: work.name().to_string(),
            sizes: work.sizes(),
            bytes: work.min_bytes(),
            flops: work.flops(),
            ms,
            check_passed: check.passed,
            check_detail: check.detail,
            counts,
            target_pct: kind.target_pct(),
            baseline: None,
        };
        drop(work); // free its device memory before the baseline allocates
        let baseline = match &baselines {
            Some(b) => match kind.baseline(b, small, reps) {
                Ok(r) => Some((r.ms, r.check.passed, r.check.detail)),
                Err(e) => {
                    eprintln!("baseline of {}: {e}", row.name);
                    Some((f64::NAN, false, format!("error: {e}")))
                }
            },
            None => None,
        };
        rows.push(KernelRow { baseline, ..row });
    }

    let shape_rows = if gpu && selected(Kind::Stencil2d) {
        println!("  running stencil2d launch shapes ...");
        shapes::stencil_shapes(
            &device,
            &stream,
            stencil2d_sizes(small).0,
            reps.warmup,
            reps.timed,
        )?
    } else {
        Vec::new()
    };

    let overhead = host_overhead(&device, raw.as_ref(), calls)?;
    // The secondary sections first; the main tables last, where the end of
    // a long log shows them.
    let cpu_rows = cpu_device_section(reps, &selected)?;
    ptxas_report(&selected);
    println!();
    println!("Module load (wall clock, Heat3d):");
    println!(
        "  first load on a fresh device (the PTX JIT on a GPU): {:.2} ms; second load (cached): {:.4} ms",
        load.0, load.1
    );
    print_overhead(&overhead);
    print_shapes(&shape_rows, copy_gbs);
    print_kernel_table(&rows, copy_gbs, gpu);

    let mut failed: Vec<&str> = rows
        .iter()
        .filter(|r| !r.check_passed || r.baseline.as_ref().is_some_and(|b| !b.1))
        .map(|r| r.name.as_str())
        .collect();
    if shape_rows.iter().any(|r| r.mismatch.is_some()) {
        failed.push("stencil2d launch shapes");
    }
    std::fs::create_dir_all(&out_dir)?;
    let json = to_json(
        &device,
        small,
        reps,
        copy_gbs,
        &rows,
        &overhead,
        load,
        &cpu_rows,
        &shape_rows,
    );
    std::fs::write(
        format!("{out_dir}/benchmarks.json"),
        serde_json::to_string_pretty(&json)? + "\n",
    )?;
    std::fs::write(
        format!("{out_dir}/benchmarks.svg"),
        to_svg(&device, copy_gbs, &rows),
    )?;
    println!();
    println!("wrote {out_dir}/benchmarks.json and {out_dir}/benchmarks.svg");
    if !failed.is_empty() {
        eprintln!("FAILED checks: {}", failed.join(", "));
        std::process::exit(1);
    }
    Ok(())
}

/// Median GB/s of a `copy_bytes` device-to-device copy (bytes read plus
/// bytes written), the bandwidth ceiling the kernels are compared with.
fn copy_bandwidth(
    device: &Device,
    stream: &Stream,
    copy_bytes: usize,
    reps: Reps,
) -> AnyResult<f64> {
    let len = copy_bytes / 4;
    let src = DeviceBuffer::from_slice(device, &common::random_f32(len, 7))?;
    let dst = DeviceBuffer::<f32>::zeros(device, len)?;
    let region = Region::whole(len);
    let ms = median_ms(reps.warmup, reps.timed, || {
        Ok(device_time_ms(stream, |s| {
            s.copy_device(&src, &region, &dst, &region)?;
            s.record_timing_event()
        })?)
    })?;
    Ok(gb_per_s(2.0 * copy_bytes as f64, ms))
}

fn met(value: f64, target: f64, higher_is_better: bool) -> String {
    let ok = if higher_is_better {
        value >= target
    } else {
        value <= target
    };
    let margin = value - target;
    format!("{} ({margin:+.1})", if ok { "met" } else { "MISSED" })
}

/// The stencil's launch shapes, fastest first.
fn print_shapes(rows: &[shapes::ShapeRow], copy_gbs: f64) {
    if rows.is_empty() {
        return;
    }
    println!();
    println!(
        "stencil2d launch shapes (one jacobi sweep B from A; median ms of event-timed sweeps):"
    );
    let mut sorted: Vec<&shapes::ShapeRow> = rows.iter().collect();
    sorted.sort_by(|a, b| a.ms.total_cmp(&b.ms));
    let mut t = Table::new(&["shape", "ms/sweep", "GB/s", "% copy", "check"]);
    for r in sorted {
        t.row(vec![
            r.label(),
            format!("{:.4}", r.ms),
            format!("{:.1}", r.gb_per_s),
            format!("{:.1}", 100.0 * r.gb_per_s / copy_gbs),
            r.mismatch.clone().unwrap_or_else(|| "bit-exact".into()),
        ]);
    }
    t.print();
}

/// Sizes and checks per kernel, then the main table (printed last).
fn print_kernel_table(rows: &[KernelRow], copy_gbs: f64, gpu: bool) {
    println!();
    println!("Kernels: sizes, checks, work:");
    for r in rows {
        println!("  {:<20} {}", r.name, r.sizes);
        println!("    check: {}", r.check_detail);
        if let Some((_, _, detail)) = &r.baseline {
            println!("    baseline check: {detail}");
        }
        let gflops = r.flops / (r.ms * 1e-3) / 1e9;
        println!(
            "    {:.0} MB moved at least, {:.2} GFLOP/s, {} kernel launches per run()",
            r.bytes / 1e6,
            gflops,
            r.counts.kernel_launches
        );
    }
    println!();
    println!(
        "Kernels (median ms of device-event-timed calls; GB/s over the minimum bytes; \
         % of the {copy_gbs:.1} GB/s copy bandwidth):"
    );
    let mut t = Table::new(&[
        "kernel",
        "ms",
        "GB/s",
        "% copy",
        "target %",
        "target",
        "baseline ms",
        "baseline %",
        "sdfg/base",
        "syncs/run",
        "ev.waits/run",
        "check",
    ]);
    for r in rows {
        let pct = r.pct(copy_gbs);
        let (b_ms, b_pct, ratio) = match &r.baseline {
            Some((ms, ..)) => (
                format!("{ms:.3}"),
                format!("{:.1}", r.baseline_pct(copy_gbs).unwrap_or(0.0)),
                format!("{:.2}x", r.ms / ms),
            ),
            None => ("n/a".into(), "n/a".into(), "n/a".into()),
        };
        let check = match &r.baseline {
            Some((_, ok, _)) if !*ok => "base FAILED".to_string(),
            _ if r.check_passed => "passed".to_string(),
            _ => "FAILED".to_string(),
        };
        t.row(vec![
            r.name.clone(),
            format!("{:.3}", r.ms),
            format!("{:.1}", r.gbs()),
            format!("{pct:.1}"),
            format!("{:.0}", r.target_pct),
            met(pct, r.target_pct, true),
            b_ms,
            b_pct,
            ratio,
            r.counts.host_syncs.to_string(),
            r.counts.event_waits.to_string(),
            check,
        ]);
    }
    t.print();
    if !gpu {
        println!("  (baselines: n/a on the CPU device; the targets are GPU targets)");
    }
}

/// Host-side cost of a call, in microseconds (medians over `calls` calls).
struct Overhead {
    calls: usize,
    run1_us: f64,
    run10_us: f64,
    raw1_us: Option<f64>,
    raw10_us: Option<f64>,
}

/// `run()` of a one-kernel and a ten-kernel SDFG against raw launches of the
/// same generated PTX + one stream synchronization.
fn host_overhead(device: &Device, raw: Option<&RawCuda>, calls: usize) -> AnyResult<Overhead> {
    let y0 = common::random_f32(TINY_N, 99);
    let mut y = DeviceBuffer::from_slice(device, &y0)?;
    let tiny = Tiny::load(device)?;
    let tiny10 = Tiny10::load(device)?;
    let n = TINY_N as i64;
    let per_call_us = |f: &mut dyn FnMut() -> AnyResult<()>| -> AnyResult<f64> {
        for _ in 0..calls.min(50) {
            f()?; // warm-up
        }
        let mut samples = Vec::with_capacity(calls);
        for _ in 0..calls {
            let t = Instant::now();
            f()?;
            samples.push(t.elapsed().as_secs_f64() * 1e6);
        }
        Ok(median(&samples))
    };
    let run1_us = per_call_us(&mut || Ok(tiny.run(TinyArgs { N: n, Y: &mut y })?))?;
    let run10_us = per_call_us(&mut || Ok(tiny10.run(Tiny10Args { N: n, Y: &mut y })?))?;
    let (raw1_us, raw10_us) = match raw {
        Some(cuda) => {
            let measure = |ptx: &str, ir: sdfg::compiler::ir::Sdfg| {
                raw_launches(cuda, ptx, &ir, &per_call_us)
                    .map_err(|e| eprintln!("raw launches of the generated PTX: {e}"))
                    .ok()
            };
            (
                measure(Tiny::PTX, Tiny::ir()?),
                measure(Tiny10::PTX, Tiny10::ir()?),
            )
        }
        None => (None, None),
    };
    Ok(Overhead {
        calls,
        run1_us,
        run10_us,
        raw1_us,
        raw10_us,
    })
}

/// Times a call (given as a closure) on the host: median µs.
type PerCallUs<'a> = &'a dyn Fn(&mut dyn FnMut() -> AnyResult<()>) -> AnyResult<f64>;

/// Median µs of: every kernel of the SDFG launched through raw cudarc on
/// its own stream, then one `cuStreamSynchronize`. The kernels' parameter
/// lists come from the ABI (`Name::ir()` -> `codegen::ptx::generate`): a
/// buffer `Y`, its extent, the map range (start, count, step), the fault
/// word. Checks that the launches did the work (Y + 1 per kernel per call).
fn raw_launches(
    cuda: &RawCuda,
    ptx_text: &str,
    ir: &sdfg::compiler::ir::Sdfg,
    per_call_us: PerCallUs<'_>,
) -> AnyResult<f64> {
    let generated = sdfg::compiler::codegen::ptx::generate(ir);
    let module = cuda.load_module(ptx_text)?;
    let y0 = common::random_f32(TINY_N, 98);
    let y = cuda.upload(&y0)?;
    let fault = cuda.upload(&[0u32])?;
    let mut launches = Vec::new();
    for k in &generated.kernels {
        let values: Vec<&ParamValue> = k.abi.params.iter().map(|p| &p.value).collect();
        let expected = matches!(
            values.as_slice(),
            [
                ParamValue::Buffer { .. },
                ParamValue::Extent { .. },
                ParamValue::RangeStart(0),
                ParamValue::RangeCount(0),
                ParamValue::RangeStep(0),
                ParamValue::Fault
            ]
        );
        if !expected {
            return Err(format!("{}: unexpected kernel ABI {:?}", k.abi.name, k.abi.params).into());
        }
        // The launch geometry of docs/PTX.md for a 1-D map.
        let per_block = (k.block[0] * k.items_per_thread) as usize;
        let grid = (TINY_N.div_ceil(per_block) as u32).min(cuda.sm_count * 32);
        launches.push((module.function(&k.abi.name)?, grid, k.block));
    }
    let mut total_calls = 0usize;
    let us = per_call_us(&mut || {
        for (f, grid, block) in &launches {
            let (mut py, mut ext, mut start, mut count, mut step, mut pf) =
                (y.ptr, TINY_N as u64, 0i64, TINY_N as u64, 1i64, fault.ptr);
            let mut params = [
                arg(&mut py),
                arg(&mut ext),
                arg(&mut start),
                arg(&mut count),
                arg(&mut step),
                arg(&mut pf),
            ];
            // SAFETY: the parameter list was checked against the ABI above;
            // y holds TINY_N f32s, fault one u32.
            unsafe {
                cuda.launch(
                    *f,
                    (*grid, 1, 1),
                    (block[0], block[1], block[2]),
                    &mut params,
                )
            }?;
        }
        cuda.synchronize()?;
        total_calls += 1;
        Ok(())
    })?;
    // Every element gained 1.0 per kernel per call, in f32 as the kernel adds.
    let got: Vec<f32> = cuda.download(&y)?;
    let adds = total_calls * launches.len();
    let ok = got.iter().zip(&y0).all(|(&g, &v)| {
        let mut want = v;
        for _ in 0..adds {
            want += 1.0;
        }
        g.to_bits() == want.to_bits()
    });
    let fault_word: Vec<u32> = cuda.download(&fault)?;
    if !ok || fault_word[0] != 0 {
        return Err("raw launches of the generated kernels computed a wrong result".into());
    }
    Ok(us)
}

fn print_overhead(o: &Overhead) {
    println!();
    println!(
        "Host overhead (wall clock per call, median of {} calls, {} f32 per map):",
        o.calls, TINY_N
    );
    let mut t = Table::new(&[
        "call",
        "sdfg run() us",
        "raw us",
        "per kernel +us",
        "target",
    ]);
    for (name, kernels, run, raw) in [
        ("1 kernel", 1.0, o.run1_us, o.raw1_us),
        ("10 kernels", 10.0, o.run10_us, o.raw10_us),
    ] {
        let (raw_s, extra, target) = match raw {
            Some(r) => {
                let extra = (run - r) / kernels;
                (
                    format!("{r:.2}"),
                    format!("{extra:+.2}"),
                    met(extra, 1.0, false),
                )
            }
            None => ("n/a".into(), "n/a".into(), "n/a on the CPU device".into()),
        };
        t.row(vec![name.into(), format!("{run:.2}"), raw_s, extra, target]);
    }
    t.print();
    println!("  target: run() <= raw launches + one sync + 1 us per kernel");
}

/// Wall-clock ms of the first `Heat3d::load` on a fresh device (the PTX JIT
/// on a GPU) and of a second load on the same device (the module cache).
fn module_load(gpu: bool) -> AnyResult<(f64, f64)> {
    let fresh = if gpu { Device::gpu(0)? } else { Device::cpu() };
    let (first, first_ms) = wall_ms(|| heat3d::Heat3d::load(&fresh));
    first?;
    let (second, second_ms) = wall_ms(|| heat3d::Heat3d::load(&fresh));
    second?;
    Ok((first_ms, second_ms))
}

/// One row of the CPU device table: (name, sizes, sdfg ms, rayon ms).
type CpuRow = (String, String, f64, f64);

/// Every example on the CPU device (small sizes) against the plain Rust
/// rayon version of the same loop nest; wall-clock medians.
fn cpu_device_section(reps: Reps, selected: &dyn Fn(Kind) -> bool) -> AnyResult<Vec<CpuRow>> {
    let cpu = Device::cpu();
    let mut out = Vec::new();
    for kind in KINDS.into_iter().filter(|k| selected(*k)) {
        let mut work = kind.load(&cpu, true)?;
        let mut sdfg_ms = Vec::new();
        let mut rayon_ms = Vec::new();
        for rep in 0..reps.warmup.min(1) + reps.timed {
            let (result, ms) = wall_ms(|| work.run_plain());
            result?;
            let host = work.host_version_ms();
            if rep >= reps.warmup.min(1) {
                sdfg_ms.push(ms);
                rayon_ms.push(host);
            }
        }
        out.push((
            work.name().to_string(),
            work.sizes(),
            median(&sdfg_ms),
            median(&rayon_ms),
        ));
    }
    println!();
    println!(
        "CPU device ({}; small sizes; wall-clock medians of run() vs plain Rust rayon):",
        cpu.name()
    );
    let mut t = Table::new(&["kernel", "sdfg ms", "rayon ms", "sdfg/rayon", "sizes"]);
    for (name, sizes, s, r) in &out {
        t.row(vec![
            name.clone(),
            format!("{s:.3}"),
            format!("{r:.3}"),
            format!("{:.2}x", s / r),
            sizes.clone(),
        ]);
    }
    t.print();
    Ok(out)
}

/// Registers and spills per kernel from `ptxas -v` (only when `SDFG_PTXAS`
/// names a ptxas binary).
fn ptxas_report(selected: &dyn Fn(Kind) -> bool) {
    if std::env::var_os("SDFG_PTXAS").is_none() {
        return;
    }
    use sdfg::compiler::codegen::ptx::ptxas;
    let modules: [(Option<Kind>, &str, &str); 10] = [
        (Some(Kind::Axpy), "Axpy", axpy::Axpy::PTX),
        (Some(Kind::Jacobi2d), "Jacobi2d", jacobi2d::Jacobi2d::PTX),
        (Some(Kind::Heat3d), "Heat3d", heat3d::Heat3d::PTX),
        (
            Some(Kind::DotPartials),
            "DotPartials",
            dot::DotPartials::PTX,
        ),
        (Some(Kind::DotDirect), "DotDirect", dot::DotDirect::PTX),
        (
            Some(Kind::SoftmaxTwoPass),
            "SoftmaxTwoPass",
            softmax::SoftmaxTwoPass::PTX,
        ),
        (
            Some(Kind::SoftmaxOnline),
            "SoftmaxOnline",
            softmax::SoftmaxOnline::PTX,
        ),
        (
            Some(Kind::SoftmaxRows),
            "SoftmaxRows",
            softmax::SoftmaxRows::PTX,
        ),
        (None, "Tiny10", Tiny10::PTX),
        (None, "baselines.ptx", baselines::PTX),
    ];
    println!();
    println!("ptxas -arch=sm_90 -v (registers, spills, stack per kernel):");
    let mut t = Table::new(&["module", "kernel", "registers", "spill st/ld", "stack"]);
    for (kind, module, ptx) in modules {
        if kind.is_some_and(|k| !selected(k)) {
            continue;
        }
        match ptxas::assemble_check(ptx) {
            Ok(Some(log)) => {
                for u in ptxas::resource_usage(&log) {
                    t.row(vec![
                        module.into(),
                        u.function,
                        u.registers.to_string(),
                        format!("{}/{}", u.spill_stores, u.spill_loads),
                        u.stack_frame.to_string(),
                    ]);
                }
            }
            Ok(None) => {
                println!("  SDFG_PTXAS is set but ptxas did not run");
                return;
            }
            Err(e) => println!("  {module}: ptxas rejected it: {e}"),
        }
    }
    t.print();
}

#[allow(clippy::too_many_arguments)]
fn to_json(
    device: &Device,
    small: bool,
    reps: Reps,
    copy_gbs: f64,
    rows: &[KernelRow],
    o: &Overhead,
    load: (f64, f64),
    cpu_rows: &[CpuRow],
    shape_rows: &[shapes::ShapeRow],
) -> serde_json::Value {
    use serde_json::json;
    let kernels: Vec<_> = rows
        .iter()
        .map(|r| {
            json!({
                "name": r.name,
                "sizes": r.sizes,
                "min_bytes": r.bytes,
                "flops": r.flops,
                "median_ms": r.ms,
                "gb_per_s": r.gbs(),
                "percent_of_copy": r.pct(copy_gbs),
                "target_percent": r.target_pct,
                "target_met": r.pct(copy_gbs) >= r.target_pct,
                "check_passed": r.check_passed,
                "check": r.check_detail,
                "host_syncs_per_run": r.counts.host_syncs,
                "event_waits_per_run": r.counts.event_waits,
                "kernel_launches_per_run": r.counts.kernel_launches,
                "baseline_median_ms": r.baseline.as_ref().map(|b| b.0),
                "baseline_percent_of_copy": r.baseline_pct(copy_gbs),
                "baseline_check_passed": r.baseline.as_ref().map(|b| b.1),
            })
        })
        .collect();
    let cpu: Vec<_> = cpu_rows
        .iter()
        .map(|(name, sizes, s, r)| json!({"name": name, "sizes": sizes, "sdfg_ms": s, "rayon_ms": r}))
        .collect();
    let shapes: Vec<_> = shape_rows
        .iter()
        .map(|r| {
            json!({
                "block": r.tuning.block_2d,
                "items_x": r.tuning.items_2d,
                "rows_y": r.tuning.rows_2d,
                "default": r.is_default(),
                "median_ms_per_sweep": r.ms,
                "gb_per_s": r.gb_per_s,
                "percent_of_copy": 100.0 * r.gb_per_s / copy_gbs,
                "bit_exact": r.mismatch.is_none(),
            })
        })
        .collect();
    json!({
        "device": device.name(),
        "is_gpu": device.is_gpu(),
        "sizes": if small { "small" } else { "full" },
        "warmup": reps.warmup,
        "timed_runs": reps.timed,
        "copy_gb_per_s": copy_gbs,
        "kernels": kernels,
        "host_overhead_us": {
            "calls": o.calls,
            "run_1_kernel": o.run1_us,
            "run_10_kernels": o.run10_us,
            "raw_1_kernel": o.raw1_us,
            "raw_10_kernels": o.raw10_us,
        },
        "module_load_ms": {"first": load.0, "cached": load.1},
        "cpu_device": cpu,
        "stencil2d_launch_shapes": shapes,
    })
}

/// A horizontal bar chart of % of the copy bandwidth per kernel: the SDFG
/// version, the baseline (when measured) and the target as a tick.
fn to_svg(device: &Device, copy_gbs: f64, rows: &[KernelRow]) -> String {
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let (left, width, row_h, top) = (170.0, 560.0, 44.0, 60.0);
    let max_pct = rows
        .iter()
        .flat_map(|r| [r.pct(copy_gbs), r.baseline_pct(copy_gbs).unwrap_or(0.0)])
        .fold(100.0f64, f64::max)
        .ceil();
    let x = |pct: f64| left + width * pct.max(0.0) / max_pct;
    let height = top + row_h * rows.len() as f64 + 50.0;
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="780" height="{height}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="10" y="20" font-size="14" font-weight="bold">sdfg-rs: % of device-to-device copy bandwidth ({copy:.0} GB/s)</text>
<text x="10" y="38">{dev}. Blue: sdfg; gray: hand-written PTX baseline; red tick: target.</text>
"#,
        copy = copy_gbs,
        dev = escape(&device.name())
    );
    for pct in (0..=max_pct as usize).step_by(25) {
        let gx = x(pct as f64);
        svg += &format!(
            "<line x1=\"{gx:.1}\" y1=\"{top}\" x2=\"{gx:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/>\n<text x=\"{gx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{pct}%</text>\n",
            height - 40.0,
            height - 25.0
        );
    }
    for (i, r) in rows.iter().enumerate() {
        let y = top + row_h * i as f64;
        let pct = r.pct(copy_gbs);
        svg += &format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\n",
            left - 8.0,
            y + 18.0,
            escape(&r.name)
        );
        svg += &format!(
            "<rect x=\"{left}\" y=\"{:.1}\" width=\"{:.1}\" height=\"16\" fill=\"#3a6fb0\"/>\n<text x=\"{:.1}\" y=\"{:.1}\">{pct:.1}%</text>\n",
            y + 4.0,
            x(pct) - left,
            x(pct) + 4.0,
            y + 16.0
        );
        if let Some(b) = r.baseline_pct(copy_gbs) {
            svg += &format!(
                "<rect x=\"{left}\" y=\"{:.1}\" width=\"{:.1}\" height=\"12\" fill=\"#999\"/>\n<text x=\"{:.1}\" y=\"{:.1}\" fill=\"#555\">{b:.1}%</text>\n",
                y + 22.0,
                x(b) - left,
                x(b) + 4.0,
                y + 32.0
            );
        }
        let tx = x(r.target_pct);
        svg += &format!(
            "<line x1=\"{tx:.1}\" y1=\"{:.1}\" x2=\"{tx:.1}\" y2=\"{:.1}\" stroke=\"#c00\" stroke-width=\"2\"/>\n",
            y + 2.0,
            y + 36.0
        );
    }
    svg += "</svg>\n";
    svg
}
