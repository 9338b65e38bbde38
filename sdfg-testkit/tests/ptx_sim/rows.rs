//! Several rows per thread in y: which loads the rows share, and how
//! often the stencil's are issued.

use super::*;
use sdfg_compiler::codegen::ptx::{generate_tuned, Tuning};

/// An f64 element of `c`.
fn f(c: ContainerId, index: Vec<Expr>) -> Expr {
    e::load(c, F64, index)
}

/// The default tuning with 3-D maps in tiles of rows, not walks.
fn tiles() -> Tuning {
    Tuning {
        walk_3d: false,
        ..Default::default()
    }
}

/// `x + c` (just `x` for 0).
fn plus(x: &Expr, c: i64) -> Expr {
    if c == 0 {
        x.clone()
    } else {
        e::add(x.clone(), e::i64(c))
    }
}

/// Several rows per thread in y: loads shared between rows (the row
/// parameter plus a constant, in any index position) are issued once, but
/// only with step 1; row-independent loads, steps > 1, partial row runs and
/// 3-D maps all still match the evaluator.
#[test]
fn row_runs_share_loads_only_when_legal() {
    for y_step in [1i64, 2, 3] {
        let mut b = SdfgBuilder::new("rows");
        let n = b.symbol("N", I64);
        let m = b.symbol("M", I64);
        let a = b.gpu("A", F64, vec![e::sym(n, I64), e::sym(m, I64)]);
        let t = b.gpu("T", F64, vec![e::sym(m, I64), e::sym(n, I64)]);
        let c = b.gpu("C", F64, vec![e::sym(m, I64)]);
        let out = b.gpu("O", F64, vec![e::sym(n, I64), e::sym(m, I64)]);
        let st = b.state("s");
        let (i, j) = (e::param(0, I64), e::param(1, I64));
        let column = (-2..=2).fold(e::f64(0.0), |acc, di| {
            e::add(acc, f(a, vec![plus(&i, di), j.clone()]))
        });
        let value = e::add(
            e::add(
                e::add(
                    column,
                    e::mul(
                        f(a, vec![i.clone(), plus(&j, -1)]),
                        f(a, vec![i.clone(), plus(&j, 1)]),
                    ),
                ),
                e::add(f(t, vec![j.clone(), plus(&i, 1)]), f(c, vec![j.clone()])),
            ),
            e::cast(i.clone(), F64),
        );
        let body = TaskletBody {
            locals: vec![],
            stmts: vec![s::store(out, vec![i.clone(), j.clone()], value)],
        };
        let step = (y_step != 1).then(|| e::i64(y_step));
        b.gpu_map(
            st,
            "m",
            vec![
                map_param("i", I64, e::i64(2), e::sub(e::sym(n, I64), e::i64(2)), step),
                map_param("j", I64, e::i64(1), e::sub(e::sym(m, I64), e::i64(1)), None),
            ],
            body,
        );
        let sdfg = b.build();
        for (rows, cols) in [(5usize, 3usize), (9, 7), (23, 41), (37, 130)] {
            let d = fill(
                &sdfg,
                &[
                    (a, vec![rows, cols]),
                    (t, vec![cols, rows]),
                    (c, vec![cols]),
                    (out, vec![rows, cols]),
                ],
                (rows * cols) as u64 + y_step as u64,
            );
            // Several items in x and odd run lengths: the full tiles
            // address row r + 1 one row stride after row r, per item.
            for tuning in [
                Tuning::default(),
                Tuning {
                    items_2d: 2,
                    rows_2d: 3,
                    ..Default::default()
                },
                Tuning {
                    block_2d: [32, 4],
                    rows_2d: 5,
                    ..Default::default()
                },
            ] {
                check_module(
                    &format!("rows step {y_step} {rows}x{cols} {tuning:?}"),
                    &sdfg,
                    &generate_tuned(&sdfg, &tuning),
                    &[Value::I64(rows as i64), Value::I64(cols as i64)],
                    &d,
                    &[[1, 1, 1], [2, 3, 1], [3, 1, 1]],
                );
            }
        }
    }
    // 3-D: each thread walks its planes (`kernel/walk.rs`; the default,
    // 8 planes of 64 x 2 threads, and 8 of 32 x 4 and 3 of 8 x 2: runs
    // that end inside the grid, grids that do and do not cover the map),
    // or runs a tile of rows along y or along the outermost dimension
    // (z); also with a step there (no shared loads, no walk then).
    let walk = |block_3d: [u32; 2], rows_3d: u32| Tuning {
        walk_3d: true,
        block_3d,
        rows_3d,
        ..Default::default()
    };
    let shapes = [
        (Tuning::default(), true),
        (walk([32, 4], 8), true),
        (walk([8, 2], 3), true),
        (tiles(), false),
        (
            Tuning {
                rows_3d_in_z: true,
                ..tiles()
            },
            true,
        ),
    ];
    for z_step in [1i64, 2] {
        for (tuning, in_z) in shapes {
            let sdfg = stencil_3d(z_step);
            let m = generate_tuned(&sdfg, &tuning);
            assert_eq!(m.kernels[0].rows_in_z, in_z);
            assert_eq!(
                m.text.contains("walk: each row"),
                tuning.walk_3d,
                "{}",
                m.text
            );
            for size in [3usize, 8, 13] {
                let (a, out) = (0, 1);
                let d = fill(
                    &sdfg,
                    &[(a, vec![size; 3]), (out, vec![size; 3])],
                    size as u64 + z_step as u64,
                );
                check_module(
                    &format!("rows 3-d, step {z_step} in dimension 0, {tuning:?}"),
                    &sdfg,
                    &m,
                    &[Value::I64(size as i64)],
                    &d,
                    &[[1, 1, 1], [2, 2, 2], [1, 3, 2]],
                );
            }
        }
    }
}

