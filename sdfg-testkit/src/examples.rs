//! SDFGs used by several test suites (built without the parser).

use crate::builder::{e, map_param, s, SdfgBuilder};
use sdfg_compiler::ir::*;
use ScalarType::*;

fn range(name: &str, ty: ScalarType, start: Expr, end: Expr) -> MapParam {
    map_param(name, ty, start, end, None)
}

/// axpy: `Y[i] = a * X[i] + Y[i]` over f32, 1-D.
pub fn axpy() -> Sdfg {
    let mut b = SdfgBuilder::new("axpy");
    let n = b.symbol("N", I64);
    let a = b.container("a", F32, vec![], Storage::Host);
    let x = b.gpu("X", F32, vec![e::sym(n, I64)]);
    let y = b.gpu("Y", F32, vec![e::sym(n, I64)]);
    let st = b.state("main");
    let i = e::param(0, I64);
    let body = TaskletBody {
        locals: vec![],
        stmts: vec![s::store(
            y,
            vec![i.clone()],
            e::add(
                e::mul(e::load(a, F32, vec![]), e::load(x, F32, vec![i.clone()])),
                e::load(y, F32, vec![i]),
            ),
        )],
    };
    b.gpu_map(
        st,
        "axpy",
        vec![range("i", I64, e::i64(0), e::sym(n, I64))],
        body,
    );
    b.build()
}

/// The jacobi-2d 5-point stencil over f64.
pub fn stencil() -> Sdfg {
    let mut b = SdfgBuilder::new("jacobi");
    let n = b.symbol("N", I64);
    let a = b.gpu("A", F64, vec![e::sym(n, I64), e::sym(n, I64)]);
    let bb = b.gpu("B", F64, vec![e::sym(n, I64), e::sym(n, I64)]);
    let st = b.state("step");
    let (i, j) = (e::param(0, I64), e::param(1, I64));
    let at = |di: i64, dj: i64| {
        let ii = if di == 0 {
            i.clone()
        } else {
            e::add(i.clone(), e::i64(di))
        };
        let jj = if dj == 0 {
            j.clone()
        } else {
            e::add(j.clone(), e::i64(dj))
        };
        e::load(a, F64, vec![ii, jj])
    };
    let sum = e::add(
        e::add(e::add(e::add(at(0, 0), at(0, -1)), at(0, 1)), at(1, 0)),
        at(-1, 0),
    );
    let body = TaskletBody {
        locals: vec![],
        stmts: vec![s::store(
            bb,
            vec![i.clone(), j.clone()],
            e::mul(e::f64(0.2), sum),
        )],
    };
    let nm1 = e::sub(e::sym(n, I64), e::i64(1));
    b.gpu_map(
        st,
        "b",
        vec![
            range("i", I64, e::i64(1), nm1.clone()),
            range("j", I64, e::i64(1), nm1),
        ],
        body,
    );
    b.build()
}

/// dot: `S += X[i] * Y[i]` over f64 (a scalar WCR: per-thread partials, warp
/// shuffles, one atomic per warp).
pub fn dot() -> Sdfg {
    let mut b = SdfgBuilder::new("dot");
    let n = b.symbol("N", I64);
    let x = b.gpu("X", F64, vec![e::sym(n, I64)]);
    let y = b.gpu("Y", F64, vec![e::sym(n, I64)]);
    let total = b.gpu("S", F64, vec![]);
    let st = b.state("main");
    let i = e::param(0, I64);
    let body = TaskletBody {
        locals: vec![],
        stmts: vec![s::reduce(
            total,
            vec![],
            e::mul(e::load(x, F64, vec![i.clone()]), e::load(y, F64, vec![i])),
            WcrOp::Sum,
        )],
    };
    b.gpu_map(
        st,
        "dot",
        vec![range("i", I64, e::i64(0), e::sym(n, I64))],
        body,
    );
    b.build()
}
