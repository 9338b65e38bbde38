//! Running a map's iterations and comparing what they touch.

use super::model::*;
use std::collections::HashMap;

/// One touch of an element by one iteration.
#[derive(Clone, Copy, Debug)]
struct Touch {
    iteration: usize,
    kind: Kind,
}

/// What each element was touched by.
type Touched = HashMap<(usize, Vec<i64>), Vec<Touch>>;

struct Run {
    symbols: [i64; 2],
    params: Vec<i64>,
    /// The block map's parameters, its `let` and its loop variable.
    block: Vec<i64>,
    block_let: i64,
    group: i64,
    /// Points left to enumerate before the case is given up (too big).
    budget: usize,
    loops: Vec<i64>,
    lets: HashMap<usize, i64>,
    muts: HashMap<usize, i64>,
    iteration: usize,
    touched: Touched,
    /// An access left its container: the call fails its bounds check.
    outside: bool,
}

impl Run {
    fn var(&self, v: Var) -> i64 {
        match v {
            Var::Symbol(s) => self.symbols[s],
            Var::Param(p) => self.params[p],
            Var::Loop(d) => self.loops[d],
            Var::Let(n) => self.lets[&n],
            Var::Mut(n) => self.muts[&n],
            Var::Block(k) => self.block[k],
            Var::BlockLet => self.block_let,
            Var::Group => self.group,
        }
    }

    fn lin(&self, l: &Lin) -> i64 {
        l.terms
            .iter()
            .fold(l.constant, |acc, (v, k)| acc + k * self.var(*v))
    }

    /// The index data: a fixed pattern (an accepted map must be race-free
    /// whatever `I` holds, so any contents test it).
    fn loaded(&mut self, at: i64) -> i64 {
        if !(0..LEN).contains(&at) {
            self.outside = true;
            return 0;
        }
        (at * 7 + 3) % 11
    }

    fn index(&mut self, i: &Index) -> i64 {
        match i {
            Index::Lin(l) => self.lin(l),
            Index::Product(a, b, c) => self.var(*a) * self.var(*b) + c,
            // Rust's `/` and `%` on i32: toward zero.
            Index::Div(l, d) => self.lin(l) / d,
            Index::Rem(l, d) => self.lin(l) % d,
            Index::Loaded(l) => {
                let at = self.lin(l);
                self.loaded(at)
            }
        }
    }

    fn touch(&mut self, a: &Access, kind: Kind) {
        let element: Vec<i64> = a.index.iter().map(|i| self.index(i)).collect();
        let outside = element
            .iter()
            .zip(extents(a.container))
            .any(|(e, n)| !(0..*n).contains(e));
        if outside {
            self.outside = true;
            return;
        }
        self.touched
            .entry((a.container, element))
            .or_default()
            .push(Touch {
                iteration: self.iteration,
                kind,
            });
    }

    fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            match s {
                Stmt::Store {
                    target,
                    kind,
                    reads,
                } => {
                    for r in reads {
                        self.touch(r, Kind::Read);
                    }
                    self.touch(target, *kind);
                }
                Stmt::For {
                    depth,
                    start,
                    end,
                    body,
                } => {
                    let (a, b) = (self.lin(start), self.lin(end));
                    for k in a..b {
                        self.loops.truncate(*depth);
                        self.loops.push(k);
                        self.stmts(body);
                    }
                    self.loops.truncate(*depth);
                }
                Stmt::If {
                    var,
                    op,
                    value,
                    then,
                    otherwise,
                } => {
                    if holds(*op, self.var(*var), self.lin(value)) {
                        self.stmts(then)
                    } else {
                        self.stmts(otherwise)
                    }
                }
                Stmt::Let { id, value } => {
                    let v = self.lin(value);
                    self.lets.insert(*id, v);
                }
                Stmt::Mut { id, value, step } => {
                    let v = self.lin(value) + step;
                    self.muts.insert(*id, v);
                }
            }
        }
    }

    /// The points of `params` (a block map's when `block`), in order;
    /// None past the budget.
    fn points(&mut self, params: &[Param], block: bool) -> Option<Vec<Vec<i64>>> {
        let mut out = Vec::new();
        let mut at = Vec::new();
        self.point(params, block, &mut at, &mut out)?;
        Some(out)
    }

    fn point(
        &mut self,
        params: &[Param],
        block: bool,
        at: &mut Vec<i64>,
        out: &mut Vec<Vec<i64>>,
    ) -> Option<()> {
        let k = at.len();
        if k == params.len() {
            self.budget = self.budget.checked_sub(1)?;
            out.push(at.clone());
            return Some(());
        }
        // Ranges read the earlier parameters.
        if block {
            self.block.clone_from(at);
        } else {
            self.params.clone_from(at);
        }
        let p = &params[k];
        let start = self.lin(&p.start);
        let end = self.lin(&p.end) + i64::from(p.inclusive);
        for v in (start..end).step_by(p.step.unwrap_or(1) as usize) {
            at.push(v);
            self.point(params, block, at, out)?;
            at.pop();
            if block {
                self.block.truncate(k);
            } else {
                self.params.truncate(k);
            }
        }
        Some(())
    }

    fn outcome(&self, race: Option<String>) -> Option<Outcome> {
        Some(match race {
            _ if self.outside => Outcome::NotRun,
            Some(r) => Outcome::Race(r),
            None => Outcome::NoRace,
        })
    }

    /// One run of the map `m`: every iteration's touches, numbered from 0.
    fn run_map(&mut self, params: &[Param], body: &[Stmt]) -> Option<()> {
        let points = self.points(params, false)?;
        self.touched.clear();
        for (n, point) in points.into_iter().enumerate() {
            self.params = point;
            self.iteration = n;
            self.loops.clear();
            self.lets.clear();
            self.muts.clear();
            self.stmts(body);
        }
        Some(())
    }
}

