//! Iterating a map's N-d range on the host: in parallel on rayon (`cpu`
//! maps, kernel twins) or as nested loops (`seq` maps). The range values
//! (start, count, step per dimension) are locals the caller bound, named by
//! [`names::range`]; for a dependent range (`ir::ranges`) they describe its
//! box, and each iteration starts it where the earlier parameters put it
//! and skips once it reaches their end.

use super::body::{rust_type, BodyEmitter, DataAccess};
use crate::codegen::names::{self, RangeScope};
use crate::codegen::runtime_paths as rt;
use crate::ir::{Map, TaskletBody};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

pub(crate) struct MapRanges<'a> {
    pub map: &'a Map,
    pub scope: RangeScope,
    /// How the body reads symbols and parameters (for dependent bounds).
    pub data: &'a dyn DataAccess,
}

impl MapRanges<'_> {
    /// `let __pd: T = start + t * step;` with wrapping i64 arithmetic: exact
    /// modulo 2^64, so the cast to any parameter type is the true value.
    /// A dependent range starts at its start for the earlier parameters
    /// (exact in i128) and runs `leave` (`return` out of a parallel
    /// iteration, `break` out of a sequential loop) once past its end.
    fn param_value(&self, d: usize, t: &Ident, leave: &TokenStream) -> TokenStream {
        let r = names::range(self.scope, d);
        let (s, st) = (r.start, r.step);
        let p = names::map_param(d);
        let param = &self.map.params[d];
        let ty = rust_type(param.ty);
        if param.is_dependent() {
            // Dependent bounds read no locals.
            let no_locals = TaskletBody::default();
            let emit = BodyEmitter::new(self.data, &no_locals);
            let (start, end) = (emit.expr(&param.start), emit.expr(&param.end));
            return quote! {
                let #p: #ty = {
                    let __v: i128 = ((#start) as i128) + (#t as i128) * (#st as i128);
                    if __v >= (#end) as i128 {
                        #leave
                    }
                    __v as #ty
                };
            };
        }
        quote!(let #p: #ty = ((#s as i64).wrapping_add((#t as i64).wrapping_mul(#st as i64))) as #ty;)
    }

    fn counts(&self) -> Vec<Ident> {
        (0..self.map.params.len())
            .map(|d| names::range(self.scope, d).count)
            .collect()
    }

    /// Runs `body` once per point of the range on rayon; `what` names the
    /// map in the error when the point count overflows `usize`.
    pub fn parallel(&self, body: &TokenStream, what: &str) -> TokenStream {
        let counts = self.counts();
        let n = counts.len();
        let mut decompose = TokenStream::new();
        for d in (0..n).rev() {
            let t = names::flat_position(d);
            let c = &counts[d];
            decompose.extend(if d == 0 {
                quote!(let #t: usize = __rest;)
            } else {
                quote! {
                    let #t: usize = __rest % (#c as usize);
                    let __rest: usize = __rest / (#c as usize);
                }
            });
        }
        let params: TokenStream = (0..n)
            .map(|d| self.param_value(d, &names::flat_position(d), &quote!(return;)))
            .collect();
        let (total, for_each, into_par_iter) = (
            rt::check_total_iterations(),
            rt::par_iter_for_each(),
            rt::into_par_iter(),
        );
        quote! {
            let __total: usize = #total(#what, &[#(#counts),*])?;
            #for_each(
                #into_par_iter(0..__total),
                move |__flat: usize| {
                    let __rest: usize = __flat;
                    #decompose
                    #params
                    #body
                },
            );
        }
    }

    /// Runs `body` once per point of the range, in order.
    pub fn sequential(&self, body: &TokenStream) -> TokenStream {
        let counts = self.counts();
        let mut code = body.clone();
        for d in (0..counts.len()).rev() {
            let t = names::flat_position(d);
            let c = &counts[d];
            let p = self.param_value(d, &t, &quote!(break;));
            code = quote! {
                for #t in 0..#c {
                    #p
                    #code
                }
            };
        }
        code
    }
}
