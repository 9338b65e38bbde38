//! The PTX backend against the reference evaluator, on the GPU: random
//! well-typed expressions over every type and operator (division by zero,
//! huge shifts, NaN/inf/subnormal constants included) are compiled through
//! `sdfg-compiler` as a library, run as PTX kernels, and compared element by
//! element with `sdfg_compiler::eval`:
//! - expressions without transcendental functions bit for bit (any NaN
//!   equals any NaN);
//! - one transcendental call (exp, ln, sin, cos, tanh, powf) over exact
//!   arguments within that function's documented ulp bound
//!   (`codegen::ptx::ULP_BOUNDS`).
//!
//! Needs a GPU (modules without CPU twins cannot run on the CPU device):
//! skipped without one, a failure when `SDFG_REQUIRE_GPU=1`.

mod common;

use sdfg::compiler::codegen::abi::ParamValue;
use sdfg::compiler::codegen::ptx::{self, ULP_BOUNDS};
use sdfg::compiler::ir::{
    ContainerId, Expr, MathFn, ScalarType, Sdfg, StatementKind, Stmt, TaskletBody, Value,
};
use sdfg::runtime::{Device, DeviceBuffer, KernelArg, LaunchConfig, Module};
use sdfg_testkit::builder::{e, map_param, s as stmt, SdfgBuilder};
use sdfg_testkit::harness::{eval_map, same_value, Data};
use sdfg_testkit::randexpr::{random_inputs, random_kernel, ExprGen, GenConfig};
use std::collections::BTreeMap;

/// A device buffer of any element type.
macro_rules! any_buffer {
    ($($variant:ident: $t:ty),* $(,)?) => {
        enum AnyBuffer {
            $($variant(DeviceBuffer<$t>),)*
        }

        impl AnyBuffer {
            fn upload(device: &Device, ty: ScalarType, values: &[Value]) -> AnyBuffer {
                match ty {
                    $(ScalarType::$variant => {
                        let v: Vec<$t> = values
                            .iter()
                            .map(|x| match *x {
                                Value::$variant(y) => y,
                                other => panic!("expected {} input, got {other:?}", stringify!($t)),
                            })
                            .collect();
                        AnyBuffer::$variant(DeviceBuffer::from_slice(device, &v).unwrap())
                    })*
                }
            }

            fn download(&self) -> Vec<Value> {
                match self {
                    $(AnyBuffer::$variant(b) => {
                        b.to_vec().unwrap().into_iter().map(Value::$variant).collect()
                    })*
                }
            }

            fn arg(&self, writes: bool) -> KernelArg<'_> {
                match self {
                    $(AnyBuffer::$variant(b) => {
                        if writes {
                            KernelArg::write(b)
                        } else {
                            KernelArg::read(b)
                        }
                    })*
                }
            }
        }
    };
}

any_buffer!(
    I8: i8,
    I16: i16,
    I32: i32,
    I64: i64,
    U8: u8,
    U16: u16,
    U32: u32,
    U64: u64,
    F32: f32,
    F64: f64,
    F16: sdfg::runtime::half::f16,
    BF16: sdfg::runtime::half::bf16,
    Bool: bool,
    C32: sdfg::runtime::c32,
    C64: sdfg::runtime::c64,
);

/// An SDFG of `gpu` maps over `i in 0..n` that store expressions into
/// output arrays, with its inputs. `exprs[o]` is what `outputs[o]` receives;
/// map `k` writes the outputs `map_outputs[k]`.
struct Case {
    sdfg: Sdfg,
    inputs: Vec<(ScalarType, ContainerId)>,
    outputs: Vec<(ScalarType, ContainerId)>,
    exprs: Vec<Expr>,
    map_outputs: Vec<Vec<usize>>,
}

