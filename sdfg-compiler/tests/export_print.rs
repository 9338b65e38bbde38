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
