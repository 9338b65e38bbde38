//! NPBench heat_3d: a host-driven loop of two 7-point stencil maps in 3-D.

use crate::common::{call_program, AnyResult, Call, Check, Launch, Options, TwoGrids, Workload};
use rayon::prelude::*;
use sdfg::prelude::*;

crate::common::fixtures::heat3d!(
    sdfg,
    /// NPBench `heat_3d`: for t in 1..TSTEPS, B from A, then A from B.
    Heat3d
);
crate::common::fixtures::heat3d!(
    sdfg,
    /// `Heat3d` with `#[persistent] state step`: every step in one
    /// cooperative launch, each block waiting for its neighbours (or the
    /// grid, where it is not resident at once) before each map.
    Heat3dPersistent,
    #[persistent]
);
crate::common::fixtures::heat3d_two_step!(
    sdfg,
    /// `Heat3d` with both sweeps of a step in one block kernel: tiles of
    /// 8 x 30 points, chunks of 22 planes, 320 threads per block.
    Heat3dTwoStep,
    8,
    10
);

/// Which program a call runs.
enum Form {
    /// `Heat3d`: two sweeps per step, launch by launch (or as a graph).
    Sweeps,
    /// `Heat3dPersistent`: every step in one cooperative launch.
    Persistent(Heat3dPersistent),
    /// `Heat3dTwoStep`: both sweeps of a step in one block kernel.
    TwoStep(Heat3dTwoStep),
}

/// `--write-ptx DIR` (for `scripts/heat3d_harness.py`): `Heat3d`'s module
/// as the runtime assembles it for `sm_90` (`DIR/heat3d.ptx`: the grid
/// dependency marks made `griddepcontrol` instructions) and what each
/// kernel parameter holds (`DIR/heat3d.abi.json`: per kernel its name and
/// one word per parameter: `buffer A`, `extent A 0`, `symbol N`,
/// `range_start 0`, `range_count 0`, `range_step 0`, `fault`, ...).
#[allow(dead_code)] // by the heat3d example, not the bench
pub fn write_ptx(dir: &std::path::Path) -> AnyResult<()> {
    use sdfg::compiler::codegen::abi::ParamValue;
    use sdfg::compiler::codegen::ptx::{for_arch, generate};
    let ir = Heat3d::ir().map_err(|d| format!("{d:?}"))?;
    let module = generate(&ir);
    let container = |c: usize| ir.containers[c].name.text.clone();
    let kernels: Vec<serde_json::Value> = module
        .kernels
        .iter()
        .map(|k| {
            let params: Vec<String> = k
                .abi
                .params
                .iter()
                .map(|p| match &p.value {
                    ParamValue::Buffer { container: c, .. } => format!("buffer {}", container(*c)),
                    ParamValue::Extent { container: c, dim } => {
                        format!("extent {} {dim}", container(*c))
                    }
                    ParamValue::Symbol(s) => format!("symbol {}", ir.symbols[*s].name.text),
                    ParamValue::HostScalar(c) => format!("host_scalar {}", container(*c)),
                    ParamValue::RangeStart(d) => format!("range_start {d}"),
                    ParamValue::RangeCount(d) => format!("range_count {d}"),
                    ParamValue::RangeStep(d) => format!("range_step {d}"),
                    ParamValue::Fault => "fault".to_string(),
                })
                .collect();
            serde_json::json!({ "name": k.abi.name, "params": params })
        })
        .collect();
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("heat3d.ptx"), for_arch(&module.text, 90).0)?;
    std::fs::write(
        dir.join("heat3d.abi.json"),
        serde_json::to_string_pretty(&kernels)?,
    )?;
    println!("wrote {}/heat3d.ptx and heat3d.abi.json", dir.display());
    Ok(())
}

/// One sweep over the interior in the DSL's operation order (bit-exact);
/// planes in parallel, each row through slices of the neighbouring rows
/// (bounds checks the compiler hoists, so the inner loop vectorizes: the
/// plain Rust a user who cares about speed writes).
pub fn sweep(n: usize, src: &[f64], dst: &mut [f64]) {
    let row = |i: usize, j: usize| &src[(i * n + j) * n..][..n];
    dst.par_chunks_mut(n * n)
        .enumerate()
        .filter(|(i, _)| *i >= 1 && *i < n - 1)
        .for_each(|(i, plane)| {
            for j in 1..n - 1 {
                let (c, up, down) = (row(i, j), row(i + 1, j), row(i - 1, j));
                let (north, south) = (row(i, j + 1), row(i, j - 1));
                let out = &mut plane[j * n..][..n];
                for k in 1..n - 1 {
                    let ck = c[k];
                    out[k] = 0.125 * (up[k] - 2.0 * ck + down[k])
                        + 0.125 * (north[k] - 2.0 * ck + south[k])
                        + 0.125 * (c[k + 1] - 2.0 * ck + c[k - 1])
                        + ck;
                }
            }
        });
}

/// The plain Rust (rayon) version: NPBench's `for t in range(1, TSTEPS)`.
pub fn heat3d_reference(n: usize, tsteps: usize, a: &mut [f64], b: &mut [f64]) {
    for _ in 1..tsteps {
        sweep(n, a, b);
        sweep(n, b, a);
    }
}

/// (N, TSTEPS) of the benchmark (NPBench) and of `--small`.
pub const FULL: (usize, usize) = (120, 500);
pub const SMALL: (usize, usize) = (40, 20);

