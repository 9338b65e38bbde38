//! What a block map needs from the glue: before the state's work, its
//! threads per block (from symbols: 1 to 1024) and one thread per
//! iteration for thread maps with register data, and the extents of its
//! block data for the index prechecks; at the launch, its grid, block and
//! dynamic shared memory (`LaunchConfig::for_blocks`, the contract in
//! `codegen::ptx::kernel::block`).

use super::Glue;
use crate::codegen::cpu::body::BodyEmitter;
use crate::codegen::cpu::place::Place;
use crate::codegen::names::{self, RangeScope};
use crate::codegen::ptx::PtxKernel;
use crate::codegen::runtime_paths as rt;
use crate::ir::{container_uses, thread_maps, BlockSize, Map, StmtId, Storage};
use proc_macro2::TokenStream;
use quote::quote;

impl Glue<'_> {
    /// The threads per block of block map `m` (a `usize`, `?` on an `Err`).
    fn block_threads(&self, m: &Map, state_name: &str) -> TokenStream {
        let symbols_only = Place::symbols_only(self.sdfg);
        let emit = BodyEmitter::new(&symbols_only, &self.empty);
        let dims: Vec<TokenStream> = match m.block.as_ref().map(|b| &b.size) {
            Some(BlockSize::Given(dims)) => dims
                .iter()
                .map(|d| {
                    let v = emit.expr(d);
                    quote!((#v) as i128)
                })
                .collect(),
            _ => vec![quote!(256i128)],
        };
        let what = format!("block map `{}` in state `{state_name}`", m.name.text);
        let block = rt::block();
        quote!(#block::threads(#what, &[#(#dims),*])?)
    }

    /// Checks of a block map before the state's work, and the extents of
    /// its block data for the index prechecks that follow.
    pub(super) fn block_prechecks(&self, m: &Map, state_name: &str) -> TokenStream {
        let Some(block) = &m.block else {
            return TokenStream::new();
        };
        let symbols_only = Place::symbols_only(self.sdfg);
        let emit = BodyEmitter::new(&symbols_only, &self.empty);
        let threads = names::block_threads();
        let mut out = TokenStream::new();
        let count = self.block_threads(m, state_name);
        out.extend(quote!(let #threads: usize = #count;));
        for &c in &block.data {
            let k = &self.sdfg.containers[c];
            let ext = names::extents(&k.name.text);
            let dims: Vec<TokenStream> = k
                .shape
                .iter()
                .map(|d| {
                    let v = emit.expr(d);
                    quote!(((#v) as i128).max(0) as usize)
                })
                .collect();
            let rank = dims.len();
            out.extend(quote!(let #ext: [usize; #rank] = [#(#dims),*];));
        }
        // Thread maps with register data: one thread per iteration.
        let (range_count, block_rt) = (rt::check_range_count(), rt::block());
        for t in thread_maps(&m.body.stmts) {
            let uses_registers = container_uses(&t.body)
                .iter()
                .any(|u| self.sdfg.containers[u.container].storage == Storage::Register);
            if !uses_registers {
                continue;
            }
            let what = format!(
                "thread map `{}` of block map `{}` in state `{state_name}`",
                t.name.text, m.name.text
            );
            let counts: Vec<TokenStream> = t
                .params
                .iter()
                .map(|p| {
                    let a = emit.expr(&p.start);
                    // `..=last` ends at `last + 1` in i128 (no wrap at the maximum).
                    let b = match crate::ir::range_end(&p.end, p.inclusive) {
                        crate::ir::RangeEnd::Exclusive(e) => {
                            let e = emit.expr(e);
                            quote!((#e) as i128)
                        }
                        crate::ir::RangeEnd::Inclusive(last) => {
                            let l = emit.expr(last);
                            quote!((#l) as i128 + 1)
                        }
                    };
                    let s = p.step.as_ref().map_or(quote!(1), |x| emit.expr(x));
                    quote!(#range_count(#what, (#a) as i128, #b, (#s) as i128)?)
                })
                .collect();
            out.extend(quote! {
                #block_rt::one_iteration_per_thread(#what, 1u64 #(* #counts)*, #threads)?;
            });
        }
        out
    }

    /// The launch configuration of block map `m`, statement `k`.
    pub(super) fn block_launch_config(
        &self,
        k: StmtId,
        m: &Map,
        shape: &PtxKernel,
        state_name: &str,
    ) -> TokenStream {
        let symbols_only = Place::symbols_only(self.sdfg);
        let emit = BodyEmitter::new(&symbols_only, &self.empty);
        let counts: Vec<_> = (0..m.params.len())
            .map(|d| names::range(RangeScope::Statement(k), d).count)
            .collect();
        let threads = self.block_threads(m, state_name);
        // The dynamic shared memory, as the kernel lays it out: each
        // container 16-byte aligned, in order.
        let mut bytes = Vec::new();
        for &c in shape
            .block_map
            .as_ref()
            .map(|b| b.dynamic_shared.as_slice())
            .unwrap_or_default()
        {
            let k = &self.sdfg.containers[c];
            let size = k.elem.size_bytes() as u64;
            let dims: Vec<TokenStream> = k
                .shape
                .iter()
                .map(|d| {
                    let v = emit.expr(d);
                    quote!((((#v) as i128).max(0) as u64))
                })
                .collect();
            bytes.push(quote!(((#size #(* #dims)*).div_ceil(16) * 16)));
        }
        let (launch_config, block, error) = (rt::launch_config(), rt::block(), rt::error());
        let what = format!("the shared data of block map `{}`", m.name.text);
        quote! {{
            let __shared: u64 = 0u64 #(+ #bytes)*;
            let __shared: u32 = u32::try_from(__shared).map_err(|_| #error::InvalidArgument(
                ::std::format!("{} needs {} bytes", #what, __shared)))?;
            let __threads: usize = #threads;
            #launch_config::for_blocks(__device, 1u64 #(* #counts)*, #block::launched(__threads) as u32, __shared)
        }}
    }
}
