//! The host's prechecks as the glue runs them, each range checked against
//! the index's value at every iteration.

use crate::cases::*;
use crate::reference::*;
use sdfg::compiler::eval::{self, MemEnv};
use sdfg::compiler::ir::bounds::{for_each_access, AccessSite, IntervalPlan, PlanOp, PlanVar};
use sdfg::compiler::ir::*;
use sdfg::runtime::__glue::check::index_in_dim;
use sdfg::runtime::__glue::interval::{evaluate, IntType, Interval, IntervalOp};
use sdfg_testkit::harness::map_ranges_exact;
use ScalarType::*;

/// Why the host's prechecks stopped the call.
#[derive(Debug)]
pub enum Refusal {
    OutOfBounds(ContainerId),
    Wrap,
}

pub fn int_type(t: ScalarType) -> IntType {
    match t {
        I32 => IntType::I32,
        I64 => IntType::I64,
        U32 => IntType::U32,
        _ => IntType::U64,
    }
}

/// A compiler plan as the runtime's ops (the glue emits the same mapping).
pub fn runtime_ops(plan: &IntervalPlan<'_>) -> Vec<IntervalOp> {
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

pub fn value_i128(e: &Expr, env: &mut MemEnv, locals: &[Value]) -> i128 {
    eval::eval_expr(e, env, &mut locals.to_vec())
        .ok()
        .and_then(|v| v.as_i128())
        .expect("an integer")
}

/// The glue's prechecks of the map (map ranges, then each prechecked
/// access, each index), with each range checked against the index's value
/// at every iteration: the range is exact, and a reported wrap is real.
pub fn prechecks(case: &Case) -> Result<(), Refusal> {
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
pub fn check_exact(
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
