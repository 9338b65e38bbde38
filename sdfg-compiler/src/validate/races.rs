//! Races inside one parallel map: the iterations of a `gpu` or `cpu` map
//! run in no particular order, so two of them may not touch one element of
//! a container where one writes it (two reductions with one operator
//! combine, and may). The `dependence` test decides each pair of accesses;
//! a possible conflict is an error that names the container and both
//! accesses and says how to fix it. A `seq` map runs its iterations in
//! order and is not checked.
//!
//! `#[independent(A, ...)]` on a map vouches for containers the test cannot
//! decide (indirect or non-linear indices): the test then trusts the user.
//! Such a race is never undefined behaviour here (kernels and the CPU
//! device touch memory only through device pointers and atomic cells, no
//! Rust reference aliases it), only a result that depends on the order of
//! the iterations.

use super::dependence::{
    map_conflicts, why_not_affine, AccessVar, BodyAccess, Conflict, Space, Verdict,
};
use super::*;
use crate::diag::Diagnostic;
use crate::ir::same_expr;

pub(super) fn check(sdfg: &Sdfg, diags: &mut Diagnostics) {
    for state in &sdfg.states {
        for stmt in &state.stmts {
            let StatementKind::Map(map) = &stmt.kind else {
                continue;
            };
            vouched(sdfg, map, stmt, diags);
            if map.schedule == MapSchedule::Seq {
                continue;
            }
            // Block data is not shared between iterations: each block
            // iteration has its own (`validate::block` tests thread maps).
            let trusted = |c: ContainerId| {
                map.independent.iter().any(|(t, _)| *t == c)
                    || sdfg.containers[c].storage.is_block_local()
            };
            for conflict in map_conflicts(&Space::of(&map.params), &map.body, &trusted) {
                diags.push(report(sdfg, map, &conflict));
            }
        }
    }
}

/// `#[independent(...)]` names containers the map writes, on a parallel map.
fn vouched(sdfg: &Sdfg, map: &Map, stmt: &Statement, diags: &mut Diagnostics) {
    if map.schedule == MapSchedule::Seq {
        if let Some((_, span)) = map.independent.first() {
            diags.push(
                Diagnostic::error(
                    *span,
                    format!("`#[independent]` on the `seq` map `{}`", map.name.text),
                )
                .help("a `seq` map runs its iterations in order; remove the attribute"),
            );
        }
        return;
    }
    for (c, span) in &map.independent {
        let writes = stmt
            .memlets
            .iter()
            .any(|m| m.container == *c && m.access.is_write());
        if !writes {
            let name = &sdfg.containers[*c].name.text;
            diags.push(
                Diagnostic::error(
                    *span,
                    format!(
                        "`#[independent({name})]`: map `{}` does not write `{name}`",
                        map.name.text
                    ),
                )
                .help(format!("remove `{name}`: only what a map writes can race")),
            );
        }
    }
}

fn report(sdfg: &Sdfg, map: &Map, c: &Conflict) -> Diagnostic {
    let container = &sdfg.containers[c.container].name.text;
    let text = |a: &BodyAccess| access_text(sdfg, map, a);
    let (first, second) = (text(&c.first), text(&c.second));
    let message = match (&c.verdict, c.second.access) {
        (Verdict::Unknown { .. }, _) => format!(
            "cannot prove that the iterations of `{}` touch different elements of `{container}`",
            map.name.text
        ),
        (_, Access::Read) => format!(
            "an iteration of `{}` may read an element of `{container}` that another iteration writes",
            map.name.text
        ),
        _ => format!(
            "two iterations of `{}` may write the same element of `{container}`",
            map.name.text
        ),
    };
    let accesses = if c.same_access {
        format!("every iteration {} `{first}`", verb(c.first.access))
    } else {
        format!(
            "one iteration {} `{first}`, another {} `{second}`",
            verb(c.first.access),
            verb(c.second.access)
        )
    };
    let mut d = Diagnostic::error(c.first.span, message).note(accesses);
    d = d.note(witness(sdfg, map, c, &first, &second));
    let mut help = help(sdfg, map, c);
    if let Some(note) = unread_note(sdfg, map, c, &first, &second) {
        d = d.note(note);
        if matches!(c.verdict, Verdict::Conflict { .. }) {
            help = format!(
                "if those conditions keep the iterations on different elements of `{container}`, write them as bounds the test reads (`t < 30`), or say so: `#[independent({container})]`; otherwise: {help}"
            );
        }
    }
    d.help(help)
}

