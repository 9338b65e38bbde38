//! Thread maps in the CPU twin of a block map: one task runs a block
//! iteration, so a thread map is a plain loop over its iterations in
//! order, iteration `q` seeing copy `q` of register data.
//!
//! A block reduction (`ir::uniform_reductions`) keeps one partial per
//! thread of the block in a plain array (iteration `q` runs on thread
//! `q mod B`, in increasing `q`), each starting at the operator's identity
//! (`partials::identity_of`: `x op identity == x` bit for bit, so an
//! untouched thread changes nothing, as a thread without updates does on
//! the GPU), then combines them in the GPU kernel's order
//! (`__glue::block::tree_of`) and updates the target once: the CPU device
//! computes the same bits as the GPU for a block size (every type a
//! reduction takes has an exact identity; complex products, which would
//! not, are no reduction). A one-dimensional thread map runs in rounds of
//! `B` iterations, thread `t` of a round being the loop counter: the loop
//! over a round has no division and indexes the partials by its counter,
//! so it vectorizes where the body allows.

use super::body::BodyEmitter;
use super::partials::identity_of;
use super::tokens::{combine_values, literal, one_of, rust_type};
use crate::codegen::{names, runtime_paths as rt};
use crate::ir::bounds::{AccessNode, LoopScope};
use crate::ir::{
    container_uses, range_end, uniform_reductions, ContainerId, Expr, RangeEnd, Stmt, ThreadMap,
    WcrOp,
};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// One block reduction of the thread map being emitted.
#[derive(Clone)]
pub(super) struct BlockPartial {
    pub container: ContainerId,
    /// The target's index (`Expr::key`s), which finds the reduction's stores.
    pub key: String,
    pub op: WcrOp,
    /// The per-thread partials.
    pub part: Ident,
    /// The running iteration's thread's partial, in a local.
    pub acc: Ident,
    /// Whether an update ran, where the target's index is checked where
    /// it runs (no update, no check, as on the GPU).
    pub hit: Option<Ident>,
}

/// The key of a reduction target's index (`Expr::key`s).
fn index_key(index: &[Expr]) -> String {
    index.iter().map(Expr::key).collect::<Vec<_>>().join(",")
}

