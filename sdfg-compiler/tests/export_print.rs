//! The expression printers: Rust syntax with the fewest parentheses that
//! keep the meaning, Python for DaCe; and the exporters' robustness.

mod common;

use common::lower;
use sdfg_compiler::export::dace::to_sdfg_json;
use sdfg_compiler::export::dot::to_dot;
use sdfg_compiler::export::print::{expr_to_python, stmts_to_rust, BodyNames};
use sdfg_compiler::ir::StatementKind;

const PRECEDENCE: &str = r#"
pub sdfg Printing {
    symbol N: i64;
    host X: i64[16];
    host F: f64[4];
    host B: bool[2];
    state s {
        tasklet t {
            let a = X[0];
            let b = X[1];
            let c = X[2];
            X[3] = (a + b) * c;
            X[4] = a - (b - c);
            X[5] = a - b - c;
            X[6] = -(a + b);
            X[7] = (a + b) as i64 * 2;
            X[8] = a << (b & 3) | c;
            X[9] = if a < b { a } else { b } + 1;
            X[10] = (a * b).abs().min(c);
            F[0] = (F[1] + 1.0).sqrt();
            B[0] = !(a < b) && (b == c || a != c);
            X[11] = (a % 3) / (b + 1);
            let mut s = 0i64;
            for k in (0i64..N).step_by(2) {
                if k > a {
                    s += k;
                } else {
                    s = s - 1;
                }
            }
            X[12] = s;
        }
    }
}
"#;

#[test]
fn rust_printer_parenthesizes_exactly_where_needed() {
    let sdfg = lower(PRECEDENCE);
    let StatementKind::Tasklet(t) = &sdfg.states[0].stmts[0].kind else {
        panic!("expected a tasklet");
    };
    let printed = stmts_to_rust(&t.body.stmts, &sdfg, &BodyNames::for_tasklet(t), 0);
    let expected = "\
let a = X[0];
let b = X[1];
let c = X[2];
X[3] = (a + b) * c;
X[4] = a - (b - c);
X[5] = a - b - c;
X[6] = -(a + b);
X[7] = (a + b) as i64 * 2;
X[8] = a << (b & 3) | c;
X[9] = (if a < b { a } else { b }) + 1;
X[10] = (a * b).abs().min(c);
F[0] = (F[1] + 1.0).sqrt();
B[0] = !(a < b) && (b == c || a != c);
X[11] = a % 3 / (b + 1);
let mut s = 0i64;
for k in (0..N).step_by(2) {
    if k > a {
        s = s + k;
    } else {
        s = s - 1;
    }
}
X[12] = s;
";
    assert_eq!(printed, expected);
}

/// The source printer: every literal keeps its type, and what it prints
/// lowers back to the same program (printed again, the same text).
const SOURCE: &str = r#"
pub sdfg Source {
    host X: i64[4];
    host S: i8[2];
    host U: u8[2];
    host H: f16[2];
    host Z: c32[1];
    host B: bool[2];
    state s {
        tasklet t {
            S[0] = i8::MIN + 3i8 - -5i8;
            U[0] = (X[0] as u8) << 2u8;
            B[0] = (X[1] as i32) < 7i32 && (X[0] + X[1] as i64) < 3i64;
            H[0] = H[1] * (0.5f32 as f16) + (-1.5f32 as f16);
            Z[0] = Z[0] * c32::new(-0.0f32, 2.0f32);
            B[1] = (-2.5f64).abs() > 1.0e300f64;
        }
    }
}
"#;

#[test]
fn source_printer_types_every_literal_and_parses_back() {
    use sdfg_compiler::export::print::{stmts_to_source, value_to_source};
    use sdfg_compiler::ir::Value;
    let cases = [
        (Value::U8(5), "5u8"),
        (Value::I8(i8::MIN), "i8::MIN"),
        (Value::I64(i64::MIN), "i64::MIN"),
        (Value::I16(-3), "-3i16"),
        (Value::U64(u64::MAX), "18446744073709551615u64"),
        (Value::F32(-0.0), "-0.0f32"),
        (Value::F64(f64::NAN), "f64::NAN"),
        (Value::F32(f32::NEG_INFINITY), "f32::NEG_INFINITY"),
        (Value::F16(half::f16::from_f32(0.5)), "(0.5f32 as f16)"),
        (Value::BF16(half::bf16::INFINITY), "bf16::INFINITY"),
        (
            Value::C32(num_complex::Complex::new(1.0, -2.0)),
            "c32::new(1.0f32, -2.0f32)",
        ),
        (Value::Bool(true), "true"),
    ];
    for (v, text) in cases {
        assert_eq!(value_to_source(v), text, "{v:?}");
    }
    let print = |src: &str| {
        let sdfg = lower(src);
        let StatementKind::Tasklet(t) = &sdfg.states[0].stmts[0].kind else {
            panic!("expected a tasklet");
        };
        stmts_to_source(&t.body.stmts, &sdfg, &BodyNames::for_tasklet(t), 12)
    };
    let printed = print(SOURCE);
    // Casts before `<` and `<<` keep their parentheses (`x as i32 < y`
    // would open generic arguments).
    assert!(printed.contains("(X[0i32] as u8) << 2u8"), "{printed}");
    assert!(printed.contains("(X[1i32] as i32) < 7i32"), "{printed}");
    assert!(
        printed.contains("(X[0i32] + X[1i32] as i64) < 3i64"),
        "{printed}"
    );
    let start = SOURCE.find("tasklet t {").unwrap() + "tasklet t {".len();
    let end = SOURCE.rfind("        }\n    }\n}").unwrap();
    let again = format!("{}{}{}", &SOURCE[..start], printed, &SOURCE[end..]);
    assert_eq!(print(&again), printed, "printed source:\n{again}");
}