/// A 7-point stencil in 3-D (`A` is container 0, `O` container 1), with
/// step `z_step` in its outermost dimension.
fn stencil_3d(z_step: i64) -> Sdfg {
    let mut b = SdfgBuilder::new("rows3d");
    let n = b.symbol("N", I64);
    let shape = vec![e::sym(n, I64), e::sym(n, I64), e::sym(n, I64)];
    let a = b.gpu("A", F64, shape.clone());
    let out = b.gpu("O", F64, shape);
    let st = b.state("s");
    let (k, i, j) = (e::param(0, I64), e::param(1, I64), e::param(2, I64));
    let at = |dk: i64, di: i64, dj: i64| f(a, vec![plus(&k, dk), plus(&i, di), plus(&j, dj)]);
    let value = [
        (-1, 0, 0),
        (1, 0, 0),
        (0, -1, 0),
        (0, 1, 0),
        (0, 0, -1),
        (0, 0, 1),
        (0, 0, 0),
    ]
    .into_iter()
    .fold(e::f64(0.0), |acc, (dk, di, dj)| e::add(acc, at(dk, di, dj)));
    let body = TaskletBody {
        locals: vec![],
        stmts: vec![s::store(out, vec![k.clone(), i.clone(), j.clone()], value)],
    };
    let inner = |name: &str| {
        map_param(
            name,
            I64,
            e::i64(1),
            e::sub(e::sym(n, I64), e::i64(1)),
            None,
        )
    };
    let mut outer = inner("k");
    outer.step = (z_step != 1).then(|| e::i64(z_step));
    b.gpu_map(st, "m", vec![outer, inner("i"), inner("j")], body);
    b.build()
}

