//! Launch shapes of the stencils: the jacobi sweep `B = 0.2 * (5-point
//! sum of A)` and heat3d's 7-point sweep, compiled with several
//! `ptx::Tuning`s (block, items per thread in x, rows per thread in y, or
//! in z for 3-D maps), each checked bit for bit against the plain Rust
//! sweep and timed with device events. This is how the default tuning was
//! chosen (docs/BENCHMARKS.md); it needs a GPU.

use crate::common::{
    bit_mismatch, device_time_ms, f64_bits, gb_per_s, median_ms, random_f64, AnyResult,
};
use crate::heat3d::{sweep as heat3d_sweep, Heat3d};
use crate::jacobi2d::{sweep as sweep_2d, Jacobi2d};
use sdfg::compiler::codegen::abi::ParamValue;
use sdfg::compiler::codegen::ptx::{generate_tuned, Tuning};
use sdfg::prelude::*;
use sdfg::runtime::{KernelArg, LaunchConfig, Module};

/// One measured shape.
pub struct ShapeRow {
    pub tuning: Tuning,
    /// Median device time of one sweep (ms).
    pub ms: f64,
    pub gb_per_s: f64,
    /// `None`: bit-exact; otherwise the first mismatch.
    pub mismatch: Option<String>,
    /// A 3-D map walked its planes (`Tuning::walk_3d`).
    pub walks: bool,
}

impl ShapeRow {
    /// Whether this is the shape `sdfg!` uses.
    pub fn is_default(&self) -> bool {
        self.tuning == Tuning::default()
    }

    pub fn label(&self) -> String {
        let t = &self.tuning;
        let default = if self.is_default() { " (default)" } else { "" };
        if self.walks {
            let [x, y] = t.block_3d;
            return format!("walk: block {x}x{y}, {} planes in z{default}", t.rows_3d);
        }
        let mut hints = String::new();
        if t.l2_prefetch > 0 {
            hints += &format!(", L2::{}B", t.l2_prefetch);
        }
        if t.streaming_stores {
            hints += ", st.cs";
        }
        if t.min_blocks_per_sm > 0 {
            hints += &format!(", >= {} blocks/SM", t.min_blocks_per_sm);
        }
        format!(
            "block {}x{}, {} in x, {} rows{}{hints}{}",
            t.block_2d[0],
            t.block_2d[1],
            t.items_2d,
            t.rows_2d,
            if t.rows_3d_in_z { " in z" } else { "" },
            default
        )
    }
}

/// The default tuning with another block, items in x and rows.
fn shape(block_2d: [u32; 2], items_2d: u32, rows_2d: u32) -> Tuning {
    Tuning {
        block_2d,
        items_2d,
        rows_2d,
        ..Tuning::default()
    }
}

/// The shapes compared: the default with and without cache hints, its
/// neighbours, the previous defaults (64x2 with 4 rows, and 2 in x), the
/// first default (128x2, 2 in x, one row) and the hand-written baseline's
/// shape (32x8, one element).
fn candidates() -> Vec<Tuning> {
    let base = Tuning::default();
    let with = shape;
    let hints = |l2_prefetch: u32, streaming_stores: bool| Tuning {
        l2_prefetch,
        streaming_stores,
        ..base
    };
    let occupancy = |t: Tuning, min_blocks_per_sm: u32| Tuning {
        min_blocks_per_sm,
        ..t
    };
    let out = vec![
        base,
        hints(256, false),
        hints(0, true),
        with([128, 1], 1, 4),
        with([128, 1], 1, 5),
        with([128, 1], 1, 8),
        with([64, 2], 1, 4),
        with([64, 2], 1, 2),
        with([64, 2], 1, 6),
        with([32, 4], 1, 4),
        with([64, 2], 2, 4),
        with([64, 2], 2, 2),
        with([32, 4], 2, 2),
        with([32, 4], 2, 4),
        with([64, 4], 2, 4),
        with([64, 2], 2, 3),
        with([64, 2], 2, 6),
        with([64, 2], 1, 8),
        occupancy(with([32, 4], 2, 2), 24),
        with([128, 2], 2, 1),
        with([32, 8], 1, 1),
    ];
    let mut unique = Vec::new();
    for t in out {
        if !unique.contains(&t) {
            unique.push(t);
        }
    }
    unique
}

