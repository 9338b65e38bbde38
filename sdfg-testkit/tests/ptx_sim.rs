//! Differential tests: generated PTX run on the `ptxsim` interpreter versus
//! the reference evaluator, from the same inputs (odd sizes and small grids
//! so grid-stride loops, partial tiles and every launch axis are exercised).

use sdfg_compiler::codegen::ptx::generate;
use sdfg_compiler::ir::*;
use sdfg_testkit::builder::{e, local, map_param, s, SdfgBuilder};
use sdfg_testkit::examples::{axpy, stencil};
use sdfg_testkit::harness::{eval_map, same_value, simulate_map, Data};
use sdfg_testkit::randexpr::{is_exact, random_inputs, random_kernel, random_value, GenConfig};
use sdfg_testkit::rng::Rng;
use ScalarType::*;

/// Random contents for every container of `sdfg` with the given shapes.
fn fill(sdfg: &Sdfg, shapes: &[(ContainerId, Vec<usize>)], seed: u64) -> Data {
    let mut rng = Rng::new(seed);
    let mut d = Data::new();
    for (c, shape) in shapes {
        let ty = sdfg.containers[*c].elem;
        let n: usize = shape.iter().product();
        d.insert(
            *c,
            (
                shape.clone(),
                (0..n).map(|_| random_value(&mut rng, ty)).collect(),
            ),
        );
    }
    d
}

/// Runs map 0 both ways and compares every container element (exactly).
fn check(name: &str, sdfg: &Sdfg, symbols: &[Value], data: &Data, grids: &[[u32; 3]]) -> u32 {
    let m = generate(sdfg);
    let k = &m.kernels[0];
    let (want, want_fault) = eval_map(sdfg, k.state, k.stmt, symbols, data);
    let mut fault_word = 0;
    for &grid in grids {
        let (got, fault) = simulate_map(sdfg, &m, 0, symbols, data, grid)
            .unwrap_or_else(|e| panic!("{name}: {e}\n{}", m.text));
        for (c, (_, w)) in &want {
            let g = &got[c].1;
            for (idx, (a, b)) in g.iter().zip(w).enumerate() {
                assert!(
                    same_value(*a, *b),
                    "{name} grid {grid:?}: container {} [{idx}]: ptx {a} vs eval {b}",
                    sdfg.containers[*c].name.text
                );
            }
        }
        assert_eq!(
            fault != 0,
            want_fault.is_some(),
            "{name}: fault word {fault} vs eval {want_fault:?}"
        );
        fault_word = fault;
    }
    fault_word
}

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
fn guarded_accesses_skip_and_fault() {
    let mut b = SdfgBuilder::new("guards");
    let n = b.symbol("N", I64);
    let a = b.gpu("A", I32, vec![e::sym(n, I64)]);
    let idx = b.gpu("IDX", I64, vec![e::sym(n, I64)]);
    let out = b.gpu("O", I32, vec![e::sym(n, I64)]);
    let st = b.state("s");
    let i = e::param(0, I64);
    let body = TaskletBody {
        locals: vec![],
        stmts: vec![
            // O[i] = A[IDX[i]] (IDX may be out of range: skipped, reads 0, faults)
            s::store(
                out,
                vec![i.clone()],
                e::load(a, I32, vec![e::load(idx, I64, vec![i.clone()])]),
            ),
            // A guarded load that never faults: if i > 0 { A[i - 1] } else { 0 }
            s::reduce(
                out,
                vec![i.clone()],
                e::select(
                    e::bin(BinOp::Gt, i.clone(), e::i64(0)),
                    e::load(a, I32, vec![e::sub(i.clone(), e::i64(1))]),
                    e::i32(0),
                ),
                WcrOp::Sum,
            ),
        ],
    };
    b.gpu_map(
        st,
        "g",
        vec![map_param("i", I64, e::i64(0), e::sym(n, I64), None)],
        body,
    );
    let sdfg = b.build();
    let nn = 50usize;
    let mut d = fill(&sdfg, &[(a, vec![nn]), (out, vec![nn])], 3);
    // In range everywhere: no fault.
    d.insert(
        idx,
        (
            vec![nn],
            (0..nn).map(|k| Value::I64(((k * 7) % nn) as i64)).collect(),
        ),
    );
    assert_eq!(
        check(
            "guards-ok",
            &sdfg,
            &[Value::I64(nn as i64)],
            &d,
            &[[1, 1, 1]]
        ),
        0
    );
    // Some negative and too-large indices: code 2 = the second access in program order (A[..]).
    d.insert(
        idx,
        (
            vec![nn],
            (0..nn)
                .map(|k| {
                    Value::I64(if k % 5 == 0 {
                        -1
                    } else if k % 7 == 0 {
                        nn as i64
                    } else {
                        k as i64
                    })
                })
                .collect(),
        ),
    );
    assert_eq!(
        check(
            "guards-oob",
            &sdfg,
            &[Value::I64(nn as i64)],
            &d,
            &[[1, 1, 1]]
        ),
        2
    );
}