/// A 3-D stencil's thread runs its rows along z: the loads of the
/// neighbouring planes (`A[k +- 1, ..]`, a plane away, which only L2
/// serves) are shared between its rows. With the rows in y as many loads
/// are issued, but the shared ones are the row neighbours (`A[.., i +- 1,
/// ..]`, which L1 holds for the block's other threads anyway) and every
/// point loads both of its plane neighbours.
#[test]
fn rows_in_z_share_the_neighbouring_planes() {
    use sdfg_compiler::codegen::ptx::{generate_tuned, Tuning};
    let sdfg = stencil_3d(1);
    let loads = |tuning: &Tuning| {
        let m = generate_tuned(&sdfg, tuning);
        let k = &m.kernels[0];
        let full = m.text.split("full tile").nth(1).expect("a full tile");
        let full = full.split("partial tile").next().unwrap();
        (
            k.rows_in_z,
            k.rows_per_thread,
            full.matches("ld.global.nc.f64").count(),
        )
    };
    let in_y = tiles();
    let in_z = Tuning {
        rows_3d_in_z: true,
        ..in_y
    };
    let (z, rows, z_loads) = loads(&in_z);
    let (y, _, y_loads) = loads(&in_y);
    assert!(z && !y && rows == in_z.rows_2d && rows > 1);
    // Per x item: in z, planes k-1 .. k+rows (rows + 2) and `rows` rows of
    // i, j neighbours (4 each); in y, rows i-1 .. i+rows and `rows` rows of
    // k, j neighbours: the same count, but in y the `k +- 1` loads are
    // whole planes away, in z the `i +- 1` ones are one row away.
    let rows = rows as usize;
    assert_eq!(z_loads, (rows + 2 + 4 * rows) * in_z.items_2d as usize);
    assert_eq!(y_loads, z_loads);
}

/// The jacobi 5-point stencil's full tile loads each of the `rows + 2`
/// rows' centre once per x item, not three times: (rows + 2 + 2 rows)
/// loads per x item; the partial tile (unrolled too, guarded) as many, plus
/// the 5 of the loop that partial tiles with a step other than 1 in y run.
#[test]
fn stencil_rows_issue_shared_loads_once() {
    let m = generate(&stencil());
    let k = &m.kernels[0];
    let (ipt, rows) = (k.items_per_thread as usize, k.rows_per_thread as usize);
    assert!(rows > 1, "2-D stencils run several rows per thread");
    let loads = m.text.matches("ld.global.nc.f64").count();
    assert_eq!(loads, 2 * ipt * (rows + 2 + 2 * rows) + 5, "{}", m.text);
}

/// A full tile computes the row-major address of an access (three 64-bit
/// multiply-adds in 3-D) only in its first row; every later row's lies one
/// row stride after the row before (`kernel/row_run.rs`). So a run of 8
/// rows computes as many of them as a run of 4, along y and along z.
#[test]
fn full_tiles_step_addresses_from_row_to_row() {
    let sdfg = stencil_3d(1);
    let row_major_cores = |rows_2d: u32, rows_3d_in_z: bool| {
        let m = generate_tuned(
            &sdfg,
            &Tuning {
                rows_2d,
                rows_3d_in_z,
                ..tiles()
            },
        );
        assert_eq!(m.kernels[0].rows_per_thread, rows_2d);
        // The base address of A, the kernel's first buffer parameter.
        let a_base = m
            .text
            .lines()
            .find_map(|l| l.trim().strip_prefix("cvta.to.global.u64 "))
            .and_then(|l| l.split(',').next())
            .expect("a buffer parameter")
            .to_string();
        let full = m.text.split("full tile").nth(1).expect("a full tile");
        let full = full.split("partial tile").next().unwrap();
        full.matches(&format!(", 8, {a_base};")).count()
    };
    for in_z in [false, true] {
        let (four, eight) = (row_major_cores(4, in_z), row_major_cores(8, in_z));
        assert!(four > 0, "row 0 computes its addresses");
        assert_eq!(four, eight, "rows in z: {in_z}: {four} vs {eight}");
    }
}