/// Every candidate shape on an `n`^2 grid: `reps` timed sweeps after
/// `warmup` untimed ones each.
pub fn stencil_shapes(
    device: &Device,
    stream: &Stream,
    n: usize,
    warmup: usize,
    reps: usize,
) -> AnyResult<Vec<ShapeRow>> {
    let ir = Jacobi2d::ir().map_err(|d| format!("{d:?}"))?;
    let sweep = Sweep::new(&ir, 2, n, sweep_2d, 1);
    Ok(candidates()
        .into_iter()
        .map(|tuning| sweep.row(device, stream, warmup, reps, tuning))
        .collect())
}

/// heat3d's sweep (`B` from `A`, 7 points in 3-D, `n`^3) with its thread's
/// rows along y (the 2-D default) and along z, the outermost dimension,
/// with a few blocks and run lengths.
pub fn heat3d_shapes(
    device: &Device,
    stream: &Stream,
    n: usize,
    warmup: usize,
    reps: usize,
) -> AnyResult<Vec<ShapeRow>> {
    let ir = Heat3d::ir().map_err(|d| format!("{d:?}"))?;
    // A sweep of 120^3 takes microseconds: time 50 back to back per sample.
    let sweep = Sweep::new(&ir, 3, n, heat3d_sweep, 50);
    let base = Tuning::default();
    // Tiles of rows (the walk off): in y, or in z.
    let in_z = |block_2d: [u32; 2], rows_2d: u32, rows_3d_in_z: bool| Tuning {
        rows_3d_in_z,
        walk_3d: false,
        ..shape(block_2d, base.items_2d, rows_2d)
    };
    let mut tunings = vec![
        base,
        in_z(base.block_2d, base.rows_2d, false),
        in_z([64, 2], 4, false),
        in_z([32, 4], 4, false),
        in_z([128, 1], 4, false),
    ];
    for (block, rows) in [
        ([64, 2], 4),
        ([64, 2], 2),
        ([64, 2], 8),
        ([32, 4], 4),
        ([128, 1], 4),
        ([32, 8], 4),
    ] {
        tunings.push(in_z(block, rows, true));
    }
    // Walks (the default: 64 x 2, 8 planes) of other blocks and lengths.
    let walk = |block_3d: [u32; 2], rows_3d: u32| Tuning {
        block_3d,
        rows_3d,
        ..base
    };
    for (block, rows) in [
        ([32, 4], 8),
        ([32, 8], 8),
        ([64, 4], 8),
        ([128, 1], 8),
        ([64, 2], 4),
        ([32, 4], 4),
        ([64, 2], 16),
    ] {
        tunings.push(walk(block, rows));
    }
    Ok(tunings
        .into_iter()
        .map(|tuning| sweep.row(device, stream, warmup, reps, tuning))
        .collect())
}

/// One stencil sweep `B` from `A` (kernel 0 of the program: map `b` of
/// state `step`) on an `n`^dims grid, its interior `1..n-1` in every
/// dimension, checked bit for bit against plain Rust; `per_sample` sweeps
/// between a sample's two events (a small grid's sweep is shorter than
/// its launch).
struct Sweep<'a> {
    ir: &'a sdfg::compiler::ir::Sdfg,
    dims: usize,
    n: usize,
    per_sample: usize,
    host_a: Vec<f64>,
    host_b: Vec<f64>,
    want: Vec<f64>,
}

impl<'a> Sweep<'a> {
    fn new(
        ir: &'a sdfg::compiler::ir::Sdfg,
        dims: usize,
        n: usize,
        reference: fn(usize, &[f64], &mut [f64]),
        per_sample: usize,
    ) -> Self {
        let len = n.pow(dims as u32);
        let host_a = random_f64(len, 0x5A17);
        let host_b = random_f64(len, 0x5A18);
        let mut want = host_b.clone();
        reference(n, &host_a, &mut want);
        Sweep {
            ir,
            dims,
            n,
            per_sample,
            host_a,
            host_b,
            want,
        }
    }

