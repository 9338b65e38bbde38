//! The iterations of a thread map run concurrently on the block's threads:
//! no two of them may write the same element of `shared` or `gpu` data, and
//! none may read an element another writes (reductions with one operator
//! are the exception; `register` data is private to an iteration).
//!
//! The test is an exact dependence test on separable subscripts: each index
//! dimension is a linear form over the thread map's parameters, the loop
//! variables of its body (with constant ranges) and block-level values
//! (atoms, equal in every iteration). For two accesses `f` and `g`, a
//! dimension whose forms agree on every parameter but `p`, and give `p` the
//! same coefficient `c`, says `c (p1 - p2) = d` for `d` in a known
//! interval: when that interval holds no multiple of `c` the accesses never
//! meet; when it holds only 0, `p1 = p2`. When every parameter is forced
//! equal, only one iteration touches an element: no race. Anything else is
//! reported as a possible conflict (the test does not prove one exists).
//!
//! The entry point, [`thread_map_conflicts`], has the same shape as the
//! race test of whole maps would, so either can take the other's place.

use super::*;
use crate::ir::linear::{Leaf, Linear};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Possible cross-iteration conflicts of thread map `t` of block map `map`.
pub fn thread_map_conflicts(sdfg: &Sdfg, map: &Map, t: &ThreadMap) -> Vec<Diagnostic> {
    let cx = Cx::new(sdfg, t);
    let accesses = cx.accesses(&t.body);
    let mut out = Vec::new();
    let mut reported: BTreeSet<ContainerId> = BTreeSet::new();
    for (i, a) in accesses.iter().enumerate() {
        if !a.kind.writes() {
            continue;
        }
        for (j, b) in accesses.iter().enumerate() {
            // Each pair once: a write with every read, and with the writes
            // from itself on.
            if (b.kind.writes() && j < i)
                || a.container != b.container
                || reported.contains(&a.container)
            {
                continue;
            }
            let pair = match (a.kind, b.kind) {
                // One operator: the combination does not depend on the order.
                (Kind::Reduce(x), Kind::Reduce(y)) if x == y => continue,
                // Reading what one reduces into is its own error (the
                // statement's, or `block::reductions`).
                (Kind::Reduce(_), Kind::Read) | (Kind::Read, Kind::Reduce(_)) => continue,
                pair => pair,
            };
            let same = std::ptr::eq(a, b);
            if !cx.may_conflict(a, b) {
                continue;
            }
            reported.insert(a.container);
            let name = &sdfg.containers[a.container].name.text;
            let text = |x: &Access| {
                let idx: Vec<String> = x
                    .index
                    .iter()
                    .map(|e| expr_text_in(sdfg, &map.params, &map.body.locals, e))
                    .collect();
                if idx.is_empty() {
                    name.clone()
                } else {
                    format!("{name}[{}]", idx.join(", "))
                }
            };
            let d = match pair {
                (_, Kind::Read) | (Kind::Read, _) => {
                    let (w, r) = if b.kind == Kind::Read { (a, b) } else { (b, a) };
                    Diagnostic::error(
                        r.span,
                        format!(
                            "thread map `{}` reads `{}`, which another of its iterations may write (`{}`)",
                            t.name.text,
                            text(r),
                            text(w)
                        ),
                    )
                    .help("read it in a later thread map (the compiler places the barrier between them), or read and write the same element in each iteration")
                }
                _ if same => Diagnostic::error(
                    a.span,
                    format!(
                        "iterations of thread map `{}` may write the same element of `{name}` (`{}`)",
                        t.name.text,
                        text(a)
                    ),
                )
                .help(format!(
                    "index `{name}` with the thread map's parameters (one per dimension, as in `{name}[i, j]` for `map {}[i in .., j in ..]`), or make the update a reduction (`+=`, `.max()`, `.min()`)",
                    t.name.text
                )),
                _ => Diagnostic::error(
                    b.span,
                    format!(
                        "`{}` and `{}` in thread map `{}` may write the same element from different iterations",
                        text(a),
                        text(b),
                        t.name.text
                    ),
                )
                .help("write disjoint elements (as `S[2 * i]` and `S[2 * i + 1]`), or write them in separate thread maps"),
            };
            out.push(d.note(
                "the iterations of a thread map run at the same time on the block's threads; the order of such accesses is not defined",
            ));
        }
    }
    out
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Read,
    Write,
    Reduce(WcrOp),
}

