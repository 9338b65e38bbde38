//! The iterations of a thread map run concurrently on the block's threads:
//! no two of them may write the same element of `shared` or `gpu` data, and
//! none may read an element another writes (reductions with one operator
//! are the exception; `register` data is private to an iteration).
//!
//! The test is the dependence test of whole maps (`validate::dependence`)
//! over the thread map's parameters. What is the same in every iteration
//! of one run of the thread map is given to it as parameters that do not
//! vary (`ParamModel::Fixed`): the block map's parameters and every
//! block-level local in scope (`let`s, `for` variables; block-level locals
//! are immutable). So `S[i, j]` with the block parameter `i` and the thread
//! parameter `j` is one element per iteration, and `S[base + j]` with a
//! block-level `let base = Offs[i];` is too, although `base` is loaded.
//!
//! The races between the block map's own iterations (two blocks) are the
//! whole-map test's (`validate::races`), which sees a thread map's
//! parameters as free variables within their ranges and leaves out block
//! data (each block iteration has its own).

use super::*;
use crate::validate::dependence::{
    conflicts_among, statement_accesses, why_not_affine, AccessVar, BodyAccess, Conflict, Form,
    ParamModel, Space, Verdict,
};
use std::collections::HashMap;

/// Possible cross-iteration conflicts of thread map `t` of block map `map`.
pub fn thread_map_conflicts(sdfg: &Sdfg, map: &Map, t: &ThreadMap) -> Vec<Diagnostic> {
    let inner = crate::ir::thread_map_locals(t);
    // Parameters of the test: the block map's (fixed), then one per
    // block-level local (fixed), then the thread map's (varying).
    let mut params: Vec<ParamModel> = vec![ParamModel::Fixed; map.params.len()];
    let mut known: HashMap<LocalId, Form> = HashMap::new();
    for l in 0..map.body.locals.len() {
        if !inner.contains(&l) {
            known.insert(l, Form::var(AccessVar::Param(params.len())));
            params.push(ParamModel::Fixed);
        }
    }
    for p in &t.params {
        known.insert(p.local, Form::var(AccessVar::Param(params.len())));
        params.push(ParamModel::of_range(&p.start, &p.end, p.step.as_ref()));
    }
    let accesses: Vec<BodyAccess> = statement_accesses(&map.body.locals, &t.body, known)
        .into_iter()
        .filter(|a| sdfg.containers[a.container].storage != Storage::Register)
        .collect();
    conflicts_among(&Space { params }, &accesses, &|_| false)
        .iter()
        .map(|c| report(sdfg, map, t, c))
        .collect()
}

fn report(sdfg: &Sdfg, map: &Map, t: &ThreadMap, c: &Conflict) -> Diagnostic {
    let name = &sdfg.containers[c.container].name.text;
    let index_text = |e: &Expr| expr_text_in(sdfg, &map.params, &map.body.locals, e);
    let text = |a: &BodyAccess| {
        if a.index.is_empty() {
            name.clone()
        } else {
            let idx: Vec<String> = a.index.iter().map(index_text).collect();
            format!("{name}[{}]", idx.join(", "))
        }
    };
    let (first, second) = (&c.first, &c.second);
    let d = if second.access == Access::Read {
        Diagnostic::error(
            second.span,
            format!(
                "thread map `{}` reads `{}`, which another of its iterations may write (`{}`)",
                t.name.text,
                text(second),
                text(first)
            ),
        )
        .help("read it in a later thread map (the compiler places the barrier between them), or read and write the same element in each iteration")
    } else if c.same_access {
        Diagnostic::error(
            first.span,
            format!(
                "iterations of thread map `{}` may write the same element of `{name}` (`{}`)",
                t.name.text,
                text(first)
            ),
        )
        .help(format!(
            "index `{name}` with the thread map's parameters (one per dimension, as in `{name}[i, j]` for `map {}[i in .., j in ..]`), or make the update a reduction (`+=`, `.max()`, `.min()`)",
            t.name.text
        ))
    } else {
        Diagnostic::error(
            second.span,
            format!(
                "`{}` and `{}` in thread map `{}` may write the same element from different iterations",
                text(first),
                text(second),
                t.name.text
            ),
        )
        .help("write disjoint elements (as `S[2 * i]` and `S[2 * i + 1]`), or write them in separate thread maps")
    };
    let mut d = d.note(
        "the iterations of a thread map run at the same time on the block's threads; the order of such accesses is not defined",
    );
    if let Some(note) = super::super::races::unread_note(sdfg, map, c, &text(first), &text(second))
    {
        d = d.note(note);
    }
    match c.verdict {
        Verdict::Unknown {
            first: in_first,
            dim,
        } => {
            let access = if in_first { first } else { second };
            let Some(index) = access.index.get(dim) else {
                return d;
            };
            d.note(format!(
                "the test cannot compare `{}` across iterations: its index `{}` is not linear in the thread map's parameters ({})",
                text(access),
                index_text(index),
                why_not_affine(index, &map.body.locals, &sdfg.containers)
            ))
        }
        _ => d,
    }
}
