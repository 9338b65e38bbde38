//! Constant indices and subsets against constant dimensions, and copies:
//! element types and shapes must match.

use super::storage::shape_text;
use super::*;
use crate::diag::Diagnostic;
use crate::ir::linear::{constant_value, Affine, AffineVar};

pub(super) fn check(sdfg: &Sdfg, diags: &mut Diagnostics) {
    for state in &sdfg.states {
        for stmt in &state.stmts {
            match &stmt.kind {
                StatementKind::Map(m) => {
                    body(sdfg, &m.body, diags);
                    map_ranges(sdfg, stmt, m, diags);
                }
                StatementKind::Tasklet(t) => body(sdfg, &t.body, diags),
                StatementKind::Copy(c) => copy(sdfg, stmt, c, diags),
                // Reported by `nested::check`.
                StatementKind::Wait(_) | StatementKind::Nested(_) => {}
            }
        }
    }
    for edge in &sdfg.edges {
        let exprs = edge
            .condition
            .iter()
            .chain(edge.assignments.iter().map(|(_, e)| e));
        for e in exprs {
            e.walk(&mut |e| {
                if let ExprKind::Load { container, index } = &e.kind {
                    indices(sdfg, *container, index, diags);
                }
            });
        }
    }
}

fn body(sdfg: &Sdfg, body: &TaskletBody, diags: &mut Diagnostics) {
    for (container, index, _) in body_accesses(body) {
        indices(sdfg, container, index, diags);
    }
}

/// Indices of a map's unconditional accesses over the whole range of their
/// parameter: `A[i + 1]` with `i in 0..N` reaches `A[N]`, one past the end
/// of an `N`-element `A`, in the last iteration. Reported when the distance
/// is a constant (so for every value of the symbols where the map runs at
/// all). Conditional accesses are skipped: `if i + 1 < N { A[i + 1] }` is
/// how to guard one; so are maps with dependent ranges.
fn map_ranges(sdfg: &Sdfg, stmt: &Statement, map: &Map, diags: &mut Diagnostics) {
    // With a range that reads an earlier parameter, a value of a parameter
    // may run no iteration (`j in 0..i` runs none for `i = 0`): its accesses
    // are checked where they run (`ir::bounds::LoopScope::for_map`).
    if map.has_dependent_ranges() {
        return;
    }
    let mut reported = Vec::new();
    for m in stmt.memlets.iter().filter(|m| !m.dynamic) {
        let c = &sdfg.containers[m.container];
        for (dim, (d, extent)) in m.subset.iter().zip(&c.shape).enumerate() {
            let SubsetDim::Index(index) = d else { continue };
            let Some(len) = Affine::of(extent) else {
                continue;
            };
            let Some((p, lo, hi)) = param_interval(index, map) else {
                continue;
            };
            let below = lo.as_constant().filter(|v| *v < 0);
            let past = hi.minus(&len).is_some_and(|d| d > 0);
            if (below.is_none() && !past) || reported.contains(&(m.container, dim)) {
                continue;
            }
            reported.push((m.container, dim));
            let param = &map.params[p];
            // The range as written: `a..=last` keeps its `last`.
            let (dots, end) = match param.run_end() {
                RangeEnd::Exclusive(end) => ("..", end),
                RangeEnd::Inclusive(last) => ("..=", last),
            };
            let range = format!(
                "{}{dots}{}",
                expr_text(sdfg, &[], &param.start),
                expr_text(sdfg, &[], end)
            );
            let index_text = expr_text(sdfg, &map.params, index);
            let reaches = match below {
                Some(v) => v.to_string(),
                None => hi
                    .clone()
                    .offset(-1)
                    .map_or_else(|| "?".to_string(), |last| last.text(sdfg, &[])),
            };
            let guard = if past {
                format!("if {index_text} < {} {{ ... }}", len.text(sdfg, &[]))
            } else {
                format!("if {index_text} >= 0 {{ ... }}")
            };
            diags.push(
                Diagnostic::error(
                    index.span,
                    format!(
                        "index out of bounds: `{index_text}` reaches {reaches} for `{}` in `{range}`, but {} has length {}",
                        param.name.text,
                        dim_name(c, dim),
                        len.text(sdfg, &[])
                    ),
                )
                .help(format!(
                    "narrow the range of `{}`, or guard the access: `{guard}`",
                    param.name.text
                )),
            );
        }
    }
}

/// For an index `p + rest` over a map parameter `p` (coefficient 1, step 1,
/// `rest` over symbols): the parameter and the index's values `lo..hi`.
/// None when the map provably runs no iteration.
fn param_interval(index: &Expr, map: &Map) -> Option<(usize, Affine, Affine)> {
    let form = Affine::of(index)?;
    let mut params = form.terms.iter().filter_map(|(v, &k)| match v {
        AffineVar::Param(p) => Some((*p, k)),
        AffineVar::Symbol(_) => None,
    });
    let (p, coef) = params.next()?;
    if coef != 1 || params.next().is_some() {
        return None;
    }
    let param = map.params.get(p)?;
    if param
        .step
        .as_ref()
        .is_some_and(|s| constant_value(s) != Some(1))
    {
        return None;
    }
    let (start, end) = (Affine::of(&param.start)?, Affine::of(&param.end)?);
    if start.has_params() || end.has_params() || end.minus(&start).is_some_and(|n| n <= 0) {
        return None;
    }
    let mut rest = form;
    rest.terms.remove(&AffineVar::Param(p));
    Some((p, start.add(&rest, 1)?, end.add(&rest, 1)?))
}

fn dim_name(c: &Container, dim: usize) -> String {
    if c.shape.len() == 1 {
        format!("`{}`", c.name.text)
    } else {
        format!("dimension {dim} of `{}`", c.name.text)
    }
}

