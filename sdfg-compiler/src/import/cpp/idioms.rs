//! The exporter's C++ idioms read back as the tasklet language: the most
//! negative literals, integer `abs`/`min`/`max` written as conditionals,
//! and the loop blocks of `for` (with `step_by`'s overflow guard, which a
//! `continue` runs first).

use super::super::code::{CodeExpr, CodeStmt, Target, Unary};
use crate::ir::{BinOp, MathFn, ScalarType};

/// A parsed `break`, until [`real_breaks`]: the overflow guard of the
/// exporter's stepped loop is one, and goes with its loop.
pub(super) const BREAK: &str = "__sdfg_rs_break";

pub(super) fn recognize_min_literal(e: CodeExpr) -> CodeExpr {
    if let CodeExpr::Binary(BinOp::Sub, a, b) = &e {
        if let (
            CodeExpr::Int {
                value,
                negative: true,
                suffix,
            },
            CodeExpr::Int {
                value: 1,
                negative: false,
                suffix: None,
            },
        ) = (&**a, &**b)
        {
            let min_magnitude = match suffix {
                None if *value == i32::MAX as u128 => Some(*value + 1),
                Some(ScalarType::I64) if *value == i64::MAX as u128 => Some(*value + 1),
                _ => None,
            };
            if let Some(v) = min_magnitude {
                return CodeExpr::Int {
                    value: v,
                    negative: true,
                    suffix: *suffix,
                };
            }
        }
    }
    e
}

/// `(x < 0 ? -x : x)` is `x.abs()`; `(a < b ? a : b)` is `a.min(b)` and
/// `(a > b ? a : b)` is `a.max(b)` (the exporter's integer forms).
pub(super) fn recognize_select(cond: CodeExpr, a: CodeExpr, b: CodeExpr) -> CodeExpr {
    if let CodeExpr::Binary(op, l, r) = &cond {
        let zero = matches!(**r, CodeExpr::Int { value: 0, .. });
        if *op == BinOp::Lt && zero && **l == b {
            let negated = match &a {
                CodeExpr::Unary(Unary::Neg, x) => **x == b,
                _ => false,
            };
            if negated {
                return CodeExpr::Call(MathFn::Abs, vec![b]);
            }
        }
        if **l == a && **r == b {
            match op {
                BinOp::Lt => return CodeExpr::Call(MathFn::Min, vec![a, b]),
                BinOp::Gt => return CodeExpr::Call(MathFn::Max, vec![a, b]),
                _ => {}
            }
        }
    }
    CodeExpr::Cond(Box::new(cond), Box::new(a), Box::new(b))
}

/// The exporter's loop blocks, back to counted loops:
/// `{ const T v_end = E; for (T v = S; v < v_end; ++v) { ... } }` and
/// `{ const T v_end = E; const T v_step = P; if (v_step > 0) for (T v = S;
/// v < v_end; v += v_step) { ...; if (...) break; } }`.
pub(super) fn recognize_loops(stmts: Vec<CodeStmt>) -> Vec<CodeStmt> {
    stmts.into_iter().map(recognize_loop).collect()
}

fn recognize_loop(s: CodeStmt) -> CodeStmt {
    match s {
        CodeStmt::Block(inner) => {
            let inner = recognize_loops(inner);
            match exporter_loop(&inner) {
                Some(f) => f,
                None => CodeStmt::Block(inner),
            }
        }
        CodeStmt::If { cond, then, else_ } => CodeStmt::If {
            cond,
            then: recognize_loops(then),
            else_: recognize_loops(else_),
        },
        CodeStmt::For {
            var,
            ty,
            start,
            end,
            step,
            body,
        } => CodeStmt::For {
            var,
            ty,
            start,
            end,
            step,
            body: recognize_loops(body),
        },
        CodeStmt::While { cond, body } => CodeStmt::While {
            cond,
            body: recognize_loops(body),
        },
        other => other,
    }
}

