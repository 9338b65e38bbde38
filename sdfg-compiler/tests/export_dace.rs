//! Exports the test SDFGs as DaCe `.sdfg` files and has DaCe itself load,
//! validate and (for host-only SDFGs) compile and run them, comparing
//! DaCe's results with ours (ci/dace_check.py).
//!
//! DaCe is found through `SDFG_DACE_PYTHON` (a python with dace==1.0.2).
//! Without it the DaCe part is skipped with a printed line, unless
//! `SDFG_REQUIRE_DACE=1`, which makes its absence a failure (CI sets it).
//! `SDFG_EXPORT_DIR` keeps the files somewhere to look at.

mod common;

use common::*;
use sdfg_compiler::export::dace::{dtype_name, to_sdfg_json, to_sdfg_json_string};
use sdfg_compiler::ir::Sdfg;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// One CPU run: free symbols, every argument container's initial contents
/// (flat, row-major), and the outputs our execution produced.
struct Run {
    symbols: Vec<(&'static str, i64)>,
    arrays: Vec<(&'static str, Vec<Value>)>,
    expected: Vec<(&'static str, Vec<Value>)>,
}

fn ints(v: impl IntoIterator<Item = i64>) -> Vec<Value> {
    v.into_iter().map(|x| json!(x)).collect()
}

/// Floats in JSON: numbers, and `"nan"`, `"inf"`, `"-inf"` (JSON has none).
fn floats(v: impl IntoIterator<Item = f64>) -> Vec<Value> {
    v.into_iter()
        .map(|x| {
            if x.is_nan() {
                json!("nan")
            } else if x.is_infinite() {
                json!(if x > 0.0 { "inf" } else { "-inf" })
            } else {
                json!(x)
            }
        })
        .collect()
}

/// Our results for the host-only SDFGs.
///
/// Computed here by hand from each SDFG's meaning until the reference
/// evaluator (`sdfg_compiler::eval`) or the CPU device of the runtime can
/// run a whole SDFG; then this becomes "run it with ours and record the
/// outputs", and the inputs stay as they are.
fn host_runs() -> Vec<(Sdfg, Run)> {
    let mut out = Vec::new();

    // WcrSum: S[0] += A[i] for i in 0..N.
    let a: Vec<i64> = (0..100).map(|i| i * i - 50).collect();
    out.push((
        wcr_sum(),
        Run {
            symbols: vec![("N", 100)],
            arrays: vec![("A", ints(a.clone())), ("S", ints([7]))],
            expected: vec![("S", ints([7 + a.iter().sum::<i64>()]))],
        },
    ));

    // CopySubsets: B[0..10] = A[2..12]; V[0..3] = M[2, 1..4].
    let a: Vec<i64> = (0..20).map(|i| i * 3).collect();
    let m: Vec<i64> = (0..4)
        .flat_map(|r| (0..5).map(move |c| 10 * r + c))
        .collect();
    out.push((
        copy_subsets(),
        Run {
            symbols: vec![],
            arrays: vec![
                ("A", ints(a.clone())),
                ("B", ints([-1; 10])),
                ("M", ints(m.clone())),
                ("V", ints([-1; 3])),
            ],
            expected: vec![
                ("B", ints(a[2..12].to_vec())),
                ("V", ints(m[11..14].to_vec())),
            ],
        },
    ));

    // CpuOnly: v = 3 X[i]; Y[i] = v > 10 ? v - 10 : v; total = sum(Y) / 2 (truncating).
    let x: Vec<i64> = (0..8).map(|i| i * 2 - 3).collect();
    let y: Vec<i64> = x
        .iter()
        .map(|&v| 3 * v)
        .map(|v| if v > 10 { v - 10 } else { v })
        .collect();
    let total = y.iter().sum::<i64>() / 2;
    out.push((
        cpu_only(),
        Run {
            symbols: vec![("N", 8)],
            arrays: vec![("X", ints(x)), ("Y", ints([0; 8])), ("total", ints([0]))],
            expected: vec![("Y", ints(y)), ("total", ints([total]))],
        },
    ));

    // Semantics: the expected values follow the tasklet language's rules
    // (DESIGN / ir::expr), written out with Rust's own operations.
    let (a, c, m) = (7i64, -7i64, i64::MIN);
    // `f64::NAN as i64` below is meant: it spells Rust's saturating cast
    // (NaN -> 0), which the C++ export must reproduce.
    #[allow(clippy::cast_nan_to_int)]
    let out_sem = vec![
        0,     // a / 0
        a,     // a % 0
        c / 2, // truncating
        c % 2,
        m.wrapping_div(-1), // MIN / -1 == MIN
        m.wrapping_rem(-1), // 0
        a.wrapping_shl(65), // amount masked to 1
        c.wrapping_shr(65), // arithmetic
        1,
        (a as f64 * 2.5) as i64,
        !a,
        c.wrapping_abs(),
        a.min(c),
        (1..10).step_by(3).sum::<i64>(),
        11,
        100,
        5,
        (i64::MAX - 5..i64::MAX).step_by(4).count() as i64,
        0, // step 0: no iteration (ir::expr; Rust's step_by would panic)
        f64::NAN as i64,
        (2.0f64 * 1e300) as i64,
        (2.0f64 * -1e300) as i32 as i64,
    ];
    let fout_sem = [
        floats([f64::NAN.min(1.5)]),
        floats([2f64.sqrt()]),
        floats([(-0.5f64).max(f64::NAN)]),
        floats([1.0 / 0.0]),
        floats([f64::NAN]),
        floats([2f64.powi(3)]),
        floats([(2.0f64 * -1.25).floor()]),
    ]
    .concat();
    out.push((
        semantics(),
        Run {
            symbols: vec![],
            arrays: vec![
                ("inp", ints([7, 0, -7, i64::MIN, -1, 65])),
                ("fin", floats([0.0, 2.0])),
                ("out", ints([0; 22])),
                ("fout", floats([0.0; 7])),
                ("f32out", floats([0.0])),
            ],
            expected: vec![
                ("out", ints(out_sem)),
                ("fout", fout_sem),
                ("f32out", floats([(2.0f32 * 0.1f32) as f64])),
            ],
        },
    ));

    // Reductions2: min, max, product over every third element, sum of i * j.
    let a: Vec<i64> = (0..10).map(|i| (i * 7) % 11 - 5).collect();
    let init = [i64::MAX, i64::MIN, 1, 100];
    let product: i64 = a.iter().step_by(3).product();
    let sum_ij: i64 = (0..4).flat_map(|i| (0..3).map(move |j| i * j)).sum();
    out.push((
        reductions2(),
        Run {
            symbols: vec![("N", 10)],
            arrays: vec![("A", ints(a.clone())), ("R", ints(init))],
            expected: vec![(
                "R",
                ints([
                    *a.iter().min().unwrap(),
                    *a.iter().max().unwrap(),
                    product,
                    100 + sum_ij,
                ]),
            )],
        },
    ));

    // LoopCond: body runs with k = 0, 1, 2, 3: A[i] += 6.
    let a: Vec<i64> = (0..5).collect();
    out.push((
        loop_cond(),
        Run {
            symbols: vec![("N", 5)],
            arrays: vec![("A", ints(a.clone()))],
            expected: vec![("A", ints(a.iter().map(|v| v + 6)))],
        },
    ));

    // WrappingIndex: indices through casts that wrap (`u8`, `i8`), which
    // DaCe must compute as ours do, not as the unbounded `i + S`.
    let a: Vec<i64> = (0..300).map(|i| 1000 + i).collect();
    let (n, s) = (20i64, 250i64);
    let b: Vec<i64> = (0..n).map(|i| a[((i + s) as u8) as usize]).collect();
    let c: Vec<i64> = (0..n)
        .map(|i| a[(((i + s) as i8) as i64 + 128) as usize])
        .collect();
    let d = a[((s * 3) as u8) as usize];
    out.push((
        wrapping_index(),
        Run {
            symbols: vec![("N", n), ("S", s)],
            arrays: vec![
                ("A", ints(a)),
                ("B", ints(vec![0; n as usize])),
                ("C", ints(vec![0; n as usize])),
                ("D", ints([0])),
            ],
            expected: vec![("B", ints(b)), ("C", ints(c)), ("D", ints([d]))],
        },
    ));
    // IndexOperators: every integer operator of the tasklet language in an
    // index, which DaCe must read at the same element.
    let a: Vec<i64> = (0..300).map(|i| 1000 + i).collect();
    let at = |f: fn(i64) -> i64| -> Vec<Value> { ints((0..20).map(|i| a[f(i) as usize])) };
    let outputs = ["B0", "B1", "B2", "B3", "B4", "B5", "B6", "B7"];
    let mut arrays = vec![("A", ints(a.clone()))];
    arrays.extend(outputs.iter().map(|&b| (b, ints([0; 20]))));
    let want: [fn(i64) -> i64; 8] = [
        |i| i & 7,
        |i| i | 16,
        |i| i ^ 5,
        |i| i % 3,
        |i| i / 3,
        |i| i.min(7),
        |i| (i << 2) >> 1,
        |i| if i > 9 { i } else { 2 * i },
    ];
    out.push((
        index_operators(),
        Run {
            symbols: vec![("N", 20)],
            arrays,
            expected: outputs.iter().zip(want).map(|(&b, f)| (b, at(f))).collect(),
        },
    ));

    // EdgeOperators: the same operators, and casts that wrap (of a
    // negative value too), in edge assignments; `%` and `/` of a negative
    // value truncate in DaCe's generated code as here; shift amounts are
    // masked to the width.
    let s = 45i64;
    let k = [
        s & 7,
        s | 16,
        s ^ 5,
        s % 3,
        s / 3,
        s.min(7),
        (s << 2) >> 1,
        if s > 9 { s } else { 2 * s },
        ((s * 7) as u8) as i64,
        ((-s) as u8) as i64,
        ((-s - 100) as i8) as i64,
        ((-s) as u64) as i64,
        (-s) % 7,
        (-s) / 2,
        s.wrapping_shl(65),
        (-s).wrapping_shr(70),
    ];
    out.push((
        edge_operators(),
        Run {
            symbols: vec![("S", s)],
            arrays: vec![("D", ints([0; 16]))],
            expected: vec![("D", ints(k))],
        },
    ));
    out
}

/// Every integer operator in an index (`host_runs`).
fn index_operators() -> Sdfg {
    sdfg_compiler::frontend_str(
        "sdfg IndexOperators {
           symbol N: i64;
           host A: i64[300];
           host B0: i64[N]; host B1: i64[N]; host B2: i64[N]; host B3: i64[N];
           host B4: i64[N]; host B5: i64[N]; host B6: i64[N]; host B7: i64[N];
           state s {
             map m[i in 0..N] on cpu {
               B0[i] = A[i & 7]; B1[i] = A[i | 16]; B2[i] = A[i ^ 5]; B3[i] = A[i % 3];
               B4[i] = A[i / 3]; B5[i] = A[i.min(7)]; B6[i] = A[(i << 2) >> 1];
               B7[i] = A[if i > 9 { i } else { 2 * i }];
             }
           }
         }",
    )
    .expect("a valid program")
}

#[test]
fn an_edge_that_assigns_from_its_own_targets_has_no_dace_form() {
    use sdfg_compiler::export::dace::unexportable;
    // sdfg-rs computes `t = t + 1; u = u * 3 + t` at once (u from the old
    // t); DaCe validates no edge whose assignment reads another's target.
    let counter = sdfg_compiler::frontend_str(
        "sdfg EdgeOrder {
           symbol T: i64;
           host D: i64[2];
           state init {}
           state step {}
           state done { tasklet w { D[0] = t; D[1] = u; } }
           init -> step { t = 0; u = 1 }
           step -> step if t + 1 < T { t = t + 1; u = u * 3 + t }
           step -> done;
         }",
    )
    .expect("a valid program");
    let why = unexportable(&counter).expect("DaCe refuses the edge");
    assert!(
        why.contains("`step` -> `step` assigns `u` from `t`") && why.contains("help: route"),
        "{why}"
    );
}

/// Integer operators and casts that wrap in edge assignments (`host_runs`).
fn edge_operators() -> Sdfg {
    sdfg_compiler::frontend_str(
        "sdfg EdgeOperators {
           symbol S: i64;
           host D: i64[16];
           state s {}
           state t {
             tasklet w {
               D[0] = K0; D[1] = K1; D[2] = K2; D[3] = K3; D[4] = K4; D[5] = K5;
               D[6] = K6; D[7] = K7; D[8] = K8; D[9] = K9; D[10] = K10; D[11] = K11;
               D[12] = K12; D[13] = K13; D[14] = K14; D[15] = K15;
             }
           }
           s -> t {
             K0 = S & 7; K1 = S | 16; K2 = S ^ 5; K3 = S % 3; K4 = S / 3; K5 = S.min(7);
             K6 = (S << 2) >> 1; K7 = if S > 9 { S } else { 2 * S };
             K8 = ((S * 7) as u8) as i64; K9 = ((-S) as u8) as i64;
             K10 = ((-S - 100) as i8) as i64; K11 = ((-S) as u64) as i64;
             K12 = (-S) % 7; K13 = (-S) / 2; K14 = S << 65; K15 = (-S) >> 70
           }
         }",
    )
    .expect("a valid program")
}

