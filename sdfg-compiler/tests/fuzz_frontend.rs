//! The front end never panics: a property test over (a) token-level
//! mutations of valid SDFGs, (b) random token streams from the grammar's
//! vocabulary and (c) random SDFGs generated from the grammar. Every input runs through `frontend_str` under `catch_unwind`;
//! a panic fails the test and prints the input. `the_whole_macro_never_panics`
//! runs generated SDFGs (also well-typed ones) and mutants through the whole
//! macro, `expand()`, code generation included.
//!
//! `SDFG_FUZZ_ITERS` sets the number of inputs per part (default small
//! enough for about 20 s in a debug build); `SDFG_FUZZ_SEED` the seed.
//! Example: `SDFG_FUZZ_ITERS=2000000 cargo test --release -p sdfg-compiler --test fuzz_frontend -- --nocapture`.

mod common;

use sdfg_compiler::ir::*;
use sdfg_testkit::rng::Rng;
use std::panic;
use std::time::Instant;

const SEEDS: &[&str] = &[
    common::REPRO,
    common::JACOBI2D,
    r#"
    #[streams(max(2))] #[sync(manual)]
    pub(crate) sdfg Everything {
        symbol N: u64; symbol flag: bool;
        gpu X: f32[N]; gpu Y: f32[N]; gpu Sum: f32; gpu Hist: u32[16];
        pinned Out: f32[N]; host Total: f32; host Small: i64[4, 4];
        transient gpu Tmp: f32[N];
        #[start] state compute {
            map axpy[i in 0..N] on gpu {
                let a = 2.0f32;
                Y[i] = a * X[i] + Y[i];
                Sum += X[i];
                Hist[(i % 16u64) as i64] += 1;
            }
            map clamp[i in (0..N).step_by(2)] on gpu {
                let mut v = X[i];
                if v > 1.0 { v = 1.0; } else if v < -1.0 { v = -1.0; }
                Tmp[i] = if i > 0 { X[i - 1].max(v) } else { { let w = v * 0.5f32; w.sqrt() } };
            }
            copy Y -> Out;
            copy Sum -> Total;
            wait Total;
            tasklet host_side {
                let mut acc = 0i64;
                for k in 0..=3 { for j in (0..4).step_by(2) { acc += Small[k, j] << 1; } }
                Small[0, 0] = acc.min(100) % 7;
                Small[1, 1] = acc.max(3);
                Small[2, 2] = (Total as f64).floor() as i64;
            }
            map seqm[i in 0..4, j in 0..=3] on seq { Small[i, j] = ((i * j) ^ 3 | 1 & !0) as i64; }
        }
        state finish {}
        compute -> compute if flag && Total < 10.0 { flag = !flag; R = N - 1; }
        compute -> finish;
    }"#,
];

/// Words and punctuation of the grammar, for replacements and random streams.
const VOCAB: &[&str] = &[
    "sdfg",
    "symbol",
    "transient",
    "host",
    "pinned",
    "gpu",
    "state",
    "map",
    "tasklet",
    "copy",
    "wait",
    "on",
    "cpu",
    "seq",
    "in",
    "if",
    "else",
    "for",
    "let",
    "mut",
    "as",
    "true",
    "false",
    "i32",
    "i64",
    "u32",
    "u64",
    "f32",
    "f64",
    "bool",
    "N",
    "A",
    "B",
    "T",
    "X",
    "i",
    "j",
    "k",
    "x",
    "s",
    "first",
    "second",
    "pub",
    "#",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    ";",
    ":",
    ",",
    ".",
    "..",
    "..=",
    "->",
    "=",
    "+=",
    "-=",
    "*=",
    "/=",
    "<<=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "&",
    "|",
    "^",
    "!",
    "<<",
    ">>",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "&&",
    "||",
    "0",
    "1",
    "2",
    "-1",
    "1.0",
    "2.5",
    "0.2",
    "3u64",
    "2.0f32",
    "7i64",
    "4294967296",
    "18446744073709551615",
    "340282366920938463463374607431768211455",
    "-2147483648",
    "1e309",
    "sqrt",
    "abs",
    "powi",
    "powf",
    "min",
    "max",
    "step_by",
    "streams",
    "sync",
    "start",
    "manual",
    "auto",
    "default",
    "single",
    "doc",
    "\"x\"",
    "'c'",
    "_",
    "::",
    "loop",
    "while",
    "return",
    "break",
    "fn",
    "struct",
    "1u8",
    "0x10",
    "0b1",
    "1_000",
    "yield",
];

