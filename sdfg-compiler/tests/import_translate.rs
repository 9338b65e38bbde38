//! The translation of DaCe elements, one at a time, on small SDFGs written
//! as DaCe writes them (JSON built here): what each becomes in the DSL,
//! that the front end accepts it, and the errors for what is not read.

use serde_json::{json, Value};

fn range(start: &str, end: &str) -> Value {
    json!({"start": start, "end": end, "step": "1", "tile": "1"})
}

fn memlet(data: &str, ranges: Vec<Value>) -> Value {
    json!({"type": "Memlet", "attributes": {"data": data, "subset": {"type": "Range", "ranges": ranges}}})
}

fn wcr_memlet(data: &str, ranges: Vec<Value>, wcr: &str) -> Value {
    let mut m = memlet(data, ranges);
    m["attributes"]["wcr"] = json!(wcr);
    m
}

fn edge(src: usize, sc: Option<&str>, dst: usize, dc: Option<&str>, memlet: Value) -> Value {
    json!({"type": "MultiConnectorEdge", "attributes": {"data": memlet},
           "src": src.to_string(), "dst": dst.to_string(), "src_connector": sc, "dst_connector": dc})
}

fn access(id: usize, data: &str, scope: Option<usize>) -> Value {
    json!({"type": "AccessNode", "label": data, "attributes": {"data": data}, "id": id,
           "scope_entry": scope.map(|s| s.to_string()), "scope_exit": null})
}

fn tasklet(id: usize, label: &str, code: &str, lang: &str, scope: Option<usize>) -> Value {
    json!({"type": "Tasklet", "label": label,
           "attributes": {"label": label, "code": {"string_data": code, "language": lang}},
           "id": id, "scope_entry": scope.map(|s| s.to_string()), "scope_exit": null})
}

fn map_entry(
    id: usize,
    label: &str,
    params: &[&str],
    ranges: Vec<Value>,
    schedule: &str,
    exit: usize,
    scope: Option<usize>,
) -> Value {
    json!({"type": "MapEntry", "label": label,
           "attributes": {"label": label, "params": params, "range": {"type": "Range", "ranges": ranges}, "schedule": schedule},
           "id": id, "scope_entry": scope.map(|s| s.to_string()), "scope_exit": exit.to_string()})
}

fn map_exit(id: usize, entry: usize) -> Value {
    json!({"type": "MapExit", "label": "exit", "attributes": {}, "id": id,
           "scope_entry": entry.to_string(), "scope_exit": id.to_string()})
}

fn array(dtype: &str, shape: &[&str]) -> Value {
    json!({"type": "Array", "attributes": {"dtype": dtype, "shape": shape}})
}

fn sdfg(arrays: Value, symbols: Value, states: Vec<Value>, edges: Vec<Value>) -> String {
    json!({"type": "SDFG", "attributes": {"name": "t", "_arrays": arrays, "symbols": symbols},
           "nodes": states, "edges": edges, "start_block": 0})
    .to_string()
}

fn state(label: &str, nodes: Vec<Value>, edges: Vec<Value>) -> Value {
    json!({"type": "SDFGState", "label": label, "nodes": nodes, "edges": edges})
}