#[test]
fn loops_ifs_locals_and_lazy_logic() {
    let mut b = SdfgBuilder::new("control");
    let n = b.symbol("N", I64);
    let flag = b.symbol("FLAG", Bool);
    let a = b.gpu("A", F32, vec![e::sym(n, I64)]);
    let out = b.gpu("O", F32, vec![e::sym(n, I64)]);
    let cnt = b.gpu("C", U32, vec![e::i64(3)]);
    let hb = b.container("hb", Bool, vec![], Storage::Host);
    let st = b.state("s");
    let i = || e::param(0, I64);
    let locals = vec![
        local("acc", F32, true),
        local("k", I64, false),
        local("u", U32, false),
        local("j", I32, false),
    ];
    let stmts = vec![
        s::let_(0, e::f32(0.0)),
        s::for_(
            1,
            e::i64(0),
            e::sym(n, I64),
            Some(e::i64(3)),
            vec![s::assign(
                0,
                e::add(e::local(0, F32), e::load(a, F32, vec![e::local(1, I64)])),
            )],
        ),
        s::for_(
            2,
            e::u32(4),
            e::u32(0),
            None,
            vec![s::assign(0, e::f32(-1.0))],
        ),
        s::for_(
            3,
            e::i32(-5),
            e::i32(i32::MAX),
            Some(e::i32(1 << 30)),
            vec![s::assign(
                0,
                e::add(e::local(0, F32), e::cast(e::local(3, I32), F32)),
            )],
        ),
        s::if_(
            e::bin(
                BinOp::And,
                e::sym(flag, Bool),
                e::bin(BinOp::Gt, e::load(a, F32, vec![i()]), e::f32(0.0)),
            ),
            vec![s::store(out, vec![i()], e::local(0, F32))],
            vec![
                s::reduce(
                    cnt,
                    vec![e::bin(BinOp::Rem, i(), e::i64(3))],
                    e::u32(1),
                    WcrOp::Sum,
                ),
                s::store(
                    out,
                    vec![i()],
                    e::select(
                        e::bin(
                            BinOp::Or,
                            e::load(hb, Bool, vec![]),
                            e::bin(BinOp::Lt, i(), e::i64(4)),
                        ),
                        e::load(a, F32, vec![e::add(i(), e::i64(1))]),
                        e::f32(7.0),
                    ),
                ),
            ],
        ),
    ];
    b.gpu_map(
        st,
        "ctl",
        vec![map_param("i", I64, e::i64(0), e::sym(n, I64), None)],
        TaskletBody { locals, stmts },
    );
    let sdfg = b.build();
    let nn = 23usize;
    for (fl, hbv) in [(true, false), (false, false), (false, true)] {
        let mut d = fill(&sdfg, &[(a, vec![nn]), (out, vec![nn])], 9);
        d.insert(cnt, (vec![3], vec![Value::U32(0); 3]));
        d.insert(hb, (vec![], vec![Value::Bool(hbv)]));
        check(
            "control",
            &sdfg,
            &[Value::I64(nn as i64), Value::Bool(fl)],
            &d,
            &[[1, 1, 1], [3, 1, 1]],
        );
    }
}

