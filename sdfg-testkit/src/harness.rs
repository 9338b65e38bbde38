//! Runs one `gpu` map twice, through the evaluator and through its
//! generated PTX on the [`crate::ptxsim`] interpreter, from the same inputs.

use crate::ptxsim::{self, Launch, Memory};
use sdfg_compiler::codegen::abi::{ParamValue, FAULT_INDEX_OFFSET, FAULT_SITE_OFFSET};
use sdfg_compiler::codegen::ptx::PtxModule;
use sdfg_compiler::eval::{self, Env, MemEnv};
use sdfg_compiler::ir::*;
use std::collections::BTreeMap;

/// Container contents by id: (shape, row-major values).
pub type Data = BTreeMap<ContainerId, (Vec<usize>, Vec<Value>)>;

/// Iteration ranges (start, count, step) of a map, from the symbol values,
/// as the kernel receives them (start and step as i64, wrapping).
pub fn map_ranges(map: &Map, symbols: &[Value]) -> Vec<(i64, u64, i64)> {
    map_ranges_exact(map, symbols)
        .into_iter()
        .map(|(start, count, step)| (start as i64, count, step as i64))
        .collect()
}

/// Iteration ranges (start, count, step) of a map as the glue computes
/// them: in i128, an inclusive end plus one there (it may be the type's
/// maximum); a step that is not positive runs nothing here (the glue
/// rejects it). A dependent range (`sdfg_compiler::ir::ranges`) gives its
/// box: the smallest start and the largest end over the earlier
/// parameters' values.
pub fn map_ranges_exact(map: &Map, symbols: &[Value]) -> Vec<(i128, u64, i128)> {
    let mut out = Vec::new();
    for (d, p) in map.params.iter().enumerate() {
        let step = p.step.as_ref().map_or(1, |e| value128(e, symbols, &[]));
        let outer = if p.is_dependent() {
            points(map, symbols, d)
        } else {
            vec![Vec::new()]
        };
        let mut bounds: Option<(i128, i128)> = None;
        for values in &outer {
            let (s, e) = range_of(p, symbols, values);
            bounds = Some(bounds.map_or((s, e), |(a, b)| (a.min(s), b.max(e))));
        }
        let (start, end) = bounds.unwrap_or((0, 0));
        let count = if end > start && step > 0 {
            u64::try_from((end - start + step - 1) / step).unwrap_or(u64::MAX)
        } else {
            0
        };
        out.push((start, count, step));
    }
    out
}

/// The value of a range bound for the values `params` of the earlier
/// parameters, in i128.
fn value128(e: &Expr, symbols: &[Value], params: &[Value]) -> i128 {
    let mut env = MemEnv {
        symbols: symbols.to_vec(),
        params: params.to_vec(),
        ..Default::default()
    };
    eval::eval_expr(e, &mut env, &mut Vec::new())
        .ok()
        .and_then(|x| x.as_i128())
        .unwrap_or(0)
}

/// `p`'s start and exclusive end (in i128) for the earlier parameters'
/// values `params`.
fn range_of(p: &MapParam, symbols: &[Value], params: &[Value]) -> (i128, i128) {
    let start = value128(&p.start, symbols, params);
    let end = match p.run_end() {
        RangeEnd::Exclusive(e) => value128(e, symbols, params),
        RangeEnd::Inclusive(last) => value128(last, symbols, params) + 1,
    };
    (start, end)
}

/// The points of the first `dims` dimensions of a map, in row-major order,
/// each range computed for the values of the parameters before it.
pub fn points(map: &Map, symbols: &[Value], dims: usize) -> Vec<Vec<Value>> {
    let mut out: Vec<Vec<Value>> = vec![Vec::new()];
    for p in &map.params[..dims.min(map.params.len())] {
        let step = p.step.as_ref().map_or(1, |e| value128(e, symbols, &[]));
        let mut next = Vec::new();
        for outer in &out {
            let (s, e) = range_of(p, symbols, outer);
            let mut v = s;
            while step > 0 && v < e {
                let mut point = outer.clone();
                point.push(sdfg_compiler::ir::semantics::cast(
                    Value::I64(v as i64),
                    p.ty,
                ));
                next.push(point);
                v += step;
            }
        }
        out = next;
    }
    out
}

/// The evaluator's result: every iteration in row-major order.
pub fn eval_map(
    sdfg: &Sdfg,
    state: StateId,
    stmt: StmtId,
    symbols: &[Value],
    data: &Data,
) -> (Data, Option<eval::EvalFault>) {
    let StatementKind::Map(map) = &sdfg.states[state].stmts[stmt].kind else {
        return (data.clone(), None);
    };
    let mut env = MemEnv {
        symbols: symbols.to_vec(),
        ..Default::default()
    };
    for (&c, (shape, vals)) in data {
        env.set_container(c, shape.clone(), vals.clone());
    }
    let mut first_fault = None;
    for params in points(map, symbols, map.params.len()) {
        env.params = params;
        let run = match &map.block {
            Some(block) => eval::exec_block_iteration(&map.body, block, &sdfg.containers, &mut env),
            None => eval::exec_body(&map.body, &mut env),
        };
        if let Err(f) = run {
            first_fault.get_or_insert(f);
        }
    }
    let mut out = Data::new();
    for (&c, (shape, _)) in data {
        let vals = env.containers[c]
            .as_ref()
            .map(|x| x.1.clone())
            .unwrap_or_default();
        out.insert(c, (shape.clone(), vals));
        let _ = env.load(c, &[]);
    }
    (out, first_fault)
}

