//! Block maps (see `ir::block`): the rules that need the whole body.
//!
//! - the block has 1 to 1024 threads (checked here when constant; the glue
//!   checks a size from symbols before any work), and its shared data fits
//!   a block;
//! - `shared` and `register` data start undefined in each block iteration:
//!   a read (or a reduction, which reads the old value) that no earlier
//!   statement of the iteration writes is an error;
//! - `register` data has a constant shape, and the thread maps that touch
//!   it share one iteration space over symbols and literals with at most
//!   one iteration per thread (so iteration `q` is always thread `q`);
//! - reductions into block data are numeric and not mixed with reads of
//!   the target in the same thread map;
//! - the iterations of a thread map do not conflict ([`races`]).
//!
//! Thread maps outside block maps, nested thread maps, `register` data in
//! block-level code and non-uniform conditions around thread maps are
//! decided by the names and the nesting, and reported by `lower::block`.

mod races;

use super::*;
use crate::diag::Diagnostic;
use crate::ir::linear::{constant_product, constant_value};
use crate::ir::MAX_BLOCK_THREADS;
use std::collections::HashSet;

/// Shared memory one block may use on sm_90 (227 KiB).
pub const MAX_SHARED_BYTES: u64 = 227 * 1024;

pub(super) fn check(sdfg: &Sdfg, diags: &mut Diagnostics) {
    for state in &sdfg.states {
        for stmt in &state.stmts {
            let StatementKind::Map(map) = &stmt.kind else {
                continue;
            };
            let Some(block) = &map.block else { continue };
            size(sdfg, map, block, diags);
            register_shapes(sdfg, block, diags);
            undefined_reads(sdfg, map, block, diags);
            register_spaces(sdfg, map, block, diags);
            for t in thread_maps(&map.body.stmts) {
                reductions(sdfg, map, t, diags);
                for d in races::thread_map_conflicts(sdfg, map, t) {
                    diags.push(d);
                }
            }
        }
    }
}

/// 1 to 1024 threads; at most [`MAX_SHARED_BYTES`] of shared data.
fn size(sdfg: &Sdfg, map: &Map, block: &Block, diags: &mut Diagnostics) {
    if let BlockSize::Given(dims) = &block.size {
        for d in dims {
            if constant_value(d).is_some_and(|v| v < 1) {
                diags.push(
                    Diagnostic::error(d.span, "a block dimension must be at least 1")
                        .help("give each dimension of the block at least one thread: `block(256)`"),
                );
                return;
            }
        }
    }
    if let Some(n) = block.constant_threads() {
        if n > MAX_BLOCK_THREADS {
            diags.push(
                Diagnostic::error(
                    block.span,
                    format!(
                        "block map `{}` has {n} threads per block; a block has at most {MAX_BLOCK_THREADS}",
                        map.name.text
                    ),
                )
                .help("use fewer threads per block (thread maps stride over the block when they have more iterations than threads): `block(256)`"),
            );
        }
    }
    let mut bytes = 0u64;
    for &c in &block.data {
        let k = &sdfg.containers[c];
        if k.storage != Storage::Shared {
            continue;
        }
        if let Some(len) = constant_product(&k.shape) {
            bytes = bytes.saturating_add(len.saturating_mul(k.elem.size_bytes() as u64));
        }
    }
    if bytes > MAX_SHARED_BYTES {
        diags.push(
            Diagnostic::error(
                block.span,
                format!(
                    "block map `{}` declares {bytes} bytes of shared data; a block has at most {MAX_SHARED_BYTES} (227 KiB)",
                    map.name.text
                ),
            )
            .help("use smaller tiles, or keep the data in a `gpu` container"),
        );
    }
}

/// Register data lives in registers or thread-local memory: a fixed size.
fn register_shapes(sdfg: &Sdfg, block: &Block, diags: &mut Diagnostics) {
    for &c in &block.data {
        let k = &sdfg.containers[c];
        if k.storage != Storage::Register {
            continue;
        }
        for d in &k.shape {
            if constant_value(d).is_none() {
                diags.push(
                    Diagnostic::error(
                        d.span,
                        format!("the shape of `register` data `{}` must be a constant", k.name.text),
                    )
                    .help("give register data a fixed size (`register acc: f32[8, 8];`); sizes from symbols belong to `shared` data"),
                );
            }
        }
    }
}

/// A read of block data that no earlier statement of the block iteration
/// (in program order) writes.
fn undefined_reads(sdfg: &Sdfg, map: &Map, block: &Block, diags: &mut Diagnostics) {
    let data: HashSet<ContainerId> = block.data.iter().copied().collect();
    let mut walk = Undefined {
        sdfg,
        map,
        data: &data,
        written: HashSet::new(),
        reported: HashSet::new(),
        diags,
    };
    walk.stmts(&map.body.stmts);
}

