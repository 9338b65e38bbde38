//! Expressions: random expressions, the math subroutines against their
//! mirrors, the exact float remainder, 32-bit negation.

use super::*;

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
        let ty = ScalarType::ALL[(seed % ScalarType::ALL.len() as u64) as usize];
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
/// mirrors compute (which sdfg-compiler/tests/ptx_math.rs compares with std).
#[test]
fn math_functions_equal_their_mirrors() {
    use sdfg_compiler::math::mirror as m;
    let n = 600usize;
    for ty in [F32, F64] {
        for f in MathFn::ALL
            .into_iter()
            .filter(|f| (f.is_transcendental() || *f == MathFn::Powi) && f.takes_reals())
        {
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
            } else if f.arity() == 2 {
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
                    (Value::F64(a), Value::F64(bv), Value::I32(kk)) => {
                        let b = if f == MathFn::Powi { kk as f64 } else { bv };
                        Value::F64(m::call_f64(f, a, b).expect("a subroutine"))
                    }
                    (Value::F32(a), Value::F32(bv), Value::I32(kk)) => {
                        let b = if f == MathFn::Powi { kk as f32 } else { bv };
                        Value::F32(m::call_f32(f, a, b).expect("a subroutine"))
                    }
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
