//! The front end on the two SDFGs of DESIGN section 3, asserted in detail,
//! plus focused tests of typing, literals, reductions, subsets and ranges.

mod common;

use common::{JACOBI2D, REPRO};
use sdfg_compiler::frontend_str;
use sdfg_compiler::ir::*;

/// Lowers `src`, failing the test with every diagnostic when it does not.
pub fn ok(src: &str) -> Sdfg {
    match frontend_str(src) {
        Ok(s) => s,
        Err(d) => panic!("unexpected diagnostics:\n{d}\nsource:\n{src}"),
    }
}

/// The messages of the diagnostics of `src` (which must fail).
pub fn errors(src: &str) -> Vec<String> {
    match frontend_str(src) {
        Ok(_) => panic!("expected diagnostics, got none:\n{src}"),
        Err(d) => d.list.iter().map(|d| d.message.clone()).collect(),
    }
}

/// An expression as compact text with types: `(A[p0, (p1 - 1i64)]:f64)`.
fn show(sdfg: &Sdfg, e: &Expr) -> String {
    match &e.kind {
        ExprKind::Lit(v) => format!("{v}{}", v.ty()),
        ExprKind::Var(VarRef::Symbol(s)) => sdfg.symbols[*s].name.text.clone(),
        ExprKind::Var(VarRef::Param(p)) => format!("p{p}"),
        ExprKind::Var(VarRef::Local(l)) => format!("l{l}"),
        ExprKind::Load { container, index } => {
            let idx: Vec<String> = index.iter().map(|i| show(sdfg, i)).collect();
            format!(
                "{}[{}]",
                sdfg.containers[*container].name.text,
                idx.join(", ")
            )
        }
        ExprKind::Unary { op, arg } => format!("{op:?}({})", show(sdfg, arg)),
        ExprKind::Binary { op, lhs, rhs } => {
            format!("({} {} {})", show(sdfg, lhs), op.symbol(), show(sdfg, rhs))
        }
        ExprKind::Cast { arg } => format!("({} as {})", show(sdfg, arg), e.ty),
        ExprKind::Select { cond, then, else_ } => format!(
            "(if {} {{ {} }} else {{ {} }})",
            show(sdfg, cond),
            show(sdfg, then),
            show(sdfg, else_)
        ),
        ExprKind::Call { func, args } => {
            let a: Vec<String> = args.iter().map(|a| show(sdfg, a)).collect();
            format!("{}({})", func.method_name(), a.join(", "))
        }
    }
}

fn subset(sdfg: &Sdfg, s: &Subset) -> String {
    let dims: Vec<String> = s
        .iter()
        .map(|d| match d {
            SubsetDim::Index(i) => show(sdfg, i),
            SubsetDim::Range { start, end } => {
                format!("{}..{}", show(sdfg, start), show(sdfg, end))
            }
        })
        .collect();
    format!("[{}]", dims.join(", "))
}

/// `connector access container subset` per memlet.
fn memlets(sdfg: &Sdfg, stmt: &Statement) -> Vec<String> {
    stmt.memlets
        .iter()
        .map(|m| {
            format!(
                "{} {:?} {}{}{}",
                m.connector,
                m.access,
                sdfg.containers[m.container].name.text,
                subset(sdfg, &m.subset),
                if m.dynamic { " dynamic" } else { "" }
            )
        })
        .collect()
}

fn body(stmt: &Statement) -> &TaskletBody {
    match &stmt.kind {
        StatementKind::Map(m) => &m.body,
        StatementKind::Tasklet(t) => &t.body,
        _ => panic!("no body"),
    }
}

fn map(stmt: &Statement) -> &Map {
    match &stmt.kind {
        StatementKind::Map(m) => m,
        _ => panic!("not a map"),
    }
}

/// Edges as `src -> dst [memlet]` with node names.
fn graph(sdfg: &Sdfg, state: &State) -> Vec<String> {
    let node = |n: usize| match &state.graph.nodes[n] {
        DataNode::Access(c) => format!("{}#{n}", sdfg.containers[*c].name.text),
        DataNode::Stmt(s) => state.stmts[*s].label(),
    };
    state
        .graph
        .edges
        .iter()
        .map(|e| {
            let memlet = e.memlet.map_or("order".to_string(), |(s, m)| {
                state.stmts[s].memlets[m].connector.clone()
            });
            format!("{} -> {} {memlet}", node(e.src), node(e.dst))
        })
        .collect()
}

