//! Block maps: `map NAME[...] on gpu block(...) { ... }` with `shared` and
//! `register` data, block-level code and thread maps (see `ir::block`), and
//! GPU tasklets. Also the errors for block syntax where it does not belong.
//!
//! What is checked here is what the names and the nesting decide: block
//! data is visible only inside its block map; block-level code cannot use
//! `register` data (which thread's copy?) and its locals are immutable
//! (every thread computes them); thread maps do not nest; declarations come
//! first; a thread map under a condition that differs between threads is
//! rejected. Dataflow rules (read before write, the iteration spaces of
//! register data, races) are `validate::block`'s.

use super::typing::{mention, source_text, BlockScope, Resolved, Scope, ScopeKind};
use super::*;
use crate::ir::barriers;
use crate::parse::{BlockDataKind, BlockForAst, BlockIfAst, BlockItemAst, MapAst, ThreadMapAst};
use syn::spanned::Spanned;

/// Where block items are lowered.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    /// The block map's body, or an `if`/`for` of it: block-level code.
    Block,
    /// A thread map's body: a tasklet body.
    Thread,
}

impl<'a> Lowerer<'a> {
    /// The `shared` and `register` containers of every body that declares
    /// any (block maps, and bodies where they are misplaced: declaring them
    /// anyway keeps later uses from piling up "unknown" errors).
    pub(super) fn declare_block_data(&mut self, taken: &HashMap<String, &'static str>) {
        let ast = self.ast;
        for item in &ast.items {
            let Item::State(state) = item else { continue };
            for st in &state.stmts {
                let (owner, items) = match st {
                    StmtAst::Map(m) => (&m.name, m.block_body.as_ref()),
                    StmtAst::Tasklet(t) => (&t.name, t.block_body.as_ref()),
                    _ => continue,
                };
                let Some(items) = items else { continue };
                let mut decls = Vec::new();
                collect_decls(items, &mut decls);
                let mut ids: Vec<ContainerId> = Vec::new();
                for d in decls {
                    let text = d.name.to_string();
                    if let Some(kind) = taken.get(&text) {
                        self.error(
                            Diagnostic::error(
                                d.name.span(),
                                format!("`{text}` has the name of a {kind}"),
                            )
                            .help(format!("rename the `{}` data", d.kind.keyword()))
                            .note(format!("inside the block map `{text}` would be ambiguous")),
                        );
                        // Declared anyway: inside the block map the name
                        // means this data, without follow-up errors.
                    }
                    if ids.iter().any(|&c| self.containers[c].name.text == text) {
                        self.error(
                            Diagnostic::error(
                                d.name.span(),
                                format!("the name `{text}` is declared twice"),
                            )
                            .help(format!("rename this `{}` data", d.kind.keyword())),
                        );
                        continue;
                    }
                    let id = self.containers.len();
                    self.containers.push(Container {
                        name: name_of(&d.name),
                        elem: d.elem.ty,
                        shape: Vec::new(),
                        storage: match d.kind {
                            BlockDataKind::Shared => Storage::Shared,
                            BlockDataKind::Register => Storage::Register,
                        },
                        transient: true,
                    });
                    self.block_owner.insert(id, owner.to_string());
                    ids.push(id);
                }
                self.block_data.insert(items.as_ptr() as usize, ids);
            }
        }
    }

