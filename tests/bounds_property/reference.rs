//! The evaluator's view of a case: every iteration of the map, and the
//! evaluator's run of it, logging each access outside a container.

use crate::cases::*;
use sdfg::compiler::eval::{self, Env, MemEnv};
use sdfg::compiler::ir::*;
use sdfg_testkit::harness::{map_ranges, Data};
use std::collections::BTreeSet;

pub fn the_map(sdfg: &Sdfg) -> &Map {
    match &sdfg.states[0].stmts[0].kind {
        StatementKind::Map(m) => m,
        _ => unreachable!("one gpu map"),
    }
}

/// Calls `f` with an environment (parameters set) and the locals for every
/// iteration and, `in_loop`, every value of the body's loop variable.
pub fn for_each_iteration(
    sdfg: &Sdfg,
    symbols: &[Value],
    in_loop: bool,
    f: &mut dyn FnMut(&mut MemEnv, &[Value]),
) {
    let map = the_map(sdfg);
    let ranges = map_ranges(map, symbols);
    let total: u64 = ranges.iter().map(|r| r.1).product();
    let mut env = MemEnv {
        symbols: symbols.to_vec(),
        ..Default::default()
    };
    for flat in 0..total {
        env.params = params_at(map, &ranges, flat);
        let loop_values = match map.body.stmts.first() {
            Some(Stmt::For { start, end, .. }) if in_loop => {
                let (a, b) = (
                    eval::eval_expr(start, &mut env, &mut Vec::new()).unwrap(),
                    eval::eval_expr(end, &mut env, &mut Vec::new()).unwrap(),
                );
                let (a, b) = (a.as_i128().unwrap(), b.as_i128().unwrap());
                (a..b)
                    .map(|k| semantics::cast(Value::I64(k as i64), map.body.locals[0].ty))
                    .collect()
            }
            _ => vec![Value::I64(0)],
        };
        for k in loop_values {
            f(&mut env, &[k]);
        }
    }
}

fn params_at(map: &Map, ranges: &[(i64, u64, i64)], flat: u64) -> Vec<Value> {
    let mut rest = flat;
    let mut params = vec![Value::I64(0); ranges.len()];
    for d in (0..ranges.len()).rev() {
        let (start, count, step) = ranges[d];
        let t = rest % count;
        rest /= count;
        let v = start.wrapping_add((t as i64).wrapping_mul(step));
        params[d] = semantics::cast(Value::I64(v), map.params[d].ty);
    }
    params
}

/// An environment that records every container an access fell outside of.
struct Logged<'a> {
    mem: &'a mut MemEnv,
    faults: &'a mut BTreeSet<ContainerId>,
    /// (container, index) of every access outside a one-dimensional one.
    at: &'a mut BTreeSet<(ContainerId, i64)>,
}

impl Logged<'_> {
    fn fault(&mut self, c: ContainerId, index: &[i64]) {
        self.faults.insert(c);
        if let [i] = index {
            self.at.insert((c, *i));
        }
    }
}

impl Env for Logged<'_> {
    fn var(&self, v: VarRef) -> Value {
        self.mem.var(v)
    }
    fn load(&mut self, c: ContainerId, index: &[i64]) -> Option<Value> {
        let v = self.mem.load(c, index);
        if v.is_none() {
            self.fault(c, index);
        }
        v
    }
    fn store(&mut self, c: ContainerId, index: &[i64], v: Value, wcr: Option<WcrOp>) -> bool {
        let ok = self.mem.store(c, index, v, wcr);
        if !ok {
            self.fault(c, index);
        }
        ok
    }
}

/// Runs every iteration of `map` on `mem` (row-major), recording in
/// `faults` every container an access fell outside of and in `at` where
/// (one-dimensional containers). Every iteration runs, whatever the
/// earlier ones touched.
pub fn run_map_logged(
    map: &Map,
    symbols: &[Value],
    mem: &mut MemEnv,
    faults: &mut BTreeSet<ContainerId>,
    at: &mut BTreeSet<(ContainerId, i64)>,
) {
    let ranges = map_ranges(map, symbols);
    let total: u64 = ranges.iter().map(|r| r.1).product();
    for flat in 0..total {
        mem.params = params_at(map, &ranges, flat);
        let _ = eval::exec_body(&map.body, &mut Logged { mem, faults, at });
    }
}

/// The evaluator's run of the map: final data, every container some
/// iteration touched outside of, and where (one-dimensional containers).
pub fn evaluate_map(case: &Case) -> (Data, BTreeSet<ContainerId>, BTreeSet<(ContainerId, i64)>) {
    let map = the_map(&case.sdfg);
    let mut mem = MemEnv {
        symbols: case.symbols.clone(),
        ..Default::default()
    };
    for (&c, (shape, vals)) in &case.data {
        mem.set_container(c, shape.clone(), vals.clone());
    }
    let (mut faults, mut at) = (BTreeSet::new(), BTreeSet::new());
    run_map_logged(map, &case.symbols, &mut mem, &mut faults, &mut at);
    let mut out = Data::new();
    for (&c, (shape, _)) in &case.data {
        out.insert(c, (shape.clone(), mem.containers[c].clone().unwrap().1));
    }
    (out, faults, at)
}
