//! The items `sdfg!` expands to: the program type, its `Args` struct, the
//! private module (the program's statics and kernel twins) and the impl
//! with `load`, `run`, `launch`, the text constants and introspection.

use super::{Glue, Texts};
use crate::codegen::cpu::twin::kernel_twin;
use crate::codegen::names;
use crate::codegen::runtime_paths as rt;
use crate::schedule::Streams;
use proc_macro2::TokenStream;
use quote::quote;

impl Glue<'_> {
    pub(super) fn items(&self, texts: &Texts) -> TokenStream {
        let source = &texts.source;
        let dot = &texts.dot;
        let to_sdfg_json = match &texts.sdfg_json {
            Ok(json) => quote! {
                /// The SDFG in DaCe's `.sdfg` JSON format (`dace.SDFG.from_file` loads it).
                pub fn to_sdfg_json() -> &'static str {
                    #json
                }
            },
            Err(why) => {
                let doc = format!(
                    " The SDFG has no DaCe `.sdfg` export: {}.\n\n # Panics\n\n Always, with that message.",
                    why.replace('\n', "; ")
                );
                let message = format!("cannot export to DaCe: {why}");
                quote! {
                    #[doc = #doc]
                    pub fn to_sdfg_json() -> &'static str {
                        ::core::panic!(#message)
                    }
                }
            }
        };
        let sdfg = self.sdfg;
        let name = names::program_type(sdfg);
        let args_name = names::args_type(sdfg);
        let private = names::private_module(sdfg);
        let vis = &sdfg.vis;
        let docs = &sdfg.docs;
        let name_str = names::bare(&sdfg.name.text);
        let ptx_text = &self.ptx.text;
        let lt = self.args_lifetime(quote!('a));
        let lt_anon = self.args_lifetime(quote!('_));
        let (device, error, stream, running, program) = (
            rt::device(),
            rt::error(),
            rt::stream(),
            rt::running(),
            rt::program(),
        );
        let (kernel_entry, program_spec, stream_spec) =
            (rt::kernel_entry(), rt::program_spec(), rt::stream_spec());

        let fields = self.arg_fields();
        let mut twins: Vec<TokenStream> = self.abis.iter().map(|a| kernel_twin(sdfg, a)).collect();
        twins.extend(self.persistent.iter().map(|p| self.persistent_twin(p)));
        let entries: Vec<TokenStream> = self
            .abis
            .iter()
            .map(|a| &a.name)
            .chain(self.persistent.iter().map(|p| &p.name))
            .map(|n| {
                let f = names::kernel_twin(n);
                quote!(#kernel_entry { name: #n, cpu: #f })
            })
            .collect();
        let nkernels = entries.len();
        let sites = self.kernel_sites();
        let kernel_sites = rt::kernel_sites();
        let streams = match self.schedule.streams {
            Streams::Default => quote!(#stream_spec::Default),
            Streams::Created(n) => quote!(#stream_spec::Created(#n)),
        };
        let introspection = rt::introspection_methods();
        let ncubins = self.cubins.len();
        let cubin_archs: Vec<u32> = self.cubins.iter().map(|c| c.cc).collect();
        let module_origin = rt::module_origin();
        let defer_wakes = rt::defer_wakes();
        let cubins: Vec<TokenStream> = self
            .cubins
            .iter()
            .map(|c| {
                let (cc, waits) = (c.cc, c.grid_waits);
                let image = proc_macro2::Literal::byte_string(&c.image);
                quote!((#cc, #image, #waits))
            })
            .collect();
        let neighbours: Vec<usize> = self
            .persistent
            .iter()
            .filter(|p| self.ptx.neighbour_sync.contains(&p.index))
            .map(|p| p.state)
            .collect();
        let plan: Vec<String> = self
            .schedule
            .graphs
            .describe_with(sdfg, &neighbours)
            .into_iter()
            .enumerate()
            .filter(|(s, _)| !self.is_loop_parts(*s))
            .map(|(_, line)| line)
            .collect();
        let execute = self.execute_fn(&args_name);
        let doc_args = format!("Arguments of one call of [`{name_str}`]: its free symbols by value and its non-transient containers (a host scalar the program only reads by value, every other container by reference; `mut` where the program writes it). Each field says which container it fills.");
        let doc_run = format!("Runs `{name_str}` to completion: returns when every result is complete and visible where it lives.");
        quote! {
            #(#[doc = #docs])*
            #vis struct #name {
                __program: #program,
            }

            #[doc = #doc_args]
            #[allow(non_snake_case)]
            #vis struct #args_name #lt {
                #fields
            }

            #[doc(hidden)]
            #[allow(non_snake_case, non_upper_case_globals, unused_variables, unused_mut, unused_parens, clippy::all)]
            mod #private {
                #[allow(unused_imports)]
                use super::*;
                pub(super) static KERNELS: [#kernel_entry; #nkernels] = [#(#entries),*];
                pub(super) static CUBINS: [(u32, &[u8], bool); #ncubins] = [#(#cubins),*];
                pub(super) static SITES: [#kernel_sites; #nkernels] = [#(#sites),*];
                // SAFETY: the PTX, the kernel table and the glue that launches
                // them are generated together from this one SDFG: each launch
                // passes its kernel's ABI parameters, bounds are prechecked or
                // guarded in the kernel. The cubins are that PTX, assembled by ptxas.
                pub(super) static SPEC: #program_spec = unsafe {
                    #program_spec::new(#name_str, #ptx_text, &KERNELS, #streams).with_cubins(&CUBINS)
                }.with_sites(&SITES);
                #(#twins)*
            }

            #[allow(non_snake_case, dead_code)]
            impl #name {
                /// The PTX module of this SDFG's `gpu` maps (one kernel per map).
                pub const PTX: &'static str = #ptx_text;
                /// The `sdfg!` source this was generated from (`ir()` rebuilds the IR from it).
                pub const SOURCE: &'static str = #source;
                /// The GPUs (compute capability `major * 10 + minor`) this program carries
                /// machine code for: its PTX assembled by `ptxas` at build time
                /// (`SDFG_CUBIN_ARCHS`), loaded without a JIT. Empty without ptxas.
                pub const CUBINS: &'static [u32] = &[#(#cubin_archs),*];
                /// What calls may run as graphs, one line per state (`#[graph(...)]`;
                /// the schedule's graph plan): captured, a conditional node, or on
                /// streams and why.
                pub const GRAPH_PLAN: &'static [&'static str] = &[#(#plan),*];

                /// Loads the program on `device` (the PTX module is JIT-compiled once per device and cached).
                pub fn load(device: &#device) -> ::core::result::Result<Self, #error> {
                    // SAFETY: `SPEC` is this SDFG's generated spec (see its SAFETY above).
                    let __program = unsafe { #program::load(device, &#private::SPEC) }?;
                    ::core::result::Result::Ok(Self { __program })
                }

                /// Where the loaded kernels came from: the embedded cubin, the on-disk
                /// cubin cache, the driver's JIT, or (CPU device) their Rust twins.
                pub fn module_origin(&self) -> #module_origin {
                    self.__program.module().origin()
                }

                /// Whether its kernels are launched with programmatic dependencies (each
                /// scheduled while the kernels it depends on finish, in CUDA graphs): an
                /// embedded cubin for `sm_90` or later, unless `SDFG_PDL=off`.
                pub fn programmatic_launches(&self) -> bool {
                    self.__program.module().programmatic_launches()
                }

                /// The device this program runs on.
                pub fn device(&self) -> &#device {
                    self.__program.device()
                }

                #[doc = #doc_run]
                pub fn run(&self, args: #args_name #lt_anon) -> ::core::result::Result<(), #error> {
                    // The call waits for its own work: the CPU device's
                    // waiter runs it rather than waking stream threads.
                    let _wakes = #defer_wakes::new();
                    self.launch(args)?.wait()
                }

                /// Like `run`, with all GPU work on the caller's `stream` (a runtime
                /// `Stream`, or a borrowed cudarc stream: `Device::borrow_cudarc_stream`).
                pub fn run_on(&self, stream: &#stream, args: #args_name #lt_anon) -> ::core::result::Result<(), #error> {
                    let _wakes = #defer_wakes::new();
                    self.launch_on(stream, args)?.wait()
                }

                /// Starts the SDFG and returns as early as correctness allows; the
                /// `Running` borrows the arguments until `.wait()` (dropping it waits too).
                pub fn launch<'a>(&'a self, args: #args_name #lt) -> ::core::result::Result<#running<'a>, #error> {
                    let cx = self.__program.context()?;
                    self.__execute(cx, args)
                }

                /// Like `launch`, with all GPU work on the caller's `stream`, which
                /// stays borrowed until the `Running` is waited for (a borrowed cudarc
                /// stream cannot be dropped before the program's work on it is done).
                pub fn launch_on<'a>(&'a self, stream: &'a #stream, args: #args_name #lt) -> ::core::result::Result<#running<'a>, #error> {
                    let cx = self.__program.context_on(stream)?;
                    self.__execute(cx, args)
                }

                /// Turns graph segments off (or back on, where `#[graph(auto)]` allows
                /// them) for later calls of this loaded program: a switch for comparing
                /// the two modes. Results are the same.
                pub fn set_graphs(&self, on: bool) {
                    self.__program.set_graphs(on)
                }

                /// Runs `#[persistent]` states launch by launch (or again as one
                /// kernel each) in later calls of this loaded program: a switch for
                /// comparing the two. Results are the same.
                pub fn set_persistent(&self, on: bool) {
                    self.__program.set_persistent(on)
                }

                /// Why segments of this program ran on streams instead of as graphs
                /// (too few operations, no conditional nodes in the driver, ...), and
                /// why a persistent state ran launch by launch.
                pub fn graph_notes(&self) -> ::std::vec::Vec<::std::string::String> {
                    self.__program.graph_notes()
                }

                #introspection!();

                /// A Graphviz drawing of the SDFG with its streams, events and sync
                /// points (`dot -Tsvg` renders it).
                pub fn to_dot() -> &'static str {
                    #dot
                }

                #to_sdfg_json

                #execute
            }
        }
    }

    /// `<'a>` (or `<'_>`) when `Args` borrows containers, else nothing.
    pub(super) fn args_lifetime(&self, lifetime: TokenStream) -> TokenStream {
        if self.args_have_refs() {
            quote!(<#lifetime>)
        } else {
            quote!()
        }
    }
}