#[test]
fn repro_header_and_declarations() {
    let s = ok(REPRO);
    assert_eq!(s.name.text, "Repro");
    assert_eq!(s.vis.to_string(), "pub");
    assert_eq!(
        s.docs,
        vec!["Writes T on the GPU, reads it on the host, uses it as a map range."]
    );
    assert_eq!(s.streams, StreamPolicy::Default);
    assert_eq!(s.sync, SyncMode::Auto);
    let syms: Vec<(String, ScalarType, bool)> = s
        .symbols
        .iter()
        .map(|x| (x.name.text.clone(), x.ty, x.declared))
        .collect();
    assert_eq!(
        syms,
        vec![
            ("X_size".to_string(), ScalarType::I32, true),
            ("R".to_string(), ScalarType::I32, false),
            ("S".to_string(), ScalarType::Bool, false),
        ]
    );
    let conts: Vec<String> = s
        .containers
        .iter()
        .map(|c| {
            let shape: Vec<String> = c.shape.iter().map(|d| show(&s, d)).collect();
            format!(
                "{} {:?} {} [{}] transient={}",
                c.name.text,
                c.storage,
                c.elem,
                shape.join(","),
                c.transient
            )
        })
        .collect();
    assert_eq!(
        conts,
        vec![
            "T_GPU Gpu i32 [] transient=false",
            "X Host i32 [X_size] transient=false",
            "U Host i32 [1i32] transient=false",
            "T Host i32 [] transient=true",
        ]
    );
    assert_eq!(s.start, 0);
}