/// Splits source text into tokens (words, numbers, punctuation) so that
/// mutations act on tokens, not characters.
fn lex(src: &str) -> Vec<String> {
    const PUNCT: &[&str] = &[
        "..=", "<<=", ">>=", "->", "..", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=",
        "/=", "%=", "<<", ">>", "::",
    ];
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            let start = i;
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            out.push(chars[start..i].iter().collect::<String>() + "\n");
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric()
                    || chars[i] == '_'
                    || (chars[i] == '.'
                        && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())
                        && chars[start].is_ascii_digit()))
            {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c == '"' {
            let start = i;
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += 1;
            }
            i = (i + 1).min(chars.len());
            out.push(chars[start..i].iter().collect());
        } else {
            let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
            let p = PUNCT
                .iter()
                .find(|p| rest.starts_with(**p))
                .map_or(1, |p| p.len());
            out.push(chars[i..i + p].iter().collect());
            i += p;
        }
    }
    out
}

fn mutate(rng: &mut Rng, tokens: &mut Vec<String>) {
    let n = tokens.len();
    match rng.below(7) {
        0 if n > 0 => {
            tokens.remove(rng.below(n));
        }
        1 if n > 0 => {
            let i = rng.below(n);
            let t = tokens[i].clone();
            tokens.insert(i, t);
        }
        2 if n > 1 => {
            let (a, b) = (rng.below(n), rng.below(n));
            tokens.swap(a, b);
        }
        3 if n > 0 => {
            let i = rng.below(n);
            tokens[i] = rng.pick(VOCAB).to_string();
        }
        4 => {
            let i = rng.below(n + 1);
            tokens.insert(i, rng.pick(VOCAB).to_string());
        }
        5 if n > 0 => tokens.truncate(rng.below(n)),
        _ if n > 0 => {
            // Move a token somewhere else.
            let t = tokens.remove(rng.below(n));
            let i = rng.below(tokens.len() + 1);
            tokens.insert(i, t);
        }
        _ => {}
    }
}

/// A random token stream, brackets mostly balanced so the parser gets far.
fn random_stream(rng: &mut Rng) -> String {
    let len = 1 + rng.below(60);
    let mut out = vec!["sdfg".to_string(), "R".to_string(), "{".to_string()];
    let mut open: Vec<&str> = Vec::new();
    for _ in 0..len {
        let t = rng.pick(VOCAB);
        match t {
            "(" | "[" | "{" => {
                open.push(match t {
                    "(" => ")",
                    "[" => "]",
                    _ => "}",
                });
                out.push(t.to_string());
            }
            ")" | "]" | "}" => {
                if let Some(close) = open.pop() {
                    out.push(close.to_string());
                }
            }
            _ => out.push(t.to_string()),
        }
    }
    while let Some(close) = open.pop() {
        out.push(close.to_string());
    }
    out.push("}".to_string());
    out.join(" ")
}

/// Random SDFGs from the grammar itself (names mostly declared, types often
/// right), so that inputs get through parsing and exercise lowering and
/// validation.
struct Gen<'r> {
    rng: &'r mut Rng,
    names: Vec<String>,
}

const TYPES: &[&str] = &["i32", "i64", "u32", "u64", "f32", "f64", "bool"];
const BINOPS: &[&str] = &[
    "+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "==", "!=", "<", "<=", ">", ">=", "&&",
    "||",
];
const METHODS: &[&str] = &[
    "sqrt", "abs", "exp", "ln", "sin", "cos", "tanh", "powi", "powf", "min", "max", "floor", "ceil",
];
const LITERALS: &[&str] = &[
    "0",
    "1",
    "2",
    "7",
    "-1",
    "1.0",
    "0.5",
    "-2.5",
    "true",
    "false",
    "3u64",
    "4i64",
    "1u32",
    "2.0f32",
    "1e3",
    "4294967295",
    "9223372036854775807",
    "-9223372036854775808",
];

