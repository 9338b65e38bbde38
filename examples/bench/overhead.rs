//! What a call costs on the host beyond the launch: `run()` of a one-kernel
//! and a ten-kernel SDFG against raw cudarc launches of the same generated
//! PTX plus one stream synchronization; on the CPU device, against the same
//! loops in plain Rust (what remains is the stream emulation: issuing,
//! the worker hand-off and the wait).

use crate::common::{self, median, AnyResult, Table};
use crate::raw::{arg, RawCuda};
use crate::report::met;
use sdfg::compiler::codegen::abi::ParamValue;
use sdfg::prelude::*;
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

/// Host-side cost of a call, in microseconds (medians over `calls` calls).
pub(crate) struct Overhead {
    pub(crate) calls: usize,
    pub(crate) run1_us: f64,
    pub(crate) run10_us: f64,
    pub(crate) raw1_us: Option<f64>,
    pub(crate) raw10_us: Option<f64>,
    /// On the CPU device the "raw" calls are plain Rust loops.
    pub(crate) cpu: bool,
}

/// `run()` of a one-kernel and a ten-kernel SDFG against raw launches of the
/// same generated PTX + one stream synchronization.
pub(crate) fn host_overhead(
    device: &Device,
    raw: Option<&RawCuda>,
    calls: usize,
) -> AnyResult<Overhead> {
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
        None if !device.is_gpu() => {
            // The same work in plain Rust: 1 and 10 passes of `y += 1`.
            let mut y = y0.clone();
            let mut passes = |k: usize| {
                per_call_us(&mut || {
                    for _ in 0..k {
                        #[allow(clippy::assign_op_pattern)]
                        y.iter_mut().for_each(|v| *v = *v + 1.0);
                    }
                    std::hint::black_box(&mut y);
                    Ok(())
                })
            };
            (Some(passes(1)?), Some(passes(10)?))
        }
        None => (None, None),
    };
    Ok(Overhead {
        calls,
        run1_us,
        run10_us,
        raw1_us,
        raw10_us,
        cpu: !device.is_gpu(),
    })
}

/// Times a call (given as a closure) on the host: median µs.
type PerCallUs<'a> = &'a dyn Fn(&mut dyn FnMut() -> AnyResult<()>) -> AnyResult<f64>;

/// Median µs of: every kernel of the SDFG launched through raw cudarc on
/// its own stream, then one `cuStreamSynchronize`. The kernels' parameter
/// lists come from the ABI (`Name::ir()` -> `codegen::ptx::generate`): a
/// buffer `Y`, its extent, the map range (start, count, step), the fault
/// slot (24 zeroed bytes, the ABI's layout). Checks that the launches did
/// the work (Y + 1 per kernel per call) and recorded no fault.
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
    let fault = cuda.upload(&[0u64; 3])?;
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
            // y holds TINY_N f32s, fault a whole fault slot.
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
    let fault_slot: Vec<u64> = cuda.download(&fault)?;
    if !ok || fault_slot.iter().any(|&w| w != 0) {
        return Err("raw launches of the generated kernels computed a wrong result".into());
    }
    Ok(us)
}

pub(crate) fn print_overhead(o: &Overhead) {
    println!();
    println!(
        "Host overhead (wall clock per call, median of {} calls, {} f32 per map):",
        o.calls, TINY_N
    );
    // On the GPU the raw calls launch and sync too, so the difference is
    // per kernel; on the CPU device the plain loops do neither, so it is
    // per stream operation: each launch and the call's one host sync.
    let (raw, per, target_us) = if o.cpu {
        ("plain Rust us", "per operation +us", 5.0)
    } else {
        ("raw us", "per kernel +us", 1.0)
    };
    let mut t = Table::new(&["call", "sdfg run() us", raw, per, "target"]);
    for (name, kernels, run, raw) in [
        ("1 kernel", 1.0, o.run1_us, o.raw1_us),
        ("10 kernels", 10.0, o.run10_us, o.raw10_us),
    ] {
        let (raw_s, extra, target) = match raw {
            Some(r) => {
                let operations = if o.cpu { kernels + 1.0 } else { kernels };
                let extra = (run - r) / operations;
                (
                    format!("{r:.2}"),
                    format!("{extra:+.2}"),
                    met(extra, target_us, false),
                )
            }
            None => ("n/a".into(), "n/a".into(), "n/a".into()),
        };
        t.row(vec![name.into(), format!("{run:.2}"), raw_s, extra, target]);
    }
    t.print();
    if o.cpu {
        println!(
            "  target: run() <= the plain Rust loops + 5 us per stream operation (each launch, and the call's sync)"
        );
    } else {
        println!("  target: run() <= raw launches + one sync + 1 us per kernel");
    }
}
