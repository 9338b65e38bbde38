//! Random block-map programs, written as `sdfg!` source: one block map over
//! the rows `r in 0..R` of integer data, whose body is a random sequence of
//! phases (thread maps over a row's columns `c in 0..C`, filling `shared`
//! rows and reading their neighbours, block reductions into `shared`
//! scalars, reductions into `gpu` data across blocks, block-level `let`s,
//! stores, `for` loops and `if`s around thread maps). Every value is an
//! integer with wrapping arithmetic, or a float `min`/`max`, so any order of
//! combination gives the same bits: the evaluator, the CPU device's twins
//! and the GPU must agree exactly, and the barriers the compiler places are
//! what keeps the GPU's threads from reading unfinished rows.
//!
//! The containers are the same in every program: `X: T[R, C]` (input),
//! `Y: T[R, C]` and `Z: T[R]` (outputs), `G: T` (a reduction across
//! blocks), `W: F[R, C]` (float input) and `WM: F[R]` (its row extremes),
//! with `T` an integer type and `F` `f32` or `f64`.

use crate::rng::Rng;
use std::fmt::Write;

const INTEGERS: [&str; 8] = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"];

/// What the phases so far have left defined (in every block iteration).
#[derive(Default)]
struct Defined {
    /// `shared S0`/`S1` hold a whole row.
    rows: [bool; 2],
    /// `shared A` (integer) holds a block reduction.
    a: bool,
    /// Block-level `let`s.
    lets: Vec<String>,
}

struct Gen {
    rng: Rng,
    t: &'static str,
    f: &'static str,
    defined: Defined,
    maps: usize,
    out: String,
    /// Which shared data the phases use (declared before them).
    uses_rows: [bool; 2],
    uses_a: bool,
    uses_b: bool,
    /// `register P: T[3]` is declared (blocks of at least 64 threads: its
    /// thread maps, over `C` = 37 columns, need one thread per column).
    uses_p: bool,
    /// Threads per block.
    threads: usize,
    /// The one operator of the reductions into `G` (two operators on one
    /// element would depend on their order).
    g_op: usize,
}

/// `pub sdfg NAME { ... }` (with `doc` as its doc comment): a random block
/// program. Symbols `R` (rows) and `C` (columns), both `i64`.
pub fn random_block_program(seed: u64, name: &str, doc: &str) -> String {
    let mut rng = Rng::new(seed);
    let t = INTEGERS[rng.below(INTEGERS.len())];
    let f = ["f32", "f64"][rng.below(2)];
    let (block, threads) = [
        ("block(32)", 32),
        ("block(64)", 64),
        ("block(96)", 96),
        ("block(128)", 128),
        ("block(32, 2)", 64),
        ("block(16, 4, 2)", 128),
        ("block", 256),
    ][rng.below(7)];
    let mut g = Gen {
        rng,
        t,
        f,
        defined: Defined::default(),
        maps: 0,
        out: String::new(),
        uses_rows: [false; 2],
        uses_a: false,
        uses_b: false,
        uses_p: false,
        threads,
        g_op: 0,
    };
    g.g_op = g.rng.below(3);
    let phases = 3 + g.rng.below(5);
    for _ in 0..phases {
        g.phase(12, 0);
    }
    let mut decls = String::new();
    for (k, used) in g.uses_rows.iter().enumerate() {
        if *used {
            let _ = writeln!(decls, "            shared S{k}: {t}[C];");
        }
    }
    if g.uses_a {
        let _ = writeln!(decls, "            shared A: {t};");
    }
    if g.uses_b {
        let _ = writeln!(decls, "            shared B: {f};");
    }
    if g.uses_p {
        let _ = writeln!(decls, "            register P: {t}[3];");
    }
    format!(
        "/// {doc}\npub sdfg {name} {{\n    symbol R: i64;\n    symbol C: i64;\n    \
         gpu X: {t}[R, C];\n    gpu Y: {t}[R, C];\n    gpu Z: {t}[R];\n    gpu G: {t};\n    \
         gpu W: {f}[R, C];\n    gpu WM: {f}[R];\n    state s {{\n        \
         map b[r in 0..R] on gpu {block} {{\n{decls}{}        }}\n    }}\n}}\n",
        g.out
    )
}