impl Gen<'_> {
    fn name(&mut self) -> String {
        if self.names.is_empty() || self.rng.below(10) == 0 {
            return ["i", "j", "x", "N", "A", "T", "q"][self.rng.below(7)].to_string();
        }
        self.names[self.rng.below(self.names.len())].clone()
    }

    fn expr(&mut self, depth: usize) -> String {
        let choice = if depth == 0 {
            self.rng.below(3)
        } else {
            self.rng.below(11)
        };
        match choice {
            0 => self.rng.pick(LITERALS).to_string(),
            1 | 2 => self.name(),
            3 => {
                let n = 1 + self.rng.below(2);
                let idx: Vec<String> = (0..n).map(|_| self.expr(depth - 1)).collect();
                format!("{}[{}]", self.name(), idx.join(", "))
            }
            4 | 5 => format!(
                "({} {} {})",
                self.expr(depth - 1),
                self.rng.pick(BINOPS),
                self.expr(depth - 1)
            ),
            6 => format!("{}{}", ["-", "!"][self.rng.below(2)], self.expr(depth - 1)),
            7 => format!("({} as {})", self.expr(depth - 1), self.rng.pick(TYPES)),
            8 => format!(
                "if {} {{ {} }} else {{ {} }}",
                self.expr(depth - 1),
                self.expr(depth - 1),
                self.expr(depth - 1)
            ),
            9 => {
                let m = self.rng.pick(METHODS);
                let arg = if ["powi", "powf", "min", "max"].contains(&m) {
                    self.expr(depth - 1)
                } else {
                    String::new()
                };
                format!("({}).{m}({arg})", self.expr(depth - 1))
            }
            _ => format!(
                "{{ let {} = {}; {} }}",
                self.name(),
                self.expr(depth - 1),
                self.expr(depth - 1)
            ),
        }
    }

    fn range(&mut self) -> String {
        let (a, b) = (self.expr(1), self.expr(1));
        match self.rng.below(3) {
            0 => format!("{a}..{b}"),
            1 => format!("{a}..={b}"),
            _ => format!("({a}..{b}).step_by({})", self.expr(0)),
        }
    }

    fn body(&mut self, depth: usize) -> String {
        let mut out = String::new();
        for _ in 0..1 + self.rng.below(3) {
            let stmt = match self.rng.below(8) {
                0 => {
                    let n = self.name();
                    let ty = if self.rng.below(2) == 0 {
                        format!(": {}", self.rng.pick(TYPES))
                    } else {
                        String::new()
                    };
                    let s = format!("let mut {n}{ty} = {};", self.expr(2));
                    self.names.push(n);
                    s
                }
                1 | 2 => format!("{}[{}] = {};", self.name(), self.expr(1), self.expr(2)),
                3 => format!(
                    "{} {} {};",
                    self.name(),
                    ["=", "+=", "*=", "-=", "/="][self.rng.below(5)],
                    self.expr(2)
                ),
                4 => {
                    let t = format!("{}[{}]", self.name(), self.expr(1));
                    format!(
                        "{t} = {t}.{}({});",
                        ["min", "max"][self.rng.below(2)],
                        self.expr(1)
                    )
                }
                5 if depth > 0 => format!(
                    "if {} {{ {} }} else {{ {} }}",
                    self.expr(2),
                    self.body(depth - 1),
                    self.body(depth - 1)
                ),
                6 if depth > 0 => {
                    let k = self.name();
                    format!("for {k} in {} {{ {} }}", self.range(), self.body(depth - 1))
                }
                _ => format!("{} = {};", self.name(), self.expr(2)),
            };
            out.push_str(&stmt);
            out.push(' ');
        }
        out
    }

    fn sdfg(&mut self) -> String {
        let mut items = Vec::new();
        for s in ["N", "M"].iter().take(self.rng.below(3)) {
            items.push(format!(
                "symbol {s}: {};",
                ["i64", "u64", "i32", "bool", "f64"][self.rng.below(5)]
            ));
            self.names.push(s.to_string());
        }
        for c in ["A", "B", "T", "U"].iter().take(1 + self.rng.below(4)) {
            let dims = self.rng.below(3);
            let shape: Vec<String> = (0..dims)
                .map(|_| ["4", "N", "N + 1", "M", "2 * N", "1"][self.rng.below(6)].to_string())
                .collect();
            let shape = if shape.is_empty() {
                String::new()
            } else {
                format!("[{}]", shape.join(", "))
            };
            items.push(format!(
                "{}{} {c}: {}{shape};",
                if self.rng.below(4) == 0 {
                    "transient "
                } else {
                    ""
                },
                ["host", "pinned", "gpu"][self.rng.below(3)],
                self.rng.pick(TYPES)
            ));
            self.names.push(c.to_string());
        }
        let states = 1 + self.rng.below(3);
        for st in 0..states {
            let mut stmts = Vec::new();
            for k in 0..self.rng.below(4) {
                let saved = self.names.len();
                let stmt = match self.rng.below(4) {
                    0 | 1 => {
                        let dims = 1 + self.rng.below(2);
                        let params: Vec<String> = (0..dims)
                            .map(|d| {
                                let p = ["i", "j"][d].to_string();
                                self.names.push(p.clone());
                                format!("{p} in {}", self.range())
                            })
                            .collect();
                        format!(
                            "map m{k}[{}] on {} {{ {} }}",
                            params.join(", "),
                            ["gpu", "cpu", "seq"][self.rng.below(3)],
                            self.body(2)
                        )
                    }
                    2 => format!("tasklet t{k} {{ {} }}", self.body(2)),
                    _ => {
                        let sub = |g: &mut Self| {
                            if g.rng.below(2) == 0 {
                                String::new()
                            } else {
                                format!("[{}]", g.range())
                            }
                        };
                        let (a, sa, b, sb) = (self.name(), sub(self), self.name(), sub(self));
                        if self.rng.below(4) == 0 {
                            format!("wait {a};")
                        } else {
                            format!("copy {a}{sa} -> {b}{sb};")
                        }
                    }
                };
                self.names.truncate(saved);
                stmts.push(stmt);
            }
            let start = if self.rng.below(5) == 0 {
                "#[start] "
            } else {
                ""
            };
            items.push(format!("{start}state s{st} {{ {} }}", stmts.join(" ")));
        }
        for _ in 0..self.rng.below(4) {
            let (a, b) = (self.rng.below(states + 1), self.rng.below(states + 1));
            let cond = if self.rng.below(2) == 0 {
                format!(" if {}", self.expr(2))
            } else {
                String::new()
            };
            let assigns = if self.rng.below(2) == 0 {
                format!(
                    " {{ {} = {}; }}",
                    ["t", "N", "A", "k"][self.rng.below(4)],
                    self.expr(2)
                )
            } else {
                ";".to_string()
            };
            items.push(format!("s{a} -> s{b}{cond}{assigns}"));
        }
        // Shuffle a little: items may come in any order.
        if items.len() > 1 && self.rng.below(3) == 0 {
            let (a, b) = (self.rng.below(items.len()), self.rng.below(items.len()));
            items.swap(a, b);
        }
        let attrs = [
            "",
            "#[sync(manual)] ",
            "#[streams(max(2))] ",
            "#[streams(auto)] #[sync(auto)] ",
        ][self.rng.below(4)];
        format!("{attrs}sdfg G {{ {} }}", items.join("\n"))
    }
}