fn to_bytes(vals: &[Value], ty: ScalarType) -> Vec<u8> {
    let size = ty.size_bytes();
    let mut out = Vec::with_capacity(vals.len() * size);
    for v in vals {
        out.extend_from_slice(&v.to_bits().to_le_bytes()[..size]);
    }
    out
}

fn from_bytes(bytes: &[u8], ty: ScalarType) -> Vec<Value> {
    let size = ty.size_bytes();
    bytes
        .chunks(size)
        .map(|c| {
            let mut b = [0u8; 16];
            b[..size].copy_from_slice(c);
            Value::from_bits(ty, u128::from_le_bytes(b))
        })
        .collect()
}

/// The threads per block of a block map's kernel (`B` rounded up to whole
/// warps) and its dynamic shared memory in bytes, from the symbol values.
pub fn block_launch(sdfg: &Sdfg, map: &Map, symbols: &[Value]) -> Option<(u32, u32)> {
    let block = map.block.as_ref()?;
    let mut env = MemEnv {
        symbols: symbols.to_vec(),
        ..Default::default()
    };
    let mut v = |e: &Expr| {
        eval::index_value(eval::eval_expr(e, &mut env, &mut Vec::new()).unwrap_or(Value::I64(0)))
    };
    let threads: i64 = block.dims().iter().map(&mut v).product();
    let mut dynamic = 0u64;
    for &c in &block.data {
        let k = &sdfg.containers[c];
        if k.storage != Storage::Shared
            || k.shape
                .iter()
                .all(|d| sdfg_compiler::ir::linear::constant_value(d).is_some())
        {
            continue;
        }
        let len: i64 = k.shape.iter().map(&mut v).product();
        dynamic += (len as u64 * k.elem.size_bytes() as u64).div_ceil(16) * 16;
    }
    Some(((threads as u32).div_ceil(32) * 32, dynamic as u32))
}

/// Runs kernel `kernel` of `module` on the interpreter with `grid` blocks
/// (block size from the kernel; for a block map from the symbols). Returns
/// the containers after the run and the access code of the first fault the
/// kernel recorded in its fault slot (0: none); [`simulate_map_fault`] gives
/// the whole record.
pub fn simulate_map(
    sdfg: &Sdfg,
    module: &PtxModule,
    kernel: usize,
    symbols: &[Value],
    data: &Data,
    grid: [u32; 3],
) -> Result<(Data, u32), String> {
    let (out, fault) = simulate_map_fault(sdfg, module, kernel, symbols, data, grid)?;
    Ok((out, fault.map_or(0, |f| f.access)))
}

/// The first fault a kernel recorded in its fault slot (the layout of
/// `sdfg_compiler::codegen::abi`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimFault {
    /// The kernel's number in its module (0-based launch index).
    pub kernel: u32,
    /// The access code (from 1, `ir::bounds::for_each_access` order).
    pub access: u32,
    /// The row-major index of the skipped access (wrapping 64-bit).
    pub index: i64,
}

/// [`simulate_map`], returning the fault slot's first record.
pub fn simulate_map_fault(
    sdfg: &Sdfg,
    module: &PtxModule,
    kernel: usize,
    symbols: &[Value],
    data: &Data,
    grid: [u32; 3],
) -> Result<(Data, Option<SimFault>), String> {
    simulate_map_atomics(sdfg, module, kernel, symbols, data, grid).map(|r| (r.0, r.1))
}

/// `grid` with 1 along y and z where kernel `name` never reads its block's
/// position there: the runtime launches such a kernel (a map of fewer
/// dimensions) with one block along them, and more would run the same
/// iterations twice (two threads writing one element, which the
/// interpreter reports as a race).
fn grid_it_reads(text: &str, name: &str, grid: [u32; 3]) -> [u32; 3] {
    let at = text.find(&format!(".entry {name}(")).unwrap_or(0);
    let end = text[at..].find("\n}\n").map_or(text.len(), |e| at + e);
    let kernel = &text[at..end];
    let reads = |axis: &str| kernel.contains(&format!("%ctaid.{axis}"));
    [
        grid[0],
        if reads("y") { grid[1] } else { 1 },
        if reads("z") { grid[2] } else { 1 },
    ]
}

/// Executed global atomics (`atom`, `red`) per `gpu` container.
pub type AtomicCounts = BTreeMap<ContainerId, u64>;