#[test]
fn wcr_of_every_op_and_type() {
    for ty in [I32, I64, U32, U64, F32, F64] {
        for op in [WcrOp::Sum, WcrOp::Product, WcrOp::Min, WcrOp::Max] {
            let mut b = SdfgBuilder::new("wcr");
            let n = b.symbol("N", I64);
            let a = b.gpu("A", ty, vec![e::sym(n, I64)]);
            let r = b.gpu("R", ty, vec![e::i64(4)]);
            let st = b.state("s");
            let i = e::param(0, I64);
            let body = TaskletBody {
                locals: vec![],
                stmts: vec![s::reduce(
                    r,
                    vec![e::bin(BinOp::Rem, i.clone(), e::i64(4))],
                    e::load(a, ty, vec![i]),
                    op,
                )],
            };
            b.gpu_map(
                st,
                "w",
                vec![map_param("i", I64, e::i64(0), e::sym(n, I64), None)],
                body,
            );
            let sdfg = b.build();
            let nn = 4usize; // one update per element: order-independent, so exact
            let d = fill(
                &sdfg,
                &[(a, vec![nn]), (r, vec![4])],
                ty as u64 * 10 + op as u64,
            );
            check(
                &format!("wcr {} {ty}", op.name()),
                &sdfg,
                &[Value::I64(nn as i64)],
                &d,
                &[[1, 1, 1]],
            );
            // Several updates per element: integer sum/min/max and float min/max are order-independent.
            let order_free = matches!(op, WcrOp::Min | WcrOp::Max)
                || (op == WcrOp::Sum && ty.is_integer())
                || (op == WcrOp::Product && ty.is_integer());
            if order_free {
                let nn = 40usize;
                let d = fill(&sdfg, &[(a, vec![nn]), (r, vec![4])], 77);
                check(
                    &format!("wcr* {} {ty}", op.name()),
                    &sdfg,
                    &[Value::I64(nn as i64)],
                    &d,
                    &[[1, 1, 1]],
                );
            }
        }
    }
}

#[test]
fn random_expressions_match_evaluator() {
    let config = GenConfig {
        max_depth: 5,
        approx_math: true,
    };
    let n = 11usize;
    let (mut exact, mut approx, mut approx_off) = (0, 0, 0);
    let seeds = if cfg!(debug_assertions) { 100 } else { 600 };
    for seed in 0..seeds {
        let ty = ScalarType::ALL[(seed % 7) as usize];
        let k = random_kernel(seed, ty, &config);
        let mut d = Data::new();
        for &(t, c) in &k.inputs {
            d.insert(c, (vec![n], random_inputs(seed, t, n)));
        }
        d.insert(k.out, (vec![n], vec![Value::from_bits(ty, 0); n]));
        let m = generate(&k.sdfg);
        let syms = [Value::I64(n as i64)];
        let (want, _) = eval_map(&k.sdfg, 0, 0, &syms, &d);
        let (got, fault) = simulate_map(&k.sdfg, &m, 0, &syms, &d, [1, 1, 1])
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert_eq!(fault, 0, "seed {seed}");
        let (w, g) = (&want[&k.out].1, &got[&k.out].1);
        if is_exact(&k.expr) {
            exact += 1;
            for idx in 0..n {
                assert!(
                    same_value(g[idx], w[idx]),
                    "seed {seed} [{idx}]: ptx {} vs eval {}\nexpr {:?}",
                    g[idx],
                    w[idx],
                    k.expr
                );
            }
        } else {
            approx += 1;
            if (0..n).any(|idx| !same_value(g[idx], w[idx])) {
                approx_off += 1;
            }
        }
    }
    println!("{exact} exact expressions bit-identical; {approx} with transcendental calls ({approx_off} not bit-identical, expected within ULP bounds)");
}

