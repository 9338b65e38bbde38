//! SDFGs generated from the grammar: loosely typed ones (`Gen`) that
//! exercise parsing, lowering and validation, and well-typed ones
//! (`typed_sdfg`) that reach code generation.

use sdfg_testkit::rng::Rng;

/// Random SDFGs from the grammar itself (names mostly declared, types often
/// right), so that inputs get through parsing and exercise lowering and
/// validation.
pub struct Gen<'r> {
    pub rng: &'r mut Rng,
    pub names: Vec<String>,
}

pub const TYPES: &[&str] = &["i32", "i64", "u32", "u64", "f32", "f64", "bool"];
pub const BINOPS: &[&str] = &[
    "+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "==", "!=", "<", "<=", ">", ">=", "&&",
    "||",
];
pub const METHODS: &[&str] = &[
    "sqrt", "abs", "exp", "ln", "sin", "cos", "tanh", "powi", "powf", "min", "max", "floor", "ceil",
];
pub const LITERALS: &[&str] = &[
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

    pub fn sdfg(&mut self) -> String {
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

/// A well-typed SDFG from the grammar (f64 data, affine in-bounds
/// indices, no races), so that generated programs reach code generation.
pub fn typed_sdfg(rng: &mut Rng) -> String {
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
