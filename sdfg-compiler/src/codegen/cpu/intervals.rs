//! Host code over index ranges, for checks made once instead of per
//! access: the exclusive end of a range in `i128`, and the range of an
//! index from its `ir::bounds::IntervalPlan`, computed by the runtime's
//! interval arithmetic. The glue's prechecks use them over a whole map;
//! other host code can use them over any part of its iterations.

use super::body::BodyEmitter;
use crate::codegen::runtime_paths as rt;
use crate::ir::bounds::{IntervalPlan, PlanOp, PlanVar};
use crate::ir::{RangeEnd, ScalarType};
use proc_macro2::TokenStream;
use quote::quote;

/// The end of a range as an exclusive `i128` (an inclusive `last` plus
/// one in `i128`, where it cannot overflow).
pub(crate) fn exclusive_end(emit: &BodyEmitter<'_>, end: RangeEnd<'_>) -> TokenStream {
    match end {
        RangeEnd::Exclusive(e) => {
            let e = emit.expr(e);
            quote!(((#e) as i128))
        }
        RangeEnd::Inclusive(last) => {
            let l = emit.expr(last);
            quote!(((#l) as i128 + 1))
        }
    }
}

/// Tokens that compute the exact range of an index from its plan (an
/// `Interval`; `?` returns the `Err` naming the index, `what`, when its
/// arithmetic wraps). `emit` evaluates the plan's points (expressions over
/// symbols, as the kernel computes them); `var` gives the `Interval` of each
/// map parameter or loop variable, so a caller can compute the range over
/// any subset of the iterations (a chunk of a map) with the same plan.
pub(crate) fn plan_range(
    plan: &IntervalPlan<'_>,
    emit: &BodyEmitter<'_>,
    var: &dyn Fn(PlanVar) -> TokenStream,
    what: &str,
) -> TokenStream {
    let index_range = rt::interval_index_range();
    let (ops, points, vars) = plan_arguments(plan, emit, var);
    quote! {
        #index_range(&|| ::std::string::String::from(#what), #ops, #points, #vars)?
    }
}

/// The runtime's arguments for a plan: `&[IntervalOp]`, the points as
/// `&[i128]`, the vars as `&[Interval]`. Code that falls back to checking
/// each access when an intermediate wraps passes them to the runtime's
/// `interval::evaluate` (a `Result<Interval, Wrap>`) instead.
pub(crate) fn plan_arguments(
    plan: &IntervalPlan<'_>,
    emit: &BodyEmitter<'_>,
    var: &dyn Fn(PlanVar) -> TokenStream,
) -> (TokenStream, TokenStream, TokenStream) {
    let (op, int_type) = (rt::interval_op(), rt::interval_int_type());
    let ty = |t: ScalarType| match t {
        ScalarType::I8 => quote!(#int_type::I8),
        ScalarType::I16 => quote!(#int_type::I16),
        ScalarType::U8 => quote!(#int_type::U8),
        ScalarType::U16 => quote!(#int_type::U16),
        ScalarType::I32 => quote!(#int_type::I32),
        ScalarType::I64 => quote!(#int_type::I64),
        ScalarType::U32 => quote!(#int_type::U32),
        // Plans are over integers only (`IntervalPlan::build`).
        _ => quote!(#int_type::U64),
    };
    let ops = plan.ops.iter().map(|o| match *o {
        PlanOp::Point(k) => quote!(#op::Point(#k)),
        PlanOp::Var(k) => quote!(#op::Var(#k)),
        PlanOp::DivBy(k, t) => {
            let t = ty(t);
            quote!(#op::DivBy(#k, #t))
        }
        PlanOp::ShlBy(k, t) => {
            let t = ty(t);
            quote!(#op::ShlBy(#k, #t))
        }
        PlanOp::ShrBy(k, t) => {
            let t = ty(t);
            quote!(#op::ShrBy(#k, #t))
        }
        PlanOp::Neg(t) => one_type(quote!(#op::Neg), ty(t)),
        PlanOp::Not(t) => one_type(quote!(#op::Not), ty(t)),
        PlanOp::Add(t) => one_type(quote!(#op::Add), ty(t)),
        PlanOp::Sub(t) => one_type(quote!(#op::Sub), ty(t)),
        PlanOp::Mul(t) => one_type(quote!(#op::Mul), ty(t)),
        PlanOp::Min(t) => one_type(quote!(#op::Min), ty(t)),
        PlanOp::Max(t) => one_type(quote!(#op::Max), ty(t)),
        PlanOp::Cast(t) => one_type(quote!(#op::Cast), ty(t)),
    });
    let points = plan.points.iter().map(|e| {
        let v = emit.expr(e);
        quote!((#v) as i128)
    });
    let vars = plan.vars.iter().map(|v| var(*v));
    (
        quote!(&[#(#ops),*]),
        quote!(&[#(#points),*]),
        quote!(&[#(#vars),*]),
    )
}

fn one_type(variant: TokenStream, ty: TokenStream) -> TokenStream {
    quote!(#variant(#ty))
}