/// Indices and an edge assignment through integer casts that wrap
/// (`host_runs`).
fn wrapping_index() -> Sdfg {
    sdfg_compiler::frontend_str(
        "sdfg WrappingIndex {
           symbol N: i64; symbol S: i64;
           host A: i64[300]; host B: i64[N]; host C: i64[N]; host D: i64[1];
           state s {
             map m[i in 0..N] on cpu {
               B[i] = A[((i + S) as u8) as i64];
               C[i] = A[(((i + S) as i8) as i64) + 128];
             }
           }
           state t { tasklet d { D[0] = A[K]; } }
           s -> t { K = ((S * 3) as u8) as i64 }
         }",
    )
    .expect("a valid program")
}

fn run_json(sdfg: &Sdfg, run: &Run) -> Value {
    let mut arrays = serde_json::Map::new();
    for (name, data) in &run.arrays {
        let c = &sdfg.containers[sdfg.container_by_name(name).expect("container")];
        // Test shapes are literals or the symbol values of this run.
        let shape: Vec<i64> = if c.is_scalar() {
            vec![]
        } else {
            vec![data.len() as i64]
        };
        arrays.insert(
            name.to_string(),
            json!({"dtype": dtype_name(c.elem), "shape": shape, "data": data}),
        );
    }
    let symbols: serde_json::Map<String, Value> = run
        .symbols
        .iter()
        .map(|(n, v)| (n.to_string(), json!(v)))
        .collect();
    let expected: serde_json::Map<String, Value> = run
        .expected
        .iter()
        .map(|(n, v)| (n.to_string(), json!(v)))
        .collect();
    json!({"symbols": symbols, "arrays": arrays, "expected": expected})
}