    /// A block map (or a flat body that uses block syntax, an error).
    pub(super) fn lower_block_map(
        &mut self,
        m: &MapAst,
        items: &[BlockItemAst],
        params: Vec<MapParam>,
        param_types: &[(String, ScalarType)],
        ok: bool,
    ) -> Option<Statement> {
        let Some(spec) = &m.block else {
            let what = if m.gpu_tasklet {
                format!("gpu tasklet `{}`", m.name)
            } else {
                format!("`{}` map `{}`", m.schedule.keyword(), m.name)
            };
            let gpu_map = m.schedule == MapSchedule::Gpu && !m.gpu_tasklet;
            self.block_syntax_misplaced(items, &what, gpu_map.then_some(&m.name));
            return None;
        };
        if m.schedule != MapSchedule::Gpu {
            self.not_on_gpu(m, spec.span);
            return None;
        }
        let size = match &spec.dims {
            None => BlockSize::Auto,
            Some(dims) => {
                let mut out = Vec::new();
                for d in dims {
                    let mut scope = Scope::new(ScopeKind::BlockSize);
                    if let Some(e) = self.integer_expr(&mut scope, d, "a block dimension") {
                        out.push(e);
                    }
                }
                BlockSize::Given(out)
            }
        };
        let data = self
            .block_data
            .get(&(items.as_ptr() as usize))
            .cloned()
            .unwrap_or_default();
        self.block_data_shapes(items, &data);
        let block_scope = BlockScope {
            data: data.clone(),
            ..BlockScope::default()
        };
        let (stmts, scope) = self.body_with(
            || {
                let mut scope = Scope::new(ScopeKind::Body);
                scope.params = param_types.to_vec();
                scope.block = Some(block_scope.clone());
                scope
            },
            &mut |cx, sc| cx.block_items(sc, items, Level::Block, true),
        );
        if !ok {
            return None;
        }
        let single_warp = Block {
            size: size.clone(),
            data: Vec::new(),
            span: spec.span,
        }
        .single_warp();
        let stmts = if self.inferring {
            stmts
        } else {
            barriers::place(
                &stmts,
                &self.containers,
                &scope.locals,
                &m.name.to_string(),
                single_warp,
            )
        };
        let body = TaskletBody {
            stmts,
            locals: scope.locals,
        };
        let memlets = memlets::body_memlets(&self.containers, &body);
        let independent = m
            .independent
            .iter()
            .filter_map(|name| Some((self.container_name(name)?, name.span())))
            .collect();
        Some(Statement {
            kind: StatementKind::Map(Map {
                name: name_of(&m.name),
                params,
                schedule: m.schedule,
                body,
                block: Some(Block {
                    size,
                    data,
                    span: spec.span,
                }),
                gpu_tasklet: false,
                library: None,
                independent,
            }),
            memlets,
            span: m.name.span(),
        })
    }

    /// Shapes of the block data: constants or symbol expressions.
    fn block_data_shapes(&mut self, items: &[BlockItemAst], data: &[ContainerId]) {
        let mut decls = Vec::new();
        collect_decls(items, &mut decls);
        for d in decls {
            let Some(&id) = data
                .iter()
                .find(|&&c| d.name == self.containers[c].name.text)
            else {
                continue;
            };
            let mut shape = Vec::new();
            for dim in &d.shape {
                let mut scope = Scope::new(ScopeKind::Shape);
                if let Some(e) = self.integer_expr(&mut scope, dim, "a dimension") {
                    shape.push(e);
                }
            }
            self.containers[id].shape = shape;
        }
    }

    /// `block(...)` on a `cpu` or `seq` map.
    pub(super) fn not_on_gpu(&mut self, m: &MapAst, span: Span) {
        self.error(
            Diagnostic::error(
                span,
                format!(
                    "only `gpu` maps run on thread blocks; `{}` is a `{}` map",
                    m.name,
                    m.schedule.keyword()
                ),
            )
            .help(format!(
                "write `on gpu block(...)`, or remove the block from `{}`",
                m.name
            )),
        );
    }

    /// Thread maps and block data in a body that is not a block map's:
    /// one error per misplaced construct. `flat_gpu_map`: the body is a
    /// flat `gpu` map, which `block(...)` would make a block map.
    pub(super) fn block_syntax_misplaced(
        &mut self,
        items: &[BlockItemAst],
        what: &str,
        flat_gpu_map: Option<&proc_macro2::Ident>,
    ) {
        let help = match flat_gpu_map {
            Some(name) => format!(
                "make `{name}` a block map: write `on gpu block(256)` in its header"
            ),
            None => "thread maps and `shared`/`register` data belong to block maps: `map rows[r in 0..R] on gpu block(256) { ... }`".to_string(),
        };
        let mut found = Vec::new();
        misplaced(items, &mut found);
        for (span, message) in found {
            self.error(
                Diagnostic::error(span, format!("{message}, not in {what}"))
                    .help(help.clone())
                    .note("a block map runs each of its iterations on one thread block; its thread maps spread work over the block's threads"),
            );
        }
    }

