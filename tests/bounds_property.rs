//! Issue 13, item 2: bounds checks are sound for every index expression.
//!
//! Random index expressions (every integer operator, casts, selects,
//! extreme constants; `sdfg_testkit::randexpr::IndexGen`) over random
//! symbol values, in `gpu` maps of one and two dimensions, some inside a
//! `for` loop and some under an `if`:
//! - the host's prechecks run as the glue runs them: the plan
//!   `ir::bounds` made for each prechecked index, evaluated by the
//!   runtime's `__glue::interval`; each range is compared with the index's
//!   value at every iteration (it must be exact, and a reported wrap real);
//! - when they pass, the map's PTX runs on the `ptxsim` interpreter, whose
//!   memory has nothing around each buffer (any byte outside one is an
//!   error, so no byte outside a buffer can change), and its results and
//!   fault word are compared with the evaluator's;
//! - whenever an iteration touches outside a container, the call fails
//!   (a precheck naming that container, or the kernel's fault naming it).
//!
//! Deterministic: `SDFG_BOUNDS_SEED` (default 13) and `SDFG_BOUNDS_CASES`
//! (default 250, a few seconds) choose the cases.

use sdfg::compiler::codegen::ptx::generate;
use sdfg::compiler::eval::{self, Env, MemEnv};
use sdfg::compiler::ir::bounds::{for_each_access, AccessSite, IntervalPlan, PlanOp, PlanVar};
use sdfg::compiler::ir::*;
use sdfg::runtime::__glue::check::index_in_dim;
use sdfg::runtime::__glue::interval::{evaluate, IntType, Interval, IntervalOp};
use sdfg_testkit::builder::{e, local, map_param, s, SdfgBuilder};
use sdfg_testkit::harness::{map_ranges, map_ranges_exact, same_value, simulate_map_fault, Data};
use sdfg_testkit::randexpr::{special_values, IndexGen};
use sdfg_testkit::rng::Rng;
use std::collections::BTreeSet;
use ScalarType::*;

const INTS: [ScalarType; 4] = [I32, I64, U32, U64];

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One random program and its inputs.
struct Case {
    sdfg: Sdfg,
    symbols: Vec<Value>,
    data: Data,
}

/// A literal of type `ty` with value `v` (wrapped into the type).
fn lit(ty: ScalarType, v: i64) -> Expr {
    e::lit(semantics::cast(Value::I64(v), ty))
}

