//! Where a block map needs barriers, and why: the compiler, not the user,
//! places every `bar.sync`.
//!
//! The body of a block map runs in *phases*: each thread map, and each
//! block-level statement (a `let` every thread computes, a store thread 0
//! makes, the condition of an `if`, the bounds of a `for`). Walking the
//! body in execution order, including the back edges of block-level `for`
//! loops and of the grid-stride loop over block iterations, the placer
//! keeps the accesses made since the last barrier. Before a phase that
//! conflicts with them it places a barrier and starts over. Two accesses
//! conflict when they touch the same `shared` or `gpu` container, at least
//! one writes (or reduces into) it, and other threads may be involved: two
//! accesses by thread 0 (block-level stores, the final step of a block
//! reduction) are ordered by program order and need none, and neither do
//! two runs of one thread map on data whose every element stays with one
//! of its iterations (`Ownership`: the same thread each time; where the
//! compiler cannot prove it, the barrier's reason says so). `register` data
//! is thread-private and never conflicts. Accesses of `gpu` data by
//! different block iterations never need a barrier (iterations of a map
//! must not conflict at all; blocks run them concurrently anyway).
//!
//! This greedy placement puts a barrier exactly before each phase that
//! conflicts with a phase since the previous barrier, and nowhere else.
//!
//! A reduction of a thread map into one element for the whole block
//! ([`uniform_reductions`]) lowers to per-thread partials, a warp
//! reduction, per-warp slots in shared memory, one barrier *inside* the
//! reduction, and a final step by thread 0: the placer models that as two
//! sub-phases around the reduction's own barrier (which is part of the
//! reduction's lowering and is not a [`Stmt::Barrier`]). A block of one
//! warp needs neither: the warp's shuffles leave the block's value in
//! every lane, and thread 0 updates the target right after the thread map,
//! as part of the thread map's phase (a shuffle orders no memory, so a
//! barrier before the thread map must order what other lanes wrote to the
//! target before).

use super::block::{uniform_reductions, Barrier, BarrierReason, PhaseAccess, ThreadMap};
use super::{Container, ContainerId, Expr, ExprKind, Local, LocalId, Stmt, Storage, VarRef};
use std::collections::{BTreeMap, BTreeSet};

/// The body of block map `map_name` with a [`Stmt::Barrier`] before every
/// phase that needs one (existing barriers are kept and count).
/// `single_warp`: the block has at most 32 threads (block reductions then
/// have no slots and no barrier of their own).
pub fn place(
    stmts: &[Stmt],
    containers: &[Container],
    locals: &[Local],
    map_name: &str,
    single_warp: bool,
) -> Vec<Stmt> {
    let mut placer = Placer {
        containers,
        locals,
        loops: Vec::new(),
        single_warp,
    };
    placer.grid_stride_loop(stmts, map_name)
}

/// What a touch reaches.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Data {
    Container(ContainerId),
    /// The per-warp slots of the block reductions of a thread map.
    Partials(String),
}

/// Which threads make an access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Who {
    /// Thread 0 only: block-level stores, a block reduction's last step.
    Thread0,
    /// Every thread, the same access: block-level `let`s, conditions, bounds.
    Every,
    /// Thread-map iterations, spread over the threads.
    Spread,
}

/// One access of a phase.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Touch {
    data: Data,
    write: bool,
    verb: &'static str,
    who: Who,
    phase: String,
    /// Made in the previous iteration of loop number `n` (see `Placer::loops`).
    carried: Option<usize>,
    /// A thread map's access: which thread map, and whether each element
    /// of the data belongs to one of its iterations.
    owner: Option<Owner>,
}

/// The thread map behind an access, for [`Placer::own_elements`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Owner {
    /// The thread map's first parameter (a local of its own).
    map: LocalId,
    /// `None`: every element of the data that the thread map touches
    /// belongs to one of its iterations, the same one in every run of the
    /// thread map, so two of its accesses to one element are made by one
    /// thread. Else why the compiler cannot tell.
    unproven: Option<String>,
}

type Pending = BTreeSet<Touch>;

struct Placer<'a> {
    containers: &'a [Container],
    locals: &'a [Local],
    /// Labels of the loops entered so far (`for k`, the block map).
    loops: Vec<String>,
    single_warp: bool,
}