struct Undefined<'a> {
    sdfg: &'a Sdfg,
    map: &'a Map,
    data: &'a HashSet<ContainerId>,
    written: HashSet<ContainerId>,
    reported: HashSet<ContainerId>,
    diags: &'a mut Diagnostics,
}

impl Undefined<'_> {
    fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let { init, .. } | Stmt::AssignLocal { value: init, .. } => self.expr(init),
            Stmt::Store {
                container,
                index,
                value,
                wcr,
                span,
            } => {
                index.iter().for_each(|e| self.expr(e));
                self.expr(value);
                if wcr.is_some() {
                    self.read(*container, *span, true);
                }
                self.written.insert(*container);
            }
            Stmt::If {
                cond, then, else_, ..
            } => {
                self.expr(cond);
                self.stmts(then);
                self.stmts(else_);
            }
            Stmt::For {
                start,
                end,
                step,
                body,
                ..
            } => {
                self.expr(start);
                self.expr(end);
                if let Some(s) = step {
                    self.expr(s);
                }
                self.stmts(body);
            }
            Stmt::While { cond, body, .. } => {
                self.expr(cond);
                self.stmts(body);
            }
            Stmt::Break { .. } | Stmt::Continue { .. } => {}
            Stmt::ThreadMap(t) => {
                for p in &t.params {
                    self.expr(&p.start);
                    self.expr(&p.end);
                }
                self.stmts(&t.body);
            }
            Stmt::Barrier(_) => {}
        }
    }

    fn expr(&mut self, e: &Expr) {
        let mut reads = Vec::new();
        e.walk(&mut |x| {
            if let ExprKind::Load { container, .. } = &x.kind {
                reads.push((*container, x.span));
            }
        });
        for (c, span) in reads {
            self.read(c, span, false);
        }
    }

    fn read(&mut self, c: ContainerId, span: proc_macro2::Span, reduction: bool) {
        if !self.data.contains(&c) || self.written.contains(&c) || !self.reported.insert(c) {
            return;
        }
        let k = &self.sdfg.containers[c];
        let name = &k.name.text;
        let what = if reduction {
            format!(
                "`{name}` is reduced into before anything writes it in block map `{}`",
                self.map.name.text
            )
        } else {
            format!(
                "`{name}` is read before anything writes it in block map `{}`",
                self.map.name.text
            )
        };
        let init = if k.shape.is_empty() {
            format!("`{name} = ...;`")
        } else {
            format!("`{name}[...] = ...;`")
        };
        self.diags.push(
            Diagnostic::error(span, what)
                .help(format!("initialize it first: {init}"))
                .note(format!(
                    "`{}` data starts undefined in each iteration of the block map{}",
                    k.storage.keyword(),
                    if reduction {
                        "; a reduction reads the old value"
                    } else {
                        ""
                    }
                )),
        );
    }
}

/// The thread maps touching each register container share one iteration
/// space over symbols and literals, of at most one iteration per thread.
fn register_spaces(sdfg: &Sdfg, map: &Map, block: &Block, diags: &mut Diagnostics) {
    let threads = block.constant_threads();
    for &c in &block.data {
        let k = &sdfg.containers[c];
        if k.storage != Storage::Register {
            continue;
        }
        let users: Vec<&ThreadMap> = thread_maps(&map.body.stmts)
            .into_iter()
            .filter(|t| touches(t, c))
            .collect();
        let Some(first) = users.first() else { continue };
        for t in &users {
            let symbolic = t.params.iter().all(|p| {
                crate::ir::bounds::reads_only_symbols(&p.start)
                    && crate::ir::bounds::reads_only_symbols(&p.end)
                    && p.step
                        .as_ref()
                        .is_none_or(crate::ir::bounds::reads_only_symbols)
            });
            if !symbolic {
                diags.push(
                    Diagnostic::error(
                        t.span,
                        format!(
                            "thread map `{}` uses `register` data `{}`, so its ranges may use only symbols and literals",
                            t.name.text, k.name.text
                        ),
                    )
                    .help("give it a fixed iteration space (`map t[i in 0..16, j in 0..16] on threads`), and compute positions from the block's parameters inside it")
                    .note("iteration q of such a thread map runs on thread q, which holds the q-th copy of the register data: the iteration space must be known before the launch"),
                );
                continue;
            }
            if !same_space(first, t) {
                diags.push(
                    Diagnostic::error(
                        t.span,
                        format!(
                            "thread maps `{}` and `{}` both use `register` data `{}` but have different iteration spaces",
                            first.name.text, t.name.text, k.name.text
                        ),
                    )
                    .help(format!("give `{}` the ranges of `{}`", t.name.text, first.name.text))
                    .note("iteration q of each runs on thread q, which holds the q-th copy of the register data"),
                );
                continue;
            }
            let count = t.params.iter().try_fold(1i128, |a, p| {
                let (s, e) = (constant_value(&p.start)?, constant_value(&p.end)?);
                let st = p.step.as_ref().map_or(Some(1), constant_value)?;
                let n = if e > s && st > 0 {
                    (e - s + st - 1) / st
                } else {
                    0
                };
                a.checked_mul(n)
            });
            if let (Some(n), Some(b)) = (count, threads) {
                if n > b as i128 {
                    diags.push(
                        Diagnostic::error(
                            t.span,
                            format!(
                                "thread map `{}` has {n} iterations but block map `{}` has {b} threads; it uses `register` data `{}`, which needs one thread per iteration",
                                t.name.text, map.name.text, k.name.text
                            ),
                        )
                        .help(format!("use at least {n} threads per block (`block({n})`), or give each iteration more work (a larger `register` array and fewer iterations)"))
                        .note("iteration q of a thread map runs on thread q mod B: with more iterations than threads, one thread's registers would hold several iterations' copies"),
                    );
                }
            }
        }
    }
}

