//! Edge cases of the tasklet language, checked against the reference evaluator.

use proc_macro2::Span;
use sdfg_compiler::eval::{self, Env, MemEnv};
use sdfg_compiler::ir::*;

fn lit(v: Value) -> Expr {
    Expr::lit(v, Span::call_site())
}
fn bin(op: BinOp, a: Value, b: Value) -> Value {
    let ty = if op.is_comparison() {
        ScalarType::Bool
    } else {
        a.ty()
    };
    let e = Expr::new(
        ExprKind::Binary {
            op,
            lhs: Box::new(lit(a)),
            rhs: Box::new(lit(b)),
        },
        ty,
        Span::call_site(),
    );
    eval::eval_expr(&e, &mut MemEnv::default(), &mut Vec::new()).unwrap()
}
fn cast(v: Value, ty: ScalarType) -> Value {
    let e = Expr::new(
        ExprKind::Cast {
            arg: Box::new(lit(v)),
        },
        ty,
        Span::call_site(),
    );
    eval::eval_expr(&e, &mut MemEnv::default(), &mut Vec::new()).unwrap()
}

#[test]
fn integer_division_never_traps() {
    use Value::*;
    assert_eq!(bin(BinOp::Div, I32(7), I32(0)), I32(0));
    assert_eq!(bin(BinOp::Rem, I32(7), I32(0)), I32(7));
    assert_eq!(bin(BinOp::Div, I32(i32::MIN), I32(-1)), I32(i32::MIN));
    assert_eq!(bin(BinOp::Rem, I32(i32::MIN), I32(-1)), I32(0));
    assert_eq!(bin(BinOp::Div, I64(i64::MIN), I64(-1)), I64(i64::MIN));
    assert_eq!(bin(BinOp::Rem, I64(i64::MIN), I64(-1)), I64(0));
    assert_eq!(bin(BinOp::Div, U32(7), U32(0)), U32(0));
    assert_eq!(bin(BinOp::Rem, U64(7), U64(0)), U64(7));
    assert_eq!(bin(BinOp::Div, I32(-7), I32(2)), I32(-3));
    assert_eq!(bin(BinOp::Rem, I32(-7), I32(2)), I32(-1));
    assert_eq!(bin(BinOp::Div, U32(u32::MAX), U32(2)), U32(u32::MAX / 2));
}

#[test]
fn wrapping_and_shifts() {
    use Value::*;
    assert_eq!(bin(BinOp::Add, I32(i32::MAX), I32(1)), I32(i32::MIN));
    assert_eq!(bin(BinOp::Mul, U32(0x8000_0000), U32(2)), U32(0));
    assert_eq!(bin(BinOp::Sub, U64(0), U64(1)), U64(u64::MAX));
    assert_eq!(bin(BinOp::Shl, I32(1), I32(33)), I32(2));
    assert_eq!(bin(BinOp::Shl, I64(1), U32(65)), I64(2));
    assert_eq!(bin(BinOp::Shr, I32(-8), U64(1)), I32(-4));
    assert_eq!(bin(BinOp::Shr, U32(0x8000_0000), I32(31)), U32(1));
    assert_eq!(bin(BinOp::Shr, I32(-1), I32(-1)), I32(-1)); // amount 31
    assert_eq!(bin(BinOp::Shl, U32(1), I64(-1)), U32(0x8000_0000));
    let neg = Expr::new(
        ExprKind::Unary {
            op: UnOp::Neg,
            arg: Box::new(lit(I32(i32::MIN))),
        },
        ScalarType::I32,
        Span::call_site(),
    );
    assert_eq!(
        eval::eval_expr(&neg, &mut MemEnv::default(), &mut vec![]).unwrap(),
        I32(i32::MIN)
    );
    assert_eq!(eval::call(MathFn::Abs, &[I32(i32::MIN)]), I32(i32::MIN));
}

#[test]
fn float_comparisons_follow_rust() {
    use Value::*;
    let nan = F64(f64::NAN);
    assert_eq!(bin(BinOp::Ne, nan, nan), Bool(true));
    assert_eq!(bin(BinOp::Eq, nan, nan), Bool(false));
    assert_eq!(bin(BinOp::Lt, nan, F64(1.0)), Bool(false));
    assert_eq!(bin(BinOp::Ge, nan, F64(1.0)), Bool(false));
    assert_eq!(bin(BinOp::Eq, F32(0.0), F32(-0.0)), Bool(true));
    assert_eq!(bin(BinOp::Lt, U32(1), U32(u32::MAX)), Bool(true));
    assert_eq!(bin(BinOp::Lt, I32(1), I32(-1)), Bool(false));
    assert_eq!(bin(BinOp::Lt, Bool(false), Bool(true)), Bool(true));
    assert_eq!(bin(BinOp::Rem, F64(5.5), F64(2.0)), F64(1.5));
}