/// The first race in `touched`: two different iterations touching one
/// element, one writing it (two reductions with one operator combine).
fn conflict(touched: &Touched) -> Option<String> {
    for ((container, element), touches) in touched {
        for a in touches {
            for b in touches {
                let conflict = !matches!(
                    (a.kind, b.kind),
                    (Kind::Read, Kind::Read)
                        | (Kind::Sum, Kind::Sum)
                        | (Kind::Product, Kind::Product)
                );
                if conflict && a.iteration != b.iteration {
                    return Some(format!(
                        "{}{element:?}: iteration {} {:?}, iteration {} {:?}",
                        NAMES[*container], a.iteration, a.kind, b.iteration, b.kind
                    ));
                }
            }
        }
    }
    None
}

/// What running every iteration of a case found.
#[derive(Debug)]
pub enum Outcome {
    /// An access leaves its container (the call fails its bounds check),
    /// or the case is too big to enumerate.
    NotRun,
    /// Two iterations conflict: within the map (within each run of a
    /// thread map), or, for a thread map, two block iterations on `gpu`
    /// data.
    Race(String),
    NoRace,
}

/// Runs `case` with these symbol values.
pub fn race(case: &Case, symbols: [i64; 2]) -> Outcome {
    race_or_not_run(case, symbols).unwrap_or(Outcome::NotRun)
}

fn race_or_not_run(case: &Case, symbols: [i64; 2]) -> Option<Outcome> {
    let mut run = Run {
        symbols,
        params: Vec::new(),
        block: Vec::new(),
        block_let: 0,
        group: 0,
        budget: 20_000,
        loops: Vec::new(),
        lets: HashMap::new(),
        muts: HashMap::new(),
        iteration: 0,
        touched: HashMap::new(),
        outside: false,
    };
    let Some(block) = &case.block else {
        run.run_map(&case.params, &case.body)?;
        return run.outcome(conflict(&run.touched));
    };
    let mut maps = vec![("m", &case.params, &case.body)];
    if let Some((params, body)) = &block.second {
        maps.push(("m2", params, body));
    }
    let mut found = None;
    let mut across: Touched = HashMap::new();
    for (n, point) in run.points(&block.params, true)?.into_iter().enumerate() {
        run.block = point;
        run.block_let = block.let_value.as_ref().map_or(0, |l| run.lin(l));
        for g in 0..block.group.unwrap_or(1) {
            run.group = g;
            for &(name, params, body) in &maps {
                run.run_map(params, body)?;
                if found.is_none() {
                    found = conflict(&run.touched).map(|r| {
                        format!("block iteration {n}, run {g} of thread map `{name}`: {r}")
                    });
                }
                for ((c, element), touches) in run.touched.drain() {
                    if c == SHARED {
                        continue;
                    }
                    let touches = touches.into_iter().map(|t| Touch {
                        iteration: n,
                        kind: t.kind,
                    });
                    across.entry((c, element)).or_default().extend(touches);
                }
            }
        }
        if let Some((target, read)) = &block.store {
            // Thread 0's store: the block iteration's own access.
            run.iteration = n;
            run.touch(read, Kind::Read);
            run.touch(target, Kind::Write);
            for ((c, element), touches) in run.touched.drain() {
                if c != SHARED {
                    across.entry((c, element)).or_default().extend(touches);
                }
            }
        }
    }
    found = found.or_else(|| conflict(&across).map(|r| format!("block iterations: {r}")));
    run.outcome(found)
}
