//! Cycles no condition can leave. The edges out of a state are tried in
//! order and the first whose condition holds is taken; an edge without a
//! condition (or with a constant `true` one) is always taken when tried,
//! so the edges after it never are, and the run ends in a state only when
//! no edge is taken. A set of states in which every state's first
//! unconditional edge stays inside the set, and whose conditional edges
//! (tried before it) stay inside too, is a trap: once there, `run()` never
//! returns. Such a trap is an error naming its states.

use crate::diag::{Diagnostic, Diagnostics};
use crate::eval::{eval_expr, MemEnv};
use crate::ir::{EdgeId, Expr, ExprKind, Sdfg, StateId, Value};

pub(super) fn check(sdfg: &Sdfg, diags: &mut Diagnostics) {
    let n = sdfg.states.len();
    if n == 0 {
        return;
    }
    let exits: Vec<Exits> = (0..n).map(|s| Exits::of(sdfg, s)).collect();
    // States from which the run can end: a state that may take no edge,
    // and every state with a possible successor among them.
    let mut can_end: Vec<bool> = exits.iter().map(|x| x.may_end).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for s in 0..n {
            if !can_end[s] && exits[s].next.iter().any(|&(t, _)| can_end[t]) {
                can_end[s] = true;
                changed = true;
            }
        }
    }
    // Unreachable states are reported elsewhere; only reachable traps matter.
    let reachable = reachable_from(sdfg.start, &exits);
    let trapped: Vec<StateId> = (0..n).filter(|&s| reachable[s] && !can_end[s]).collect();
    for cycle in bottom_components(&trapped, &exits) {
        diags.push(error(sdfg, &cycle, &exits));
    }
}

/// The edges a run may take out of one state.
struct Exits {
    /// (target, edge) of every edge that may be taken, in order.
    next: Vec<(StateId, EdgeId)>,
    /// No edge is always taken: the run may end here.
    may_end: bool,
}

impl Exits {
    fn of(sdfg: &Sdfg, s: StateId) -> Exits {
        let mut next = Vec::new();
        for (id, e) in sdfg.out_edges(s) {
            match e.condition.as_ref().map(constant_bool) {
                None | Some(Some(true)) => {
                    next.push((e.to, id));
                    return Exits {
                        next,
                        may_end: false,
                    };
                }
                Some(Some(false)) => {}
                Some(None) => next.push((e.to, id)),
            }
        }
        Exits {
            next,
            may_end: true,
        }
    }
}

/// The value of a condition that reads no symbol and no data.
fn constant_bool(e: &Expr) -> Option<bool> {
    let mut constant = true;
    e.walk(&mut |x| {
        if matches!(x.kind, ExprKind::Var(_) | ExprKind::Load { .. }) {
            constant = false;
        }
    });
    if !constant {
        return None;
    }
    match eval_expr(e, &mut MemEnv::default(), &mut Vec::new()) {
        Ok(Value::Bool(b)) => Some(b),
        _ => None,
    }
}

fn reachable_from(start: StateId, exits: &[Exits]) -> Vec<bool> {
    let mut seen = vec![false; exits.len()];
    let mut work = vec![start];
    while let Some(s) = work.pop() {
        if !std::mem::replace(&mut seen[s], true) {
            work.extend(exits[s].next.iter().map(|&(t, _)| t));
        }
    }
    seen
}

/// The strongly connected components of the trapped states that no edge
/// leaves (every trapped state leads into one), each in discovery order.
fn bottom_components(trapped: &[StateId], exits: &[Exits]) -> Vec<Vec<StateId>> {
    let mut out: Vec<Vec<StateId>> = Vec::new();
    let mut done = vec![false; exits.len()];
    for &s in trapped {
        if done[s] {
            continue;
        }
        let forward = reachable_from(s, exits);
        // A bottom component: everything reachable from `s` reaches `s` back.
        let members: Vec<StateId> = (0..exits.len()).filter(|&t| forward[t]).collect();
        let closed = members.iter().all(|&t| reachable_from(t, exits)[s]);
        if closed {
            members.iter().for_each(|&t| done[t] = true);
            out.push(members);
        }
    }
    out
}

fn error(sdfg: &Sdfg, cycle: &[StateId], exits: &[Exits]) -> Diagnostic {
    let name = |s: StateId| sdfg.states[s].name.text.clone();
    // The edges that keep the run inside, in state order: `a -> b`.
    let inside: Vec<EdgeId> = cycle
        .iter()
        .flat_map(|&s| exits[s].next.iter().map(|&(_, e)| e))
        .collect();
    let edge_text = |e: EdgeId| {
        let edge = &sdfg.edges[e];
        format!("{} -> {}", name(edge.from), name(edge.to))
    };
    let unconditional = inside
        .iter()
        .copied()
        .find(|&e| sdfg.edges[e].condition.is_none())
        .or_else(|| inside.first().copied());
    let span = unconditional.map_or(sdfg.states[cycle[0]].name.span, |e| sdfg.edges[e].span);
    let message = match cycle {
        [s] => format!("the run can never leave state `{}`", name(*s)),
        _ => format!(
            "the run can never leave the cycle of states {}",
            cycle
                .iter()
                .map(|&s| format!("`{}`", name(s)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut edges: Vec<String> = Vec::new();
    for e in &inside {
        let text = format!("`{}`", edge_text(*e));
        if !edges.contains(&text) {
            edges.push(text);
        }
    }
    let example = unconditional.map_or_else(|| "a -> b".to_string(), edge_text);
    Diagnostic::error(span, message)
        .note(format!(
            "every edge the run can take from there ({}) leads back, so `run()` would never return",
            edges.join(", ")
        ))
        .help(format!(
            "give an edge of the cycle a condition that becomes false (e.g. \
             `{example} if t < N {{ t = t + 1 }}`), or add a conditional edge out of it \
             before the unconditional one"
        ))
}
