//! Inputs made from tokens: the valid seed SDFGs, token-level mutations of
//! them, and random token streams from the grammar's vocabulary.

use crate::common;
use sdfg_testkit::rng::Rng;

pub const SEEDS: &[&str] = &[
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
pub const VOCAB: &[&str] = &[
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
pub fn lex(src: &str) -> Vec<String> {
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

pub fn mutate(rng: &mut Rng, tokens: &mut Vec<String>) {
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
pub fn random_stream(rng: &mut Rng) -> String {
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

/// Mutations that keep a program plausible (one token swapped within its
/// group), so most mutants pass the front end and reach code generation.
pub fn mutate_plausibly(rng: &mut Rng, tokens: &mut [String]) {
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
    // An earlier `mutate` may have truncated the stream to nothing.
    if tokens.is_empty() {
        return;
    }
    for _ in 0..20 {
        let k = rng.below(tokens.len());
        if let Some(group) = GROUPS.iter().find(|g| g.contains(&tokens[k].as_str())) {
            tokens[k] = group[rng.below(group.len())].to_string();
            return;
        }
    }
}
