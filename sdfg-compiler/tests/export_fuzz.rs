//! The exporters on many valid SDFGs: token-level mutations of the test
//! SDFGs (other literals, operators, schedules, storages) that the front end
//! accepts are drawn and exported; nothing may panic, and (with DaCe, see
//! export_dace.rs) DaCe must load and validate a sample of the exports.
//!
//! `SDFG_FUZZ_ITERS` sets the number of mutants per seed, `SDFG_FUZZ_SEED`
//! the seed.

mod common;

use sdfg_compiler::export::dace::to_sdfg_json_string;
use sdfg_compiler::export::dot::to_dot;
use sdfg_compiler::schedule::schedule;
use sdfg_testkit::quiet::catch_quietly;
use sdfg_testkit::rng::Rng;
use std::path::Path;

const MULTI_CHAR: [&str; 14] = [
    "..=", "..", "->", "+=", "-=", "*=", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>",
];

/// Words, numbers (with suffixes and decimals) and operators; comments dropped.
fn lex(src: &str) -> Vec<String> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            // A decimal point inside a number, not a range `0..N`.
            if c.is_ascii_digit()
                && chars.get(i) == Some(&'.')
                && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())
            {
                i += 1;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
            }
            out.push(chars[start..i].iter().collect());
        } else {
            let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
            let op = MULTI_CHAR
                .iter()
                .find(|m| rest.starts_with(*m))
                .map(|m| m.to_string())
                .unwrap_or_else(|| c.to_string());
            i += op.chars().count();
            out.push(op);
        }
    }
    out
}

/// One mutation that keeps the program plausible.
fn mutate(rng: &mut Rng, tokens: &mut [String]) {
    const GROUPS: [&[&str]; 5] = [
        &["+", "-", "*"],
        &["<", "<=", ">", ">="],
        &["gpu", "cpu", "seq"],
        &["host", "pinned", "gpu"],
        &["+=", "*="],
    ];
    for _ in 0..20 {
        let k = rng.below(tokens.len());
        let t = tokens[k].clone();
        if let Some(digits) = t.strip_suffix("i64").or(Some(t.as_str())) {
            if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) && digits.len() < 5
            {
                let suffix = &t[digits.len()..];
                let choices = ["0", "1", "2", "3", "7"];
                tokens[k] = format!("{}{suffix}", choices[rng.below(choices.len())]);
                return;
            }
        }
        if let Some(group) = GROUPS.iter().find(|g| g.contains(&t.as_str())) {
            tokens[k] = group[rng.below(group.len())].to_string();
            return;
        }
    }
}

fn iterations() -> usize {
    std::env::var("SDFG_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150)
}

#[test]
fn exporters_never_panic_and_dace_accepts_the_mutants() {
    let seed: u64 = std::env::var("SDFG_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed_e4b0);
    let mut rng = Rng::new(seed);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("export_fuzz");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let seeds: Vec<Vec<String>> = common::SOURCES.iter().map(|s| lex(s)).collect();
    let (mut accepted, mut written) = (0usize, 0usize);
    let mut failure = None;
    'outer: for (n, seed_tokens) in seeds.iter().enumerate() {
        for m in 0..iterations() {
            let mut tokens = seed_tokens.clone();
            for _ in 0..1 + rng.below(3) {
                mutate(&mut rng, &mut tokens);
            }
            let source = tokens.join(" ");
            let sdfg = match catch_quietly(|| sdfg_compiler::frontend_str(&source)) {
                Ok(Ok(sdfg)) => sdfg,
                Ok(Err(_)) => continue,
                Err(_) => {
                    failure = Some(("the front end", source));
                    break 'outer;
                }
            };
            accepted += 1;
            let exported = catch_quietly(|| {
                let sched = schedule(&sdfg);
                (to_dot(&sdfg, Some(&sched)), to_sdfg_json_string(&sdfg))
            });
            match exported {
                Ok((_, json)) => {
                    // A sample for DaCe: every 10th accepted mutant.
                    if accepted % 10 == 0 {
                        let name = format!("m{n}_{m}_{}", sdfg.name.text);
                        std::fs::write(dir.join(format!("{name}.sdfg")), json).unwrap();
                        std::fs::write(dir.join(format!("{name}.rs.txt")), &source).unwrap();
                        written += 1;
                    }
                }
                Err(_) => {
                    failure = Some(("an exporter", source));
                    break 'outer;
                }
            }
        }
    }
    if let Some((what, source)) = failure {
        panic!("{what} panicked on:\n{source}");
    }
    println!("{accepted} valid mutants exported, {written} kept for DaCe");
    assert!(accepted > 50, "too few mutants were valid: {accepted}");

    let Some(python) = common::dace::python_or_skip() else {
        return;
    };
    let (ok, text) = common::dace::check(&python, &["--validate-only".as_ref(), dir.as_os_str()]);
    assert!(
        ok,
        "DaCe rejected a mutant export:
{text}"
    );
}
