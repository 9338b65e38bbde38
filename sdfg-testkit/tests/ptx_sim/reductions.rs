//! WCR: every operator and type, per-thread partials of scalar reductions
//! (1-D and over row runs), dot.

use super::*;

#[test]
fn wcr_of_every_op_and_type() {
    for ty in [I8, I16, I32, I64, U8, U16, U32, U64, F32, F64, F16, BF16] {
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
            // Floats: one update per element (order-independent, so exact);
            // integers: four per element, and 1- and 2-byte neighbours
            // (narrow integers, f16, bf16) share the word their
            // compare-and-swap loops update.
            let nn = if ty.is_integer() { 16usize } else { 4 };
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
fn scalar_reductions_use_per_thread_partials() {
    for (ty, op) in [
        (I64, WcrOp::Sum),
        (U32, WcrOp::Product),
        (F64, WcrOp::Min),
        (F32, WcrOp::Max),
        (I32, WcrOp::Max),
        (F64, WcrOp::Sum),
        (F16, WcrOp::Max),
        (BF16, WcrOp::Min),
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

/// `T += z` into a complex scalar takes per-thread partials too (one
/// partial per part, combined per warp, then two float atomics per warp),
/// under both branches of an `if`, with lanes that never update; on
/// integer-valued parts the reassociated sums are exact.
#[test]
fn complex_scalar_sums_use_per_thread_partials() {
    for ty in [C32, C64] {
        let mut b = SdfgBuilder::new("complex_sum");
        let n = b.symbol("N", I64);
        let x = b.gpu("X", ty, vec![e::sym(n, I64)]);
        let total = b.gpu("T", ty, vec![]);
        let st = b.state("s");
        let i = e::param(0, I64);
        let load = || e::load(x, ty, vec![i.clone()]);
        let two = e::lit(sdfg_compiler::ir::semantics::cast(Value::I64(2), ty));
        // i % 3 == 0: T += X[i]; i % 3 == 1: T += X[i] * 2; otherwise no update.
        let rem = |k: i64| {
            e::bin(
                BinOp::Eq,
                e::bin(BinOp::Rem, i.clone(), e::i64(3)),
                e::i64(k),
            )
        };
        let body = TaskletBody {
            locals: vec![],
            stmts: vec![s::if_(
                rem(0),
                vec![s::reduce(total, vec![], load(), WcrOp::Sum)],
                vec![s::if_(
                    rem(1),
                    vec![s::reduce(total, vec![], e::mul(load(), two), WcrOp::Sum)],
                    vec![],
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
        assert!(m.text.contains("per-thread partial"), "{ty}: no partial");
        // The last case: every part -0.0, onto T = -0.0 - 0.0i: the sum
        // stays -0.0 only if no lane's unused start value (+0.0) joins it.
        for (nn, negative_zeros) in [
            (1usize, false),
            (2, false),
            (40, false),
            (700, false),
            (40, true),
        ] {
            let part = |k: usize, salt: usize| {
                if negative_zeros {
                    -0.0
                } else {
                    ((k * 7 + salt) % 13) as f64 - 6.0
                }
            };
            let xs: Vec<Value> = (0..nn)
                .map(|k| match ty {
                    C32 => Value::C32(num_complex::Complex::new(
                        part(k, 1) as f32,
                        part(k, 5) as f32,
                    )),
                    _ => Value::C64(num_complex::Complex::new(part(k, 1), part(k, 5))),
                })
                .collect();
            let mut d = Data::new();
            d.insert(x, (vec![nn], xs));
            let start = match (ty, negative_zeros) {
                (_, false) => Value::from_bits(ty, 0),
                (C32, true) => Value::C32(num_complex::Complex::new(-0.0, -0.0)),
                (_, true) => Value::C64(num_complex::Complex::new(-0.0, -0.0)),
            };
            d.insert(total, (vec![], vec![start]));
            check(
                &format!("complex sum {ty} n={nn} -0.0: {negative_zeros}"),
                &sdfg,
                &[Value::I64(nn as i64)],
                &d,
                &[[1, 1, 1], [3, 1, 1]],
            );
        }
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
