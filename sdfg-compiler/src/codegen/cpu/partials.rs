//! Reductions of a chunked map into one element (`Mode::Partials` of
//! `codegen::cpu::access`): each chunk accumulates in locals, starting at
//! the operator's identity; after the map one thread combines the chunks'
//! partials into the container in chunk order (reproducible for a thread
//! count). The store itself (`BodyEmitter::stmt`) updates the local.

use super::body::BodyEmitter;
use super::tokens::{literal, one_of, rust_type, zero_of};
use crate::codegen::names;
use crate::ir::bounds::for_each_access;
use crate::ir::{ScalarType, Value, WcrOp};
use proc_macro2::TokenStream;
use quote::quote;

impl BodyEmitter<'_> {
    /// A chunk's partials, declared at its start: each the identity of its
    /// operator (and, for a guarded site, whether it ran).
    pub fn partial_locals(&self) -> TokenStream {
        self.partials
            .iter()
            .map(|r| {
                let (part, hit) = (names::partial(r.code), names::partial_hit(r.code));
                let ty = rust_type(r.elem);
                let identity = literal(identity_of(r.op, r.elem));
                let hit = if r.guarded {
                    quote!(let mut #hit: bool = false;)
                } else {
                    TokenStream::new()
                };
                quote!(let mut #part: #ty = #identity; #hit)
            })
            .collect()
    }

    /// The tuple of a chunk's partials (its result, and the pattern that
    /// takes it apart after the map).
    pub fn partial_tuple(&self) -> TokenStream {
        let items: Vec<TokenStream> = self
            .partials
            .iter()
            .map(|r| {
                let part = names::partial(r.code);
                if r.guarded {
                    let hit = names::partial_hit(r.code);
                    quote!(#part, #hit)
                } else {
                    quote!(#part)
                }
            })
            .collect();
        quote!((#(#items,)*))
    }

    /// Combines one chunk's partials (bound by [`BodyEmitter::partial_tuple`])
    /// into their containers, site by site: one thread, after the map.
    pub fn combine_partials(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for_each_access(&self.body.stmts, &mut |site| {
            let (code, prechecked) = self.site(site.node);
            let Some(r) = self.partials.iter().find(|r| r.code == code) else {
                return;
            };
            let part = names::partial(r.code);
            let store = self
                .data
                .store(r.container, quote!(__o), quote!(#part), Some(r.op));
            out.extend(if prechecked {
                let offset = self.direct_offset(r.container, site.index);
                quote!({ let __o: usize = #offset; #store })
            } else {
                let offset = self.offset(r.container, site.index);
                let hit = names::partial_hit(r.code);
                let flat = names::fault_index();
                let fault = self.data.fault(code, quote!(#flat));
                quote! {
                    if #hit {
                        match #offset {
                            ::core::result::Result::Ok(__o) => { #store }
                            ::core::result::Result::Err(#flat) => { #fault }
                        }
                    }
                }
            });
        });
        out
    }
}

/// The identity of a reduction operator: `x op identity == x` for every
/// `x`, bit for bit (`-0.0` for float sums, since `-0.0 + 0.0 == +0.0`;
/// NaN for float min/max, which ignore a NaN operand).
pub(crate) fn identity_of(op: WcrOp, t: ScalarType) -> Value {
    use crate::ir::semantics::cast;
    match (op, t) {
        // Every float type (f16 and bf16 too) and both parts of a complex.
        (WcrOp::Sum, t) if t.is_float() => cast(Value::F64(-0.0), t),
        (WcrOp::Sum, ScalarType::C32) => Value::C32(num_complex::Complex::new(-0.0, -0.0)),
        (WcrOp::Sum, ScalarType::C64) => Value::C64(num_complex::Complex::new(-0.0, -0.0)),
        (WcrOp::Sum, t) => zero_of(t),
        (WcrOp::Product, t) => one_of(t),
        (WcrOp::Min | WcrOp::Max, t) if t.is_float() => cast(Value::F64(f64::NAN), t),
        (WcrOp::Min, ScalarType::Bool) => Value::Bool(true),
        (WcrOp::Max, ScalarType::Bool) => Value::Bool(false),
        (WcrOp::Min | WcrOp::Max, t) => match t.int_range() {
            Some((lo, hi)) => {
                let end = if op == WcrOp::Min { hi } else { lo };
                Value::from_bits(t, end as u128)
            }
            // Complex values have no min/max (validation).
            None => zero_of(t),
        },
    }
}
