//! The Rust twin of a `gpu` map: what the CPU device runs in place of the
//! PTX kernel. It receives the kernel's arguments in the kernel's ABI order
//! and binds each one as the ABI's [`Passing`] says: a buffer as atomic
//! cells, a scalar by value.

use super::body::{rust_type, BodyEmitter};
use super::place::Place;
use super::ranges::MapRanges;
use crate::codegen::abi::{KernelAbi, ParamValue, Passing};
use crate::codegen::names::{self, RangeScope};
use crate::codegen::runtime_paths as rt;
use crate::ir::{Sdfg, StatementKind};
use proc_macro2::TokenStream;
use quote::quote;

/// `fn cpu_<entry>(args: &KernelArgs)` for the kernel `abi` describes.
pub(crate) fn kernel_twin(sdfg: &Sdfg, abi: &KernelAbi) -> TokenStream {
    let StatementKind::Map(m) = &sdfg.states[abi.state].stmts[abi.stmt].kind else {
        return TokenStream::new();
    };
    let prologue = prologue(sdfg, abi);
    let iteration = if m.block.is_some() {
        super::block::block_iterations(sdfg, abi, m)
    } else {
        let access = Place::kernel_twin(sdfg, m.params.len());
        let code = BodyEmitter::new(&access, &m.body).stmts(&m.body.stmts);
        let ranges = MapRanges {
            map: m,
            scope: RangeScope::Kernel,
            data: &access,
        };
        ranges.parallel(&code, &abi.name)
    };
    let args = names::twin_args();
    let fname = names::kernel_twin(&abi.name);
    let fault = names::fault();
    let (kernel_args, fault_type, error) = (rt::kernel_args(), rt::check_fault(), rt::error());
    quote! {
        pub(super) fn #fname(#args: &#kernel_args<'_>) {
            #prologue
            let __fault_owner = #fault_type::new();
            let #fault = &__fault_owner;
            // A twin cannot fail: a bad range was rejected by the glue.
            let __run = || -> ::core::result::Result<(), #error> { #iteration ::core::result::Result::Ok(()) };
            let _ = __run();
            // The first skipped access, to the launch's fault slot (as the
            // PTX kernel records it).
            if let ::core::option::Option::Some((code, index)) = __fault_owner.first() {
                #args.fault_at(code, index);
            }
        }
    }
}

/// The twin's bindings of the kernel's arguments, by the names the body
/// (through `Place::kernel_twin`) reads them.
fn prologue(sdfg: &Sdfg, abi: &KernelAbi) -> TokenStream {
    let cname = |c: usize| sdfg.containers[c].name.text.as_str();
    let args = names::twin_args();
    let elem = rt::elem();
    let mut prologue = TokenStream::new();
    for (i, p) in abi.params.iter().enumerate() {
        // The name the body (through `Place::kernel_twin`) reads the value by.
        let name = match &p.value {
            ParamValue::Buffer { container, .. } => names::data(cname(*container)),
            ParamValue::Extent { container, dim } => names::twin_extent(cname(*container), *dim),
            ParamValue::Symbol(s) => names::symbol(&sdfg.symbols[*s].name.text),
            ParamValue::HostScalar(c) => names::host_scalar(cname(*c)),
            ParamValue::RangeStart(d) => names::range(RangeScope::Kernel, *d).start,
            ParamValue::RangeCount(d) => names::range(RangeScope::Kernel, *d).count,
            ParamValue::RangeStep(d) => names::range(RangeScope::Kernel, *d).step,
            ParamValue::Fault => continue,
        };
        prologue.extend(match p.passing {
            Passing::Buffer { elem: t, .. } => {
                let t = rust_type(t);
                quote!(let #name: &[<#t as #elem>::Cell] = #args.cells::<#t>(#i);)
            }
            Passing::Scalar(t) => {
                let t = rust_type(t);
                quote!(let #name: #t = #args.value::<#t>(#i);)
            }
            // Faults are reported through `args` below.
            Passing::FaultWord => TokenStream::new(),
        });
    }
    for p in &abi.params {
        if let ParamValue::Buffer { container, .. } = p.value {
            let n = names::extents(cname(container));
            let dims: Vec<TokenStream> = (0..sdfg.containers[container].shape.len())
                .map(|d| {
                    let e = names::twin_extent(cname(container), d);
                    quote!(#e as usize)
                })
                .collect();
            let rank = dims.len();
            prologue.extend(quote!(let #n: [usize; #rank] = [#(#dims),*];));
        }
    }
    prologue
}