impl Kind {
    fn writes(self) -> bool {
        !matches!(self, Kind::Read)
    }
}

struct Access<'a> {
    container: ContainerId,
    index: &'a [Expr],
    kind: Kind,
    span: proc_macro2::Span,
}

/// A variable of an index form.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Var {
    /// The n-th parameter of the thread map.
    Param(usize),
    /// A `for` variable of the body, with a constant range.
    Inner(LocalId),
    /// A block-level value: the same in every iteration.
    Atom(String),
}

struct Cx<'a> {
    sdfg: &'a Sdfg,
    params: HashMap<LocalId, usize>,
    /// Every local of the thread map (its parameters, `let`s and `for`s).
    inner: BTreeSet<LocalId>,
    /// The smallest and largest value of each body `for` variable with
    /// constant bounds.
    ranges: HashMap<LocalId, (i128, i128)>,
}

impl<'a> Cx<'a> {
    fn new(sdfg: &'a Sdfg, t: &'a ThreadMap) -> Self {
        let params = t
            .params
            .iter()
            .enumerate()
            .map(|(k, p)| (p.local, k))
            .collect();
        let mut ranges = HashMap::new();
        for s in &t.body {
            s.walk(&mut |x| {
                if let Stmt::For {
                    var,
                    start,
                    end,
                    step,
                    ..
                } = x
                {
                    let c = crate::ir::linear::constant_value;
                    let st = step.as_ref().map_or(Some(1), c);
                    if let (Some(a), Some(b), Some(st)) = (c(start), c(end), st) {
                        if b > a && st > 0 {
                            let last = a + (b - a - 1) / st * st;
                            ranges.insert(*var, (a, last));
                        }
                    }
                }
            });
        }
        Cx {
            sdfg,
            params,
            inner: crate::ir::thread_map_locals(t),
            ranges,
        }
    }