/// [`simulate_map_fault`], also returning how many global atomics (`atom`,
/// `red`) the kernel executed on each `gpu` container of `data`.
pub fn simulate_map_atomics(
    sdfg: &Sdfg,
    module: &PtxModule,
    kernel: usize,
    symbols: &[Value],
    data: &Data,
    grid: [u32; 3],
) -> Result<(Data, Option<SimFault>, AtomicCounts), String> {
    simulate(sdfg, module, kernel, symbols, data, grid, true)
}

/// [`simulate_map_fault`] without the interpreter's race check, for SDFGs
/// built without the front end's race test (random index expressions whose
/// writes may meet: the interpreter's one order is what is compared).
pub fn simulate_map_fault_allowing_races(
    sdfg: &Sdfg,
    module: &PtxModule,
    kernel: usize,
    symbols: &[Value],
    data: &Data,
    grid: [u32; 3],
) -> Result<(Data, Option<SimFault>), String> {
    simulate(sdfg, module, kernel, symbols, data, grid, false).map(|r| (r.0, r.1))
}

fn simulate(
    sdfg: &Sdfg,
    module: &PtxModule,
    kernel: usize,
    symbols: &[Value],
    data: &Data,
    grid: [u32; 3],
    check_races: bool,
) -> Result<(Data, Option<SimFault>, AtomicCounts), String> {
    let k = &module.kernels[kernel];
    let StatementKind::Map(map) = &sdfg.states[k.state].stmts[k.stmt].kind else {
        return Err("not a map".into());
    };
    let parsed = ptxsim::Module::parse(&module.text)?;
    let mut mem = Memory::default();
    if !check_races {
        mem.allow_races();
    }
    let mut addrs = BTreeMap::new();
    for (&c, (_, vals)) in data {
        if sdfg.containers[c].storage == Storage::Gpu {
            let ty = sdfg.containers[c].elem;
            addrs.insert(c, mem.alloc(to_bytes(vals, ty)));
        }
    }
    let fault = mem.alloc(vec![0u8; 24]);
    let ranges = map_ranges(map, symbols);
    let mut params = Vec::new();
    for p in &k.abi.params {
        params.push(match &p.value {
            ParamValue::Buffer { container, .. } => {
                *addrs.get(container).ok_or("missing buffer")? as u128
            }
            ParamValue::Extent { container, dim } => {
                data.get(container).map(|d| d.0[*dim] as u128).unwrap_or(0)
            }
            ParamValue::Symbol(s) => symbols[*s].to_bits(),
            ParamValue::HostScalar(c) => data.get(c).map(|d| d.1[0].to_bits()).unwrap_or(0),
            ParamValue::RangeStart(d) => ranges[*d].0 as u64 as u128,
            ParamValue::RangeCount(d) => ranges[*d].1 as u128,
            ParamValue::RangeStep(d) => ranges[*d].2 as u64 as u128,
            ParamValue::Fault => fault as u128,
        });
    }
    let (block, shared_bytes) = match block_launch(sdfg, map, symbols) {
        Some((threads, shared)) => ([threads, 1, 1], shared),
        None => (k.block, 0),
    };
    ptxsim::run_kernel(
        &parsed,
        &k.abi.name,
        &params,
        Launch {
            grid: grid_it_reads(&module.text, &k.abi.name, grid),
            block,
            shared_bytes,
        },
        &mut mem,
    )?;
    let mut out = Data::new();
    for (&c, (shape, vals)) in data {
        let ty = sdfg.containers[c].elem;
        let vals = match addrs.get(&c) {
            Some(&a) => from_bytes(mem.bytes(a), ty),
            None => vals.clone(),
        };
        out.insert(c, (shape.clone(), vals));
    }
    let slot = mem.bytes(fault);
    let word = |at: usize| u64::from_le_bytes(slot[at..at + 8].try_into().expect("8 bytes"));
    let (site, index) = (
        word(FAULT_SITE_OFFSET as usize),
        word(FAULT_INDEX_OFFSET as usize),
    );
    let fault = (site != 0).then(|| SimFault {
        kernel: ((site >> 32) as u32).saturating_sub(1),
        access: site as u32,
        index: index as i64,
    });
    let atomics = addrs.iter().map(|(&c, &a)| (c, mem.atomics(a))).collect();
    Ok((out, fault, atomics))
}

/// Bitwise equality with every NaN equal to every other NaN.
pub fn same_value(a: Value, b: Value) -> bool {
    match (a, b) {
        (Value::F32(x), Value::F32(y)) if x.is_nan() && y.is_nan() => true,
        (Value::F64(x), Value::F64(y)) if x.is_nan() && y.is_nan() => true,
        (Value::F16(x), Value::F16(y)) if x.is_nan() && y.is_nan() => true,
        (Value::BF16(x), Value::BF16(y)) if x.is_nan() && y.is_nan() => true,
        (Value::C32(x), Value::C32(y)) => {
            same_value(Value::F32(x.re), Value::F32(y.re))
                && same_value(Value::F32(x.im), Value::F32(y.im))
        }
        (Value::C64(x), Value::C64(y)) => {
            same_value(Value::F64(x.re), Value::F64(y.re))
                && same_value(Value::F64(x.im), Value::F64(y.im))
        }
        _ => a == b,
    }
}
