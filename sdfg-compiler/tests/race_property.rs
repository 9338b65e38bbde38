//! The race test of parallel maps is sound: random maps that the front end
//! accepts have no race, checked by running every iteration.
//!
//! Each case is one `gpu` map over one to three parameters (constant and
//! symbolic bounds, inclusive ends, steps, triangles that read an earlier
//! parameter) whose body stores, reduces and reads 1-D and 2-D containers
//! with random subscripts: linear forms over the parameters, `for`
//! variables, immutable `let`s and symbols, and forms the dependence test
//! cannot read (products, `/`, `%`, indices loaded from data, mutable
//! locals), some under `if`s on the parameters. For a map the front end
//! accepts, the accesses of every iteration are enumerated for random
//! symbol values: no element may be written by one iteration and touched
//! by another (two reductions with one operator excepted). A call whose
//! accesses leave a container would fail its bounds check; those symbol
//! values are skipped.
//!
//! The same maps as thread maps (rectangular ranges, which may read the
//! block map's parameters and a block-level `let`) inside a random block
//! map of one to three warps with `shared` data, sometimes inside a
//! block-level `for`, sometimes followed by a second thread map and a
//! block-level store: within each run of a thread map no two iterations
//! may conflict, and no two block iterations may conflict on `gpu` data.
//! Each accepted block map also runs on the PTX interpreter, which reports
//! two threads meeting between barriers: the barriers the compiler placed
//! must order every phase.
//!
//! Deterministic: `SDFG_RACE_SEED` (default 17) and `SDFG_RACE_CASES`
//! (default 3000, about a second) choose the cases.

#[path = "race_property/draw.rs"]
mod draw;
#[path = "race_property/model.rs"]
mod model;
#[path = "race_property/run.rs"]
mod run;
#[path = "race_property/text.rs"]
mod text;

use draw::draw;
use run::{race, Outcome};
use sdfg_compiler::codegen::ptx::generate;
use sdfg_compiler::frontend_str;
use sdfg_compiler::ir::{Sdfg, Value};
use sdfg_testkit::harness::{simulate_map, Data};
use sdfg_testkit::rng::Rng;
use text::source;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// What the front end said about the cases, and the accepted cases that race.
#[derive(Default)]
struct Tally {
    accepted: u64,
    races: u64,
    other: Vec<String>,
    failures: Vec<String>,
}

/// `cases` random maps (thread maps in block maps when `in_block`) from
/// the seed: every accepted one is run for many symbol values.
fn judge(in_block: bool, seed: u64, cases: u64) -> Tally {
    let mut rng = Rng::new(seed);
    let mut t = Tally::default();
    for n in 0..cases {
        let case = draw(&mut rng, in_block);
        let text = source(&case);
        match frontend_str(&text) {
            Ok(sdfg) => {
                t.accepted += 1;
                let mut values = vec![[0, 0], [1, 1], [5, 3], [3, 7], [8, 8], [-2, 4]];
                for _ in 0..6 {
                    values.push([rng.below(12) as i64, rng.below(12) as i64]);
                }
                let mut interpreted = false;
                for symbols in values {
                    let failure = match race(&case, symbols) {
                        Outcome::Race(r) => Some(r),
                        // A block map's PTX on the interpreter, which
                        // reports two threads meeting between barriers
                        // (once per case: it is slower).
                        Outcome::NoRace if in_block && !interpreted => {
                            interpreted = true;
                            interpret(&sdfg, symbols).err()
                        }
                        _ => None,
                    };
                    if let Some(f) = failure {
                        t.failures.push(format!(
                            "case {n}: N = {}, M = {}: {f}\n  {text}",
                            symbols[0], symbols[1]
                        ));
                        break;
                    }
                }
            }
            Err(d) => {
                let all = d.to_string();
                // The race errors (of `m`, or of the block map `b`), and a
                // map reading what it reduces into.
                let judged = [
                    "iteration of `",
                    "iterations of `",
                    "every iteration",
                    "thread map `m",
                    "which also reduces into it",
                ];
                if judged.iter().any(|j| all.contains(j)) {
                    t.races += 1;
                } else {
                    t.other.push(format!("{text}\n  {all}"));
                }
            }
        }
    }
    eprintln!(
        "{cases} maps: {} accepted, {} refused as races, {} refused otherwise",
        t.accepted,
        t.races,
        t.other.len()
    );
    for o in t.other.iter().take(20) {
        eprintln!("  other: {o}");
    }
    assert!(
        t.failures.is_empty(),
        "{} accepted maps race:\n{}",
        t.failures.len(),
        t.failures.join("\n")
    );
    // The cases test something: most maps are judged, some accepted.
    assert!(
        t.accepted * 10 >= cases,
        "only {} of {cases} maps accepted",
        t.accepted
    );
    assert!(
        t.other.len() as u64 * 5 <= cases,
        "{} maps refused for other reasons",
        t.other.len()
    );
    t
}

/// Runs the block map of `sdfg` (its only kernel) on `ptxsim` over two
/// blocks, with the index data the enumeration assumes.
fn interpret(sdfg: &Sdfg, symbols: [i64; 2]) -> Result<(), String> {
    let module = generate(sdfg);
    let mut data = Data::new();
    for (c, container) in sdfg.containers.iter().enumerate() {
        let (shape, values): (Vec<usize>, Vec<Value>) = match container.name.text.as_str() {
            "I" => (
                vec![model::LEN as usize],
                (0..model::LEN)
                    .map(|k| Value::I32(((k * 7 + 3) % 11) as i32))
                    .collect(),
            ),
            "X" => (
                vec![model::SIDE as usize; 2],
                vec![Value::F64(0.5); (model::SIDE * model::SIDE) as usize],
            ),
            "A" | "B" => (
                vec![model::LEN as usize],
                vec![Value::F64(0.5); model::LEN as usize],
            ),
            _ => continue,
        };
        data.insert(c, (shape, values));
    }
    let symbols = symbols.map(|v| Value::I32(v as i32));
    simulate_map(sdfg, &module, 0, &symbols, &data, [2, 1, 1]).map(|_| ())
}

#[test]
fn accepted_maps_have_no_race() {
    let seed = env_number("SDFG_RACE_SEED", 17);
    judge(false, seed, env_number("SDFG_RACE_CASES", 3000));
}

/// Thread maps: their iterations within one run, and the block iterations
/// on `gpu` data.
#[test]
fn accepted_thread_maps_have_no_race() {
    let seed = env_number("SDFG_RACE_SEED", 17);
    judge(true, seed + 1, env_number("SDFG_RACE_CASES", 3000));
}
