//! Every example as a benchmark, against hand-written PTX baselines launched
//! through raw cudarc (gemm: cuBLAS, loaded at run time), plus host overhead, syncs per call, module load time
//! and the CPU device against plain Rust (rayon). Prints tables and writes
//! `docs/benchmarks.json` and `docs/benchmarks.svg` on a GPU, in
//! `target/bench/` on the CPU device (so a run without a GPU leaves the
//! recorded GPU figures alone; `--out DIR` elsewhere).
//!
//! Run: `cargo run --release --example bench` (the GPU when there is one,
//! else the CPU device with small sizes). Options: `--small`, `--reps 20`,
//! `--warmup 3`, `--calls 1000` (host overhead), `--only NAME[,NAME]`,
//! `--seed S`, `--out DIR`; for the CPU device section: `--threads N` (the
//! CPU device's kernel threads and rayon's; default `RAYON_NUM_THREADS`,
//! else one per core), `--cpu-scales 1,16` (element-count factors over the
//! small sizes), `--cpu-reps 15`, and `--cpu-only` (that section and the
//! CPU device's host overhead, nothing else). Method and byte counts:
//! docs/BENCHMARKS.md.
//!
//! The parts: [`kinds`] (what is benchmarked, its baseline and target),
//! [`overhead`] (host cost of a call against raw launches), [`graphs`]
//! (graph and stream modes side by side, the first load in a new
//! process), [`cpu`] (the CPU device against plain Rust), [`sections`]
//! (module load, ptxas), [`report`] (the printed tables) and [`output`]
//! (`benchmarks.json` and `.svg`). The workloads themselves live in
//! `examples/common/`, shared with the examples.

#[path = "../common/axpy.rs"]
mod axpy;
#[path = "../common/baselines.rs"]
mod baselines;
#[path = "../common/mod.rs"]
mod common;
#[path = "../common/converge.rs"]
mod converge;
#[path = "../common/cublas.rs"]
mod cublas;
#[path = "../common/dot.rs"]
mod dot;
#[path = "../common/gemm.rs"]
mod gemm;
#[path = "../common/heat3d.rs"]
mod heat3d;
#[path = "../common/jacobi2d.rs"]
mod jacobi2d;
#[path = "../common/raw.rs"]
mod raw;
#[path = "../common/shapes.rs"]
mod shapes;
#[path = "../common/softmax.rs"]
mod softmax;

mod cpu;
mod graphs;
mod kinds;
mod output;
mod overhead;
mod persistent;
mod report;
mod sections;

use baselines::{Baselines, Reps};
use common::{device_time_ms, gb_per_s, median_ms, use_small_sizes, AnyResult, Options, Seeds};
use kinds::{stencil2d_sizes, Kind, KINDS};
use output::{to_json, to_svg};
use overhead::{host_overhead, print_overhead};
use raw::RawCuda;
use report::{print_kernel_table, print_shapes, KernelRow};
use sdfg::prelude::*;
use sdfg::runtime::Region;
use sections::{module_load, ptxas_report};