#[test]
fn casts_saturate_and_map_nan_to_zero() {
    use ScalarType as T;
    use Value::*;
    assert_eq!(cast(F32(f32::NAN), T::I32), I32(0));
    assert_eq!(cast(F64(1e300), T::I32), I32(i32::MAX));
    assert_eq!(cast(F64(-1e300), T::U64), U64(0));
    assert_eq!(cast(F32(-1.9), T::I64), I64(-1));
    assert_eq!(cast(F64(f64::INFINITY), T::U32), U32(u32::MAX));
    assert_eq!(cast(I32(-1), T::U64), U64(u64::MAX));
    assert_eq!(cast(U32(u32::MAX), T::I64), I64(u32::MAX as i64));
    assert_eq!(cast(I64(0x1_0000_0005), T::I32), I32(5));
    assert_eq!(cast(Bool(true), T::U32), U32(1));
    assert_eq!(cast(U64(u64::MAX), T::F32), F32(u64::MAX as f32));
    assert_eq!(cast(F64(1.0 + f64::EPSILON), T::F32), F32(1.0));
    assert_eq!(cast(I64((1 << 53) + 1), T::F64), F64((1u64 << 53) as f64));
}

#[test]
fn min_max_ignore_nan() {
    use Value::*;
    assert_eq!(
        eval::call(MathFn::Min, &[F64(f64::NAN), F64(2.0)]),
        F64(2.0)
    );
    assert_eq!(
        eval::call(MathFn::Max, &[F32(1.0), F32(f32::NAN)]),
        F32(1.0)
    );
    assert_eq!(eval::call(MathFn::Min, &[U32(3), U32(u32::MAX)]), U32(3));
    assert_eq!(eval::call(MathFn::Max, &[I64(-3), I64(2)]), I64(2));
    assert_eq!(
        eval::apply_wcr(WcrOp::Min, F64(f64::NAN), F64(1.0)),
        F64(1.0)
    );
    assert_eq!(
        eval::apply_wcr(WcrOp::Sum, I32(i32::MAX), I32(1)),
        I32(i32::MIN)
    );
}

#[test]
fn lazy_select_does_not_load() {
    // if false { A[-1] } else { 7 } must not fault.
    let load = Expr::new(
        ExprKind::Load {
            container: 0,
            index: vec![lit(Value::I64(-1))],
        },
        ScalarType::I32,
        Span::call_site(),
    );
    let sel = Expr::new(
        ExprKind::Select {
            cond: Box::new(lit(Value::Bool(false))),
            then: Box::new(load.clone()),
            else_: Box::new(lit(Value::I32(7))),
        },
        ScalarType::I32,
        Span::call_site(),
    );
    let mut env = MemEnv::default();
    env.set_container(0, vec![4], vec![Value::I32(1); 4]);
    assert_eq!(
        eval::eval_expr(&sel, &mut env, &mut vec![]).unwrap(),
        Value::I32(7)
    );
    // The load itself faults, yields zero.
    let r = eval::eval_expr(&load, &mut env, &mut vec![]);
    assert_eq!(r.unwrap_err().index, vec![-1]);
    // && does not evaluate its right side.
    let and = Expr::new(
        ExprKind::Binary {
            op: BinOp::And,
            lhs: Box::new(lit(Value::Bool(false))),
            rhs: Box::new(Expr::new(
                ExprKind::Binary {
                    op: BinOp::Eq,
                    lhs: Box::new(load),
                    rhs: Box::new(lit(Value::I32(1))),
                },
                ScalarType::Bool,
                Span::call_site(),
            )),
        },
        ScalarType::Bool,
        Span::call_site(),
    );
    assert_eq!(
        eval::eval_expr(&and, &mut env, &mut vec![]).unwrap(),
        Value::Bool(false)
    );
}

#[test]
fn for_loops_step_and_overflow() {
    // sum of v for v in (250u32..u32::MAX).step_by(2^31): 250, 250 + 2^31, then overflow ends it.
    let sp = Span::call_site();
    let body = TaskletBody {
        locals: vec![Local {
            name: "v".into(),
            ty: ScalarType::U32,
            mutable: false,
            span: sp,
        }],
        stmts: vec![Stmt::For {
            var: 0,
            start: lit(Value::U32(250)),
            end: lit(Value::U32(u32::MAX)),
            inclusive: false,
            step: Some(lit(Value::U32(1 << 31))),
            body: vec![Stmt::Store {
                container: 0,
                index: vec![],
                value: Expr::new(ExprKind::Var(VarRef::Local(0)), ScalarType::U32, sp),
                wcr: Some(WcrOp::Sum),
                span: sp,
            }],
            span: sp,
        }],
    };
    let mut env = MemEnv::default();
    env.set_container(0, vec![], vec![Value::U32(0)]);
    eval::exec_body(&body, &mut env).unwrap();
    assert_eq!(
        env.load(0, &[]),
        Some(Value::U32(250u32.wrapping_add(250 + (1 << 31))))
    );
    // Empty range and non-positive step run nothing.
    let mut b2 = body.clone();
    if let Stmt::For { start, step, .. } = &mut b2.stmts[0] {
        *start = lit(Value::U32(u32::MAX));
        *step = None;
    }
    env.set_container(0, vec![], vec![Value::U32(0)]);
    eval::exec_body(&b2, &mut env).unwrap();
    assert_eq!(env.load(0, &[]), Some(Value::U32(0)));
}

#[test]
fn powi_matches_repeated_squaring() {
    assert_eq!(
        eval::call(MathFn::Powi, &[Value::F64(2.0), Value::I32(-3)]),
        Value::F64(0.125)
    );
    assert_eq!(
        eval::call(MathFn::Powi, &[Value::F32(3.0), Value::I32(0)]),
        Value::F32(1.0)
    );
}
