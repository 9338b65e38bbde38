//! The files the benchmark writes: `benchmarks.json` (every number) and
//! `benchmarks.svg` (% of the ceiling per kernel, with the baseline and the
//! target).

use crate::baselines::Reps;
use crate::cpu::CpuRow;
use crate::overhead::Overhead;
use crate::report::{Ceiling, KernelRow};
use crate::shapes;
use sdfg::prelude::*;

#[allow(clippy::too_many_arguments)]
pub(crate) fn to_json(
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
                "gflop_per_s": r.gflops(),
                "percent_of_copy": 100.0 * r.gbs() / copy_gbs,
                "ceiling": match r.ceiling {
                    Ceiling::Copy => "copy bandwidth",
                    Ceiling::BaselineFlops => "baseline GFLOP/s",
                },
                "ceiling_gflop_per_s": (r.ceiling == Ceiling::BaselineFlops).then(|| r.ceiling_gflops()),
                "percent_of_ceiling": r.pct(copy_gbs),
                "target_percent": r.target_pct,
                "target_met": r.pct(copy_gbs) >= r.target_pct,
                "check_passed": r.check_passed,
                "check": r.check_detail,
                "host_syncs_per_run": r.counts.host_syncs,
                "event_waits_per_run": r.counts.event_waits,
                "kernel_launches_per_run": r.counts.kernel_launches,
                "baseline_median_ms": r.baseline.as_ref().map(|b| b.0),
                "baseline_percent_of_ceiling": r.baseline_pct(copy_gbs),
                "baseline_check_passed": r.baseline.as_ref().map(|b| b.1),
            })
        })
        .collect();
    let cpu = cpu_json(cpu_rows);
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
        "host_overhead_us": overhead_json(o),
        "module_load_ms": {"first": load.0, "cached": load.1},
        "cpu_device": cpu,
        "stencil2d_launch_shapes": shapes,
    })
}

/// The host overhead of a call (`raw`: plain Rust loops on the CPU device).
pub(crate) fn overhead_json(o: &Overhead) -> serde_json::Value {
    serde_json::json!({
        "calls": o.calls,
        "run_1_kernel": o.run1_us,
        "run_10_kernels": o.run10_us,
        "raw_1_kernel": o.raw1_us,
        "raw_10_kernels": o.raw10_us,
        "raw_is_plain_rust": o.cpu,
    })
}

/// The CPU device against plain Rust, one object per row.
pub(crate) fn cpu_json(rows: &[CpuRow]) -> Vec<serde_json::Value> {
    rows.iter()
        .map(|r| {
            serde_json::json!({
                "name": r.name,
                "sizes": r.sizes,
                "scale": r.scale,
                "sdfg_ms": r.sdfg_ms,
                "rayon_ms": r.rayon_ms,
                "sdfg_over_rayon": r.ratio(),
                "target": r.target,
                "target_met": r.ratio() <= r.target,
                "check_passed": r.check_passed,
            })
        })
        .collect()
}

/// A horizontal bar chart of % of the ceiling per kernel (the copy
/// bandwidth; gemm: cuBLAS's FLOP rate): the SDFG version, the baseline
/// (when measured) and the target as a tick.
pub(crate) fn to_svg(device: &Device, copy_gbs: f64, rows: &[KernelRow]) -> String {
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
<text x="10" y="20" font-size="14" font-weight="bold">sdfg-rs: % of device-to-device copy bandwidth ({copy:.0} GB/s; gemm: % of cuBLAS)</text>
<text x="10" y="38">{dev}. Blue: sdfg; gray: baseline (hand-written PTX; gemm: cuBLAS); red tick: target.</text>
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