    /// Block items at one level; `top`: the block map's own body, where
    /// declarations come first.
    fn block_items(
        &mut self,
        sc: &mut Scope,
        items: &[BlockItemAst],
        level: Level,
        top: bool,
    ) -> Vec<Stmt> {
        let mark = sc.visible.len();
        let mut out = Vec::new();
        let mut statements_seen = false;
        for item in items {
            match item {
                BlockItemAst::Decl(d) => {
                    let kw = d.kind.keyword();
                    let (message, help) = match level {
                        Level::Thread => (
                            format!("`{kw}` data is declared by the block map, not inside thread map"),
                            format!("move `{kw} {}: ...;` to the start of the block map's body", d.name),
                        ),
                        Level::Block if !top => (
                            format!("`{kw}` data is declared at the start of the block map, not inside an `if` or `for`"),
                            format!("move `{kw} {}: ...;` to the start of the block map's body", d.name),
                        ),
                        Level::Block if statements_seen => (
                            format!("declare `{kw}` data before the block map's statements"),
                            format!("move `{kw} {}: ...;` before the first statement", d.name),
                        ),
                        Level::Block => continue,
                    };
                    self.error(Diagnostic::error(d.span, message).help(help));
                }
                BlockItemAst::Rust(s) => {
                    statements_seen = true;
                    if level == Level::Block {
                        self.block_level_rust(sc, s, &mut out);
                    } else {
                        self.stmt(sc, s, &mut out);
                    }
                }
                BlockItemAst::If(i) => {
                    statements_seen = true;
                    self.block_if(sc, i, level, &mut out);
                }
                BlockItemAst::For(f) => {
                    statements_seen = true;
                    self.block_for(sc, f, level, &mut out);
                }
                BlockItemAst::ThreadMap(t) => {
                    statements_seen = true;
                    if level == Level::Thread {
                        let outer = sc
                            .block
                            .as_ref()
                            .and_then(|b| b.thread_map.clone())
                            .unwrap_or_default();
                        self.error(
                            Diagnostic::error(
                                t.name.span(),
                                format!("thread map `{}` is inside thread map `{outer}`: thread maps do not nest", t.name),
                            )
                            .help(format!(
                                "give `{outer}` more dimensions (`map {outer}[i in .., j in ..] on threads`), or move `{}` next to it",
                                t.name
                            ))
                            .note("a thread map spreads its iterations over the block's threads; inside one, each thread runs one iteration"),
                        );
                        continue;
                    }
                    self.thread_map(sc, t, &mut out);
                }
            }
        }
        sc.visible.truncate(mark);
        out
    }

    /// A Rust statement at block level: every thread runs it (a `let`), or
    /// thread 0 does (a store).
    fn block_level_rust(&mut self, sc: &mut Scope, s: &syn::Stmt, out: &mut Vec<Stmt>) {
        // A block-level loop holds barriers when it holds thread maps, and
        // every thread must reach them: only counted `for` loops, whose
        // bounds the block agrees on, are block-level loops.
        if let syn::Stmt::Expr(e, _) = s {
            let word = match e {
                syn::Expr::While(_) => Some("while"),
                syn::Expr::Loop(_) => Some("loop"),
                syn::Expr::Break(_) => Some("break"),
                syn::Expr::Continue(_) => Some("continue"),
                _ => None,
            };
            if let Some(word) = word {
                self.error(
                    Diagnostic::error(syn::spanned::Spanned::span(e), format!("`{word}` at block level of a block map"))
                        .help("use a counted `for` loop at block level, or put the loop inside a thread map (`map t[...] on threads { ... }`)")
                        .note("every thread of the block must reach the same barriers; a block-level loop is a `for` whose bounds the block agrees on"),
                );
                return;
            }
        }
        if let syn::Stmt::Local(l) = s {
            let mutable = match &l.pat {
                syn::Pat::Ident(pi) => pi
                    .mutability
                    .as_ref()
                    .map(|m| (m.span, pi.ident.to_string())),
                syn::Pat::Type(t) => match &*t.pat {
                    syn::Pat::Ident(pi) => pi
                        .mutability
                        .as_ref()
                        .map(|m| (m.span, pi.ident.to_string())),
                    _ => None,
                },
                _ => None,
            };
            if let Some((span, name)) = mutable {
                self.error(
                    Diagnostic::error(span, format!("block-level local `{name}` cannot be `mut`"))
                        .help(format!("remove `mut`; for a value the block updates, declare `shared {name}: T;` and store to it"))
                        .note("every thread of the block computes a block-level `let`, so it must stay the same for all of them"),
                );
            }
        }
        self.stmt(sc, s, out);
    }

