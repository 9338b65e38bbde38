//! The CPU twin of a block map: a block iteration is a task's work, the
//! block program run in order; the block iterations (each a unit of its
//! own) in chunks on the CPU device's kernel pool (the fast path's loop,
//! `MapRanges::chunked`). Its `shared` data is a plain array per task
//! (undefined at the start of each block iteration, as on the GPU), its
//! `register` data one copy per thread-map iteration (`q`), its thread
//! maps plain loops over their iterations in order (`thread_map`), and its
//! barriers nothing (the phases already run one after the other; where
//! they fall is the IR's `Stmt::Barrier`, never recomputed here). Indices
//! the glue prechecked (`ir::bounds`, the same interval analysis as the
//! flat maps and the PTX kernel) are not checked again. Block reductions
//! follow the GPU kernel's combination order, so the CPU device computes
//! the same bits as the GPU for a block size; a reduction into one element
//! from every block iteration combines per chunk, then in chunk order
//! (reproducible for a thread count; on the GPU it is an atomic per block).

use super::access::AccessPlan;
use super::body::{BodyEmitter, DataAccess};
use super::place::Place;
use super::ranges::{ChunkResults, MapRanges, PointCode};
use super::tokens::{combine_values as combine, literal, rust_type, zero_of};
use crate::codegen::abi::KernelAbi;
use crate::codegen::names::{self, RangeScope};
use crate::codegen::runtime_paths as rt;
use crate::ir::{BlockSize, ContainerId, Map, ScalarType, Sdfg, Storage, SymbolId, WcrOp};
use proc_macro2::{Span, TokenStream};
use quote::quote;

