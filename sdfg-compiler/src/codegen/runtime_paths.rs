//! Every path from generated code into the facade crate `sdfg`: the runtime
//! the glue and the kernel twins run on, and the introspection macro. This
//! page is the whole seam between the compiler and the runtime; no other
//! code generator spells such a path (they call the functions below), so a
//! runtime item that moves changes one line here.
//!
//! Generated code lives in the user's crate and reaches the runtime through
//! the facade (`::sdfg::runtime`), the one crate users depend on. What only
//! generated code uses is in the runtime's `#[doc(hidden)] __glue` module.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::quote;

/// `path` with every token at `span`: for a call on the user's data, so
/// that rustc's notes about the call ("required by a bound introduced by
/// this call") point at the user's tokens, like the error itself.
pub(crate) fn at(span: Span, path: TokenStream) -> TokenStream {
    path.into_iter()
        .map(|mut t| {
            if let TokenTree::Group(g) = &t {
                let mut g = proc_macro2::Group::new(g.delimiter(), at(span, g.stream()));
                g.set_span(span);
                t = TokenTree::Group(g);
            } else {
                t.set_span(span);
            }
            t
        })
        .collect()
}

macro_rules! paths {
    ($($(#[doc = $doc:literal])* $name:ident => [$($path:tt)+];)*) => {
        $(
            $(#[doc = $doc])*
            pub(crate) fn $name() -> TokenStream {
                quote!($($path)+)
            }
        )*
    };
}

paths! {
    // The user's API: what `Args`, `load`, `run` and `launch` mention.
    device => [::sdfg::runtime::Device];
    error => [::sdfg::runtime::Error];
    stream => [::sdfg::runtime::Stream];
    running => [::sdfg::runtime::Running];
    /// Where a loaded module's kernels came from (cubin, cache, JIT, twins).
    module_origin => [::sdfg::runtime::ModuleOrigin];
    device_buffer => [::sdfg::runtime::DeviceBuffer];
    host_buffer => [::sdfg::runtime::HostBuffer];
    /// `host_read(&x) -> &[T]`: not implemented for `Pending`, so a read of
    /// data still in flight is a type error at the user's tokens.
    host_read => [::sdfg::runtime::host_read];
    host_write => [::sdfg::runtime::host_write];

    // Launching a kernel (public: raw PTX users launch too).
    launch_config => [::sdfg::runtime::LaunchConfig];
    /// `KernelArg::{read, write, read_write, value, fault}`.
    kernel_arg => [::sdfg::runtime::KernelArg];

    // What only the glue uses: a loaded program and its calls.
    /// `unsafe Program::load(device, &SPEC)`.
    program => [::sdfg::runtime::__glue::Program];
    /// `unsafe ProgramSpec::new(name, ptx, &KERNELS, streams).with_sites(&SITES)`.
    program_spec => [::sdfg::runtime::__glue::ProgramSpec];
    /// `StreamSpec::Default` / `StreamSpec::Created(n)`.
    stream_spec => [::sdfg::runtime::__glue::StreamSpec];
    kernel_entry => [::sdfg::runtime::__glue::KernelEntry];
    context_guard => [::sdfg::runtime::__glue::ContextGuard];
    /// `DeferWakes::new()`: a `run()` waits for its own work (`cpu::worker`).
    defer_wakes => [::sdfg::runtime::__glue::DeferWakes];
    /// `GraphStep::{Streams, Record, Ran, Restart}`: a graph segment's next step.
    graph_step => [::sdfg::runtime::__glue::GraphStep];
    /// Ends a recording an error left (`GraphGuard::default()`).
    graph_guard => [::sdfg::runtime::__glue::GraphGuard];
    /// `PersistentPhase { kernel, name, twin, first, count }`: a phase of a
    /// persistent kernel's CPU twin.
    persistent_phase => [::sdfg::runtime::__glue::persistent::PersistentPhase];
    /// `run_phases(args, &phases, iterations)`: a persistent kernel's twin.
    persistent_run_phases => [::sdfg::runtime::__glue::persistent::run_phases];
    /// `persistent_config(&[phase configs]) -> LaunchConfig`.
    persistent_config => [::sdfg::runtime::__glue::persistent::persistent_config];

    // What kernel twins and host maps use.
    kernel_args => [::sdfg::runtime::__glue::KernelArgs];
    /// `Elem::{Cell, load, store}`.
    elem => [::sdfg::runtime::Elem];
    /// `NumElem::reduce_{sum, product, min, max}`.
    num_elem => [::sdfg::runtime::NumElem];
    /// `MinMaxNumber::{min_number, max_number}` (IEEE minimumNumber).
    min_max_number => [::sdfg::runtime::MinMaxNumber];
    /// `FoldKey::{max_key, from_max_key, min_key, from_min_key}`: a float
    /// `min`/`max` loop folded in integer keys (vectorizes).
    fold_key => [::sdfg::runtime::__glue::fold::FoldKey];
    /// `SumElem::reduce_sum` (every type a `+=` reduction takes, complex too).
    sum_elem => [::sdfg::runtime::SumElem];
    /// `num_complex::Complex`, the complex types `c32`/`c64`.
    complex => [::sdfg::runtime::num_complex::Complex];
    /// The `half` crate, the 16-bit floats `f16`/`bf16`.
    half => [::sdfg::runtime::half];
    /// `f32_round_to_odd`: f64 -> f16/bf16 with one rounding.
    f32_round_to_odd => [::sdfg::runtime::__glue::f32_round_to_odd];
    cells => [::sdfg::runtime::__glue::cells];
    /// `Chunks::new(units, unit_len, grain, workers)`: a map's chunks.
    par_chunks => [::sdfg::runtime::__glue::par::Chunks];
    /// `Workers::caller()`: a `cpu` map's threads (a twin's: `args.workers()`).
    par_workers => [::sdfg::runtime::__glue::par::Workers];
    par_for_each_chunk => [::sdfg::runtime::__glue::par::for_each_chunk];
    /// Per-chunk results in chunk order (reductions into partials).
    par_map_chunks => [::sdfg::runtime::__glue::par::map_chunks];
    /// Plain loads and stores of a map's own elements.
    plain_view => [::sdfg::runtime::__glue::par::PlainView];
    /// `assert_covers(name, len, &extents)` before unchecked offsets.
    assert_covers => [::sdfg::runtime::__glue::par::assert_covers];
    /// `has_fma()`: whether a twin runs its copy compiled with FMA.
    has_fma => [::sdfg::runtime::__glue::par::has_fma];
    /// Block maps: `threads(what, dims)`, `launched(threads)`,
    /// `one_iteration_per_thread(what, n, threads)`, `tree(parts, combine)`.
    block => [::sdfg::runtime::__glue::block];

    // Run-time checks: argument lengths, ranges, indices, copy regions.
    check_shape_len => [::sdfg::runtime::__glue::check::shape_len];
    check_extents => [::sdfg::runtime::__glue::check::extents];
    check_device_buffer => [::sdfg::runtime::__glue::check::device_buffer];
    check_host_len => [::sdfg::runtime::__glue::check::host_len];
    check_host_buffer => [::sdfg::runtime::__glue::check::host_buffer];
    check_range_count => [::sdfg::runtime::__glue::check::range_count];
    /// `binding_extent(what, declared, bound)`: a nested call's extent.
    check_binding_extent => [::sdfg::runtime::__glue::check::binding_extent];
    check_total_iterations => [::sdfg::runtime::__glue::check::total_iterations];
    check_index => [::sdfg::runtime::__glue::check::index];
    check_index_in_dim => [::sdfg::runtime::__glue::check::index_in_dim];
    /// `Interval::{point, strided, of_loop}`.
    interval => [::sdfg::runtime::__glue::interval::Interval];
    /// The steps of an index's interval plan.
    interval_op => [::sdfg::runtime::__glue::interval::IntervalOp];
    interval_int_type => [::sdfg::runtime::__glue::interval::IntType];
    /// `index_range(what, ops, points, vars) -> Result<Interval, Error>`.
    interval_index_range => [::sdfg::runtime::__glue::interval::index_range];
    check_copy_side => [::sdfg::runtime::__glue::check::CopySide];
    check_copy_regions => [::sdfg::runtime::__glue::check::copy_regions];
    check_host_copy => [::sdfg::runtime::__glue::check::host_copy];
    check_host_copy_within => [::sdfg::runtime::__glue::check::host_copy_within];
    /// `flat_index(&[i64], &[usize]) -> i64`: the row-major index a fault reports.
    check_flat_index => [::sdfg::runtime::__glue::check::flat_index];
    /// `Fault::{new, raise, first, check}`: out-of-bounds accesses of host
    /// code and CPU twins.
    check_fault => [::sdfg::runtime::__glue::check::Fault];
    /// `AccessSite { container, write, rank }`: what an access code means.
    access_site => [::sdfg::runtime::__glue::AccessSite];
    /// `KernelSites { map, state, accesses }`: what a kernel's access codes mean.
    kernel_sites => [::sdfg::runtime::__glue::KernelSites];

    /// The macro itself: a program's replay macro invokes it again on the
    /// caller's tokens (`codegen::replay`).
    sdfg_macro => [::sdfg::sdfg];

    /// `Name::ir()` and `Name::schedule()` when the facade's `introspect`
    /// feature is on, nothing otherwise (decided in the facade, not by the
    /// features of the user's crate the code expands in).
    introspection_methods => [::sdfg::__introspection_methods];
}