    /// `if` at either level. At block level the condition must be the same
    /// for every thread when the branches hold a thread map (they need
    /// every thread at their barriers).
    fn block_if(&mut self, sc: &mut Scope, i: &BlockIfAst, level: Level, out: &mut Vec<Stmt>) {
        let quiet = level == Level::Block
            && self.nonuniform_around_thread_maps(sc, &i.cond, &[&i.then, &i.else_], "condition");
        let cond = self.with_quiet_registers(sc, quiet, |cx, sc| {
            cx.expr(sc, &i.cond, Some(ScalarType::Bool))
        });
        let prelude = std::mem::take(&mut sc.prelude);
        let then = self.block_items(sc, &i.then, level, false);
        let else_ = self.block_items(sc, &i.else_, level, false);
        if let Some(cond) = cond {
            out.extend(prelude);
            out.push(Stmt::If {
                cond,
                then,
                else_,
                span: i.span,
            });
        }
    }

    /// `for` at either level.
    fn block_for(&mut self, sc: &mut Scope, f: &BlockForAst, level: Level, out: &mut Vec<Stmt>) {
        let name = match &f.pat {
            syn::Pat::Ident(pi)
                if pi.by_ref.is_none() && pi.subpat.is_none() && pi.mutability.is_none() =>
            {
                Some(pi.ident.clone())
            }
            other => {
                self.error(
                    Diagnostic::error(other.span(), "expected a loop variable: `for k in a..b`")
                        .help("the loop variable is a plain name (it cannot be `mut`)"),
                );
                None
            }
        };
        let quiet = level == Level::Block
            && self.nonuniform_around_thread_maps(sc, &f.range, &[&f.body], "range");
        let key = f as *const BlockForAst as usize;
        let (range, open) =
            self.with_quiet_registers(sc, quiet, |cx, sc| cx.loop_range(sc, &f.range, key));
        let prelude = std::mem::take(&mut sc.prelude);
        let mark = sc.visible.len();
        let var = name.as_ref().map(|n| {
            let local = Local {
                name: n.to_string(),
                ty: range.as_ref().map_or(ScalarType::I32, |r| r.ty),
                mutable: false,
                span: n.span(),
            };
            sc.declare_local(local, true, range.is_none(), open)
        });
        let body = self.block_items(sc, &f.body, level, false);
        sc.visible.truncate(mark);
        let (Some(var), Some(range)) = (var, range) else {
            return;
        };
        out.extend(prelude);
        out.push(Stmt::For {
            var,
            start: range.start,
            end: range.end,
            inclusive: range.inclusive,
            step: range.step,
            body,
            span: f.span,
        });
    }