fn exporter_loop(block: &[CodeStmt]) -> Option<CodeStmt> {
    let (end_name, end_value, rest) = match block {
        [CodeStmt::Declare {
            name,
            value: Some(v),
            ..
        }, rest @ ..]
            if name.ends_with("_end") =>
        {
            (name.as_str(), v, rest)
        }
        _ => return None,
    };
    let var = &end_name[..end_name.len() - "_end".len()];
    let (step, rest) = match rest {
        [CodeStmt::Declare {
            name,
            value: Some(v),
            ..
        }, rest @ ..]
            if *name == format!("{var}_step") =>
        {
            (Some(v.clone()), rest)
        }
        _ => (None, rest),
    };
    let for_stmt = match (rest, &step) {
        ([f @ CodeStmt::For { .. }], None) => f,
        ([CodeStmt::If { cond, then, else_ }], Some(_)) if else_.is_empty() => {
            let step_positive = matches!(cond, CodeExpr::Binary(BinOp::Gt, l, r)
                if matches!(&**l, CodeExpr::Name(n) if *n == format!("{var}_step"))
                && matches!(&**r, CodeExpr::Int { value: 0, .. }));
            match then.as_slice() {
                [f @ CodeStmt::For { .. }] if step_positive => f,
                _ => return None,
            }
        }
        _ => return None,
    };
    let CodeStmt::For {
        var: v,
        ty,
        start,
        end,
        step: for_step,
        body,
    } = for_stmt
    else {
        return None;
    };
    let end_is_name = matches!(end, CodeExpr::Name(n) if n == end_name);
    let step_matches = match (&step, for_step) {
        (None, None) => true,
        (Some(_), Some(CodeExpr::Name(n))) => *n == format!("{var}_step"),
        _ => false,
    };
    if v != var || !end_is_name || !step_matches {
        return None;
    }
    let mut body = body.clone();
    if step.is_some() {
        // The last statement is the overflow guard, part of `step_by`'s
        // meaning; each `continue` of the loop runs it first.
        let guard = match body.last() {
            Some(g @ CodeStmt::If { then, else_, .. }) if else_.is_empty() && is_break(then) => {
                g.clone()
            }
            _ => return None,
        };
        body.pop();
        body = without_continue_guards(body, &guard);
    }
    Some(CodeStmt::For {
        var: v.clone(),
        ty: *ty,
        start: start.clone(),
        end: end_value.clone(),
        step,
        body,
    })
}

fn is_break(stmts: &[CodeStmt]) -> bool {
    matches!(stmts, [CodeStmt::Block(b)] if is_break_mark(b))
}

/// The block a parsed `break;` is until [`real_breaks`].
fn is_break_mark(block: &[CodeStmt]) -> bool {
    matches!(block, [CodeStmt::Assign { target: Target::Name(n), .. }] if n == BREAK)
}

/// `{ GUARD continue; }` -> `continue` in a stepped loop's body (not in
/// nested loops, whose `continue`s are their own).
fn without_continue_guards(body: Vec<CodeStmt>, guard: &CodeStmt) -> Vec<CodeStmt> {
    body.into_iter()
        .map(|s| match s {
            CodeStmt::Block(b) if b.len() == 2 && b[0] == *guard && b[1] == CodeStmt::Continue => {
                CodeStmt::Continue
            }
            CodeStmt::Block(b) => CodeStmt::Block(without_continue_guards(b, guard)),
            CodeStmt::If { cond, then, else_ } => CodeStmt::If {
                cond,
                then: without_continue_guards(then, guard),
                else_: without_continue_guards(else_, guard),
            },
            other => other,
        })
        .collect()
}

/// Every `break` left after [`recognize_loops`] is the user's: the marks
/// become [`CodeStmt::Break`].
pub(super) fn real_breaks(stmts: Vec<CodeStmt>) -> Vec<CodeStmt> {
    stmts
        .into_iter()
        .map(|s| match s {
            CodeStmt::Block(b) if is_break_mark(&b) => CodeStmt::Break,
            CodeStmt::Block(b) => CodeStmt::Block(real_breaks(b)),
            CodeStmt::If { cond, then, else_ } => CodeStmt::If {
                cond,
                then: real_breaks(then),
                else_: real_breaks(else_),
            },
            CodeStmt::For {
                var,
                ty,
                start,
                end,
                step,
                body,
            } => CodeStmt::For {
                var,
                ty,
                start,
                end,
                step,
                body: real_breaks(body),
            },
            CodeStmt::While { cond, body } => CodeStmt::While {
                cond,
                body: real_breaks(body),
            },
            other => other,
        })
        .collect()
}