/// Invariants of every IR the front end accepts; a violation panics (and so
/// fails the fuzz test like a crash would).
fn check_invariants(sdfg: &Sdfg) {
    assert!(sdfg.start < sdfg.states.len(), "start state out of range");
    for e in &sdfg.edges {
        assert!(e.from < sdfg.states.len() && e.to < sdfg.states.len());
        if let Some(c) = &e.condition {
            assert_eq!(c.ty, ScalarType::Bool, "edge condition type");
            check_expr(sdfg, c, 0, 0);
        }
        for (s, v) in &e.assignments {
            assert_eq!(sdfg.symbols[*s].ty, v.ty, "edge assignment type");
            check_expr(sdfg, v, 0, 0);
        }
    }
    for c in &sdfg.containers {
        c.shape.iter().for_each(|d| {
            assert!(d.ty.is_integer());
            check_expr(sdfg, d, 0, 0);
        });
    }
    for state in &sdfg.states {
        for stmt in &state.stmts {
            for m in &stmt.memlets {
                assert_eq!(
                    m.subset.len(),
                    sdfg.containers[m.container].shape.len(),
                    "subset rank"
                );
            }
            let (body, params) = match &stmt.kind {
                StatementKind::Map(m) => {
                    for p in &m.params {
                        assert!(p.ty.is_integer() && p.start.ty == p.ty && p.end.ty == p.ty);
                        assert!(p.step.as_ref().is_none_or(|s| s.ty == p.ty));
                    }
                    (Some(&m.body), m.params.len())
                }
                StatementKind::Tasklet(t) => (Some(&t.body), 0),
                StatementKind::Copy(_) => {
                    assert_eq!(stmt.memlets.len(), 2, "copy memlets");
                    (None, 0)
                }
                StatementKind::Wait(_) => (None, 0),
                StatementKind::Nested(_) => panic!("an accepted SDFG has its calls inlined"),
            };
            if let Some(body) = body {
                for st in &body.stmts {
                    check_stmt(sdfg, body, st, params);
                }
            }
        }
        // Every statement is one node; edges point at nodes; conflicts go forward.
        let g = &state.graph;
        for (i, _) in state.stmts.iter().enumerate() {
            assert_eq!(
                g.nodes.iter().filter(|n| **n == DataNode::Stmt(i)).count(),
                1,
                "stmt node"
            );
        }
        for e in &g.edges {
            assert!(e.src < g.nodes.len() && e.dst < g.nodes.len(), "edge node");
            if let Some((s, m)) = e.memlet {
                assert!(m < state.stmts[s].memlets.len(), "edge memlet");
            }
        }
        for (i, _) in state.stmts.iter().enumerate() {
            assert!(
                g.predecessors(i).iter().all(|p| *p < i),
                "dataflow goes forward"
            );
        }
    }
}

