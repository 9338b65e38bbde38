//! The dependence test: can two different iterations of a parallel map
//! touch one element of a container, at least one of them writing it?
//!
//! Each pair of accesses to one container (an access with itself, for a
//! write) gives one equation per dimension, `f(I) = g(J)`, over the
//! iteration counters of two iterations I and J, the body's `for`
//! variables of each, and the symbols (shared: they are fixed while the
//! map runs). A map parameter `p in (a..b).step_by(s)` with a constant `s`
//! is `a + s * t` with the counter `t` in `0..=(b - a - 1) / s`. The pair
//! is independent when
//! - some equation has no integer solution (GCD test: `A[2 * i]` and
//!   `A[2 * i + 1]`) or none within the bounds of its variables (bounds
//!   test, with symbolic bounds: `A[i + N]` and `A[i]` over `0..N`), or
//! - the system has no rational solution, or it determines every counter
//!   distance `t_I - t_J` and these are 0 (the same iteration), not
//!   integers, or beyond the range (`A[j]` and `A[j + 10]` over `0..5`).
//!
//! Otherwise the pair may conflict: definitely so when every subscript is
//! a linear form (the verdict names the distance or the free parameters),
//! or unknown when some subscript is not (`A[B[i]]`): the test cannot
//! decide it. Everything errs toward "may conflict".
//!
//! Entry points: [`map_conflicts`] for a whole map (what `validate::races`
//! uses; a block map's thread-map parameters are free variables in their
//! ranges), and [`conflicts_among`] with [`statement_accesses`] and
//! [`ParamModel`] for callers that pick the varying parameters and the
//! accesses themselves (a thread map inside a block map: the block's
//! parameters and block-level locals are `Fixed`, see
//! `validate::block::races`).

mod accesses;
mod system;

pub use accesses::{body_accesses, statement_accesses, why_not_affine, AccessVar, BodyAccess};

use crate::ir::linear::{constant_value, Leaf, Linear};
use crate::ir::*;
use std::collections::BTreeMap;
use system::{bounds_exclude, eliminate, gcd_excludes, Bounds, Elimination};

/// A linear form over the variables of one access.
pub type Form = Linear<AccessVar>;

/// How one map parameter moves from iteration to iteration.
#[derive(Clone, Debug)]
pub enum ParamModel {
    /// `p = start + step * t` with the counter `t` in `0..=last` (`last`
    /// over symbols; None when unknown).
    Counter {
        start: Form,
        step: i128,
        last: Option<Form>,
    },
    /// `p` itself, in `lo..=hi` where known (a start that is not a form, or
    /// a step that is not a constant).
    Raw { lo: Option<Form>, hi: Option<Form> },
    /// The same in both iterations (a parameter of an enclosing map that
    /// does not vary between the iterations compared).
    Fixed,
}

impl ParamModel {
    /// The model of a parameter over `start..end` (stepping by `step`):
    /// a counter where the start is a form over symbols and the step a
    /// positive constant.
    pub fn of_range(start: &Expr, end: &Expr, step: Option<&Expr>) -> ParamModel {
        let symbols_only = |e: &Expr| -> Option<Form> {
            Form::from_expr(e, &mut |x: &Expr| match &x.kind {
                ExprKind::Var(VarRef::Symbol(s)) => Leaf::Form(Form::var(AccessVar::Symbol(*s))),
                ExprKind::Var(_) => Leaf::NotLinear,
                _ => Leaf::Descend,
            })
        };
        let first = symbols_only(start);
        let step = match step {
            None => Some(1),
            Some(s) => constant_value(s).filter(|s| *s > 0),
        };
        match (first, step) {
            (Some(start), Some(step)) => {
                let span = symbols_only(end).and_then(|end| end.add(&start, -1));
                let last = match (step, span) {
                    (1, Some(span)) => span.offset(-1),
                    (_, Some(span)) => span
                        .as_constant()
                        .map(|d| Form::constant((d - 1).div_euclid(step))),
                    (_, None) => None,
                };
                ParamModel::Counter { start, step, last }
            }
            (start, _) => ParamModel::Raw {
                lo: start,
                hi: symbols_only(end).and_then(|e| e.offset(-1)),
            },
        }
    }
}

/// The iteration space of a map: one model per parameter.
#[derive(Clone, Debug)]
pub struct Space {
    pub params: Vec<ParamModel>,
}

