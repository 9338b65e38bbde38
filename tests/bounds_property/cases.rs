//! Random programs for the interpreted check: one `gpu` map (of one or two
//! dimensions, some with a `for` loop, some under an `if`) whose indices
//! are random expressions, with symbol values and container lengths.

use crate::reference::{for_each_iteration, the_map};
use sdfg::compiler::eval;
use sdfg::compiler::ir::bounds::for_each_access;
use sdfg::compiler::ir::*;
use sdfg_testkit::builder::{e, local, map_param, s, SdfgBuilder};
use sdfg_testkit::harness::Data;
use sdfg_testkit::randexpr::{special_values, IndexGen};
use sdfg_testkit::rng::Rng;
use ScalarType::*;

pub const INTS: [ScalarType; 4] = [I32, I64, U32, U64];

/// One random program and its inputs.
pub struct Case {
    pub sdfg: Sdfg,
    pub symbols: Vec<Value>,
    pub data: Data,
}

/// A literal of type `ty` with value `v` (wrapped into the type).
pub fn lit(ty: ScalarType, v: i64) -> Expr {
    e::lit(semantics::cast(Value::I64(v), ty))
}

pub fn random_case(rng: &mut Rng) -> Case {
    let mut b = SdfgBuilder::new("bounds");
    // Symbols: small values mostly, extreme ones sometimes.
    let mut symbols = Vec::new();
    let mut symbol_exprs = Vec::new();
    for k in 0..2 {
        let ty = rng.pick(&INTS);
        let id = b.symbol(&format!("S{k}"), ty);
        let v = if rng.chance(20) {
            rng.pick(&special_values(ty))
        } else if ty.is_signed_integer() {
            semantics::cast(Value::I64(rng.below(12) as i64 - 3), ty)
        } else {
            semantics::cast(Value::I64(rng.below(9) as i64), ty)
        };
        symbols.push(v);
        symbol_exprs.push(e::sym(id, ty));
    }
    // The map: one or two dimensions over small literal ranges.
    let dims = 1 + rng.below(2);
    let mut params = Vec::new();
    let mut spans = Vec::new();
    let mut firsts = Vec::new();
    for d in 0..dims {
        let ty = rng.pick(&INTS);
        let lo = if ty.is_signed_integer() {
            rng.below(5) as i64 - 2
        } else {
            rng.below(3) as i64
        };
        let span = rng.below(6) as i64;
        let step = if rng.chance(25) {
            Some(lit(ty, 1 + rng.below(3) as i64))
        } else {
            None
        };
        params.push(map_param(
            &format!("p{d}"),
            ty,
            lit(ty, lo),
            lit(ty, lo + span),
            step,
        ));
        spans.push(span.max(1));
        firsts.push((lo, ty));
    }
    let a = b.gpu("A", I64, vec![e::i64(1)]);
    let bb = b.gpu("B", I64, vec![e::i64(1)]);
    let o = b.gpu("O", I64, spans.iter().map(|&n| e::i64(n)).collect());
    let vars: Vec<Expr> = (0..dims).map(|d| e::param(d, params[d].ty)).collect();
    let mut gen = IndexGen {
        rng: Rng::new(rng.next_u64()),
        vars: vars.clone(),
        symbols: symbol_exprs.clone(),
    };
    let mut locals = Vec::new();
    let mut stmts = Vec::new();
    // A[w] = 7 (every writer writes the same value: no order to respect),
    // sometimes in a loop over symbols or literals.
    let w_ty = gen.rng.pick(&INTS);
    if gen.rng.chance(30) {
        let kty = gen.rng.pick(&INTS);
        locals.push(local("k", kty, false));
        let start = lit(kty, gen.rng.below(3) as i64);
        // A symbol end only when its value is small (the loop must end soon).
        let small = symbols
            .iter()
            .position(|v| v.as_i128().is_some_and(|x| (0..6).contains(&x)));
        let end = match small {
            Some(sym) if gen.rng.chance(50) => e::cast(symbol_exprs[sym].clone(), kty),
            _ => lit(kty, gen.rng.below(5) as i64),
        };
        gen.vars.push(e::local(0, kty));
        let w = gen.expr(w_ty, 3);
        gen.vars.pop();
        stmts.push(s::for_(
            0,
            start,
            end,
            None,
            vec![s::store(a, vec![w], e::i64(7))],
        ));
    } else {
        let w = gen.expr(w_ty, 4);
        stmts.push(s::store(a, vec![w], e::i64(7)));
    }
    // O[p - lo, ...] = B[r] (O's index is in bounds by construction);
    // sometimes under an `if` (a conditional access is guarded).
    let o_index: Vec<Expr> = (0..dims)
        .map(|d| {
            let (lo, ty) = firsts[d];
            e::cast(e::sub(vars[d].clone(), lit(ty, lo)), I64)
        })
        .collect();
    let r_ty = gen.rng.pick(&INTS);
    let r = gen.expr(r_ty, 4);
    let read = s::store(o, o_index, e::load(bb, I64, vec![r]));
    if gen.rng.chance(20) {
        let c = e::bin(BinOp::Lt, e::cast(vars[0].clone(), I64), lit(I64, 2));
        stmts.push(s::if_(c, vec![read], vec![]));
    } else {
        stmts.push(read);
    }
    let body = TaskletBody { stmts, locals };
    let st = b.state("s");
    b.gpu_map(st, "m", params, body);
    let mut sdfg = b.build();
    // Container lengths near the indices' ranges, so that both in- and
    // out-of-bounds cases are common.
    let (la, lb) = (
        fitting_length(&sdfg, &symbols, a, rng),
        fitting_length(&sdfg, &symbols, bb, rng),
    );
    sdfg.containers[a].shape = vec![e::i64(la as i64)];
    sdfg.containers[bb].shape = vec![e::i64(lb as i64)];
    let mut data = Data::new();
    data.insert(
        a,
        (
            vec![la],
            (0..la as i64).map(|v| Value::I64(100 + v)).collect(),
        ),
    );
    data.insert(
        bb,
        (
            vec![lb],
            (0..lb as i64).map(|v| Value::I64(200 + v)).collect(),
        ),
    );
    let o_len: usize = spans.iter().map(|&n| n as usize).product();
    data.insert(
        o,
        (
            spans.iter().map(|&n| n as usize).collect(),
            vec![Value::I64(-1); o_len],
        ),
    );
    Case {
        sdfg,
        symbols,
        data,
    }
}

/// A length for `c` around the values its index takes: one past the
/// largest (fits), the largest (the last one is out), or a random small one.
pub fn fitting_length(sdfg: &Sdfg, symbols: &[Value], c: ContainerId, rng: &mut Rng) -> usize {
    let mut values = Vec::new();
    let mut sites = Vec::new();
    for_each_access(&the_map(sdfg).body.stmts, &mut |site| {
        if site.container == c {
            sites.push(site);
        }
    });
    for site in &sites {
        let in_loop = !site.enclosing_loops.is_empty();
        for_each_iteration(sdfg, symbols, in_loop, &mut |env, locals| {
            if let Ok(v) = eval::eval_expr(&site.index[0], env, &mut locals.to_vec()) {
                values.push(eval::index_value(v));
            }
        });
    }
    let (lo, hi) = (values.iter().min().copied(), values.iter().max().copied());
    match (lo, hi) {
        (Some(lo), Some(hi)) if lo >= 0 && hi < 64 && rng.chance(80) => {
            if rng.chance(65) {
                hi as usize + 1
            } else {
                (hi as usize).max(1)
            }
        }
        _ => 1 + rng.below(10),
    }
}
