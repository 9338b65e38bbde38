//! States unreachable from the start state.

use super::*;
use crate::diag::Diagnostic;

pub(super) fn check(sdfg: &Sdfg, diags: &mut Diagnostics) {
    if sdfg.states.is_empty() {
        return;
    }
    let mut reached = vec![false; sdfg.states.len()];
    let mut work = vec![sdfg.start];
    while let Some(s) = work.pop() {
        if std::mem::replace(&mut reached[s], true) {
            continue;
        }
        work.extend(
            sdfg.out_edges(s)
                .map(|(_, e)| e.to)
                .filter(|t| !reached[*t]),
        );
    }
    let start = &sdfg.states[sdfg.start].name.text;
    for (id, state) in sdfg.states.iter().enumerate() {
        if !reached[id] {
            diags.push(
                Diagnostic::error(
                    state.name.span,
                    format!(
                        "state `{}` is unreachable from the start state `{start}`",
                        state.name.text
                    ),
                )
                .help(format!(
                    "add an edge to it (e.g. `{start} -> {};`), or remove it",
                    state.name.text
                )),
            );
        }
    }
}