/// The conditions around the two accesses (`first` and `second`, as the
/// message writes them) that the test does not read, where there are any:
/// where it cannot decide, it says so.
pub(super) fn unread_note(
    sdfg: &Sdfg,
    map: &Map,
    c: &Conflict,
    first: &str,
    second: &str,
) -> Option<String> {
    let conditions = |a: &BodyAccess| -> Option<String> {
        let parts: Vec<String> = a
            .unread
            .iter()
            .map(|e| format!("`{}`", expr_text_in(sdfg, &map.params, &map.body.locals, e)))
            .collect();
        let (last, rest) = parts.split_last()?;
        Some(if rest.is_empty() {
            format!("{last} holds")
        } else {
            format!("{} and {last} hold", rest.join(", "))
        })
    };
    let one = conditions(&c.first);
    let other = if c.same_access || first == second {
        None
    } else {
        conditions(&c.second)
    };
    let clauses = match (one, other) {
        (Some(a), Some(b)) => format!("`{first}` runs where {a}, `{second}` where {b}"),
        (Some(a), None) => format!("`{first}` runs where {a}"),
        (None, Some(b)) => format!("`{second}` runs where {b}"),
        (None, None) => return None,
    };
    Some(format!(
        "{clauses}, which the test does not read: it reads equalities (`i == e`) and bounds of one `for` variable or thread map parameter by symbols and literals (`t < 30`)"
    ))
}

/// `A[i + 1]` (locals by name).
fn access_text(sdfg: &Sdfg, map: &Map, a: &BodyAccess) -> String {
    let name = &sdfg.containers[a.container].name.text;
    if a.index.is_empty() {
        return name.clone();
    }
    let index: Vec<String> = a
        .index
        .iter()
        .map(|e| expr_text_in(sdfg, &map.params, &map.body.locals, e))
        .collect();
    format!("{name}[{}]", index.join(", "))
}

fn verb(access: Access) -> String {
    match access {
        Access::Read => "reads".to_string(),
        Access::Write => "writes".to_string(),
        Access::Reduce(op) => format!("reduces ({}) into", op.name()),
    }
}

/// Why the two accesses may meet.
fn witness(sdfg: &Sdfg, map: &Map, c: &Conflict, first: &str, second: &str) -> String {
    let param = |k: usize| map.params.get(k).map_or("?", |p| p.name.text.as_str());
    match &c.verdict {
        Verdict::Unknown {
            first: in_first,
            dim,
        } => {
            let access = if *in_first { &c.first } else { &c.second };
            let index = access.index.get(*dim);
            let index_text = index.map_or(String::new(), |e| {
                expr_text_in(sdfg, &map.params, &map.body.locals, e)
            });
            let why = index.map_or(String::new(), |e| {
                why_not_affine(e, &map.body.locals, &sdfg.containers)
            });
            let access = if *in_first { first } else { second };
            format!("the test cannot compare `{access}` across iterations: its index `{index_text}` is not linear in the map's parameters ({why})")
        }
        Verdict::Conflict { distance, free } if free.is_empty() => {
            // The second access runs in the iteration `p - distance`.
            let other: Vec<String> = distance
                .iter()
                .enumerate()
                .map(|(k, d)| match d.map(|d| -d) {
                    Some(0) | None => param(k).to_string(),
                    Some(d) if d > 0 => format!("{} + {d}", param(k)),
                    Some(d) => format!("{} - {}", param(k), d.unsigned_abs()),
                })
                .collect();
            let own: Vec<&str> = (0..map.params.len()).map(param).collect();
            let tuple = |v: Vec<String>| {
                if v.len() == 1 {
                    v.concat()
                } else {
                    format!("({})", v.join(", "))
                }
            };
            format!(
                "`{first}` of iteration `{}` is `{second}` of iteration `{}`",
                tuple(own.iter().map(|s| s.to_string()).collect()),
                tuple(other)
            )
        }
        Verdict::Conflict { free, .. } => {
            let names: Vec<String> = free.iter().map(|&k| format!("`{}`", param(k))).collect();
            let names = names.join(", ");
            let unbounded = unbounded_loops(c);
            if !unbounded.is_empty() {
                let vars: Vec<String> = unbounded
                    .iter()
                    .map(|&l| format!("`{}`", local_name(map, l)))
                    .collect();
                return format!(
                    "the subscripts can be equal in two iterations that differ in {names}: the test takes {} as any value, since the bounds of its `for` loop read more than symbols and literals",
                    vars.join(", ")
                );
            }
            let absent = free
                .iter()
                .all(|&k| !mentions_param(&c.first, k) && !mentions_param(&c.second, k));
            if absent && (c.same_access || first == second) {
                format!("`{first}` does not depend on {names}: iterations that differ only there touch the same element")
            } else if absent {
                format!("neither `{first}` nor `{second}` depends on {names}: iterations that differ only there touch the same element")
            } else {
                format!("the subscripts can be equal in two iterations that differ in {names}")
            }
        }
        Verdict::Independent => String::new(),
    }
}