    /// `map NAME[p in RANGE, ...] on threads { BODY }` at block level.
    fn thread_map(&mut self, sc: &mut Scope, t: &ThreadMapAst, out: &mut Vec<Stmt>) {
        let name = t.name.to_string();
        if let Some(b) = sc.block.as_mut() {
            if b.thread_map_names.contains(&name) {
                self.error(
                    Diagnostic::error(
                        t.name.span(),
                        format!("the block map has two thread maps named `{name}`"),
                    )
                    .help("give each thread map of a block map its own name"),
                );
            } else {
                b.thread_map_names.push(name.clone());
            }
        }
        let mut ranges = Vec::new();
        let mut ok = true;
        let mut names: Vec<String> = Vec::new();
        for p in &t.params {
            let text = p.name.to_string();
            if names.contains(&text) {
                self.error(
                    Diagnostic::error(
                        p.name.span(),
                        format!("map parameter `{text}` is declared twice"),
                    )
                    .help("give each dimension of the map its own parameter"),
                );
                ok = false;
                continue;
            }
            names.push(text.clone());
            if let Some(kind) = self.global_kind(&text) {
                self.error(
                    Diagnostic::error(
                        p.name.span(),
                        format!("map parameter `{text}` has the name of a {kind}"),
                    )
                    .help(format!(
                        "rename the parameter; inside the map `{text}` would be ambiguous"
                    )),
                );
                ok = false;
            }
            // The iterations are numbered over one box before they are
            // spread over the threads: no range may read a parameter.
            // (A name the block level also has means that one.)
            let earlier = names.iter().find_map(|n| {
                let at = mention(&p.range, n)?;
                matches!(self.resolve(sc, n), Resolved::Unknown).then_some((n, at))
            });
            if let Some((earlier, at)) = earlier {
                self.error(
                    Diagnostic::error(
                        at,
                        format!(
                            "the range of `{text}` reads `{earlier}`, a parameter of the same thread map `{name}`"
                        ),
                    )
                    .note("a thread map's ranges are block-level values: its iterations are numbered over one box, then spread over the block's threads")
                    .help(format!(
                        "give `{text}` a range of block-level values and skip the iterations outside (`if ... {{ ... }}` in the body), or loop over it inside the body (`for {text} in ... {{ ... }}`)"
                    )),
                );
                ok = false;
                // Lowered once the earlier parameters are declared, so the
                // body sees `text` (one mistake, one error).
                ranges.push((p, None));
                continue;
            }
            let key = p as *const crate::parse::MapParamAst as usize;
            match self.loop_range(sc, &p.range, key) {
                (Some(r), open) => ranges.push((p, Some((r, open)))),
                (None, _) => ok = false,
            }
        }
        let prelude = std::mem::take(&mut sc.prelude);
        let mark = sc.visible.len();
        let mut params = Vec::new();
        for (p, lowered) in ranges {
            let key = p as *const crate::parse::MapParamAst as usize;
            let Some((r, open)) = lowered.or_else(|| match self.loop_range(sc, &p.range, key) {
                (Some(r), open) => Some((r, open)),
                (None, _) => None,
            }) else {
                continue;
            };
            let local = Local {
                name: p.name.to_string(),
                ty: r.ty,
                mutable: false,
                span: p.name.span(),
            };
            let id = sc.declare_local(local, true, false, open);
            params.push(ThreadParam {
                local: id,
                start: r.start,
                end: r.end,
                inclusive: r.inclusive,
                step: r.step,
            });
        }
        let outer = sc.block.as_mut().map(|b| {
            let was = b.thread_map.replace(name.clone());
            (std::mem::replace(&mut b.in_thread_map, true), was)
        });
        let body = self.block_items(sc, &t.body, Level::Thread, false);
        if let (Some(b), Some((was_in, was_name))) = (sc.block.as_mut(), outer) {
            b.in_thread_map = was_in;
            b.thread_map = was_name;
        }
        sc.visible.truncate(mark);
        if !ok {
            return;
        }
        out.extend(prelude);
        out.push(Stmt::ThreadMap(ThreadMap {
            name: name_of(&t.name),
            params,
            body,
            span: t.name.span(),
        }));
    }

    /// A block-level `if` condition or `for` range that reads `register`
    /// data around thread maps: reports each thread map (the barriers there
    /// need every thread) and returns true, so the register read itself is
    /// not reported a second time.
    fn nonuniform_around_thread_maps(
        &mut self,
        sc: &Scope,
        e: &syn::Expr,
        bodies: &[&[BlockItemAst]],
        what: &str,
    ) -> bool {
        let Some(register) = self.register_named_in(sc, e) else {
            return false;
        };
        let mut inner = Vec::new();
        for b in bodies {
            thread_maps_in(b, &mut inner);
        }
        if inner.is_empty() {
            return false;
        }
        let text = source_text(e);
        for t in inner {
            self.error(
                Diagnostic::error(
                    t.name.span(),
                    format!("thread map `{}` is under a {what} that is not the same for every thread of the block", t.name),
                )
                .note(format!("the {what} `{text}` reads `{register}`, which is `register` data: each thread has its own copy"))
                .help("compute the condition from block-level values (symbols, block parameters, block-level `let`s, `shared` data), or move the test into the thread map")
                .note("a thread map ends at a barrier that every thread of the block must reach"),
            );
        }
        true
    }

