//! The CPU twin of a block map: a block iteration is a task's work, the
//! block program run in order; the block iterations (each a unit of its
//! own) in chunks on the CPU device's kernel pool (the fast path's loop,
//! `MapRanges::chunked`). Its `shared` data is a plain array per task
//! (undefined at the start of each block iteration, as on the GPU), its
//! `register` data one copy per thread-map iteration (`q`), which the
//! iteration copies into a local array and back (`iteration_views`: what
//! lets LLVM keep it in registers), its thread maps plain loops over their
//! iterations in order (`thread_map`), and its barriers nothing (the
//! phases already run one after the other; where they fall is the IR's
//! `Stmt::Barrier`, never recomputed here). Indices the glue prechecked
//! (`ir::bounds`, the same interval analysis as the flat maps and the PTX
//! kernel) are not checked again, and block data is indexed without a
//! check of its own (see `load`). Block reductions
//! follow the GPU kernel's combination order, so the CPU device computes
//! the same bits as the GPU for a block size; a reduction into one element
//! from every block iteration combines per chunk, then in chunk order
//! (reproducible for a thread count; on the GPU it is an atomic per block).
//!
//! A launch with fewer block iterations than threads (four tiles of a
//! 256^2 product on 16 threads) runs each on a *team* instead, when the
//! program allows (`runs_in_teams`): the block program a second time, for
//! a member (`BodyEmitter::in_team`: its GPU threads' iterations, barriers
//! that wait, block-level stores by member 0), `shared` data one copy per
//! block iteration behind `TeamData` views, `register` data each member's
//! own (`runtime::cpu::team` has the argument why this is race-free).

use super::access::AccessPlan;
use super::body::{BodyEmitter, DataAccess};
use super::place::Place;
use super::ranges::{ChunkResults, MapRanges, PointCode};
use super::replicas::replicated_phases;
use super::tokens::{combine_values as combine, literal, rust_type, zero_of};
use crate::codegen::abi::KernelAbi;
use crate::codegen::names::{self, RangeScope};
use crate::codegen::runtime_paths as rt;
use crate::ir::{
    BlockSize, ContainerId, ContainerUse, Map, ScalarType, Sdfg, Stmt, Storage, SymbolId, WcrOp,
};
use proc_macro2::{Span, TokenStream};
use quote::quote;

