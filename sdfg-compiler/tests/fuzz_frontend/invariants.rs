//! Invariants of every IR the front end accepts.

use sdfg_compiler::ir::*;

/// Invariants of every IR the front end accepts; a violation panics (and so
/// fails the fuzz test like a crash would).
pub fn check_invariants(sdfg: &Sdfg) {
    assert!(sdfg.start < sdfg.states.len(), "start state out of range");
    for e in &sdfg.edges {
        assert!(e.from < sdfg.states.len() && e.to < sdfg.states.len());
        if let Some(c) = &e.condition {
            assert_eq!(c.ty, ScalarType::Bool, "edge condition type");
            check_expr(sdfg, c, 0, 0);
        }
        for (s, v) in &e.assignments {
            assert_eq!(sdfg.symbols[*s].ty, v.ty, "edge assignment type");
            check_expr(sdfg, v, 0, 0);
        }
    }
    for c in &sdfg.containers {
        c.shape.iter().for_each(|d| {
            assert!(d.ty.is_integer());
            check_expr(sdfg, d, 0, 0);
        });
    }
    for state in &sdfg.states {
        for stmt in &state.stmts {
            for m in &stmt.memlets {
                assert_eq!(
                    m.subset.len(),
                    sdfg.containers[m.container].shape.len(),
                    "subset rank"
                );
            }
            let (body, params) = match &stmt.kind {
                StatementKind::Map(m) => {
                    for p in &m.params {
                        assert!(p.ty.is_integer() && p.start.ty == p.ty && p.end.ty == p.ty);
                        assert!(p.step.as_ref().is_none_or(|s| s.ty == p.ty));
                    }
                    (Some(&m.body), m.params.len())
                }
                StatementKind::Tasklet(t) => (Some(&t.body), 0),
                StatementKind::Copy(_) => {
                    assert_eq!(stmt.memlets.len(), 2, "copy memlets");
                    (None, 0)
                }
                StatementKind::Wait(_) => (None, 0),
                StatementKind::Nested(_) => panic!("an accepted SDFG has its calls inlined"),
            };
            if let Some(body) = body {
                for st in &body.stmts {
                    check_stmt(sdfg, body, st, params);
                }
            }
        }
        // Every statement is one node; edges point at nodes; conflicts go forward.
        let g = &state.graph;
        for (i, _) in state.stmts.iter().enumerate() {
            assert_eq!(
                g.nodes.iter().filter(|n| **n == DataNode::Stmt(i)).count(),
                1,
                "stmt node"
            );
        }
        for e in &g.edges {
            assert!(e.src < g.nodes.len() && e.dst < g.nodes.len(), "edge node");
            if let Some((s, m)) = e.memlet {
                assert!(m < state.stmts[s].memlets.len(), "edge memlet");
            }
        }
        for (i, _) in state.stmts.iter().enumerate() {
            assert!(
                g.predecessors(i).iter().all(|p| *p < i),
                "dataflow goes forward"
            );
        }
    }
}

pub fn check_stmt(sdfg: &Sdfg, body: &TaskletBody, st: &Stmt, params: usize) {
    let locals = body.locals.len();
    match st {
        Stmt::Let { local, init, .. }
        | Stmt::AssignLocal {
            local, value: init, ..
        } => {
            assert!(*local < locals);
            assert_eq!(body.locals[*local].ty, init.ty, "local type");
            check_expr(sdfg, init, locals, params);
        }
        Stmt::Store {
            container,
            index,
            value,
            ..
        } => {
            assert_eq!(
                index.len(),
                sdfg.containers[*container].shape.len(),
                "store rank"
            );
            assert_eq!(value.ty, sdfg.containers[*container].elem, "store type");
            index
                .iter()
                .for_each(|i| check_expr(sdfg, i, locals, params));
            check_expr(sdfg, value, locals, params);
        }
        Stmt::If {
            cond, then, else_, ..
        } => {
            assert_eq!(cond.ty, ScalarType::Bool);
            check_expr(sdfg, cond, locals, params);
            then.iter()
                .chain(else_)
                .for_each(|s| check_stmt(sdfg, body, s, params));
        }
        Stmt::For {
            var,
            start,
            end,
            step,
            body: inner,
            ..
        } => {
            assert!(*var < locals);
            let ty = body.locals[*var].ty;
            assert!(
                ty.is_integer()
                    && start.ty == ty
                    && end.ty == ty
                    && step.as_ref().is_none_or(|s| s.ty == ty)
            );
            inner.iter().for_each(|s| check_stmt(sdfg, body, s, params));
        }
        Stmt::While {
            cond, body: inner, ..
        } => {
            assert_eq!(cond.ty, ScalarType::Bool);
            check_expr(sdfg, cond, locals, params);
            inner.iter().for_each(|s| check_stmt(sdfg, body, s, params));
        }
        Stmt::Break { .. } | Stmt::Continue { .. } => {}
        Stmt::ThreadMap(t) => {
            for p in &t.params {
                assert!(p.local < locals);
                let ty = body.locals[p.local].ty;
                assert!(ty.is_integer() && p.start.ty == ty && p.end.ty == ty);
                check_expr(sdfg, &p.start, locals, params);
                check_expr(sdfg, &p.end, locals, params);
            }
            t.body
                .iter()
                .for_each(|s| check_stmt(sdfg, body, s, params));
        }
        Stmt::Barrier(_) => {}
    }
}

pub fn check_expr(sdfg: &Sdfg, e: &Expr, locals: usize, params: usize) {
    e.walk(&mut |e| match &e.kind {
        ExprKind::Lit(v) => assert_eq!(v.ty(), e.ty),
        ExprKind::Var(VarRef::Local(l)) => assert!(*l < locals, "local id"),
        ExprKind::Var(VarRef::Param(p)) => assert!(*p < params, "param id"),
        ExprKind::Var(VarRef::Symbol(s)) => assert_eq!(sdfg.symbols[*s].ty, e.ty, "symbol type"),
        ExprKind::Load { container, index } => {
            assert_eq!(
                index.len(),
                sdfg.containers[*container].shape.len(),
                "load rank"
            );
            assert_eq!(sdfg.containers[*container].elem, e.ty, "load type");
            assert!(index.iter().all(|i| i.ty.is_integer()));
        }
        ExprKind::Unary { arg, .. } => assert_eq!(arg.ty, e.ty),
        ExprKind::Binary { op, lhs, rhs } => match op {
            BinOp::Shl | BinOp::Shr => assert!(lhs.ty == e.ty && rhs.ty.is_integer()),
            _ if op.is_comparison() => assert!(lhs.ty == rhs.ty && e.ty == ScalarType::Bool),
            _ => assert!(lhs.ty == e.ty && rhs.ty == e.ty, "binary operand types"),
        },
        ExprKind::Cast { .. } => {}
        ExprKind::Select { cond, then, else_ } => {
            assert!(cond.ty == ScalarType::Bool && then.ty == e.ty && else_.ty == e.ty)
        }
        ExprKind::Call { func, args } => {
            assert_eq!(args.len(), func.arity());
            assert_eq!(args[0].ty, e.ty);
        }
    });
}