/// A kernel that reads what the previous kernel of its state wrote runs its
/// blocks in reverse order (`ptx::reversed_kernels`): the same work for any
/// grid, including grids that stride over their tiles several times, in 2-D
/// (rows in y) and in 1-D. 3-D maps (their walks) keep their order, and do
/// the same work.
#[test]
fn a_consumer_kernel_runs_its_blocks_in_reverse() {
    let jacobi = sdfg_compiler::frontend_str(
        "sdfg S { symbol N: i64; gpu A: f64[N, N]; gpu B: f64[N, N]; gpu C: f64[N];
          state s {
            map b[i in 1..N-1, j in 1..N-1] on gpu {
              B[i, j] = 0.2 * (A[i, j] + A[i, j-1] + A[i, j+1] + A[i+1, j] + A[i-1, j]);
            }
            map a[i in 1..N-1, j in 1..N-1] on gpu {
              A[i, j] = 0.2 * (B[i, j] + B[i, j-1] + B[i, j+1] + B[i+1, j] + B[i-1, j]);
            }
            map c[i in 0..N] on gpu { C[i] = 2.0 * A[i, 0]; }
          } }",
    )
    .expect("a valid program");
    let heat = sdfg_compiler::frontend_str(
        "sdfg H { symbol N: i64; gpu A: f64[N, N, N]; gpu B: f64[N, N, N];
          state s {
            map b[i in 1..N-1, j in 1..N-1, k in 1..N-1] on gpu {
              B[i, j, k] = A[i+1, j, k] - 2.0 * A[i, j, k] + A[i-1, j, k] + A[i, j+1, k] + A[i, j, k-1];
            }
            map a[i in 1..N-1, j in 1..N-1, k in 1..N-1] on gpu {
              A[i, j, k] = B[i+1, j, k] - 2.0 * B[i, j, k] + B[i-1, j, k] + B[i, j-1, k] + B[i, j, k+1];
            }
          } }",
    )
    .expect("a valid program");
    let cases = [
        (
            &jacobi,
            vec![false, true, false],
            2,
            vec![3usize, 9, 40, 131],
        ),
        (&heat, vec![false, false], 3, vec![3, 8, 13]),
    ];
    for (sdfg, reversed, dims, sizes) in cases {
        let m = generate(sdfg);
        let got: Vec<bool> = m.kernels.iter().map(|k| k.reversed_blocks).collect();
        assert_eq!(got, reversed);
        let entry = |k: usize| {
            let name = &m.kernels[k].abi.name;
            let at = m.text.find(&format!(".entry {name}(")).unwrap();
            let end = m.text[at..].find("\n}\n").unwrap();
            m.text[at..at + end].to_string()
        };
        assert_eq!(entry(1).contains("sub.u32"), reversed[1]);
        assert!(!entry(0).contains("sub.u32"));
        for n in sizes {
            let shapes: Vec<(ContainerId, Vec<usize>)> = (0..sdfg.containers.len())
                .map(|c| (c, vec![n; sdfg.containers[c].shape.len()]))
                .collect();
            let d = fill(sdfg, &shapes, n as u64 + dims as u64);
            for k in 0..m.kernels.len() {
                let kernel = &m.kernels[k];
                let symbols = [Value::I64(n as i64)];
                let (want, _) = eval_map(sdfg, kernel.state, kernel.stmt, &symbols, &d);
                for grid in [[1, 1, 1], [2, 3, 1], [3, 1, 2], [1, 40, 1], [7, 5, 3]] {
                    let (got, fault) = simulate_map(sdfg, &m, k, &symbols, &d, grid)
                        .unwrap_or_else(|e| panic!("kernel {k} N={n}: {e}"));
                    assert_eq!(fault, 0);
                    for (c, (_, w)) in &want {
                        for (idx, (a, b)) in got[c].1.iter().zip(w).enumerate() {
                            assert!(
                                same_value(*a, *b),
                                "{dims}-D kernel {k} N={n} grid {grid:?}: container {c} [{idx}]: ptx {a} vs eval {b}"
                            );
                        }
                    }
                }
            }
        }
    }
}

/// A walk whose index cores are negative (`i` and `k` start at -1, every
/// access adds 1 or 2): its 32-bit offsets of `(i, j, k)` wrap below zero
/// and come back into range only with the constants added, which the
/// signed `mad.wide` must then read right; an f32 copy of the same
/// (4-byte elements, other folded byte offsets), and one with i32 indices
/// (32-bit parameters: no row stepping, each plane's offsets in full). Small grids take the
/// grid-stride loops, large ones the one-pass walk.
#[test]
fn walks_with_negative_cores_match_the_evaluator() {
    for (ty, int) in [("f64", "i64"), ("f32", "i64"), ("f64", "i32")] {
        let src = format!(
            "sdfg W {{ symbol N: {int}; gpu A: {ty}[N, N, N]; gpu B: {ty}[N, N, N];
              state s {{ map m[i in -1..N-2, j in 0..N, k in -1..N-1] on gpu {{
                B[i + 1, j, k + 1] = A[i + 1, j, k + 1] + A[i + 2, j, k + 1] * 2.0
                    - A[i + 1, N - 1 - j, k + 1] * A[i + 2, j, k + 1];
              }} }} }}"
        );
        let sdfg = sdfg_compiler::frontend_str(&src).unwrap();
        let m = generate_tuned(&sdfg, &Tuning::default());
        assert!(m.text.contains("walk: each row"), "{}", m.text);
        assert!(m.text.contains("mad.wide.s32"), "{}", m.text);
        for size in [3usize, 5, 12] {
            let d = fill(
                &sdfg,
                &[(0, vec![size; 3]), (1, vec![size; 3])],
                size as u64,
            );
            check_module(
                &format!("walk with negative cores, {ty}, {int} indices, N = {size}"),
                &sdfg,
                &m,
                &[if int == "i64" {
                    Value::I64(size as i64)
                } else {
                    Value::I32(size as i32)
                }],
                &d,
                &[[1, 1, 1], [2, 3, 2], [4, 8, 4]],
            );
        }
    }
}