/// Every constant index against its constant dimension.
fn indices(sdfg: &Sdfg, container: ContainerId, index: &[Expr], diags: &mut Diagnostics) {
    let c = &sdfg.containers[container];
    for (dim, (i, extent)) in index.iter().zip(&c.shape).enumerate() {
        let (Some(value), Some(len)) = (constant_value(i), constant_value(extent)) else {
            continue;
        };
        if value < 0 || value >= len {
            diags.push(
                Diagnostic::error(
                    i.span,
                    format!(
                        "index out of bounds: {} has length {len} but the index is {value}",
                        dim_name(c, dim)
                    ),
                )
                .help(if len > 0 {
                    format!("valid indices are 0..={}", len - 1)
                } else {
                    "the dimension is empty; no index is valid".to_string()
                }),
            );
        }
    }
}

/// Subset dimensions as `(start, end)` pairs (an index `i` is `i..i+1`).
fn bounds_of(dim: &SubsetDim) -> (Option<Affine>, Option<Affine>) {
    match dim {
        SubsetDim::Index(i) => {
            let a = Affine::of(i);
            let b = a.clone().and_then(|a| a.offset(1));
            (a, b)
        }
        SubsetDim::Range { start, end } => (Affine::of(start), Affine::of(end)),
    }
}

fn copy(sdfg: &Sdfg, stmt: &Statement, copy: &crate::ir::Copy, diags: &mut Diagnostics) {
    let (Some(src_m), Some(dst_m)) = (stmt.memlets.first(), stmt.memlets.get(1)) else {
        return;
    };
    let (src, dst) = (&sdfg.containers[copy.src], &sdfg.containers[copy.dst]);
    if src.elem != dst.elem {
        diags.push(
            Diagnostic::error(
                dst_m.span,
                format!(
                    "cannot copy `{}` elements of `{}` into `{}`, which holds `{}`",
                    src.elem, src.name.text, dst.name.text, dst.elem
                ),
            )
            .help("a copy moves bytes; convert the elements with a map instead, e.g. `B[i] = A[i] as f32;`"),
        );
    }
    let mut ok = true;
    for m in [src_m, dst_m] {
        ok &= subset_in_bounds(sdfg, m, diags);
    }
    if !ok {
        return;
    }
    // Shapes: the extents of the range dimensions, ignoring extents of 1.
    let extents = |m: &Memlet| -> Option<Vec<Affine>> {
        let mut out = Vec::new();
        for dim in &m.subset {
            if let SubsetDim::Range { start, end } = dim {
                let e = Affine::of(end)?.add(&Affine::of(start)?, -1)?;
                if e.as_constant() != Some(1) {
                    out.push(e);
                }
            }
        }
        Some(out)
    };
    if let (Some(a), Some(b)) = (extents(src_m), extents(dst_m)) {
        if a != b {
            let text = |m: &Memlet, c: &Container| subset_text(sdfg, m, c);
            diags.push(
                Diagnostic::error(
                    stmt.span,
                    "the copy's source and destination have different shapes",
                )
                .note(format!(
                    "source: {}, destination: {}",
                    text(src_m, src),
                    text(dst_m, dst)
                ))
                .help("copy subsets of the same shape, e.g. `copy A[0..N] -> B[0..N];`"),
            );
        }
    }
}

fn subset_text(sdfg: &Sdfg, m: &Memlet, c: &Container) -> String {
    let dims: Vec<String> = m
        .subset
        .iter()
        .map(|d| match d {
            SubsetDim::Index(i) => expr_text(sdfg, &[], i),
            SubsetDim::Range { start, end } => {
                format!(
                    "{}..{}",
                    expr_text(sdfg, &[], start),
                    expr_text(sdfg, &[], end)
                )
            }
        })
        .collect();
    if dims.is_empty() {
        format!("`{}` (a scalar)", c.name.text)
    } else {
        format!(
            "`{}[{}]` (of `{}{}`)",
            c.name.text,
            dims.join(", "),
            c.name.text,
            shape_text(sdfg, c)
        )
    }
}

/// Subset bounds against the dimensions, where the difference is a
/// constant (`0..N + 1` of an `N`-element dimension); false when reported.
fn subset_in_bounds(sdfg: &Sdfg, m: &Memlet, diags: &mut Diagnostics) -> bool {
    let c = &sdfg.containers[m.container];
    let mut ok = true;
    for (dim, (d, extent)) in m.subset.iter().zip(&c.shape).enumerate() {
        let (Some(start), Some(end)) = bounds_of(d) else {
            continue;
        };
        let len = Affine::of(extent);
        let span = match d {
            SubsetDim::Index(i) => i.span,
            SubsetDim::Range { start, .. } => start.span,
        };
        let text = |a: &Affine| a.text(sdfg, &[]);
        let bad = if start.minus(&end).is_some_and(|d| d > 0) {
            Some(format!(
                "the range {}..{} of {} is reversed",
                text(&start),
                text(&end),
                dim_name(c, dim)
            ))
        } else if let Some(s) = start.as_constant().filter(|s| *s < 0) {
            Some(format!(
                "the subset of {} starts at {s}, below 0",
                dim_name(c, dim)
            ))
        } else {
            let past_end = len
                .as_ref()
                .filter(|len| end.minus(len).is_some_and(|d| d > 0));
            past_end.map(|len| {
                format!(
                    "subset out of bounds: {} has length {} but the subset ends at {}",
                    dim_name(c, dim),
                    text(len),
                    text(&end)
                )
            })
        };
        if let Some(message) = bad {
            ok = false;
            diags.push(Diagnostic::error(span, message).help(match &len {
                Some(len) => format!("stay within 0..{}", text(len)),
                None => "stay within the container's shape".to_string(),
            }));
        }
    }
    ok
}