fn export_dir() -> PathBuf {
    let dir = match std::env::var_os("SDFG_EXPORT_DIR") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_TARGET_TMPDIR")).join("export_dace"),
    };
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the export directory");
    dir
}

/// Writes every test SDFG (GPU ones: validation only) and the run specs.
fn write_all(dir: &Path) {
    let host = host_runs();
    for sdfg in [repro(), jacobi2d(), streams(), manual(), nested_gpu()]
        .into_iter()
        .chain(block_maps())
    {
        // DaCe 1.0.2 validates `GPU_Shared` arrays sized by symbols but does
        // not generate code for them ("Dynamic shared memory unsupported"):
        // those SDFGs are validated only.
        let dir = if has_dynamic_shared(&sdfg) {
            dir.join("validate_only")
        } else {
            dir.to_path_buf()
        };
        std::fs::create_dir_all(&dir).expect("create the export directory");
        let path = dir.join(format!("{}.sdfg", sdfg.name.text));
        std::fs::write(path, to_sdfg_json_string(&sdfg)).expect("write .sdfg");
    }
    for (sdfg, run) in &host {
        let name = &sdfg.name.text;
        std::fs::write(dir.join(format!("{name}.sdfg")), to_sdfg_json_string(sdfg))
            .expect("write .sdfg");
        let spec = serde_json::to_string_pretty(&run_json(sdfg, run)).expect("json");
        std::fs::write(dir.join(format!("{name}.run.json")), spec).expect("write .run.json");
    }
}