fn check_stmt(sdfg: &Sdfg, body: &TaskletBody, st: &Stmt, params: usize) {
    let locals = body.locals.len();
    match st {
        Stmt::Let { local, init, .. }
        | Stmt::AssignLocal {
            local, value: init, ..
        } => {
            assert!(*local < locals);
            assert_eq!(body.locals[*local].ty, init.ty, "local type");
            check_expr(sdfg, init, locals, params);
        }
        Stmt::Store {
            container,
            index,
            value,
            ..
        } => {
            assert_eq!(
                index.len(),
                sdfg.containers[*container].shape.len(),
                "store rank"
            );
            assert_eq!(value.ty, sdfg.containers[*container].elem, "store type");
            index
                .iter()
                .for_each(|i| check_expr(sdfg, i, locals, params));
            check_expr(sdfg, value, locals, params);
        }
        Stmt::If {
            cond, then, else_, ..
        } => {
            assert_eq!(cond.ty, ScalarType::Bool);
            check_expr(sdfg, cond, locals, params);
            then.iter()
                .chain(else_)
                .for_each(|s| check_stmt(sdfg, body, s, params));
        }
        Stmt::For {
            var,
            start,
            end,
            step,
            body: inner,
            ..
        } => {
            assert!(*var < locals);
            let ty = body.locals[*var].ty;
            assert!(
                ty.is_integer()
                    && start.ty == ty
                    && end.ty == ty
                    && step.as_ref().is_none_or(|s| s.ty == ty)
            );
            inner.iter().for_each(|s| check_stmt(sdfg, body, s, params));
        }
        Stmt::While {
            cond, body: inner, ..
        } => {
            assert_eq!(cond.ty, ScalarType::Bool);
            check_expr(sdfg, cond, locals, params);
            inner.iter().for_each(|s| check_stmt(sdfg, body, s, params));
        }
        Stmt::Break { .. } | Stmt::Continue { .. } => {}
        Stmt::ThreadMap(t) => {
            for p in &t.params {
                assert!(p.local < locals);
                let ty = body.locals[p.local].ty;
                assert!(ty.is_integer() && p.start.ty == ty && p.end.ty == ty);
                check_expr(sdfg, &p.start, locals, params);
                check_expr(sdfg, &p.end, locals, params);
            }
            t.body
                .iter()
                .for_each(|s| check_stmt(sdfg, body, s, params));
        }
        Stmt::Barrier(_) => {}
    }
}