impl Space {
    /// Every parameter of `params` varies.
    pub fn of(params: &[MapParam]) -> Space {
        Space {
            params: params
                .iter()
                .map(|p| ParamModel::of_range(&p.start, &p.end, p.step.as_ref()))
                .collect(),
        }
    }

    /// Whether the space has no iteration (a constant empty range).
    fn is_empty(&self) -> bool {
        self.params.iter().any(|m| {
            matches!(m, ParamModel::Counter { last: Some(last), .. }
                if last.as_constant().is_some_and(|l| l < 0))
        })
    }
}

/// What the test says about one pair of accesses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No two different iterations touch one element.
    Independent,
    /// Two different iterations may touch one element. `distance`: the
    /// difference of each parameter (first access's iteration minus the
    /// second's) where the equations determine it; `free`: the parameters
    /// whose difference they leave open.
    Conflict {
        distance: Vec<Option<i128>>,
        free: Vec<usize>,
    },
    /// A subscript is not a linear form (`dim` of the `first` access or
    /// of the second), and the others do not separate the iterations.
    Unknown { first: bool, dim: usize },
}

/// A variable of the pair's system: each iteration has its own counters
/// and `for` variables; symbols are shared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum PairVar {
    Symbol(SymbolId),
    Counter(bool, usize),
    Loop(bool, LocalId),
    /// The distance `t_I - t_J` of one parameter, when a direction is
    /// assumed (see [`one_direction_excluded`]).
    Distance(usize),
}

/// Can an iteration running `a` and a different iteration running `b`
/// touch the same element? (`a` and `b` may be the same access.)
pub fn test_pair(space: &Space, a: &BodyAccess, b: &BodyAccess) -> Verdict {
    if space.is_empty() {
        return Verdict::Independent;
    }
    let mut equations: Vec<Linear<PairVar>> = Vec::new();
    let mut unknown = None;
    for (dim, (f, g)) in a.forms.iter().zip(&b.forms).enumerate() {
        match (f, g) {
            (Some(f), Some(g)) => {
                let difference = side(space, f, true)
                    .zip(side(space, g, false))
                    .and_then(|(f, g)| f.add(&g, -1));
                match difference {
                    Some(d) => equations.push(d),
                    // Overflow: the dimension tells nothing.
                    None => unknown = unknown.or(Some((true, dim))),
                }
            }
            (None, _) => unknown = unknown.or(Some((true, dim))),
            (_, None) => unknown = unknown.or(Some((false, dim))),
        }
    }
    equations.extend(a.pins.iter().filter_map(|p| side(space, p, true)));
    equations.extend(b.pins.iter().filter_map(|p| side(space, p, false)));
    for (k, m) in space.params.iter().enumerate() {
        if let ParamModel::Counter {
            last: Some(last), ..
        } = m
        {
            if last.as_constant() == Some(0) {
                // One iteration along `k`: its counter is 0 in both.
                equations.push(Linear::var(PairVar::Counter(true, k)));
                equations.push(Linear::var(PairVar::Counter(false, k)));
            }
        }
    }
    let bounds = |v: &PairVar| pair_bounds(space, a, b, v);
    if equations
        .iter()
        .any(|e| gcd_excludes(e) || bounds_exclude(e, &bounds))
    {
        return Verdict::Independent;
    }
    // A parameter that can differ in neither direction is the same in both
    // iterations (`A[4 * i + k]` with `k in 0..4`: `4 * (i - i')` would
    // have to be `k' - k`, at most 3).
    for k in 0..space.params.len() {
        let excluded = |up: bool| one_direction_excluded(space, &equations, k, up, &bounds);
        if !matches!(space.params[k], ParamModel::Fixed) && excluded(true) && excluded(false) {
            equations.push(
                Linear::var(PairVar::Counter(true, k))
                    .add(&Linear::var(PairVar::Counter(false, k)), -1)
                    .unwrap_or_else(|| Linear::constant(0)),
            );
        }
    }
    let reduced = match eliminate(&equations) {
        Elimination::Inconsistent => return Verdict::Independent,
        Elimination::Reduced(r) => Some(r),
        Elimination::Unknown => None,
    };
    let mut distance = Vec::new();
    let mut free = Vec::new();
    for (k, m) in space.params.iter().enumerate() {
        if matches!(m, ParamModel::Fixed) {
            distance.push(Some(0));
            continue;
        }
        let query = BTreeMap::from([
            (PairVar::Counter(true, k), 1),
            (PairVar::Counter(false, k), -1),
        ]);
        let Some(d) = reduced.as_ref().and_then(|r| r.determined(&query)) else {
            distance.push(None);
            free.push(k);
            continue;
        };
        let Some(d) = d.integer() else {
            // A fractional distance between integer counters: no solution.
            return Verdict::Independent;
        };
        if let ParamModel::Counter {
            last: Some(last), ..
        } = m
        {
            if last
                .as_constant()
                .is_some_and(|l| d.unsigned_abs() > l.unsigned_abs())
            {
                return Verdict::Independent;
            }
        }
        let step = match m {
            ParamModel::Counter { step, .. } => *step,
            _ => 1,
        };
        distance.push(d.checked_mul(step));
    }
    if free.is_empty() && distance.iter().all(|d| *d == Some(0)) {
        return Verdict::Independent;
    }
    match unknown {
        Some((first, dim)) => Verdict::Unknown { first, dim },
        None => Verdict::Conflict { distance, free },
    }
}

