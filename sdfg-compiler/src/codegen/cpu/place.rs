//! Where a body's data lives when it runs on the host: the [`DataAccess`]
//! of host tasklets, `cpu`/`seq` maps, kernel twins and expressions over
//! symbols (shapes, ranges, subsets, interstate edges).

use super::body::{combine_values as combine, DataAccess};
use crate::codegen::{names, runtime_paths as rt};
use crate::ir::{ContainerId, ScalarType, Sdfg, SymbolId, WcrOp};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};

/// The kinds of places a body runs in.
enum PlaceKind {
    /// Host code: the bindings the glue made for the statement
    /// (`__d_X`, slices). In a `cpu` map (`cells`), the containers it
    /// writes are bound as atomic cells.
    Host {
        cells: bool,
        written: Vec<ContainerId>,
    },
    /// A CPU twin of a `gpu` map: device data as cells from the kernel's
    /// arguments, host scalars by value.
    KernelTwin,
    /// Expressions over symbols and literals only (shapes, ranges, subsets).
    SymbolsOnly,
}

pub(crate) struct Place<'a> {
    sdfg: &'a Sdfg,
    kind: PlaceKind,
    /// Map dimensions in scope (their parameters are `__p0`, ...).
    dims: usize,
}

impl<'a> Place<'a> {
    /// A host tasklet or an interstate edge.
    pub fn host(sdfg: &'a Sdfg) -> Self {
        Place::host_map(sdfg, 0, false, Vec::new())
    }

    /// A `cpu` (`cells`: runs in parallel) or `seq` map of `dims` dimensions
    /// that writes `written`.
    pub fn host_map(sdfg: &'a Sdfg, dims: usize, cells: bool, written: Vec<ContainerId>) -> Self {
        Place {
            sdfg,
            kind: PlaceKind::Host { cells, written },
            dims,
        }
    }

    /// The twin of a `gpu` map of `dims` dimensions.
    pub fn kernel_twin(sdfg: &'a Sdfg, dims: usize) -> Self {
        Place {
            sdfg,
            kind: PlaceKind::KernelTwin,
            dims,
        }
    }

    /// Shapes, map ranges, copy subsets and precheck intervals.
    pub fn symbols_only(sdfg: &'a Sdfg) -> Self {
        Place {
            sdfg,
            kind: PlaceKind::SymbolsOnly,
            dims: 0,
        }
    }

    fn name(&self, c: ContainerId) -> &str {
        &self.sdfg.containers[c].name.text
    }

    fn elem(&self, c: ContainerId) -> TokenStream {
        super::body::rust_type(self.sdfg.containers[c].elem)
    }
}

impl DataAccess for Place<'_> {
    fn load(&self, c: ContainerId, offset: TokenStream, span: Span) -> TokenStream {
        let d = names::data(self.name(c));
        let t = self.elem(c);
        let elem = rt::elem();
        match &self.kind {
            PlaceKind::Host {
                cells: true,
                written,
            } if written.contains(&c) => {
                quote!(<#t as #elem>::load(&#d[#offset]))
            }
            PlaceKind::Host { .. } => quote!(#d[#offset]),
            PlaceKind::KernelTwin if self.sdfg.containers[c].storage.is_host() => {
                let n = names::host_scalar(self.name(c));
                quote!({ let _ = #offset; #n })
            }
            PlaceKind::KernelTwin => quote!(<#t as #elem>::load(&#d[#offset])),
            PlaceKind::SymbolsOnly => {
                quote_spanned!(span=> ::core::compile_error!("only symbols and literals may appear here"))
            }
        }
    }

    fn store(
        &self,
        c: ContainerId,
        offset: TokenStream,
        value: TokenStream,
        wcr: Option<WcrOp>,
    ) -> TokenStream {
        let d = names::data(self.name(c));
        let t = self.elem(c);
        match (&self.kind, wcr) {
            (PlaceKind::Host { cells: true, .. } | PlaceKind::KernelTwin, _) => {
                cell_store(&t, quote!(&#d[#offset]), value, wcr)
            }
            (PlaceKind::Host { .. }, None) => quote!(#d[#offset] = #value;),
            (PlaceKind::Host { .. }, Some(op)) => {
                let combined =
                    combine(op, self.sdfg.containers[c].elem, quote!(#d[#offset]), value);
                quote!(#d[#offset] = #combined;)
            }
            (PlaceKind::SymbolsOnly, _) => TokenStream::new(),
        }
    }

    fn extent(&self, c: ContainerId, d: usize) -> TokenStream {
        let e = names::extents(self.name(c));
        quote!(#e[#d])
    }

    fn fault(&self, code: u32, index: TokenStream) -> TokenStream {
        match self.kind {
            PlaceKind::SymbolsOnly => TokenStream::new(),
            _ => {
                let fault = names::fault();
                quote!(#fault.raise(#code, #index);)
            }
        }
    }

    fn symbol(&self, s: SymbolId) -> TokenStream {
        let v = names::symbol(&self.sdfg.symbols[s].name.text);
        quote!(#v)
    }

    fn param(&self, n: usize) -> TokenStream {
        if n < self.dims {
            let p = names::map_param(n);
            quote!(#p)
        } else {
            quote!(0)
        }
    }

    fn elem_type(&self, c: ContainerId) -> ScalarType {
        self.sdfg.containers[c].elem
    }
}

/// A store through an atomic cell (plain or a reduction).
fn cell_store(
    t: &TokenStream,
    cell: TokenStream,
    value: TokenStream,
    wcr: Option<WcrOp>,
) -> TokenStream {
    let (elem, num) = (rt::elem(), rt::num_elem());
    match wcr {
        None => quote!(<#t as #elem>::store(#cell, #value);),
        Some(WcrOp::Sum) => quote!(<#t as #num>::reduce_sum(#cell, #value);),
        Some(WcrOp::Product) => quote!(<#t as #num>::reduce_product(#cell, #value);),
        Some(WcrOp::Min) => quote!(<#t as #num>::reduce_min(#cell, #value);),
        Some(WcrOp::Max) => quote!(<#t as #num>::reduce_max(#cell, #value);),
    }
}