/// One map `m[i = 0:N-1]` (schedule `schedule`) with one tasklet reading
/// `A[i]` into `__in` and writing `__out` to `B[i]` (with `wcr`).
fn one_map(code: &str, lang: &str, a: &str, b: &str, wcr: Option<&str>) -> String {
    let out = match wcr {
        Some(w) => wcr_memlet("B", vec![range("i", "i")], w),
        None => memlet("B", vec![range("i", "i")]),
    };
    sdfg(
        json!({"A": array(a, &["N"]), "B": array(b, &["N"])}),
        json!({"N": "int64"}),
        vec![state(
            "s",
            vec![
                access(0, "A", None),
                map_entry(
                    1,
                    "m",
                    &["i"],
                    vec![range("0", "N - 1")],
                    "CPU_Multicore",
                    3,
                    None,
                ),
                tasklet(2, "t", code, lang, Some(1)),
                map_exit(3, 1),
                access(4, "B", None),
            ],
            vec![
                edge(
                    0,
                    None,
                    1,
                    Some("IN_A"),
                    memlet("A", vec![range("0", "N - 1")]),
                ),
                edge(
                    1,
                    Some("OUT_A"),
                    2,
                    Some("__in"),
                    memlet("A", vec![range("i", "i")]),
                ),
                edge(2, Some("__out"), 3, Some("IN_B"), out),
                edge(
                    3,
                    Some("OUT_B"),
                    4,
                    None,
                    memlet("B", vec![range("0", "N - 1")]),
                ),
            ],
        )],
        vec![],
    )
}

/// The translation, which the front end must accept.
fn accepted(json: &str) -> String {
    let items = match sdfg_compiler::import::translate(json) {
        Ok(items) => items,
        Err(e) => panic!(
            "{}",
            e.iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        ),
    };
    if let Err(d) = sdfg_compiler::frontend_str(&format!("sdfg T {{\n{items}\n}}")) {
        panic!("the front end rejects:\n{d}\n{items}");
    }
    items
}

