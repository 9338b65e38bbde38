//! The host glue: the items `sdfg!` expands to (DESIGN section 4) and the
//! state machine that runs the SDFG, written against sdfg-runtime.
//!
//! The proof the project rests on lives here: host data that a stream is
//! still writing is held in a `Pending<_>` binding, which the host-read
//! traits do not accept. The schedule's sync points become `.wait()` calls;
//! had the schedule (or the user, in `#[sync(manual)]`) missed one, the read
//! that follows would not type-check, and rustc reports it at the user's
//! tokens because those reads are spanned there.
//!
//! Shape of a call: check arguments, take a context (streams, transients),
//! then `loop { match state { ... } }` where each state arm prechecks its
//! ranges and indices, moves the host containers into local bindings,
//! issues its statements in textual order (waiting at sync points), settles
//! what is still in flight, moves the containers back and tries its edges.

use super::kernel_abi::KernelParam;
use super::ptx::{PtxKernel, PtxModule};
use super::rust_body::{literal, rust_type, zero_of, BodyEmitter, DataAccess};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::bounds::{for_each_access, AccessSite};
use crate::ir::{
    ContainerId, Expr, ExprKind, Map, MapSchedule, ScalarType, Sdfg, State, StateId, Statement,
    StatementKind, StmtId, Storage, SubsetDim, SymbolId, TaskletBody, UnOp, VarRef, WcrOp,
};
use crate::schedule::{Schedule, SyncSite};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

/// Everything `sdfg!` expands to for one SDFG.
pub fn generate(
    sdfg: &Sdfg,
    schedule: &Schedule,
    ptx: &PtxModule,
    texts: &Texts,
) -> Result<TokenStream, Diagnostics> {
    check_supported(sdfg)?;
    let g = Glue {
        empty: TaskletBody::default(),
        sdfg,
        schedule,
        ptx,
    };
    Ok(g.items(texts))
}

/// Text constants the generated type carries besides its PTX.
pub struct Texts {
    /// The `sdfg!` input, for `Name::ir()`.
    pub source: String,
    /// Graphviz drawing with the schedule (`Name::to_dot()`).
    pub dot: String,
    /// DaCe `.sdfg` JSON (`Name::to_sdfg_json()`).
    pub sdfg_json: String,
}

/// What the glue cannot express yet, as compile errors at the user's tokens.
fn check_supported(sdfg: &Sdfg) -> Result<(), Diagnostics> {
    let mut diags = Diagnostics::new();
    let assigned: Vec<SymbolId> = sdfg
        .edges
        .iter()
        .flat_map(|e| e.assignments.iter().map(|a| a.0))
        .collect();
    for c in &sdfg.containers {
        for dim in &c.shape {
            dim.walk(&mut |e| {
                if let ExprKind::Var(VarRef::Symbol(s)) = e.kind {
                    if assigned.contains(&s) {
                        let sym = &sdfg.symbols[s].name.text;
                        diags.push(
                            Diagnostic::error(e.span, format!("the shape of `{}` uses `{sym}`, which an interstate edge assigns", c.name.text))
                                .help("shapes are fixed for a whole run: use a declared symbol that no edge assigns"),
                        );
                    }
                }
            });
        }
    }
    diags.finish(())
}

struct Glue<'a> {
    /// The body of expressions outside tasklets (shapes, ranges, edges).
    empty: TaskletBody,
    sdfg: &'a Sdfg,
    schedule: &'a Schedule,
    ptx: &'a PtxModule,
}

fn ident(prefix: &str, name: &str) -> Ident {
    format_ident!("{}{}", prefix, name)
}

