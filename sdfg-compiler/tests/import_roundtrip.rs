//! Round trip: every SDFG our exporter writes reads back to the same IR.
//!
//! The programs are all the SDFGs of the project: the `sdfg! { ... }`
//! invocations of the examples and tests (`macro_rules!` templates filled
//! in), the test programs kept as source text (raw and plain strings with an
//! `sdfg NAME { ... }`), and the accepted programs of docs/GUIDE.md. Each is lowered, exported with
//! `export::dace::to_sdfg_json_string`, translated back with
//! `import::translate` and lowered again; the two IRs must be equal as
//! structures, spans ignored, ids compared by the names they refer to (the
//! `.sdfg` format keeps containers and symbols by name, sorted).
//!
//! What DaCe has no place for is left out of the comparison, as the GUIDE
//! documents: `wait` statements and `#[sync(manual)]` (DaCe synchronizes by
//! itself; an included SDFG is always `#[sync(auto)]`), the stream policy
//! and the docs and visibility (given by the `include` invocation). Two
//! spellings the format cannot tell apart compare equal: an inclusive map
//! range `a..=N - 1` reads back as `a..N` (DaCe's ranges are inclusive), and
//! integer casts in indices that memlets carry read back without the cast
//! (DaCe's subsets are untyped SymPy expressions).

use sdfg_compiler::export::dace::to_sdfg_json_string;
use sdfg_compiler::ir::*;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// The repository root: where this crate was built, or the working directory
/// (the packed GPU run starts the test binaries from a copy of the checkout).
fn root() -> PathBuf {
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    if built.join("docs/GUIDE.md").is_file() {
        built
    } else {
        PathBuf::from(".")
    }
}

/// The text inside each balanced `{ ... }` that follows `start` in `code`.
fn bodies_after<'a>(code: &'a str, start: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find(start) {
        let open = from + at + start.len();
        let mut depth = 1usize;
        let mut end = None;
        for (i, c) in code[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(open + i);
                        break;
                    }
                }
                _ => {}
            }
        }
        match end {
            Some(e) => {
                out.push(&code[open..e]);
                from = e;
            }
            None => break,
        }
    }
    out
}

/// Plain string literals `"sdfg NAME { ... }"` of `code` (not format
/// strings), with Rust's `\` line continuations and escapes applied.
fn plain_strings(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("\"sdfg ") {
        let start = from + at + 1;
        let mut text = String::new();
        let mut chars = code[start..].char_indices();
        let mut end = None;
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    end = Some(start + i);
                    break;
                }
                '\\' => match chars.next() {
                    Some((_, '\n')) => {
                        // A continuation: the newline and the next line's indentation go.
                        let rest = &code[start + i + 2..];
                        let skip = rest.len() - rest.trim_start().len();
                        for _ in 0..skip {
                            chars.next();
                        }
                    }
                    Some((_, 'n')) => text.push('\n'),
                    Some((_, other)) => text.push(other),
                    None => break,
                },
                other => text.push(other),
            }
        }
        let Some(end) = end else { break };
        if !text.contains("{{") {
            out.push(text);
        }
        from = end + 1;
    }
    out
}

/// A `macro_rules!` template's body with its metavariables filled in
/// (`$($policy)*` -> `auto`, `$name` -> `name`).
fn instantiate(body: &str) -> String {
    let mut out = body.replace("$($policy)*", "auto");
    while let Some(at) = out.find('$') {
        out.remove(at);
    }
    out
}