fn rejected(json: &str) -> String {
    let errors = sdfg_compiler::import::translate(json).expect_err("rejected");
    errors
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_default_map_takes_its_schedule_from_the_storage_it_touches() {
    let gpu = one_map("__out = __in", "Python", "float64", "float64", None)
        .replace("CPU_Multicore", "Default")
        .replace(
            "\"shape\":[\"N\"]",
            "\"shape\":[\"N\"],\"storage\":\"GPU_Global\"",
        );
    assert!(
        accepted(&gpu).contains("map m[i in 0i64..N] on gpu {"),
        "{gpu}"
    );
    let cpu = one_map("__out = __in", "Python", "float64", "float64", None)
        .replace("CPU_Multicore", "Default");
    assert!(accepted(&cpu).contains("map m[i in 0i64..N] on cpu {"));
}

#[test]
fn python_tasklet_with_branches_and_locals() {
    let code = "if __in > 0:\n    y = __in * 2\nelif __in < 0:\n    y = -__in\nelse:\n    y = 1\n__out = y + 0.5";
    let items = accepted(&one_map(code, "Python", "float64", "float64", None));
    assert!(items.contains("let mut y: f64 = 0.0;"), "{items}");
    assert!(items.contains("if A[i] > 0.0 {"), "{items}");
    assert!(items.contains("B[i] = y + 0.5;"), "{items}");
}

#[test]
fn cpp_tasklet_with_implicit_conversions() {
    let code = "double t = __in * 2;\nint k = (int)t;\n__out = t + k;";
    let items = accepted(&one_map(code, "CPP", "float32", "float32", None));
    assert!(
        items.contains("let t: f64 = (A[i] * 2.0f32) as f64;"),
        "{items}"
    );
    assert!(items.contains("let k: i32 = t as i32;"), "{items}");
    assert!(items.contains("B[i] = (t + (k as f64)) as f32;"), "{items}");
}

/// DaCe's Python frontend writes `dace.complex128(1.0)` for a real constant
/// in complex arithmetic, and mixes complex precisions; the front end
/// builds complex values instead of casting to them.
#[test]
fn real_values_and_other_precisions_become_complex_values() {
    let items = accepted(&one_map(
        "__out = (__in + dace.complex128(1.0))",
        "Python",
        "complex128",
        "complex128",
        None,
    ));
    assert!(
        items.contains("B[i] = A[i] + c64::new(1.0, 0.0);"),
        "{items}"
    );
    let items = accepted(&one_map(
        "__out = __in * 2.0",
        "Python",
        "complex64",
        "complex128",
        None,
    ));
    assert!(
        items.contains("c64::new((A[i]).re as f64, (A[i]).im as f64)"),
        "{items}"
    );
    let items = accepted(&one_map(
        "__out = __in",
        "Python",
        "float64",
        "complex64",
        None,
    ));
    assert!(
        items.contains("B[i] = c32::new((A[i] as f32), 0.0f32);"),
        "{items}"
    );
}

#[test]
fn reductions_from_lambdas() {
    for (wcr, form) in [
        ("lambda a, b: a + b", "B[i] += A[i];"),
        ("(lambda x, y: (x * y))", "B[i] *= A[i];"),
        ("lambda a, b: min(a, b)", "B[i] = B[i].min(A[i]);"),
        ("lambda a,b: max(b, a)", "B[i] = B[i].max(A[i]);"),
    ] {
        let items = accepted(&one_map(
            "__out = __in",
            "Python",
            "int64",
            "int64",
            Some(wcr),
        ));
        assert!(items.contains(form), "{wcr}: {items}");
    }
    let errors = rejected(&one_map(
        "__out = __in",
        "Python",
        "int64",
        "int64",
        Some("lambda a, b: a - b"),
    ));
    assert!(
        errors.contains("reduces with `lambda a, b: a - b`"),
        "{errors}"
    );
}

#[test]
fn tasklet_constructs_outside_the_subset_are_named() {
    for (code, lang, construct) in [
        (
            "__out = (lambda x: x)(__in)",
            "Python",
            "Python construct `lambda`",
        ),
        (
            "x = __in\ndel x\n__out = 1",
            "Python",
            "Python construct `del`",
        ),
        ("__out = math.erfc(__in)", "Python", "calls `math.erfc`"),
        ("__out = 'x'", "Python", "Python construct `string literal`"),
        (
            "do { } while (__in > 0);\n__out = 1;",
            "CPP",
            "C++ construct `do`",
        ),
        ("__out = *(&__in);", "CPP", "C++ construct"),
    ] {
        let errors = rejected(&one_map(code, lang, "float64", "float64", None));
        assert!(
            errors.contains("tasklet `t`") && errors.contains(construct),
            "{code}: {errors}"
        );
    }
    let errors = rejected(&one_map(
        "__out = __in",
        "SystemVerilog",
        "float64",
        "float64",
        None,
    ));
    assert!(errors.contains("written in `SystemVerilog`"), "{errors}");
}

#[test]
fn a_sequential_map_inside_a_map_is_a_loop() {
    let json = sdfg(
        json!({"A": array("float64", &["N", "M"]), "S": array("float64", &["N"])}),
        json!({"N": "int32", "M": "int32"}),
        vec![state(
            "s",
            vec![
                access(0, "A", None),
                map_entry(
                    1,
                    "rows",
                    &["i"],
                    vec![range("0", "N - 1")],
                    "CPU_Multicore",
                    5,
                    None,
                ),
                map_entry(
                    2,
                    "cols",
                    &["j"],
                    vec![range("0", "M - 1")],
                    "Sequential",
                    4,
                    Some(1),
                ),
                tasklet(3, "t", "__out = __in", "Python", Some(2)),
                map_exit(4, 2),
                map_exit(5, 1),
                access(6, "S", None),
            ],
            vec![
                edge(
                    0,
                    None,
                    1,
                    Some("IN_A"),
                    memlet("A", vec![range("0", "N - 1"), range("0", "M - 1")]),
                ),
                edge(
                    1,
                    Some("OUT_A"),
                    2,
                    Some("IN_A"),
                    memlet("A", vec![range("i", "i"), range("0", "M - 1")]),
                ),
                edge(
                    2,
                    Some("OUT_A"),
                    3,
                    Some("__in"),
                    memlet("A", vec![range("i", "i"), range("j", "j")]),
                ),
                edge(
                    3,
                    Some("__out"),
                    4,
                    Some("IN_S"),
                    wcr_memlet("S", vec![range("i", "i")], "lambda a, b: a + b"),
                ),
                edge(
                    4,
                    Some("OUT_S"),
                    5,
                    Some("IN_S"),
                    wcr_memlet("S", vec![range("i", "i")], "lambda a, b: a + b"),
                ),
                edge(
                    5,
                    Some("OUT_S"),
                    6,
                    None,
                    memlet("S", vec![range("0", "N - 1")]),
                ),
            ],
        )],
        vec![],
    );
    let items = accepted(&json);
    assert!(items.contains("map rows[i in 0..N] on cpu {"), "{items}");
    assert!(items.contains("for j in 0..M {"), "{items}");
    assert!(items.contains("S[i] += A[i, j];"), "{items}");
}

#[test]
fn an_array_connector_is_indexed_from_its_subset() {
    // `__in` covers A[i:i+2]; `__in[1]` is A[i + 1].
    let json = sdfg(
        json!({"A": array("float64", &["N"]), "B": array("float64", &["N"])}),
        json!({"N": "int64"}),
        vec![state(
            "s",
            vec![
                access(0, "A", None),
                map_entry(
                    1,
                    "m",
                    &["i"],
                    vec![range("0", "N - 3")],
                    "CPU_Multicore",
                    3,
                    None,
                ),
                tasklet(2, "t", "__out = __in[0] + __in[2]", "Python", Some(1)),
                map_exit(3, 1),
                access(4, "B", None),
            ],
            vec![
                edge(
                    0,
                    None,
                    1,
                    Some("IN_A"),
                    memlet("A", vec![range("0", "N - 1")]),
                ),
                edge(
                    1,
                    Some("OUT_A"),
                    2,
                    Some("__in"),
                    memlet("A", vec![range("i", "i + 2")]),
                ),
                edge(
                    2,
                    Some("__out"),
                    3,
                    Some("IN_B"),
                    memlet("B", vec![range("i", "i")]),
                ),
                edge(
                    3,
                    Some("OUT_B"),
                    4,
                    None,
                    memlet("B", vec![range("0", "N - 1")]),
                ),
            ],
        )],
        vec![],
    );
    let items = accepted(&json);
    assert!(items.contains("B[i] = A[i] + A[i + 2i64];"), "{items}");
}

#[test]
fn copies_take_both_subsets() {
    let mut copy = memlet("A", vec![range("2", "11")]);
    copy["attributes"]["other_subset"] = json!({"type": "Range", "ranges": [range("0", "9")]});
    let json = sdfg(
        json!({"A": array("int32", &["20"]), "B": array("int32", &["10"])}),
        json!({}),
        vec![state(
            "s",
            vec![access(0, "A", None), access(1, "B", None)],
            vec![edge(0, None, 1, None, copy)],
        )],
        vec![],
    );
    let items = accepted(&json);
    assert!(items.contains("copy A[2..12] -> B;"), "{items}");
}

#[test]
fn interstate_edges() {
    let states = vec![state("a", vec![], vec![]), state("b", vec![], vec![])];
    let assign = |assignments: Value, condition: &str| {
        json!({"type": "Edge", "src": "0", "dst": "1", "attributes": {"data": {"type": "InterstateEdge",
            "attributes": {"assignments": assignments, "condition": {"string_data": condition, "language": "Python"}}}}})
    };
    let json = sdfg(
        json!({}),
        json!({"N": "int64", "k": "int64"}),
        states.clone(),
        vec![assign(json!({"k": "N // 2"}), "(N > 3) and not (N == 7)")],
    );
    let items = accepted(&json);
    assert!(
        items.contains("symbol N: i64;") && !items.contains("symbol k"),
        "{items}"
    );
    assert!(
        items.contains("a -> b if (N > 3i64) && !(N == 7i64) { k = N / 2i64; }"),
        "{items}"
    );
    // DaCe runs assignments in order, the DSL at once.
    let json = sdfg(
        json!({}),
        json!({"a": "int64", "b": "int64"}),
        states,
        vec![assign(json!({"a": "b", "b": "a + 1"}), "1")],
    );
    let errors = rejected(&json);
    assert!(errors.contains("which it also assigns"), "{errors}");
}

/// A float symbol (DaCe keeps a value read on an edge in one) is a host
/// scalar, assigned by a state on its edge after the edge's other
/// assignments; conditions read it.
#[test]
fn float_symbols_are_host_scalars_assigned_on_their_edge() {
    let states = vec![
        state("a", vec![], vec![]),
        state("b", vec![], vec![]),
        state("c", vec![], vec![]),
    ];
    let edge = |src: &str, dst: &str, assignments: Value, condition: &str| {
        json!({"type": "Edge", "src": src, "dst": dst, "attributes": {"data": {"type": "InterstateEdge",
            "attributes": {"assignments": assignments, "condition": {"string_data": condition, "language": "Python"}}}}})
    };
    let json = sdfg(
        json!({"A": array("float64", &["N"])}),
        json!({"N": "int64", "k": "int64", "x": "float64"}),
        states,
        vec![
            edge("0", "1", json!({"k": "1", "x": "A[N - 1]"}), "N > 0"),
            edge("1", "2", json!({}), "x > 0.5"),
        ],
    );
    let items = accepted(&json);
    assert!(items.contains("transient host x: f64;"), "{items}");
    assert!(
        items.contains("state a_to_b { tasklet assign_a_to_b { x = A[N - 1i64]; } }"),
        "{items}"
    );
    assert!(
        items.contains("a -> a_to_b if N > 0i64 { k = 1i64; }"),
        "{items}"
    );
    assert!(items.contains("a_to_b -> b;"), "{items}");
    assert!(items.contains("b -> c if x > 0.5;"), "{items}");
}

#[test]
fn elements_outside_the_subset_are_named() {
    let json = sdfg(
        json!({"A": array("string", &["4"])}),
        json!({}),
        vec![state("s", vec![], vec![])],
        vec![],
    );
    assert!(rejected(&json).contains("container `A` has element type `string`"));
    let json = sdfg(
        json!({"A": {"type": "View", "attributes": {"dtype": "float64", "shape": ["4"]}}}),
        json!({}),
        vec![],
        vec![],
    );
    assert!(rejected(&json).contains("unsupported DaCe element `View` (container `A`)"));
    // What uses a refused container says nothing more: one error.
    let view = json!({"type": "ArrayView", "attributes": {"dtype": "float64", "shape": ["4"]}});
    let json = sdfg(
        json!({"A": array("float64", &["8"]), "V": view}),
        json!({}),
        vec![state(
            "s",
            vec![access(0, "A", None), access(1, "V", None)],
            vec![edge(0, None, 1, None, memlet("A", vec![range("2", "5")]))],
        )],
        vec![],
    );
    assert_eq!(
        rejected(&json),
        "unsupported DaCe element `ArrayView` (container `V`)\n  help: views are not supported yet; in DaCe, `dace.sdfg.utils.remove_views` or copying the data removes them"
    );
    let json = json!({"type": "SDFG", "attributes": {"_arrays": {}, "symbols": {}},
        "nodes": [{"type": "LoopRegion", "label": "for_1", "nodes": [], "edges": []}], "edges": []})
    .to_string();
    assert!(rejected(&json).contains("unsupported DaCe element `LoopRegion` (`for_1`)"));
    let mut strided = array("float64", &["N", "M"]);
    strided["attributes"]["strides"] = json!(["1", "N"]);
    let json = sdfg(
        json!({"A": strided}),
        json!({"N": "int32", "M": "int32"}),
        vec![],
        vec![],
    );
    assert!(rejected(&json).contains("not row-major"));
    assert!(rejected("{\"type\": \"SDFGState\"}").contains("not a DaCe SDFG"));
    assert!(rejected("[1, 2").contains("not valid JSON"));
}
