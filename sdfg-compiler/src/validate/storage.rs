//! Storage rules (DESIGN section 2): host tasklets, `cpu` and `seq` maps and
//! interstate edges touch only host data; a `gpu` map touches GPU data and
//! may read host *scalars* (passed by value), never host arrays; `wait`
//! exists only with `#[sync(manual)]` and takes a host container.

use super::*;
use crate::diag::Diagnostic;

pub(super) fn check(sdfg: &Sdfg, diags: &mut Diagnostics) {
    for state in &sdfg.states {
        for stmt in &state.stmts {
            match &stmt.kind {
                StatementKind::Map(m) if m.schedule == MapSchedule::Gpu => {
                    gpu_map(sdfg, stmt, m, diags)
                }
                StatementKind::Map(m) => host_statement(
                    sdfg,
                    stmt,
                    &format!("`{}` map `{}`", m.schedule.keyword(), m.name.text),
                    diags,
                ),
                StatementKind::Tasklet(t) => host_statement(
                    sdfg,
                    stmt,
                    &format!("host tasklet `{}`", t.name.text),
                    diags,
                ),
                StatementKind::Copy(_) => {}
                StatementKind::Wait(w) => wait(sdfg, stmt, w, diags),
                // Reported by `nested::check`.
                StatementKind::Nested(_) => {}
            }
        }
    }
    for edge in &sdfg.edges {
        let mut reported = Vec::new();
        let exprs = edge
            .condition
            .iter()
            .chain(edge.assignments.iter().map(|(_, e)| e));
        for e in exprs {
            e.walk(&mut |e| {
                if let ExprKind::Load { container, .. } = &e.kind {
                    let c = &sdfg.containers[*container];
                    if c.storage == Storage::Gpu && !reported.contains(container) {
                        reported.push(*container);
                        diags.push(
                            Diagnostic::error(
                                e.span,
                                format!("an interstate edge cannot read gpu container `{}`", c.name.text),
                            )
                            .help(format!(
                                "copy it to a host container first: `copy {0} -> {0}_host;` in the state (declare `host {0}_host: {1}{2};`), then read `{0}_host`",
                                c.name.text,
                                c.elem,
                                shape_text(sdfg, c)
                            ))
                            .note("interstate edges run on the host"),
                        );
                    }
                }
            });
        }
    }
}

/// The declaration as written: `transient gpu A: f64[N, M];`.
pub(crate) fn declaration(sdfg: &Sdfg, c: &Container) -> String {
    format!(
        "{}{} {}: {}{};",
        if c.transient { "transient " } else { "" },
        c.storage.keyword(),
        c.name.text,
        c.elem,
        shape_text(sdfg, c)
    )
}

/// `[N, M]` or empty for a scalar.
pub(crate) fn shape_text(sdfg: &Sdfg, c: &Container) -> String {
    if c.shape.is_empty() {
        return String::new();
    }
    let dims: Vec<String> = c.shape.iter().map(|d| expr_text(sdfg, &[], d)).collect();
    format!("[{}]", dims.join(", "))
}

fn verb(access: Access) -> &'static str {
    match access {
        Access::Read => "read",
        Access::Write => "written",
        Access::Reduce(_) => "reduced into",
    }
}

/// Host tasklets and `cpu`/`seq` maps: no GPU data.
fn host_statement(sdfg: &Sdfg, stmt: &Statement, what: &str, diags: &mut Diagnostics) {
    let mut reported = Vec::new();
    for m in &stmt.memlets {
        let c = &sdfg.containers[m.container];
        if c.storage != Storage::Gpu || reported.contains(&m.container) {
            continue;
        }
        reported.push(m.container);
        let help = if m.access.is_write() {
            format!(
                "write a host container and copy it over afterwards: `copy {0}_host -> {0};` (declare `host {0}_host: {1}{2};`)",
                c.name.text,
                c.elem,
                shape_text(sdfg, c)
            )
        } else {
            format!(
                "copy it to a host container first: `copy {0} -> {0}_host;` (declare `host {0}_host: {1}{2};`), or use a `gpu` map",
                c.name.text,
                c.elem,
                shape_text(sdfg, c)
            )
        };
        diags.push(
            Diagnostic::error(
                m.span,
                format!(
                    "gpu container `{}` is {} by {what}, which runs on the host",
                    c.name.text,
                    verb(m.access)
                ),
            )
            .help(help)
            .note(format!(
                "`{}` is declared `{}`",
                c.name.text,
                declaration(sdfg, c)
            )),
        );
    }
}

/// `gpu` maps: no host arrays; host scalars only read.
fn gpu_map(sdfg: &Sdfg, stmt: &Statement, map: &Map, diags: &mut Diagnostics) {
    let mut reported = Vec::new();
    for m in &stmt.memlets {
        let c = &sdfg.containers[m.container];
        if c.storage == Storage::Gpu || reported.contains(&m.container) {
            continue;
        }
        if c.is_scalar() && !m.access.is_write() {
            continue; // passed to the kernel by value
        }
        reported.push(m.container);
        let storage = c.storage.keyword();
        let d = if c.is_scalar() {
            Diagnostic::error(
                m.span,
                format!("{storage} scalar `{}` is {} by gpu map `{}`", c.name.text, verb(m.access), map.name.text),
            )
            .help(format!(
                "write a gpu scalar and copy it back: declare `gpu {0}_gpu: {1};`, write it in the map, then `copy {0}_gpu -> {0};`",
                c.name.text, c.elem
            ))
            .note("a gpu map may read a host scalar (it is passed by value) but not write it")
        } else {
            Diagnostic::error(
                m.span,
                format!("{storage} array `{}` is {} by gpu map `{}`", c.name.text, verb(m.access), map.name.text),
            )
            .help(format!(
                "copy it to a gpu container first: `copy {0} -> {0}_gpu;` (declare `gpu {0}_gpu: {1}{2};`), or run the map `on cpu`",
                c.name.text,
                c.elem,
                shape_text(sdfg, c)
            ))
            .note("a kernel never touches host arrays")
        };
        diags.push(d);
    }
}

fn wait(sdfg: &Sdfg, stmt: &Statement, w: &Wait, diags: &mut Diagnostics) {
    let c = &sdfg.containers[w.container];
    if sdfg.sync != SyncMode::Manual {
        diags.push(
            Diagnostic::error(stmt.span, "`wait` needs `#[sync(manual)]` on the sdfg")
                .help(format!(
                    "remove `wait {};` (with `#[sync(auto)]`, the default, the compiler inserts every wait), or add `#[sync(manual)]` before `sdfg {}`",
                    c.name.text, sdfg.name.text
                )),
        );
    }
    if c.storage == Storage::Gpu {
        diags.push(
            Diagnostic::error(
                stmt.memlets.first().map_or(stmt.span, |m| m.span),
                format!(
                    "`wait` takes a host container, `{}` is a gpu container",
                    c.name.text
                ),
            )
            .help(format!(
                "wait for the host copy: `copy {0} -> {0}_host; wait {0}_host;`",
                c.name.text
            ))
            .note("`wait` blocks the host until data copied from the GPU has arrived"),
        );
    }
}
