//! The statements of a state arm: kernel launches (arguments in the
//! kernel's ABI order), host tasklets and `cpu`/`seq` maps (bodies from
//! [`crate::codegen::cpu`]), and copies.

use super::Glue;
use crate::codegen::abi::{BufferAccess, ParamValue, Passing};
use crate::codegen::cpu::access::{AccessPlan, Mode};
use crate::codegen::cpu::body::BodyEmitter;
use crate::codegen::cpu::place::Place;
use crate::codegen::cpu::ranges::MapRanges;
use crate::codegen::cpu::tokens::rust_type;
use crate::codegen::cpu::twin::parallel_map;
use crate::codegen::names::{self, RangeScope};
use crate::codegen::runtime_paths as rt;
use crate::ir::{
    ContainerId, Map, MapSchedule, StateId, Statement, StatementKind, StmtId, Storage, TaskletBody,
};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

impl Glue<'_> {
    pub(super) fn statement(&self, sid: StateId, k: StmtId, st: &Statement) -> TokenStream {
        match &st.kind {
            StatementKind::Map(m) if m.schedule == MapSchedule::Gpu => {
                self.kernel_launch(sid, k, st, m)
            }
            StatementKind::Map(m) => self.host_map(sid, k, st, m),
            StatementKind::Tasklet(t) => self.host_tasklet(sid, st, &t.name.text, &t.body),
            StatementKind::Copy(c) => self.copy(sid, k, st, c.src, c.dst),
            // Calls are inlined before code generation (validate rejects an
            // SDFG that still holds one).
            StatementKind::Wait(_) | StatementKind::Nested(_) => TokenStream::new(),
        }
    }

    /// The launch of a `gpu` map's kernel: each argument as its ABI
    /// parameter says, from where the glue holds that value.
    fn kernel_launch(&self, sid: StateId, k: StmtId, st: &Statement, m: &Map) -> TokenStream {
        let (index, _, _) = self.kernel(sid, k);
        let stream = self.stream_of(sid, k);
        let (config, args) = self.launch_parts(sid, k, st, m, false);
        let kernel_arg = rt::kernel_arg();
        quote! {{
            let __cfg = #config;
            let __args: &[#kernel_arg<'_>] = &[#(#args),*];
            // SAFETY: `__module` is this SDFG's module and `__args` is the
            // parameter list of kernel `#index`'s ABI, built by the generator
            // that wrote the kernel.
            unsafe { #stream.launch(__module, #index, &__cfg, __args) }?;
        }}
    }

    /// A `gpu` map's launch configuration and its kernel's arguments, in
    /// the ABI's order (a persistent kernel passes them on as its phase's,
    /// `phase`: sized for the phase's items per thread).
    pub(super) fn launch_parts(
        &self,
        sid: StateId,
        k: StmtId,
        st: &Statement,
        m: &Map,
        phase: bool,
    ) -> (TokenStream, Vec<TokenStream>) {
        let (_, abi, shape) = self.kernel(sid, k);
        let counts: Vec<_> = (0..m.params.len())
            .map(|d| names::range(RangeScope::Statement(k), d).count)
            .collect();
        // A phase of a persistent kernel runs in its own shape.
        let run = shape.launch_shape(phase);
        let [bx, by, bz] = run.block;
        let (ipt, rows) = (run.items_per_thread, run.rows_per_thread);
        let kernel_arg = rt::kernel_arg();
        let args: Vec<TokenStream> = abi
            .params
            .iter()
            .map(|p| {
                let value = match &p.value {
                    ParamValue::Buffer { container, .. } => {
                        let g = names::gpu_ref(self.cname(*container));
                        quote!(#g)
                    }
                    ParamValue::Extent { container, dim } => {
                        let e = names::extents(self.cname(*container));
                        quote!(#e[#dim])
                    }
                    ParamValue::Symbol(s) => {
                        let v = self.sym(*s);
                        quote!(#v)
                    }
                    // Read on the host at the launch: spanned at the map's
                    // read, where a value still in flight is reported.
                    ParamValue::HostScalar(c) => {
                        let span = st
                            .memlets
                            .iter()
                            .find(|mm| mm.container == *c)
                            .map_or(st.span, |mm| mm.span);
                        let v = names::host_var(self.cname(*c), span);
                        let host_read = rt::at(span, rt::host_read());
                        quote_spanned!(span=> #host_read(&#v)[0])
                    }
                    ParamValue::RangeStart(d) => {
                        let v = names::range(RangeScope::Statement(k), *d).start;
                        quote!(#v)
                    }
                    ParamValue::RangeCount(d) => {
                        let v = names::range(RangeScope::Statement(k), *d).count;
                        quote!(#v)
                    }
                    ParamValue::RangeStep(d) => {
                        let v = names::range(RangeScope::Statement(k), *d).step;
                        quote!(#v)
                    }
                    ParamValue::Fault => TokenStream::new(),
                };
                match p.passing {
                    Passing::Buffer { access, .. } => match access {
                        BufferAccess::ReadWrite => quote!(#kernel_arg::read_write(#value)),
                        BufferAccess::Write => quote!(#kernel_arg::write(#value)),
                        BufferAccess::Read => quote!(#kernel_arg::read(#value)),
                    },
                    // The call's own slot: its `wait()` reports the fault.
                    Passing::FaultWord => quote!(__cx.fault_arg()),
                    Passing::Scalar(t) => {
                        let t = rust_type(t);
                        quote!(#kernel_arg::value((#value) as #t))
                    }
                }
            })
            .collect();
        let launch_config = rt::launch_config();
        let config = if m.block.is_some() {
            let state_name = &self.sdfg.states[sid].name.text;
            self.block_launch_config(k, m, shape, state_name)
        } else if run.rows_in_z {
            quote!(#launch_config::for_tiles_in_z(__device, &[#(#counts),*], [#bx, #by, #bz], #ipt, #rows))
        } else {
            quote!(#launch_config::for_tiles(__device, &[#(#counts),*], [#bx, #by, #bz], #ipt, #rows))
        };
        (config, args)
    }

    /// Binds each container a host statement touches: `&[T]` to read,
    /// `&mut [T]` to write; in a `cpu` map (`plan`), what the access plan
    /// says: a plain view of what the iterations own or reduce into, atomic
    /// cells where they may share elements (`codegen::cpu::access`). The
    /// read/write calls are spanned at the user's first access, so a
    /// container still in flight is reported there.
    fn host_bindings(&self, st: &Statement, plan: Option<&AccessPlan>) -> TokenStream {
        let mut out = TokenStream::new();
        let mut done: Vec<ContainerId> = Vec::new();
        for m in &st.memlets {
            let c = m.container;
            if done.contains(&c) || !self.sdfg.containers[c].storage.is_host() {
                continue;
            }
            done.push(c);
            let written = st
                .memlets
                .iter()
                .any(|x| x.container == c && x.access.is_write());
            let v = names::host_var(self.cname(c), m.span);
            let name = names::data(self.cname(c));
            let (host_read, host_write, to_cells, view) = (
                rt::at(m.span, rt::host_read()),
                rt::at(m.span, rt::host_write()),
                rt::at(m.span, rt::cells()),
                rt::plain_view(),
            );
            let mode = match (plan, written) {
                (Some(plan), true) => match plan.mode(c) {
                    Mode::Read => Mode::Owned,
                    mode => mode,
                },
                (Some(_), false) => Mode::Read,
                (None, _) => {
                    out.extend(if written {
                        quote_spanned!(m.span=> let #name = #host_write(&mut #v);)
                    } else {
                        quote_spanned!(m.span=> let #name = #host_read(&#v);)
                    });
                    continue;
                }
            };
            out.extend(match mode {
                Mode::Read => quote_spanned!(m.span=> let #name = #host_read(&#v);),
                Mode::Owned | Mode::Partials => {
                    quote_spanned!(m.span=> let #name = #view::new(#host_write(&mut #v));)
                }
                Mode::Cells => {
                    quote_spanned!(m.span=> let #name = #to_cells(#host_write(&mut #v));)
                }
            });
            if mode != Mode::Cells {
                let (covers, ext, what) = (
                    rt::assert_covers(),
                    names::extents(self.cname(c)),
                    self.cname(c),
                );
                out.extend(quote!(#covers(#what, #name.len(), &#ext);));
            }
        }
        out
    }

    fn host_tasklet(
        &self,
        sid: StateId,
        st: &Statement,
        name: &str,
        body: &TaskletBody,
    ) -> TokenStream {
        let bindings = self.host_bindings(st, None);
        let access = Place::host(self.sdfg);
        let code = BodyEmitter::new(&access, body)
            .after_prechecks()
            .stmts(&body.stmts);
        let what = format!(
            "tasklet `{name}` in state `{}`",
            self.sdfg.states[sid].name.text
        );
        let descs = self.access_sites(body);
        let (fault, fault_type) = (names::fault(), rt::check_fault());
        quote! {{
            #bindings
            let #fault = #fault_type::new();
            { #code }
            #fault.check(#what, &[#(#descs),*])?;
        }}
    }

    /// A `seq` map as nested loops, or a `cpu` map in chunks on the
    /// caller's rayon pool (the fast path kernel twins share).
    fn host_map(&self, sid: StateId, k: StmtId, st: &Statement, m: &Map) -> TokenStream {
        let what = format!(
            "map `{}` in state `{}`",
            m.name.text, self.sdfg.states[sid].name.text
        );
        let descs = self.access_sites(&m.body);
        let scope = RangeScope::Statement(k);
        let (bindings, iteration) = if m.schedule == MapSchedule::Cpu {
            let elem_of = |c: ContainerId| self.sdfg.containers[c].elem;
            let mut plan = AccessPlan::of(&m.body, m.params.len(), &elem_of);
            if m.has_dependent_ranges() {
                plan.guard_all();
            }
            let access = Place::parallel_map(self.sdfg, m.params.len(), &plan);
            let workers = rt::par_workers();
            let iteration =
                parallel_map(m, &access, &plan, scope, &what, quote!(#workers::caller()));
            (self.host_bindings(st, Some(&plan)), iteration)
        } else {
            let access = Place::sequential_map(self.sdfg, m.params.len());
            // The glue prechecks no access of a map with a dependent range
            // (`ir::bounds::LoopScope::for_map`): each is checked here.
            let emit = BodyEmitter::new(&access, &m.body);
            let emit = if m.has_dependent_ranges() {
                emit
            } else {
                emit.after_prechecks()
            };
            let code = emit.stmts(&m.body.stmts);
            let ranges = MapRanges {
                map: m,
                scope,
                data: &access,
            };
            (self.host_bindings(st, None), ranges.sequential(&code))
        };
        let (fault, fault_type) = (names::fault(), rt::check_fault());
        quote! {{
            #bindings
            let __fault_owner = #fault_type::new();
            let #fault = &__fault_owner;
            #iteration
            __fault_owner.check(#what, &[#(#descs),*])?;
        }}
    }

    fn copy(
        &self,
        sid: StateId,
        k: StmtId,
        st: &Statement,
        src: ContainerId,
        dst: ContainerId,
    ) -> TokenStream {
        let (rs, rd) = names::copy_regions(k);
        let (ss, ds) = (
            self.sdfg.containers[src].storage,
            self.sdfg.containers[dst].storage,
        );
        let src_span = st.memlets.first().map_or(st.span, |m| m.span);
        let dst_span = st.memlets.get(1).map_or(st.span, |m| m.span);
        let (src_name, dst_name) = (self.cname(src), self.cname(dst));
        match (ss, ds) {
            (Storage::Gpu, Storage::Gpu) => {
                let stream = self.stream_of(sid, k);
                let (a, b) = (names::gpu_ref(src_name), names::gpu_ref(dst_name));
                quote!(#stream.copy_device(#a, &#rs, #b, &#rd)?;)
            }
            (_, Storage::Gpu) => {
                let stream = self.stream_of(sid, k);
                let v = names::host_var(src_name, src_span);
                let b = names::gpu_ref(dst_name);
                quote_spanned!(src_span=> #stream.copy_to_device(&#v, &#rs, #b, &#rd)?;)
            }
            (Storage::Gpu, _) => {
                let stream = self.stream_of(sid, k);
                let a = names::gpu_ref(src_name);
                let v = names::host_var(dst_name, dst_span);
                let call = match (self.sdfg.containers[dst].transient, ds) {
                    (true, _) => quote!(copy_to_host),
                    (false, Storage::Pinned) => quote!(copy_to_host_buffer),
                    (false, _) => quote!(copy_to_slice),
                };
                quote_spanned!(dst_span=> let mut #v = #stream.#call(#a, &#rs, #v, &#rd)?;)
            }
            _ if src == dst => {
                let v = names::host_var(src_name, src_span);
                let within = rt::at(src_span, rt::check_host_copy_within());
                let host_write = rt::at(src_span, rt::host_write());
                quote_spanned!(src_span=> #within(#host_write(&mut #v), &#rs, &#rd)?;)
            }
            _ => {
                let a = names::host_var(src_name, src_span);
                let b = names::host_var(dst_name, dst_span);
                let host_read = rt::at(src_span, rt::host_read());
                let host_write = rt::at(dst_span, rt::host_write());
                let read = quote_spanned!(src_span=> #host_read(&#a));
                let write = quote_spanned!(dst_span=> #host_write(&mut #b));
                let host_copy = rt::check_host_copy();
                quote!(#host_copy(#read, &#rs, #write, &#rd)?;)
            }
        }
    }
}