/// Whether a block map of `sdfg` has `shared` data whose shape uses symbols.
fn has_dynamic_shared(sdfg: &Sdfg) -> bool {
    sdfg.containers.iter().any(|c| {
        c.storage == sdfg_compiler::ir::Storage::Shared
            && c.shape
                .iter()
                .any(|d| sdfg_compiler::ir::linear::constant_value(d).is_none())
    })
}

#[test]
fn dace_loads_validates_and_runs_the_exports() {
    let dir = export_dir();
    write_all(&dir);
    let Some(python) = common::dace::python_or_skip() else {
        return;
    };
    let (ok, text) = common::dace::check(&python, &[dir.as_os_str()]);
    assert!(
        ok,
        "DaCe rejected an export:
{text}"
    );
    let only = dir.join("validate_only");
    let (ok, text) = common::dace::check(
        &python,
        &[std::ffi::OsStr::new("--validate-only"), only.as_os_str()],
    );
    assert!(ok, "DaCe rejected an export:\n{text}");
}

/// The structural facts DaCe relies on, checked without DaCe.
#[test]
fn json_structure() {
    let j = to_sdfg_json(&repro());
    assert_eq!(j["type"], "SDFG");
    assert_eq!(j["start_block"], 0);
    let arrays = &j["attributes"]["_arrays"];
    assert_eq!(arrays["T_GPU"]["attributes"]["storage"], "GPU_Global");
    // Written scalar argument: a one-element array (DaCe passes Scalars by value).
    assert_eq!(arrays["T_GPU"]["type"], "Array");
    assert_eq!(arrays["T"]["type"], "Scalar");
    assert_eq!(arrays["T"]["attributes"]["transient"], true);
    assert_eq!(arrays["X"]["attributes"]["shape"], json!(["X_size"]));
    // Inferred symbols are typed too.
    assert_eq!(j["attributes"]["symbols"]["R"], "int32");
    assert_eq!(j["attributes"]["symbols"]["S"], "bool");
    let e = &j["edges"][0]["attributes"]["data"]["attributes"];
    assert_eq!(e["assignments"]["R"], "T");
    assert_eq!(e["assignments"]["S"], "False");

    // first: the GPU map (entry, tasklet, exit), the copy edge, the host tasklet.
    let first = &j["nodes"][0];
    let kinds: Vec<&str> = first["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.iter().filter(|k| **k == "MapEntry").count(), 1);
    assert_eq!(kinds.iter().filter(|k| **k == "Tasklet").count(), 2);
    for (i, n) in first["nodes"].as_array().unwrap().iter().enumerate() {
        assert_eq!(n["id"], i, "node ids are positions");
    }
    let entry = first["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["type"] == "MapEntry")
        .unwrap();
    assert_eq!(entry["attributes"]["schedule"], "GPU_Device");
    // 0..1 is DaCe's inclusive 0:0.
    assert_eq!(entry["attributes"]["range"]["ranges"][0]["end"], "0");
    let copy = first["edges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            !e["attributes"]["data"]["attributes"]["other_subset"].is_null()
                && e["src_connector"].is_null()
        })
        .expect("the copy is an access -> access edge with other_subset");
    assert_eq!(copy["attributes"]["data"]["attributes"]["data"], "T_GPU");

    // Jacobi: hull of A[i, j - 1] .. A[i + 1, j] over 1..N-1 is 0..=N-1.
    let j = to_sdfg_json(&jacobi2d());
    let step = &j["nodes"][1];
    let outer_a = step["edges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["dst_connector"] == "IN_A")
        .unwrap();
    let r = &outer_a["attributes"]["data"]["attributes"]["subset"]["ranges"];
    assert_eq!(r[0]["start"], "0");
    assert_eq!(r[0]["end"], "N - 1");
    // Edges out of `step` exclude each other.
    let cond = |k: usize| {
        j["edges"][k]["attributes"]["data"]["attributes"]["condition"]["string_data"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(cond(1), "t + 1 < TSTEPS");
    assert_eq!(cond(2), "(t + 1 >= TSTEPS) and not ((t + 1 < TSTEPS))");

    // WCR: the lambda on both memlets of the reduction.
    let j = to_sdfg_json(&wcr_sum());
    let wcrs = j["nodes"][0]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["attributes"]["data"]["attributes"]["wcr"] == "lambda a, b: a + b")
        .count();
    assert_eq!(wcrs, 2);
}