fn main() -> AnyResult<()> {
    if std::env::args().any(|a| a == graphs::CHILD_FLAG) {
        graphs::first_load_child();
    }
    let opts = Options::from_env();
    // First, before anything uses rayon: the threads of the CPU device
    // section (the CPU device takes the current pool's thread count).
    if let Some(threads) = opts.value::<usize>("threads") {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build_global()?;
    }
    if opts.flag("cpu-only") {
        return cpu_only(&opts);
    }
    let device = Device::auto();
    let small = use_small_sizes(&device, &opts);
    let gpu = device.is_gpu();
    let reps = Reps {
        warmup: opts.get("warmup", 3),
        timed: opts.get("reps", if gpu { 20 } else { 5 }).max(1),
    };
    let calls: usize = opts.get("calls", 1000);
    // docs/ holds the GPU's figures: a run on the CPU device writes elsewhere.
    let out_dir: String = opts.get("out", if gpu { "docs" } else { "target/bench" }.to_string());
    let only: Option<String> = opts.value("only");
    let selected = |k: Kind| {
        only.as_deref()
            .is_none_or(|list| list.split(',').any(|n| n == k.family()))
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
            ceiling: kind.ceiling(),
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
    let heat3d_shape_n = if small { 40 } else { 120 };
    let heat3d_shape_rows = if gpu && selected(Kind::Heat3d) {
        println!("  running heat3d launch shapes ...");
        shapes::heat3d_shapes(&device, &stream, heat3d_shape_n, reps.warmup, reps.timed)?
    } else {
        Vec::new()
    };

    let graph_rows = graphs::graph_rows(&device, &stream, reps, small, seeds.next())?;
    let persistent_row = persistent::persistent_row(&device, &stream, reps, small, seeds.next())?;
    let first_loads = if gpu {
        graphs::first_loads()
            .map_err(|e| eprintln!("first loads in new processes: {e}"))
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    let overhead = host_overhead(&device, raw.as_ref(), calls)?;
    // The secondary sections first; the main tables last, where the end of
    // a long log shows them.
    let cpu = Device::cpu();
    let cpu_reps = Reps {
        warmup: 1,
        timed: opts.get("cpu-reps", 15).max(1),
    };
    let scales = cpu::scales(opts.value("cpu-scales"));
    let cpu_rows = cpu::cpu_device_section(&cpu, cpu_reps, &scales, &mut seeds, &selected)?;
    cpu::print_cpu_rows(&cpu, cpu_reps, &cpu_rows);
    ptxas_report(&selected);
    println!();
    println!("Module load (wall clock, Heat3d):");
    println!(
        "  first load on a fresh device (the PTX JIT on a GPU): {:.2} ms; second load (cached): {:.4} ms",
        load.0, load.1
    );
    graphs::print_first_loads(&first_loads);
    print_overhead(&overhead);
    graphs::print_graph_rows(&graph_rows);
    persistent::print_persistent_row(&persistent_row, small);
    print_shapes(
        "stencil2d launch shapes (one jacobi sweep B from A",
        &shape_rows,
        copy_gbs,
    );
    print_shapes(
        &format!("heat3d launch shapes (one 7-point sweep B from A, N = {heat3d_shape_n}"),
        &heat3d_shape_rows,
        copy_gbs,
    );
    print_kernel_table(&rows, copy_gbs, gpu);

    let mut failed: Vec<&str> = rows
        .iter()
        .filter(|r| !r.check_passed || r.baseline.as_ref().is_some_and(|b| !b.1))
        .map(|r| r.name.as_str())
        .collect();
    failed.extend(
        cpu_rows
            .iter()
            .filter(|r| !r.check_passed)
            .map(|r| r.name.as_str()),
    );
    if shape_rows.iter().any(|r| r.mismatch.is_some()) {
        failed.push("stencil2d launch shapes");
    }
    if heat3d_shape_rows.iter().any(|r| r.mismatch.is_some()) {
        failed.push("heat3d launch shapes");
    }
    failed.extend(
        graph_rows
            .iter()
            .filter(|r| !r.passed())
            .map(|r| r.name.as_str()),
    );
    if !persistent_row.passed() {
        failed.push("heat3d (persistent or two-step)");
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
        &graph_rows,
        &first_loads,
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

/// `--cpu-only`: the CPU device against plain Rust and the CPU device's
/// host overhead; prints the tables and writes `cpu_benchmarks.json`.
fn cpu_only(opts: &Options) -> AnyResult<()> {
    let only: Option<String> = opts.value("only");
    let selected = |k: Kind| {
        only.as_deref()
            .is_none_or(|list| list.split(',').any(|n| n == k.family()))
    };
    let mut seeds = Seeds::new(opts);
    let cpu = Device::cpu();
    let reps = Reps {
        warmup: opts.get("warmup", 1),
        timed: opts.get("cpu-reps", 15).max(1),
    };
    let scales = cpu::scales(opts.value("cpu-scales"));
    println!(
        "sdfg-rs benchmarks: the CPU device ({}) against plain Rust",
        cpu.name()
    );
    let overhead = host_overhead(&cpu, None, opts.get("calls", 1000))?;
    let rows = cpu::cpu_device_section(&cpu, reps, &scales, &mut seeds, &selected)?;
    print_overhead(&overhead);
    cpu::print_cpu_rows(&cpu, reps, &rows);
    let out_dir: String = opts.get("out", "docs".to_string());
    std::fs::create_dir_all(&out_dir)?;
    let json = serde_json::json!({
        "device": cpu.name(),
        "timed_runs": reps.timed,
        "host_overhead_us": output::overhead_json(&overhead),
        "cpu_device": output::cpu_json(&rows),
    });
    std::fs::write(
        format!("{out_dir}/cpu_benchmarks.json"),
        serde_json::to_string_pretty(&json)? + "\n",
    )?;
    println!();
    println!("wrote {out_dir}/cpu_benchmarks.json");
    if rows.iter().any(|r| !r.check_passed) {
        eprintln!("FAILED checks on the CPU device");
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