pub struct Heat3dWorkload {
    program: Heat3d,
    /// `--persistent` or `--two-step`: calls run that form instead.
    form: Form,
    grids: TwoGrids,
}

impl Heat3dWorkload {
    /// `--n` (default 120; 40 small), `--tsteps` (default 500; 20 small),
    /// `--persistent` (the loop as one kernel), `--two-step` (both sweeps
    /// of a step in one block kernel).
    pub fn new(device: &Device, opts: &Options, small: bool) -> AnyResult<Self> {
        let (n, tsteps) = if small { SMALL } else { FULL };
        let (n, tsteps): (usize, usize) = (opts.get("n", n), opts.get("tsteps", tsteps));
        let work = Self::with_sizes(device, n, tsteps)?;
        if opts.flag("persistent") {
            return work.into_persistent(device);
        }
        if opts.flag("two-step") {
            return work.into_two_step(device);
        }
        Ok(work)
    }

    /// Calls run `Heat3dPersistent` (the same grids and sizes).
    pub fn into_persistent(mut self, device: &Device) -> AnyResult<Self> {
        self.form = Form::Persistent(Heat3dPersistent::load(device)?);
        Ok(self)
    }

    /// Calls run `Heat3dTwoStep` (the same grids and sizes).
    pub fn into_two_step(mut self, device: &Device) -> AnyResult<Self> {
        self.form = Form::TwoStep(Heat3dTwoStep::load(device)?);
        Ok(self)
    }

    /// An N^3 grid and TSTEPS steps.
    pub fn with_sizes(device: &Device, n: usize, tsteps: usize) -> AnyResult<Self> {
        if n < 3 || tsteps < 2 {
            return Err("heat3d needs --n >= 3 and --tsteps >= 2".into());
        }
        Ok(Heat3dWorkload {
            program: Heat3d::load(device)?,
            form: Form::Sweeps,
            grids: TwoGrids::new(device, n, tsteps, n * n * n)?,
        })
    }

    /// Why the persistent program ran launch by launch, if it did.
    #[allow(dead_code)] // the bench reads it, the example does not
    pub fn notes(&self) -> Vec<String> {
        match &self.form {
            Form::Persistent(p) => p.graph_notes(),
            _ => Vec::new(),
        }
    }

    /// Time steps: NPBench's `for t in range(1, TSTEPS)`.
    fn steps(&self) -> f64 {
        (self.grids.tsteps - 1) as f64
    }
}

impl Launch for Heat3dWorkload {
    fn launch<R>(
        &mut self,
        call: Call<'_>,
        then: impl FnOnce(Running<'_>) -> sdfg::runtime::Result<R>,
    ) -> sdfg::runtime::Result<Option<R>> {
        let g = &mut self.grids;
        let (n, tsteps) = (g.n as i64, g.tsteps as i64);
        // Every form takes the same four arguments, in a struct of its own.
        macro_rules! call {
            ($program:expr, $args:ident) => {{
                let args = $args {
                    N: n,
                    TSTEPS: tsteps,
                    A: &mut g.a,
                    B: &mut g.b,
                };
                call_program!($program, call, args)?
            }};
        }
        let running = match &self.form {
            Form::Sweeps => call!(self.program, Heat3dArgs),
            Form::Persistent(p) => call!(p, Heat3dPersistentArgs),
            Form::TwoStep(p) => call!(p, Heat3dTwoStepArgs),
        };
        running.map(then).transpose()
    }
}

impl Workload for Heat3dWorkload {
    fn name(&self) -> &'static str {
        match &self.form {
            Form::Sweeps => "heat3d",
            Form::Persistent(_) => "heat3d (persistent)",
            Form::TwoStep(_) => "heat3d (two-step)",
        }
    }
    fn sizes(&self) -> String {
        let (n, tsteps) = (self.grids.n, self.grids.tsteps);
        format!("N = {n}, TSTEPS = {tsteps} ({} steps, f64)", tsteps - 1)
    }
    fn min_bytes(&self) -> f64 {
        // Per sweep: the source read once, the interior of the target written.
        let (n, inner) = (self.grids.n as f64, (self.grids.n - 2) as f64);
        2.0 * self.steps() * 8.0 * (n * n * n + inner * inner * inner)
    }
    fn flops(&self) -> f64 {
        // 3 * (2 mul + 2 add/sub + 1 mul) + 3 adds per interior point.
        let inner = (self.grids.n - 2) as f64;
        2.0 * self.steps() * 18.0 * inner * inner * inner
    }
    fn check(&mut self, seed: u64) -> AnyResult<Check> {
        self.grids.randomize(seed)?;
        self.run_call()?;
        self.grids.check(heat3d_reference)
    }
    fn time_once(&mut self, stream: &Stream) -> AnyResult<f64> {
        self.time_call(stream)
    }
    fn run_plain(&mut self) -> AnyResult<()> {
        self.run_call()
    }
    fn set_graphs(&mut self, on: bool) {
        self.program.set_graphs(on);
        match &self.form {
            Form::Sweeps => {}
            Form::Persistent(p) => p.set_graphs(on),
            Form::TwoStep(p) => p.set_graphs(on),
        }
    }
    fn host_version_ms(&mut self) -> f64 {
        self.grids.reference_ms(heat3d_reference)
    }
}