    fn accesses(&self, body: &'a [Stmt]) -> Vec<Access<'a>> {
        let mut out = Vec::new();
        let relevant = |c: ContainerId| {
            matches!(
                self.sdfg.containers[c].storage,
                Storage::Shared | Storage::Gpu
            )
        };
        for s in body {
            s.walk_exprs(&mut |e| {
                if let ExprKind::Load { container, index } = &e.kind {
                    if relevant(*container) {
                        out.push(Access {
                            container: *container,
                            index,
                            kind: Kind::Read,
                            span: e.span,
                        });
                    }
                }
            });
            s.walk(&mut |x| {
                if let Stmt::Store {
                    container,
                    index,
                    wcr,
                    span,
                    ..
                } = x
                {
                    if relevant(*container) {
                        out.push(Access {
                            container: *container,
                            index,
                            kind: wcr.map_or(Kind::Write, Kind::Reduce),
                            span: *span,
                        });
                    }
                }
            });
        }
        out
    }

    /// `e` as a form over parameters, body loop variables and block-level
    /// atoms (None: not linear, or it reads data or a `let` of the body).
    fn form(&self, e: &Expr) -> Option<Linear<Var>> {
        Linear::from_expr(e, &mut |x: &Expr| {
            if let ExprKind::Lit(_) = x.kind {
                return Leaf::Descend;
            }
            if let ExprKind::Var(VarRef::Local(l)) = x.kind {
                if let Some(&k) = self.params.get(&l) {
                    return Leaf::Form(Linear::var(Var::Param(k)));
                }
                if self.ranges.contains_key(&l) {
                    return Leaf::Form(Linear::var(Var::Inner(l)));
                }
                if self.inner.contains(&l) {
                    return Leaf::NotLinear;
                }
            }
            if self.is_block_level(x) {
                return Leaf::Form(Linear::var(Var::Atom(x.key())));
            }
            match x.kind {
                ExprKind::Load { .. } | ExprKind::Call { .. } | ExprKind::Select { .. } => {
                    Leaf::NotLinear
                }
                _ => Leaf::Descend,
            }
        })
    }

    /// Reads no data and no local of the thread map: the same in every
    /// iteration.
    fn is_block_level(&self, e: &Expr) -> bool {
        let mut ok = true;
        e.walk(&mut |x| match &x.kind {
            ExprKind::Load { .. } => ok = false,
            ExprKind::Var(VarRef::Local(l)) if self.inner.contains(l) => ok = false,
            _ => {}
        });
        ok
    }

    /// Whether `a` in one iteration and `b` in another may touch the same
    /// element (`a` and `b` may be the same access). Dimensions whose forms
    /// are unknown are left out: the others must decide (disjoint, or only
    /// one iteration per element).
    fn may_conflict(&self, a: &Access, b: &Access) -> bool {
        let (fa, fb): (Vec<_>, Vec<_>) = a
            .index
            .iter()
            .zip(b.index)
            .filter_map(|(x, y)| Some((self.form(x)?, self.form(y)?)))
            .unzip();
        matches!(self.solve(&fa, &fb), Verdict::Unknown)
    }

    fn solve(&self, fa: &[Linear<Var>], fb: &[Linear<Var>]) -> Verdict {
        let n_params = self.params.len();
        let mut forced: BTreeSet<usize> = BTreeSet::new();
        loop {
            let mut changed = false;
            for (f, g) in fa.iter().zip(fb) {
                // Block-level atoms must match to cancel.
                let atoms = |l: &Linear<Var>| -> BTreeMap<Var, i128> {
                    l.terms
                        .iter()
                        .filter(|(v, _)| matches!(v, Var::Atom(_)))
                        .map(|(v, k)| (v.clone(), *k))
                        .collect()
                };
                if atoms(f) != atoms(g) {
                    continue;
                }
                let coef =
                    |l: &Linear<Var>, p: usize| l.terms.get(&Var::Param(p)).copied().unwrap_or(0);
                // Parameters not yet known equal, and whether the others cancel.
                let free: Vec<usize> = (0..n_params).filter(|p| !forced.contains(p)).collect();
                let cancel = (0..n_params)
                    .filter(|p| forced.contains(p))
                    .all(|p| coef(f, p) == coef(g, p));
                if !cancel {
                    continue;
                }
                let open: Vec<usize> = free
                    .iter()
                    .copied()
                    .filter(|&p| coef(f, p) != 0 || coef(g, p) != 0)
                    .collect();
                // g(q2) - f(q1) = c (p2 - p1) + (g0 - f0) + inner terms.
                let Some((lo, hi)) = self.spread(f, g) else {
                    continue;
                };
                match open.as_slice() {
                    [] => {
                        if lo > 0 || hi < 0 {
                            return Verdict::Disjoint;
                        }
                    }
                    [p] if coef(f, *p) == coef(g, *p) => {
                        // c (p1 - p2) = (g0 - f0) + (inner_g - inner_f) in [lo, hi].
                        let c = coef(f, *p).abs();
                        let multiples = multiples_in(c, lo, hi);
                        if multiples == 0 {
                            return Verdict::Disjoint;
                        }
                        if multiples == 1 && lo <= 0 && 0 <= hi {
                            forced.insert(*p);
                            changed = true;
                        }
                    }
                    _ => {}
                }
            }
            if forced.len() == n_params {
                return Verdict::SameIteration;
            }
            if !changed {
                return Verdict::Unknown;
            }
        }
    }

    /// The interval of `(g0 - f0) + inner_g - inner_f` over the ranges of
    /// the body's loop variables (each access has its own copy of them).
    fn spread(&self, f: &Linear<Var>, g: &Linear<Var>) -> Option<(i128, i128)> {
        let mut lo = g.constant.checked_sub(f.constant)?;
        let mut hi = lo;
        for (l, sign) in [(g, 1i128), (f, -1i128)] {
            for (v, k) in &l.terms {
                if let Var::Inner(local) = v {
                    let (a, b) = *self.ranges.get(local)?;
                    let (x, y) = (k * sign * a, k * sign * b);
                    lo = lo.checked_add(x.min(y))?;
                    hi = hi.checked_add(x.max(y))?;
                }
            }
        }
        Some((lo, hi))
    }
}

enum Verdict {
    /// The accesses never touch the same element.
    Disjoint,
    /// Only the same iteration touches an element both touch.
    SameIteration,
    Unknown,
}

/// How many multiples of `c > 0` lie in `[lo, hi]` (capped at 2).
fn multiples_in(c: i128, lo: i128, hi: i128) -> u8 {
    if c == 0 || lo > hi {
        return 0;
    }
    let first = lo.div_euclid(c) + if lo.rem_euclid(c) == 0 { 0 } else { 1 };
    let last = hi.div_euclid(c);
    match last - first {
        n if n < 0 => 0,
        0 => 1,
        _ => 2,
    }
}
