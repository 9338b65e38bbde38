//! A random map as `sdfg!` source.

use super::model::*;
use std::fmt::Write as _;

const PARAMS: [&str; 3] = ["i", "j", "l"];

fn var_name(v: Var) -> String {
    match v {
        Var::Symbol(s) => SYMBOLS[s].to_string(),
        Var::Param(p) => PARAMS[p].to_string(),
        Var::Loop(d) => format!("k{d}"),
        Var::Let(n) => format!("t{n}"),
        Var::Mut(n) => format!("u{n}"),
        Var::Block(k) => format!("b{k}"),
        Var::BlockLet => "s0".to_string(),
        Var::Group => "g".to_string(),
    }
}

fn lin_text(l: &Lin) -> String {
    let mut s = String::new();
    for (v, k) in &l.terms {
        let name = var_name(*v);
        match (*k, s.is_empty()) {
            (1, true) => s.push_str(&name),
            (1, false) => write!(s, " + {name}").unwrap(),
            (-1, true) => write!(s, "-{name}").unwrap(),
            (-1, false) => write!(s, " - {name}").unwrap(),
            (k, true) => write!(s, "{k} * {name}").unwrap(),
            (k, false) if k < 0 => write!(s, " - {} * {name}", -k).unwrap(),
            (k, false) => write!(s, " + {k} * {name}").unwrap(),
        }
    }
    match (l.constant, s.is_empty()) {
        (c, true) => format!("{c}"),
        (0, false) => s,
        (c, false) if c < 0 => format!("{s} - {}", -c),
        (c, false) => format!("{s} + {c}"),
    }
}

fn index_text(i: &Index) -> String {
    match i {
        Index::Lin(l) => lin_text(l),
        Index::Product(a, b, c) => format!("{} * {} + {c}", var_name(*a), var_name(*b)),
        Index::Div(l, d) => format!("({}) / {d}", lin_text(l)),
        Index::Rem(l, d) => format!("({}) % {d}", lin_text(l)),
        Index::Loaded(l) => format!("I[{}]", lin_text(l)),
    }
}

fn access_text(a: &Access) -> String {
    let name = NAMES[a.container];
    let index: Vec<String> = a.index.iter().map(index_text).collect();
    format!("{name}[{}]", index.join(", "))
}

fn stmts_text(stmts: &[Stmt], out: &mut String) {
    for s in stmts {
        match s {
            Stmt::Store {
                target,
                kind,
                reads,
            } => {
                let mut value: Vec<String> = reads.iter().map(access_text).collect();
                value.push("1.5".into());
                let op = match kind {
                    Kind::Sum => "+=",
                    Kind::Product => "*=",
                    _ => "=",
                };
                write!(out, "{} {op} {}; ", access_text(target), value.join(" + ")).unwrap();
            }
            Stmt::For {
                depth,
                start,
                end,
                body,
            } => {
                write!(
                    out,
                    "for k{depth} in {}..{} {{ ",
                    lin_text(start),
                    lin_text(end)
                )
                .unwrap();
                stmts_text(body, out);
                out.push_str("} ");
            }
            Stmt::If {
                var,
                op,
                value,
                then,
                otherwise,
            } => {
                let op = op.symbol();
                write!(out, "if {} {op} {} {{ ", var_name(*var), lin_text(value)).unwrap();
                stmts_text(then, out);
                out.push_str("} ");
                if !otherwise.is_empty() {
                    out.push_str("else { ");
                    stmts_text(otherwise, out);
                    out.push_str("} ");
                }
            }
            Stmt::Let { id, value } => write!(out, "let t{id} = {}; ", lin_text(value)).unwrap(),
            Stmt::Mut { id, value, step } => write!(
                out,
                "let mut u{id} = {}; u{id} = u{id} + {step}; ",
                lin_text(value)
            )
            .unwrap(),
        }
    }
}

/// `p in a..b`, `p in (a..=b).step_by(s)`.
fn range_text(name: &str, p: &Param) -> String {
    let dots = if p.inclusive { "..=" } else { ".." };
    let range = format!("{}{dots}{}", lin_text(&p.start), lin_text(&p.end));
    match p.step {
        Some(s) => format!("{name} in ({range}).step_by({s})"),
        None => format!("{name} in {range}"),
    }
}

/// `map NAME[..] on KIND { body }`.
fn map_text(name: &str, params: &[Param], body: &[Stmt], kind: &str) -> String {
    let ranges: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(k, p)| range_text(&var_name(Var::Param(k)), p))
        .collect();
    let mut text = String::new();
    stmts_text(body, &mut text);
    format!("map {name}[{}] on {kind} {{ {text}}}", ranges.join(", "))
}

/// The whole SDFG of `case`.
pub fn source(case: &Case) -> String {
    let state = match &case.block {
        None => map_text("m", &case.params, &case.body, "gpu"),
        Some(b) => {
            let ranges: Vec<String> = b
                .params
                .iter()
                .enumerate()
                .map(|(k, p)| range_text(&var_name(Var::Block(k)), p))
                .collect();
            let mut text = format!(
                "map b[{}] on gpu block({}) {{ shared S: f64[{LEN}]; \
                 map init[q in 0..{LEN}] on threads {{ S[q] = 0.0; }} ",
                ranges.join(", "),
                b.threads
            );
            if let Some(v) = &b.let_value {
                write!(text, "let s0 = {}; ", lin_text(v)).unwrap();
            }
            let mut maps = map_text("m", &case.params, &case.body, "threads");
            if let Some((params, body)) = &b.second {
                write!(maps, " {}", map_text("m2", params, body, "threads")).unwrap();
            }
            match b.group {
                Some(n) => write!(text, "for g in 0..{n} {{ {maps} }} ").unwrap(),
                None => write!(text, "{maps} ").unwrap(),
            }
            if let Some((target, read)) = &b.store {
                write!(
                    text,
                    "{} = {} + 1.5; ",
                    access_text(target),
                    access_text(read)
                )
                .unwrap();
            }
            text.push('}');
            text
        }
    };
    format!(
        "sdfg S {{ symbol N: i32; symbol M: i32; \
         gpu A: f64[{LEN}]; gpu B: f64[{LEN}]; gpu X: f64[{SIDE}, {SIDE}]; gpu I: i32[{LEN}]; \
         state s {{ {state} }} }}"
    )
}