fn check_expr(sdfg: &Sdfg, e: &Expr, locals: usize, params: usize) {
    e.walk(&mut |e| match &e.kind {
        ExprKind::Lit(v) => assert_eq!(v.ty(), e.ty),
        ExprKind::Var(VarRef::Local(l)) => assert!(*l < locals, "local id"),
        ExprKind::Var(VarRef::Param(p)) => assert!(*p < params, "param id"),
        ExprKind::Var(VarRef::Symbol(s)) => assert_eq!(sdfg.symbols[*s].ty, e.ty, "symbol type"),
        ExprKind::Load { container, index } => {
            assert_eq!(
                index.len(),
                sdfg.containers[*container].shape.len(),
                "load rank"
            );
            assert_eq!(sdfg.containers[*container].elem, e.ty, "load type");
            assert!(index.iter().all(|i| i.ty.is_integer()));
        }
        ExprKind::Unary { arg, .. } => assert_eq!(arg.ty, e.ty),
        ExprKind::Binary { op, lhs, rhs } => match op {
            BinOp::Shl | BinOp::Shr => assert!(lhs.ty == e.ty && rhs.ty.is_integer()),
            _ if op.is_comparison() => assert!(lhs.ty == rhs.ty && e.ty == ScalarType::Bool),
            _ => assert!(lhs.ty == e.ty && rhs.ty == e.ty, "binary operand types"),
        },
        ExprKind::Cast { .. } => {}
        ExprKind::Select { cond, then, else_ } => {
            assert!(cond.ty == ScalarType::Bool && then.ty == e.ty && else_.ty == e.ty)
        }
        ExprKind::Call { func, args } => {
            assert_eq!(args.len(), func.arity());
            assert_eq!(args[0].ty, e.ty);
        }
    });
}

/// Runs the front end; Err(message) when it panicked.
fn run(source: &str) -> Result<bool, String> {
    panic::catch_unwind(|| match sdfg_compiler::frontend_str(source) {
        Ok(sdfg) => {
            check_invariants(&sdfg);
            true
        }
        Err(_) => false,
    })
    .map_err(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    })
}