/// The PTX `.func`s, run on the interpreter, compute exactly what their Rust
/// mirrors compute (which tests/ptx_math.rs compares with std).
#[test]
fn math_functions_equal_their_mirrors() {
    use sdfg_compiler::codegen::ptx::math::mirror as m;
    let n = 600usize;
    for ty in [F32, F64] {
        for f in [
            MathFn::Exp,
            MathFn::Ln,
            MathFn::Sin,
            MathFn::Cos,
            MathFn::Tanh,
            MathFn::Powf,
            MathFn::Powi,
        ] {
            let mut b = SdfgBuilder::new("mathf");
            let nn = b.symbol("N", I64);
            let x = b.gpu("X", ty, vec![e::sym(nn, I64)]);
            let y = b.gpu("Y", ty, vec![e::sym(nn, I64)]);
            let k = b.gpu("K", I32, vec![e::sym(nn, I64)]);
            let out = b.gpu("O", ty, vec![e::sym(nn, I64)]);
            let st = b.state("s");
            let i = e::param(0, I64);
            let mut args = vec![e::load(x, ty, vec![i.clone()])];
            if f == MathFn::Powi {
                args.push(e::load(k, I32, vec![i.clone()]));
            } else if f == MathFn::Powf {
                args.push(e::load(y, ty, vec![i.clone()]));
            }
            let body = TaskletBody {
                locals: vec![],
                stmts: vec![s::store(out, vec![i], e::call(f, args))],
            };
            b.gpu_map(
                st,
                "f",
                vec![map_param("i", I64, e::i64(0), e::sym(nn, I64), None)],
                body,
            );
            let sdfg = b.build();
            let mut d = fill(
                &sdfg,
                &[(x, vec![n]), (y, vec![n]), (out, vec![n])],
                f as u64 + 100 * ty as u64,
            );
            d.insert(
                k,
                (
                    vec![n],
                    (0..n).map(|j| Value::I32((j as i32 % 41) - 20)).collect(),
                ),
            );
            let module = generate(&sdfg);
            let (got, _) =
                simulate_map(&sdfg, &module, 0, &[Value::I64(n as i64)], &d, [1, 1, 1]).unwrap();
            for j in 0..n {
                let (xv, yv, kv) = (d[&x].1[j], d[&y].1[j], d[&k].1[j]);
                let want = match (xv, yv, kv) {
                    (Value::F64(a), Value::F64(bv), Value::I32(kk)) => Value::F64(match f {
                        MathFn::Exp => m::exp_f64(a),
                        MathFn::Ln => m::ln_f64(a),
                        MathFn::Sin => m::sin_f64(a),
                        MathFn::Cos => m::cos_f64(a),
                        MathFn::Tanh => m::tanh_f64(a),
                        MathFn::Powf => m::powf_f64(a, bv),
                        _ => m::powi_f64(a, kk),
                    }),
                    (Value::F32(a), Value::F32(bv), Value::I32(kk)) => Value::F32(match f {
                        MathFn::Exp => m::exp_f32(a),
                        MathFn::Ln => m::ln_f32(a),
                        MathFn::Sin => m::sin_f32(a),
                        MathFn::Cos => m::cos_f32(a),
                        MathFn::Tanh => m::tanh_f32(a),
                        MathFn::Powf => m::powf_f32(a, bv),
                        _ => m::powi_f32(a, kk),
                    }),
                    _ => unreachable!(),
                };
                let g = got[&out].1[j];
                assert!(
                    same_value(g, want),
                    "{}({xv}, {yv}, {kv}) {ty}: ptx {g} vs mirror {want}",
                    f.method_name()
                );
            }
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
fn float_remainder_is_exact() {
    for ty in [F32, F64] {
        let mut b = SdfgBuilder::new("rem");
        let n = b.symbol("N", I64);
        let x = b.gpu("X", ty, vec![e::sym(n, I64)]);
        let y = b.gpu("Y", ty, vec![e::sym(n, I64)]);
        let out = b.gpu("O", ty, vec![e::sym(n, I64)]);
        let st = b.state("s");
        let i = e::param(0, I64);
        let body = TaskletBody {
            locals: vec![],
            stmts: vec![s::store(
                out,
                vec![i.clone()],
                e::bin(
                    BinOp::Rem,
                    e::load(x, ty, vec![i.clone()]),
                    e::load(y, ty, vec![i]),
                ),
            )],
        };
        b.gpu_map(
            st,
            "r",
            vec![map_param("i", I64, e::i64(0), e::sym(n, I64), None)],
            body,
        );
        let sdfg = b.build();
        let nn = 400usize;
        let mut d = fill(
            &sdfg,
            &[(x, vec![nn]), (y, vec![nn]), (out, vec![nn])],
            5 + ty as u64,
        );
        // Huge quotients (the exact slow path) in every other element.
        let mut rng = Rng::new(11);
        for k in (0..nn).step_by(2) {
            let (big, small) = (
                rng.next_u64() as f64 * 1e200,
                (rng.next_u64() % 1000) as f64 + 0.3,
            );
            let (bx, sy) = if ty == F32 {
                (Value::F32((big * 1e-182) as f32), Value::F32(small as f32))
            } else {
                (Value::F64(big), Value::F64(small))
            };
            d.get_mut(&x).unwrap().1[k] = bx;
            d.get_mut(&y).unwrap().1[k] = sy;
        }
        check(
            &format!("rem {ty}"),
            &sdfg,
            &[Value::I64(nn as i64)],
            &d,
            &[[1, 1, 1]],
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

#[test]
fn random_bodies_match_evaluator() {
    use sdfg_testkit::randexpr::random_body;
    let n = 13usize;
    let seeds = if cfg!(debug_assertions) { 30 } else { 300 };
    let mut faulted = 0;
    for seed in 0..seeds {
        let ty = ScalarType::ALL[(seed % 7) as usize];
        let k = random_body(seed, ty, seed % 2 == 1);
        let mut d = Data::new();
        for &(t, c) in &k.inputs {
            d.insert(c, (vec![n], random_inputs(seed, t, n)));
        }
        d.insert(k.out, (vec![n], vec![Value::from_bits(ty, 0); n]));
        let acc_ty = k.sdfg.containers[k.acc].elem;
        d.insert(k.acc, (vec![3], random_inputs(seed + 1, acc_ty, 3)));
        if check(
            &format!("body seed {seed}"),
            &k.sdfg,
            &[Value::I64(n as i64)],
            &d,
            &[[1, 1, 1], [2, 1, 1]],
        ) != 0
        {
            faulted += 1;
        }
    }
    println!("{seeds} random bodies matched ({faulted} with out-of-bounds accesses)");
}

#[test]
#[ignore]
fn debug_body() {
    use sdfg_testkit::randexpr::random_body;
    let seed: u64 = std::env::var("SEED").unwrap().parse().unwrap();
    let k = random_body(seed, ScalarType::ALL[(seed % 7) as usize], seed % 2 == 1);
    if let StatementKind::Map(m) = &k.sdfg.states[0].stmts[0].kind {
        println!("{:#?}", m.body.stmts);
    }
    println!("{}", generate(&k.sdfg).text);
}

#[test]
fn scalar_reductions_use_per_thread_partials() {
    for (ty, op) in [
        (I64, WcrOp::Sum),
        (U32, WcrOp::Product),
        (F64, WcrOp::Min),
        (F32, WcrOp::Max),
        (I32, WcrOp::Max),
        (F64, WcrOp::Sum),
    ] {
        let mut b = SdfgBuilder::new("scalar_red");
        let n = b.symbol("N", I64);
        let x = b.gpu("X", ty, vec![e::sym(n, I64)]);
        let total = b.gpu("T", ty, vec![]);
        let st = b.state("s");
        let i = e::param(0, I64);
        // if X[i] > 0 { T op= X[i] } else { T op= X[i] * 2 }: updates under both branches.
        let zero = e::lit(Value::from_bits(ty, 0));
        let two = e::lit(sdfg_compiler::ir::semantics::cast(Value::I64(2), ty));
        let body = TaskletBody {
            locals: vec![],
            stmts: vec![s::if_(
                e::bin(BinOp::Gt, e::load(x, ty, vec![i.clone()]), zero),
                vec![s::reduce(
                    total,
                    vec![],
                    e::load(x, ty, vec![i.clone()]),
                    op,
                )],
                vec![s::reduce(
                    total,
                    vec![],
                    e::mul(e::load(x, ty, vec![i]), two),
                    op,
                )],
            )],
        };
        b.gpu_map(
            st,
            "r",
            vec![map_param("i", I64, e::i64(0), e::sym(n, I64), None)],
            body,
        );
        let sdfg = b.build();
        let m = generate(&sdfg);
        assert!(
            m.text.contains("per-thread partial"),
            "{ty} {op:?}: no partial"
        );
        let nn = 700usize;
        let mut d = fill(&sdfg, &[(x, vec![nn]), (total, vec![])], 3);
        if ty == F64 && op == WcrOp::Sum {
            // Reassociated float sum: compare with a tolerance on integers-valued data (exact).
            d.insert(
                x,
                (
                    vec![nn],
                    (0..nn).map(|k| Value::F64((k % 17) as f64 - 8.0)).collect(),
                ),
            );
        }
        if ty == U32 && op == WcrOp::Product {
            d.insert(
                x,
                (
                    vec![nn],
                    (0..nn).map(|k| Value::U32((k % 5) as u32 + 1)).collect(),
                ),
            );
        }
        check(
            &format!("scalar {} {ty}", op.name()),
            &sdfg,
            &[Value::I64(nn as i64)],
            &d,
            &[[1, 1, 1], [3, 1, 1]],
        );
    }
}

#[test]
fn dot_matches_evaluator() {
    use sdfg_testkit::examples::dot;
    let sdfg = dot();
    for n in [0usize, 1, 31, 33, 1000] {
        // Small integers: the reassociated float sum is exact.
        let mut d = Data::new();
        d.insert(
            0,
            (
                vec![n],
                (0..n).map(|k| Value::F64((k % 7) as f64 - 3.0)).collect(),
            ),
        );
        d.insert(
            1,
            (
                vec![n],
                (0..n).map(|k| Value::F64((k % 5) as f64)).collect(),
            ),
        );
        d.insert(2, (vec![], vec![Value::F64(0.5)]));
        check(
            "dot",
            &sdfg,
            &[Value::I64(n as i64)],
            &d,
            &[[1, 1, 1], [2, 1, 1]],
        );
    }
}

/// Several rows per thread in y: loads shared between rows (the row
/// parameter plus a constant, in any index position) are issued once, but
/// only with step 1; row-independent loads, steps > 1, partial row runs and
/// 3-D maps all still match the evaluator.
#[test]
fn row_runs_share_loads_only_when_legal() {
    let f = |c: ContainerId, index: Vec<Expr>| e::load(c, F64, index);
    let plus = |x: &Expr, c: i64| {
        if c == 0 {
            x.clone()
        } else {
            e::add(x.clone(), e::i64(c))
        }
    };
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
            check(
                &format!("rows step {y_step} {rows}x{cols}"),
                &sdfg,
                &[Value::I64(rows as i64), Value::I64(cols as i64)],
                &d,
                &[[1, 1, 1], [2, 3, 1], [3, 1, 1]],
            );
        }
    }
    // 3-D: the rows are the middle dimension.
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
    b.gpu_map(st, "m", vec![inner("k"), inner("i"), inner("j")], body);
    let sdfg = b.build();
    for size in [3usize, 8, 13] {
        let d = fill(
            &sdfg,
            &[(a, vec![size; 3]), (out, vec![size; 3])],
            size as u64,
        );
        check(
            "rows 3-d",
            &sdfg,
            &[Value::I64(size as i64)],
            &d,
            &[[1, 1, 1], [2, 2, 2]],
        );
    }
}

/// The jacobi 5-point stencil's full tile loads each of the `rows + 2`
/// rows' centre once per x item, not three times: (rows + 2 + 2 rows)
/// loads per x item, plus the 5 of the partial tile's loop.
#[test]
fn stencil_rows_issue_shared_loads_once() {
    let m = generate(&stencil());
    let k = &m.kernels[0];
    let (ipt, rows) = (k.items_per_thread as usize, k.rows_per_thread as usize);
    assert!(rows > 1, "2-D stencils run several rows per thread");
    let loads = m.text.matches("ld.global.nc.f64").count();
    assert_eq!(loads, ipt * (rows + 2 + 2 * rows) + 5, "{}", m.text);
}

/// 32-bit integer negation is emitted as `!x + 1`, never `neg.s32`: the
/// ptxas of CUDA 13.0 drops a `neg.s32` it fuses into a three-input
/// min/max. The values stay those of wrapping negation.
#[test]
fn negation_of_32_bit_integers_avoids_neg_s32() {
    for ty in [I32, U32] {
        let mut b = SdfgBuilder::new("neg");
        let n = b.symbol("N", I64);
        let a = b.gpu("A", ty, vec![e::sym(n, I64)]);
        let out = b.gpu("O", ty, vec![e::sym(n, I64)]);
        let st = b.state("s");
        let i = e::param(0, I64);
        let x = e::load(a, ty, vec![i.clone()]);
        let value = e::call(
            MathFn::Max,
            vec![
                x.clone(),
                e::call(MathFn::Max, vec![x.clone(), e::un(UnOp::Neg, x.clone())]),
            ],
        );
        let value = if ty == I32 {
            e::add(value, e::call(MathFn::Abs, vec![x]))
        } else {
            value
        };
        let body = TaskletBody {
            locals: vec![],
            stmts: vec![s::store(out, vec![i], value)],
        };
        b.gpu_map(
            st,
            "m",
            vec![map_param("i", I64, e::i64(0), e::sym(n, I64), None)],
            body,
        );
        let sdfg = b.build();
        let text = generate(&sdfg).text;
        assert!(!text.contains("neg.s32"), "{text}");
        let mut d = fill(&sdfg, &[(a, vec![37]), (out, vec![37])], 3);
        d.get_mut(&a).unwrap().1[0] = sdfg_compiler::ir::semantics::cast(Value::I32(i32::MIN), ty);
        check("neg", &sdfg, &[Value::I64(37)], &d, &[[1, 1, 1]]);
    }
}

/// A 2-D map with several rows per thread that reduces into a scalar
/// (per-thread partials over all rows and items) and one that stores.
#[test]
fn two_d_scalar_reduction_over_row_runs() {
    let mut b = SdfgBuilder::new("count2d");
    let r = b.symbol("R", I64);
    let c = b.symbol("C", I64);
    let x = b.gpu("X", I64, vec![e::sym(r, I64), e::sym(c, I64)]);
    let total = b.gpu("T", I64, vec![]);
    let st = b.state("s");
    let (i, j) = (e::param(0, I64), e::param(1, I64));
    let body = TaskletBody {
        locals: vec![],
        stmts: vec![s::reduce(
            total,
            vec![],
            e::load(x, I64, vec![i, j]),
            WcrOp::Sum,
        )],
    };
    let range = |name: &str, s| map_param(name, I64, e::i64(0), e::sym(s, I64), None);
    b.gpu_map(st, "m", vec![range("i", r), range("j", c)], body);
    let sdfg = b.build();
    for (rows, cols) in [(3usize, 5usize), (9, 130), (37, 41), (65, 300)] {
        let mut d = fill(&sdfg, &[(x, vec![rows, cols]), (total, vec![])], 7);
        d.insert(
            x,
            (
                vec![rows, cols],
                (0..rows * cols)
                    .map(|k| Value::I64((k % 7) as i64))
                    .collect(),
            ),
        );
        d.insert(total, (vec![], vec![Value::I64(0)]));
        check(
            &format!("count2d {rows}x{cols}"),
            &sdfg,
            &[Value::I64(rows as i64), Value::I64(cols as i64)],
            &d,
            &[[1, 1, 1], [2, 3, 1], [3, 1, 1]],
        );
    }
}
