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
    let (op, index_range) = (rt::interval_op(), rt::interval_index_range());
    let ty = |t: ScalarType| {
        let int_type = rt::interval_int_type();
        match t {
            ScalarType::I32 => quote!(#int_type::I32),
            ScalarType::I64 => quote!(#int_type::I64),
            ScalarType::U32 => quote!(#int_type::U32),
            // Plans are over integers only.
            _ => quote!(#int_type::U64),
        }
    };
    let ops: Vec<TokenStream> = plan
        .ops
        .iter()
        .map(|o| match *o {
            PlanOp::Point(k) => quote!(#op::Point(#k)),
            PlanOp::Var(k) => quote!(#op::Var(#k)),
            PlanOp::Neg(t) => {
                let t = ty(t);
                quote!(#op::Neg(#t))
            }
            PlanOp::Not(t) => {
                let t = ty(t);
                quote!(#op::Not(#t))
            }
            PlanOp::Add(t) => {
                let t = ty(t);
                quote!(#op::Add(#t))
            }
            PlanOp::Sub(t) => {
                let t = ty(t);
                quote!(#op::Sub(#t))
            }
            PlanOp::Mul(t) => {
                let t = ty(t);
                quote!(#op::Mul(#t))
            }
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
            PlanOp::Min(t) => {
                let t = ty(t);
                quote!(#op::Min(#t))
            }
            PlanOp::Max(t) => {
                let t = ty(t);
                quote!(#op::Max(#t))
            }
            PlanOp::Cast(t) => {
                let t = ty(t);
                quote!(#op::Cast(#t))
            }
        })
        .collect();
    let points: Vec<TokenStream> = plan
        .points
        .iter()
        .map(|e| {
            let v = emit.expr(e);
            quote!((#v) as i128)
        })
        .collect();
    let vars: Vec<TokenStream> = plan.vars.iter().map(|v| var(*v)).collect();
    quote! {
        #index_range(
            &|| ::std::string::String::from(#what),
            &[#(#ops),*],
            &[#(#points),*],
            &[#(#vars),*],
        )?
    }
}