impl BodyEmitter<'_> {
    /// A thread map run by one task (see the module documentation).
    pub(super) fn thread_map(&self, t: &ThreadMap, loops: &LoopScope) -> TokenStream {
        let q = names::thread_iteration();
        let (threads, launched, bt) = (
            names::block_threads(),
            names::launched_threads(),
            names::block_thread(),
        );
        let block = rt::block();
        let reductions = self
            .block
            .map(|c| uniform_reductions(t, c))
            .unwrap_or_default();
        let mut setup = TokenStream::new();
        let mut finish = TokenStream::new();
        let mut partials = Vec::new();
        for (k, r) in reductions.iter().enumerate() {
            let elem = self.data.elem_type(r.container);
            let ty = rust_type(elem);
            let part = names::block_partials(k);
            let key = index_key(r.index);
            let (code, prechecked) = self.reduction_site(t, r.container, &key);
            let hit = (!prechecked).then(|| names::block_partial_hit(k));
            let combined = combine_values(r.op, elem, quote!(__a), quote!(__b));
            let combine = quote!(|__a: #ty, __b: #ty| #combined);
            let update = self.reduction_target_update(code, r.container, r.index, r.op, prechecked);
            let identity = literal(identity_of(r.op, elem));
            setup.extend(match self.block_launched {
                Some(n) => quote!(let mut #part: [#ty; #n] = [#identity; #n];),
                None => quote! {
                    let mut #part: ::std::vec::Vec<#ty> = ::std::vec![#identity; #launched];
                },
            });
            let value = quote!(let __v: #ty = #block::tree_of(&#part[..], #identity, #combine););
            finish.extend(match &hit {
                Some(h) => quote!(if #h { #value #update }),
                None => quote!({ #value #update }),
            });
            if let Some(h) = &hit {
                setup.extend(quote!(let mut #h: bool = false;));
            }
            partials.push(BlockPartial {
                container: r.container,
                key,
                op: r.op,
                part,
                acc: names::block_partial_acc(k),
                hit,
            });
        }
        let outer = std::mem::replace(&mut *self.block_partials.borrow_mut(), partials.clone());
        let mut inner = loops.clone();
        for p in &t.params {
            inner = inner.enter_loop(p.local, &p.start, &p.end, p.step.as_ref(), &t.body);
        }
        let was_inside = self.in_thread_map.replace(true);
        let body: TokenStream = t.body.iter().map(|s| self.stmt(s, &inner)).collect();
        self.in_thread_map.set(was_inside);
        *self.block_partials.borrow_mut() = outer;
        // An iteration updates its thread's partial through a local (a
        // register, not a load and a store per update). The body cannot
        // leave the iteration early (`break`/`continue` need a loop of
        // its own), so the store after it always runs.
        let (load, store): (Vec<TokenStream>, Vec<TokenStream>) = partials
            .iter()
            .map(|p| {
                let (part, acc) = (&p.part, &p.acc);
                (
                    quote!(let mut #acc = #part[#bt];),
                    quote!(#part[#bt] = #acc;),
                )
            })
            .unzip();
        let (views, views_back) = self.data.iteration_views(&container_uses(&t.body));
        let body = quote! {
            #views
            #(#load)*
            #body
            #(#store)*
            #views_back
        };
        // Ranges are block-level: evaluated once, before the iterations.
        // A parameter is `start + i * step` in wrapping i64, exact modulo
        // 2^64, so the cast to its type is the true value (as for a map's
        // parameters), without i128 arithmetic per iteration.
        let mut values = Vec::new();
        for (d, p) in t.params.iter().enumerate() {
            let ty = rust_type(p.start.ty);
            let a = self.expr(&p.start);
            // `..=last` ends at `last + 1` in i128 (no wrap at the maximum).
            let b = match range_end(&p.end, p.inclusive) {
                RangeEnd::Exclusive(e) => {
                    let e = self.expr(e);
                    quote!((#e) as i128)
                }
                RangeEnd::Inclusive(last) => {
                    let l = self.expr(last);
                    quote!((#l) as i128 + 1)
                }
            };
            let st = match &p.step {
                Some(e) => self.expr(e),
                None => literal(one_of(p.start.ty)),
            };
            let r = names::thread_range(d);
            let (start, step, count) = (r.start, r.step, r.count);
            setup.extend(quote! {
                let #start: i128 = (#a) as i128;
                let #step: i128 = (#st) as i128;
                let #count: u64 = {
                    let __e: i128 = #b;
                    if #step > 0 && __e > #start { ((__e - #start + #step - 1) / #step) as u64 } else { 0 }
                };
            });
            values.push((names::local(p.local), ty, start, step));
        }
        let value = |d: usize, i: TokenStream| {
            let (name, ty, start, step) = &values[d];
            quote! {
                let #name: #ty = ((#start as i64).wrapping_add((#i as i64).wrapping_mul(#step as i64))) as #ty;
            }
        };
        let code = if self.splits(t) {
            // A team member: the iterations of its GPU threads (iteration
            // `q` on thread `q mod B`), round by round, each iteration's
            // position in row-major order. Teams run no block reductions
            // (`codegen::cpu::block`), so no thread partials.
            let counts: Vec<Ident> = (0..values.len())
                .map(|d| names::thread_range(d).count)
                .collect();
            let mut split = quote!(let __rest: usize = #q;);
            for d in (0..values.len()).rev() {
                let (i, count) = (names::thread_range(d).end, &counts[d]);
                split.extend(if d == 0 {
                    quote!(let #i: u64 = __rest as u64;)
                } else {
                    quote! {
                        let #i: u64 = (__rest % (#count as usize)) as u64;
                        let __rest: usize = __rest / (#count as usize);
                    }
                });
                split.extend(value(d, quote!(#i)));
            }
            quote! {
                let __n: usize = 1usize #(* (#counts as usize))*;
                let (__t_lo, __t_hi) = __member.threads(#threads);
                let mut __round: usize = 0;
                while __round < __n {
                    for #q in (__round + __t_lo)..::core::cmp::Ord::min(__round + __t_hi, __n) {
                        #split
                        #body
                    }
                    __round += #threads;
                }
            }
        } else if t.params.len() == 1 && !partials.is_empty() {
            // Rounds of `B` iterations: thread `__bt` of a round is the loop
            // counter, the partials sliced to the round (no index checks).
            let count = names::thread_range(0).count;
            let value = value(0, quote!(#q));
            let slices = partials.iter().map(|p| {
                let part = &p.part;
                quote!(let #part = &mut #part[..__lanes];)
            });
            quote! {
                let __n: usize = #count as usize;
                let mut __round: usize = 0;
                while __round < __n {
                    let __lanes: usize = ::core::cmp::Ord::min(#threads, __n - __round);
                    #(#slices)*
                    for #bt in 0..__lanes {
                        let #q: usize = __round + #bt;
                        #value
                        #body
                    }
                    __round += __lanes;
                }
            }
        } else {
            // Row-major nested loops; the iteration number and its thread
            // counted before the body (which may `continue` an inner loop).
            let thread = if partials.is_empty() {
                TokenStream::new()
            } else {
                quote! {
                    let #bt: usize = __next_t;
                    __next_t = if __next_t + 1 == #threads { 0 } else { __next_t + 1 };
                }
            };
            let mut code = quote! {
                let #q: usize = __next_q;
                __next_q += 1;
                #thread
                #body
            };
            for d in (0..values.len()).rev() {
                let r = names::thread_range(d);
                let (i, count) = (r.end, r.count);
                let value = value(d, quote!(#i));
                code = quote! {
                    for #i in 0..#count {
                        #value
                        #code
                    }
                };
            }
            quote! {
                let mut __next_q: usize = 0;
                let mut __next_t: usize = 0;
                #code
            }
        };
        quote! {{
            #setup
            #code
            #finish
        }}
    }

    /// Inside a thread map, an update of one of its block reductions goes
    /// to the partial of the thread running the iteration.
    pub(super) fn partial_update(
        &self,
        c: ContainerId,
        index: &[Expr],
        value: &Expr,
    ) -> Option<TokenStream> {
        let partials = self.block_partials.borrow();
        let key = index_key(index);
        let p = partials.iter().find(|p| p.container == c && p.key == key)?;
        let elem = self.data.elem_type(c);
        let v = self.expr(value);
        let acc = &p.acc;
        let hit = p.hit.as_ref().map(|h| quote!(#h = true;));
        let combined = combine_values(p.op, elem, quote!(#acc), quote!(__v));
        Some(quote! {{
            let __v = #v;
            #acc = #combined;
            #hit
        }})
    }

    /// The fault code of the first store of block reduction (`container`,
    /// index `key`) in `t`, and whether it is prechecked: the target's
    /// update after the tree is checked (and numbered) as that store. Found
    /// by its statement: every scalar's index is the same empty slice.
    fn reduction_site(&self, t: &ThreadMap, container: ContainerId, key: &str) -> (u32, bool) {
        let mut found = None;
        for s in &t.body {
            s.walk(&mut |x| {
                if let Stmt::Store {
                    container: c,
                    index,
                    wcr: Some(_),
                    ..
                } = x
                {
                    if found.is_none() && *c == container && index_key(index) == key {
                        found = Some(self.site(AccessNode::Store(x)));
                    }
                }
            });
        }
        found.unwrap_or((u32::MAX, false))
    }

    /// The update of a block reduction's target by the block's value `__v`
    /// (after the tree, once per block iteration): into the chunk's
    /// partial when the target is one (a reduction from every block
    /// iteration into one element), else the container, its index checked
    /// unless prechecked.
    fn reduction_target_update(
        &self,
        code: u32,
        c: ContainerId,
        index: &[Expr],
        op: WcrOp,
        prechecked: bool,
    ) -> TokenStream {
        if let Some(update) = self.chunk_partial_update(code) {
            return quote!({ #update });
        }
        let store = self.data.store(c, quote!(__o), quote!(__v), Some(op));
        if prechecked {
            let offset = self.direct_offset(c, index);
            return quote!({ let __o: usize = #offset; #store });
        }
        let offset = self.offset(c, index);
        let flat = names::fault_index();
        let fault = self.data.fault(code, quote!(#flat));
        quote! {
            match #offset {
                ::core::result::Result::Ok(__o) => { #store }
                ::core::result::Result::Err(#flat) => { #fault }
            }
        }
    }
}