impl<'a> Glue<'a> {
    fn sym(&self, s: SymbolId) -> Ident {
        ident("__sym_", &self.sdfg.symbols[s].name.text)
    }
    fn cname(&self, c: ContainerId) -> &str {
        &self.sdfg.containers[c].name.text
    }
    /// The binding of a host container inside a state arm.
    fn host_var(&self, c: ContainerId, span: Span) -> Ident {
        Ident::new(&format!("__v_{}", self.cname(c)), span)
    }
    /// The binding of a host container between states.
    fn host_slot(&self, c: ContainerId) -> Ident {
        ident("__h_", self.cname(c))
    }
    /// `&DeviceBuffer<T>` of a GPU container.
    fn gpu_ref(&self, c: ContainerId) -> Ident {
        ident("__g_", self.cname(c))
    }
    fn extents(&self, c: ContainerId) -> Ident {
        ident("__ext_", self.cname(c))
    }
    fn len(&self, c: ContainerId) -> Ident {
        ident("__len_", self.cname(c))
    }
    fn elem(&self, c: ContainerId) -> TokenStream {
        rust_type(self.sdfg.containers[c].elem)
    }
    fn writes(&self, c: ContainerId) -> bool {
        self.sdfg
            .states
            .iter()
            .flat_map(|s| &s.stmts)
            .flat_map(|st| &st.memlets)
            .any(|m| m.container == c && m.access.is_write())
    }
    fn host_containers(&self) -> impl Iterator<Item = ContainerId> + '_ {
        (0..self.sdfg.containers.len()).filter(|&c| self.sdfg.containers[c].storage.is_host())
    }
    fn args_have_refs(&self) -> bool {
        self.sdfg.containers.iter().any(|c| !c.transient)
    }

    fn items(&self, texts: &Texts) -> TokenStream {
        let source = &texts.source;
        let dot = &texts.dot;
        let sdfg_json = &texts.sdfg_json;
        let sdfg = self.sdfg;
        let name = format_ident!("{}", sdfg.name.text, span = sdfg.name.span);
        let args_name = format_ident!("{}Args", sdfg.name.text, span = sdfg.name.span);
        let private = format_ident!("__sdfg_{}", sdfg.name.text);
        let vis = &sdfg.vis;
        let docs = &sdfg.docs;
        let name_str = &sdfg.name.text;
        let ptx_text = &self.ptx.text;
        let lt = if self.args_have_refs() {
            quote!(<'a>)
        } else {
            quote!()
        };
        let lt_anon = if self.args_have_refs() {
            quote!(<'_>)
        } else {
            quote!()
        };

        let fields = self.arg_fields();
        let twins: Vec<TokenStream> = self.ptx.kernels.iter().map(|k| self.cpu_twin(k)).collect();
        let entries: Vec<TokenStream> = self
            .ptx
            .kernels
            .iter()
            .map(|k| {
                let n = &k.abi.name;
                let f = format_ident!("cpu_{}", k.abi.name);
                quote!(::sdfg::runtime::__glue::KernelEntry { name: #n, cpu: #f })
            })
            .collect();
        let nkernels = entries.len();
        let streams = match self.schedule.num_streams {
            0 => quote!(::sdfg::runtime::__glue::StreamSpec::Default),
            n => quote!(::sdfg::runtime::__glue::StreamSpec::Created(#n)),
        };
        let execute = self.execute_fn(&args_name);
        let doc_run = format!("Runs `{name_str}` to completion: returns when every result is complete and visible where it lives.");
        quote! {
            #(#[doc = #docs])*
            #vis struct #name {
                __program: ::sdfg::runtime::__glue::Program,
            }

            #[doc = concat!("Arguments of [`", #name_str, "`]: its free symbols by value and its non-transient containers.")]
            #[allow(non_snake_case)]
            #vis struct #args_name #lt {
                #fields
            }

            #[doc(hidden)]
            #[allow(non_snake_case, non_upper_case_globals, unused_variables, unused_mut, unused_parens, clippy::all)]
            mod #private {
                #[allow(unused_imports)]
                use super::*;
                pub(super) static KERNELS: [::sdfg::runtime::__glue::KernelEntry; #nkernels] = [#(#entries),*];
                // SAFETY: the PTX, the kernel table and the glue that launches
                // them are generated together from this one SDFG: each launch
                // passes its kernel's ABI parameters, bounds are prechecked or
                // guarded in the kernel.
                pub(super) static SPEC: ::sdfg::runtime::__glue::ProgramSpec = unsafe {
                    ::sdfg::runtime::__glue::ProgramSpec::new(#name_str, #ptx_text, &KERNELS, #streams)
                };
                #(#twins)*
            }

            #[allow(non_snake_case, dead_code)]
            impl #name {
                /// The PTX module of this SDFG's `gpu` maps (one kernel per map).
                pub const PTX: &'static str = #ptx_text;
                /// The `sdfg!` source this was generated from (for [`Self::ir`]).
                pub const SOURCE: &'static str = #source;

                /// Loads the program on `device` (the PTX module is JIT-compiled once per device and cached).
                pub fn load(device: &::sdfg::runtime::Device) -> ::core::result::Result<Self, ::sdfg::runtime::Error> {
                    // SAFETY: `SPEC` is this SDFG's generated spec (see its SAFETY above).
                    let __program = unsafe { ::sdfg::runtime::__glue::Program::load(device, &#private::SPEC) }?;
                    ::core::result::Result::Ok(Self { __program })
                }

                /// The device this program runs on.
                pub fn device(&self) -> &::sdfg::runtime::Device {
                    self.__program.device()
                }

                #[doc = #doc_run]
                pub fn run(&self, args: #args_name #lt_anon) -> ::core::result::Result<(), ::sdfg::runtime::Error> {
                    self.launch(args)?.wait()
                }

                /// Like `run`, with all GPU work on the caller's `stream`.
                pub fn run_on(&self, stream: &::sdfg::runtime::Stream, args: #args_name #lt_anon) -> ::core::result::Result<(), ::sdfg::runtime::Error> {
                    self.launch_on(stream, args)?.wait()
                }

                /// Starts the SDFG and returns as early as correctness allows; the
                /// `Running` borrows the arguments until `.wait()` (dropping it waits too).
                pub fn launch<'a>(&'a self, args: #args_name #lt) -> ::core::result::Result<::sdfg::runtime::Running<'a>, ::sdfg::runtime::Error> {
                    let cx = self.__program.context()?;
                    self.__execute(cx, args)
                }

                /// Like `launch`, with all GPU work on the caller's `stream`.
                pub fn launch_on<'a>(&'a self, stream: &::sdfg::runtime::Stream, args: #args_name #lt) -> ::core::result::Result<::sdfg::runtime::Running<'a>, ::sdfg::runtime::Error> {
                    let cx = self.__program.context_on(stream)?;
                    self.__execute(cx, args)
                }

                /// The SDFG's IR, rebuilt from [`Self::SOURCE`].
                pub fn ir() -> ::core::result::Result<::sdfg::compiler::ir::Sdfg, ::sdfg::compiler::Diagnostics> {
                    ::sdfg::compiler::frontend_str(Self::SOURCE)
                }

                /// The stream assignment, events and sync points the glue uses.
                pub fn schedule() -> ::core::result::Result<::sdfg::compiler::schedule::Schedule, ::sdfg::compiler::Diagnostics> {
                    Self::ir().map(|ir| ::sdfg::compiler::schedule::schedule(&ir))
                }

                /// A Graphviz drawing of the SDFG with its streams, events and sync
                /// points (`dot -Tsvg` renders it).
                pub fn to_dot() -> &'static str {
                    #dot
                }

                /// The SDFG in DaCe's `.sdfg` JSON format (`dace.SDFG.from_file` loads it).
                pub fn to_sdfg_json() -> &'static str {
                    #sdfg_json
                }

                #execute
            }
        }
    }

    fn arg_fields(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for s in self.sdfg.symbols.iter().filter(|s| s.declared) {
            let n = format_ident!("{}", s.name.text, span = s.name.span);
            let t = rust_type(s.ty);
            out.extend(quote!(pub #n: #t,));
        }
        for (c, cont) in self
            .sdfg
            .containers
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.transient)
        {
            let n = format_ident!("{}", cont.name.text, span = cont.name.span);
            let t = self.elem(c);
            let ty = match (cont.storage, self.writes(c)) {
                (Storage::Gpu, true) => quote!(&'a mut ::sdfg::runtime::DeviceBuffer<#t>),
                (Storage::Gpu, false) => quote!(&'a ::sdfg::runtime::DeviceBuffer<#t>),
                (Storage::Pinned, true) => quote!(&'a mut ::sdfg::runtime::HostBuffer<#t>),
                (Storage::Pinned, false) => quote!(&'a ::sdfg::runtime::HostBuffer<#t>),
                (Storage::Host, true) => quote!(&'a mut [#t]),
                (Storage::Host, false) => quote!(&'a [#t]),
                // Block data is transient: never an argument.
                (Storage::Shared | Storage::Register, _) => continue,
            };
            out.extend(quote!(pub #n: #ty,));
        }
        out
    }

    /// The body of a call: argument checks, transients, the state machine.
    fn execute_fn(&self, args_name: &Ident) -> TokenStream {
        let sdfg = self.sdfg;
        let lt = if self.args_have_refs() {
            quote!(<'a>)
        } else {
            quote!()
        };
        let field_names: Vec<Ident> = sdfg
            .symbols
            .iter()
            .filter(|s| s.declared)
            .map(|s| format_ident!("{}", s.name.text))
            .chain(
                sdfg.containers
                    .iter()
                    .filter(|c| !c.transient)
                    .map(|c| format_ident!("{}", c.name.text)),
            )
            .collect();

        let mut setup = TokenStream::new();
        for (s, sym) in sdfg.symbols.iter().enumerate() {
            let v = self.sym(s);
            let t = rust_type(sym.ty);
            if sym.declared {
                let n = format_ident!("{}", sym.name.text);
                setup.extend(quote!(let mut #v: #t = #n;));
            } else {
                let z = literal(zero_of(sym.ty));
                setup.extend(quote!(let mut #v: #t = #z;));
            }
        }
        // Shapes are fixed for the run (check_supported): evaluate them once.
        let symbols_only = Place::symbols_only(self);
        for (c, cont) in sdfg.containers.iter().enumerate() {
            let ext = self.extents(c);
            let len = self.len(c);
            let name = &cont.name.text;
            let dims: Vec<TokenStream> = cont
                .shape
                .iter()
                .map(|d| {
                    let e = BodyEmitter::new(&symbols_only, &self.empty).expr(d);
                    quote!((#e) as i128)
                })
                .collect();
            let n = dims.len();
            setup.extend(quote! {
                let #ext: [usize; #n] = {
                    let __dims: [i128; #n] = [#(#dims),*];
                    ::sdfg::runtime::__glue::check::shape_len(#name, &__dims)?;
                    ::sdfg::runtime::__glue::check::extents(__dims)
                };
                let #len: usize = #ext.iter().product();
            });
        }
        // Argument checks, before any work.
        for (c, cont) in sdfg
            .containers
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.transient)
        {
            let n = format_ident!("{}", cont.name.text);
            let name = &cont.name.text;
            let len = self.len(c);
            setup.extend(match cont.storage {
                Storage::Gpu => quote!(::sdfg::runtime::__glue::check::device_buffer(#name, &*#n, self.__program.device(), #len)?;),
                _ => quote!(::sdfg::runtime::__glue::check::host_len(#name, #n.len(), #len)?;),
            });
        }
        // Transients, then the bindings the states use.
        let mut teardown = TokenStream::new();
        // Device transients are allocated first (that needs the context
        // mutably), then borrowed for the whole call.
        let mut prepare = TokenStream::new();
        let mut refs = TokenStream::new();
        let (mut host_slot, mut dev_slot) = (0usize, 0usize);
        for (c, cont) in sdfg.containers.iter().enumerate() {
            let len = self.len(c);
            let t = self.elem(c);
            match (cont.transient, cont.storage) {
                // Block data lives in its kernel (or its CPU twin's task).
                (_, Storage::Shared | Storage::Register) => {}
                (true, Storage::Gpu) => {
                    let r = self.gpu_ref(c);
                    prepare.extend(quote!(__cx.prepare_device_transient::<#t>(#dev_slot, #len)?;));
                    refs.extend(quote! {
                        let #r: &::sdfg::runtime::DeviceBuffer<#t> = __cx.device_transient_ref::<#t>(#dev_slot);
                    });
                    dev_slot += 1;
                }
                (true, _) => {
                    let slot = self.host_slot(c);
                    setup.extend(quote! {
                        let mut #slot: ::sdfg::runtime::HostBuffer<#t> = __cx.take_host_transient::<#t>(#host_slot, #len)?;
                    });
                    teardown.extend(quote!(__cx.put_host_transient(#host_slot, #slot);));
                    host_slot += 1;
                }
                (false, Storage::Gpu) => {
                    let n = format_ident!("{}", cont.name.text);
                    let r = self.gpu_ref(c);
                    setup.extend(quote!(let #r: &::sdfg::runtime::DeviceBuffer<#t> = &*#n;));
                }
                (false, _) => {
                    let n = format_ident!("{}", cont.name.text);
                    let slot = self.host_slot(c);
                    setup.extend(quote!(let mut #slot = #n;));
                }
            }
        }
        setup.extend(prepare);
        setup.extend(refs);
        let nstreams = self.schedule.num_streams.max(1);
        for k in 0..nstreams {
            let s = format_ident!("__s{}", k);
            setup.extend(quote!(let #s: ::sdfg::runtime::Stream = __cx.stream(#k).clone();));
        }
        let arms: Vec<TokenStream> = (0..sdfg.states.len()).map(|s| self.state_arm(s)).collect();
        let start = sdfg.start;
        quote! {
            #[allow(non_snake_case, unused_mut, unused_variables, unused_assignments, unused_parens, unused_braces, unreachable_code, clippy::all)]
            fn __execute<'a>(
                &'a self,
                mut __cx: ::sdfg::runtime::__glue::ContextGuard<'a>,
                __args: #args_name #lt,
            ) -> ::core::result::Result<::sdfg::runtime::Running<'a>, ::sdfg::runtime::Error> {
                let #args_name { #(#field_names),* } = __args;
                #setup
                let __device: &::sdfg::runtime::Device = self.__program.device();
                let __module = self.__program.module();
                let mut __state: usize = #start;
                loop {
                    match __state {
                        #(#arms)*
                        _ => break,
                    }
                }
                #teardown
                ::core::result::Result::Ok(__cx.finish(::core::marker::PhantomData))
            }
        }
    }

    fn state_arm(&self, sid: StateId) -> TokenStream {
        let state = &self.sdfg.states[sid];
        let sched = &self.schedule.states[sid];
        let prechecks = self.prechecks(state);
        let hosts: Vec<ContainerId> = self.host_containers().collect();
        let move_in: TokenStream = hosts
            .iter()
            .map(|&c| {
                let v = self.host_var(c, Span::call_site());
                let slot = self.host_slot(c);
                quote!(let mut #v = #slot;)
            })
            .collect();
        let mut body = TokenStream::new();
        for (k, st) in state.stmts.iter().enumerate() {
            for sp in sched.syncs.iter().filter(|p| p.site == SyncSite::Before(k)) {
                body.extend(self.wait(sp.container, sp.span));
            }
            body.extend(self.statement(sid, k, st));
            if sched.events.iter().any(|e| e.producer == k) {
                // A later statement on another stream needs this one.
                let stream = self.stream_of(sid, k);
                body.extend(quote!(#stream.mark()?;));
            }
        }
        for sp in sched.syncs.iter().filter(|p| p.site == SyncSite::StateEnd) {
            body.extend(self.wait(sp.container, sp.span));
        }
        let move_out: TokenStream = hosts
            .iter()
            .map(|&c| {
                let v = self.host_var(c, Span::call_site());
                let slot = self.host_slot(c);
                quote!(#slot = #v;)
            })
            .collect();
        let edges = self.edges(sid);
        quote! {
            #sid => {
                #prechecks
                #move_in
                #body
                #move_out
                #edges
                break;
            }
        }
    }

    /// `let X = X.wait()?;` — the only way out of a `Pending`.
    fn wait(&self, c: ContainerId, span: Span) -> TokenStream {
        let v = self.host_var(c, span);
        quote_spanned!(span=> let mut #v = #v.wait()?;)
    }

    fn statement(&self, sid: StateId, k: StmtId, st: &Statement) -> TokenStream {
        match &st.kind {
            StatementKind::Map(m) if m.schedule == MapSchedule::Gpu => {
                self.kernel_launch(sid, k, st, m)
            }
            StatementKind::Map(m) => self.host_map(sid, k, st, m),
            StatementKind::Tasklet(t) => self.host_tasklet(sid, st, &t.name.text, &t.body),
            StatementKind::Copy(c) => self.copy(sid, k, st, c.src, c.dst),
            StatementKind::Wait(_) => TokenStream::new(),
        }
    }

    fn stream_of(&self, sid: StateId, k: StmtId) -> Ident {
        let s = self.schedule.states[sid].stream_of[k].unwrap_or(0);
        format_ident!("__s{}", s)
    }

    fn kernel(&self, sid: StateId, k: StmtId) -> (usize, &PtxKernel) {
        self.ptx
            .kernels
            .iter()
            .enumerate()
            .find(|(_, x)| x.state == sid && x.stmt == k)
            .expect("every gpu map has a kernel in the PTX module")
    }

    fn kernel_launch(&self, sid: StateId, k: StmtId, st: &Statement, m: &Map) -> TokenStream {
        let (index, kernel) = self.kernel(sid, k);
        let stream = self.stream_of(sid, k);
        let counts: Vec<Ident> = (0..m.params.len())
            .map(|d| format_ident!("__cnt_{}_{}", k, d))
            .collect();
        let [bx, by, bz] = kernel.block;
        let ipt = kernel.items_per_thread;
        let rows = kernel.rows_per_thread;
        let args: Vec<TokenStream> = kernel
            .abi
            .params
            .iter()
            .map(|p| match p {
                KernelParam::Buffer { container, writes, reads } => {
                    let r = self.gpu_ref(*container);
                    match (reads, writes) {
                        (true, true) => quote!(::sdfg::runtime::KernelArg::read_write(#r)),
                        (_, true) => quote!(::sdfg::runtime::KernelArg::write(#r)),
                        _ => quote!(::sdfg::runtime::KernelArg::read(#r)),
                    }
                }
                KernelParam::Extent { container, dim } => {
                    let e = self.extents(*container);
                    quote!(::sdfg::runtime::KernelArg::value(#e[#dim] as u64))
                }
                KernelParam::Symbol(s) => {
                    let v = self.sym(*s);
                    quote!(::sdfg::runtime::KernelArg::value(#v))
                }
                KernelParam::HostScalar(c) => {
                    let span = st.memlets.iter().find(|mm| mm.container == *c).map(|mm| mm.span).unwrap_or(st.span);
                    let v = self.host_var(*c, span);
                    quote_spanned!(span=> ::sdfg::runtime::KernelArg::value(::sdfg::runtime::host_read(&#v)[0]))
                }
                KernelParam::RangeStart(d) => {
                    let v = format_ident!("__start_{}_{}", k, d);
                    quote!(::sdfg::runtime::KernelArg::value(#v as i64))
                }
                KernelParam::RangeCount(d) => {
                    let v = format_ident!("__cnt_{}_{}", k, d);
                    quote!(::sdfg::runtime::KernelArg::value(#v))
                }
                KernelParam::RangeStep(d) => {
                    let v = format_ident!("__step_{}_{}", k, d);
                    quote!(::sdfg::runtime::KernelArg::value(#v as i64))
                }
                KernelParam::Fault => quote!(::sdfg::runtime::KernelArg::fault()),
            })
            .collect();
        quote! {{
            let __cfg = ::sdfg::runtime::LaunchConfig::for_tiles(__device, &[#(#counts),*], [#bx, #by, #bz], #ipt, #rows);
            let __args: &[::sdfg::runtime::KernelArg<'_>] = &[#(#args),*];
            // SAFETY: `__module` is this SDFG's module and `__args` is the
            // parameter list of kernel `#index`'s ABI, built by the generator
            // that wrote the kernel.
            unsafe { #stream.launch(__module, #index, &__cfg, __args) }?;
        }}
    }

    /// Binds each container a host statement touches: `&[T]` to read,
    /// `&mut [T]` (or atomic cells, for `cpu` maps) to write. The read/write
    /// calls are spanned at the user's first access, so a container still in
    /// flight is reported there.
    fn host_bindings(&self, st: &Statement, cells: bool) -> TokenStream {
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
            let v = self.host_var(c, m.span);
            let name = ident("__d_", self.cname(c));
            out.extend(if written && cells {
                quote_spanned!(m.span=> let #name = ::sdfg::runtime::__glue::cells(::sdfg::runtime::host_write(&mut #v));)
            } else if written {
                quote_spanned!(m.span=> let #name = ::sdfg::runtime::host_write(&mut #v);)
            } else {
                quote_spanned!(m.span=> let #name = ::sdfg::runtime::host_read(&#v);)
            });
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
        let bindings = self.host_bindings(st, false);
        let access = Place::host(self);
        let code = BodyEmitter::new(&access, body).stmts(&body.stmts);
        let what = format!(
            "tasklet `{name}` in state `{}`",
            self.sdfg.states[sid].name.text
        );
        let descs = self.access_descriptions(body);
        quote! {{
            #bindings
            let __fault = ::sdfg::runtime::__glue::check::Fault::new();
            { #code }
            __fault.check(#what, &[#(#descs),*])?;
        }}
    }

    fn host_map(&self, sid: StateId, k: StmtId, st: &Statement, m: &Map) -> TokenStream {
        let parallel = m.schedule == MapSchedule::Cpu;
        let bindings = self.host_bindings(st, parallel);
        let params: Vec<TokenStream> = (0..m.params.len())
            .map(|d| {
                let p = format_ident!("__p{}", d);
                quote!(#p)
            })
            .collect();
        let written = st
            .memlets
            .iter()
            .filter(|x| x.access.is_write())
            .map(|x| x.container)
            .collect();
        let access = Place {
            glue: self,
            kind: PlaceKind::Host {
                cells: parallel,
                written,
            },
            params,
        };
        let code = BodyEmitter::new(&access, &m.body).stmts(&m.body.stmts);
        let what = format!(
            "map `{}` in state `{}`",
            m.name.text, self.sdfg.states[sid].name.text
        );
        let descs = self.access_descriptions(&m.body);
        let ranges = MapRanges {
            map: m,
            prefix: RangePrefix::Precheck(k),
        };
        let iteration = if parallel {
            ranges.parallel(&code, &what)
        } else {
            ranges.sequential(&code)
        };
        quote! {{
            #bindings
            let __fault_owner = ::sdfg::runtime::__glue::check::Fault::new();
            let __fault = &__fault_owner;
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
        let rs = format_ident!("__rs_{}", k);
        let rd = format_ident!("__rd_{}", k);
        let (ss, ds) = (
            self.sdfg.containers[src].storage,
            self.sdfg.containers[dst].storage,
        );
        let src_span = st.memlets.first().map(|m| m.span).unwrap_or(st.span);
        let dst_span = st.memlets.get(1).map(|m| m.span).unwrap_or(st.span);
        match (ss, ds) {
            (Storage::Gpu, Storage::Gpu) => {
                let stream = self.stream_of(sid, k);
                let (a, b) = (self.gpu_ref(src), self.gpu_ref(dst));
                quote!(#stream.copy_device(#a, &#rs, #b, &#rd)?;)
            }
            (_, Storage::Gpu) => {
                let stream = self.stream_of(sid, k);
                let v = self.host_var(src, src_span);
                let b = self.gpu_ref(dst);
                quote_spanned!(src_span=> #stream.copy_to_device(&#v, &#rs, #b, &#rd)?;)
            }
            (Storage::Gpu, _) => {
                let stream = self.stream_of(sid, k);
                let a = self.gpu_ref(src);
                let v = self.host_var(dst, dst_span);
                let call = match (self.sdfg.containers[dst].transient, ds) {
                    (true, _) => quote!(copy_to_host),
                    (false, Storage::Pinned) => quote!(copy_to_host_buffer),
                    (false, _) => quote!(copy_to_slice),
                };
                quote_spanned!(dst_span=> let mut #v = #stream.#call(#a, &#rs, #v, &#rd)?;)
            }
            _ if src == dst => {
                let v = self.host_var(src, src_span);
                quote_spanned!(src_span=> ::sdfg::runtime::__glue::check::host_copy_within(::sdfg::runtime::host_write(&mut #v), &#rs, &#rd)?;)
            }
            _ => {
                let a = self.host_var(src, src_span);
                let b = self.host_var(dst, dst_span);
                let read = quote_spanned!(src_span=> ::sdfg::runtime::host_read(&#a));
                let write = quote_spanned!(dst_span=> ::sdfg::runtime::host_write(&mut #b));
                quote!(::sdfg::runtime::__glue::check::host_copy(#read, &#rs, #write, &#rd)?;)
            }
        }
    }

    /// Interstate edges of `sid`, tried in order; the first whose condition
    /// holds assigns its symbols (all right-hand sides first) and moves on.
    fn edges(&self, sid: StateId) -> TokenStream {
        let mut out = TokenStream::new();
        for (_, e) in self.sdfg.out_edges(sid) {
            let mut exprs: Vec<&Expr> = e.assignments.iter().map(|a| &a.1).collect();
            exprs.extend(e.condition.iter());
            let bindings = self.edge_bindings(&exprs);
            let access = Place::host(self);
            let emit = BodyEmitter::new(&access, &self.empty);
            let cond = e
                .condition
                .as_ref()
                .map(|c| emit.expr(c))
                .unwrap_or(quote!(true));
            let temps: Vec<Ident> = (0..e.assignments.len())
                .map(|i| format_ident!("__a{}", i))
                .collect();
            let values: Vec<TokenStream> = e.assignments.iter().map(|a| emit.expr(&a.1)).collect();
            let targets: Vec<Ident> = e.assignments.iter().map(|a| self.sym(a.0)).collect();
            let to = e.to;
            let what = format!(
                "interstate edge `{} -> {}`",
                self.sdfg.states[e.from].name.text, self.sdfg.states[e.to].name.text
            );
            out.extend(quote! {{
                #bindings
                let __fault_owner = ::sdfg::runtime::__glue::check::Fault::new();
                let __fault = &__fault_owner;
                let __taken: bool = #cond;
                __fault_owner.check(#what, &[])?;
                if __taken {
                    #(let #temps = #values;)*
                    __fault_owner.check(#what, &[])?;
                    #(#targets = #temps;)*
                    __state = #to;
                    continue;
                }
            }});
        }
        out
    }

    fn edge_bindings(&self, exprs: &[&Expr]) -> TokenStream {
        let mut out = TokenStream::new();
        let mut done = Vec::new();
        for e in exprs {
            e.walk(&mut |x| {
                if let ExprKind::Load { container, .. } = x.kind {
                    if !done.contains(&container) {
                        done.push(container);
                        let slot = self.host_slot(container);
                        let name = ident("__d_", self.cname(container));
                        out.extend(quote_spanned!(x.span=> let #name = ::sdfg::runtime::host_read(&#slot);));
                    }
                }
            });
        }
        out
    }

    /// Map ranges and every prechecked index of the state, before its work.
    fn prechecks(&self, state: &State) -> TokenStream {
        let mut out = TokenStream::new();
        let symbols_only = Place::symbols_only(self);
        let emit = BodyEmitter::new(&symbols_only, &self.empty);
        let state_name = &state.name.text;
        for (k, st) in state.stmts.iter().enumerate() {
            match &st.kind {
                StatementKind::Map(m) => {
                    let mut nonempty = Vec::new();
                    for (d, p) in m.params.iter().enumerate() {
                        let (s, e, t, c) = (
                            format_ident!("__start_{}_{}", k, d),
                            format_ident!("__end_{}_{}", k, d),
                            format_ident!("__step_{}_{}", k, d),
                            format_ident!("__cnt_{}_{}", k, d),
                        );
                        let start = emit.expr(&p.start);
                        let end = emit.expr(&p.end);
                        let step = p.step.as_ref().map(|x| emit.expr(x)).unwrap_or(quote!(1));
                        let what = format!(
                            "parameter `{}` of map `{}` in state `{state_name}`",
                            p.name.text, m.name.text
                        );
                        out.extend(quote! {
                            let #s: i128 = (#start) as i128;
                            let #e: i128 = (#end) as i128;
                            let #t: i128 = (#step) as i128;
                            let #c: u64 = ::sdfg::runtime::__glue::check::range_count(#what, #s, #e, #t)?;
                        });
                        nonempty.push(quote!(#c > 0));
                    }
                    let checks = self.index_prechecks(k, &m.name.text, state_name, &m.body);
                    out.extend(quote!(if true #(&& #nonempty)* { #checks }));
                }
                StatementKind::Tasklet(t) => {
                    out.extend(self.index_prechecks(k, &t.name.text, state_name, &t.body))
                }
                StatementKind::Copy(c) => out.extend(self.copy_regions(k, st, c.src, c.dst)),
                StatementKind::Wait(_) => {}
            }
        }
        out
    }

    fn copy_regions(
        &self,
        k: StmtId,
        st: &Statement,
        src: ContainerId,
        dst: ContainerId,
    ) -> TokenStream {
        let symbols_only = Place::symbols_only(self);
        let emit = BodyEmitter::new(&symbols_only, &self.empty);
        let side = |c: ContainerId, memlet: usize| -> TokenStream {
            let name = self.cname(c);
            let ext = self.extents(c);
            let dims: Vec<TokenStream> = st.memlets[memlet]
                .subset
                .iter()
                .map(|d| match d {
                    SubsetDim::Index(i) => {
                        let i = emit.expr(i);
                        quote!({ let __i = (#i) as i128; (__i, __i + 1) })
                    }
                    SubsetDim::Range { start, end } => {
                        let (a, b) = (emit.expr(start), emit.expr(end));
                        quote!(((#a) as i128, (#b) as i128))
                    }
                })
                .collect();
            quote!(::sdfg::runtime::__glue::check::CopySide { container: #name, dims: &[#(#dims),*], extents: &#ext })
        };
        let (a, b) = (side(src, 0), side(dst, 1));
        let rs = format_ident!("__rs_{}", k);
        let rd = format_ident!("__rd_{}", k);
        quote!(let (#rs, #rd) = ::sdfg::runtime::__glue::check::copy_regions(#a, #b)?;)
    }

    /// Interval checks of every prechecked access of a body.
    fn index_prechecks(
        &self,
        k: StmtId,
        stmt_name: &str,
        state_name: &str,
        body: &TaskletBody,
    ) -> TokenStream {
        let mut out = TokenStream::new();
        let mut sites = Vec::new();
        for_each_access(&body.stmts, &mut |site| sites.push(site));
        for site in sites.iter().filter(|s| s.is_prechecked()) {
            out.extend(self.site_precheck(k, stmt_name, state_name, site, body));
        }
        out
    }

    fn site_precheck(
        &self,
        k: StmtId,
        stmt_name: &str,
        state_name: &str,
        site: &AccessSite<'_>,
        body: &TaskletBody,
    ) -> TokenStream {
        let symbols_only = Place::symbols_only(self);
        let emit = BodyEmitter::new(&symbols_only, &self.empty);
        let name = self.cname(site.container);
        let ext = self.extents(site.container);
        let mut checks = TokenStream::new();
        for (d, e) in site.index.iter().enumerate() {
            let what = format!("index {d} of `{name}` in `{stmt_name}` (state `{state_name}`)");
            let iv = self.interval(k, e, &what, body);
            checks.extend(quote! {
                ::sdfg::runtime::__glue::check::index_in_dim(#iv, #ext[#d], &|| ::std::string::String::from(#what))?;
            });
        }
        // Boxed loops enclosing the access: it runs only when they do.
        for (var, start, end, step) in site.enclosing_loops.iter().rev() {
            if !site.loops.is_boxed(*var) {
                continue;
            }
            let lv = format_ident!("__loop_{}", var);
            let (a, b) = (emit.expr(start), emit.expr(end));
            let s = step.map(|x| emit.expr(x)).unwrap_or(quote!(1));
            checks = quote! {
                if let ::core::option::Option::Some(#lv) = ::sdfg::runtime::__glue::check::Interval::of_loop((#a) as i128, (#b) as i128, (#s) as i128) {
                    #checks
                }
            };
        }
        quote!({ #checks })
    }

    /// The exact range of an affine index expression, failing when an
    /// intermediate value may overflow its type (the kernel would wrap).
    fn interval(&self, k: StmtId, e: &Expr, what: &str, body: &TaskletBody) -> TokenStream {
        let raw = match &e.kind {
            ExprKind::Lit(v) => {
                let l = literal(*v);
                quote!(::sdfg::runtime::__glue::check::Interval::point((#l) as i128))
            }
            ExprKind::Var(VarRef::Symbol(s)) => {
                let v = self.sym(*s);
                quote!(::sdfg::runtime::__glue::check::Interval::point(#v as i128))
            }
            ExprKind::Var(VarRef::Param(d)) => {
                let (s, c, t) = (
                    format_ident!("__start_{}_{}", k, d),
                    format_ident!("__cnt_{}_{}", k, d),
                    format_ident!("__step_{}_{}", k, d),
                );
                quote!(::sdfg::runtime::__glue::check::Interval::strided(#s, #c, #t))
            }
            ExprKind::Var(VarRef::Local(l)) => {
                let lv = format_ident!("__loop_{}", l);
                quote!(#lv)
            }
            ExprKind::Unary { op: UnOp::Neg, arg } => {
                let a = self.interval(k, arg, what, body);
                quote!(#a.neg())
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let a = self.interval(k, lhs, what, body);
                let b = self.interval(k, rhs, what, body);
                match op {
                    crate::ir::BinOp::Add => quote!(#a.add(#b)),
                    crate::ir::BinOp::Sub => quote!(#a.sub(#b)),
                    _ => quote!(#a.mul(#b)),
                }
            }
            ExprKind::Cast { arg } => self.interval(k, arg, what, body),
            // Not reachable for prechecked accesses (ir::bounds); a point at
            // zero keeps the expansion well-formed.
            _ => quote!(::sdfg::runtime::__glue::check::Interval::point(0)),
        };
        let (min, max) = int_range(e.ty);
        quote!(#raw.fits(#min, #max, &|| ::std::string::String::from(#what))?)
    }

    /// Human descriptions of a body's accesses, by fault code.
    fn access_descriptions(&self, body: &TaskletBody) -> Vec<String> {
        let mut out = Vec::new();
        for_each_access(&body.stmts, &mut |site| {
            let kind = if site.is_store { "write to" } else { "read of" };
            out.push(format!(
                "the {kind} `{}` (access {})",
                self.cname(site.container),
                out.len() + 1
            ));
        });
        out
    }

    /// The Rust twin of a gpu map, run by the CPU device.
    fn cpu_twin(&self, kernel: &PtxKernel) -> TokenStream {
        let sdfg = self.sdfg;
        let st = &sdfg.states[kernel.state].stmts[kernel.stmt];
        let StatementKind::Map(m) = &st.kind else {
            return TokenStream::new();
        };
        let fname = format_ident!("cpu_{}", kernel.abi.name);
        let mut prologue = TokenStream::new();
        for (i, p) in kernel.abi.params.iter().enumerate() {
            prologue.extend(match p {
                KernelParam::Buffer { container, .. } => {
                    let n = ident("__d_", self.cname(*container));
                    let t = self.elem(*container);
                    quote!(let #n: &[<#t as ::sdfg::runtime::Elem>::Cell] = __args.cells::<#t>(#i);)
                }
                KernelParam::Extent { container, dim } => {
                    let n = format_ident!("__ext_{}_{}", self.cname(*container), dim);
                    quote!(let #n: usize = __args.value::<u64>(#i) as usize;)
                }
                KernelParam::Symbol(s) => {
                    let n = self.sym(*s);
                    let t = rust_type(sdfg.symbols[*s].ty);
                    quote!(let #n: #t = __args.value::<#t>(#i);)
                }
                KernelParam::HostScalar(c) => {
                    let n = ident("__hs_", self.cname(*c));
                    let t = self.elem(*c);
                    quote!(let #n: #t = __args.value::<#t>(#i);)
                }
                KernelParam::RangeStart(d) => {
                    let n = format_ident!("__start_{}", d);
                    quote!(let #n: i64 = __args.value::<i64>(#i);)
                }
                KernelParam::RangeCount(d) => {
                    let n = format_ident!("__cnt_{}", d);
                    quote!(let #n: u64 = __args.value::<u64>(#i);)
                }
                KernelParam::RangeStep(d) => {
                    let n = format_ident!("__step_{}", d);
                    quote!(let #n: i64 = __args.value::<i64>(#i);)
                }
                KernelParam::Fault => TokenStream::new(),
            });
        }
        for p in &kernel.abi.params {
            if let KernelParam::Buffer { container, .. } = p {
                let n = self.extents(*container);
                let dims: Vec<Ident> = (0..sdfg.containers[*container].shape.len())
                    .map(|d| format_ident!("__ext_{}_{}", self.cname(*container), d))
                    .collect();
                let rank = dims.len();
                prologue.extend(quote!(let #n: [usize; #rank] = [#(#dims),*];));
            }
        }
        let params: Vec<TokenStream> = (0..m.params.len())
            .map(|d| {
                let p = format_ident!("__p{}", d);
                quote!(#p)
            })
            .collect();
        let access = Place {
            glue: self,
            kind: PlaceKind::KernelTwin,
            params,
        };
        let code = BodyEmitter::new(&access, &m.body).stmts(&m.body.stmts);
        let ranges = MapRanges {
            map: m,
            prefix: RangePrefix::Kernel,
        };
        let iteration = ranges.parallel(&code, &kernel.abi.name);
        quote! {
            pub(super) fn #fname(__args: &::sdfg::runtime::__glue::KernelArgs<'_>) {
                #prologue
                let __fault_owner = ::sdfg::runtime::__glue::check::Fault::new();
                let __fault = &__fault_owner;
                // A twin cannot fail: a bad range was rejected by the glue.
                let __run = || -> ::core::result::Result<(), ::sdfg::runtime::Error> { #iteration ::core::result::Result::Ok(()) };
                let _ = __run();
                if let ::core::option::Option::Some(code) = __fault_owner.code() {
                    __args.fault(code);
                }
            }
        }
    }
}

fn int_range(t: ScalarType) -> (TokenStream, TokenStream) {
    match t {
        ScalarType::I32 => (quote!(i32::MIN as i128), quote!(i32::MAX as i128)),
        ScalarType::I64 => (quote!(i64::MIN as i128), quote!(i64::MAX as i128)),
        ScalarType::U32 => (quote!(0i128), quote!(u32::MAX as i128)),
        ScalarType::U64 => (quote!(0i128), quote!(u64::MAX as i128)),
        _ => (quote!(i128::MIN), quote!(i128::MAX)),
    }
}

enum RangePrefix {
    /// The glue's precheck locals `__start_{k}_{d}` (i128) etc.
    Precheck(StmtId),
    /// A twin's kernel parameters `__start_{d}` (i64) etc.
    Kernel,
}

/// Iterating a map's N-d range on the host.
struct MapRanges<'a> {
    map: &'a Map,
    prefix: RangePrefix,
}

impl MapRanges<'_> {
    fn names(&self, d: usize) -> (Ident, Ident, Ident) {
        match self.prefix {
            RangePrefix::Precheck(k) => (
                format_ident!("__start_{}_{}", k, d),
                format_ident!("__cnt_{}_{}", k, d),
                format_ident!("__step_{}_{}", k, d),
            ),
            RangePrefix::Kernel => (
                format_ident!("__start_{}", d),
                format_ident!("__cnt_{}", d),
                format_ident!("__step_{}", d),
            ),
        }
    }

    /// `let __pd: T = start + t * step;` with wrapping i64 arithmetic: exact
    /// modulo 2^64, so the cast to any parameter type is the true value.
    fn param_value(&self, d: usize, t: &Ident) -> TokenStream {
        let (s, _, st) = self.names(d);
        let p = format_ident!("__p{}", d);
        let ty = rust_type(self.map.params[d].ty);
        quote!(let #p: #ty = ((#s as i64).wrapping_add((#t as i64).wrapping_mul(#st as i64))) as #ty;)
    }

    fn counts(&self) -> Vec<Ident> {
        (0..self.map.params.len())
            .map(|d| self.names(d).1)
            .collect()
    }

    fn parallel(&self, body: &TokenStream, what: &str) -> TokenStream {
        let counts = self.counts();
        let n = counts.len();
        let mut decompose = TokenStream::new();
        for d in (0..n).rev() {
            let t = format_ident!("__t{}", d);
            let c = &counts[d];
            decompose.extend(if d == 0 {
                quote!(let #t: usize = __rest;)
            } else {
                quote! {
                    let #t: usize = __rest % (#c as usize);
                    let __rest: usize = __rest / (#c as usize);
                }
            });
        }
        let params: TokenStream = (0..n)
            .map(|d| self.param_value(d, &format_ident!("__t{}", d)))
            .collect();
        quote! {
            let __total: usize = ::sdfg::runtime::__glue::check::total_iterations(#what, &[#(#counts),*])?;
            ::sdfg::runtime::__glue::rayon::iter::ParallelIterator::for_each(
                ::sdfg::runtime::__glue::rayon::iter::IntoParallelIterator::into_par_iter(0..__total),
                move |__flat: usize| {
                    let __rest: usize = __flat;
                    #decompose
                    #params
                    #body
                },
            );
        }
    }

    fn sequential(&self, body: &TokenStream) -> TokenStream {
        let counts = self.counts();
        let mut code = body.clone();
        for d in (0..counts.len()).rev() {
            let t = format_ident!("__t{}", d);
            let c = &counts[d];
            let p = self.param_value(d, &t);
            code = quote! {
                for #t in 0..#c {
                    #p
                    #code
                }
            };
        }
        code
    }
}

/// Where a body's data lives, for [`DataAccess`].
enum PlaceKind {
    /// Host code: the bindings of `host_bindings` (`__d_X`). In a `cpu` map
    /// (`cells`), the containers it writes are bound as atomic cells.
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

struct Place<'a, 'g> {
    glue: &'a Glue<'g>,
    kind: PlaceKind,
    /// Map parameters (`__p0`, ...).
    params: Vec<TokenStream>,
}

impl<'a, 'g> Place<'a, 'g> {
    fn host(glue: &'a Glue<'g>) -> Self {
        Place {
            glue,
            kind: PlaceKind::Host {
                cells: false,
                written: Vec::new(),
            },
            params: Vec::new(),
        }
    }
    fn symbols_only(glue: &'a Glue<'g>) -> Self {
        Place {
            glue,
            kind: PlaceKind::SymbolsOnly,
            params: Vec::new(),
        }
    }
}

impl DataAccess for Place<'_, '_> {
    fn load(&self, c: ContainerId, offset: TokenStream, span: Span) -> TokenStream {
        let d = ident("__d_", self.glue.cname(c));
        let t = self.glue.elem(c);
        match &self.kind {
            PlaceKind::Host {
                cells: true,
                written,
            } if written.contains(&c) => {
                quote!(<#t as ::sdfg::runtime::Elem>::load(&#d[#offset]))
            }
            PlaceKind::Host { .. } => quote!(#d[#offset]),
            PlaceKind::KernelTwin if self.glue.sdfg.containers[c].storage.is_host() => {
                let n = ident("__hs_", self.glue.cname(c));
                quote!({ let _ = #offset; #n })
            }
            PlaceKind::KernelTwin => quote!(<#t as ::sdfg::runtime::Elem>::load(&#d[#offset])),
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
        let d = ident("__d_", self.glue.cname(c));
        let t = self.glue.elem(c);
        match (&self.kind, wcr) {
            (PlaceKind::Host { cells: true, .. } | PlaceKind::KernelTwin, _) => {
                cell_store(&t, quote!(&#d[#offset]), value, wcr)
            }
            (PlaceKind::Host { .. }, None) => quote!(#d[#offset] = #value;),
            (PlaceKind::Host { .. }, Some(op)) => {
                let combined = combine(
                    op,
                    self.glue.sdfg.containers[c].elem,
                    quote!(#d[#offset]),
                    value,
                );
                quote!(#d[#offset] = #combined;)
            }
            (PlaceKind::SymbolsOnly, _) => TokenStream::new(),
        }
    }
    fn extent(&self, c: ContainerId, d: usize) -> TokenStream {
        let e = self.glue.extents(c);
        quote!(#e[#d])
    }
    fn fault(&self, code: u32) -> TokenStream {
        match self.kind {
            PlaceKind::SymbolsOnly => TokenStream::new(),
            _ => quote!(__fault.raise(#code);),
        }
    }
    fn symbol(&self, s: SymbolId) -> TokenStream {
        let v = self.glue.sym(s);
        quote!(#v)
    }
    fn param(&self, n: usize) -> TokenStream {
        self.params.get(n).cloned().unwrap_or_else(|| quote!(0))
    }
    fn elem_type(&self, c: ContainerId) -> ScalarType {
        self.glue.sdfg.containers[c].elem
    }
}

/// A store through an atomic cell (plain or a reduction).
fn cell_store(
    t: &TokenStream,
    cell: TokenStream,
    value: TokenStream,
    wcr: Option<WcrOp>,
) -> TokenStream {
    match wcr {
        None => quote!(<#t as ::sdfg::runtime::Elem>::store(#cell, #value);),
        Some(WcrOp::Sum) => quote!(<#t as ::sdfg::runtime::NumElem>::reduce_sum(#cell, #value);),
        Some(WcrOp::Product) => {
            quote!(<#t as ::sdfg::runtime::NumElem>::reduce_product(#cell, #value);)
        }
        Some(WcrOp::Min) => quote!(<#t as ::sdfg::runtime::NumElem>::reduce_min(#cell, #value);),
        Some(WcrOp::Max) => quote!(<#t as ::sdfg::runtime::NumElem>::reduce_max(#cell, #value);),
    }
}

/// `old (op) new` with the language's semantics (sequential reductions).
fn combine(op: WcrOp, ty: ScalarType, old: TokenStream, new: TokenStream) -> TokenStream {
    let int = ty.is_integer();
    match op {
        WcrOp::Sum if int => quote!((#old).wrapping_add(#new)),
        WcrOp::Sum => quote!((#old + #new)),
        WcrOp::Product if int => quote!((#old).wrapping_mul(#new)),
        WcrOp::Product => quote!((#old * #new)),
        WcrOp::Min => quote!(::sdfg::runtime::MinMaxNumber::min_number(#old, #new)),
        WcrOp::Max => quote!(::sdfg::runtime::MinMaxNumber::max_number(#old, #new)),
    }
}
