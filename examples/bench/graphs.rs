//! Graph and stream modes side by side (issue 15): the launch-bound loops
//! (jacobi2d N=16 T=100, heat3d N=120 T=500, jacobi2d N=2800 T=1000,
//! stencil2d 8192^2), the convergence loop whose condition the GPU computes
//! (host waits per call, as the runtime counts them), and the first load of
//! a module in a new process (embedded cubin, PTX JIT, on-disk cache).
//!
//! Every row checks its results in both modes, and a graph-mode row that
//! launched no graph fails: the numbers are what they claim to be.

use crate::baselines::Reps;
use crate::common::{median, median_ms, wall_ms, AnyResult, Check, Table, Workload};
use crate::converge::{ConvergeWorkload, ITERATIONS};
use crate::{heat3d, jacobi2d};
use sdfg::prelude::*;
use sdfg::runtime::Counters;

/// One mode of one row.
pub(crate) struct Mode {
    /// Median device-event ms of a call on the benchmark's stream (NaN when
    /// not measured).
    pub(crate) device_ms: f64,
    /// Median wall-clock ms of `run()` (issue, wait, everything).
    pub(crate) wall_ms: f64,
    /// The counters of one `run()`.
    pub(crate) counts: Counters,
    pub(crate) check: Check,
}

/// A row: the same calls with graphs off and on.
pub(crate) struct GraphRow {
    pub(crate) name: String,
    pub(crate) sizes: String,
    pub(crate) streams: Mode,
    pub(crate) graphs: Mode,
    /// The target for the graph mode: (ms, which time, the text).
    pub(crate) target: Option<(f64, Time)>,
    /// Why segments ran on streams (the program's notes), if any.
    pub(crate) notes: Vec<String>,
}

#[derive(Clone, Copy)]
pub(crate) enum Time {
    Device,
    Wall,
}

impl GraphRow {
    /// Both modes right, and the graph mode really launched graphs.
    pub(crate) fn passed(&self) -> bool {
        self.streams.check.passed
            && self.graphs.check.passed
            && self.graphs.counts.graph_launches > 0
    }

    fn target_text(&self) -> String {
        let Some((ms, time)) = self.target else {
            return "-".into();
        };
        let got = match time {
            Time::Device => self.graphs.device_ms,
            Time::Wall => self.graphs.wall_ms,
        };
        let which = match time {
            Time::Device => "device",
            Time::Wall => "wall",
        };
        let verdict = if got <= ms { "met" } else { "MISSED" };
        format!("{which} <= {ms} ms: {verdict}")
    }
}

