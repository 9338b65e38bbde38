//! The CPU device against plain Rust: every workload's `run()` on the CPU
//! device next to the rayon version of the same loop nest, at the small
//! sizes and at larger ones (`--cpu-scales 1,16`: element-count factors),
//! on the threads `--threads N` (or `RAYON_NUM_THREADS`) gives both.
//!
//! Each row first runs warm-up pairs (with `--cpu-only` at least
//! `--warmup` of them, else one, and at least [`WARMUP_MS`] of them),
//! then timed reps (at least `--cpu-reps` and at least [`TIMED_MS`] of
//! them), each timing one `run()` and then one rayon call, back to
//! back, so both see the same machine; the table gives the medians of the
//! timed reps and the median of the per-rep ratios (robust on a shared machine,
//! where the load changes between reps but rarely within one), against the
//! issue's target (<= 1.3x, reductions <= 1.5x), and the workload's
//! correctness check on the CPU device.

use crate::baselines::Reps;
use crate::common::{median, wall_ms, AnyResult, Seeds, Table};
use crate::kinds::{Kind, KINDS};
use sdfg::prelude::*;

/// The least wall time of the warm-up pairs of each row. With one
/// warm-up pair, rows whose calls take well under a millisecond (the
/// small sizes) were bimodal from one process to the next on a 2-core
/// machine, on both sides (rayon's dot 0.46-0.49 ms or 0.89-0.93): the
/// first tens of milliseconds of a row run slower, and 15 timed reps fit
/// inside them. After 100 ms of warm-up pairs most processes gave steady
/// medians; some still run a row in a slow mode on one side (five of seven
/// full 2-thread runs met every row; docs/BENCHMARKS.md).
const WARMUP_MS: f64 = 100.0;

/// The least wall time of the timed pairs of each row. On a 2-core
/// machine one side of a row could run in a slow mode for a few
/// milliseconds, the whole of 15 timed pairs of a small row: rows of
/// fresh workloads in one process gave axpy x1 1.01x to 2.22x. Pairs
/// over 200 ms span several such spells, and the median of their ratios
/// is that of the row, not of one spell (docs/BENCHMARKS.md).
const TIMED_MS: f64 = 200.0;

/// At most this many timed pairs per row (calls of a few microseconds).
const MAX_TIMED_REPS: usize = 20_000;

/// One row of the CPU device table.
pub(crate) struct CpuRow {
    pub(crate) name: String,
    pub(crate) sizes: String,
    /// The element-count factor over the small sizes.
    pub(crate) scale: usize,
    pub(crate) sdfg_ms: f64,
    pub(crate) rayon_ms: f64,
    /// The median of the per-rep ratios sdfg/rayon.
    pub(crate) ratio: f64,
    /// The target ratio sdfg/rayon.
    pub(crate) target: f64,
    pub(crate) check_passed: bool,
}

impl CpuRow {
    pub(crate) fn ratio(&self) -> f64 {
        self.ratio
    }
}

/// The `--cpu-scales` list (default `1,16`).
pub(crate) fn scales(text: Option<String>) -> Vec<usize> {
    let text = text.unwrap_or_else(|| "1,16".into());
    let scales: Vec<usize> = text
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .filter(|&s| s > 0)
        .collect();
    if scales.is_empty() {
        eprintln!("error: `--cpu-scales {text}`: give factors like 1,16");
        std::process::exit(2);
    }
    scales
}

/// Every selected workload on `cpu` at each scale against its rayon version.
pub(crate) fn cpu_device_section(
    cpu: &Device,
    reps: Reps,
    scales: &[usize],
    seeds: &mut Seeds,
    selected: &dyn Fn(Kind) -> bool,
) -> AnyResult<Vec<CpuRow>> {
    let mut out = Vec::new();
    for &scale in scales {
        for kind in KINDS.into_iter().filter(|k| selected(*k)) {
            let mut work = kind.load_scaled(cpu, scale)?;
            println!("  cpu device: {} x{scale} ...", work.name());
            let check = work.check(seeds.next())?;
            let mut sdfg_ms = Vec::new();
            let mut rayon_ms = Vec::new();
            // Warm-up: `reps.warmup` pairs and at least WARMUP_MS of them.
            let mut warm_ms = 0.0;
            let mut rep = 0;
            while rep < reps.warmup || warm_ms < WARMUP_MS {
                let (result, ms) = wall_ms(|| work.run_plain());
                result?;
                warm_ms += ms + work.host_version_ms();
                rep += 1;
            }
            let mut timed_ms = 0.0;
            while sdfg_ms.len() < reps.timed
                || (timed_ms < TIMED_MS && sdfg_ms.len() < MAX_TIMED_REPS)
            {
                let (result, ms) = wall_ms(|| work.run_plain());
                result?;
                let host_ms = work.host_version_ms();
                timed_ms += ms + host_ms;
                sdfg_ms.push(ms);
                rayon_ms.push(host_ms);
            }
            let ratios: Vec<f64> = sdfg_ms.iter().zip(&rayon_ms).map(|(s, r)| s / r).collect();
            out.push(CpuRow {
                name: work.name().to_string(),
                sizes: work.sizes(),
                scale,
                sdfg_ms: median(&sdfg_ms),
                rayon_ms: median(&rayon_ms),
                ratio: median(&ratios),
                target: if kind.is_reduction() { 1.5 } else { 1.3 },
                check_passed: check.passed,
            });
        }
    }
    Ok(out)
}

pub(crate) fn print_cpu_rows(cpu: &Device, reps: Reps, rows: &[CpuRow]) {
    println!();
    println!(
        "CPU device ({}; wall-clock medians of at least {} run() calls and plain Rust rayon calls, back to back, and at least {TIMED_MS} ms of them; sdfg/rayon: the median of the per-pair ratios):",
        cpu.name(),
        reps.timed
    );
    let mut t = Table::new(&[
        "kernel",
        "scale",
        "sdfg ms",
        "rayon ms",
        "sdfg/rayon",
        "target",
        "check",
        "sizes",
    ]);
    for r in rows {
        t.row(vec![
            r.name.clone(),
            format!("x{}", r.scale),
            format!("{:.3}", r.sdfg_ms),
            format!("{:.3}", r.rayon_ms),
            format!("{:.2}x", r.ratio()),
            format!(
                "<= {:.1}x {}",
                r.target,
                if r.ratio() <= r.target {
                    "met"
                } else {
                    "MISSED"
                }
            ),
            if r.check_passed { "passed" } else { "FAILED" }.into(),
            r.sizes.clone(),
        ]);
    }
    t.print();
}
