//! Iterating a map's N-d range on the host: in parallel on rayon (`cpu`
//! maps, kernel twins) or as nested loops (`seq` maps). The range values
//! (start, count, step per dimension) are locals the caller bound, named by
//! [`names::range`].

use super::body::rust_type;
use crate::codegen::names::{self, RangeScope};
use crate::codegen::runtime_paths as rt;
use crate::ir::Map;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

pub(crate) struct MapRanges<'a> {
    pub map: &'a Map,
    pub scope: RangeScope,
}

impl MapRanges<'_> {
    /// `let __pd: T = start + t * step;` with wrapping i64 arithmetic: exact
    /// modulo 2^64, so the cast to any parameter type is the true value.
    fn param_value(&self, d: usize, t: &Ident) -> TokenStream {
        let r = names::range(self.scope, d);
        let (s, st) = (r.start, r.step);
        let p = names::map_param(d);
        let ty = rust_type(self.map.params[d].ty);
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
            .map(|d| self.param_value(d, &names::flat_position(d)))
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
            let p = self.param_value(d, &t);
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