/// A launch-bound workload: (name, N, TSTEPS, target ms and which time).
type Sized = (&'static str, usize, usize, Option<(f64, Time)>);

/// The launch-bound workloads.
fn workloads(small: bool) -> [Sized; 4] {
    if small {
        [
            ("jacobi2d", 16, 20, None),
            ("heat3d", heat3d::SMALL.0, heat3d::SMALL.1, None),
            ("jacobi2d", jacobi2d::SMALL.0, jacobi2d::SMALL.1, None),
            (
                "stencil2d",
                jacobi2d::WIDE_SMALL.0,
                jacobi2d::WIDE_SMALL.1,
                None,
            ),
        ]
    } else {
        [
            ("jacobi2d", 16, 100, Some((0.25, Time::Wall))),
            (
                "heat3d",
                heat3d::FULL.0,
                heat3d::FULL.1,
                Some((6.3, Time::Device)),
            ),
            (
                "jacobi2d",
                jacobi2d::FULL.0,
                jacobi2d::FULL.1,
                Some((65.0, Time::Device)),
            ),
            ("stencil2d", jacobi2d::WIDE.0, jacobi2d::WIDE.1, None),
        ]
    }
}

/// Every launch-bound workload and the convergence loop, in both modes.
pub(crate) fn graph_rows(
    device: &Device,
    stream: &Stream,
    reps: Reps,
    small: bool,
    seed: u64,
) -> AnyResult<Vec<GraphRow>> {
    let mut rows = Vec::new();
    for (name, n, t, target) in workloads(small) {
        println!("  running {name} N={n} T={t}, streams and graphs ...");
        let mut work: Box<dyn Workload> = if name == "heat3d" {
            Box::new(heat3d::Heat3dWorkload::with_sizes(device, n, t)?)
        } else {
            Box::new(jacobi2d::Jacobi2dWorkload::with_sizes(device, name, n, t)?)
        };
        let streams = measure(&mut *work, false, stream, reps, seed)?;
        let graphs = measure(&mut *work, true, stream, reps, seed)?;
        rows.push(GraphRow {
            name: name.into(),
            sizes: format!("N={n} TSTEPS={t}"),
            streams,
            graphs,
            target,
            notes: Vec::new(),
        });
    }
    println!("  running the convergence loop, streams and graphs ...");
    rows.push(convergence_row(device, reps)?);
    Ok(rows)
}

/// One mode of a workload: warm-up calls (a key's first call runs on
/// streams, its second records the graph), device-timed calls, wall-timed
/// `run()`s, the counts of one `run()`, then a checked `run()`.
pub(crate) fn measure(
    work: &mut dyn Workload,
    graphs: bool,
    stream: &Stream,
    reps: Reps,
    seed: u64,
) -> AnyResult<Mode> {
    work.set_graphs(graphs);
    let warmup = reps.warmup.max(3);
    let device_ms = median_ms(warmup, reps.timed, || work.time_once(stream))?;
    for _ in 0..warmup {
        work.run_plain()?;
    }
    let mut walls = Vec::with_capacity(reps.timed);
    for _ in 0..reps.timed {
        let (r, ms) = wall_ms(|| work.run_plain());
        r?;
        walls.push(ms);
    }
    let device = stream.device();
    let before = device.counters();
    work.run_plain()?;
    let counts = device.counters() - before;
    let check = work.check(seed)?;
    Ok(Mode {
        device_ms,
        wall_ms: median(&walls),
        counts,
        check,
    })
}

/// The convergence loop (100 iterations decided on the GPU) in both modes:
/// wall ms per call and host waits per call.
fn convergence_row(device: &Device, reps: Reps) -> AnyResult<GraphRow> {
    let mut work = ConvergeWorkload::new(device)?;
    let mut mode = |graphs: bool| -> AnyResult<Mode> {
        work.program.set_graphs(graphs);
        for _ in 0..reps.warmup.max(3) {
            work.reset()?;
            work.run()?;
        }
        let mut walls = Vec::new();
        for _ in 0..reps.timed {
            work.reset()?;
            let (r, ms) = wall_ms(|| work.run());
            r?;
            walls.push(ms);
        }
        work.reset()?;
        let before = device.counters();
        work.run()?;
        let counts = device.counters() - before;
        let mut check = work.check()?;
        if graphs && counts.host_syncs >= ITERATIONS as u64 {
            check.passed = false;
            check.detail.push_str("; the host waited inside the loop");
        }
        Ok(Mode {
            device_ms: f64::NAN,
            wall_ms: median(&walls),
            counts,
            check,
        })
    };
    let streams = mode(false)?;
    let graphs = mode(true)?;
    Ok(GraphRow {
        name: "converge".into(),
        sizes: format!("N={} {ITERATIONS} iterations", crate::converge::N),
        streams,
        graphs,
        target: None,
        notes: work.program.graph_notes(),
    })
}

pub(crate) fn print_graph_rows(rows: &[GraphRow]) {
    if rows.is_empty() {
        return;
    }
    println!();
    println!(
        "Graphs vs streams (device ms: median of event-timed calls on one stream; wall ms: \
         median run(); per call: host syncs, kernels the host launched, graph launches):"
    );
    let mut t = Table::new(&[
        "workload",
        "streams dev ms",
        "graphs dev ms",
        "streams wall ms",
        "graphs wall ms",
        "wall speedup",
        "syncs s/g",
        "launches s/g",
        "graphs",
        "target",
        "check",
    ]);
    let ms = |v: f64| {
        if v.is_nan() {
            "-".to_string()
        } else {
            format!("{v:.4}")
        }
    };
    for r in rows {
        t.row(vec![
            format!("{} {}", r.name, r.sizes),
            ms(r.streams.device_ms),
            ms(r.graphs.device_ms),
            ms(r.streams.wall_ms),
            ms(r.graphs.wall_ms),
            format!("{:.2}x", r.streams.wall_ms / r.graphs.wall_ms),
            format!(
                "{}/{}",
                r.streams.counts.host_syncs, r.graphs.counts.host_syncs
            ),
            format!(
                "{}/{}",
                r.streams.counts.kernel_launches, r.graphs.counts.kernel_launches
            ),
            r.graphs.counts.graph_launches.to_string(),
            r.target_text(),
            if r.passed() { "passed" } else { "FAILED" }.into(),
        ]);
    }
    t.print();
    for r in rows {
        if !r.passed() {
            println!(
                "  {}: streams: {}; graphs: {}; graph launches {}",
                r.name,
                r.streams.check.detail,
                r.graphs.check.detail,
                r.graphs.counts.graph_launches
            );
        }
        for n in &r.notes {
            println!("  {} ran on streams: {n}", r.name);
        }
    }
    println!(
        "  targets (H200): jacobi2d N=16 T=100 <= 0.25 ms per call; heat3d <= 6.3 ms; \
         jacobi2d N=2800 <= 65 ms; converge: no host wait inside the loop"
    );
}

/// The flag that makes the benchmark the child of [`first_loads`].
pub(crate) const CHILD_FLAG: &str = "--first-load-child";

/// In a new process: opens the GPU, loads Heat3d and runs it once (small),
/// and prints the three times and where the kernels came from.
pub(crate) fn first_load_child() -> ! {
    let result = (|| -> AnyResult<String> {
        let (device, open_ms) = wall_ms(|| Device::gpu(0));
        let device = device?;
        let (program, load_ms) = wall_ms(|| heat3d::Heat3d::load(&device));
        let program = program?;
        let n = 16usize;
        let mut a = DeviceBuffer::<f64>::zeros(&device, n * n * n)?;
        let mut b = DeviceBuffer::<f64>::zeros(&device, n * n * n)?;
        let (ran, run_ms) = wall_ms(|| {
            program.run(heat3d::Heat3dArgs {
                N: n as i64,
                TSTEPS: 2,
                A: &mut a,
                B: &mut b,
            })
        });
        ran?;
        Ok(format!(
            "{open_ms} {load_ms} {run_ms} {:?}",
            program.module_origin()
        ))
    })();
    match result {
        Ok(line) => {
            println!("FIRST-LOAD {line}");
            std::process::exit(0)
        }
        Err(e) => {
            eprintln!("first-load child: {e}");
            std::process::exit(1)
        }
    }
}

/// One way of loading, in a new process.
pub(crate) struct FirstLoad {
    pub(crate) mode: &'static str,
    pub(crate) open_ms: f64,
    pub(crate) load_ms: f64,
    pub(crate) run_ms: f64,
    pub(crate) process_ms: f64,
    pub(crate) origin: String,
}

/// New processes that open the GPU, load a module and run it once: with
/// the embedded cubin, with the PTX JIT, and with the on-disk cache (cold,
/// then warm).
pub(crate) fn first_loads() -> AnyResult<Vec<FirstLoad>> {
    let exe = std::env::current_exe()?;
    let cache = std::env::temp_dir().join(format!("sdfg-bench-cubins-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let cache_dir = cache.to_string_lossy().into_owned();
    let modes: [(&str, [(&str, &str); 2]); 4] = [
        (
            "embedded cubin",
            [("SDFG_CUBIN", "on"), ("SDFG_CUBIN_CACHE", "off")],
        ),
        (
            "PTX JIT",
            [("SDFG_CUBIN", "off"), ("SDFG_CUBIN_CACHE", "off")],
        ),
        (
            "disk cache, first process",
            [("SDFG_CUBIN", "off"), ("SDFG_CUBIN_CACHE", &cache_dir)],
        ),
        (
            "disk cache, next process",
            [("SDFG_CUBIN", "off"), ("SDFG_CUBIN_CACHE", &cache_dir)],
        ),
    ];
    let mut out = Vec::new();
    for (mode, env) in modes {
        let (output, process_ms) = wall_ms(|| {
            std::process::Command::new(&exe)
                .arg(CHILD_FLAG)
                .envs(env)
                .output()
        });
        let output = output?;
        let text = String::from_utf8_lossy(&output.stdout);
        let line = text
            .lines()
            .find_map(|l| l.strip_prefix("FIRST-LOAD "))
            .ok_or_else(|| {
                format!(
                    "first-load child ({mode}) failed: {}",
                    String::from_utf8_lossy(&output.stderr)
                )
            })?;
        let f: Vec<&str> = line.split_whitespace().collect();
        let num = |i: usize| f.get(i).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN);
        out.push(FirstLoad {
            mode,
            open_ms: num(0),
            load_ms: num(1),
            run_ms: num(2),
            process_ms,
            origin: f.get(3).unwrap_or(&"?").to_string(),
        });
    }
    let _ = std::fs::remove_dir_all(&cache);
    Ok(out)
}

pub(crate) fn print_first_loads(rows: &[FirstLoad]) {
    if rows.is_empty() {
        return;
    }
    println!();
    println!("First load in a new process (Heat3d; wall ms: cuInit + context, load, first run()):");
    let mut t = Table::new(&[
        "how",
        "kernels from",
        "open GPU ms",
        "load ms",
        "first run ms",
        "load + run ms",
        "process ms",
        "target",
    ]);
    for r in rows {
        let total = r.load_ms + r.run_ms;
        t.row(vec![
            r.mode.into(),
            r.origin.clone(),
            format!("{:.2}", r.open_ms),
            format!("{:.2}", r.load_ms),
            format!("{:.2}", r.run_ms),
            format!("{total:.2}"),
            format!("{:.1}", r.process_ms),
            if total <= 10.0 { "met" } else { "MISSED" }.into(),
        ]);
    }
    t.print();
    println!("  target: a new process's first run() (load + run) under 10 ms");
}