impl Placer<'_> {
    /// The whole body is the body of the grid-stride loop over block
    /// iterations; global data does not carry over between iterations.
    fn grid_stride_loop(&mut self, stmts: &[Stmt], map_name: &str) -> Vec<Stmt> {
        let id = self.loops.len();
        self.loops.push(format!("block map `{map_name}`"));
        let mut head = Pending::new();
        loop {
            let mut p = head.clone();
            self.walk(stmts, &mut p);
            let carried: Vec<Touch> = p.into_iter().filter(|t| !self.is_global(&t.data)).collect();
            let next = merge(&head, carried, id);
            if next == head {
                break;
            }
            head = next;
        }
        let mut p = head;
        self.walk(stmts, &mut p)
    }

    fn is_global(&self, d: &Data) -> bool {
        matches!(d, Data::Container(c) if self.containers[*c].storage == Storage::Gpu)
    }

    fn walk(&mut self, stmts: &[Stmt], pending: &mut Pending) -> Vec<Stmt> {
        let mut out = Vec::new();
        for s in stmts {
            match s {
                Stmt::Let { local, init, span }
                | Stmt::AssignLocal {
                    local,
                    value: init,
                    span,
                } => {
                    let name = self.locals.get(*local).map_or("?", |l| l.name.as_str());
                    let phase = format!("the block-level `let {name}`");
                    let touches = self.reads(&[init], Who::Every, &phase);
                    self.phase(touches, *span, pending, &mut out);
                    out.push(s.clone());
                }
                Stmt::Store {
                    container,
                    index,
                    value,
                    wcr,
                    span,
                } => {
                    let name = &self.containers[*container].name.text;
                    let phase = format!("the block-level store to `{name}`");
                    let mut exprs: Vec<&Expr> = index.iter().collect();
                    exprs.push(value);
                    let mut touches = self.reads(&exprs, Who::Thread0, &phase);
                    touches.extend(self.write(*container, wcr.is_some(), Who::Thread0, &phase));
                    self.phase(touches, *span, pending, &mut out);
                    out.push(s.clone());
                }
                Stmt::If {
                    cond,
                    then,
                    else_,
                    span,
                } => {
                    let touches = self.reads(&[cond], Who::Every, "the `if` condition");
                    self.phase(touches, *span, pending, &mut out);
                    let mut p_then = pending.clone();
                    let then = self.walk(then, &mut p_then);
                    let mut p_else = pending.clone();
                    let else_ = self.walk(else_, &mut p_else);
                    *pending = p_then.union(&p_else).cloned().collect();
                    out.push(Stmt::If {
                        cond: cond.clone(),
                        then,
                        else_,
                        span: *span,
                    });
                }
                Stmt::For {
                    var,
                    start,
                    end,
                    inclusive,
                    step,
                    body,
                    span,
                } => {
                    let name = self.locals.get(*var).map_or("?", |l| l.name.as_str());
                    let phase = format!("the bounds of `for {name}`");
                    let mut bounds: Vec<&Expr> = vec![start, end];
                    bounds.extend(step.iter());
                    let touches = self.reads(&bounds, Who::Every, &phase);
                    self.phase(touches, *span, pending, &mut out);
                    let id = self.loops.len();
                    self.loops.push(format!("`for {name}`"));
                    let mut head = pending.clone();
                    loop {
                        let mut p = head.clone();
                        self.walk(body, &mut p);
                        let next = merge(&head, p.into_iter().collect(), id);
                        if next == head {
                            break;
                        }
                        head = next;
                    }
                    let mut p = head.clone();
                    let body = self.walk(body, &mut p);
                    // After the loop: what reached its head, now in the past.
                    *pending = head
                        .into_iter()
                        .map(|mut t| {
                            if t.carried == Some(id) {
                                t.carried = None;
                            }
                            t
                        })
                        .collect();
                    out.push(Stmt::For {
                        var: *var,
                        start: start.clone(),
                        end: end.clone(),
                        inclusive: *inclusive,
                        step: step.clone(),
                        body,
                        span: *span,
                    });
                }
                // Lowering rejects `while`, `loop`, `break` and `continue`
                // at block level (lower/block.rs): they live in thread maps.
                Stmt::While { .. } | Stmt::Break { .. } | Stmt::Continue { .. } => {
                    out.push(s.clone())
                }
                Stmt::ThreadMap(t) => {
                    let phase = format!("`{}`", t.name.text);
                    let reductions = uniform_reductions(t, self.containers);
                    let owned = self.own_elements(t);
                    let own = |mut touch: Touch| {
                        if let (Data::Container(c), Some(p)) = (&touch.data, t.params.first()) {
                            touch.owner = owned.get(c).map(|unproven| Owner {
                                map: p.local,
                                unproven: unproven.clone(),
                            });
                        }
                        touch
                    };
                    let mut bounds: Vec<&Expr> = Vec::new();
                    for p in &t.params {
                        bounds.push(&p.start);
                        bounds.push(&p.end);
                        bounds.extend(p.step.iter());
                    }
                    let mut touches = self.reads(&bounds, Who::Every, &phase);
                    let is_reduction_target = |c: ContainerId, index: &[Expr]| {
                        reductions.iter().any(|r| {
                            r.container == c
                                && r.index.len() == index.len()
                                && r.index.iter().zip(index).all(|(a, b)| a.key() == b.key())
                        })
                    };
                    for st in &t.body {
                        st.walk_exprs(&mut |e| {
                            if let ExprKind::Load { container, .. } = &e.kind {
                                touches.extend(
                                    self.touch(*container, false, "reads", Who::Spread, &phase)
                                        .map(own),
                                );
                            }
                        });
                        st.walk(&mut |x| {
                            if let Stmt::Store {
                                container,
                                index,
                                wcr,
                                ..
                            } = x
                            {
                                if !is_reduction_target(*container, index) {
                                    touches.extend(
                                        self.write(*container, wcr.is_some(), Who::Spread, &phase)
                                            .map(own),
                                    );
                                }
                            }
                        });
                    }
                    let partials = Data::Partials(t.name.text.clone());
                    let slots = !reductions.is_empty() && !self.single_warp;
                    if slots {
                        touches.push(Touch {
                            data: partials.clone(),
                            write: true,
                            verb: "writes",
                            who: Who::Spread,
                            phase: phase.clone(),
                            carried: None,
                            owner: None,
                        });
                    }
                    if !reductions.is_empty() && !slots {
                        // One warp: thread 0 updates the targets right
                        // after the shuffles, with no barrier of the
                        // reduction's own in between: the update belongs
                        // to this phase. (Shuffles order no memory: what
                        // another lane wrote since the last barrier is
                        // not yet thread 0's to read.)
                        for r in &reductions {
                            touches.extend(self.write(r.container, true, Who::Thread0, &phase));
                        }
                    }
                    self.phase(touches, t.span, pending, &mut out);
                    if slots {
                        // The reduction's own barrier, then thread 0 combines
                        // the warps' slots into each target.
                        pending.clear();
                        pending.insert(Touch {
                            data: partials,
                            write: false,
                            verb: "reads",
                            who: Who::Spread,
                            phase: phase.clone(),
                            carried: None,
                            owner: None,
                        });
                        for r in &reductions {
                            pending.extend(self.write(r.container, true, Who::Thread0, &phase));
                        }
                    }
                    out.push(s.clone());
                }
                Stmt::Barrier(_) => {
                    pending.clear();
                    out.push(s.clone());
                }
            }
        }
        out
    }

    /// Places a barrier before a phase with `touches` when it conflicts with
    /// `pending`, then adds the phase's touches.
    fn phase(
        &self,
        touches: Vec<Touch>,
        span: proc_macro2::Span,
        pending: &mut Pending,
        out: &mut Vec<Stmt>,
    ) {
        if let Some(reason) = self.conflict(pending, &touches) {
            out.push(Stmt::Barrier(Barrier { reason, span }));
            pending.clear();
        }
        pending.extend(touches);
    }

    fn conflict(&self, pending: &Pending, touches: &[Touch]) -> Option<BarrierReason> {
        // Prefer an access of this iteration, then one of the innermost loop's
        // previous iteration.
        let mut candidates: Vec<&Touch> = pending.iter().collect();
        candidates.sort_by_key(|t| (t.carried.is_some(), std::cmp::Reverse(t.carried)));
        for b in touches {
            for a in &candidates {
                let same_map = match (&a.owner, &b.owner) {
                    (Some(x), Some(y)) if x.map == y.map => Some(x.unproven.clone()),
                    _ => None,
                };
                let same_thread = (a.who == Who::Thread0 && b.who == Who::Thread0)
                    || same_map.as_ref().is_some_and(|unproven| unproven.is_none());
                let conflicts = a.data == b.data && (a.write || b.write) && !same_thread;
                if conflicts {
                    return Some(BarrierReason {
                        later: PhaseAccess {
                            phase: b.phase.clone(),
                            verb: b.verb,
                        },
                        earlier: PhaseAccess {
                            phase: a.phase.clone(),
                            verb: a.verb,
                        },
                        data: match &b.data {
                            Data::Container(c) => format!("`{}`", self.containers[*c].name.text),
                            Data::Partials(t) => format!("the warp partials of `{t}`"),
                        },
                        previous_iteration_of: a.carried.map(|l| self.loops[l].clone()),
                        unproven_same_thread: same_map.flatten(),
                    });
                }
            }
        }
        None
    }

    /// For each `shared` or `gpu` container thread map `t` accesses:
    /// `None` when each element of it that `t` touches belongs to one
    /// iteration of `t`, the same one in every run of `t`; otherwise why
    /// the compiler cannot tell (see [`Ownership`]).
    fn own_elements(&self, t: &ThreadMap) -> BTreeMap<ContainerId, Option<String>> {
        let mut o = Ownership {
            containers: self.containers,
            locals: self.locals,
            map: t,
            fixed: t.params.iter().map(|p| p.local).collect(),
            assigned: BTreeSet::new(),
            range: [None, None],
            out: BTreeMap::new(),
        };
        for st in &t.body {
            st.walk(&mut |x| {
                if let Stmt::AssignLocal { local, .. } = x {
                    o.assigned.insert(*local);
                }
            });
        }
        for (slot, block_params) in [false, true].into_iter().enumerate() {
            o.range[slot] = t.params.iter().find_map(|p| {
                [&p.start, &p.end]
                    .into_iter()
                    .chain(p.step.as_ref())
                    .find_map(|e| o.unfixed(e, block_params))
                    .map(|why| format!("the range of `{}` {why}", o.name(p.local)))
            });
        }
        o.stmts(&t.body);
        o.out
    }

    fn touch(
        &self,
        c: ContainerId,
        write: bool,
        verb: &'static str,
        who: Who,
        phase: &str,
    ) -> Option<Touch> {
        matches!(self.containers[c].storage, Storage::Shared | Storage::Gpu).then(|| Touch {
            data: Data::Container(c),
            write,
            verb,
            who,
            phase: phase.to_string(),
            carried: None,
            owner: None,
        })
    }

    fn write(&self, c: ContainerId, reduce: bool, who: Who, phase: &str) -> Option<Touch> {
        let verb = if reduce { "reduces into" } else { "writes" };
        self.touch(c, true, verb, who, phase)
    }

    /// The loads of `exprs`.
    fn reads(&self, exprs: &[&Expr], who: Who, phase: &str) -> Vec<Touch> {
        let mut out = Vec::new();
        for e in exprs {
            e.walk(&mut |x| {
                if let ExprKind::Load { container, .. } = &x.kind {
                    out.extend(self.touch(*container, false, "reads", who, phase));
                }
            });
        }
        out
    }
}

