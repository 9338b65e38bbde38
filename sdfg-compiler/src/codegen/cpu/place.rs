//! Where a body's data lives when it runs on the host: the [`DataAccess`]
//! of host tasklets, `seq` maps, parallel maps (`cpu` maps and kernel
//! twins) and expressions over symbols (shapes, ranges, subsets,
//! interstate edges).

use super::access::{AccessPlan, Mode};
use super::body::DataAccess;
use super::tokens::combine_values as combine;
use crate::codegen::{names, runtime_paths as rt};
use crate::ir::{ContainerId, ScalarType, Sdfg, SymbolId, WcrOp};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};

/// The kinds of places a body runs in.
enum PlaceKind<'p> {
    /// Host code that runs once, on one thread (host tasklets, `seq` maps,
    /// interstate edges): the slices the glue bound (`__d_X`).
    Host,
    /// A map whose chunks run in parallel: each container as `plan` says
    /// (`codegen::cpu::access`). `twin`: the CPU twin of a `gpu` map, whose
    /// host containers are scalars passed by value.
    Parallel { plan: &'p AccessPlan, twin: bool },
    /// Expressions over symbols and literals only (shapes, ranges, subsets).
    SymbolsOnly,
}

pub(crate) struct Place<'a> {
    sdfg: &'a Sdfg,
    kind: PlaceKind<'a>,
    /// Map dimensions in scope (their parameters are `__p0`, ...).
    dims: usize,
}

impl<'a> Place<'a> {
    /// A host tasklet or an interstate edge.
    pub fn host(sdfg: &'a Sdfg) -> Self {
        Place::sequential_map(sdfg, 0)
    }

    /// A `seq` map of `dims` dimensions.
    pub fn sequential_map(sdfg: &'a Sdfg, dims: usize) -> Self {
        Place {
            sdfg,
            kind: PlaceKind::Host,
            dims,
        }
    }

    /// A `cpu` map of `dims` dimensions, its containers bound as `plan` says.
    pub fn parallel_map(sdfg: &'a Sdfg, dims: usize, plan: &'a AccessPlan) -> Self {
        Place {
            sdfg,
            kind: PlaceKind::Parallel { plan, twin: false },
            dims,
        }
    }

    /// The twin of a `gpu` map of `dims` dimensions.
    pub fn kernel_twin(sdfg: &'a Sdfg, dims: usize, plan: &'a AccessPlan) -> Self {
        Place {
            sdfg,
            kind: PlaceKind::Parallel { plan, twin: true },
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
        super::tokens::rust_type(self.sdfg.containers[c].elem)
    }
}

// SAFETY of the plain accesses below (`unsafe` in the generated code): the
// offset is below the container's length, since each index was checked
// against its dimension (where it runs, or by the glue's precheck before the
// statement: `ir::bounds`) and the binding asserted that the extents fit in
// the length (`par::assert_covers`). No other thread writes an element a
// plain load reads, nor touches one a plain store writes: `Read` containers
// are written by nothing while the map runs, an `Owned` element belongs to
// one iteration, and `Partials` containers are touched only after the map,
// by one thread (`codegen::cpu::access`).
impl DataAccess for Place<'_> {
    fn load(&self, c: ContainerId, offset: TokenStream, span: Span) -> TokenStream {
        let d = names::data(self.name(c));
        let t = self.elem(c);
        let elem = rt::elem();
        match &self.kind {
            PlaceKind::Host => quote!(#d[#offset]),
            PlaceKind::Parallel { twin: true, .. } if self.sdfg.containers[c].storage.is_host() => {
                let n = names::host_scalar(self.name(c));
                quote!({ let _ = #offset; #n })
            }
            PlaceKind::Parallel { plan, .. } => match plan.mode(c) {
                Mode::Read => quote!(unsafe { *#d.get_unchecked(#offset) }),
                Mode::Owned | Mode::Partials => quote!(unsafe { #d.get(#offset) }),
                Mode::Cells => quote!(<#t as #elem>::load(&#d[#offset])),
            },
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
        let ty = self.sdfg.containers[c].elem;
        match (&self.kind, wcr) {
            (PlaceKind::Parallel { plan, .. }, _) => match plan.mode(c) {
                Mode::Cells | Mode::Read => cell_store(&t, quote!(&#d[#offset]), value, wcr),
                Mode::Owned | Mode::Partials => match wcr {
                    None => quote!(unsafe { #d.set(#offset, #value) };),
                    Some(op) => {
                        let combined = combine(op, ty, quote!(#d.get(__o)), value);
                        quote!({ let __o: usize = #offset; unsafe { #d.set(__o, #combined) }; })
                    }
                },
            },
            (PlaceKind::Host, None) => quote!(#d[#offset] = #value;),
            (PlaceKind::Host, Some(op)) => {
                let combined = combine(op, ty, quote!(#d[#offset]), value);
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
    let (elem, num, sum) = (rt::elem(), rt::num_elem(), rt::sum_elem());
    match wcr {
        None => quote!(<#t as #elem>::store(#cell, #value);),
        Some(WcrOp::Sum) => quote!(<#t as #sum>::reduce_sum(#cell, #value);),
        Some(WcrOp::Product) => quote!(<#t as #num>::reduce_product(#cell, #value);),
        Some(WcrOp::Min) => quote!(<#t as #num>::reduce_min(#cell, #value);),
        Some(WcrOp::Max) => quote!(<#t as #num>::reduce_max(#cell, #value);),
    }
}