/// `maps` `gpu` maps, each computing `OUT_o[i] = expr_o` for `per_map`
/// random exact expressions of every type. A map's scaffolding (grid-stride
/// loop, bounds) is paid once for several expressions, while ptxas's time
/// grows faster than linearly with a kernel's length: about ten expressions
/// per kernel keeps the driver's JIT time per expression smallest.
fn wide_case(seed: u64, maps: usize, per_map: usize, config: &GenConfig) -> Case {
    let mut b = SdfgBuilder::new(&format!("wide_{seed}"));
    let n = b.symbol("N", ScalarType::I64);
    let inputs: Vec<(ScalarType, ContainerId)> = ScalarType::ALL
        .iter()
        .map(|&t| {
            (
                t,
                b.gpu(&format!("IN_{t}"), t, vec![e::sym(n, ScalarType::I64)]),
            )
        })
        .collect();
    let mut gen = ExprGen::new(seed, config.clone(), inputs.clone());
    let (mut outputs, mut exprs, mut map_outputs) = (Vec::new(), Vec::new(), Vec::new());
    let state = b.state("s");
    for map in 0..maps {
        let mut stmts = Vec::new();
        let mut written = Vec::new();
        for _ in 0..per_map {
            let o = outputs.len();
            let ty = ScalarType::ALL[(seed as usize + o) % ScalarType::ALL.len()];
            let out = b.gpu(&format!("OUT_{o}"), ty, vec![e::sym(n, ScalarType::I64)]);
            let expr = gen.expr(ty, config.max_depth);
            stmts.push(stmt::store(
                out,
                vec![e::param(0, ScalarType::I64)],
                expr.clone(),
            ));
            outputs.push((ty, out));
            exprs.push(expr);
            written.push(o);
        }
        let range = map_param(
            "i",
            ScalarType::I64,
            e::i64(0),
            e::sym(n, ScalarType::I64),
            None,
        );
        b.gpu_map(
            state,
            &format!("f{map}"),
            vec![range],
            TaskletBody {
                locals: vec![],
                stmts,
            },
        );
        map_outputs.push(written);
    }
    Case {
        sdfg: b.build(),
        inputs,
        outputs,
        exprs,
        map_outputs,
    }
}

/// Runs every map of `case` on the GPU and through the evaluator (each map
/// on fresh poisoned outputs); returns, per map and output it writes,
/// (output index, gpu values, evaluator values).
fn run_case(
    device: &Device,
    case: &Case,
    seed: u64,
    n: usize,
) -> Vec<(usize, Vec<Value>, Vec<Value>)> {
    let module_ptx = ptx::generate(&case.sdfg);
    let names: Vec<String> = module_ptx
        .kernels
        .iter()
        .map(|k| k.abi.name.clone())
        .collect();
    // SAFETY: the PTX backend generated this module from `case.sdfg`; each
    // launch below passes its kernel's ABI parameters (built from
    // `kernel.abi`), and every buffer has the `n` elements the extents say.
    let module = unsafe { Module::load_dynamic(device, module_ptx.text.clone(), names) }
        .expect("the module JIT-compiles");
    let mut data = Data::new();
    let mut buffers: BTreeMap<ContainerId, AnyBuffer> = BTreeMap::new();
    for &(t, c) in &case.inputs {
        let values = random_inputs(seed ^ c as u64, t, n);
        buffers.insert(c, AnyBuffer::upload(device, t, &values));
        data.insert(c, (vec![n], values));
    }
    let poison = |t: ScalarType| vec![Value::from_bits(t, 0x5a5a_5a5a_5a5a_5a5a); n];
    for &(t, c) in &case.outputs {
        data.insert(c, (vec![n], poison(t)));
    }
    let stream = device.new_stream().expect("a stream");
    let mut results = Vec::new();
    for (k, kernel) in module_ptx.kernels.iter().enumerate() {
        for &(t, c) in &case.outputs {
            buffers.insert(c, AnyBuffer::upload(device, t, &poison(t)));
        }
        let args: Vec<KernelArg<'_>> = kernel
            .abi
            .params
            .iter()
            .map(|p| match &p.value {
                ParamValue::Buffer { container, access } => buffers[container].arg(access.writes()),
                ParamValue::Extent { .. } | ParamValue::RangeCount(_) => KernelArg::value(n as u64),
                ParamValue::Symbol(_) => KernelArg::value(n as i64),
                ParamValue::RangeStart(_) => KernelArg::value(0i64),
                ParamValue::RangeStep(_) => KernelArg::value(1i64),
                ParamValue::HostScalar(_) => panic!("random kernels read no host scalars"),
                ParamValue::Fault => KernelArg::fault(),
            })
            .collect();
        let config = LaunchConfig::for_tiles(
            device,
            &[n as u64],
            kernel.block,
            kernel.items_per_thread,
            kernel.rows_per_thread,
        );
        // SAFETY: see the module load above.
        unsafe { stream.launch(&module, k, &config, &args) }.expect("launch");
        stream
            .synchronize()
            .expect("no fault: every access of a random kernel is in bounds");
        let (want, fault) = eval_map(
            &case.sdfg,
            kernel.state,
            kernel.stmt,
            &[Value::I64(n as i64)],
            &data,
        );
        assert!(fault.is_none(), "the evaluator faulted on map {k}");
        for &o in &case.map_outputs[k] {
            let c = case.outputs[o].1;
            results.push((o, buffers[&c].download(), want[&c].1.clone()));
        }
    }
    results
}

