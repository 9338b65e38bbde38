//! The main tables: one row per kernel (time, bandwidth, share of the copy
//! bandwidth against its target, the baseline, syncs per call, checks) and
//! the stencil's launch shapes.

use crate::common::{gb_per_s, Table};
use crate::shapes;

/// What a row's target is a share of.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ceiling {
    /// The device-to-device copy bandwidth (bytes moved at least per ms).
    Copy,
    /// The FLOP rate of the row's baseline (cuBLAS for gemm), measured in
    /// the same run; [`ASSUMED_CUBLAS_GFLOPS`] when it could not be.
    BaselineFlops,
}

/// cuBLAS SGEMM on an H200 (issue 14: "cuBLAS does 50 TFLOP/s there"): the
/// gemm ceiling when cuBLAS could not be measured.
pub(crate) const ASSUMED_CUBLAS_GFLOPS: f64 = 50_000.0;

/// One row of the main table.
pub(crate) struct KernelRow {
    pub(crate) name: String,
    pub(crate) sizes: String,
    pub(crate) bytes: f64,
    pub(crate) flops: f64,
    pub(crate) ms: f64,
    pub(crate) check_passed: bool,
    pub(crate) check_detail: String,
    pub(crate) counts: sdfg::runtime::Counters,
    pub(crate) target_pct: f64,
    pub(crate) ceiling: Ceiling,
    pub(crate) baseline: Option<(f64, bool, String)>,
}

impl KernelRow {
    pub(crate) fn gbs(&self) -> f64 {
        gb_per_s(self.bytes, self.ms)
    }

    pub(crate) fn gflops(&self) -> f64 {
        self.flops / (self.ms * 1e-3) / 1e9
    }

    /// GFLOP/s of the ceiling of a [`Ceiling::BaselineFlops`] row: the
    /// baseline's when it ran and passed its check.
    pub(crate) fn ceiling_gflops(&self) -> f64 {
        match &self.baseline {
            Some((ms, true, _)) if ms.is_finite() && *ms > 0.0 => self.flops / (ms * 1e-3) / 1e9,
            _ => ASSUMED_CUBLAS_GFLOPS,
        }
    }

    /// % of the row's ceiling.
    pub(crate) fn pct(&self, copy_gbs: f64) -> f64 {
        match self.ceiling {
            Ceiling::Copy => 100.0 * self.gbs() / copy_gbs,
            Ceiling::BaselineFlops => 100.0 * self.gflops() / self.ceiling_gflops(),
        }
    }

    pub(crate) fn baseline_pct(&self, copy_gbs: f64) -> Option<f64> {
        let (ms, ..) = self.baseline.as_ref()?;
        Some(match self.ceiling {
            Ceiling::Copy => 100.0 * gb_per_s(self.bytes, *ms) / copy_gbs,
            Ceiling::BaselineFlops => {
                100.0 * self.flops / (ms * 1e-3) / 1e9 / self.ceiling_gflops()
            }
        })
    }
}

pub(crate) fn met(value: f64, target: f64, higher_is_better: bool) -> String {
    let ok = if higher_is_better {
        value >= target
    } else {
        value <= target
    };
    let margin = value - target;
    format!("{} ({margin:+.1})", if ok { "met" } else { "MISSED" })
}

/// A stencil's launch shapes, fastest first, under `title`.
pub(crate) fn print_shapes(title: &str, rows: &[shapes::ShapeRow], copy_gbs: f64) {
    if rows.is_empty() {
        return;
    }
    println!();
    println!("{title}; median ms of event-timed sweeps):");
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
pub(crate) fn print_kernel_table(rows: &[KernelRow], copy_gbs: f64, gpu: bool) {
    println!();
    println!("Kernels: sizes, checks, work:");
    for r in rows {
        println!("  {:<20} {}", r.name, r.sizes);
        println!("    check: {}", r.check_detail);
        if let Some((_, _, detail)) = &r.baseline {
            println!("    baseline check: {detail}");
        }
        println!(
            "    {:.0} MB moved at least, {:.2} GFLOP/s, {} kernel launches and {} graph launches per run()",
            r.bytes / 1e6,
            r.gflops(),
            r.counts.kernel_launches,
            r.counts.graph_launches
        );
        if r.ceiling == Ceiling::BaselineFlops {
            let measured = matches!(&r.baseline, Some((ms, true, _)) if ms.is_finite());
            println!(
                "    ceiling: {:.0} GFLOP/s ({})",
                r.ceiling_gflops(),
                if measured {
                    "the baseline, measured now"
                } else {
                    "assumed: the baseline did not run here"
                }
            );
        }
    }
    println!();
    println!(
        "Kernels (median ms of device-event-timed calls; GB/s over the minimum bytes; \
         % of the ceiling: the {copy_gbs:.1} GB/s copy bandwidth, for gemm cuBLAS's GFLOP/s):"
    );
    let mut t = Table::new(&[
        "kernel",
        "ms",
        "GB/s",
        "% ceiling",
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
