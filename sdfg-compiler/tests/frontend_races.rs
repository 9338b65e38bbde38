//! The race test of parallel maps (validate/races.rs over
//! validate/dependence/) and the min/max reduction spelling, through the
//! front end: what is rejected (with the container, both accesses and the
//! fix in the message) and what is accepted.

use sdfg_compiler::frontend_str;
use sdfg_compiler::ir::{Access, StatementKind, WcrOp};

/// One map `m` over `RANGES` with `BODY` in an SDFG with the usual data.
/// The data is on the GPU for a `gpu` map, on the host otherwise.
fn map(ranges: &str, schedule: &str, body: &str) -> String {
    let at = if schedule == "gpu" { "gpu" } else { "host" };
    format!(
        "sdfg S {{ symbol N: i64; symbol M: i64; symbol K: i64; \
         {at} A: f64[4 * N + 4]; {at} B: i64[N]; {at} V: f64[N]; {at} S: f64; \
         {at} X: f64[N, M]; {at} R: f64[N]; {at} P: f64[N, N]; \
         state s {{ map m[{ranges}] on {schedule} {{ {body} }} }} }}"
    )
}

/// The one diagnostic of `source`, as message, notes and help in one text.
fn error(source: &str) -> String {
    match frontend_str(source) {
        Ok(_) => panic!("accepted:\n{source}"),
        Err(d) => {
            assert_eq!(d.list.len(), 1, "{d}");
            d.list[0].text()
        }
    }
}

fn accepted(source: &str) {
    if let Err(d) = frontend_str(source) {
        panic!("rejected:\n{source}\n{d}");
    }
}

#[test]
fn the_issues_races_are_errors_naming_the_container_and_both_accesses() {
    let e = error(&map(
        "r in 0..N, c in 0..M",
        "gpu",
        "R[r] = R[r] * 0.5 + X[r, c];",
    ));
    assert!(
        e.starts_with(
            "an iteration of `m` may read an element of `R` that another iteration writes"
        ),
        "{e}"
    );
    assert!(
        e.contains("one iteration writes `R[r]`, another reads `R[r]`"),
        "{e}"
    );
    assert!(e.contains("`R[r]` does not depend on `c`"), "{e}");
    assert!(e.contains("on seq") && e.contains("reduction"), "{e}");

    let e = error(&map(
        "r in 0..N, c in 0..M",
        "cpu",
        "R[r] = R[r] + X[r, c];",
    ));
    assert!(e.contains("make it a reduction, `R[r] += X[r, c];`"), "{e}");

    let e = error(&map("i in 0..N - 1", "gpu", "V[i + 1] = V[i] + 1.0;"));
    assert!(
        e.contains("one iteration writes `V[i + 1]`, another reads `V[i]`"),
        "{e}"
    );
    assert!(
        e.contains("`V[i + 1]` of iteration `i` is `V[i]` of iteration `i + 1`"),
        "{e}"
    );

    let e = error(&map("j in 0..N - 1", "cpu", "V[j] = V[j + 1];"));
    assert!(
        e.contains("`V[j]` of iteration `j` is `V[j + 1]` of iteration `j - 1`"),
        "{e}"
    );

    let e = error(&map("r in 0..N, c in 0..M", "gpu", "R[r] = X[r, c];"));
    assert!(
        e.starts_with("two iterations of `m` may write the same element of `R`"),
        "{e}"
    );
    assert!(e.contains("every iteration writes `R[r]`"), "{e}");

    let e = error(&map("i in 0..N", "gpu", "A[B[i]] = V[i];"));
    assert!(
        e.starts_with("cannot prove that the iterations of `m` touch different elements of `A`"),
        "{e}"
    );
    assert!(e.contains("it depends on data read from `B`"), "{e}");
    assert!(e.contains("#[independent(A)] map m[...] on gpu"), "{e}");
}

#[test]
fn scalars_other_writes_and_transposes_race_too() {
    let e = error(&map("i in 0..N", "gpu", "S = V[i];"));
    assert!(e.contains("every iteration writes `S`"), "{e}");
    error(&map("i in 0..N, j in 0..N", "gpu", "P[i, j] = P[j, i];"));
    // i * j is not linear: the test cannot decide.
    let e = error(&map("i in 0..N, j in 0..N", "gpu", "A[i * j] = 1.0;"));
    assert!(e.contains("not linear"), "{e}");
    // A mutable local in an index.
    let e = error(&map(
        "i in 0..N",
        "gpu",
        "let mut k = i; k += 1; A[k] = 1.0;",
    ));
    assert!(e.contains("the mutable local `k`"), "{e}");
    // A narrowing cast repeats: (i as u8) is i % 256.
    error(&map("i in 0..N", "gpu", "A[((i as u8) as i64)] = 1.0;"));
    // A sum and a product into one element.
    error(&map("i in 0..N", "gpu", "S += V[i]; S *= V[i];"));
    // A write reduced into elsewhere.
    error(&map("i in 0..N", "gpu", "R[i] = 0.0; R[0] += V[i];"));
}

