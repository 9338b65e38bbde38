//! Constant indices and subsets against constant dimensions, and copies:
//! element types and shapes must match.

use super::affine::{constant, Affine};
use super::storage::shape_text;
use super::*;
use crate::diag::Diagnostic;

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
                StatementKind::Wait(_) => {}
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

/// Indices of a map's unconditional accesses (`A[i + 1]`) over the whole
/// range of their parameter, when the range and the dimension are constant
/// (`i in 0..10` reads `A[10]` of a 10-element `A`). Conditional accesses
/// are skipped: `if i + 1 < 10 { A[i + 1] }` is the way to guard one.
fn map_ranges(sdfg: &Sdfg, stmt: &Statement, map: &Map, diags: &mut Diagnostics) {
    let mut reported = Vec::new();
    for m in stmt.memlets.iter().filter(|m| !m.dynamic) {
        let c = &sdfg.containers[m.container];
        for (dim, (d, extent)) in m.subset.iter().zip(&c.shape).enumerate() {
            let SubsetDim::Index(index) = d else { continue };
            let Some(len) = constant(extent) else {
                continue;
            };
            let Some((p, lo, hi)) = param_range(index, map) else {
                continue;
            };
            if lo < 0 || hi > len {
                if reported.contains(&(m.container, dim)) {
                    continue;
                }
                reported.push((m.container, dim));
                let param = &map.params[p].name.text;
                diags.push(
                    Diagnostic::error(
                        index.span,
                        format!(
                            "index out of bounds: for `{param}` in its range, the index goes over {lo}..={} but {} has length {len}",
                            hi - 1,
                            dim_name(c, dim)
                        ),
                    )
                    .help(format!(
                        "narrow the range of `{param}`, or guard the access: `if {} < {len} {{ ... }}`",
                        expr_text(sdfg, &map.params, index)
                    )),
                );
            }
        }
    }
}

/// For an index `p + c` over a map parameter `p` with a constant range
/// (step 1): the parameter and the index's values `lo..hi`.
fn param_range(index: &Expr, map: &Map) -> Option<(usize, i128, i128)> {
    let form = Affine::of(index)?;
    let mut terms = form.terms.iter();
    let (&(kind, p), &coef) = terms.next()?;
    if kind != 1 || coef != 1 || terms.next().is_some() {
        return None;
    }
    let param = map.params.get(p)?;
    if param.step.as_ref().is_some_and(|s| constant(s) != Some(1)) {
        return None;
    }
    let (start, end) = (constant(&param.start)?, constant(&param.end)?);
    if start >= end {
        return None; // the map runs no iteration
    }
    Some((p, start + form.constant, end + form.constant))
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
        let (Some(value), Some(len)) = (constant(i), constant(extent)) else {
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
            let b = a
                .clone()
                .and_then(|a| a.add(&Affine::of(&Expr::lit(Value::I64(1), i.span))?, 1));
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

/// Constant subset bounds against constant dimensions; false when reported.
fn subset_in_bounds(sdfg: &Sdfg, m: &Memlet, diags: &mut Diagnostics) -> bool {
    let c = &sdfg.containers[m.container];
    let mut ok = true;
    for (dim, (d, extent)) in m.subset.iter().zip(&c.shape).enumerate() {
        let (start, end) = bounds_of(d);
        let (start, end) = (
            start.and_then(|a| a.as_constant()),
            end.and_then(|a| a.as_constant()),
        );
        let len = constant(extent);
        let span = match d {
            SubsetDim::Index(i) => i.span,
            SubsetDim::Range { start, .. } => start.span,
        };
        let bad = match (start, end, len) {
            (Some(s), Some(e), _) if s > e => Some(format!(
                "the range {s}..{e} of {} is reversed",
                dim_name(c, dim)
            )),
            (Some(s), _, _) if s < 0 => Some(format!(
                "the subset of {} starts at {s}, below 0",
                dim_name(c, dim)
            )),
            (_, Some(e), Some(len)) if e > len => Some(format!(
                "subset out of bounds: {} has length {len} but the subset ends at {e}",
                dim_name(c, dim)
            )),
            _ => None,
        };
        if let Some(message) = bad {
            ok = false;
            diags.push(Diagnostic::error(span, message).help(match len {
                Some(len) => format!("stay within 0..{len}"),
                None => "stay within the container's shape".to_string(),
            }));
        }
    }
    ok
}