/// Whether each element of a container that thread map `map` touches
/// belongs to one of its iterations, the same one in every run of the
/// thread map. Then every access of the element by the thread map, in any
/// run, is made by that iteration's thread (`q mod B`), and two such
/// accesses need no barrier between them.
///
/// The race test of thread maps already proves, for one run, that no
/// iteration touches an element another iteration writes (reductions
/// aside). Runs agree when the iteration space and every index of the
/// container are the same functions in every run: functions of the thread
/// map's parameters, of the variables of `for` loops inside it whose bounds
/// are such functions, of symbols and literals, and for `gpu` data also of
/// the block map's parameters (fixed within a block iteration, the only
/// span over which `gpu` accesses are compared). Block-level `let`s and
/// loop variables change between runs, locals of the body may hold
/// anything, and so may loaded values: an index that uses one is not
/// proven, nor is a container the thread map reduces into.
struct Ownership<'a> {
    containers: &'a [Container],
    locals: &'a [Local],
    map: &'a ThreadMap,
    /// The thread map's parameters and the `for` variables in scope whose
    /// bounds are fixed.
    fixed: BTreeSet<LocalId>,
    /// Locals the body assigns (never fixed).
    assigned: BTreeSet<LocalId>,
    /// Why the iteration space is not fixed: for `shared` data (`[0]`) and
    /// for `gpu` data (`[1]`, block parameters allowed).
    range: [Option<String>; 2],
    out: BTreeMap<ContainerId, Option<String>>,
}

