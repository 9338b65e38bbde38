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
//! reduction) are ordered by program order and need none. `register` data
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
//! every lane, and thread 0 updates the target right after the thread map.

use super::block::{uniform_reductions, Barrier, BarrierReason, PhaseAccess};
use super::{Container, ContainerId, Expr, ExprKind, Local, Stmt, Storage};
use std::collections::BTreeSet;

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
                                touches.extend(self.touch(
                                    *container,
                                    false,
                                    "reads",
                                    Who::Spread,
                                    &phase,
                                ));
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
                                    touches.extend(self.write(
                                        *container,
                                        wcr.is_some(),
                                        Who::Spread,
                                        &phase,
                                    ));
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
                        });
                    }
                    self.phase(touches, t.span, pending, &mut out);
                    if !reductions.is_empty() && !slots {
                        // One warp: thread 0 updates the targets right away.
                        for r in &reductions {
                            pending.extend(self.write(r.container, true, Who::Thread0, &phase));
                        }
                    }
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
                let conflicts = a.data == b.data
                    && (a.write || b.write)
                    && !(a.who == Who::Thread0 && b.who == Who::Thread0);
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
                    });
                }
            }
        }
        None
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