fn iterations() -> usize {
    std::env::var("SDFG_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) { 6000 } else { 100000 })
}

fn seed() -> u64 {
    std::env::var("SDFG_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5df9_0001)
}

/// Runs `make_input` `n` times; fails on the first panic.
fn fuzz(name: &str, n: usize, mut make_input: impl FnMut(&mut Rng) -> String) {
    let mut rng = Rng::new(seed() ^ ((name.len() as u64) << 40));
    let started = Instant::now();
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let mut accepted = 0usize;
    let mut failure = None;
    for _ in 0..n {
        let source = make_input(&mut rng);
        match run(&source) {
            Ok(ok) => accepted += usize::from(ok),
            Err(message) => {
                failure = Some((source, message));
                break;
            }
        }
    }
    panic::set_hook(hook);
    if let Some((source, message)) = failure {
        panic!("the front end panicked ({message}) on:\n{source}");
    }
    println!(
        "{name}: {n} inputs ({accepted} accepted) in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn seeds_are_valid() {
    for s in SEEDS {
        match sdfg_compiler::frontend_str(s) {
            Ok(sdfg) => check_invariants(&sdfg),
            Err(d) => panic!("seed does not lower:\n{d}\n{s}"),
        }
    }
}

#[test]
fn mutated_sdfgs_never_panic() {
    let lexed: Vec<Vec<String>> = SEEDS.iter().map(|s| lex(s)).collect();
    fuzz("mutations", iterations(), |rng| {
        let mut tokens = lexed[rng.below(lexed.len())].clone();
        for _ in 0..1 + rng.below(4) {
            mutate(rng, &mut tokens);
        }
        tokens.join(" ")
    });
}

#[test]
fn generated_sdfgs_never_panic() {
    // Generated inputs get far into the pipeline and cost more each.
    fuzz("generated", iterations() / 8, |rng| {
        Gen {
            rng,
            names: Vec::new(),
        }
        .sdfg()
    });
}

#[test]
fn random_token_streams_never_panic() {
    fuzz("random streams", iterations(), random_stream);
}

// The whole macro: `expand()` (front end, schedule, PTX, host glue, the
// exporters it embeds) on generated SDFGs and on mutations of the seeds.
// Nothing may panic; an accepted input must expand to Rust items, and a
// sample of the accepted kernels must assemble with ptxas (when found).

/// Mutations that keep a program plausible (one token swapped within its
/// group), so most mutants pass the front end and reach code generation.
fn mutate_plausibly(rng: &mut Rng, tokens: &mut [String]) {
    const GROUPS: [&[&str]; 8] = [
        &["+", "-", "*", "/", "%"],
        &["<", "<=", ">", ">=", "==", "!="],
        &["&", "|", "^"],
        &["gpu", "cpu", "seq"],
        &["host", "pinned", "gpu"],
        &["+=", "*=", "="],
        &["min", "max"],
        &["0", "1", "2", "3", "7", "16"],
    ];
    for _ in 0..20 {
        let k = rng.below(tokens.len());
        if let Some(group) = GROUPS.iter().find(|g| g.contains(&tokens[k].as_str())) {
            tokens[k] = group[rng.below(group.len())].to_string();
            return;
        }
    }
}

/// What the whole macro made of one input.
#[derive(Default)]
struct Expanded {
    accepted: usize,
    assembled: usize,
}

/// Runs `expand()` on `source`; Err(message) when anything panicked.
fn run_expand(source: &str, check_ptx: bool, tally: &mut Expanded) -> Result<(), String> {
    let outcome = panic::catch_unwind(|| {
        let Ok(tokens) = source.parse::<proc_macro2::TokenStream>() else {
            return (false, false);
        };
        let out = sdfg_compiler::expand(tokens);
        let accepted = !out.to_string().contains("compile_error");
        if let Err(e) = syn::parse2::<syn::File>(out) {
            panic!("the expansion is not Rust items: {e}");
        }
        let mut assembled = false;
        if accepted && check_ptx {
            let sdfg = sdfg_compiler::frontend_str(source).expect("accepted above");
            let ptx = sdfg_compiler::codegen::ptx::generate(&sdfg);
            match sdfg_compiler::codegen::ptx::ptxas::assemble_check(&ptx.text) {
                Ok(log) => assembled = log.is_some(),
                Err(log) => panic!("ptxas rejects the generated PTX:\n{log}"),
            }
        }
        (accepted, assembled)
    });
    match outcome {
        Ok((accepted, assembled)) => {
            tally.accepted += usize::from(accepted);
            tally.assembled += usize::from(assembled);
            Ok(())
        }
        Err(e) => Err(e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()),
    }
}

/// Runs `make_input` `n` times through `expand()`; fails on the first panic.
fn fuzz_expand(name: &str, n: usize, mut make_input: impl FnMut(&mut Rng) -> String) {
    let mut rng = Rng::new(seed() ^ ((name.len() as u64) << 32));
    let started = Instant::now();
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let mut tally = Expanded::default();
    let mut failure = None;
    for k in 0..n {
        let source = make_input(&mut rng);
        // ptxas costs tens of milliseconds: a sample of the inputs.
        if let Err(message) = run_expand(&source, k % 16 == 0, &mut tally) {
            failure = Some((source, message));
            break;
        }
    }
    panic::set_hook(hook);
    if let Some((source, message)) = failure {
        panic!("the macro panicked ({message}) on:\n{source}");
    }
    println!(
        "{name}: {n} inputs ({} accepted, {} kernels assembled) in {:.1} s",
        tally.accepted,
        tally.assembled,
        started.elapsed().as_secs_f64()
    );
}

/// A well-typed SDFG from the grammar (f64 data, affine in-bounds
/// indices, no races), so that generated programs reach code generation.
fn typed_sdfg(rng: &mut Rng) -> String {
    fn value(rng: &mut Rng, load: &str, depth: usize) -> String {
        let leaf = |rng: &mut Rng| match rng.below(5) {
            0 => ["1.5", "2.0", "-0.25", "3.0e2"][rng.below(4)].to_string(),
            1 => "(i as f64)".to_string(),
            2 => format!("(if i > 0 {{ {load}[i - 1] }} else {{ 0.5 }})"),
            _ => format!("{load}[i]"),
        };
        if depth == 0 {
            return leaf(rng);
        }
        let (a, b) = (value(rng, load, depth - 1), value(rng, load, depth - 1));
        match rng.below(9) {
            0 => format!("({a} + {b})"),
            1 => format!("({a} - {b})"),
            2 => format!("({a} * {b})"),
            3 => format!("({a} / {b})"),
            4 => format!("(-{a})"),
            5 => format!("{a}.{}({b})", ["min", "max", "powf"][rng.below(3)]),
            6 => format!(
                "{a}.{}()",
                ["sqrt", "abs", "exp", "floor", "tanh"][rng.below(5)]
            ),
            7 => format!("(if {a} < {b} {{ {a} }} else {{ {b} }})"),
            _ => format!("{{ let v = {a}; v * {b} }}"),
        }
    }
    let mut states = Vec::new();
    let count = 1 + rng.below(3);
    for st in 0..count {
        let mut stmts = Vec::new();
        for k in 0..1 + rng.below(3) {
            let depth = rng.below(4);
            stmts.push(match rng.below(6) {
                0 => format!(
                    "map g{k}[i in 0..N] on gpu {{ B[i] = {}; }}",
                    value(rng, "A", depth)
                ),
                1 => format!(
                    "map r{k}[i in 0..N] on gpu {{ S += {}; }}",
                    value(rng, "A", depth)
                ),
                2 => format!(
                    "map m{k}[i in 0..N] on gpu {{ S = S.max({}); }}",
                    value(rng, "B", depth)
                ),
                3 => format!(
                    "map c{k}[i in 0..N] on {} {{ G[i] = {}; }}",
                    ["cpu", "seq"][rng.below(2)],
                    value(rng, "H", depth)
                ),
                4 => "copy B -> G;".to_string(),
                _ => format!(
                    "tasklet t{k} {{ T = {}; }}",
                    value(rng, "H", depth)
                        .replace("[i", "[0")
                        .replace("i as", "0 as")
                        .replace("i >", "0 >")
                ),
            });
        }
        states.push(format!("state s{st} {{ {} }}", stmts.join(" ")));
    }
    let mut edges = Vec::new();
    for st in 0..count {
        if rng.below(2) == 0 {
            edges.push(format!("s{st} -> s{st} if t < 2 {{ t = t + 1; }}"));
        }
        if st + 1 < count {
            edges.push(format!("s{st} -> s{} {{ t = 0; }}", st + 1));
        }
    }
    let streams = ["default", "single", "auto", "max(2)"][rng.below(4)];
    format!(
        "#[streams({streams})] sdfg F {{ symbol N: i64; gpu A: f64[N]; gpu B: f64[N]; gpu S: f64; host H: f64[N]; host G: f64[N]; host T: f64; {} {} }}",
        states.join(" "),
        edges.join(" ")
    )
}

#[test]
fn the_whole_macro_never_panics() {
    let n = iterations() / 24;
    let lexed: Vec<Vec<String>> = SEEDS.iter().map(|s| lex(s)).collect();
    fuzz_expand("expand: plausible mutants", n, |rng| {
        let mut tokens = lexed[rng.below(lexed.len())].clone();
        for _ in 0..1 + rng.below(3) {
            mutate_plausibly(rng, &mut tokens);
        }
        tokens.join(" ")
    });
    fuzz_expand("expand: token mutants", 2 * n, |rng| {
        let mut tokens = lexed[rng.below(lexed.len())].clone();
        for _ in 0..1 + rng.below(3) {
            mutate(rng, &mut tokens);
        }
        tokens.join(" ")
    });
    fuzz_expand("expand: generated", 2 * n, |rng| {
        Gen {
            rng,
            names: Vec::new(),
        }
        .sdfg()
    });
    fuzz_expand("expand: typed", n, typed_sdfg);
    fuzz_expand("expand: typed mutants", n, |rng| {
        let mut tokens = lex(&typed_sdfg(rng));
        for _ in 0..1 + rng.below(3) {
            if rng.below(2) == 0 {
                mutate(rng, &mut tokens);
            } else {
                mutate_plausibly(rng, &mut tokens);
            }
        }
        tokens.join(" ")
    });
}