fn random_case(rng: &mut Rng) -> Case {
    let mut b = SdfgBuilder::new("bounds");
    // Symbols: small values mostly, extreme ones sometimes.
    let mut symbols = Vec::new();
    let mut symbol_exprs = Vec::new();
    for k in 0..2 {
        let ty = rng.pick(&INTS);
        let id = b.symbol(&format!("S{k}"), ty);
        let v = if rng.chance(20) {
            rng.pick(&special_values(ty))
        } else if ty.is_signed_integer() {
            semantics::cast(Value::I64(rng.below(12) as i64 - 3), ty)
        } else {
            semantics::cast(Value::I64(rng.below(9) as i64), ty)
        };
        symbols.push(v);
        symbol_exprs.push(e::sym(id, ty));
    }
    // The map: one or two dimensions over small literal ranges.
    let dims = 1 + rng.below(2);
    let mut params = Vec::new();
    let mut spans = Vec::new();
    let mut firsts = Vec::new();
    for d in 0..dims {
        let ty = rng.pick(&INTS);
        let lo = if ty.is_signed_integer() {
            rng.below(5) as i64 - 2
        } else {
            rng.below(3) as i64
        };
        let span = rng.below(6) as i64;
        let step = if rng.chance(25) {
            Some(lit(ty, 1 + rng.below(3) as i64))
        } else {
            None
        };
        params.push(map_param(
            &format!("p{d}"),
            ty,
            lit(ty, lo),
            lit(ty, lo + span),
            step,
        ));
        spans.push(span.max(1));
        firsts.push((lo, ty));
    }
    let a = b.gpu("A", I64, vec![e::i64(1)]);
    let bb = b.gpu("B", I64, vec![e::i64(1)]);
    let o = b.gpu("O", I64, spans.iter().map(|&n| e::i64(n)).collect());
    let vars: Vec<Expr> = (0..dims).map(|d| e::param(d, params[d].ty)).collect();
    let mut gen = IndexGen {
        rng: Rng::new(rng.next_u64()),
        vars: vars.clone(),
        symbols: symbol_exprs.clone(),
    };
    let mut locals = Vec::new();
    let mut stmts = Vec::new();
    // A[w] = 7 (every writer writes the same value: no order to respect),
    // sometimes in a loop over symbols or literals.
    let w_ty = gen.rng.pick(&INTS);
    if gen.rng.chance(30) {
        let kty = gen.rng.pick(&INTS);
        locals.push(local("k", kty, false));
        let start = lit(kty, gen.rng.below(3) as i64);
        // A symbol end only when its value is small (the loop must end soon).
        let small = symbols
            .iter()
            .position(|v| v.as_i128().is_some_and(|x| (0..6).contains(&x)));
        let end = match small {
            Some(sym) if gen.rng.chance(50) => e::cast(symbol_exprs[sym].clone(), kty),
            _ => lit(kty, gen.rng.below(5) as i64),
        };
        gen.vars.push(e::local(0, kty));
        let w = gen.expr(w_ty, 3);
        gen.vars.pop();
        stmts.push(s::for_(
            0,
            start,
            end,
            None,
            vec![s::store(a, vec![w], e::i64(7))],
        ));
    } else {
        let w = gen.expr(w_ty, 4);
        stmts.push(s::store(a, vec![w], e::i64(7)));
    }
    // O[p - lo, ...] = B[r] (O's index is in bounds by construction);
    // sometimes under an `if` (a conditional access is guarded).
    let o_index: Vec<Expr> = (0..dims)
        .map(|d| {
            let (lo, ty) = firsts[d];
            e::cast(e::sub(vars[d].clone(), lit(ty, lo)), I64)
        })
        .collect();
    let r_ty = gen.rng.pick(&INTS);
    let r = gen.expr(r_ty, 4);
    let read = s::store(o, o_index, e::load(bb, I64, vec![r]));
    if gen.rng.chance(20) {
        let c = e::bin(BinOp::Lt, e::cast(vars[0].clone(), I64), lit(I64, 2));
        stmts.push(s::if_(c, vec![read], vec![]));
    } else {
        stmts.push(read);
    }
    let body = TaskletBody { stmts, locals };
    let st = b.state("s");
    b.gpu_map(st, "m", params, body);
    let mut sdfg = b.build();
    // Container lengths near the indices' ranges, so that both in- and
    // out-of-bounds cases are common.
    let (la, lb) = (
        fitting_length(&sdfg, &symbols, a, rng),
        fitting_length(&sdfg, &symbols, bb, rng),
    );
    sdfg.containers[a].shape = vec![e::i64(la as i64)];
    sdfg.containers[bb].shape = vec![e::i64(lb as i64)];
    let mut data = Data::new();
    data.insert(
        a,
        (
            vec![la],
            (0..la as i64).map(|v| Value::I64(100 + v)).collect(),
        ),
    );
    data.insert(
        bb,
        (
            vec![lb],
            (0..lb as i64).map(|v| Value::I64(200 + v)).collect(),
        ),
    );
    let o_len: usize = spans.iter().map(|&n| n as usize).product();
    data.insert(
        o,
        (
            spans.iter().map(|&n| n as usize).collect(),
            vec![Value::I64(-1); o_len],
        ),
    );
    Case {
        sdfg,
        symbols,
        data,
    }
}

/// A length for `c` around the values its index takes: one past the
/// largest (fits), the largest (the last one is out), or a random small one.
fn fitting_length(sdfg: &Sdfg, symbols: &[Value], c: ContainerId, rng: &mut Rng) -> usize {
    let mut values = Vec::new();
    let mut sites = Vec::new();
    for_each_access(&the_map(sdfg).body.stmts, &mut |site| {
        if site.container == c {
            sites.push(site);
        }
    });
    for site in &sites {
        let in_loop = !site.enclosing_loops.is_empty();
        for_each_iteration(sdfg, symbols, in_loop, &mut |env, locals| {
            if let Ok(v) = eval::eval_expr(&site.index[0], env, &mut locals.to_vec()) {
                values.push(eval::index_value(v));
            }
        });
    }
    let (lo, hi) = (values.iter().min().copied(), values.iter().max().copied());
    match (lo, hi) {
        (Some(lo), Some(hi)) if lo >= 0 && hi < 64 && rng.chance(80) => {
            if rng.chance(65) {
                hi as usize + 1
            } else {
                (hi as usize).max(1)
            }
        }
        _ => 1 + rng.below(10),
    }
}

