//! `#[persistent]` states: the loop of a state over itself runs as one
//! kernel (its maps as phases separated by grid-wide barriers, the loop's
//! iterations inside the kernel). That is sound only when every iteration
//! issues the same kernels with the same arguments and nothing but kernels:
//! - the state has an edge back to itself;
//! - it holds only flat `gpu` maps (no host statements, copies, waits,
//!   block maps or GPU tasklets) that read no host data, at least one, all
//!   of one rank (the phases share one launch shape: a map of fewer
//!   dimensions would run once per thread of the extra axes);
//! - every edge out of the state reads only symbols (the host counts the
//!   iterations before the launch);
//! - no map uses a symbol the loop edge assigns (the kernel's arguments are
//!   fixed for the whole loop).

use super::*;
use crate::diag::Diagnostic;

pub(super) fn check(sdfg: &Sdfg, diags: &mut Diagnostics) {
    for (s, state) in sdfg.states.iter().enumerate() {
        if let Some(attr) = state.persistent {
            check_state(sdfg, s, attr, diags);
        }
    }
}

const HELP_MOVE: &str = "a persistent state holds only `gpu` maps; move this statement into a state before or after the loop, or remove `#[persistent]`";

fn check_state(sdfg: &Sdfg, s: StateId, attr: proc_macro2::Span, diags: &mut Diagnostics) {
    let state = &sdfg.states[s];
    let name = &state.name.text;
    let self_edge = sdfg.out_edges(s).find(|(_, e)| e.to == s).map(|(id, _)| id);
    if self_edge.is_none() {
        diags.push(
            Diagnostic::error(
                attr,
                format!("persistent state `{name}` has no edge back to itself"),
            )
            .help(format!(
                "`#[persistent]` runs the iterations of a state's loop over itself in one kernel: add `{name} -> {name} if COND {{ ... }};`, or remove `#[persistent]`"
            )),
        );
    }
    let mut rank: Option<(usize, &str)> = None;
    let mut maps = 0;
    for st in &state.stmts {
        let refusal = match &st.kind {
            StatementKind::Map(m) if m.schedule != MapSchedule::Gpu => Some(format!(
                "map `{}` runs on the host ({}) in persistent state `{name}`",
                m.name.text,
                m.schedule.keyword()
            )),
            StatementKind::Map(m) if m.gpu_tasklet => Some(format!(
                "gpu tasklet `{}` cannot run in the kernel of persistent state `{name}`",
                m.name.text
            )),
            StatementKind::Map(m) if m.block.is_some() => Some(format!(
                "block map `{}` cannot run in the kernel of persistent state `{name}`",
                m.name.text
            )),
            StatementKind::Map(m) => st
                .memlets
                .iter()
                .find(|mm| sdfg.containers[mm.container].storage.is_host())
                .map(|mm| {
                    format!(
                        "map `{}` in persistent state `{name}` reads the host scalar `{}`",
                        m.name.text, sdfg.containers[mm.container].name.text
                    )
                }),
            StatementKind::Tasklet(t) => Some(format!(
                "tasklet `{}` runs on the host in persistent state `{name}`",
                t.name.text
            )),
            StatementKind::Copy(c) => Some(format!(
                "copy `{} -> {}` cannot run in the kernel of persistent state `{name}`",
                sdfg.containers[c.src].name.text, sdfg.containers[c.dst].name.text
            )),
            StatementKind::Wait(w) => Some(format!(
                "`wait {};` cannot run in the kernel of persistent state `{name}`",
                sdfg.containers[w.container].name.text
            )),
            // Calls are inlined before validation (the nested check reports one left).
            StatementKind::Nested(_) => None,
        };
        if let Some(message) = refusal {
            let help = match &st.kind {
                StatementKind::Map(m) if m.schedule == MapSchedule::Gpu && m.block.is_none() && !m.gpu_tasklet => {
                    "a persistent kernel takes no host data: copy the value into a `gpu` scalar before the loop and read that".to_string()
                }
                _ => HELP_MOVE.to_string(),
            };
            diags.push(Diagnostic::error(st.span, message).help(help));
            continue;
        }
        let StatementKind::Map(m) = &st.kind else {
            continue;
        };
        maps += 1;
        match rank {
            None => rank = Some((m.params.len(), &m.name.text)),
            Some((r, first)) if r != m.params.len() => diags.push(
                Diagnostic::error(
                    st.span,
                    format!(
                        "map `{}` has {} dimension(s), map `{first}` has {r}: the maps of persistent state `{name}` share one launch shape",
                        m.name.text,
                        m.params.len()
                    ),
                )
                .help("give every map of a persistent state the same number of dimensions, or move this map into another state"),
            ),
            Some(_) => {}
        }
    }
    if maps == 0 && state.stmts.is_empty() {
        diags.push(
            Diagnostic::error(attr, format!("persistent state `{name}` has no map"))
                .help("a persistent kernel runs the state's `gpu` maps; add them, or remove `#[persistent]`"),
        );
    }
    for (_, e) in sdfg.out_edges(s) {
        let mut read = None;
        let mut visit = |x: &Expr| {
            x.walk(&mut |y| {
                if let ExprKind::Load { container, .. } = y.kind {
                    read.get_or_insert(container);
                }
            })
        };
        e.condition.iter().for_each(&mut visit);
        e.assignments.iter().for_each(|(_, v)| visit(v));
        if let Some(c) = read {
            diags.push(
                Diagnostic::error(
                    e.span,
                    format!(
                        "edge `{name} -> {}` of persistent state `{name}` reads the host data `{}`",
                        sdfg.states[e.to].name.text, sdfg.containers[c].name.text
                    ),
                )
                .help("the loop of a persistent kernel is counted on the host before the launch, from symbols only; decide it from symbols, or remove `#[persistent]` (a loop decided on the gpu runs as a conditional graph node)"),
            );
        }
    }
    let Some(edge) = self_edge else {
        return;
    };
    let assigned: Vec<SymbolId> = sdfg.edges[edge].assignments.iter().map(|a| a.0).collect();
    for st in &state.stmts {
        let StatementKind::Map(m) = &st.kind else {
            continue;
        };
        let used = st.symbols_used();
        if let Some(&sym) = assigned.iter().find(|sym| used.contains(sym)) {
            let sym = &sdfg.symbols[sym].name.text;
            diags.push(
                Diagnostic::error(
                    st.span,
                    format!(
                        "map `{}` uses the symbol `{sym}`, which the loop edge of persistent state `{name}` changes every iteration",
                        m.name.text
                    ),
                )
                .help("a persistent kernel passes its maps' arguments once for the whole loop; keep the map independent of the loop's counter, or remove `#[persistent]`"),
            );
        }
    }
}