#[test]
fn repro_states_memlets_and_dataflow() {
    let s = ok(REPRO);
    assert_eq!(s.states.len(), 2);
    let first = &s.states[0];
    assert_eq!(first.name.text, "first");
    let labels: Vec<String> = first.stmts.iter().map(|x| x.label()).collect();
    assert_eq!(labels, vec!["write", "copy", "cpu_computation"]);

    let write = map(&first.stmts[0]);
    assert_eq!(write.schedule, MapSchedule::Gpu);
    assert_eq!(write.params.len(), 1);
    assert_eq!(write.params[0].name.text, "i");
    assert_eq!(write.params[0].ty, ScalarType::I32);
    assert_eq!(show(&s, &write.params[0].start), "0i32");
    assert_eq!(show(&s, &write.params[0].end), "1i32");
    assert!(write.params[0].step.is_none());
    assert_eq!(
        memlets(&s, &first.stmts[0]),
        vec!["__out_T_GPU_0 Write T_GPU[]"]
    );
    match &write.body.stmts[..] {
        [Stmt::Store {
            container,
            index,
            value,
            wcr: None,
            ..
        }] => {
            assert_eq!(s.containers[*container].name.text, "T_GPU");
            assert!(index.is_empty());
            assert_eq!(show(&s, value), "10i32");
        }
        other => panic!("{other:?}"),
    }

    assert!(matches!(&first.stmts[1].kind, StatementKind::Copy(c) if c.src == 0 && c.dst == 3));
    assert_eq!(
        memlets(&s, &first.stmts[1]),
        vec!["__in_T_GPU_0 Read T_GPU[]", "__out_T_0 Write T[]"]
    );

    let tasklet = body(&first.stmts[2]);
    match &tasklet.stmts[..] {
        [Stmt::Store {
            container: 2,
            index,
            value,
            wcr: None,
            ..
        }] => {
            assert_eq!(show(&s, &index[0]), "0i32");
            assert_eq!(show(&s, value), "(T[] + 1i32)");
            assert_eq!(value.ty, ScalarType::I32);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        memlets(&s, &first.stmts[2]),
        vec!["__in_T_0 Read T[]", "__out_U_0 Write U[0i32]"]
    );

    // write -> T_GPU -> copy -> T -> cpu_computation -> U
    assert_eq!(
        graph(&s, first),
        vec![
            "write -> T_GPU#1 __out_T_GPU_0",
            "T_GPU#1 -> copy __in_T_GPU_0",
            "copy -> T#3 __out_T_0",
            "T#3 -> cpu_computation __in_T_0",
            "cpu_computation -> U#5 __out_U_0",
        ]
    );
    assert_eq!(first.graph.predecessors(0), Vec::<usize>::new());
    assert_eq!(first.graph.predecessors(1), vec![0]);
    assert_eq!(first.graph.predecessors(2), vec![1]);

    let second = &s.states[1];
    let compute = map(&second.stmts[0]);
    assert_eq!(compute.schedule, MapSchedule::Cpu);
    assert_eq!(show(&s, &compute.params[0].end), "R");
    assert_eq!(compute.params[0].ty, ScalarType::I32);
    assert_eq!(memlets(&s, &second.stmts[0]), vec!["__out_X_0 Write X[p0]"]);
}

#[test]
fn repro_edge_with_simultaneous_assignments() {
    let s = ok(REPRO);
    assert_eq!(s.edges.len(), 1);
    let e = &s.edges[0];
    assert_eq!((e.from, e.to), (0, 1));
    assert!(e.condition.is_none());
    let assigns: Vec<String> = e
        .assignments
        .iter()
        .map(|(sym, v)| format!("{} = {}: {}", s.symbols[*sym].name.text, show(&s, v), v.ty))
        .collect();
    assert_eq!(assigns, vec!["R = T[]: i32", "S = falsebool: bool"]);
}

#[test]
fn jacobi_maps_and_memlets() {
    let s = ok(JACOBI2D);
    assert_eq!(s.name.text, "Jacobi2d");
    let names: Vec<&str> = s.states.iter().map(|x| x.name.text.as_str()).collect();
    assert_eq!(names, vec!["init", "step", "done"]);
    assert_eq!(s.start, 0);
    let step = &s.states[1];
    let b = map(&step.stmts[0]);
    assert_eq!(b.params.len(), 2);
    for p in &b.params {
        assert_eq!(p.ty, ScalarType::I64);
        assert_eq!(show(&s, &p.start), "1i64");
        assert_eq!(show(&s, &p.end), "(N - 1i64)");
    }
    match &b.body.stmts[..] {
        [Stmt::Store {
            container: 1,
            index,
            value,
            wcr: None,
            ..
        }] => {
            assert_eq!(
                index.iter().map(|i| show(&s, i)).collect::<Vec<_>>(),
                vec!["p0", "p1"]
            );
            assert_eq!(
                show(&s, value),
                "(0.2f64 * ((((A[p0, p1] + A[p0, (p1 - 1i64)]) + A[p0, (p1 + 1i64)]) + A[(p0 + 1i64), p1]) + A[(p0 - 1i64), p1]))"
            );
            assert_eq!(value.ty, ScalarType::F64);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        memlets(&s, &step.stmts[0]),
        vec![
            "__in_A_0 Read A[p0, p1]",
            "__in_A_1 Read A[p0, (p1 - 1i64)]",
            "__in_A_2 Read A[p0, (p1 + 1i64)]",
            "__in_A_3 Read A[(p0 + 1i64), p1]",
            "__in_A_4 Read A[(p0 - 1i64), p1]",
            "__out_B_0 Write B[p0, p1]",
        ]
    );
    assert_eq!(memlets(&s, &step.stmts[1])[5], "__out_A_0 Write A[p0, p1]");
    // b reads A and writes B; a reads B (after b) and writes A (after b read it).
    let g = graph(&s, step);
    assert_eq!(g.iter().filter(|e| e.starts_with("A#1 -> b")).count(), 5);
    assert!(g.contains(&"b -> B#2 __out_B_0".to_string()));
    assert_eq!(g.iter().filter(|e| e.starts_with("B#2 -> a")).count(), 5);
    assert!(g.contains(&"b -> a order".to_string()), "{g:?}");
    assert!(g.contains(&"a -> A#4 __out_A_0".to_string()));
    assert_eq!(step.graph.predecessors(1), vec![0]);
    assert!(s.states[0].stmts.is_empty() && s.states[2].stmts.is_empty());
}

#[test]
fn jacobi_edges_and_inferred_loop_counter() {
    let s = ok(JACOBI2D);
    let t = s.symbol_by_name("t").expect("t is inferred");
    assert_eq!(s.symbols[t].ty, ScalarType::I64);
    assert!(!s.symbols[t].declared);
    let edges: Vec<String> = s
        .edges
        .iter()
        .map(|e| {
            let cond = e
                .condition
                .as_ref()
                .map_or("-".to_string(), |c| show(&s, c));
            let assigns: Vec<String> = e
                .assignments
                .iter()
                .map(|(x, v)| format!("{} = {}", s.symbols[*x].name.text, show(&s, v)))
                .collect();
            format!(
                "{} -> {} if {cond} {{ {} }}",
                e.from,
                e.to,
                assigns.join("; ")
            )
        })
        .collect();
    assert_eq!(
        edges,
        vec![
            "0 -> 1 if - { t = 0i64 }",
            "1 -> 1 if ((t + 1i64) < TSTEPS) { t = (t + 1i64) }",
            "1 -> 2 if ((t + 1i64) >= TSTEPS) {  }",
        ]
    );
    assert!(s.edges.iter().all(|e| e
        .condition
        .as_ref()
        .is_none_or(|c| c.ty == ScalarType::Bool)));
}

fn one_tasklet(decls: &str, body: &str) -> (Sdfg, Statement) {
    let src = format!("sdfg T {{ {decls} state s {{ tasklet t {{ {body} }} }} }}");
    let s = ok(&src);
    let stmt = s.states[0].stmts[0].clone();
    (s, stmt)
}

#[test]
fn literals_take_the_expected_type() {
    let (s, t) = one_tasklet(
        "host F: f32[4]; host U: u64[4]; host I: i64;",
        "F[0] = 2.5; F[1] = -1.0f32; U[0] = 1u64; U[1] = 7; I = -9223372036854775808; F[2] = 2.0 * F[0];",
    );
    let values: Vec<String> = body(&t)
        .stmts
        .iter()
        .map(|st| match st {
            Stmt::Store { value, .. } => format!("{}:{}", show(&s, value), value.ty),
            _ => panic!(),
        })
        .collect();
    assert_eq!(
        values,
        vec![
            "2.5f32:f32",
            "-1.0f32:f32",
            "1u64:u64",
            "7u64:u64",
            "-9223372036854775808i64:i64",
            "(2.0f32 * F[0i32]):f32"
        ]
    );
}

#[test]
fn unconstrained_literals_default_like_rust() {
    let (s, t) = one_tasklet(
        "host A: f64[4];",
        "let a = 1; let b = 2.0; let c = 3000000000; let d = a << 3u32 as i64; A[0] = b;",
    );
    let _ = s;
    let b = body(&t);
    let tys: Vec<ScalarType> = b.locals.iter().map(|l| l.ty).collect();
    assert_eq!(
        tys,
        vec![
            ScalarType::I32,
            ScalarType::F64,
            ScalarType::I64,
            ScalarType::I32
        ]
    );
}

#[test]
fn mixed_types_need_a_cast() {
    let e = errors(
        "sdfg T { host A: f64[4]; host I: i32[4]; state s { tasklet t { A[0] = A[1] + I[0]; } } }",
    );
    assert_eq!(e, vec!["mismatched types: expected `f64`, found `i32`"]);
    ok("sdfg T { host A: f64[4]; host I: i32[4]; state s { tasklet t { A[0] = A[1] + I[0] as f64; } } }");
}

#[test]
fn typing_of_operators_and_methods() {
    let (s, t) = one_tasklet(
        "host A: f64[4]; host I: i32[4]; host U: u32[4]; host B: bool[4];",
        "B[0] = A[0] < 1.0 && !B[1] || I[0] == 3; \
         U[0] = U[1] >> I[0]; U[1] = !U[2] ^ 1; \
         A[0] = A[1].sqrt().powi(2) + A[2].powf(0.5).min(3.0) + (I[0].abs() as f64); \
         I[1] = I[2].max(4) % 3; A[3] = if I[0] > 0 { A[0] } else if B[0] { 1.0 } else { -A[1] };",
    );
    let b = body(&t);
    let tys: Vec<ScalarType> = b
        .stmts
        .iter()
        .map(|st| match st {
            Stmt::Store { value, .. } => value.ty,
            _ => panic!(),
        })
        .collect();
    use ScalarType::*;
    assert_eq!(tys, vec![Bool, U32, U32, F64, I32, F64]);
    match &b.stmts[1] {
        Stmt::Store { value, .. } => assert_eq!(show(&s, value), "(U[1i32] >> I[0i32])"),
        _ => panic!(),
    }
    match &b.stmts[3] {
        Stmt::Store { value, .. } => assert_eq!(
            show(&s, value),
            "((powi(sqrt(A[1i32]), 2i32) + min(powf(A[2i32], 0.5f64), 3.0f64)) + (abs(I[0i32]) as f64))"
        ),
        _ => panic!(),
    }
}

#[test]
fn the_reduction_forms() {
    let (s, t) = one_tasklet(
        "host A: f64[4]; host M: i32[2, 2]; host C: f64[4];",
        "A[0] += 1.0; A[1] *= 2.0; M[0, 1] = M[0, 1].min(5); M[1, 0] = (M[1, 0]).max(-5); C[2] = C[3].min(1.0);",
    );
    let wcr: Vec<Option<WcrOp>> = body(&t)
        .stmts
        .iter()
        .map(|st| match st {
            Stmt::Store { wcr, .. } => *wcr,
            _ => panic!(),
        })
        .collect();
    assert_eq!(
        wcr,
        vec![
            Some(WcrOp::Sum),
            Some(WcrOp::Product),
            Some(WcrOp::Min),
            Some(WcrOp::Max),
            None
        ]
    );
    assert_eq!(
        memlets(&s, &t),
        vec![
            "__out_A_0 Reduce(Sum) A[0i32]",
            "__out_A_1 Reduce(Product) A[1i32]",
            "__out_M_0 Reduce(Min) M[0i32, 1i32]",
            "__out_M_1 Reduce(Max) M[1i32, 0i32]",
            "__in_C_0 Read C[3i32]",
            "__out_C_0 Write C[2i32]",
        ]
    );
    let e = errors("sdfg T { host A: f64[4]; state s { tasklet t { A[0] -= 1.0; } } }");
    assert_eq!(
        e,
        vec!["`-=` is not a write-conflict resolution of a container"]
    );
}

#[test]
fn locals_loops_and_dynamic_memlets() {
    let (s, t) = one_tasklet(
        "symbol N: i64; host A: f64[N]; host S: f64;",
        "let mut acc = 0.0; for k in 0..N { acc += A[k]; } for k in (0..N).step_by(2) { acc -= 1.0; } \
         for j in 1..=3 { acc *= 2.0; } if acc > 1.0 { S = acc; } let x = A[0];",
    );
    let b = body(&t);
    let names: Vec<(&str, ScalarType, bool)> = b
        .locals
        .iter()
        .map(|l| (l.name.as_str(), l.ty, l.mutable))
        .collect();
    assert_eq!(
        names,
        vec![
            ("acc", ScalarType::F64, true),
            ("k", ScalarType::I64, false),
            ("k", ScalarType::I64, false),
            ("j", ScalarType::I32, false),
            ("x", ScalarType::F64, false),
        ]
    );
    match &b.stmts[2] {
        Stmt::For {
            step: Some(step),
            end,
            ..
        } => {
            assert_eq!(show(&s, step), "2i64");
            assert_eq!(show(&s, end), "N");
        }
        other => panic!("{other:?}"),
    }
    match &b.stmts[3] {
        Stmt::For { start, end, .. } => assert_eq!(
            (show(&s, start), show(&s, end)),
            ("1i32".into(), "4i32".into())
        ),
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(&b.stmts[1], Stmt::For { body, .. } if matches!(body[0], Stmt::AssignLocal { local: 0, .. }))
    );
    assert_eq!(
        memlets(&s, &t),
        vec![
            "__in_A_0 Read A[0i64..N] dynamic",
            "__out_S_0 Write S[] dynamic",
            "__in_A_1 Read A[0i32]"
        ]
    );
}

#[test]
fn value_blocks_with_statements_are_hoisted_under_their_condition() {
    let (s, t) = one_tasklet(
        "host A: f64[4];",
        "A[0] = if A[1] > 0.0 { let y = A[1] * 2.0; y + 1.0 } else { 0.0 };",
    );
    let b = body(&t);
    // let tmp = 0.0; if cond { let y = ..; tmp = y + 1.0; } A[0] = select(cond, tmp, 0.0)
    assert!(
        matches!(b.stmts[0], Stmt::Let { local: 1, .. }),
        "{:?}",
        b.stmts
    );
    match &b.stmts[1] {
        Stmt::If {
            cond, then, else_, ..
        } => {
            assert_eq!(show(&s, cond), "(A[1i32] > 0.0f64)");
            assert_eq!(then.len(), 2);
            assert!(matches!(then[1], Stmt::AssignLocal { local: 1, .. }));
            assert!(else_.is_empty());
        }
        other => panic!("{other:?}"),
    }
    match &b.stmts[2] {
        Stmt::Store { value, .. } => assert_eq!(
            show(&s, value),
            "(if (A[1i32] > 0.0f64) { l1 } else { 0.0f64 })"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn copy_subsets() {
    let s = ok(
        "sdfg C { symbol N: i64; gpu G: f32[N, 8]; host H: f32[8]; pinned P: f32[N, 8]; \
                state s { copy G[2, 0..8] -> H; copy G -> P; copy H[1..=3] -> G[0, 4..7]; } }",
    );
    let st = &s.states[0];
    assert_eq!(
        memlets(&s, &st.stmts[0]),
        vec![
            "__in_G_0 Read G[2i32, 0i32..8i32]",
            "__out_H_0 Write H[0i32..8i32]"
        ]
    );
    assert_eq!(
        memlets(&s, &st.stmts[1]),
        vec![
            "__in_G_0 Read G[0i64..N, 0i32..8i32]",
            "__out_P_0 Write P[0i64..N, 0i32..8i32]"
        ]
    );
    assert_eq!(
        memlets(&s, &st.stmts[2]),
        vec![
            "__in_H_0 Read H[1i32..4i32]",
            "__out_G_0 Write G[0i32, 4i32..7i32]"
        ]
    );
    let e = errors("sdfg C { gpu G: f32[8]; host H: f32[4]; state s { copy G[0..8] -> H; } }");
    assert_eq!(
        e,
        vec!["the copy's source and destination have different shapes"]
    );
}

#[test]
fn map_ranges_with_step_inclusive_end_and_wide_literals() {
    let s = ok("sdfg M { symbol N: u64; gpu A: f64[N]; state s { \
                map a[i in (0..N).step_by(4), j in 0..=7, k in 0..5000000000] on gpu { if j == 0 && k == 0 { A[i] = 1.0; } } } }");
    let m = map(&s.states[0].stmts[0]);
    let p: Vec<String> = m
        .params
        .iter()
        .map(|p| {
            format!(
                "{} {} {}..{} step {}",
                p.name.text,
                p.ty,
                show(&s, &p.start),
                show(&s, &p.end),
                p.step.as_ref().map_or("-".into(), |x| show(&s, x))
            )
        })
        .collect();
    assert_eq!(
        p,
        vec![
            "i u64 0u64..N step 4u64",
            "j i32 0i32..8i32 step -",
            "k i64 0i64..5000000000i64 step -"
        ]
    );
}

#[test]
fn attributes_streams_and_sync() {
    for (attr, policy) in [
        ("default", StreamPolicy::Default),
        ("single", StreamPolicy::Single),
        ("max(3)", StreamPolicy::Max(3)),
        ("auto", StreamPolicy::Auto),
    ] {
        let s = ok(&format!("#[streams({attr})] sdfg S {{ state s {{}} }}"));
        assert_eq!(s.streams, policy);
    }
    let s = ok("#[sync(manual)] pub(crate) sdfg S { host T: i32; gpu G: i32; state s { copy G -> T; wait T; } }");
    assert_eq!(s.sync, SyncMode::Manual);
    assert_eq!(s.vis.to_string(), "pub (crate)");
    let w = &s.states[0].stmts[1];
    assert!(matches!(w.kind, StatementKind::Wait(Wait { container: 0 })));
    assert_eq!(memlets(&s, w), vec!["__in_T_0 Read T[]"]);
    assert_eq!(s.states[0].graph.predecessors(1), vec![0]);
    assert_eq!(
        errors("sdfg S { host T: i32; state s { wait T; } }"),
        vec!["`wait` needs `#[sync(manual)]` on the sdfg"]
    );
    assert_eq!(errors("#[streams(max(0))] sdfg S { state s {} }").len(), 1);
}

#[test]
fn start_state_attribute() {
    let s = ok("sdfg S { state a {} #[start] state b {} b -> a; }");
    assert_eq!(s.start, 1);
}

#[test]
fn write_after_write_is_ordered_and_disjoint_writes_are_allowed() {
    let s = ok("sdfg W { host A: i32[4]; state s { tasklet a { A[0] = 1; } tasklet b { A[1] = 2; } tasklet c { A[0] = A[1]; } } }");
    let st = &s.states[0];
    assert_eq!(st.graph.predecessors(1), vec![0]);
    assert_eq!(st.graph.predecessors(2), vec![1]);
    let e = errors(
        "sdfg W { host A: i32[4]; state s { tasklet a { A[0] = 1; } tasklet b { A[0] = 2; } } }",
    );
    assert_eq!(e, vec!["`A` is written by `a` and by `b` in state `s`"]);
}

#[test]
fn maps_writing_disjoint_parameter_ranges_do_not_race() {
    ok("sdfg H { symbol N: i64; gpu A: f64[2 * N]; state s { \
        map lo[i in 0..N] on gpu { A[i] = 0.0; } map hi[i in N..2 * N] on gpu { A[i] = 1.0; } } }");
    ok("sdfg H { symbol N: i64; gpu A: f64[N + 1]; state s { \
        map body[i in 0..N] on gpu { A[i] = 0.0; } tasklet_free[i in 0..1] on gpu { A[N] = 1.0; } } }"
        .replace("tasklet_free", "map last")
        .as_str());
    let e = errors(
        "sdfg H { symbol N: i64; gpu A: f64[N + 1]; state s { \
        map a[i in 0..N] on gpu { A[i] = 0.0; } map b[i in 0..N] on gpu { A[i + 1] = 1.0; } } }",
    );
    assert_eq!(e, vec!["`A` is written by `a` and by `b` in state `s`"]);
}

#[test]
fn one_mistake_gives_one_error() {
    // An unknown name inside an expression: no follow-up type errors.
    let e = errors("sdfg E { host A: f64[4]; state s { tasklet t { let x = y + 1.0; A[0] = x * 2.0; A[1] = x; } } }");
    assert_eq!(e, vec!["cannot find `y` in this sdfg"]);
    // Every independent mistake is reported, in source order.
    let e = errors(
        "sdfg E { host A: f64[4]; state s { tasklet t { A[0] = B; A[1] = 1; } } s -> nowhere; }",
    );
    assert_eq!(
        e,
        vec![
            "cannot find `B` in this sdfg",
            "mismatched types: expected `f64`, found integer literal `1`",
            "unknown state `nowhere`",
        ]
    );
}

#[test]
fn inferred_symbols_follow_their_uses_and_must_agree() {
    let s = ok("sdfg I { symbol M: u64; host A: f64[M]; state init {} \
                state a { map m[i in 0..n] on cpu { A[i] = 1.0; } } \
                state b {} init -> a { n = 0 } a -> b; b -> a if n < M { n = n + 1 } }");
    assert_eq!(
        s.symbols[s.symbol_by_name("n").unwrap()].ty,
        ScalarType::U64
    );
    let e = errors(
        "sdfg I { host F: f64; state a {} state b {} a -> b { k = 1 } b -> a { k = true } }",
    );
    assert_eq!(
        e,
        vec!["mismatched types: expected `bool`, found integer literal `1`"]
    );
}

#[test]
fn lets_without_a_type_take_the_type_their_uses_need() {
    let (_, t) = one_tasklet(
        "host X: f32[4]; host C: u64[1];",
        "let a = 2.0; X[0] = a * X[1]; let mut acc = 0.0; for k in 0..4 { acc += X[k]; } X[2] = acc; \
         let mut n = 0; n += C[0]; C[0] = n; let d = 1.5; let e = d * 2.0;",
    );
    let tys: Vec<(&str, ScalarType)> = body(&t)
        .locals
        .iter()
        .map(|l| (l.name.as_str(), l.ty))
        .collect();
    use ScalarType::*;
    assert_eq!(
        tys,
        vec![
            ("a", F32),
            ("acc", F32),
            ("k", I32),
            ("n", U64),
            ("d", F64),
            ("e", F64)
        ]
    );
    // Also inside a value block.
    let (_, t) = one_tasklet(
        "host X: f32[4];",
        "X[0] = if X[1] > 0.0 { let a = 2.0; a * X[1] } else { 0.0 };",
    );
    assert_eq!(body(&t).locals[0].ty, ScalarType::F32);
    // A conflicting later use is still an error (the first use decides).
    let e = errors("sdfg L { host X: f32[4]; host Y: f64[4]; state s { tasklet t { let a = 2.0; X[0] = a; Y[0] = a; } } }");
    assert_eq!(e, vec!["mismatched types: expected `f64`, found `f32`"]);
}

#[test]
fn map_indices_are_checked_over_their_ranges() {
    let e = errors(
        "sdfg B { host U: i32[10]; state s { map m[i in 0..10] on cpu { U[i + 1] = 1; } } }",
    );
    assert_eq!(
        e,
        vec!["index out of bounds: `i + 1` reaches 10 for `i` in `0..10`, but `U` has length 10"]
    );
    // Symbolic: one past the end in the last iteration, whatever `N` is.
    // An inclusive range is named as written.
    let e = errors("sdfg B { symbol N: i64; gpu A: f64[N]; state s { map m[i in 1..=N - 1] on gpu { A[i + 1] = 1.0; } } }");
    assert_eq!(
        e,
        vec!["index out of bounds: `i + 1` reaches N for `i` in `1..=N - 1`, but `A` has length N"]
    );
    let e = errors("sdfg B { symbol N: i64; gpu A: f64[N, N]; state s { map m[i in 1..N, j in 0..N] on gpu { A[i + 1, j] = 1.0; } } }");
    assert_eq!(
        e,
        vec!["index out of bounds: `i + 1` reaches N for `i` in `1..N`, but dimension 0 of `A` has length N"]
    );
    let e = errors("sdfg B { symbol N: i64; gpu A: f64[N]; state s { map m[i in 0..N] on gpu { A[i - 1] = 1.0; } } }");
    assert_eq!(
        e,
        vec!["index out of bounds: `i - 1` reaches -1 for `i` in `0..N`, but `A` has length N"]
    );
    let e = errors("sdfg B { symbol N: i64; gpu A: f64[N]; host H: f64[N + 1]; state s { copy A[0..N + 1] -> H; } }");
    assert_eq!(
        e,
        vec!["subset out of bounds: `A` has length N but the subset ends at N + 1"]
    );
    // Guarded accesses and in-range indices are fine.
    ok("sdfg B { symbol N: i64; gpu A: f64[N]; gpu B: f64[N]; state s { map m[i in 1..N - 1] on gpu { B[i + 1] = A[i - 1]; } } }");
    ok("sdfg B { host U: i32[10]; state s { map m[i in 0..10] on seq { if i + 1 < 10 { U[i + 1] = 1; } U[i] = 2; } } }");
    ok("sdfg B { host U: i32[10]; state s { map m[i in 1..=10] on cpu { U[i - 1] = 1; } } }");
}

#[test]
fn helps_quote_the_users_code() {
    let helps = |src: &str| -> Vec<String> {
        match frontend_str(src) {
            Ok(_) => panic!("expected diagnostics"),
            Err(d) => d
                .list
                .iter()
                .map(|d| d.help.clone().unwrap_or_default())
                .collect(),
        }
    };
    assert_eq!(
        helps("sdfg S { host A: f64[4]; state s { tasklet t { A[0] = sqrt(A[1] + 1.0); } } }"),
        vec!["call it as a method: `(A[1] + 1.0).sqrt()`"]
    );
    assert_eq!(
        helps("sdfg S { host A: f64[4]; host I: i32[2, 2]; state s { tasklet t { A[0] = I[0, 1]; A[1] = I[1, 1] + 2; } } }"),
        vec!["convert it: `I[0, 1] as f64`", "convert it: `(I[1, 1] + 2) as f64`"]
    );
}
