//! Array and library statements, lowered: the maps they become (names,
//! ranges, elements, schedules), and the mistakes they report.

use sdfg_compiler::export::print::{stmts_to_rust, BodyNames};
use sdfg_compiler::ir::library::LibraryKind;
use sdfg_compiler::ir::*;

fn lower(src: &str) -> Sdfg {
    sdfg_compiler::frontend_str(src).unwrap_or_else(|d| panic!("rejected:\n{d}\n{src}"))
}

fn errors(src: &str) -> String {
    match sdfg_compiler::frontend_str(src) {
        Ok(_) => panic!("accepted:\n{src}"),
        Err(d) => d.to_string(),
    }
}

/// `name[ranges] on schedule { body }` of every map of state 0.
fn maps(sdfg: &Sdfg) -> Vec<String> {
    sdfg.states[0]
        .stmts
        .iter()
        .filter_map(|st| match &st.kind {
            StatementKind::Map(m) => {
                let names = BodyNames::for_map(m);
                let ranges: Vec<String> = m
                    .params
                    .iter()
                    .map(|p| {
                        format!(
                            "{} in {}..{}",
                            p.name.text,
                            sdfg_compiler::export::print::expr_to_rust(&p.start, sdfg, &names),
                            sdfg_compiler::export::print::expr_to_rust(&p.end, sdfg, &names)
                        )
                    })
                    .collect();
                Some(format!(
                    "{}[{}] on {} {{ {} }}",
                    m.name.text,
                    ranges.join(", "),
                    m.schedule.keyword(),
                    stmts_to_rust(&m.body.stmts, sdfg, &names, 0).trim()
                ))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn slices_become_maps_over_the_target() {
    let sdfg = lower(
        "sdfg S { symbol N: i64; gpu A: f64[N, N]; gpu B: f64[N, N]; host x: f64[N]; host y: f64[N]; host s: f64;
          state st {
            B[1..N-1, 1..N-1] = 0.5 * (A[0..N-2, 1..N-1] + A[2..N, 1..N-1]);
            y = x * s + 1.0;
            y[0..N / 2] += x[N / 2..N / 2 + N / 2];
          } }",
    );
    let m = maps(&sdfg);
    assert_eq!(
        m[0],
        "assign_B[__i0 in 1..N - 1, __i1 in 1..N - 1] on gpu { B[__i0, __i1] = 0.5 * (A[__i0 - 1, __i1] + A[__i0 + 1, __i1]); }"
    );
    assert_eq!(
        m[1],
        "assign_y[__i0 in 0..N] on cpu { y[__i0] = x[__i0] * s + 1.0; }"
    );
    assert!(
        m[2].starts_with("assign_y_2[__i0 in 0..N / 2] on cpu { y[__i0] = y[__i0] + x["),
        "{}",
        m[2]
    );
}

#[test]
fn steps_count_their_elements() {
    let sdfg = lower(
        "sdfg S { symbol N: i64; host x: f64[N]; host y: f64[N];
          state st { y[(0..N).step_by(2)] = x[(1..N + 1).step_by(2)]; } }",
    );
    let m = maps(&sdfg);
    assert_eq!(
        m[0],
        "assign_y[__i0 in 0..(N - 0 + 2 - 1) / 2] on cpu { y[0 + __i0 * 2] = x[1 + __i0 * 2]; }"
    );
}

#[test]
fn library_statements_carry_their_call() {
    let sdfg = lower(
        "sdfg S { symbol M: i64; symbol N: i64; symbol K: i64;
          gpu A: f32[M, K]; gpu B: f32[K, N]; gpu C: f32[M, N]; gpu T: f32[N, M]; gpu R: f32[M]; gpu s: f32;
          state st { C = matmul(A, B); T = transpose(C); R = reduce max(C, axis 1); s = reduce sum(C); } }",
    );
    let kinds: Vec<LibraryKind> = sdfg.states[0]
        .stmts
        .iter()
        .filter_map(|st| match &st.kind {
            StatementKind::Map(m) => m.library.as_ref().map(|l| l.op.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        kinds,
        [
            LibraryKind::MatMul,
            LibraryKind::Transpose,
            LibraryKind::Reduce {
                op: WcrOp::Max,
                axes: vec![1]
            },
            LibraryKind::Reduce {
                op: WcrOp::Sum,
                axes: vec![0, 1]
            },
        ]
    );
    let m = maps(&sdfg);
    assert!(
        m[0].starts_with("matmul_C[__i0 in 0..M, __j1 in 0..N] on gpu"),
        "{}",
        m[0]
    );
    assert!(
        m[3].starts_with("reduce_s[__i0 in 0..1] on gpu"),
        "{}",
        m[3]
    );
}

#[test]
fn mistakes_name_both_shapes() {
    let e = errors(
        "sdfg S { symbol N: i64; symbol M: i64; host A: f64[N]; host B: f64[M];
          state st { A = B * 2.0; } }",
    );
    assert!(
        e.contains("shapes differ: `A` has shape [N], `B` has shape [M]"),
        "{e}"
    );
    let e = errors("sdfg S { symbol N: i64; host A: f64[N]; state st { A[1..N] = A[0..N - 1]; } }");
    assert!(
        e.contains("reads `A` at other elements than `A[1..N]` writes"),
        "{e}"
    );
    let e = errors(
        "sdfg S { symbol N: i64; host A: f64[N, N]; host B: f64[N, 3]; host C: f64[N, N];
          state st { C = matmul(A, B); } }",
    );
    assert!(
        e.contains("`matmul` gives shape [N, 3], `C` has shape [N, N]"),
        "{e}"
    );
}

/// Odd spellings give errors (or are accepted), never a panic.
#[test]
fn odd_statements_never_panic() {
    let decls = "symbol N: i64; host A: f64[N]; host B: f64[N]; host G: f64[N, N]; host s: f64;";
    for stmt in [
        "(A)[0..N] = B;",
        "A[] = B;",
        "A = ;",
        "A = matmul(A);",
        "A = matmul(A, B, G);",
        "A = reduce(A);",
        "A = reduce foo(A);",
        "A = reduce sum(A, axis);",
        "A = reduce sum(A, axes []);",
        "A = reduce sum(G, axis 0, axis 0);",
        "A = matmul(A[0..N], B);",
        "A = transpose(G) * 2.0;",
        "A[0..N] = B[0..N][0];",
        "A = B.sqrt() + G[0, 0..N];",
        "A = G[0..N, 0..N];",
        "A[0..N] = A[0..N] + A;",
        "G[0..N, 0] = A[N - 1..=N - 1 + N - 1];",
        "s = A;",
        "s = 1.0;",
        "s += B[0];",
        "A[(0..N).step_by(0)] = B[(0..N).step_by(0)];",
        "A = B as f32;",
        "B = B[N - 1 - 0..N];",
        "A = undefined[0..N];",
        "undefined = A;",
        "A = G;",
    ] {
        let src = format!("sdfg S {{ {decls} state st {{ {stmt} }} }}");
        let _ = sdfg_compiler::frontend_str(&src);
    }
}

/// NumPy computes the right side before it assigns; a statement whose
/// elements would read what others overwrite is an error, never a race.
#[test]
fn reads_of_the_target_elsewhere_are_errors() {
    let decls =
        "symbol N: i64; host A: f64[N]; host B: f64[N]; host G: f64[N, N]; host H: f64[N, N];";
    for (stmt, expected) in [
        (
            "A = A / A[0];",
            "`A[0]` reads `A` at other elements than `A` writes",
        ),
        (
            "A[1..N] = 0.5 * A[0..N - 1];",
            "`A[0..N - 1]` reads `A` at other elements than `A[1..N]` writes",
        ),
        (
            "G[0..N, 0] = G[0, 0..N];",
            "`G[0, 0..N]` reads `G` at other elements than `G[0..N, 0]` writes",
        ),
        ("A = matmul(G, A);", "`matmul` reads `A`, which it writes"),
        ("G = matmul(H, G);", "`matmul` reads `G`, which it writes"),
        (
            "G = transpose(G);",
            "`transpose` reads `G`, which it writes",
        ),
    ] {
        let e = errors(&format!("sdfg S {{ {decls} state st {{ {stmt} }} }}"));
        assert!(e.contains(expected), "{stmt}: {e}");
        assert!(e.contains("help: write the result into"), "{stmt}: {e}");
    }
    // The same elements, and other containers, are fine; a step of 1 is
    // as long as no step.
    for stmt in [
        "A[1..N] = A[1..N] * 2.0 + B[0..N - 1];",
        "A += A;",
        "B[0..N] = A[(0..N).step_by(1)];",
        "A = reduce sum(G, axis 1);",
    ] {
        lower(&format!("sdfg S {{ {decls} state st {{ {stmt} }} }}"));
    }
}