    /// The first `register` container of the block map that `e` names.
    fn register_named_in(&self, sc: &Scope, e: &syn::Expr) -> Option<String> {
        let b = sc.block.as_ref()?;
        let mut found = None;
        let tokens = quote::ToTokens::to_token_stream(e);
        visit_idents(tokens, &mut |w| {
            if found.is_none() {
                let hit = b.data.iter().find(|&&c| {
                    self.containers[c].name.text == w
                        && self.containers[c].storage == Storage::Register
                });
                if hit.is_some() {
                    found = Some(w.to_string());
                }
            }
        });
        found
    }

    fn with_quiet_registers<T>(
        &mut self,
        sc: &mut Scope,
        quiet: bool,
        f: impl FnOnce(&mut Self, &mut Scope) -> T,
    ) -> T {
        let was = sc.block.as_ref().is_some_and(|b| b.quiet_registers);
        if let Some(b) = sc.block.as_mut() {
            b.quiet_registers = quiet;
        }
        let out = f(self, sc);
        if let Some(b) = sc.block.as_mut() {
            b.quiet_registers = was;
        }
        out
    }

    /// Whether the container `ident` names may be used here: `register`
    /// data only inside thread maps (block-level code runs on every thread:
    /// which thread's copy would it see?).
    pub(crate) fn block_data_allowed(&mut self, sc: &Scope, ident: &proc_macro2::Ident) -> bool {
        let Some(b) = &sc.block else { return true };
        let name = ident.to_string();
        let Resolved::Container(c) = self.resolve(sc, &name) else {
            return true;
        };
        if self.containers[c].storage != Storage::Register || b.in_thread_map {
            return true;
        }
        if !b.quiet_registers {
            self.error(
                Diagnostic::error(
                    ident.span(),
                    format!("`{name}` is `register` data: block-level code cannot use it"),
                )
                .help(format!(
                    "use `{name}` inside a thread map (`map t[...] on threads {{ ... }}`), or keep a value for the whole block in `shared` data"
                ))
                .note("each thread-map iteration has its own copy of register data; block-level code runs on every thread of the block, so which copy would it see?"),
            );
        }
        false
    }
}

/// Every declaration in `items`, at any depth.
fn collect_decls<'i>(items: &'i [BlockItemAst], out: &mut Vec<&'i crate::parse::BlockDeclAst>) {
    for item in items {
        match item {
            BlockItemAst::Decl(d) => out.push(d),
            BlockItemAst::If(i) => {
                collect_decls(&i.then, out);
                collect_decls(&i.else_, out);
            }
            BlockItemAst::For(f) => collect_decls(&f.body, out),
            BlockItemAst::ThreadMap(t) => collect_decls(&t.body, out),
            BlockItemAst::Rust(_) => {}
        }
    }
}

/// Thread maps and declarations (span, what it is) at any depth.
fn misplaced(items: &[BlockItemAst], out: &mut Vec<(Span, String)>) {
    for item in items {
        match item {
            BlockItemAst::Decl(d) => out.push((
                d.span,
                format!("`{}` data belongs to a block map", d.kind.keyword()),
            )),
            BlockItemAst::ThreadMap(t) => {
                out.push((
                    t.name.span(),
                    format!("thread map `{}` belongs in a block map", t.name),
                ));
            }
            BlockItemAst::If(i) => {
                misplaced(&i.then, out);
                misplaced(&i.else_, out);
            }
            BlockItemAst::For(f) => misplaced(&f.body, out),
            BlockItemAst::Rust(_) => {}
        }
    }
}

fn thread_maps_in<'i>(items: &'i [BlockItemAst], out: &mut Vec<&'i ThreadMapAst>) {
    for item in items {
        match item {
            BlockItemAst::ThreadMap(t) => out.push(t),
            BlockItemAst::If(i) => {
                thread_maps_in(&i.then, out);
                thread_maps_in(&i.else_, out);
            }
            BlockItemAst::For(f) => thread_maps_in(&f.body, out),
            _ => {}
        }
    }
}

fn visit_idents(tokens: proc_macro2::TokenStream, f: &mut dyn FnMut(&str)) {
    for tt in tokens {
        match tt {
            proc_macro2::TokenTree::Ident(i) => f(&i.to_string()),
            proc_macro2::TokenTree::Group(g) => visit_idents(g.stream(), f),
            _ => {}
        }
    }
}