/// Walks whose rows hold their stores back until the next row's loads are
/// issued (`kernel/walk.rs`, pipelined when the body stores into no
/// container it reads): two stores and a `let`, an f16 store (a
/// conversion held with it), a store behind a device check (the stores
/// held before it go first, then it stays behind its guard), and an
/// in-place update (not pipelined: its first row's store comes before the
/// second row's loads). Runs end inside the grid (sizes 3, 8
/// and 13 against 8 planes), grids do and do not cover the map.
#[test]
fn walks_that_hold_stores_match_the_evaluator() {
    let cases = [
        (
            "let t = A[i, j, k] * 2.0; B[i, j, k] = t + A[i + 1, j, k]; C[i, j, k] = t - A[i - 1, j, k + 1];",
            0,
        ),
        (
            "B[i, j, k] = A[i, j - 1, k] + A[i + 1, j, k]; H[i, j, k] = (A[i, j, k] * 3.0) as f16;",
            0,
        ),
        (
            "C[i, j, k] = A[i + 1, j, k]; B[i, j, I[k]] = A[i - 1, j, k] * 2.0; C[i, j, k] = A[i, j, k];",
            2,
        ),
        ("B[i, j, k] = B[i, j, k] + A[i + 1, j, k] * A[i - 1, j, k];", 1),
    ];
    // Per body: its first row's stores issued before the second row's
    // loads (all of them where the walk is not pipelined).
    for (body, stored_early) in cases {
        // `I` holds a permutation of the planes.
        let attr = if body.contains("I[k]") {
            "#[independent(B)]"
        } else {
            ""
        };
        let src = format!(
            "sdfg W {{ symbol N: i64; gpu A: f64[N, N, N]; gpu B: f64[N, N, N];
              gpu C: f64[N, N, N]; gpu H: f16[N, N, N]; gpu I: i64[N];
              state s {{ {attr} map m[i in 1..N-1, j in 1..N-1, k in 0..N-1] on gpu {{ {body} }} }} }}"
        );
        let sdfg = sdfg_compiler::frontend_str(&src).unwrap();
        let m = generate_tuned(&sdfg, &Tuning::default());
        let walk = &m.text[m.text.find("walk: each row").expect(body)..];
        let second_row = walk.find("setp.le.u32").unwrap();
        let early = walk[..second_row].matches("st.global").count();
        assert_eq!(early, stored_early, "{body}\n{}", m.text);
        for size in [3usize, 8, 13] {
            let shape = vec![size; 3];
            let mut d = fill(
                &sdfg,
                &[
                    (0, shape.clone()),
                    (1, shape.clone()),
                    (2, shape.clone()),
                    (3, shape),
                    (4, vec![size]),
                ],
                size as u64 + 7,
            );
            let index = &mut d.get_mut(&4).unwrap().1;
            for (n, v) in index.iter_mut().enumerate() {
                *v = Value::I64(((n * 5 + 1) % size) as i64);
            }
            check_module(
                &format!("walk holding stores: {body} N = {size}"),
                &sdfg,
                &m,
                &[Value::I64(size as i64)],
                &d,
                &[[1, 1, 1], [2, 3, 2], [1, 1, 2], [4, 8, 4]],
            );
        }
    }
}