/// Whether no solution has the first iteration's counter `k` above the
/// second's (`up`) or below it: each equation, with `t_I = t_J + d` and `d`
/// in `1..=last` (or `-last..=-1`), fails the bounds test.
fn one_direction_excluded(
    space: &Space,
    equations: &[Linear<PairVar>],
    k: usize,
    up: bool,
    bounds: &impl Fn(&PairVar) -> Option<Bounds<PairVar>>,
) -> bool {
    let first = PairVar::Counter(true, k);
    let shifted = Linear::var(PairVar::Counter(false, k))
        .add(&Linear::var(PairVar::Distance(k)), if up { 1 } else { -1 });
    let Some(shifted) = shifted else { return false };
    let last = match &space.params[k] {
        ParamModel::Counter { last, .. } => last.as_ref().and_then(symbols),
        _ => None,
    };
    // d (or -d) in 1..=last: the distance variable is that magnitude.
    let with_distance = |v: &PairVar| match v {
        PairVar::Distance(_) => Some(Bounds {
            lo: Some(Linear::constant(1)),
            hi: last.clone(),
        }),
        other => bounds(other),
    };
    equations.iter().any(|e| {
        let Some(&coefficient) = e.terms.get(&first) else {
            return false;
        };
        let mut rest = e.clone();
        rest.terms.remove(&first);
        rest.add(&shifted, coefficient)
            .is_some_and(|e| bounds_exclude(&e, &with_distance))
    })
}

/// A form of one access in terms of the pair's variables: parameters
/// become `start + step * counter` of iteration `first` (or the other).
fn side(space: &Space, f: &Form, first: bool) -> Option<Linear<PairVar>> {
    let mut out = Linear::constant(f.constant);
    for (v, &k) in &f.terms {
        let term = match *v {
            AccessVar::Symbol(s) => Linear::var(PairVar::Symbol(s)),
            AccessVar::Loop(l) => Linear::var(PairVar::Loop(first, l)),
            AccessVar::Param(p) => match space.params.get(p)? {
                ParamModel::Counter { start, step, .. } => {
                    symbols(start)?.add(&Linear::var(PairVar::Counter(first, p)), *step)?
                }
                // Both iterations have the same value: it is the counter of neither.
                ParamModel::Fixed => Linear::var(PairVar::Counter(true, p)),
                ParamModel::Raw { .. } => Linear::var(PairVar::Counter(first, p)),
            },
        };
        out = out.add(&term, k)?;
    }
    Some(out)
}

/// A form over symbols only, as a pair form.
fn symbols(f: &Form) -> Option<Linear<PairVar>> {
    let mut out = Linear::constant(f.constant);
    for (v, &k) in &f.terms {
        let AccessVar::Symbol(s) = v else { return None };
        out = out.add(&Linear::var(PairVar::Symbol(*s)), k)?;
    }
    Some(out)
}

