//! The arm of a `#[persistent]` state (`codegen::persistent`): after the
//! state's prechecks, the host counts the loop's iterations by trying the
//! state's edges on copies of the symbols (they read only symbols, and
//! the maps use none the loop changes, so every iteration issues the same
//! kernels), then launches the persistent kernel once with the maps'
//! arguments and that count, sets the symbols to their values in the last
//! iteration and tries the edges as any state does (the loop edge is then
//! not taken). Where the device cannot run the kernel (no cooperative
//! launch, no block resident) the launch issues nothing and the state runs
//! as written, launch by launch, for the rest of the call; the program's
//! notes say so. `set_persistent(false)` (or `SDFG_PERSISTENT=off`) runs it
//! launch by launch on purpose.

use super::Glue;
use crate::codegen::cpu::body::BodyEmitter;
use crate::codegen::cpu::place::Place;
use crate::codegen::names;
use crate::codegen::persistent::PersistentKernel;
use crate::codegen::runtime_paths as rt;
use crate::ir::{Expr, StateId, StatementKind, SymbolId};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// The per-call flag of state `sid`: may it still run as one kernel?
fn flag(sid: StateId) -> Ident {
    format_ident!("__persistent_{}", sid)
}

impl Glue<'_> {
    /// One flag per persistent state, at the start of a call.
    pub(super) fn persistent_setup(&self) -> TokenStream {
        self.persistent
            .iter()
            .map(|p| {
                let f = flag(p.state);
                quote!(let mut #f: bool = true;)
            })
            .collect()
    }

    pub(super) fn persistent_arm(&self, p: &PersistentKernel) -> TokenStream {
        let sid = p.state;
        let state = &self.sdfg.states[sid];
        let prechecks = self.prechecks(state);
        let move_in = self.move_in();
        let body = self.state_body(sid);
        let move_out = self.move_out();
        let edges = self.edges(sid);
        let end = self.end_of_machine();
        let f = flag(sid);
        let loop_edge = self.schedule.graphs.persistent(sid).map(|l| l.edge);
        // The symbols the loop edge assigns: counted on copies.
        let mut assigned: Vec<SymbolId> = loop_edge
            .map(|e| self.sdfg.edges[e].assignments.iter().map(|a| a.0).collect())
            .unwrap_or_default();
        assigned.sort_unstable();
        assigned.dedup();
        let syms: Vec<Ident> = assigned.iter().map(|&s| self.sym(s)).collect();
        let finals: Vec<Ident> = (0..syms.len())
            .map(|k| format_ident!("__final_{}", k))
            .collect();
        let count = self.count_iterations(sid);
        // The phases' launches, then the persistent kernel's own arguments.
        let kernel_arg = rt::kernel_arg();
        let mut configs = Vec::new();
        let mut args = Vec::new();
        for &i in &p.phases {
            let k = self.abis[i].stmt;
            let st = &state.stmts[k];
            if let StatementKind::Map(m) = &st.kind {
                let (config, phase_args) = self.launch_parts(sid, k, st, m, true);
                configs.push(config);
                args.extend(phase_args);
            }
        }
        let barrier = names::gpu_ref(self.cname(p.barrier));
        args.push(quote!(#kernel_arg::read_write(#barrier)));
        args.push(quote!(#kernel_arg::value(__iterations)));
        let stream = self.stream_of(sid, self.abis[p.phases[0]].stmt);
        let index = p.index;
        // A kernel that can synchronize its blocks with their neighbours
        // has a flag per block after the barrier's two words.
        let flags = if self.ptx.neighbour_sync.contains(&index) {
            let n = crate::codegen::persistent::NEIGHBOUR_FLAGS as u32;
            quote!(::core::option::Option::Some(#n))
        } else {
            quote!(::core::option::Option::None)
        };
        let persistent_config = rt::persistent_config();
        let why = format!(
            "state `{}` ran launch by launch: the device cannot run its persistent kernel `{}` (no cooperative launch, or no block of it fits on an SM)",
            state.name.text, p.name
        );
        quote! {
            #sid => {
                #prechecks
                #move_in
                let __launched: bool = if #f && self.__program.persistent_enabled() {
                    let (__iterations, __finals): (u64, _) = {
                        #(let mut #syms = #syms;)*
                        let mut __iterations: u64 = 1;
                        #count
                        (__iterations, (#(#syms,)*))
                    };
                    let __cfg = #persistent_config(&[#(#configs),*]);
                    let __args: &[#kernel_arg<'_>] = &[#(#args),*];
                    // SAFETY: `__module` is this SDFG's module; kernel
                    // `#index` is the persistent kernel of this state, whose
                    // parameters are its phases' kernels' parameters (built
                    // here by the generator that wrote those kernels), then
                    // the barrier (with its flags, where `#flags`) and the
                    // iteration count; its loops stride over any grid and
                    // its barrier counts the grid's blocks.
                    let __ran = unsafe { #stream.launch_persistent(__module, #index, &__cfg, __args, #flags) }?;
                    if __ran {
                        // The symbols of the last iteration: its edges follow.
                        let (#(#finals,)*) = __finals;
                        #(#syms = #finals;)*
                    }
                    __ran
                } else {
                    false
                };
                if !__launched {
                    if #f {
                        #f = false;
                        __cx.note(::std::string::String::from(#why));
                    }
                    #body
                }
                #move_out
                #edges
                #end
            }
        }
    }

    /// The CPU twin of a persistent kernel: its phases' twins, in order,
    /// as many times as its last argument says.
    pub(super) fn persistent_twin(&self, p: &PersistentKernel) -> TokenStream {
        let (phase, run_phases, kernel_args) = (
            rt::persistent_phase(),
            rt::persistent_run_phases(),
            rt::kernel_args(),
        );
        let mut first = 0usize;
        let phases: Vec<TokenStream> = p
            .phases
            .iter()
            .map(|&i| {
                let abi = &self.abis[i];
                let (name, twin, count) = (&abi.name, names::kernel_twin(&abi.name), abi.params.len());
                let out = quote!(#phase { kernel: #i, name: #name, twin: #twin, first: #first, count: #count });
                first += count;
                out
            })
            .collect();
        // After the phases' arguments: the barrier, then the count.
        let iterations = first + 1;
        let fname = names::kernel_twin(&p.name);
        let args = names::twin_args();
        quote! {
            pub(super) fn #fname(#args: &#kernel_args<'_>) {
                #run_phases(#args, &[#(#phases),*], #iterations);
            }
        }
    }

    /// `__iterations` counted: the state's edges tried in order on the
    /// symbols in scope (copies), the loop edge assigning and counting,
    /// any other edge taken (or none) ending the count.
    fn count_iterations(&self, sid: StateId) -> TokenStream {
        let access = Place::host(self.sdfg);
        let mut tries = TokenStream::new();
        for (_, e) in self.sdfg.out_edges(sid) {
            let mut exprs: Vec<&Expr> = e.assignments.iter().map(|a| &a.1).collect();
            exprs.extend(e.condition.iter());
            let (emit, _) = BodyEmitter::for_exprs(&access, &self.empty, &exprs);
            let cond = e
                .condition
                .as_ref()
                .map(|c| emit.expr(c))
                .unwrap_or(quote!(true));
            let taken = if e.to == sid {
                let temps: Vec<Ident> = (0..e.assignments.len()).map(names::edge_value).collect();
                let values: Vec<TokenStream> =
                    e.assignments.iter().map(|a| emit.expr(&a.1)).collect();
                let targets: Vec<Ident> = e.assignments.iter().map(|a| self.sym(a.0)).collect();
                quote! {
                    #(let #temps = #values;)*
                    #(#targets = #temps;)*
                    __iterations += 1;
                    continue '__count;
                }
            } else {
                quote!(break '__count;)
            };
            tries.extend(quote! {
                if #cond {
                    #taken
                }
            });
        }
        let (fault, fault_type) = (names::fault(), rt::check_fault());
        quote! {
            // Edges of a persistent state read only symbols: nothing faults.
            let __fault_owner = #fault_type::new();
            let #fault = &__fault_owner;
            '__count: loop {
                #tries
                break;
            }
        }
    }
}