/// The block iterations of block map `m`, for the twin of `abi`: in
/// chunks on `workers` (the CPU device's kernel pool), its buffers reached
/// as `plan` says (the map's plan: plain where the block iterations
/// cannot share an element, chunk partials for reductions into one
/// element, atomic cells otherwise).
pub(crate) fn block_iterations(
    sdfg: &Sdfg,
    abi: &KernelAbi,
    m: &Map,
    plan: &AccessPlan,
    workers: TokenStream,
) -> TokenStream {
    let Some(block) = &m.block else {
        return TokenStream::new();
    };
    let symbols = Place::symbols_only(sdfg);
    let value = |e: &crate::ir::Expr| BodyEmitter::new(&symbols, &m.body).expr(e);
    let dims: Vec<TokenStream> = match &block.size {
        BlockSize::Auto => vec![quote!(256i128)],
        BlockSize::Given(d) => d
            .iter()
            .map(|e| {
                let v = value(e);
                quote!((#v) as i128)
            })
            .collect(),
    };
    let (threads, launched) = (names::block_threads(), names::launched_threads());
    let rtb = rt::block();
    let what = format!("block map `{}`", m.name.text);
    // Shapes of the block data (symbols and literals), once per launch.
    let mut shapes = TokenStream::new();
    let mut per_chunk = TokenStream::new();
    for &c in &block.data {
        let k = &sdfg.containers[c];
        let name = &k.name.text;
        let (d, ext) = (names::data(name), names::extents(name));
        let dims: Vec<TokenStream> = k
            .shape
            .iter()
            .map(|e| {
                let v = value(e);
                quote!(((#v) as i128).max(0) as usize)
            })
            .collect();
        let rank = dims.len();
        shapes.extend(quote!(let #ext: [usize; #rank] = [#(#dims),*];));
        let t = rust_type(k.elem);
        let zero = literal(zero_of(k.elem));
        let len = quote!(#ext.iter().product::<usize>());
        // Once per chunk: block data is undefined at the start of each
        // block iteration (validation rejects a read before a write), so
        // the task's block iterations reuse one copy.
        per_chunk.extend(match k.storage {
            Storage::Shared => quote! {
                let mut #d: ::std::vec::Vec<#t> = ::std::vec![#zero; #len];
            },
            _ => {
                let rl = names::register_len(name);
                quote! {
                    let #rl: usize = #len;
                    let mut #d: ::std::vec::Vec<#t> = ::std::vec![#zero; #threads * #rl];
                }
            }
        });
    }
    let place = BlockPlace {
        sdfg,
        inner: Place::kernel_twin(sdfg, m.params.len(), plan),
    };
    let emit = BodyEmitter::block_map(&place, &m.body, &sdfg.containers, constant_launched(block));
    // The glue prechecks no access of a map with a dependent range.
    let emit = if m.has_dependent_ranges() {
        emit
    } else {
        emit.after_prechecks()
    };
    let emit = emit.with_partials(&plan.reductions);
    let code = emit.stmts(&m.body.stmts);
    let ranges = MapRanges {
        map: m,
        scope: RangeScope::Kernel,
        data: &place,
    };
    let partials = emit.partial_locals();
    let tuple = emit.partial_tuple();
    let results = ChunkResults {
        locals: quote!(#per_chunk #partials),
        result: tuple.clone(),
        pattern: tuple,
        combine: emit.combine_partials(),
    };
    let iterations = ranges.chunked(&PointCode::One(code), &abi.name, workers, Some(&results));
    quote! {
        let #threads: usize = #rtb::threads(#what, &[#(#dims),*])?;
        let #launched: usize = #rtb::launched(#threads);
        #shapes
        #iterations
    }
}

/// The threads a block launches (whole warps) when its size is a
/// constant of 1 to 1024 threads (another is an `Err` at the launch).
fn constant_launched(block: &crate::ir::Block) -> Option<usize> {
    block
        .constant_threads()
        .filter(|n| (1..=1024).contains(n))
        .map(|n| (n as usize).div_ceil(32) * 32)
}

/// Where a block program's data lives in the twin: block data in the
/// task's vectors (register data at the running iteration's copy), the
/// rest as in a kernel twin.
struct BlockPlace<'a> {
    sdfg: &'a Sdfg,
    inner: Place<'a>,
}

impl BlockPlace<'_> {
    /// The element `offset` of block data `c`: its name and index.
    fn element(&self, c: ContainerId, offset: &TokenStream) -> Option<(TokenStream, TokenStream)> {
        let k = &self.sdfg.containers[c];
        let d = names::data(&k.name.text);
        match k.storage {
            Storage::Shared => Some((quote!(#d), quote!(#offset))),
            Storage::Register => {
                let (q, rl) = (names::thread_iteration(), names::register_len(&k.name.text));
                Some((quote!(#d), quote!(#q * #rl + (#offset))))
            }
            _ => None,
        }
    }
}

impl DataAccess for BlockPlace<'_> {
    fn load(&self, c: ContainerId, offset: TokenStream, span: Span) -> TokenStream {
        match self.element(c, &offset) {
            Some((d, i)) => quote!(#d[#i]),
            None => self.inner.load(c, offset, span),
        }
    }

    fn store(
        &self,
        c: ContainerId,
        offset: TokenStream,
        value: TokenStream,
        wcr: Option<WcrOp>,
    ) -> TokenStream {
        let Some((d, i)) = self.element(c, &offset) else {
            return self.inner.store(c, offset, value, wcr);
        };
        match wcr {
            None => quote!(#d[#i] = #value;),
            // One task runs the block: a plain update.
            Some(op) => {
                let combined = combine(op, self.elem_type(c), quote!(#d[__i]), value);
                quote!({ let __i: usize = #i; #d[__i] = #combined; })
            }
        }
    }

    fn extent(&self, c: ContainerId, d: usize) -> TokenStream {
        self.inner.extent(c, d)
    }

    fn fault(&self, code: u32, index: TokenStream) -> TokenStream {
        self.inner.fault(code, index)
    }

    fn symbol(&self, s: SymbolId) -> TokenStream {
        self.inner.symbol(s)
    }

    fn param(&self, n: usize) -> TokenStream {
        self.inner.param(n)
    }

    fn elem_type(&self, c: ContainerId) -> ScalarType {
        self.inner.elem_type(c)
    }
}