fn the_map(sdfg: &Sdfg) -> &Map {
    match &sdfg.states[0].stmts[0].kind {
        StatementKind::Map(m) => m,
        _ => unreachable!("one gpu map"),
    }
}

/// Calls `f` with an environment (parameters set) and the locals for every
/// iteration and, `in_loop`, every value of the body's loop variable.
fn for_each_iteration(
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

/// The evaluator's run of the map: final data, every container some
/// iteration touched outside of, and where (one-dimensional containers).
fn evaluate_map(case: &Case) -> (Data, BTreeSet<ContainerId>, BTreeSet<(ContainerId, i64)>) {
    let map = the_map(&case.sdfg);
    let mut mem = MemEnv {
        symbols: case.symbols.clone(),
        ..Default::default()
    };
    for (&c, (shape, vals)) in &case.data {
        mem.set_container(c, shape.clone(), vals.clone());
    }
    let ranges = map_ranges(map, &case.symbols);
    let total: u64 = ranges.iter().map(|r| r.1).product();
    let (mut faults, mut at) = (BTreeSet::new(), BTreeSet::new());
    for flat in 0..total {
        mem.params = params_at(map, &ranges, flat);
        let _ = eval::exec_body(
            &map.body,
            &mut Logged {
                mem: &mut mem,
                faults: &mut faults,
                at: &mut at,
            },
        );
    }
    let mut out = Data::new();
    for (&c, (shape, _)) in &case.data {
        out.insert(c, (shape.clone(), mem.containers[c].clone().unwrap().1));
    }
    (out, faults, at)
}

/// Why the host's prechecks stopped the call.
#[derive(Debug)]
enum Refusal {
    OutOfBounds(ContainerId),
    Wrap,
}

fn int_type(t: ScalarType) -> IntType {
    match t {
        I32 => IntType::I32,
        I64 => IntType::I64,
        U32 => IntType::U32,
        _ => IntType::U64,
    }
}

/// A compiler plan as the runtime's ops (the glue emits the same mapping).
fn runtime_ops(plan: &IntervalPlan<'_>) -> Vec<IntervalOp> {
    plan.ops
        .iter()
        .map(|op| match *op {
            PlanOp::Point(k) => IntervalOp::Point(k),
            PlanOp::Var(k) => IntervalOp::Var(k),
            PlanOp::Neg(t) => IntervalOp::Neg(int_type(t)),
            PlanOp::Not(t) => IntervalOp::Not(int_type(t)),
            PlanOp::Add(t) => IntervalOp::Add(int_type(t)),
            PlanOp::Sub(t) => IntervalOp::Sub(int_type(t)),
            PlanOp::Mul(t) => IntervalOp::Mul(int_type(t)),
            PlanOp::DivBy(k, t) => IntervalOp::DivBy(k, int_type(t)),
            PlanOp::ShlBy(k, t) => IntervalOp::ShlBy(k, int_type(t)),
            PlanOp::ShrBy(k, t) => IntervalOp::ShrBy(k, int_type(t)),
            PlanOp::Min(t) => IntervalOp::Min(int_type(t)),
            PlanOp::Max(t) => IntervalOp::Max(int_type(t)),
            PlanOp::Cast(t) => IntervalOp::Cast(int_type(t)),
        })
        .collect()
}

fn value_i128(e: &Expr, env: &mut MemEnv, locals: &[Value]) -> i128 {
    eval::eval_expr(e, env, &mut locals.to_vec())
        .ok()
        .and_then(|v| v.as_i128())
        .expect("an integer")
}

/// The glue's prechecks of the map (map ranges, then each prechecked
/// access, each index), with each range checked against the index's value
/// at every iteration: the range is exact, and a reported wrap is real.
fn prechecks(case: &Case) -> Result<(), Refusal> {
    let (sdfg, symbols) = (&case.sdfg, &case.symbols);
    let map = the_map(sdfg);
    let ranges = map_ranges_exact(map, symbols);
    if ranges.iter().any(|r| r.1 == 0) {
        return Ok(());
    }
    let mut env = MemEnv {
        symbols: symbols.to_vec(),
        ..Default::default()
    };
    let mut sites: Vec<AccessSite<'_>> = Vec::new();
    for_each_access(&map.body.stmts, &mut |site| sites.push(site));
    let mut first: Result<(), Refusal> = Ok(());
    for site in &sites {
        let Some(plans) = site.precheck_plans() else {
            continue;
        };
        // The boxed loops around the access; an empty one: it never runs.
        let mut loop_ranges = Vec::new();
        for lp in &site.enclosing_loops {
            let start = value_i128(lp.start, &mut env, &[]);
            let end = match lp.end {
                RangeEnd::Exclusive(x) => value_i128(x, &mut env, &[]),
                RangeEnd::Inclusive(x) => value_i128(x, &mut env, &[]) + 1,
            };
            let step = lp.step.map_or(1, |x| value_i128(x, &mut env, &[]));
            loop_ranges.push((lp.var, Interval::of_loop(start, end, step)));
        }
        if loop_ranges.iter().any(|(_, r)| r.is_none()) {
            continue;
        }
        let extent = case.data[&site.container].0.clone();
        for (d, plan) in plans.iter().enumerate() {
            let ops = runtime_ops(plan);
            let points: Vec<i128> = plan
                .points
                .iter()
                .map(|p| value_i128(p, &mut env, &[]))
                .collect();
            let vars: Vec<Interval> = plan
                .vars
                .iter()
                .map(|v| match *v {
                    PlanVar::Param(p) => {
                        let (start, count, step) = ranges[p];
                        Interval::strided(start, count, step)
                    }
                    PlanVar::Loop(l) => loop_ranges
                        .iter()
                        .find(|(var, _)| *var == l)
                        .and_then(|(_, r)| *r)
                        .expect("a boxed loop around the access"),
                })
                .collect();
            let range = evaluate(&ops, &points, &vars);
            check_exact(case, site, d, plan, &ops, &points, &range);
            let verdict = match range {
                Err(_) => Err(Refusal::Wrap),
                Ok(r) => index_in_dim(r, extent[d], &String::new)
                    .map_err(|_| Refusal::OutOfBounds(site.container)),
            };
            if first.is_ok() {
                first = verdict;
            }
        }
    }
    first
}

/// The plan's range against the index's value at every iteration: each
/// value (the plan run on single values) is what the evaluator computes
/// for the index; the range is exactly their smallest and largest; a
/// reported wrap happens at some iteration.
fn check_exact(
    case: &Case,
    site: &AccessSite<'_>,
    d: usize,
    plan: &IntervalPlan<'_>,
    ops: &[IntervalOp],
    points: &[i128],
    range: &Result<Interval, sdfg::runtime::__glue::interval::Wrap>,
) {
    let (mut lo, mut hi, mut wraps) = (i128::MAX, i128::MIN, false);
    let in_loop = !site.enclosing_loops.is_empty();
    for_each_iteration(&case.sdfg, &case.symbols, in_loop, &mut |env, locals| {
        let vars: Vec<Interval> = plan
            .vars
            .iter()
            .map(|v| {
                let value = match *v {
                    PlanVar::Param(p) => env.params[p],
                    PlanVar::Loop(l) => locals[l],
                };
                Interval::point(value.as_i128().unwrap())
            })
            .collect();
        match evaluate(ops, points, &vars) {
            Err(_) => wraps = true,
            Ok(v) => {
                assert_eq!(v.lo, v.hi);
                let want = value_i128(&site.index[d], env, locals);
                assert_eq!(
                    v.lo, want,
                    "the plan computes another index than the kernel: {ops:?} {points:?} {vars:?}"
                );
                lo = lo.min(v.lo);
                hi = hi.max(v.hi);
            }
        }
    });
    let what = format!(
        "index {d} of container {} ({:?})\nops {ops:?}\npoints {points:?}\nrange {range:?}\nsymbols {:?}",
        site.container, site.index[d], case.symbols
    );
    match range {
        Err(_) => assert!(wraps, "a wrap was reported that no iteration has: {what}"),
        Ok(r) if lo <= hi => {
            assert!(!wraps, "an iteration wraps, the range says nothing: {what}");
            assert_eq!((r.lo, r.hi), (lo, hi), "the range is not exact: {what}");
        }
        Ok(_) => {} // the access never runs
    }
}

#[derive(Default, Debug)]
struct Tally {
    passed_in_bounds: u32,
    refused_out_of_bounds: u32,
    refused_wrap: u32,
    kernel_faults: u32,
}

#[test]
fn random_indices_never_touch_outside_a_buffer() {
    let seed = env_number("SDFG_BOUNDS_SEED", 13);
    let cases = env_number("SDFG_BOUNDS_CASES", 250);
    let mut rng = Rng::new(seed);
    let mut tally = Tally::default();
    for n in 0..cases {
        let case = random_case(&mut rng);
        let what = format!(
            "case {n} (seed {seed}): {:#?}\nsymbols {:?}",
            the_map(&case.sdfg).body.stmts,
            case.symbols
        );
        let (want, faults, fault_at) = evaluate_map(&case);
        match prechecks(&case) {
            Err(Refusal::OutOfBounds(c)) => {
                assert!(
                    faults.contains(&c),
                    "{what}: refused, but no access leaves `{c}`"
                );
                tally.refused_out_of_bounds += 1;
            }
            Err(Refusal::Wrap) => tally.refused_wrap += 1,
            Ok(()) => {
                let module = generate(&case.sdfg);
                let (got, fault) = simulate_map_fault(
                    &case.sdfg,
                    &module,
                    0,
                    &case.symbols,
                    &case.data,
                    [2, 2, 1],
                )
                .unwrap_or_else(|e| {
                    panic!("{what}: the kernel touched memory outside a buffer: {e}")
                });
                if faults.is_empty() {
                    assert_eq!(
                        fault, None,
                        "{what}: a fault without an out-of-bounds access"
                    );
                    for (c, (_, w)) in &want {
                        for (k, (a, b)) in got[c].1.iter().zip(w).enumerate() {
                            assert!(
                                same_value(*a, *b),
                                "{what}: container {c}[{k}]: ptx {a} vs eval {b}"
                            );
                        }
                    }
                    tally.passed_in_bounds += 1;
                } else {
                    // The access code numbers the accesses in
                    // `for_each_access` order; the index is the element's.
                    let mut sites = Vec::new();
                    for_each_access(&the_map(&case.sdfg).body.stmts, &mut |s| {
                        sites.push(s.container)
                    });
                    let named = fault.and_then(|f| {
                        let c = *sites.get((f.access as usize).checked_sub(1)?)?;
                        Some((c, f.index))
                    });
                    assert!(
                        named.is_some_and(|at| fault_at.contains(&at)),
                        "{what}: accesses left {fault_at:?}, the kernel reports {fault:?}"
                    );
                    tally.kernel_faults += 1;
                }
            }
        }
    }
    println!("{tally:?}");
    // Every outcome occurs, so each assertion above was exercised.
    assert!(
        tally.passed_in_bounds > 0 && tally.refused_out_of_bounds > 0,
        "{tally:?}"
    );
    assert!(
        tally.refused_wrap > 0 && tally.kernel_faults > 0,
        "{tally:?}"
    );
}

// The CPU device (and the GPU, when there is one): whole programs, whose
// index shapes cover every operator class, over random symbol values. The
// host containers lie inside larger vectors whose cells around them are
// canaries; the evaluator, run on each program's IR, says what must happen.

mod common;
use sdfg::prelude::*;

macro_rules! index_program {
    ($name:ident, $args:ident, [$($index:tt)*]) => {
        sdfg! {
            pub sdfg $name {
                symbol S: i64;
                symbol T: i64;
                symbol N: i64;
                gpu A: i64[N];
                gpu O: i64[8];
                host H: i64[N];
                host Q: i64[8];
                host W: i64[N];
                state s {
                    map g[i in 0..8] on gpu { O[i] = A[$($index)*]; }
                    map c[i in 0..8] on cpu { Q[i] = H[$($index)*]; }
                    map q[i in 0..8] on seq { W[$($index)*] = i as i64 + 1; }
                }
            }
        }

        impl IndexProgram for $name {
            fn load_on(device: &Device) -> Call {
                let program = $name::load(device).unwrap();
                Box::new(move |b: &mut Buffers, [s, t, n]: [i64; 3]| {
                    let len = n as usize;
                    program.run($args {
                        S: s,
                        T: t,
                        N: n,
                        A: &b.a,
                        O: &mut b.o,
                        H: &b.h[4..4 + len],
                        Q: &mut b.q[4..12],
                        W: &mut b.w[4..4 + len],
                    })
                })
            }
            fn ir() -> Sdfg {
                $name::ir().unwrap()
            }
        }
    };
}

/// A loaded program, called with the buffers and `[S, T, N]`.
type Call = Box<dyn Fn(&mut Buffers, [i64; 3]) -> Result<(), Error>>;

trait IndexProgram {
    fn load_on(device: &Device) -> Call;
    fn ir() -> Sdfg;
}

index_program!(Shl, ShlArgs, [(S << T) * (i as i64)]);
index_program!(NotPlus, NotPlusArgs, [(!S) * (i as i64) + T]);
index_program!(DivBySym, DivBySymArgs, [(S / T) * (i as i64)]);
index_program!(ShlBySym, ShlBySymArgs, [(i as i64) << S]);
index_program!(ShrBySym, ShrBySymArgs, [((i as i64) >> S) + T]);
index_program!(MinClamp, MinClampArgs, [((i as i64) * S + T).min(N - 1)]);
index_program!(MaxClamp, MaxClampArgs, [((i as i64) - S).max(0)]);
index_program!(Neg, NegArgs, [-((i as i64) - S) + T]);
index_program!(
    Narrowing,
    NarrowingArgs,
    [((i as i64) * S) as i32 as i64 + T]
);
index_program!(HalfSum, HalfSumArgs, [((i as i64) + S) / 2 - T]);
index_program!(Rem, RemArgs, [(i as i64) % S + T]);
index_program!(BitOps, BitOpsArgs, [((i as i64) & S) | T]);
index_program!(Abs, AbsArgs, [(S * (i as i64) - T).abs()]);
index_program!(Select, SelectArgs, [if S > 0 { i as i64 } else { T }]);

const CANARY: i64 = 0x5EED_5EED;

/// The arguments: host containers with four canaries on each side.
struct Buffers {
    a: DeviceBuffer<i64>,
    o: DeviceBuffer<i64>,
    h: Vec<i64>,
    q: Vec<i64>,
    w: Vec<i64>,
}

impl Buffers {
    fn new(device: &Device, n: usize) -> Buffers {
        let data: Vec<i64> = (0..n as i64).map(|v| 100 + v).collect();
        let around = |inner: &[i64]| {
            let mut v = vec![CANARY; 4];
            v.extend_from_slice(inner);
            v.extend([CANARY; 4]);
            v
        };
        Buffers {
            a: DeviceBuffer::from_slice(device, &data).unwrap(),
            o: DeviceBuffer::from_slice(device, &[-1; 8]).unwrap(),
            h: around(&data),
            q: around(&[-1; 8]),
            w: around(&vec![-1; n]),
        }
    }

    fn canaries_intact(&self) -> bool {
        [&self.h, &self.q, &self.w]
            .iter()
            .all(|v| v[..4] == [CANARY; 4] && v[v.len() - 4..] == [CANARY; 4])
    }
}

/// The evaluator on the program's IR: each map in turn, row-major. The
/// final contents of O, Q, W and every container an access left.
fn expected(ir: &Sdfg, [s, t, n]: [i64; 3]) -> (Vec<Vec<i64>>, BTreeSet<String>) {
    let len = n as usize;
    let symbols = vec![Value::I64(s), Value::I64(t), Value::I64(n)];
    let mut mem = MemEnv {
        symbols: symbols.clone(),
        ..Default::default()
    };
    let data: Vec<i64> = (0..n).map(|v| 100 + v).collect();
    for (name, values) in [
        ("A", data.clone()),
        ("H", data),
        ("O", vec![-1; 8]),
        ("Q", vec![-1; 8]),
        ("W", vec![-1; len]),
    ] {
        let c = ir.container_by_name(name).unwrap();
        let shape = vec![values.len()];
        mem.set_container(c, shape, values.into_iter().map(Value::I64).collect());
    }
    let (mut faults, mut at) = (BTreeSet::new(), BTreeSet::new());
    for st in &ir.states[0].stmts {
        let StatementKind::Map(map) = &st.kind else {
            continue;
        };
        let ranges = map_ranges(map, &symbols);
        let total: u64 = ranges.iter().map(|r| r.1).product();
        for flat in 0..total {
            mem.params = params_at(map, &ranges, flat);
            let _ = eval::exec_body(
                &map.body,
                &mut Logged {
                    mem: &mut mem,
                    faults: &mut faults,
                    at: &mut at,
                },
            );
        }
    }
    let contents = ["O", "Q", "W"]
        .iter()
        .map(|name| {
            let c = ir.container_by_name(name).unwrap();
            let vals = &mem.containers[c].as_ref().unwrap().1;
            vals.iter().map(|v| v.as_i128().unwrap() as i64).collect()
        })
        .collect();
    let names = faults
        .iter()
        .map(|&c| ir.containers[c].name.text.clone())
        .collect();
    (contents, names)
}

fn random_symbols(rng: &mut Rng) -> [i64; 3] {
    let mut value = || {
        if rng.chance(15) {
            rng.pick(&[
                63,
                64,
                65,
                31,
                i64::MAX,
                i64::MIN,
                i64::MAX - 3,
                1 << 40,
                -1,
            ])
        } else {
            rng.below(14) as i64 - 4
        }
    };
    let (s, t) = (value(), value());
    [s, t, 1 + rng.below(12) as i64]
}

fn check_program<P: IndexProgram>(
    name: &str,
    device: &Device,
    rng: &mut Rng,
    runs: u64,
) -> [u32; 3] {
    let ir = P::ir();
    let run = P::load_on(device);
    let mut outcomes = [0u32; 3]; // ok, refused or faulted, wrapped
    for _ in 0..runs {
        let symbols = random_symbols(rng);
        let what = format!("{name} with [S, T, N] = {symbols:?} on {}", device.name());
        let (want, faults) = expected(&ir, symbols);
        let mut b = Buffers::new(device, symbols[2] as usize);
        let result = run(&mut b, symbols);
        assert!(
            b.canaries_intact(),
            "{what}: a write outside a host container"
        );
        match result {
            Ok(()) => {
                assert!(
                    faults.is_empty(),
                    "{what}: accesses left {faults:?}, the call returned Ok"
                );
                let got = [
                    b.o.to_vec().unwrap(),
                    b.q[4..12].to_vec(),
                    b.w[4..b.w.len() - 4].to_vec(),
                ];
                assert_eq!(got.to_vec(), want, "{what}");
                outcomes[0] += 1;
            }
            Err(Error::OutOfBounds { what: text }) if text.contains("wraps around") => {
                outcomes[2] += 1;
            }
            Err(e) => {
                assert!(
                    !faults.is_empty(),
                    "{what}: no access leaves a container, the call failed: {e}"
                );
                // A precheck, a host map's check or a kernel's fault: each
                // names the container (and the kernel's the index).
                let text = e.to_string();
                assert!(
                    faults.iter().any(|c| text.contains(&format!("`{c}`"))),
                    "{what}: accesses left {faults:?}, the error says: {text}"
                );
                outcomes[1] += 1;
            }
        }
    }
    outcomes
}

#[test]
fn every_operator_class_on_the_devices() {
    let runs = env_number("SDFG_BOUNDS_CASES", 250) / 8;
    for device in common::devices("every_operator_class_on_the_devices") {
        let mut rng = Rng::new(env_number("SDFG_BOUNDS_SEED", 13));
        let mut total = [0u32; 3];
        for outcome in [
            check_program::<Shl>("Shl", &device, &mut rng, runs),
            check_program::<NotPlus>("NotPlus", &device, &mut rng, runs),
            check_program::<DivBySym>("DivBySym", &device, &mut rng, runs),
            check_program::<ShlBySym>("ShlBySym", &device, &mut rng, runs),
            check_program::<ShrBySym>("ShrBySym", &device, &mut rng, runs),
            check_program::<MinClamp>("MinClamp", &device, &mut rng, runs),
            check_program::<MaxClamp>("MaxClamp", &device, &mut rng, runs),
            check_program::<Neg>("Neg", &device, &mut rng, runs),
            check_program::<Narrowing>("Narrowing", &device, &mut rng, runs),
            check_program::<HalfSum>("HalfSum", &device, &mut rng, runs),
            check_program::<Rem>("Rem", &device, &mut rng, runs),
            check_program::<BitOps>("BitOps", &device, &mut rng, runs),
            check_program::<Abs>("Abs", &device, &mut rng, runs),
            check_program::<Select>("Select", &device, &mut rng, runs),
        ] {
            for k in 0..3 {
                total[k] += outcome[k];
            }
        }
        println!(
            "{}: ok {}, refused or faulted {}, wrapped {}",
            device.name(),
            total[0],
            total[1],
            total[2]
        );
        assert!(total[0] > 0 && total[1] > 0, "{total:?}");
    }
}