/// The block iterations of block map `m`, for the twin of `abi`: in
/// chunks on `workers` (the CPU device's kernel pool), its buffers reached
/// as `plan` says (the map's plan: plain where the block iterations
/// cannot share an element, chunk partials for reductions into one
/// element, atomic cells otherwise). `closure_copies` (`twin`) opens a
/// team member's closure.
pub(crate) fn block_iterations(
    sdfg: &Sdfg,
    abi: &KernelAbi,
    m: &Map,
    plan: &AccessPlan,
    workers: TokenStream,
    closure_copies: TokenStream,
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
    // A team's `shared` data: one copy per block iteration, and the views
    // its members index (`register` data is each member's own).
    let mut per_team = TokenStream::new();
    let mut per_member = TokenStream::new();
    let team_rt = rt::block();
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
        let alloc = match k.storage {
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
        };
        per_chunk.extend(alloc.clone());
        if k.storage == Storage::Register {
            // Thread-private: each member has its own (it touches only the
            // copies of its GPU threads), a vector the compiler knows no
            // other pointer reaches.
            per_member.extend(alloc);
            continue;
        }
        let (copies, views) = (names::team_copies(name), names::team_views(name));
        per_team.extend(quote! {
            let mut #copies: ::std::vec::Vec<::std::vec::Vec<#t>> =
                (0..__total).map(|_| ::std::vec![#zero; #len]).collect();
            // SAFETY: the members of a block iteration's team touch its
            // copy as the GPU's threads touch block data: iterations of a
            // thread map never conflict (validated), conflicting phases
            // are separated by barriers (`Member::wait`, placed by the
            // compiler), and each GPU thread's iterations run on one member.
            let #views: ::std::vec::Vec<#team_rt::TeamData<'_, #t>> = #copies
                .iter_mut()
                .map(|__c| unsafe { #team_rt::TeamData::new(&mut __c[..]) })
                .collect();
        });
        per_member.extend(quote! {
            #[allow(unused_mut)]
            let mut #d = #views[__u];
        });
    }
    let place = BlockPlace {
        sdfg,
        inner: Place::kernel_twin(sdfg, m.params.len(), plan),
    };
    let emitter = || {
        let emit =
            BodyEmitter::block_map(&place, &m.body, &sdfg.containers, constant_launched(block));
        // The glue prechecks no access of a map with a dependent range.
        let emit = if m.has_dependent_ranges() {
            emit
        } else {
            emit.after_prechecks()
        };
        emit.with_partials(&plan.reductions)
    };
    let emit = emitter();
    let code = emit.stmts(&m.body.stmts);
    let ranges = MapRanges {
        map: m,
        scope: RangeScope::Kernel,
        data: &place,
    };
    let team = runs_in_teams(m, plan).then(|| {
        // A private team (`replicas`) when the program allows: each member
        // its own block data (what a chunk allocates), no barriers.
        let (start, code, per_team, per_member) = match replicated_phases(sdfg, m) {
            Some(replicated) => (
                quote!(private),
                emitter().in_private_team(replicated).stmts(&m.body.stmts),
                TokenStream::new(),
                per_chunk.clone(),
            ),
            None => (
                quote!(new),
                emitter().in_team().stmts(&m.body.stmts),
                per_team,
                per_member,
            ),
        };
        let position = ranges.block_iteration();
        quote! {
            match #team_rt::Team::#start(__workers, __total) {
                ::core::option::Option::None => false,
                ::core::option::Option::Some(__team) => {
                    #per_team
                    __team.run(&|__member: #team_rt::Member<'_>| {
                        #closure_copies
                        let __u: usize = __member.unit;
                        #per_member
                        #position
                        #code
                    });
                    true
                }
            }
        }
    });
    let partials = emit.partial_locals();
    let tuple = emit.partial_tuple();
    let results = ChunkResults {
        locals: quote!(#per_chunk #partials),
        result: tuple.clone(),
        pattern: tuple,
        combine: emit.combine_partials(),
    };
    let iterations = ranges.chunked(
        &PointCode::One(code),
        &abi.name,
        workers,
        Some(&results),
        team,
    );
    quote! {
        let #threads: usize = #rtb::threads(#what, &[#(#dims),*])?;
        let #launched: usize = #rtb::launched(#threads);
        #shapes
        #iterations
    }
}

/// Whether a launch of `m` with fewer block iterations than threads runs
/// each on a team of threads (`runtime::cpu::team`): when no thread map
/// reduces (`+=` and the like: into block partials, or from several
/// members into one element), no reduction goes into a chunk partial, no
/// range depends on another (its `continue` needs the chunk loop), and the
/// map has parameters (the block iteration's position).
fn runs_in_teams(m: &Map, plan: &AccessPlan) -> bool {
    let mut thread_maps = 0;
    let mut reduces = false;
    for s in &m.body.stmts {
        s.walk(&mut |x| {
            if let Stmt::ThreadMap(t) = x {
                thread_maps += 1;
                for inner in &t.body {
                    inner.walk(&mut |y| {
                        reduces |= matches!(y, Stmt::Store { wcr: Some(_), .. });
                    });
                }
            }
        });
    }
    thread_maps > 0
        && !reduces
        && plan.reductions.is_empty()
        && !m.has_dependent_ranges()
        && !m.params.is_empty()
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

/// Register data longer than this is indexed in the thread's vector
/// rather than copied into a local array: the copies live on the stack of
/// a pool thread, and a GPU thread has at most 255 registers anyway (more
/// spills to local memory there too).
const MAX_REGISTER_VIEW: u64 = 1024;

impl BlockPlace<'_> {
    /// The length of register data `c` when its shape is constant: its
    /// accesses then go through the iteration's fixed-size view
    /// (`iteration_views`), whose indices the compiler can prove in
    /// bounds, so the loops over it vectorize.
    fn constant_register_len(&self, c: ContainerId) -> Option<usize> {
        let k = &self.sdfg.containers[c];
        if k.storage != Storage::Register {
            return None;
        }
        let len = crate::ir::linear::constant_product(&k.shape)?;
        (1..=MAX_REGISTER_VIEW)
            .contains(&len)
            .then_some(len as usize)
    }

    /// The element `offset` of block data `c`: its name and index.
    fn element(&self, c: ContainerId, offset: &TokenStream) -> Option<(TokenStream, TokenStream)> {
        let k = &self.sdfg.containers[c];
        let d = names::data(&k.name.text);
        if self.constant_register_len(c).is_some() {
            let view = names::register_view(&k.name.text);
            return Some((quote!(#view), quote!(#offset)));
        }
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
    // Block data is indexed unchecked: `DataAccess` passes offsets in
    // bounds (each index prechecked by `ir::bounds` or checked where it
    // runs), and every copy of block data holds exactly the product of its
    // extents (a register vector: one such copy per thread-map iteration,
    // `q` below the block's threads).
    fn load(&self, c: ContainerId, offset: TokenStream, span: Span) -> TokenStream {
        match self.element(c, &offset) {
            // SAFETY (generated): the offset is in bounds (above).
            Some((d, i)) => quote!(unsafe { *#d.get_unchecked(#i) }),
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
        // SAFETY (generated): the offset is in bounds (see `load`).
        match wcr {
            None => quote!({ let __v = #value; unsafe { *#d.get_unchecked_mut(#i) = __v; } }),
            // One task runs the block: a plain update.
            Some(op) => {
                let old = quote!(unsafe { *#d.get_unchecked(__i) });
                let combined = combine(op, self.elem_type(c), old, value);
                quote!({
                    let __i: usize = #i;
                    let __v = #combined;
                    unsafe { *#d.get_unchecked_mut(__i) = __v; }
                })
            }
        }
    }

    /// A constant dimension of block data as a literal, so the offsets
    /// into it are constant-strided in the closures that index it (a
    /// captured extent is a load the compiler cannot see through).
    fn extent(&self, c: ContainerId, d: usize) -> TokenStream {
        let k = &self.sdfg.containers[c];
        let constant = matches!(k.storage, Storage::Shared | Storage::Register)
            .then(|| crate::ir::linear::constant_value(&k.shape[d]))
            .flatten()
            .and_then(|n| usize::try_from(n.max(0)).ok());
        match constant {
            Some(n) => quote!(#n),
            None => self.inner.extent(c, d),
        }
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

    /// The iteration's register data of constant length (copy `q` of the
    /// thread's vector, `L` elements): loaded and stored, a copy in a local
    /// `[T; L]`, written back after the iteration (a local no other
    /// reference reaches, so the compiler keeps it in registers and
    /// vectorizes the loops over it; through a reference into the vector it
    /// must assume that a store to one register array changes another);
    /// only stored or only loaded, the chunk itself as `&mut [T; L]` or
    /// `&[T; L]` (nothing to keep: a copy would only cost).
    fn iteration_views(&self, used: &[ContainerUse]) -> (TokenStream, TokenStream) {
        let q = names::thread_iteration();
        let (mut before, mut after) = (TokenStream::new(), TokenStream::new());
        for u in used {
            let Some(len) = self.constant_register_len(u.container) else {
                continue;
            };
            let name = &self.sdfg.containers[u.container].name.text;
            let (d, view) = (names::data(name), names::register_view(name));
            let copy = names::register_copy(name);
            let t = rust_type(self.elem_type(u.container));
            let chunk = if u.stored {
                quote!(first_chunk_mut)
            } else {
                quote!(first_chunk)
            };
            before.extend(quote! {
                // The vector holds `threads * len` elements and `q` is
                // below `threads`: the chunk always exists.
                let ::core::option::Option::Some(#copy) = #d[#q * #len..].#chunk::<#len>() else {
                    ::core::unreachable!()
                };
            });
            match (u.loaded, u.stored) {
                (true, true) => {
                    before.extend(quote!(let mut #view: [#t; #len] = *#copy;));
                    after.extend(quote!(*#copy = #view;));
                }
                (false, true) => before.extend(quote!(let #view: &mut [#t; #len] = #copy;)),
                _ => before.extend(quote!(let #view: &[#t; #len] = #copy;)),
            }
        }
        (before, after)
    }
}
