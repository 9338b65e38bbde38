//! Symbols read before any edge assigns them. A symbol first assigned on an
//! interstate edge (not declared: not an argument) has no value until an
//! edge assigns it. A read of it in a state, or on an edge out of that
//! state, must come after an assignment on every path from the start state
//! (definite assignment, as rustc's E0381 for `let x;`); otherwise it is an
//! error at the read, with the path that reaches it unassigned.

use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{
    EdgeId, Expr, ExprKind, Sdfg, StateId, StatementKind, SubsetDim, SymbolId, VarRef,
};
use std::collections::VecDeque;

pub(super) fn check(sdfg: &Sdfg, diags: &mut Diagnostics) {
    if sdfg.states.is_empty() {
        return;
    }
    for (sym, symbol) in sdfg.symbols.iter().enumerate() {
        if symbol.declared {
            continue;
        }
        let unassigned = Unassigned::find(sdfg, sym);
        // One error per symbol: the first read on an unassigned path.
        if let Some((state, read)) = first_read(sdfg, sym, &unassigned) {
            diags.push(error(sdfg, sym, state, read, &unassigned));
        }
    }
}

/// The states a run reaches from the start without any edge assigning one
/// symbol, with the edge each was first reached by (a shortest path).
struct Unassigned {
    via: Vec<Option<Option<EdgeId>>>,
}

impl Unassigned {
    fn find(sdfg: &Sdfg, sym: SymbolId) -> Unassigned {
        let mut via: Vec<Option<Option<EdgeId>>> = vec![None; sdfg.states.len()];
        via[sdfg.start] = Some(None);
        let mut work = VecDeque::from([sdfg.start]);
        while let Some(s) = work.pop_front() {
            for (id, e) in sdfg.out_edges(s) {
                let assigns = e.assignments.iter().any(|(t, _)| *t == sym);
                if !assigns && via[e.to].is_none() {
                    via[e.to] = Some(Some(id));
                    work.push_back(e.to);
                }
            }
        }
        Unassigned { via }
    }

    fn contains(&self, s: StateId) -> bool {
        self.via[s].is_some()
    }

    /// `start -> a -> ... -> s` as state names.
    fn path(&self, sdfg: &Sdfg, s: StateId) -> String {
        let mut names = vec![sdfg.states[s].name.text.clone()];
        let mut at = s;
        while let Some(Some(edge)) = self.via[at] {
            at = sdfg.edges[edge].from;
            names.push(sdfg.states[at].name.text.clone());
            if names.len() > sdfg.states.len() {
                break;
            }
        }
        names.reverse();
        names.join(" -> ")
    }
}

/// Where a symbol is read: in a state (its statements) or on an edge out
/// of it; both run with the values the state was entered with.
fn first_read<'a>(
    sdfg: &'a Sdfg,
    sym: SymbolId,
    unassigned: &Unassigned,
) -> Option<(StateId, &'a Expr)> {
    for (sid, state) in sdfg.states.iter().enumerate() {
        if !unassigned.contains(sid) {
            continue;
        }
        let mut exprs: Vec<&Expr> = Vec::new();
        for st in &state.stmts {
            match &st.kind {
                StatementKind::Map(m) => {
                    for p in &m.params {
                        exprs.push(&p.start);
                        exprs.push(&p.end);
                        exprs.extend(&p.step);
                    }
                    m.body
                        .stmts
                        .iter()
                        .for_each(|s| s.walk_exprs(&mut |e| exprs.push(e)));
                }
                StatementKind::Tasklet(t) => t
                    .body
                    .stmts
                    .iter()
                    .for_each(|s| s.walk_exprs(&mut |e| exprs.push(e))),
                StatementKind::Copy(_) => {
                    for m in &st.memlets {
                        for d in &m.subset {
                            match d {
                                SubsetDim::Index(i) => exprs.push(i),
                                SubsetDim::Range { start, end } => {
                                    exprs.push(start);
                                    exprs.push(end);
                                }
                            }
                        }
                    }
                }
                StatementKind::Wait(_) => {}
                // Only in `nested_form` (the checked form is inlined); a
                // call reads the symbols of its values and bindings.
                StatementKind::Nested(call) => {
                    exprs.extend(call.symbols.iter().map(|(_, v)| v));
                    for b in &call.bindings {
                        for d in &b.subset {
                            match d {
                                SubsetDim::Index(i) => exprs.push(i),
                                SubsetDim::Range { start, end } => {
                                    exprs.push(start);
                                    exprs.push(end);
                                }
                            }
                        }
                    }
                }
            }
        }
        for (_, e) in sdfg.out_edges(sid) {
            exprs.extend(&e.condition);
            exprs.extend(e.assignments.iter().map(|(_, v)| v));
        }
        for root in exprs {
            let mut found = None;
            root.walk(&mut |x| {
                if found.is_none() && matches!(x.kind, ExprKind::Var(VarRef::Symbol(s)) if s == sym)
                {
                    found = Some(x);
                }
            });
            if let Some(read) = found {
                return Some((sid, read));
            }
        }
    }
    None
}

fn error(
    sdfg: &Sdfg,
    sym: SymbolId,
    state: StateId,
    read: &Expr,
    unassigned: &Unassigned,
) -> Diagnostic {
    let name = &sdfg.symbols[sym].name.text;
    let state_name = &sdfg.states[state].name.text;
    let ty = sdfg.symbols[sym].ty;
    let reached = if state == sdfg.start {
        format!("the run starts in `{state_name}`, where no edge has assigned `{name}` yet")
    } else {
        format!(
            "the run can reach `{state_name}` by `{}` without an edge assigning `{name}`",
            unassigned.path(sdfg, state)
        )
    };
    let into: Vec<String> = sdfg
        .edges
        .iter()
        .filter(|e| e.to == state && unassigned.contains(e.from))
        .filter(|e| !e.assignments.iter().any(|(t, _)| *t == sym))
        .map(|e| format!("{} -> {state_name}", sdfg.states[e.from].name.text))
        .collect();
    let declare = format!("declare it as an argument: `symbol {name}: {ty};`");
    let help = match into.first() {
        Some(edge) => format!(
            "assign it on every edge into `{state_name}` (e.g. `{edge} {{ {name} = ...; }}`), \
             or {declare}"
        ),
        None if state == sdfg.start => format!(
            "give it a value before `{state_name}`: start in a new state that \
             assigns it (`state init {{}}` first, then `init -> {state_name} {{ {name} = ...; }}`), \
             or {declare}"
        ),
        None => declare,
    };
    Diagnostic::error(
        read.span,
        format!("symbol `{name}` is read before any edge assigns it"),
    )
    .note(reached)
    .help(help)
}
