//! The front end (`frontend_str`) never panics on seeds, mutants, random
//! token streams or generated SDFGs, and every IR it accepts keeps the
//! invariants.

use crate::grammar::Gen;
use crate::inputs::{lex, mutate, random_stream, SEEDS};
use crate::invariants::check_invariants;
use crate::{iterations, seed};
use sdfg_testkit::quiet::catch_quietly;
use sdfg_testkit::rng::Rng;
use std::time::Instant;

/// Runs the front end; Err(message) when it panicked.
fn run(source: &str) -> Result<bool, String> {
    catch_quietly(|| match sdfg_compiler::frontend_str(source) {
        Ok(sdfg) => {
            check_invariants(&sdfg);
            true
        }
        Err(_) => false,
    })
    .map_err(crate::panic_message)
}

/// Runs `make_input` `n` times; fails on the first panic.
fn fuzz(name: &str, n: usize, mut make_input: impl FnMut(&mut Rng) -> String) {
    let mut rng = Rng::new(seed() ^ ((name.len() as u64) << 40));
    let started = Instant::now();
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
