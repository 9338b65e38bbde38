//! Map shapes: 1-D (vector and scalar paths), the stencil, 1-4-d maps
//! with steps and every parameter type, 0-d, empty and negative ranges.

use super::*;

#[test]
fn axpy_matches_evaluator() {
    let sdfg = axpy();
    for n in [0usize, 1, 5, 1024, 1037, 3000] {
        let mut d = fill(&sdfg, &[(1, vec![n]), (2, vec![n])], n as u64);
        d.insert(0, (vec![], vec![Value::F32(2.5)]));
        check(
            "axpy",
            &sdfg,
            &[Value::I64(n as i64)],
            &d,
            &[[1, 1, 1], [2, 1, 1], [5, 1, 1]],
        );
    }
}

#[test]
fn stencil_matches_evaluator() {
    let sdfg = stencil();
    for n in [
        2usize,
        3,
        37,
        if cfg!(debug_assertions) { 100 } else { 300 },
    ] {
        let d = fill(&sdfg, &[(0, vec![n, n]), (1, vec![n, n])], n as u64);
        check(
            "stencil",
            &sdfg,
            &[Value::I64(n as i64)],
            &d,
            &[[1, 1, 1], [2, 3, 1]],
        );
    }
}

#[test]
fn n_dimensional_maps_with_steps() {
    for dims in 1..=4usize {
        for pty in [I32, I64, U32, U64] {
            let mut b = SdfgBuilder::new("nd");
            let n = b.symbol("N", pty);
            let shape: Vec<Expr> = (0..dims).map(|_| e::cast(e::sym(n, pty), U64)).collect();
            let a = b.gpu("A", F64, shape.clone());
            let out = b.gpu("O", F64, shape);
            let st = b.state("s");
            let lit = |v: i64| e::lit(sdfg_compiler::ir::semantics::cast(Value::I64(v), pty));
            let params: Vec<MapParam> = (0..dims)
                .map(|d| {
                    map_param(
                        &format!("p{d}"),
                        pty,
                        lit((d % 2) as i64),
                        e::sym(n, pty),
                        if d % 2 == 1 { Some(lit(3)) } else { None },
                    )
                })
                .collect();
            let idx: Vec<Expr> = (0..dims).map(|d| e::param(d, pty)).collect();
            let sum = (0..dims).fold(e::f64(0.0), |acc, d| {
                e::add(acc, e::cast(e::param(d, pty), F64))
            });
            let body = TaskletBody {
                locals: vec![],
                stmts: vec![s::store(
                    out,
                    idx.clone(),
                    e::add(e::mul(e::load(a, F64, idx), e::f64(2.0)), sum),
                )],
            };
            b.gpu_map(st, "m", params, body);
            let sdfg = b.build();
            let size = if cfg!(debug_assertions) { 5usize } else { 7 };
            let d = fill(
                &sdfg,
                &[(a, vec![size; dims]), (out, vec![size; dims])],
                dims as u64,
            );
            let sym = sdfg_compiler::ir::semantics::cast(Value::I64(size as i64), pty);
            check(
                &format!("nd{dims}_{pty}"),
                &sdfg,
                &[sym],
                &d,
                &[[1, 1, 1], [2, 2, 2]],
            );
        }
    }
}

#[test]
fn misaligned_or_strided_1d_maps_take_the_scalar_path() {
    for (start, step) in [(1i64, None), (2, None), (0, Some(2i64)), (3, Some(3))] {
        let mut b = SdfgBuilder::new("axpy_off");
        let n = b.symbol("N", I64);
        let x = b.gpu("X", F32, vec![e::sym(n, I64)]);
        let y = b.gpu("Y", F32, vec![e::sym(n, I64)]);
        let st = b.state("s");
        let i = e::param(0, I64);
        let body = TaskletBody {
            locals: vec![],
            stmts: vec![s::store(
                y,
                vec![i.clone()],
                e::add(
                    e::mul(e::f32(3.0), e::load(x, F32, vec![i.clone()])),
                    e::load(y, F32, vec![i]),
                ),
            )],
        };
        b.gpu_map(
            st,
            "a",
            vec![map_param(
                "i",
                I64,
                e::i64(start),
                e::sym(n, I64),
                step.map(e::i64),
            )],
            body,
        );
        let sdfg = b.build();
        let nn = 1029usize;
        let d = fill(&sdfg, &[(x, vec![nn]), (y, vec![nn])], start as u64);
        check(
            "axpy_off",
            &sdfg,
            &[Value::I64(nn as i64)],
            &d,
            &[[1, 1, 1], [3, 1, 1]],
        );
    }
}