#[test]
fn source_printer_writes_bool_orderings_as_bit_operations() {
    use sdfg_compiler::export::print::stmts_to_source;
    use sdfg_compiler::ir::{BinOp, Expr, ExprKind, ScalarType, Stmt, Value};
    // The language refuses `<` on bools; the IR (and the evaluator) has it.
    let sdfg = lower(PRECEDENCE);
    let StatementKind::Tasklet(t) = &sdfg.states[0].stmts[0].kind else {
        panic!("expected a tasklet");
    };
    let span = t.body.stmts[0].span();
    let b = |v: bool| Expr::lit(Value::Bool(v), span);
    let stmts: Vec<Stmt> = [BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge]
        .into_iter()
        .map(|op| Stmt::Store {
            container: 2, // B
            index: vec![Expr::lit(Value::I64(0), span)],
            value: Expr::new(
                ExprKind::Binary {
                    op,
                    lhs: Box::new(b(false)),
                    rhs: Box::new(b(true)),
                },
                ScalarType::Bool,
                span,
            ),
            wcr: None,
            span,
        })
        .collect();
    assert_eq!(
        stmts_to_source(&stmts, &sdfg, &BodyNames::for_tasklet(t), 0),
        "B[0i64] = !false & true;\nB[0i64] = !false | true;\nB[0i64] = false & !true;\nB[0i64] = false | !true;\n"
    );
}

#[test]
fn python_printer_speaks_dace() {
    let sdfg = lower(common::JACOBI2D);
    let cond = |k: usize| {
        expr_to_python(
            sdfg.edges[k].condition.as_ref().expect("a condition"),
            &sdfg,
            &BodyNames::none(),
        )
    };
    assert_eq!(cond(1), "t + 1 < TSTEPS");
    let src = r#"
pub sdfg Py {
    symbol N: i64;
    state a {}
    state b {}
    a -> b if !(N > 2) && (N < 10 || N == 20) { M = N / 2 }
}
"#;
    let sdfg = lower(src);
    let e = &sdfg.edges[0];
    let c = expr_to_python(e.condition.as_ref().unwrap(), &sdfg, &BodyNames::none());
    assert_eq!(c, "not N > 2 and (N < 10 or N == 20)");
    let v = expr_to_python(&e.assignments[0].1, &sdfg, &BodyNames::none());
    assert_eq!(v, "N // 2");
}

/// Dangling ids (which the front end never produces) print as
/// placeholders; nothing panics.
#[test]
fn exporters_survive_broken_ir() {
    let mut sdfg = lower(common::STREAMS);
    let state = &mut sdfg.states[0];
    state.stmts[0].memlets[0].container = 99;
    state
        .graph
        .nodes
        .push(sdfg_compiler::ir::DataNode::Stmt(42));
    state.graph.edges.push(sdfg_compiler::ir::DataEdge {
        src: 1000,
        dst: 0,
        memlet: Some((77, 3)),
    });
    sdfg.edges.push(sdfg_compiler::ir::InterstateEdge {
        from: 0,
        to: 12,
        condition: None,
        assignments: vec![(
            55,
            sdfg_compiler::ir::Expr::lit(
                sdfg_compiler::ir::Value::I64(1),
                proc_macro2::Span::call_site(),
            ),
        )],
        span: proc_macro2::Span::call_site(),
    });
    sdfg.start = 7;
    let dot = to_dot(&sdfg, None);
    assert!(dot.contains("?container99"), "{dot}");
    let json = to_sdfg_json(&sdfg);
    assert!(json["start_block"].is_null());
}