/// Raw strings `r#"..."#` of `code` that hold an sdfg.
fn raw_strings(code: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("r#\"") {
        let open = from + at + 3;
        let Some(len) = code[open..].find("\"#") else {
            break;
        };
        let text = &code[open..open + len];
        if text.contains("sdfg ") && text.contains('{') {
            out.push(text);
        }
        from = open + len + 2;
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every program of the project the front end accepts: (origin, source).
fn programs() -> Vec<(String, String)> {
    let mut files = Vec::new();
    for dir in [
        "examples",
        "tests",
        "sdfg-compiler/tests",
        "sdfg-compiler/src",
    ] {
        rust_files(&root().join(dir), &mut files);
    }
    files.sort();
    let mut out = Vec::new();
    for f in files {
        if f.components().any(|c| c.as_os_str() == "ui") {
            continue; // compile-fail cases
        }
        if f.components().any(|c| c.as_os_str() == "cpu_differential") {
            // The random programs take a round trip of their own, compared
            // by value (tests/cpu_differential.rs): their one-element
            // ranges come back as indices (DaCe writes both alike), the
            // same elements in another IR.
            continue;
        }
        if f.components().any(|c| c.as_os_str() == "deep_expressions") {
            // 2,000-term sums: past the importer's nesting limit for
            // tasklet code (100), by design of that test.
            continue;
        }
        let code = std::fs::read_to_string(&f).expect("read");
        let name = f.strip_prefix(root()).unwrap_or(&f).display().to_string();
        // `sdfg! { ... }`, and the shared fixtures' `$sink! { ... }`
        // (tests/common/fixtures.rs), whose `$name` instantiate fills in.
        for body in bodies_after(&code, "sdfg! {")
            .into_iter()
            .chain(bodies_after(&code, "$sink! {"))
        {
            out.push((name.clone(), instantiate(body)));
        }
        for s in raw_strings(&code) {
            out.push((name.clone(), s.to_string()));
        }
        for s in plain_strings(&code) {
            out.push((name.clone(), s));
        }
    }
    let guide = std::fs::read_to_string(root().join("docs/GUIDE.md")).expect("GUIDE");
    let mut in_rust = false;
    let mut block = String::new();
    for line in guide.lines() {
        let t = line.trim_start();
        if let Some(info) = t.strip_prefix("```") {
            if in_rust {
                for body in bodies_after(&block, "sdfg! {") {
                    out.push(("docs/GUIDE.md".to_string(), body.to_string()));
                }
                block.clear();
                in_rust = false;
            } else {
                in_rust = info.trim() == "rust";
            }
        } else if in_rust {
            block.push_str(line);
            block.push('\n');
        }
    }
    out.retain(|(_, src)| !src.contains("include \"") && sdfg_compiler::frontend_str(src).is_ok());
    out
}

// ---------------------------------------------------------------- the dump

struct Dump<'a> {
    sdfg: &'a Sdfg,
}

impl Dump<'_> {
    fn symbol(&self, s: SymbolId) -> String {
        self.sdfg
            .symbols
            .get(s)
            .map_or("?".into(), |s| s.name.text.clone())
    }
    fn container(&self, c: ContainerId) -> String {
        self.sdfg
            .containers
            .get(c)
            .map_or("?".into(), |c| c.name.text.clone())
    }

    /// An index: integer-to-integer casts left out (see the module doc).
    fn index(&self, e: &Expr, body: &Body) -> String {
        match &e.kind {
            ExprKind::Cast { arg } if e.ty.is_integer() && arg.ty.is_integer() => {
                self.index(arg, body)
            }
            _ => self.expr(e, body),
        }
    }

    fn indices(&self, es: &[Expr], body: &Body) -> String {
        es.iter()
            .map(|e| self.index(e, body))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A map's exclusive end: `(x - c) + c` (from `..=x - c`) is `x`.
    fn range_end(&self, e: &Expr, body: &Body) -> String {
        if let ExprKind::Binary {
            op: BinOp::Add,
            lhs,
            rhs,
        } = &e.kind
        {
            if let ExprKind::Binary {
                op: BinOp::Sub,
                lhs: x,
                rhs: c,
            } = &lhs.kind
            {
                if matches!((&c.kind, &rhs.kind), (ExprKind::Lit(a), ExprKind::Lit(b)) if a == b) {
                    return self.expr(x, body);
                }
            }
        }
        self.expr(e, body)
    }

    fn expr(&self, e: &Expr, body: &Body) -> String {
        let ty = e.ty;
        let inner = match &e.kind {
            ExprKind::Lit(v) => format!("{v:?}"),
            ExprKind::Var(VarRef::Symbol(s)) => format!("sym {}", self.symbol(*s)),
            ExprKind::Var(VarRef::Param(p)) => {
                format!("param {}", body.params.get(*p).cloned().unwrap_or_default())
            }
            ExprKind::Var(VarRef::Local(l)) => {
                format!("local {}", body.locals.get(*l).cloned().unwrap_or_default())
            }
            ExprKind::Load { container, index } => format!(
                "{}[{}]",
                self.container(*container),
                self.indices(index, body)
            ),
            ExprKind::Unary { op, arg } => format!("{op:?}({})", self.expr(arg, body)),
            ExprKind::Binary { op, lhs, rhs } => {
                format!("{op:?}({}, {})", self.expr(lhs, body), self.expr(rhs, body))
            }
            ExprKind::Cast { arg } => format!("cast({})", self.expr(arg, body)),
            ExprKind::Select { cond, then, else_ } => {
                format!(
                    "select({}, {}, {})",
                    self.expr(cond, body),
                    self.expr(then, body),
                    self.expr(else_, body)
                )
            }
            ExprKind::Call { func, args } => format!("{func:?}({})", self.exprs(args, body)),
        };
        format!("{inner}:{ty}")
    }

    fn exprs(&self, es: &[Expr], body: &Body) -> String {
        es.iter()
            .map(|e| self.expr(e, body))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn stmts(&self, stmts: &[Stmt], body: &Body, out: &mut String, depth: usize) {
        let pad = "  ".repeat(depth);
        for s in stmts {
            match s {
                Stmt::Let { local, init, .. } => {
                    let _ = writeln!(
                        out,
                        "{pad}let {} = {}",
                        body.local_decl(*local),
                        self.expr(init, body)
                    );
                }
                Stmt::AssignLocal { local, value, .. } => {
                    let _ = writeln!(
                        out,
                        "{pad}{} := {}",
                        body.locals[*local],
                        self.expr(value, body)
                    );
                }
                Stmt::Store {
                    container,
                    index,
                    value,
                    wcr,
                    ..
                } => {
                    let _ = writeln!(
                        out,
                        "{pad}{}[{}] {wcr:?}= {}",
                        self.container(*container),
                        self.indices(index, body),
                        self.expr(value, body)
                    );
                }
                Stmt::If {
                    cond, then, else_, ..
                } => {
                    let _ = writeln!(out, "{pad}if {}", self.expr(cond, body));
                    self.stmts(then, body, out, depth + 1);
                    let _ = writeln!(out, "{pad}else");
                    self.stmts(else_, body, out, depth + 1);
                }
                Stmt::For {
                    var,
                    start,
                    end,
                    step,
                    body: inner,
                    ..
                } => {
                    let step = step
                        .as_ref()
                        .map(|s| self.expr(s, body))
                        .unwrap_or_default();
                    let _ = writeln!(
                        out,
                        "{pad}for {} in {}..{} step {step}",
                        body.local_decl(*var),
                        self.expr(start, body),
                        self.expr(end, body)
                    );
                    self.stmts(inner, body, out, depth + 1);
                }
                Stmt::While {
                    cond, body: inner, ..
                } => {
                    let _ = writeln!(out, "{pad}while {}", self.expr(cond, body));
                    self.stmts(inner, body, out, depth + 1);
                }
                Stmt::Break { .. } => {
                    let _ = writeln!(out, "{pad}break");
                }
                Stmt::Continue { .. } => {
                    let _ = writeln!(out, "{pad}continue");
                }
                // Block maps do not take part (see `has_block_constructs`).
                Stmt::ThreadMap(_) | Stmt::Barrier(_) => {}
            }
        }
    }

    fn subset(&self, s: &Subset, body: &Body) -> String {
        s.iter()
            .map(|d| match d {
                SubsetDim::Index(e) => self.index(e, body),
                SubsetDim::Range { start, end } => {
                    format!("{}..{}", self.index(start, body), self.index(end, body))
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn all(&self) -> String {
        let sdfg = self.sdfg;
        let mut out = String::new();
        let none = Body::default();
        let mut symbols: Vec<String> = sdfg
            .symbols
            .iter()
            .map(|s| format!("symbol {}: {} declared={}", s.name.text, s.ty, s.declared))
            .collect();
        symbols.sort();
        let mut containers: Vec<String> = sdfg
            .containers
            .iter()
            .map(|c| {
                format!(
                    "{} {:?} {}: {}[{}]",
                    if c.transient { "transient" } else { "argument" },
                    c.storage,
                    c.name.text,
                    c.elem,
                    self.exprs(&c.shape, &none)
                )
            })
            .collect();
        containers.sort();
        for l in symbols.iter().chain(&containers) {
            let _ = writeln!(out, "{l}");
        }
        let _ = writeln!(
            out,
            "start {}",
            sdfg.states.get(sdfg.start).map_or("?", |s| &s.name.text)
        );
        for st in &sdfg.states {
            let _ = writeln!(out, "state {}", st.name.text);
            for stmt in &st.stmts {
                let body = Body::of(stmt);
                match &stmt.kind {
                    StatementKind::Map(m) => {
                        let params: Vec<String> = m
                            .params
                            .iter()
                            .map(|p| {
                                let step = p
                                    .step
                                    .as_ref()
                                    .map(|s| self.expr(s, &none))
                                    .unwrap_or_default();
                                format!(
                                    "{}: {} in {}..{} step {step}",
                                    p.name.text,
                                    p.ty,
                                    self.expr(&p.start, &none),
                                    self.range_end(&p.end, &none)
                                )
                            })
                            .collect();
                        let _ = writeln!(
                            out,
                            "  map {} [{}] on {:?}",
                            m.name.text,
                            params.join("; "),
                            m.schedule
                        );
                        self.stmts(&m.body.stmts, &body, &mut out, 2);
                    }
                    StatementKind::Tasklet(t) => {
                        let _ = writeln!(out, "  tasklet {}", t.name.text);
                        self.stmts(&t.body.stmts, &body, &mut out, 2);
                    }
                    StatementKind::Copy(c) => {
                        let _ = writeln!(
                            out,
                            "  copy {} -> {}",
                            self.container(c.src),
                            self.container(c.dst)
                        );
                    }
                    StatementKind::Wait(w) => {
                        let _ = writeln!(out, "  wait {}", self.container(w.container));
                    }
                    // Not in an inlined SDFG; dumped for completeness.
                    StatementKind::Nested(n) => {
                        let _ = writeln!(out, "  call {}", n.callee.name.text);
                    }
                }
                for m in &stmt.memlets {
                    let _ = writeln!(
                        out,
                        "    memlet {} {} [{}] {:?} dynamic={}",
                        m.connector,
                        self.container(m.container),
                        self.subset(&m.subset, &body),
                        m.access,
                        m.dynamic
                    );
                }
            }
            for e in &st.graph.edges {
                let node = |n: usize| match st.graph.nodes.get(n) {
                    Some(DataNode::Access(c)) => format!("#{n} {}", self.container(*c)),
                    Some(DataNode::Stmt(s)) => format!("#{n} stmt {s}"),
                    None => "?".into(),
                };
                let _ = writeln!(
                    out,
                    "  flow {} -> {} {:?}",
                    node(e.src),
                    node(e.dst),
                    e.memlet
                );
            }
        }
        for e in &sdfg.edges {
            let name = |s: StateId| {
                sdfg.states
                    .get(s)
                    .map_or("?".to_string(), |s| s.name.text.clone())
            };
            let cond = e
                .condition
                .as_ref()
                .map(|c| self.expr(c, &none))
                .unwrap_or_default();
            let mut assigns: Vec<String> = e
                .assignments
                .iter()
                .map(|(s, v)| format!("{} = {}", self.symbol(*s), self.expr(v, &none)))
                .collect();
            assigns.sort();
            let _ = writeln!(
                out,
                "edge {} -> {} if {cond} {{ {} }}",
                name(e.from),
                name(e.to),
                assigns.join("; ")
            );
        }
        out
    }
}

/// Names of a statement's parameters and locals.
#[derive(Default)]
struct Body {
    params: Vec<String>,
    locals: Vec<String>,
    local_types: Vec<(ScalarType, bool)>,
}

impl Body {
    fn of(stmt: &Statement) -> Body {
        let (params, body) = match &stmt.kind {
            StatementKind::Map(m) => (
                m.params.iter().map(|p| p.name.text.clone()).collect(),
                Some(&m.body),
            ),
            StatementKind::Tasklet(t) => (Vec::new(), Some(&t.body)),
            _ => (Vec::new(), None),
        };
        let locals = body.map(|b| b.locals.as_slice()).unwrap_or_default();
        Body {
            params,
            locals: locals.iter().map(|l| l.name.clone()).collect(),
            local_types: locals.iter().map(|l| (l.ty, l.mutable)).collect(),
        }
    }
    fn local_decl(&self, l: LocalId) -> String {
        let (ty, m) = self
            .local_types
            .get(l)
            .copied()
            .unwrap_or((ScalarType::I32, false));
        format!(
            "{}{}: {ty}",
            if m { "mut " } else { "" },
            self.locals.get(l).cloned().unwrap_or_default()
        )
    }
}

/// The program without what DaCe has no place for (see the module doc):
/// its `wait` statements and `#[sync(manual)]`, as source text.
fn without_waits(src: &str) -> String {
    let mut out = src.replace("#[sync(manual)]", "");
    while let Some(at) = out.find("wait ") {
        let before_ok = at == 0 || !out[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        let Some(semi) = out[at..].find(';') else {
            break;
        };
        let name = out[at + 5..at + semi].trim();
        if before_ok && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            out.replace_range(at..at + semi + 1, "");
        } else {
            break;
        }
    }
    out
}

fn policy(p: StreamPolicy) -> String {
    match p {
        StreamPolicy::Default => "default".into(),
        StreamPolicy::Single => "single".into(),
        StreamPolicy::Max(n) => format!("max({n})"),
        StreamPolicy::Auto => "auto".into(),
    }
}

/// Whether `sdfg` has a block map or a GPU tasklet.
fn has_block_constructs(sdfg: &Sdfg) -> bool {
    sdfg.states
        .iter()
        .flat_map(|s| &s.stmts)
        .any(|st| matches!(&st.kind, StatementKind::Map(m) if m.block.is_some() || m.gpu_tasklet))
}

#[test]
fn every_exported_sdfg_imports_back_to_the_same_ir() {
    // On a large stack, as the macro runs (the passes recurse along long
    // expressions).
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(round_trip_every_program)
        .expect("a thread")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
}

fn round_trip_every_program() {
    let programs = programs();
    assert!(
        programs.len() >= 60,
        "only {} programs found",
        programs.len()
    );
    let mut failures = Vec::new();
    let mut with_waits = 0;
    for (origin, src) in &programs {
        let original = sdfg_compiler::frontend_str(src).expect("accepted above");
        if sdfg_compiler::export::dace::unexportable(&original).is_some() {
            // `bf16`: no DaCe export (tests/e2e_half.rs checks the message).
            continue;
        }
        // Block maps export as `GPU_Device` maps holding a nested SDFG with
        // `GPU_ThreadBlock` maps, and GPU tasklets as maps of one
        // iteration; the importer does not read those forms back (yet).
        if has_block_constructs(&original) {
            continue;
        }
        let json = to_sdfg_json_string(&original);
        if wraps_a_symbolic_integer(&original) {
            // DaCe's symbolic expressions have no integer cast: one that
            // wraps exports as the mask it computes (`(i + S) as u8` as
            // `((i + S) & 255)`, docs/EXPORT.md), which comes back as that
            // mask, the same values in another IR. DaCe runs such programs
            // in `export_dace.rs` (`WrappingIndex`, `EdgeOperators`).
            continue;
        }
        if json.contains("dace::float16") {
            // The importer does not read `f16` tasklet code back yet (its
            // containers, `float16`, it does: tests/export_dace_types.rs).
            continue;
        }
        let items = match sdfg_compiler::import::translate(&json) {
            Ok(items) => items,
            Err(errors) => {
                let e: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
                failures.push(format!(
                    "{origin} `{}`: does not translate:\n{}",
                    original.name.text,
                    e.join("\n")
                ));
                continue;
            }
        };
        let header = format!(
            "#[streams({})] sdfg {}",
            policy(original.streams),
            // IR names are bare (`type`); the source needs `r#type`.
            sdfg_compiler::codegen::names::user(&original.name)
        );
        let back_src = format!("{header} {{\n{items}\n}}");
        let back = match sdfg_compiler::frontend_str(&back_src) {
            Ok(b) => b,
            Err(d) => {
                failures.push(format!(
                    "{origin} `{}`: the translation is rejected:\n{d}\n{back_src}",
                    original.name.text
                ));
                continue;
            }
        };
        let has_waits = original.states.iter().any(|s| {
            s.stmts
                .iter()
                .any(|x| matches!(x.kind, StatementKind::Wait(_)))
        });
        let compared = if has_waits || original.sync == SyncMode::Manual {
            with_waits += 1;
            sdfg_compiler::frontend_str(&without_waits(src))
                .expect("the program without its waits is accepted")
        } else {
            original.clone()
        };
        let (a, b) = (Dump { sdfg: &compared }.all(), Dump { sdfg: &back }.all());
        if a != b {
            let diff: Vec<String> = a
                .lines()
                .zip(b.lines())
                .filter(|(x, y)| x != y)
                .take(6)
                .map(|(x, y)| format!("  - {x}\n  + {y}"))
                .collect();
            failures.push(format!(
                "{origin} `{}`: the IR differs after the round trip:\n{}\n{back_src}",
                original.name.text,
                diff.join("\n")
            ));
        }
    }
    println!(
        "{} programs, {} of them with waits (compared without)",
        programs.len(),
        with_waits
    );
    assert!(
        failures.is_empty(),
        "{} of {} programs:\n\n{}",
        failures.len(),
        programs.len(),
        failures.join("\n\n")
    );
}

/// The comparison can fail: programs that differ in one literal, a type, a
/// storage or an edge dump differently.
#[test]
fn the_comparison_sees_small_differences() {
    let base = "sdfg P { symbol N: i64; host A: f64[N]; gpu G: f64[N]; state s { map m[i in 0..N] on cpu { A[i] = 1.5; } } state e {} s -> e if N > 2; }";
    let dump = |src: &str| {
        Dump {
            sdfg: &sdfg_compiler::frontend_str(src).expect("valid"),
        }
        .all()
    };
    let original = dump(base);
    for variant in [
        base.replace("1.5", "2.5"),
        base.replace("f64[N]; gpu", "f32[N]; gpu")
            .replace("1.5", "1.5f32"),
        base.replace("gpu G", "pinned G"),
        base.replace("N > 2", "N > 3"),
        base.replace("on cpu", "on seq"),
        base.replace("0..N", "1..N"),
    ] {
        assert_ne!(dump(&variant), original, "{variant}");
    }
    assert_eq!(dump(base), original);
}

/// True when an index of some access casts an integer to a type that does
/// not hold all its values (`i as i8` with `i: i64`).
/// An integer cast that wraps in an index or an edge's condition or
/// assignment (what the export prints as a mask).
fn wraps_a_symbolic_integer(sdfg: &sdfg_compiler::ir::Sdfg) -> bool {
    use sdfg_compiler::ir::{Expr, ExprKind};
    let mut found = false;
    let mut look = |e: &Expr| {
        e.walk(&mut |x| {
            if let ExprKind::Cast { arg } = &x.kind {
                found |=
                    arg.ty.is_integer() && x.ty.is_integer() && !x.ty.holds_every_value_of(arg.ty);
            }
        })
    };
    for edge in &sdfg.edges {
        edge.condition.iter().for_each(&mut look);
        edge.assignments.iter().for_each(|(_, e)| look(e));
    }
    found || indexes_through_a_narrowing_cast(sdfg)
}

fn indexes_through_a_narrowing_cast(sdfg: &sdfg_compiler::ir::Sdfg) -> bool {
    use sdfg_compiler::ir::{ExprKind, StatementKind};
    let mut found = false;
    for state in &sdfg.states {
        for st in &state.stmts {
            let body = match &st.kind {
                StatementKind::Map(m) => &m.body,
                StatementKind::Tasklet(t) => &t.body,
                _ => continue,
            };
            sdfg_compiler::ir::bounds::for_each_access(&body.stmts, &mut |site| {
                for e in site.index {
                    e.walk(&mut |x| {
                        if let ExprKind::Cast { arg } = &x.kind {
                            found |= arg.ty.is_integer()
                                && x.ty.is_integer()
                                && !x.ty.holds_every_value_of(arg.ty);
                        }
                    });
                }
            });
        }
    }
    found
}
