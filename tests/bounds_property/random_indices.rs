//! The interpreted check: prechecks, then the map's PTX on `ptxsim`,
//! compared with the evaluator on random cases.

use crate::cases::*;
use crate::env_number;
use crate::prechecks::*;
use crate::reference::*;
use sdfg::compiler::codegen::ptx::generate;
use sdfg::compiler::ir::bounds::for_each_access;
use sdfg_testkit::harness::{same_value, simulate_map_fault_allowing_races};
use sdfg_testkit::rng::Rng;

#[derive(Default, Debug)]
struct Tally {
    passed_in_bounds: u32,
    refused_out_of_bounds: u32,
    refused_wrap: u32,
    kernel_faults: u32,
}

#[test]
fn random_indices_never_touch_outside_a_buffer() {
    let seed = env_number("SDFG_BOUNDS_SEED", 13);
    let cases = env_number("SDFG_BOUNDS_CASES", 250);
    let mut rng = Rng::new(seed);
    let mut tally = Tally::default();
    for n in 0..cases {
        let case = random_case(&mut rng);
        let what = format!(
            "case {n} (seed {seed}): {:#?}\nsymbols {:?}",
            the_map(&case.sdfg).body.stmts,
            case.symbols
        );
        let (want, faults, fault_at) = evaluate_map(&case);
        match prechecks(&case) {
            Err(Refusal::OutOfBounds(c)) => {
                assert!(
                    faults.contains(&c),
                    "{what}: refused, but no access leaves `{c}`"
                );
                tally.refused_out_of_bounds += 1;
            }
            Err(Refusal::Wrap) => tally.refused_wrap += 1,
            Ok(()) => {
                let module = generate(&case.sdfg);
                // Random indices may write one element from two threads.
                let (got, fault) = simulate_map_fault_allowing_races(
                    &case.sdfg,
                    &module,
                    0,
                    &case.symbols,
                    &case.data,
                    [2, 2, 1],
                )
                .unwrap_or_else(|e| {
                    panic!("{what}: the kernel touched memory outside a buffer: {e}")
                });
                if faults.is_empty() {
                    assert_eq!(
                        fault, None,
                        "{what}: a fault without an out-of-bounds access"
                    );
                    for (c, (_, w)) in &want {
                        for (k, (a, b)) in got[c].1.iter().zip(w).enumerate() {
                            assert!(
                                same_value(*a, *b),
                                "{what}: container {c}[{k}]: ptx {a} vs eval {b}"
                            );
                        }
                    }
                    tally.passed_in_bounds += 1;
                } else {
                    // The access code numbers the accesses in
                    // `for_each_access` order; the index is the element's.
                    let mut sites = Vec::new();
                    for_each_access(&the_map(&case.sdfg).body.stmts, &mut |s| {
                        sites.push(s.container)
                    });
                    let named = fault.and_then(|f| {
                        let c = *sites.get((f.access as usize).checked_sub(1)?)?;
                        Some((c, f.index))
                    });
                    assert!(
                        named.is_some_and(|at| fault_at.contains(&at)),
                        "{what}: accesses left {fault_at:?}, the kernel reports {fault:?}"
                    );
                    tally.kernel_faults += 1;
                }
            }
        }
    }
    println!("{tally:?}");
    // Every outcome occurs, so each assertion above was exercised.
    assert!(
        tally.passed_in_bounds > 0 && tally.refused_out_of_bounds > 0,
        "{tally:?}"
    );
    assert!(
        tally.refused_wrap > 0 && tally.kernel_faults > 0,
        "{tally:?}"
    );
}