#[test]
fn independent_accesses_are_accepted() {
    for (ranges, body) in [
        ("i in 0..N", "A[2 * i] = A[2 * i + 1];"),
        ("i in 0..N, j in 0..M", "X[i, j] = X[i, j] * 2.0;"),
        ("i in 0..N", "A[i + N] = A[i];"),
        ("i in 0..N", "let k = i + 1; A[k] = A[k] + 1.0;"),
        ("i in 0..N", "if i == 0 { S = V[0]; }"),
        ("i in 0..N", "S += V[i];"),
        ("i in 0..N", "S = S.max(V[i]);"),
        ("i in 0..N", "let c = S; S = c.min(V[i]);"),
        ("i in 0..N, c in 0..M", "R[i] += X[i, c];"),
        ("i in 0..N", "for k in 0i64..4 { A[4 * i + k] = 1.0; }"),
        ("i in (0..N).step_by(2)", "V[i] = V[i + 1];"),
        ("i in 0..1", "S = 1.0;"),
        ("i in 0..N", "V[i] = V[i] + S;"),
    ] {
        accepted(&map(ranges, "gpu", body));
        accepted(&map(ranges, "cpu", body));
    }
    // Constant ranges: `A[j]` and `A[j + 10]` never meet for j in 0..5.
    accepted(
        "sdfg S { gpu A: f64[20]; state s { map m[j in 0..5] on gpu { A[j] = A[j + 10]; } } }",
    );
    // Constant bounds everywhere: `c + 32 * q` is one element per `c`
    // (the values are tried; the bounds test alone cannot tell).
    accepted(
        "sdfg S { gpu A: f64[256]; state s { map m[c in 0..32] on gpu { for q in 0..8 { A[c + 32 * q] = 1.0; } } } }",
    );
    // A `seq` map is ordered.
    accepted(&map("i in 0..N - 1", "seq", "V[i + 1] = V[i] + 1.0;"));
    // The opt-in.
    accepted(
        &map("i in 0..N", "gpu", "A[B[i]] = V[i];").replace("map m[", "#[independent(A)] map m["),
    );
}

#[test]
fn floyd_warshall_gets_the_same_error_in_both_spellings() {
    let direct = error(&map(
        "i in 0..N, j in 0..N",
        "gpu",
        "P[i, j] = P[i, j].min(P[i, K] + P[K, j]);",
    ));
    let local = error(&map(
        "i in 0..N, j in 0..N",
        "gpu",
        "let c = P[i, j]; P[i, j] = c.min(P[i, K] + P[K, j]);",
    ));
    assert_eq!(direct, local);
    assert!(
        direct.starts_with(
            "an iteration of `m` may read an element of `P` that another iteration writes"
        ),
        "{direct}"
    );
}

#[test]
fn a_min_max_update_is_a_reduction_only_when_its_value_does_not_read_the_container() {
    let reduces = |body: &str| -> Vec<Access> {
        let sdfg = frontend_str(&map("i in 0..N", "seq", body)).unwrap_or_else(|d| panic!("{d}"));
        sdfg.states[0].stmts[0]
            .memlets
            .iter()
            .filter(|m| sdfg.containers[m.container].name.text == "S")
            .map(|m| m.access)
            .collect()
    };
    assert_eq!(reduces("S = S.min(V[i]);"), [Access::Reduce(WcrOp::Min)]);
    assert_eq!(
        reduces("let c = S; S = c.max(V[i]);"),
        [Access::Reduce(WcrOp::Max)]
    );
    // `e` reads `S`: a read and a plain write, in both spellings.
    assert_eq!(
        reduces("S = S.min(S * 0.5);"),
        [Access::Read, Access::Write]
    );
    assert_eq!(
        reduces("let c = S; S = c.min(S * 0.5);"),
        [Access::Read, Access::Write]
    );
    // `c` is used again, or `S` is written in between: not folded.
    assert_eq!(
        reduces("let c = S; S = c.min(V[i]); V[i] = c;"),
        [Access::Read, Access::Write]
    );
    assert_eq!(
        reduces("let c = S; S = 2.0; S = c.min(V[i]);"),
        [Access::Read, Access::Write]
    );
    // The folded local's `let` is gone from the body.
    let sdfg = frontend_str(&map("i in 0..N", "seq", "let c = S; S = c.min(V[i]);")).unwrap();
    let StatementKind::Map(m) = &sdfg.states[0].stmts[0].kind else {
        panic!("a map")
    };
    assert_eq!(m.body.stmts.len(), 1);
}

#[test]
fn independent_names_containers_the_parallel_map_writes() {
    let with = |attr: &str, schedule: &str| {
        map("i in 0..N", schedule, "V[i] = 1.0;").replace("map m[", &format!("{attr} map m["))
    };
    let e = error(&with("#[independent(B)]", "gpu"));
    assert!(
        e.starts_with("`#[independent(B)]`: map `m` does not write `B`"),
        "{e}"
    );
    let e = error(&with("#[independent(V)]", "seq"));
    assert!(
        e.starts_with("`#[independent]` on the `seq` map `m`"),
        "{e}"
    );
    let e = error(&with("#[independent(Vx)]", "gpu"));
    assert!(
        e.starts_with("unknown container `Vx`") && e.contains("did you mean `V`?"),
        "{e}"
    );
    let e = error(&with("#[independent]", "gpu"));
    assert!(e.contains("needs the containers"), "{e}");
    // Only maps take it.
    let e = error("sdfg S { host T: f64; state s { #[independent(T)] tasklet t { T = 1.0; } } }");
    assert!(
        e.starts_with("`#[independent(...)]` belongs on a map"),
        "{e}"
    );
}