impl Gen {
    fn lit(&mut self) -> String {
        format!("{}{}", self.rng.below(100), self.t)
    }

    fn thread_map(&mut self, indent: usize, body: &str) {
        let pad = " ".repeat(indent);
        let name = format!("t{}", self.maps);
        self.maps += 1;
        let _ = writeln!(
            self.out,
            "{pad}map {name}[c in 0..C] on threads {{\n{pad}    {body}\n{pad}}}"
        );
    }

    /// A value of `T` in a thread map's body (`c` in scope); `exclude`: a
    /// shared row it may not read (the one the map writes).
    fn expr(&mut self, depth: u32, exclude: Option<usize>) -> String {
        let t = self.t;
        if depth == 0 || self.rng.chance(25) {
            let rows: Vec<usize> = (0..2)
                .filter(|&k| self.defined.rows[k] && Some(k) != exclude)
                .collect();
            return match self.rng.below(9) {
                0 | 1 => "X[r, c]".to_string(),
                2 => format!("(c as {t})"),
                3 => format!("(r as {t})"),
                4 if !rows.is_empty() => {
                    let k = rows[self.rng.below(rows.len())];
                    let index =
                        ["c", "(c + 1) % C", "C - 1 - c", "(c * 7 + 3) % C"][self.rng.below(4)];
                    self.uses_rows[k] = true;
                    format!("S{k}[{index}]")
                }
                5 if self.defined.a => "A".to_string(),
                6 if !self.defined.lets.is_empty() => {
                    let k = self.rng.below(self.defined.lets.len());
                    self.defined.lets[k].clone()
                }
                7 => "X[r, (c + 2) % C]".to_string(),
                _ => self.lit(),
            };
        }
        let (a, b) = (self.expr(depth - 1, exclude), self.expr(depth - 1, exclude));
        match self.rng.below(9) {
            0 => format!("({a} + {b})"),
            1 => format!("({a} - {b})"),
            2 => format!("({a} * {b})"),
            3 => format!("({a} ^ {b})"),
            4 => format!("({a} & {b})"),
            5 => format!("({a} | {b})"),
            6 => format!("{a}.min({b})"),
            7 => format!("{a}.max({b})"),
            _ => format!("({a} >> {}u32)", self.rng.below(5)),
        }
    }

    /// A block-level value of `T` (no `c`; reads of a whole-row neighbour
    /// at a constant column, the shared scalar, `let`s).
    fn block_expr(&mut self) -> String {
        let t = self.t;
        let mut parts = vec![
            format!("X[r, {}]", self.rng.below(5)),
            format!("(r as {t})"),
        ];
        if self.defined.a {
            parts.push("A".to_string());
        }
        for k in 0..2 {
            if self.defined.rows[k] {
                self.uses_rows[k] = true;
                parts.push(format!("S{k}[{}]", self.rng.below(5)));
            }
        }
        parts.extend(self.defined.lets.iter().cloned());
        let a = parts[self.rng.below(parts.len())].clone();
        let b = parts[self.rng.below(parts.len())].clone();
        format!("({a} {} {b})", ["+", "^", "*", "-"][self.rng.below(4)])
    }