/// Output `o`'s expression in Rust syntax, for failure messages.
fn describe(case: &Case, o: usize) -> String {
    use sdfg::compiler::export::print::{expr_to_rust, BodyNames};
    let mut maps = case.sdfg.states[0]
        .stmts
        .iter()
        .filter_map(|s| match &s.kind {
            StatementKind::Map(m) => Some(m),
            _ => None,
        });
    let writer = case.map_outputs.iter().position(|outs| outs.contains(&o));
    match writer.and_then(|k| maps.nth(k)) {
        Some(m) => format!(
            "OUT[i] = {}",
            expr_to_rust(&case.exprs[o], &case.sdfg, &BodyNames::for_map(m))
        ),
        None => format!("{:?}", case.exprs[o]),
    }
}

const DIFFERENTIAL_TEST: &str = "ten_thousand_exact_random_expressions_are_bit_identical";

/// Compares the modules `first, first + stride, ...` below `modules` on the
/// GPU; returns how many expressions it compared and the mismatches.
fn compare_modules(device: &Device, first: u64, stride: u64, modules: u64) -> (usize, Vec<String>) {
    let config = GenConfig {
        max_depth: 5,
        approx_math: false,
    };
    let (n, maps, per_map) = (64usize, 10usize, 10usize);
    let started = std::time::Instant::now();
    let (mut compared, mut mismatches) = (0, Vec::new());
    for m in (first..modules).step_by(stride as usize) {
        let seed = 0xD1FF_0000 + m;
        let case = wide_case(seed, maps, per_map, &config);
        for (o, gpu, want) in run_case(device, &case, seed, n) {
            if let Some(i) = (0..n).find(|&i| !same_value(gpu[i], want[i])) {
                let msg = format!(
                    "module {m} OUT_{o}[{i}] ({}): gpu {} vs evaluator {}\n  {}",
                    case.outputs[o].0,
                    gpu[i],
                    want[i],
                    describe(&case, o)
                );
                eprintln!("MISMATCH {msg}");
                mismatches.push(msg);
            }
            compared += 1;
        }
        // Progress: the driver's JIT of these modules is the slow part.
        eprintln!(
            "module {m} done at {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    (compared, mismatches)
}

/// 100 modules of 10 kernels of 10 random exact expressions (ptxas's time
/// grows faster than linearly with a kernel's length, so kernels stay
/// short). The driver's JIT dominates the run, so the test fans out into
/// one child process per core (`SDFG_DIFF_SHARD=i/n`), each with its own
/// context and JIT. `SDFG_DIFF_MODULES` shortens a run; the issue asks for
/// at least 10,000 expressions, so the check below then fails.
#[test]
fn ten_thousand_exact_random_expressions_are_bit_identical() {
    let Some(device) = common::gpu_or_skip("gpu_differential") else {
        return;
    };
    let modules: u64 = std::env::var("SDFG_DIFF_MODULES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    if let Ok(shard) = std::env::var("SDFG_DIFF_SHARD") {
        let (i, of) = shard
            .split_once('/')
            .and_then(|(i, of)| Some((i.parse().ok()?, of.parse().ok()?)))
            .expect("SDFG_DIFF_SHARD is i/n");
        let (compared, mismatches) = compare_modules(&device, i, of, modules);
        println!("SHARD_COMPARED {compared}");
        assert!(
            mismatches.is_empty(),
            "{} expressions differ:\n{}",
            mismatches.len(),
            mismatches.join("\n")
        );
        return;
    }
    drop(device);
    let started = std::time::Instant::now();
    let shards = std::thread::available_parallelism()
        .map_or(4, |p| p.get())
        .min(modules as usize)
        .max(1);
    let children: Vec<_> = (0..shards)
        .map(|i| {
            std::process::Command::new(std::env::current_exe().expect("the test binary"))
                .args([
                    DIFFERENTIAL_TEST,
                    "--exact",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env("SDFG_DIFF_SHARD", format!("{i}/{shards}"))
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("a shard process starts")
        })
        .collect();
    let mut compared = 0usize;
    let mut failures = Vec::new();
    for (i, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().expect("the shard process runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        // The test harness prints "test <name> ... " before the test's own output.
        let count = stdout
            .lines()
            .find_map(|l| l.split("SHARD_COMPARED ").nth(1))
            .and_then(|k| k.split_whitespace().next()?.parse::<usize>().ok());
        match count {
            Some(k) if out.status.success() => compared += k,
            _ => failures.push(format!(
                "shard {i}/{shards} failed ({}):\n{stdout}",
                out.status
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared >= 10_000, "only {compared} expressions compared");
    println!(
        "{compared} random expressions x 64 elements: bit-identical on the GPU ({:.1} s, {shards} processes)",
        started.elapsed().as_secs_f64()
    );
}

/// Distance in units in the last place (NaN == NaN, equal infinities 0).
fn ulps(a: Value, b: Value) -> f64 {
    fn ordered64(x: f64) -> i128 {
        let b = x.to_bits() as i64;
        (if b < 0 { i64::MIN - b } else { b }) as i128
    }
    fn ordered32(x: f32) -> i128 {
        let b = x.to_bits() as i32;
        (if b < 0 { i32::MIN - b } else { b }) as i128
    }
    match (a, b) {
        (Value::F64(x), Value::F64(y)) if x.is_nan() && y.is_nan() => 0.0,
        (Value::F32(x), Value::F32(y)) if x.is_nan() && y.is_nan() => 0.0,
        (Value::F64(x), Value::F64(y)) if x.is_nan() || y.is_nan() => f64::INFINITY,
        (Value::F32(x), Value::F32(y)) if x.is_nan() || y.is_nan() => f64::INFINITY,
        (Value::F64(x), Value::F64(y)) => (ordered64(x) - ordered64(y)).unsigned_abs() as f64,
        (Value::F32(x), Value::F32(y)) => (ordered32(x) - ordered32(y)).unsigned_abs() as f64,
        _ => {
            if a == b {
                0.0
            } else {
                f64::INFINITY
            }
        }
    }
}

fn bound(f: MathFn, ty: ScalarType) -> f64 {
    let name = format!("{} {ty}", f.method_name());
    ULP_BOUNDS
        .iter()
        .find(|b| b.function == name)
        .unwrap_or_else(|| panic!("no ulp bound documented for {name}"))
        .ulp
}

#[test]
fn transcendental_calls_stay_within_their_documented_ulp_bounds() {
    let Some(device) = common::gpu_or_skip("gpu_differential_math") else {
        return;
    };
    let exact = GenConfig {
        max_depth: 3,
        approx_math: false,
    };
    let funcs: Vec<MathFn> = MathFn::ALL
        .into_iter()
        .filter(|f| f.is_transcendental() && f.takes_reals())
        .collect();
    let n = 256usize;
    let mut worst: BTreeMap<String, f64> = BTreeMap::new();
    let mut compared = 0usize;
    for (round, ty) in [ScalarType::F32, ScalarType::F64]
        .into_iter()
        .cycle()
        .take(8)
        .enumerate()
    {
        // One module: map k applies funcs[k % funcs.len()] to exact random
        // arguments (every function twice per round).
        let seed = 0x7A7A_0000 + round as u64;
        let mut base = random_kernel(seed, ty, &exact);
        let mut exprs = Vec::new();
        let template = base.sdfg.states[0].stmts[0].clone();
        base.sdfg.states[0].stmts.clear();
        for k in 0..2 * funcs.len() {
            let f = funcs[k % funcs.len()];
            let arg = random_kernel(seed * 31 + k as u64, ty, &exact).expr;
            let call = if f.arity() == 2 {
                let y = random_kernel(seed * 37 + k as u64, ty, &exact).expr;
                e::call(f, vec![arg, y])
            } else {
                e::call(f, vec![arg])
            };
            let mut stmt = template.clone();
            if let StatementKind::Map(map) = &mut stmt.kind {
                map.name.text = format!("m{k}");
                if let Some(Stmt::Store { value, .. }) = map.body.stmts.first_mut() {
                    *value = call.clone();
                }
            }
            stmt.memlets = sdfg_testkit::builder::memlets_of(match &stmt.kind {
                StatementKind::Map(map) => &map.body.stmts,
                _ => unreachable!(),
            });
            base.sdfg.states[0].stmts.push(stmt);
            exprs.push(call);
        }
        let outputs = vec![(ty, base.out); exprs.len()];
        let case = Case {
            sdfg: base.sdfg,
            inputs: base.inputs,
            outputs,
            map_outputs: (0..exprs.len()).map(|k| vec![k]).collect(),
            exprs,
        };
        for (k, gpu, want) in run_case(&device, &case, seed, n) {
            let f = funcs[k % funcs.len()];
            let limit = bound(f, ty);
            for i in 0..n {
                let d = ulps(gpu[i], want[i]);
                let key = format!("{} {ty}", f.method_name());
                let w = worst.entry(key).or_insert(0.0);
                *w = w.max(d);
                assert!(
                    d <= limit,
                    "{} {ty}: {d} ulp > {limit} at element {i}: gpu {} vs std {}\n{}",
                    f.method_name(),
                    gpu[i],
                    want[i],
                    describe(&case, k)
                );
            }
            compared += 1;
        }
    }
    println!("{compared} transcendental calls x {n} elements; worst ulp per function: {worst:?}");
}