/// The bounds of a pair variable; None for a symbol (kept symbolic).
fn pair_bounds(
    space: &Space,
    a: &BodyAccess,
    b: &BodyAccess,
    v: &PairVar,
) -> Option<Bounds<PairVar>> {
    let convert = |f: &Option<Form>| f.as_ref().and_then(symbols);
    match *v {
        PairVar::Symbol(_) | PairVar::Distance(_) => None,
        PairVar::Counter(_, k) => Some(match space.params.get(k)? {
            ParamModel::Counter { last, .. } => Bounds {
                lo: Some(Linear::constant(0)),
                hi: convert(last),
            },
            ParamModel::Raw { lo, hi } => Bounds {
                lo: convert(lo),
                hi: convert(hi),
            },
            // Shared by both iterations, like a symbol.
            ParamModel::Fixed => return None,
        }),
        PairVar::Loop(first, l) => {
            let access = if first { a } else { b };
            let (_, lo, hi) = access.loops.iter().find(|(v, _, _)| *v == l)?;
            Some(Bounds {
                lo: convert(lo),
                hi: convert(hi),
            })
        }
    }
}

/// A possible conflict between two accesses of one map.
#[derive(Clone, Debug)]
pub struct Conflict {
    pub container: ContainerId,
    /// The access reported first (a write, or the first of two writes).
    pub first: BodyAccess,
    /// The other access (the same one for a write that collides with
    /// itself).
    pub second: BodyAccess,
    pub same_access: bool,
    pub verdict: Verdict,
}

/// Whether two accesses can race at all: not two reads, not two
/// reductions with one operator, and not a reduction and a read (a
/// statement may not read what it reduces into; `validate::conflicts`
/// reports that).
pub fn may_race(a: Access, b: Access) -> bool {
    match (a, b) {
        (Access::Read, Access::Read) => false,
        (Access::Reduce(x), Access::Reduce(y)) => x != y,
        (Access::Reduce(_), Access::Read) | (Access::Read, Access::Reduce(_)) => false,
        _ => true,
    }
}

/// The first possible conflict of each container that `body`, run once
/// per point of `space`, writes: containers in order of first access,
/// skipping those `trusted` vouches for.
pub fn map_conflicts(
    space: &Space,
    body: &TaskletBody,
    trusted: &dyn Fn(ContainerId) -> bool,
) -> Vec<Conflict> {
    conflicts_among(space, &body_accesses(body), trusted)
}

/// [`map_conflicts`] of accesses gathered by the caller (in the order the
/// body evaluates them).
pub fn conflicts_among(
    space: &Space,
    accesses: &[BodyAccess],
    trusted: &dyn Fn(ContainerId) -> bool,
) -> Vec<Conflict> {
    let written: Vec<ContainerId> = accesses
        .iter()
        .filter(|a| a.access.is_write())
        .map(|a| a.container)
        .collect();
    let mut out: Vec<Conflict> = Vec::new();
    for (i, a) in accesses.iter().enumerate() {
        let done = out.iter().any(|c| c.container == a.container);
        if done || trusted(a.container) || !written.contains(&a.container) {
            continue;
        }
        // Pairs (a, b) with b before a, then a with itself: a conflict is
        // found at the later of its two accesses, so program order decides
        // which is first; one with another access says more than a write
        // meeting itself.
        for (j, b) in accesses[..i].iter().enumerate().rev().chain([(i, a)]) {
            let same = j == i;
            if b.container != a.container
                || !may_race(a.access, b.access)
                || (same && a.access != Access::Write)
            {
                continue;
            }
            let verdict = test_pair(space, b, a);
            if verdict != Verdict::Independent {
                // The write is the primary access.
                let (first, second) = if b.access == Access::Read {
                    (a, b)
                } else {
                    (b, a)
                };
                let verdict = if b.access == Access::Read {
                    flip(verdict)
                } else {
                    verdict
                };
                out.push(Conflict {
                    container: a.container,
                    first: first.clone(),
                    second: second.clone(),
                    same_access: same,
                    verdict,
                });
                break;
            }
        }
    }
    out
}

/// The verdict with the two accesses swapped.
fn flip(v: Verdict) -> Verdict {
    match v {
        Verdict::Independent => Verdict::Independent,
        Verdict::Conflict { distance, free } => Verdict::Conflict {
            distance: distance
                .into_iter()
                .map(|d| d.and_then(i128::checked_neg))
                .collect(),
            free,
        },
        Verdict::Unknown { first, dim } => Verdict::Unknown { first: !first, dim },
    }
}
