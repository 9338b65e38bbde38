//! Persistent kernels (issue 15, item 3) beside graphs and streams: heat3d
//! with `#[persistent] state step` (every step in one cooperative launch,
//! each block waiting for its six neighbours before each map, or the grid
//! at a barrier where the grid is not resident at once; the grids kept in
//! L2 when they fit) against the same program launch by launch, on streams
//! and as a graph.
//!
//! Beside them, the two-step form (`heat3d_two_step!`: both sweeps of a
//! step in one block kernel, one grid read and two written per step) as a
//! graph: another program with the same results.
//!
//! Every mode checks its results, and the persistent mode must have been
//! one launch per call: the numbers are what they claim to be.

use crate::baselines::Reps;
use crate::common::{AnyResult, Table};
use crate::graphs::{measure, Mode};
use crate::heat3d;
use sdfg::prelude::*;

/// heat3d in its three modes.
pub(crate) struct PersistentRow {
    pub(crate) sizes: String,
    pub(crate) streams: Mode,
    pub(crate) graphs: Mode,
    pub(crate) persistent: Mode,
    /// The two-step form as a graph.
    pub(crate) two_step: Mode,
    /// The program's notes (why it ran launch by launch, if it did).
    pub(crate) notes: Vec<String>,
}

/// The target and stretch target for heat3d N=120 T=500 (device ms).
const TARGET_MS: f64 = 6.3;
const STRETCH_MS: f64 = 4.8;

impl PersistentRow {
    /// Every mode right, and the persistent mode one launch per call.
    pub(crate) fn passed(&self) -> bool {
        self.streams.check.passed
            && self.graphs.check.passed
            && self.persistent.check.passed
            && self.persistent.counts.kernel_launches == 1
            && self.two_step.check.passed
    }
}

pub(crate) fn persistent_row(
    device: &Device,
    stream: &Stream,
    reps: Reps,
    small: bool,
    seed: u64,
) -> AnyResult<PersistentRow> {
    let (n, t) = if small { heat3d::SMALL } else { heat3d::FULL };
    println!("  running heat3d N={n} T={t}: streams, graphs, persistent, two-step ...");
    let mut plain = heat3d::Heat3dWorkload::with_sizes(device, n, t)?;
    let streams = measure(&mut plain, false, stream, reps, seed)?;
    let graphs = measure(&mut plain, true, stream, reps, seed)?;
    let mut persistent =
        heat3d::Heat3dWorkload::with_sizes(device, n, t)?.into_persistent(device)?;
    let persistent_mode = measure(&mut persistent, true, stream, reps, seed)?;
    let mut two_step = heat3d::Heat3dWorkload::with_sizes(device, n, t)?.into_two_step(device)?;
    let two_step = measure(&mut two_step, true, stream, reps, seed)?;
    Ok(PersistentRow {
        sizes: format!("N={n} TSTEPS={t}"),
        streams,
        graphs,
        persistent: persistent_mode,
        two_step,
        notes: persistent.notes(),
    })
}

pub(crate) fn print_persistent_row(row: &PersistentRow, small: bool) {
    println!();
    println!(
        "Persistent kernel vs graphs vs streams (heat3d; device ms: median of event-timed \
         calls on one stream; wall ms: median run(); kernels the host launched per call):"
    );
    let mut t = Table::new(&[
        "mode",
        "device ms",
        "wall ms",
        "launches",
        "graph launches",
        "check",
    ]);
    for (mode, m) in [
        ("streams", &row.streams),
        ("graphs", &row.graphs),
        ("persistent", &row.persistent),
        ("two-step form, graphs", &row.two_step),
    ] {
        t.row(vec![
            format!("{mode} ({})", row.sizes),
            format!("{:.4}", m.device_ms),
            format!("{:.4}", m.wall_ms),
            m.counts.kernel_launches.to_string(),
            m.counts.graph_launches.to_string(),
            if m.check.passed { "passed" } else { "FAILED" }.into(),
        ]);
    }
    t.print();
    if !small {
        let got = row.persistent.device_ms;
        let verdict = |ms: f64| if got <= ms { "met" } else { "MISSED" };
        println!(
            "  target (H200): heat3d N=120 T=500 persistent <= {TARGET_MS} ms: {}; stretch <= {STRETCH_MS} ms: {}",
            verdict(TARGET_MS),
            verdict(STRETCH_MS)
        );
        println!(
            "  two-step form (another program, the same bits): {:.4} ms against {TARGET_MS}",
            row.two_step.device_ms
        );
    }
    for n in &row.notes {
        println!("  heat3d (persistent): {n}");
    }
    let persistent = &row.persistent;
    if !persistent.check.passed || persistent.counts.kernel_launches != 1 {
        println!(
            "  heat3d persistent FAILED: {}; launches per call {}",
            persistent.check.detail, persistent.counts.kernel_launches
        );
    }
    if !row.two_step.check.passed {
        println!("  heat3d two-step FAILED: {}", row.two_step.check.detail);
    }
}