impl Ownership<'_> {
    fn name(&self, l: LocalId) -> &str {
        self.locals.get(l).map_or("?", |x| x.name.as_str())
    }

    /// Why `e` is not a function of the fixed variables (`None`: it is).
    fn unfixed(&self, e: &Expr, block_params: bool) -> Option<String> {
        let mut why = None;
        e.walk(&mut |x| {
            if why.is_some() {
                return;
            }
            why = match &x.kind {
                ExprKind::Var(VarRef::Local(l))
                    if !self.fixed.contains(l) || self.assigned.contains(l) =>
                {
                    Some(format!("uses `{}`", self.name(*l)))
                }
                ExprKind::Var(VarRef::Param(_)) if !block_params => {
                    Some("uses a parameter of the block map".to_string())
                }
                ExprKind::Load { container, .. } => {
                    Some(format!("reads `{}`", self.containers[*container].name.text))
                }
                _ => None,
            };
        });
        why
    }

    /// Records an access of `c` at `index` (the first reason against a
    /// container stays).
    fn access(&mut self, c: ContainerId, index: &[Expr], reduce: bool) {
        let k = &self.containers[c];
        let gpu = match k.storage {
            Storage::Shared => false,
            Storage::Gpu => true,
            _ => return,
        };
        let why = if reduce {
            Some(format!(
                "`{}` reduces into `{}`",
                self.map.name.text, k.name.text
            ))
        } else if let Some(why) = &self.range[gpu as usize] {
            Some(why.clone())
        } else {
            index
                .iter()
                .find_map(|e| self.unfixed(e, gpu))
                .map(|why| format!("an index of `{}` {why}", k.name.text))
        };
        let slot = self.out.entry(c).or_insert(None);
        if slot.is_none() {
            *slot = why;
        }
    }

    fn loads(&mut self, e: &Expr) {
        let mut found = Vec::new();
        e.walk(&mut |x| {
            if let ExprKind::Load { container, index } = &x.kind {
                found.push((*container, index));
            }
        });
        for (c, index) in found {
            self.access(c, index, false);
        }
    }

    fn stmts(&mut self, stmts: &[Stmt]) {
        for st in stmts {
            match st {
                Stmt::Let { init: e, .. } | Stmt::AssignLocal { value: e, .. } => self.loads(e),
                Stmt::Store {
                    container,
                    index,
                    value,
                    wcr,
                    ..
                } => {
                    for e in index.iter().chain([value]) {
                        self.loads(e);
                    }
                    self.access(*container, index, wcr.is_some());
                }
                Stmt::If {
                    cond, then, else_, ..
                } => {
                    self.loads(cond);
                    self.stmts(then);
                    self.stmts(else_);
                }
                Stmt::While { cond, body, .. } => {
                    self.loads(cond);
                    self.stmts(body);
                }
                Stmt::For {
                    var,
                    start,
                    end,
                    step,
                    body,
                    ..
                } => {
                    let bounds: Vec<&Expr> = [start, end].into_iter().chain(step).collect();
                    for e in &bounds {
                        self.loads(e);
                    }
                    // A loop variable is fixed when its bounds are (without
                    // block parameters: conservative for `gpu` data).
                    let fixed = bounds.iter().all(|e| self.unfixed(e, false).is_none());
                    if fixed {
                        self.fixed.insert(*var);
                    }
                    self.stmts(body);
                    if fixed {
                        self.fixed.remove(var);
                    }
                }
                Stmt::Break { .. }
                | Stmt::Continue { .. }
                | Stmt::ThreadMap(_)
                | Stmt::Barrier(_) => {}
            }
        }
    }
}

/// `head` plus `end` (the touches that reach the loop's back edge), the
/// latter marked as made in the previous iteration of loop `id` unless
/// `head` already holds them.
fn merge(head: &Pending, end: Vec<Touch>, id: usize) -> Pending {
    let mut next = head.clone();
    for mut t in end {
        // Known when made in this iteration or already marked for this loop;
        // a touch marked for an outer loop gets this (nearer) loop's mark too.
        let known = head.iter().any(|h| {
            (h.carried.is_none() || h.carried == Some(id))
                && Touch {
                    carried: None,
                    ..h.clone()
                } == Touch {
                    carried: None,
                    ..t.clone()
                }
        });
        if known {
            continue;
        }
        if t.carried.is_none() || t.carried < Some(id) {
            t.carried = Some(id);
        }
        next.insert(t);
    }
    next
}