fn same_space(a: &ThreadMap, b: &ThreadMap) -> bool {
    // Equal constants, or the same expression (the types of literal ranges
    // follow each thread map's uses).
    let key = |e: &Expr| match constant_value(e) {
        Some(v) => v.to_string(),
        None => e.key(),
    };
    a.params.len() == b.params.len()
        && a.params.iter().zip(&b.params).all(|(p, q)| {
            key(&p.start) == key(&q.start)
                && key(&p.end) == key(&q.end)
                && p.step.as_ref().map(key) == q.step.as_ref().map(key)
        })
}

fn touches(t: &ThreadMap, c: ContainerId) -> bool {
    let mut found = false;
    for s in &t.body {
        s.walk(&mut |x| {
            if matches!(x, Stmt::Store { container, .. } if *container == c) {
                found = true;
            }
        });
        s.walk_exprs(&mut |e| {
            if matches!(&e.kind, ExprKind::Load { container, .. } if *container == c) {
                found = true;
            }
        });
    }
    found
}

/// Reductions in a thread map into `shared` data: numeric, not read by the
/// same thread map, one operator per element. (Reductions into `gpu` data
/// are the statement's memlets, checked by `conflicts`.)
fn reductions(sdfg: &Sdfg, map: &Map, t: &ThreadMap, diags: &mut Diagnostics) {
    let _ = map;
    let mut seen: Vec<(ContainerId, String, WcrOp)> = Vec::new();
    let mut reported: HashSet<ContainerId> = HashSet::new();
    let mut stores = Vec::new();
    for s in &t.body {
        s.walk(&mut |x| {
            if let Stmt::Store {
                container,
                index,
                wcr: Some(op),
                span,
                ..
            } = x
            {
                stores.push((*container, index.as_slice(), *op, *span));
            }
        });
    }
    let mut reads: Vec<(ContainerId, proc_macro2::Span)> = Vec::new();
    for s in &t.body {
        s.walk_exprs(&mut |e| {
            if let ExprKind::Load { container, .. } = &e.kind {
                reads.push((*container, e.span));
            }
        });
    }
    for (c, index, op, span) in stores {
        let k = &sdfg.containers[c];
        if !k.storage.is_block_local() || k.storage == Storage::Register {
            continue;
        }
        if !k.elem.is_numeric() {
            if reported.insert(c) {
                diags.push(
                    Diagnostic::error(
                        span,
                        format!(
                            "the {} reduction needs a numeric container, `{}` holds `{}`",
                            op.name(),
                            k.name.text,
                            k.elem
                        ),
                    )
                    .help("store a plain value, or reduce into an integer container (e.g. `u32`)"),
                );
            }
            continue;
        }
        if let Some((_, read_span)) = reads.iter().find(|(r, _)| *r == c) {
            if reported.insert(c) {
                diags.push(
                    Diagnostic::error(
                        *read_span,
                        format!(
                            "`{}` is read by thread map `{}`, which also reduces into it",
                            k.name.text, t.name.text
                        ),
                    )
                    .help("the reduced value is not known while the thread map runs: read it in a later thread map (the compiler places the barrier)")
                    .note(format!("`{}` is reduced ({}) here", k.name.text, op.name())),
                );
            }
            continue;
        }
        let key = index.iter().map(Expr::key).collect::<Vec<_>>().join(",");
        match seen.iter().find(|(sc, sk, _)| *sc == c && *sk == key) {
            Some((_, _, other)) if *other != op => {
                if reported.insert(c) {
                    diags.push(
                        Diagnostic::error(
                            span,
                            format!(
                                "thread map `{}` reduces into `{}` with two operators ({} and {})",
                                t.name.text,
                                k.name.text,
                                other.name(),
                                op.name()
                            ),
                        )
                        .help("use one reduction per element and thread map; combine the results in a later phase"),
                    );
                }
            }
            Some(_) => {}
            None => seen.push((c, key, op)),
        }
    }
}