/// Whether a subscript of `a` depends on parameter `k`: through its forms,
/// where an immutable `let` stands for its value (`j` of `let j = 8 * b +
/// t;` depends on `b`), else as written.
fn mentions_param(a: &BodyAccess, k: usize) -> bool {
    a.index.iter().zip(&a.forms).any(|(e, form)| match form {
        Some(f) => f.terms.contains_key(&AccessVar::Param(k)),
        None => {
            let mut found = false;
            e.walk(&mut |x| found |= matches!(x.kind, ExprKind::Var(VarRef::Param(p)) if p == k));
            found
        }
    })
}

/// The `for` variables in the two accesses' subscripts whose bounds the test
/// does not know (bounds that read a parameter or a `let` of the body):
/// it takes them as any value, so two iterations may meet through them.
fn unbounded_loops(c: &Conflict) -> Vec<LocalId> {
    let mut out = Vec::new();
    for a in [&c.first, &c.second] {
        for (var, lo, hi) in &a.loops {
            let used = a
                .forms
                .iter()
                .flatten()
                .any(|f| f.terms.contains_key(&AccessVar::Loop(*var)));
            if used && (lo.is_none() || hi.is_none()) && !out.contains(var) {
                out.push(*var);
            }
        }
    }
    out
}

fn local_name(map: &Map, l: LocalId) -> &str {
    map.body.locals.get(l).map_or("?", |x| x.name.as_str())
}

/// The fix: a reduction where the update is one, else ordering the
/// iterations; the opt-in where the test could not decide.
fn help(sdfg: &Sdfg, map: &Map, c: &Conflict) -> String {
    let container = &sdfg.containers[c.container].name.text;
    let state_loop = "make each step a state of a loop (`s -> s if k + 1 < K { k = k + 1 }`)";
    // A block map has no `seq` form: its iterations are thread blocks.
    let order = if map.block.is_some() {
        state_loop.to_string()
    } else {
        format!("run the map `on seq` (its iterations then run in order), or {state_loop}")
    };
    if let Some(&var) = unbounded_loops(c).first() {
        let q = local_name(map, var);
        return format!(
            "write the loop over symbols and literals and add its start in the subscript (`for {q} in 0..K {{ ... {container}[start + {q}] ... }}`), so that the test sees how `{q}` moves with the iterations; if no two iterations touch one element of `{container}`, say so: `#[independent({container})]`"
        );
    }
    if matches!(c.verdict, Verdict::Unknown { .. }) {
        return format!(
            "if no two iterations touch one element of `{container}`, say so: `#[independent({container})] map {}[...] on {} {{ ... }}`; otherwise use a reduction (`+=`, `.max()`), or {order}",
            map.name.text,
            map.schedule.keyword()
        );
    }
    if let Some(reduction) = reduction_form(sdfg, map, &c.first) {
        return format!(
            "the iterations combine their values: make it a reduction, `{reduction}`, or {order}"
        );
    }
    format!("if the iterations combine their values, use a reduction (`{container}[..] += e;`, `*=`, or `{container}[..] = {container}[..].max(e);` with an `e` that does not read `{container}`); otherwise {order}")
}

/// `A[k] += e;` (or `*=`) when the store `first` is `A[k] = A[k] + e` (or
/// `e + A[k]`, `*`) with an `e` that does not read `A`.
fn reduction_form(sdfg: &Sdfg, map: &Map, first: &BodyAccess) -> Option<String> {
    let value = first.value.as_ref()?;
    let ExprKind::Binary { op, lhs, rhs } = &value.kind else {
        return None;
    };
    let symbol = match op {
        BinOp::Add => "+=",
        BinOp::Mul => "*=",
        _ => return None,
    };
    let is_target = |e: &Expr| match &e.kind {
        ExprKind::Load { container, index } => {
            *container == first.container
                && index.len() == first.index.len()
                && index.iter().zip(&first.index).all(|(a, b)| same_expr(a, b))
        }
        _ => false,
    };
    let rest = if is_target(lhs) {
        rhs
    } else if is_target(rhs) {
        lhs
    } else {
        return None;
    };
    let mut reads_target = false;
    rest.walk(&mut |e| {
        reads_target |=
            matches!(&e.kind, ExprKind::Load { container, .. } if *container == first.container)
    });
    if reads_target {
        return None;
    }
    Some(format!(
        "{} {symbol} {};",
        access_text(sdfg, map, first),
        expr_text_in(sdfg, &map.params, &map.body.locals, rest)
    ))
}