#[test]
fn zero_dimensional_empty_and_negative_start_maps() {
    // A map without parameters: one iteration.
    let mut b = SdfgBuilder::new("zero_d");
    let t = b.gpu("T", I32, vec![]);
    let st = b.state("s");
    b.gpu_map(
        st,
        "w",
        vec![],
        TaskletBody {
            locals: vec![],
            stmts: vec![s::store(t, vec![], e::i32(10))],
        },
    );
    let sdfg = b.build();
    let mut d = Data::new();
    d.insert(t, (vec![], vec![Value::I32(0)]));
    check("zero_d", &sdfg, &[], &d, &[[1, 1, 1], [2, 1, 1]]);

    // i in -5..N-5 writing O[i + 5], and an empty range (N..0).
    for (lo, hi_off) in [(-5i64, -5i64), (40, -40)] {
        let mut b = SdfgBuilder::new("neg");
        let n = b.symbol("N", I64);
        let o = b.gpu("O", I64, vec![e::sym(n, I64)]);
        let st = b.state("s");
        let i = e::param(0, I64);
        let body = TaskletBody {
            locals: vec![],
            stmts: vec![s::store(
                o,
                vec![e::add(i.clone(), e::i64(-lo))],
                e::mul(i, e::i64(3)),
            )],
        };
        let end = e::add(e::sym(n, I64), e::i64(hi_off));
        b.gpu_map(
            st,
            "m",
            vec![map_param("i", I64, e::i64(lo), end, None)],
            body,
        );
        let sdfg = b.build();
        let nn = 40usize;
        let d = fill(&sdfg, &[(o, vec![nn])], 1);
        check(
            "neg-start",
            &sdfg,
            &[Value::I64(nn as i64)],
            &d,
            &[[1, 1, 1], [2, 1, 1]],
        );
    }
}

/// Ranges that depend on earlier parameters (`ir::ranges`): a triangle, a
/// band that starts at the outer parameter, a stepped dependent range and
/// a 3-d tetrahedron (z decomposes the outer dimensions). Every element is
/// written by one iteration at most, so the results are exact.
#[test]
fn dependent_ranges() {
    let cases = [
        ("triangle", "map m[i in 0..N, j in 0..i] on gpu { O[i, j] = A[i, j] + (j as i32); }", [2, 3, 1]),
        ("band", "map m[i in 1..N, j in i - 1..N] on gpu { O[i, j] = A[i - 1, j] * 2; }", [2, 3, 1]),
        ("stepped", "map m[i in 0..N, j in (i..2 * i + 1).step_by(3)] on gpu { O[i, j % N] += 1; }", [2, 3, 1]),
        ("tetra", "map m[i in 0..N, j in 0..i + 1, k in j..i + 1] on gpu { T[i, j, k] = i as i32 - k as i32; }", [2, 3, 2]),
    ];
    for (name, map, grid) in cases {
        let src = format!(
            "sdfg Dep {{ symbol N: i64; gpu A: i32[N, N]; gpu O: i32[N, N]; gpu T: i32[N, N, N]; state s {{ {map} }} }}"
        );
        let sdfg = sdfg_compiler::frontend_str(&src).unwrap_or_else(|d| panic!("{name}: {d}"));
        let n = 7usize;
        let d = fill(
            &sdfg,
            &[(0, vec![n, n]), (1, vec![n, n]), (2, vec![n, n, n])],
            11,
        );
        assert_eq!(
            check(name, &sdfg, &[Value::I64(n as i64)], &d, &[[1, 1, 1], grid]),
            0,
            "{name}: no faults"
        );
    }
}

