//! Runs one `gpu` map twice, through the evaluator and through its
//! generated PTX on the [`crate::ptxsim`] interpreter, from the same inputs.

use crate::ptxsim::{self, Launch, Memory};
use sdfg_compiler::codegen::abi::ParamValue;
use sdfg_compiler::codegen::ptx::PtxModule;
use sdfg_compiler::eval::{self, Env, MemEnv};
use sdfg_compiler::ir::*;
use std::collections::BTreeMap;

/// Container contents by id: (shape, row-major values).
pub type Data = BTreeMap<ContainerId, (Vec<usize>, Vec<Value>)>;

/// Iteration ranges (start, count, step) of a map, from the symbol values.
/// A dependent range (`sdfg_compiler::ir::ranges`) gives its box: the
/// smallest start and the largest end over the earlier parameters' values.
pub fn map_ranges(map: &Map, symbols: &[Value]) -> Vec<(i64, u64, i64)> {
    let mut out = Vec::new();
    for d in 0..map.params.len() {
        let step = bound(&map.params[d].step, symbols, &[]).unwrap_or(1).max(1);
        let mut start: Option<i64> = None;
        let mut end: Option<i64> = None;
        for outer in points(map, symbols, d) {
            let s = bound(&Some(map.params[d].start.clone()), symbols, &outer).unwrap_or(0);
            let e = bound(&Some(map.params[d].end.clone()), symbols, &outer).unwrap_or(0);
            start = Some(start.map_or(s, |x| x.min(s)));
            end = Some(end.map_or(e, |x| x.max(e)));
        }
        let (start, end) = (start.unwrap_or(0), end.unwrap_or(0));
        let count = if end > start {
            ((end as i128 - start as i128 + step as i128 - 1) / step as i128) as u64
        } else {
            0
        };
        out.push((start, count, step));
    }
    out
}

/// The value of a range bound for the values `params` of the earlier
/// parameters (None: no bound).
fn bound(e: &Option<Expr>, symbols: &[Value], params: &[Value]) -> Option<i64> {
    let mut env = MemEnv {
        symbols: symbols.to_vec(),
        params: params.to_vec(),
        ..Default::default()
    };
    let e = e.as_ref()?;
    Some(eval::index_value(
        eval::eval_expr(e, &mut env, &mut Vec::new()).unwrap_or(Value::I64(0)),
    ))
}

/// The points of the first `dims` dimensions of a map, in row-major order,
/// each range computed for the values of the parameters before it.
pub fn points(map: &Map, symbols: &[Value], dims: usize) -> Vec<Vec<Value>> {
    let mut out: Vec<Vec<Value>> = vec![Vec::new()];
    for d in 0..dims {
        let p = &map.params[d];
        let step = bound(&p.step, symbols, &[]).unwrap_or(1).max(1);
        let mut next = Vec::new();
        for outer in &out {
            let s = bound(&Some(p.start.clone()), symbols, outer).unwrap_or(0);
            let e = bound(&Some(p.end.clone()), symbols, outer).unwrap_or(0);
            let mut v = s as i128;
            while v < e as i128 {
                let mut point = outer.clone();
                point.push(sdfg_compiler::ir::semantics::cast(
                    Value::I64(v as i64),
                    p.ty,
                ));
                next.push(point);
                v += step as i128;
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
        if let Err(f) = eval::exec_body(&map.body, &mut env) {
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
            let mut b = [0u8; 8];
            b[..size].copy_from_slice(c);
            Value::from_bits(ty, u64::from_le_bytes(b))
        })
        .collect()
}

/// Runs kernel `kernel` of `module` on the interpreter with `grid` blocks
/// (block size from the kernel). Returns the containers after the run and
/// the fault word.
pub fn simulate_map(
    sdfg: &Sdfg,
    module: &PtxModule,
    kernel: usize,
    symbols: &[Value],
    data: &Data,
    grid: [u32; 3],
) -> Result<(Data, u32), String> {
    let k = &module.kernels[kernel];
    let StatementKind::Map(map) = &sdfg.states[k.state].stmts[k.stmt].kind else {
        return Err("not a map".into());
    };
    let parsed = ptxsim::Module::parse(&module.text)?;
    let mut mem = Memory::default();
    let mut addrs = BTreeMap::new();
    for (&c, (_, vals)) in data {
        if sdfg.containers[c].storage == Storage::Gpu {
            let ty = sdfg.containers[c].elem;
            addrs.insert(c, mem.alloc(to_bytes(vals, ty)));
        }
    }
    let fault = mem.alloc(vec![0u8; 4]);
    let ranges = map_ranges(map, symbols);
    let mut params = Vec::new();
    for p in &k.abi.params {
        params.push(match &p.value {
            ParamValue::Buffer { container, .. } => {
                *addrs.get(container).ok_or("missing buffer")?
            }
            ParamValue::Extent { container, dim } => {
                data.get(container).map(|d| d.0[*dim] as u64).unwrap_or(0)
            }
            ParamValue::Symbol(s) => symbols[*s].to_bits(),
            ParamValue::HostScalar(c) => data.get(c).map(|d| d.1[0].to_bits()).unwrap_or(0),
            ParamValue::RangeStart(d) => ranges[*d].0 as u64,
            ParamValue::RangeCount(d) => ranges[*d].1,
            ParamValue::RangeStep(d) => ranges[*d].2 as u64,
            ParamValue::Fault => fault,
        });
    }
    ptxsim::run_kernel(
        &parsed,
        &k.abi.name,
        &params,
        Launch {
            grid,
            block: k.block,
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
    let fw = mem.bytes(fault);
    Ok((out, u32::from_le_bytes([fw[0], fw[1], fw[2], fw[3]])))
}

/// Bitwise equality with every NaN equal to every other NaN.
pub fn same_value(a: Value, b: Value) -> bool {
    match (a, b) {
        (Value::F32(x), Value::F32(y)) if x.is_nan() && y.is_nan() => true,
        (Value::F64(x), Value::F64(y)) if x.is_nan() && y.is_nan() => true,
        _ => a == b,
    }
}
