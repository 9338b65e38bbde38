//! The Rust twin of a `gpu` map: what the CPU device runs in place of the
//! PTX kernel. It receives the kernel's arguments in the kernel's ABI order
//! and binds each one as the ABI's [`Passing`] says: a scalar by value, a
//! buffer as the map's [`AccessPlan`] decides (a plain slice it only reads,
//! a plain view of the elements its iterations own or reduce into after the
//! map, atomic cells otherwise). The map runs in chunks on the device's
//! kernel pool, like a `cpu` map on the caller's ([`parallel_map`]).

use super::access::{AccessPlan, Mode};
use super::body::BodyEmitter;
use super::lanes::worth_lanes;
use super::place::Place;
use super::ranges::{ChunkResults, MapRanges, PointCode};
use super::tokens::rust_type;
use crate::codegen::abi::{BufferAccess, KernelAbi, ParamValue, Passing};
use crate::codegen::names::{self, RangeScope};
use crate::codegen::runtime_paths as rt;
use crate::ir::{ExprKind, Map, MathFn, Sdfg, StatementKind, Stmt};
use proc_macro2::TokenStream;
use quote::quote;

/// `fn cpu_<entry>(args: &KernelArgs)` for the kernel `abi` describes.
pub(crate) fn kernel_twin(sdfg: &Sdfg, abi: &KernelAbi) -> TokenStream {
    let StatementKind::Map(m) = &sdfg.states[abi.state].stmts[abi.stmt].kind else {
        return TokenStream::new();
    };
    let args = names::twin_args();
    let workers = quote!(#args.workers());
    let (prologue, iteration) = if m.block.is_some() {
        // A block map's program (block data, thread maps, the GPU's
        // reduction order) is `block`'s; its block iterations are chunked
        // like a map's points. Its plan is the map's over the block
        // program, whose block parameters are the map's parameters (a
        // thread map's are locals): one task runs a whole block iteration,
        // so a buffer the program only reads is a plain slice, one whose
        // every access holds a block parameter plus an invariant in one
        // dimension (a row per block iteration) a plain view (two block
        // iterations, hence two chunks, never touch one element), and a
        // reduction into an element fixed for the map takes chunk partials
        // (each block's value after its tree goes to its chunk's partial,
        // see `thread_map`).
        let plan = twin_plan(sdfg, abi, m);
        let copies = closure_copies(sdfg, abi);
        let iteration = super::block::block_iterations(sdfg, abi, m, &plan, workers, copies);
        (prologue(sdfg, abi, &plan), iteration)
    } else {
        let plan = twin_plan(sdfg, abi, m);
        let access = Place::kernel_twin(sdfg, m.params.len(), &plan);
        let iteration = parallel_map(m, &access, &plan, RangeScope::Kernel, &abi.name, workers);
        (prologue(sdfg, abi, &plan), iteration)
    };
    let fname = names::kernel_twin(&abi.name);
    let fault = names::fault();
    let (kernel_args, fault_type, error) = (rt::kernel_args(), rt::check_fault(), rt::error());
    let body = quote! {
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
    };
    let with_fma = calls_mul_add(&m.body.stmts).then(|| {
        let has_fma = rt::has_fma();
        quote! {
            #[cfg(target_arch = "x86_64")]
            {
                // The twin again, compiled with FMA: each `mul_add` one
                // instruction instead of a call into libm (`has_fma` says
                // why); its closures inherit the target feature.
                #[target_feature(enable = "fma")]
                #[allow(unused_unsafe)]
                unsafe fn __with_fma(#args: &#kernel_args<'_>) {
                    #body
                }
                if #has_fma() {
                    // SAFETY: `has_fma` checked that this CPU executes FMA,
                    // the one requirement of a `target_feature` function.
                    unsafe { __with_fma(#args) };
                    return;
                }
            }
        }
    });
    quote! {
        pub(super) fn #fname(#args: &#kernel_args<'_>) {
            #with_fma
            #body
        }
    }
}

/// Whether statements `stmts` call `mul_add` (or `erf`, whose Rust program
/// is fused multiply-adds): a twin of a map whose body does has a second
/// copy compiled with FMA, and so does the host code of a program whose
/// `cpu`/`seq` maps or host tasklets do (`glue::states`).
pub(crate) fn calls_mul_add(stmts: &[Stmt]) -> bool {
    let mut found = false;
    for s in stmts {
        s.walk_exprs(&mut |e| {
            found |= matches!(
                e.kind,
                ExprKind::Call {
                    func: MathFn::MulAdd | MathFn::Erf,
                    ..
                }
            );
        });
    }
    found
}

/// The access plan of a (non-block) map's twin, within what the kernel's
/// ABI declared: a buffer passed read only is never written through a
/// plain view, and one passed for writing is never borrowed as a shared
/// slice.
fn twin_plan(sdfg: &Sdfg, abi: &KernelAbi, m: &Map) -> AccessPlan {
    let elem_of = |c: usize| sdfg.containers[c].elem;
    let mut plan = AccessPlan::of(&m.body, m.params.len(), &elem_of);
    if m.has_dependent_ranges() {
        plan.guard_all();
    }
    for p in &abi.params {
        if let ParamValue::Buffer { container, .. } = p.value {
            let Passing::Buffer { access, .. } = p.passing else {
                continue;
            };
            match (access, plan.mode(container)) {
                (BufferAccess::Read, Mode::Owned | Mode::Partials) => {
                    plan.set_mode(container, Mode::Cells)
                }
                (BufferAccess::Write | BufferAccess::ReadWrite, Mode::Read) => {
                    plan.set_mode(container, Mode::Owned)
                }
                _ => {}
            }
        }
    }
    plan
}

/// The twin's bindings of the kernel's arguments, by the names the body
/// (through `Place::kernel_twin`) reads them, each buffer as `plan` says.
fn prologue(sdfg: &Sdfg, abi: &KernelAbi, plan: &AccessPlan) -> TokenStream {
    let cname = |c: usize| sdfg.containers[c].name.text.as_str();
    let args = names::twin_args();
    let elem = rt::elem();
    let mut prologue = TokenStream::new();
    for (i, p) in abi.params.iter().enumerate() {
        let Some(name) = param_name(sdfg, &p.value) else {
            continue;
        };
        prologue.extend(match (&p.passing, &p.value) {
            (Passing::Buffer { elem: t, .. }, ParamValue::Buffer { container, .. }) => {
                let t = rust_type(*t);
                let view = rt::plain_view();
                match plan.mode(*container) {
                    // SAFETY (generated): the ABI passes this buffer read
                    // only and the body only loads it.
                    Mode::Read => quote!(let #name: &[#t] = unsafe { #args.plain_read::<#t>(#i) };),
                    // SAFETY (generated): the access plan proved that no two
                    // iterations touch one element (Owned), or that only the
                    // thread combining the partials after the map touches the
                    // buffer (Partials); the twin makes no other view of it.
                    Mode::Owned | Mode::Partials => {
                        quote!(let #name: #view<'_, #t> = unsafe { #args.plain_write::<#t>(#i) };)
                    }
                    Mode::Cells => {
                        quote!(let #name: &[<#t as #elem>::Cell] = #args.cells::<#t>(#i);)
                    }
                }
            }
            (Passing::Scalar(t), _) => {
                let t = rust_type(*t);
                quote!(let #name: #t = #args.value::<#t>(#i);)
            }
            // Faults are reported through `args` below.
            _ => TokenStream::new(),
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
            if plan.mode(container) != Mode::Cells {
                let (covers, d, what) = (
                    rt::assert_covers(),
                    names::data(cname(container)),
                    cname(container),
                );
                prologue.extend(quote!(#covers(#what, #d.len(), &#n);));
            }
        }
    }
    prologue
}

/// The name the twin's body (through `Place::kernel_twin`) reads a kernel
/// parameter's value by; None for the fault slot.
fn param_name(sdfg: &Sdfg, value: &ParamValue) -> Option<proc_macro2::Ident> {
    let cname = |c: usize| sdfg.containers[c].name.text.as_str();
    Some(match value {
        ParamValue::Buffer { container, .. } => names::data(cname(*container)),
        ParamValue::Extent { container, dim } => names::twin_extent(cname(*container), *dim),
        ParamValue::Symbol(s) => names::symbol(&sdfg.symbols[*s].name.text),
        ParamValue::HostScalar(c) => names::host_scalar(cname(*c)),
        ParamValue::RangeStart(d) => names::range(RangeScope::Kernel, *d).start,
        ParamValue::RangeCount(d) => names::range(RangeScope::Kernel, *d).count,
        ParamValue::RangeStep(d) => names::range(RangeScope::Kernel, *d).step,
        ParamValue::Fault => return None,
    })
}

/// Copies of the prologue's scalars and extents, for the top of a closure
/// that captures them by reference (a block team's member): read through
/// the closure's references, LLVM must load them again after every store
/// the body makes (the store might change them), which in the tiled
/// gemm's copy phases cost a load and a multiply per element moved;
/// local copies stay in registers.
fn closure_copies(sdfg: &Sdfg, abi: &KernelAbi) -> TokenStream {
    let mut out = TokenStream::new();
    for p in &abi.params {
        match (&p.passing, &p.value) {
            (Passing::Scalar(_), value) => {
                if let Some(name) = param_name(sdfg, value) {
                    out.extend(quote!(let #name = #name;));
                }
            }
            (Passing::Buffer { .. }, ParamValue::Buffer { container, .. }) => {
                let ext = names::extents(&sdfg.containers[*container].name.text);
                out.extend(quote!(let #ext = #ext;));
            }
            _ => {}
        }
    }
    out
}

/// The chunked loop of a parallel map over the ranges of `scope`, its
/// containers reached through `access` (laid out by `plan`), on `workers`:
/// one fast path for `cpu` maps and kernel twins. Reductions into partials
/// are combined after the map, in chunk order. A map without parameters
/// (a GPU tasklet) runs its body once.
pub(crate) fn parallel_map(
    m: &Map,
    access: &Place<'_>,
    plan: &AccessPlan,
    scope: RangeScope,
    what: &str,
    workers: TokenStream,
) -> TokenStream {
    if m.params.is_empty() {
        // A GPU tasklet: one iteration, on the calling thread. Its
        // `Partials` containers are then updated in place (one thread
        // touches them), its `Owned` ones trivially belong to it.
        return BodyEmitter::new(access, &m.body)
            .after_prechecks()
            .stmts(&m.body.stmts);
    }
    let ranges = MapRanges {
        map: m,
        scope,
        data: access,
    };
    // The glue prechecks no access of a map with a dependent range
    // (`ir::bounds::LoopScope::for_map`): each is checked here.
    let emit = BodyEmitter::new(access, &m.body);
    let emit = if m.has_dependent_ranges() {
        emit
    } else {
        emit.after_prechecks()
    };
    let emit = emit.with_partials(&plan.reductions);
    let (emit, code) = if worth_lanes(m, plan) {
        let emit = emit.lane_blocked();
        let block = emit.lane_block(&m.body.stmts, &ranges.lane_prelude());
        let (lanes, locals) = (emit.lanes(), emit.lane_locals());
        (
            emit,
            PointCode::Lanes {
                lanes,
                locals,
                block,
            },
        )
    } else {
        let code = emit.stmts(&m.body.stmts);
        (emit, PointCode::One(code))
    };
    if plan.reductions.is_empty() {
        return ranges.chunked(&code, what, workers, None, None);
    }
    let tuple = emit.partial_tuple();
    let results = ChunkResults {
        locals: emit.partial_locals(),
        result: tuple.clone(),
        pattern: tuple,
        combine: emit.combine_partials(),
    };
    ranges.chunked(&code, what, workers, Some(&results), None)
}