/// Every element type through the flat kernels' shapes: a 1-D map (the
/// vector path), a 2-D stencil (rows, shared neighbour loads), a 3-D
/// stencil, and a GPU tasklet; each assembled by ptxas and simulated
/// against the evaluator, bit for bit.
#[test]
fn element_types_through_every_kernel_shape() {
    for ty in ["f16", "bf16", "c32", "c64", "i8", "u16", "f32", "bool"] {
        let (half, one) = match ty {
            "c32" | "c64" => ("Complex::new(0.5, 0.25)", "Complex::new(1.0, -1.0)"),
            "i8" | "u16" => ("2", "1"),
            "bool" => ("true", "false"),
            _ => ("0.5", "1.0"),
        };
        let body2 = if ty == "bool" {
            "B[i, j] = (A[i - 1, j] && A[i + 1, j]) || (A[i, j - 1] != A[i, j + 1]);".to_string()
        } else {
            format!("B[i, j] = (A[i - 1, j] + A[i + 1, j]) * {half} + A[i, j - 1] - A[i, j + 1] * {one};")
        };
        let body1 = if ty == "bool" {
            "Y[i] = X[i] != Y[i];".to_string()
        } else {
            format!("Y[i] = X[i] * {half} + Y[i];")
        };
        let body0 = if ty == "bool" {
            "Y[0] = X[1] || X[2];".to_string()
        } else {
            format!("Y[0] = X[1] * {half} - X[2];")
        };
        let body3 = if ty == "bool" {
            "D[i, j, k] = C[i - 1, j, k] && C[i + 1, j, k] || C[i, j, k - 1];".to_string()
        } else {
            format!("D[i, j, k] = C[i - 1, j, k] + C[i + 1, j, k] * {half} + C[i, j - 1, k] + C[i, j, k + 1] - C[i, j, k];")
        };
        for (name, src, shapes, n) in [
            (
                "2d",
                format!("sdfg S {{ symbol N: i64; gpu A: {ty}[N, N]; gpu B: {ty}[N, N]; state s {{ map m[i in 1..N - 1, j in 1..N - 1] on gpu {{ {body2} }} }} }}"),
                2usize,
                37usize,
            ),
            (
                "1d",
                format!("sdfg S {{ symbol N: i64; gpu X: {ty}[N]; gpu Y: {ty}[N]; state s {{ map m[i in 0..N] on gpu {{ {body1} }} }} }}"),
                1,
                1037,
            ),
            (
                "tasklet",
                format!("sdfg S {{ symbol N: i64; gpu X: {ty}[N]; gpu Y: {ty}[N]; state s {{ tasklet t on gpu {{ {body0} }} }} }}"),
                1,
                4,
            ),
            (
                "3d",
                format!("sdfg S {{ symbol N: i64; gpu C: {ty}[N, N, N]; gpu D: {ty}[N, N, N]; state s {{ map m[i in 1..N - 1, j in 1..N - 1, k in 1..N - 1] on gpu {{ {body3} }} }} }}"),
                3,
                11,
            ),
        ] {
            let sdfg = match sdfg_compiler::frontend_str(&src) {
                Ok(s) => s,
                Err(d) => panic!("{ty} {name}: {d}\n{src}"),
            };
            let shape = vec![n; shapes];
            let d = fill(&sdfg, &[(0, shape.clone()), (1, shape)], n as u64);
            let m = generate(&sdfg);
            if let Err(e) = sdfg_compiler::codegen::ptx::ptxas::assemble_check(&m.text) {
                panic!("{ty} {name}: ptxas: {e}");
            }
            let grids: &[[u32; 3]] = match shapes {
                1 => &[[1, 1, 1], [2, 1, 1], [5, 1, 1]],
                2 => &[[1, 1, 1], [2, 3, 1]],
                _ => &[[1, 1, 1], [2, 3, 2]],
            };
            check(&format!("{ty} {name}"), &sdfg, &[Value::I64(n as i64)], &d, grids);
        }
    }
}

/// The interpreter reports two iterations writing one element without an
/// order between them (the front end's race test would refuse this map;
/// built directly, it reaches the interpreter). Atomics into one element
/// combine and are fine. (Its unit tests cover threads of different
/// blocks.)
#[test]
fn iterations_writing_one_element_are_a_race_the_interpreter_reports() {
    let sdfg = |reduce: bool| {
        let mut b = SdfgBuilder::new("race");
        let n = b.symbol("N", I64);
        let a = b.gpu("A", F64, vec![e::sym(n, I64)]);
        let out = b.gpu("O", F64, vec![e::i64(1)]);
        let st = b.state("s");
        let value = e::load(a, F64, vec![e::param(0, I64)]);
        let store = if reduce {
            s::reduce(out, vec![e::i64(0)], value, WcrOp::Sum)
        } else {
            s::store(out, vec![e::i64(0)], value)
        };
        let body = TaskletBody {
            locals: vec![],
            stmts: vec![store],
        };
        b.gpu_map(
            st,
            "m",
            vec![map_param("i", I64, e::i64(0), e::sym(n, I64), None)],
            body,
        );
        (b.build(), a, out)
    };
    for (grid, n) in [([1, 1, 1], 64usize), ([4, 1, 1], 4096)] {
        let (racy, a, out) = sdfg(false);
        let d = fill(&racy, &[(a, vec![n]), (out, vec![1])], 1);
        let symbols = [Value::I64(n as i64)];
        let e = simulate_map(&racy, &generate(&racy), 0, &symbols, &d, grid)
            .expect_err("one element written by every iteration");
        assert!(e.starts_with("race: thread"), "{e}");
        let (sums, a, out) = sdfg(true);
        let d = fill(&sums, &[(a, vec![n]), (out, vec![1])], 1);
        simulate_map(&sums, &generate(&sums), 0, &symbols, &d, grid)
            .unwrap_or_else(|e| panic!("a sum is atomic: {e}"));
    }
}
