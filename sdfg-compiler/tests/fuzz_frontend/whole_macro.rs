//! The whole macro: `expand()` (front end, schedule, PTX, host glue, the
//! exporters it embeds) on generated SDFGs and on mutations of the seeds.
//! Nothing may panic; an accepted input must expand to Rust items, and a
//! sample of the accepted kernels must assemble with ptxas (when found).

use crate::grammar::{typed_sdfg, Gen};
use crate::inputs::{lex, mutate, mutate_plausibly, SEEDS};
use crate::{iterations, seed};
use sdfg_testkit::quiet::catch_quietly;
use sdfg_testkit::rng::Rng;
use std::time::Instant;

/// What the whole macro made of one input.
#[derive(Default)]
struct Expanded {
    accepted: usize,
    assembled: usize,
}

/// Runs `expand()` on `source`; Err(message) when anything panicked.
fn run_expand(source: &str, check_ptx: bool, tally: &mut Expanded) -> Result<(), String> {
    let outcome = catch_quietly(|| {
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
        Err(e) => Err(crate::panic_message(e)),
    }
}

/// Runs `make_input` `n` times through `expand()`; fails on the first panic.
fn fuzz_expand(name: &str, n: usize, mut make_input: impl FnMut(&mut Rng) -> String) {
    let mut rng = Rng::new(seed() ^ ((name.len() as u64) << 32));
    let started = Instant::now();
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