    /// One phase at `indent`; `nesting`: how deep inside `for`/`if` it is.
    fn phase(&mut self, indent: usize, nesting: u32) {
        let pad = " ".repeat(indent);
        let t = self.t;
        let f = self.f;
        match self.rng.below(13) {
            // Fill a shared row (at the top level only: a fill under an
            // `if` would leave the row undefined in other block iterations).
            0 | 1 if nesting == 0 => {
                let k = self.rng.below(2);
                let e = self.expr(3, Some(k));
                self.uses_rows[k] = true;
                self.thread_map(indent, &format!("S{k}[c] = {e};"));
                self.defined.rows[k] = true;
            }
            // A block reduction into the shared scalar.
            2 if nesting == 0 => {
                let init = self.lit();
                let _ = writeln!(self.out, "{pad}A = {init};");
                let was = std::mem::replace(&mut self.defined.a, false);
                let e = self.expr(2, None);
                let body = match self.rng.below(4) {
                    0 => format!("A += {e};"),
                    1 => format!("A *= {e} | 1{t};"),
                    2 => format!("A = A.max({e});"),
                    _ => format!("A = A.min({e});"),
                };
                self.defined.a = was;
                self.uses_a = true;
                self.thread_map(indent, &body);
                self.defined.a = true;
            }
            // A float row extreme, stored once per block.
            3 if nesting == 0 => {
                let (init, pick) = if self.rng.chance(50) {
                    (format!("{f}::MIN"), "max")
                } else {
                    (format!("{f}::MAX"), "min")
                };
                let _ = writeln!(self.out, "{pad}B = {init};");
                self.uses_b = true;
                self.thread_map(indent, &format!("B = B.{pick}(W[r, c]);"));
                let _ = writeln!(self.out, "{pad}WM[r] = B;");
            }
            // A reduction into `gpu` data across blocks.
            4 => {
                let e = self.expr(2, None);
                let body = match self.g_op {
                    0 => format!("G += {e};"),
                    1 => format!("G = G.max({e});"),
                    _ => format!("G = G.min({e});"),
                };
                self.thread_map(indent, &body);
            }
            // Register data: written by one thread map, read by a later one
            // (iteration `c` runs on thread `c` both times).
            9 if nesting == 0 && self.threads >= 64 => {
                let e = self.expr(2, None);
                self.uses_p = true;
                self.thread_map(
                    indent,
                    &format!("for k in 0..3 {{ P[k] = {e} + (k as {t}); }}"),
                );
                let e = self.expr(2, None);
                let body = ["P[0] + P[1]", "P[2] ^ P[0]", "P[1] * P[2]"][self.rng.below(3)];
                self.thread_map(indent, &format!("Y[r, c] = ({body}) - {e};"));
            }
            // A block reduction into one element of `gpu` data.
            10 => {
                let e = self.expr(2, None);
                let body = match self.rng.below(3) {
                    0 => format!("Z[r] += {e};"),
                    1 => format!("Z[r] = Z[r].max({e});"),
                    _ => format!("Z[r] = Z[r].min({e});"),
                };
                self.thread_map(indent, &body);
            }
            // A block-level `let`.
            5 if nesting == 0 => {
                let e = self.block_expr();
                let name = format!("v{}", self.defined.lets.len());
                let _ = writeln!(self.out, "{pad}let {name} = {e};");
                self.defined.lets.push(name);
            }
            // A block-level store.
            6 => {
                let e = self.block_expr();
                let _ = writeln!(self.out, "{pad}Z[r] = {e};");
            }
            // A `for` loop around a thread map that updates a defined
            // row from the other one.
            7 if nesting < 2 && self.defined.rows.iter().all(|&d| d) => {
                let (k, other) = if self.rng.chance(50) { (0, 1) } else { (1, 0) };
                let trips = 1 + self.rng.below(3);
                let var = format!("k{}", self.maps);
                let _ = writeln!(self.out, "{pad}for {var} in 0i64..{trips}i64 {{");
                let body = format!(
                    "S{k}[c] = S{k}[c] + S{other}[(c + {var}) % C] * ({var} as {t} + 1{t});"
                );
                self.thread_map(indent + 4, &body);
                let _ = writeln!(self.out, "{pad}}}");
            }
            // An `if` every thread of a block takes alike.
            8 if nesting < 2 => {
                let cond = ["r % 2 == 0", "r > 1", "r < R - 1"][self.rng.below(3)];
                let _ = writeln!(self.out, "{pad}if {cond} {{");
                self.phase(indent + 4, nesting + 1);
                let _ = writeln!(self.out, "{pad}}}");
            }
            // A row of the output.
            _ => {
                let e = self.expr(3, None);
                self.thread_map(indent, &format!("Y[r, c] = {e};"));
            }
        }
    }
}