    /// The row of `tuning`; a candidate that fails (a JIT error, a launch
    /// error) is a row with its error, not the end of the benchmark.
    fn row(
        &self,
        device: &Device,
        stream: &Stream,
        warmup: usize,
        reps: usize,
        tuning: Tuning,
    ) -> ShapeRow {
        self.measure(device, stream, warmup, reps, tuning)
            .unwrap_or_else(|e| ShapeRow {
                tuning,
                ms: f64::NAN,
                gb_per_s: f64::NAN,
                mismatch: Some(format!("error: {e}")),
                walks: self.dims == 3 && tuning.walk_3d,
            })
    }

    /// One candidate: compile, load, time `reps` sweeps, check the last one.
    fn measure(
        &self,
        device: &Device,
        stream: &Stream,
        warmup: usize,
        reps: usize,
        tuning: Tuning,
    ) -> AnyResult<ShapeRow> {
        let n = self.n;
        let module_ptx = generate_tuned(self.ir, &tuning);
        let kernel = &module_ptx.kernels[0];
        let names = module_ptx
            .kernels
            .iter()
            .map(|k| k.abi.name.clone())
            .collect();
        // SAFETY: the PTX backend generated this module from `ir`, and the
        // one launch below passes kernel 0's ABI parameters (built from
        // `kernel.abi`) with extents and ranges that keep every access
        // inside A and B.
        let module = unsafe { Module::load_dynamic(device, module_ptx.text.clone(), names) }?;
        let a = DeviceBuffer::from_slice(device, &self.host_a)?;
        let b = DeviceBuffer::from_slice(device, &self.host_b)?;
        let inner = (n - 2) as u64;
        let args: Vec<KernelArg<'_>> = kernel
            .abi
            .params
            .iter()
            .map(|p| match &p.value {
                ParamValue::Buffer { container: 0, .. } => Ok(KernelArg::read(&a)),
                ParamValue::Buffer { .. } => Ok(KernelArg::write(&b)),
                ParamValue::Extent { .. } => Ok(KernelArg::value(n as u64)),
                ParamValue::Symbol(0) => Ok(KernelArg::value(n as i64)),
                ParamValue::RangeStart(_) => Ok(KernelArg::value(1i64)),
                ParamValue::RangeCount(_) => Ok(KernelArg::value(inner)),
                ParamValue::RangeStep(_) => Ok(KernelArg::value(1i64)),
                ParamValue::Fault => Ok(KernelArg::fault()),
                other => Err(format!("unexpected stencil kernel parameter {other:?}")),
            })
            .collect::<Result<_, _>>()?;
        let counts = vec![inner; self.dims];
        let tiles = if kernel.rows_in_z {
            LaunchConfig::for_tiles_in_z
        } else {
            LaunchConfig::for_tiles
        };
        let config = tiles(
            device,
            &counts,
            kernel.block,
            kernel.items_per_thread,
            kernel.rows_per_thread,
        );
        let ms = median_ms(warmup, reps, || {
            Ok(device_time_ms(stream, |s| {
                for _ in 0..self.per_sample {
                    // SAFETY: see the module load above.
                    unsafe { s.launch(&module, 0, &config, &args) }?;
                }
                s.record_timing_event()
            })? / self.per_sample as f64)
        })?;
        stream.synchronize()?;
        drop(args);
        let got = b.to_vec()?;
        let (full, inner) = (
            (n as f64).powi(self.dims as i32),
            (inner as f64).powi(self.dims as i32),
        );
        Ok(ShapeRow {
            tuning,
            ms,
            gb_per_s: gb_per_s(8.0 * (full + inner), ms),
            mismatch: bit_mismatch("B", &got, &self.want, f64_bits),
            walks: self.dims == 3 && tuning.walk_3d,
        })
    }
}
