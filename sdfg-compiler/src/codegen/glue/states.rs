//! One call: the arguments taken apart and checked, the transients and
//! streams of the context, then the state machine: one match arm per state
//! (prechecks, host containers moved in, statements with their waits,
//! the state-end settle, containers moved out, edges).

use super::Glue;
use crate::codegen::cpu::body::BodyEmitter;
use crate::codegen::cpu::place::Place;
use crate::codegen::cpu::tokens::{literal, rust_type, zero_of};
use crate::codegen::cpu::twin::calls_mul_add;
use crate::codegen::names;
use crate::codegen::runtime_paths as rt;
use crate::ir::transients::{first_user, needs_zero_fill};
use crate::ir::{ContainerId, Expr, ExprKind, MapSchedule, StateId, StatementKind, Storage};
use crate::schedule::SyncSite;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned};

impl Glue<'_> {
    /// The body of a call: argument checks, transients, the state machine.
    pub(super) fn execute_fn(&self, args_name: &Ident) -> TokenStream {
        let sdfg = self.sdfg;
        let lt = self.args_lifetime(quote!('a));
        let (device, device_buffer, host_buffer, stream, context_guard, running, error) = (
            rt::device(),
            rt::device_buffer(),
            rt::host_buffer(),
            rt::stream(),
            rt::context_guard(),
            rt::running(),
            rt::error(),
        );

        let (fields, scalar_slots) = self.take_args_apart();
        let mut setup = scalar_slots;
        for (s, sym) in sdfg.symbols.iter().enumerate() {
            if !sym.declared {
                let v = self.sym(s);
                let t = rust_type(sym.ty);
                let z = literal(zero_of(sym.ty));
                setup.extend(quote!(let mut #v: #t = #z;));
            }
        }
        // Shapes are fixed for the run (validate::shapes): evaluate them once.
        let symbols_only = Place::symbols_only(sdfg);
        let (shape_len, extents) = (rt::check_shape_len(), rt::check_extents());
        for cont in &sdfg.containers {
            let ext = names::extents(&cont.name.text);
            let len = names::len(&cont.name.text);
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
                    #shape_len(#name, &__dims)?;
                    #extents(__dims)
                };
                let #len: usize = #ext.iter().product();
            });
        }
        // Argument checks, before any work: lengths, and the device of
        // every buffer that belongs to one.
        let (check_device_buffer, check_host_buffer, check_host_len) = (
            rt::check_device_buffer(),
            rt::check_host_buffer(),
            rt::check_host_len(),
        );
        for cont in sdfg.containers.iter().filter(|c| !c.transient) {
            let name = &cont.name.text;
            let len = names::len(name);
            setup.extend(match cont.storage {
                Storage::Gpu => {
                    let g = names::gpu_ref(name);
                    quote!(#check_device_buffer(#name, &*#g, self.__program.device(), #len)?;)
                }
                Storage::Pinned => {
                    let h = names::host_slot(name);
                    quote!(#check_host_buffer(#name, &*#h, self.__program.device(), #len)?;)
                }
                Storage::Host => {
                    let h = names::host_slot(name);
                    quote!(#check_host_len(#name, #h.len(), #len)?;)
                }
                // Block data is declared inside its block map: never an argument.
                Storage::Shared | Storage::Register => TokenStream::new(),
            });
        }
        // Transients, then the bindings the states use.
        let mut teardown = TokenStream::new();
        // Device transients are allocated first (that needs the context
        // mutably), then borrowed for the whole call.
        let mut prepare = TokenStream::new();
        let mut refs = TokenStream::new();
        let (mut host_slot, mut dev_slot) = (0usize, 0usize);
        // Transients are zero at the start of every call (ir::transients):
        // cleared unless their first use overwrites them whole.
        for (c, cont) in sdfg.containers.iter().enumerate() {
            let len = names::len(&cont.name.text);
            let t = self.elem(c);
            let zero = cont.transient && needs_zero_fill(sdfg, c);
            // A gpu transient no statement touches needs no clearing (and a
            // program without GPU work has no stream to clear it on).
            let zero_gpu = zero && self.schedule.streams.count() > 0 && self.touched(c);
            match (cont.transient, cont.storage) {
                // Block data lives in its kernel (or its CPU twin's task).
                (_, Storage::Shared | Storage::Register) => {}
                (true, Storage::Gpu) => {
                    let r = names::gpu_ref(&cont.name.text);
                    prepare.extend(quote!(__cx.prepare_device_transient::<#t>(#dev_slot, #len)?;));
                    if zero_gpu {
                        // On the stream of its first user: no extra event.
                        let k = self.first_stream(c);
                        prepare.extend(quote! {{
                            let __s = __cx.stream(#k).clone();
                            __cx.zero_device_transient::<#t>(#dev_slot, &__s)?;
                        }});
                    }
                    refs.extend(quote! {
                        let #r: &#device_buffer<#t> = __cx.device_transient_ref::<#t>(#dev_slot);
                    });
                    dev_slot += 1;
                }
                (true, _) => {
                    let slot = names::host_slot(&cont.name.text);
                    let take = if zero {
                        quote!(take_zeroed_host_transient)
                    } else {
                        quote!(take_host_transient)
                    };
                    setup.extend(quote! {
                        let mut #slot: #host_buffer<#t> = __cx.#take::<#t>(#host_slot, #len)?;
                    });
                    teardown.extend(quote!(__cx.put_host_transient(#host_slot, #slot);));
                    host_slot += 1;
                }
                (false, Storage::Gpu) => {
                    // A shared reborrow: the call only needs `&mut` to prove exclusivity.
                    let r = names::gpu_ref(&cont.name.text);
                    setup.extend(quote!(let #r: &#device_buffer<#t> = &*#r;));
                }
                (false, _) => {}
            }
        }
        setup.extend(prepare);
        setup.extend(refs);
        for k in 0..self.schedule.streams.count() {
            let s = names::stream(k);
            setup.extend(quote!(let #s: #stream = __cx.stream(#k).clone();));
        }
        let arms: Vec<TokenStream> = (0..sdfg.states.len())
            .filter(|&s| !self.is_loop_parts(s))
            .map(|s| self.state_arm(s))
            .collect();
        let start = sdfg.start;
        let segment_setup = self.segment_setup();
        let persistent_setup = self.persistent_setup();
        let segment_step = self.segment_step();
        let loop_arms = self.loop_arms();
        let body = quote! {
            let #args_name { #(#fields),* } = __args;
            #setup
            let __device: &#device = self.__program.device();
            let __module = self.__program.module();
            #segment_setup
            #persistent_setup
            let mut __state: usize = #start;
            loop {
                #segment_step
                match __state {
                    #(#arms)*
                    #loop_arms
                    _ => break,
                }
            }
            #teardown
            ::core::result::Result::Ok(__cx.finish(::core::marker::PhantomData))
        };
        let allow = quote! {
            #[allow(non_snake_case, unused_mut, unused_variables, unused_assignments, unused_parens, unused_braces, unreachable_code, clippy::all)]
        };
        let signature = quote! {
            (&'a self, mut __cx: #context_guard<'a>, __args: #args_name #lt)
                -> ::core::result::Result<#running<'a>, #error>
        };
        // Host code that calls `mul_add` or `erf` (a `cpu` or `seq` map, a
        // host tasklet) runs in a copy compiled with FMA, as a kernel twin does
        // (`cpu::twin`): one instruction per `mul_add` instead of a call
        // into libm, and the rayon closures of its `cpu` maps inherit the
        // target feature. Same bits: `mul_add` rounds once either way.
        let with_fma = self.host_calls_mul_add().then(|| {
            let has_fma = rt::has_fma();
            quote! {
                #[cfg(target_arch = "x86_64")]
                if #has_fma() {
                    // SAFETY: `has_fma` checked that this CPU executes FMA,
                    // the one requirement of a `target_feature` function.
                    return unsafe { self.__execute_fma(__cx, __args) };
                }
            }
        });
        let fma_copy = with_fma.is_some().then(|| {
            quote! {
                #allow
                #[allow(unused_unsafe)]
                #[cfg(target_arch = "x86_64")]
                #[target_feature(enable = "fma")]
                unsafe fn __execute_fma<'a> #signature {
                    #body
                }
            }
        });
        quote! {
            #allow
            fn __execute<'a> #signature {
                #with_fma
                #body
            }
            #fma_copy
        }
    }

    /// Whether the program's host code (its `cpu` and `seq` maps and host
    /// tasklets) calls `mul_add` or `erf` (`cpu::twin::calls_mul_add`).
    fn host_calls_mul_add(&self) -> bool {
        self.sdfg
            .states
            .iter()
            .flat_map(|s| &s.stmts)
            .any(|st| match &st.kind {
                StatementKind::Map(m) => {
                    m.schedule != MapSchedule::Gpu && calls_mul_add(&m.body.stmts)
                }
                StatementKind::Tasklet(t) => calls_mul_add(&t.body.stmts),
                _ => false,
            })
    }

    /// Whether any statement touches `c`.
    fn touched(&self, c: ContainerId) -> bool {
        self.sdfg
            .states
            .iter()
            .flat_map(|s| &s.stmts)
            .any(|st| st.memlets.iter().any(|m| m.container == c))
    }

    /// The stream of the start state's first statement that touches `c`
    /// (stream 0 when none does).
    fn first_stream(&self, c: ContainerId) -> usize {
        first_user(self.sdfg, c)
            .and_then(|k| self.schedule.states[self.sdfg.start].stream_of[k])
            .unwrap_or(0)
    }

    fn state_arm(&self, sid: StateId) -> TokenStream {
        if let Some(p) = self.persistent.iter().find(|p| p.state == sid) {
            return self.persistent_arm(p);
        }
        let state = &self.sdfg.states[sid];
        let prechecks = self.prechecks(state);
        let move_in = self.move_in();
        let body = self.state_body(sid);
        let move_out = self.move_out();
        let edges = self.edges(sid);
        let end = self.end_of_machine();
        quote! {
            #sid => {
                #prechecks
                #move_in
                #body
                #move_out
                #edges
                #end
            }
        }
    }

    /// The statements of a state with their waits and marks, and the
    /// state-end settle.
    pub(super) fn state_body(&self, sid: StateId) -> TokenStream {
        let state = &self.sdfg.states[sid];
        let sched = &self.schedule.states[sid];
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
        body
    }

    /// Moves every host container into the arm's local binding.
    pub(super) fn move_in(&self) -> TokenStream {
        self.host_containers()
            .map(|c| {
                let v = names::host_var(self.cname(c), Span::call_site());
                let slot = names::host_slot(self.cname(c));
                quote!(let mut #v = #slot;)
            })
            .collect()
    }

    /// Moves every host container back out of the arm's local binding.
    pub(super) fn move_out(&self) -> TokenStream {
        self.host_containers()
            .map(|c| {
                let v = names::host_var(self.cname(c), Span::call_site());
                let slot = names::host_slot(self.cname(c));
                quote!(#slot = #v;)
            })
            .collect()
    }

    /// `let X = X.wait()?;` — the only way out of a `Pending`.
    pub(super) fn wait(&self, c: ContainerId, span: Span) -> TokenStream {
        let v = names::host_var(self.cname(c), span);
        quote_spanned!(span=> let mut #v = #v.wait()?;)
    }

    /// Interstate edges of `sid`, tried in order; the first whose condition
    /// holds assigns its symbols (all right-hand sides first) and moves on.
    pub(super) fn edges(&self, sid: StateId) -> TokenStream {
        let mut out = TokenStream::new();
        let fault = names::fault();
        let fault_type = rt::check_fault();
        for (_, e) in self.sdfg.out_edges(sid) {
            let mut exprs: Vec<&Expr> = e.assignments.iter().map(|a| &a.1).collect();
            exprs.extend(e.condition.iter());
            let bindings = self.edge_bindings(&exprs);
            let access = Place::host(self.sdfg);
            let (emit, loaded) = BodyEmitter::for_exprs(&access, &self.empty, &exprs);
            let access_site = rt::access_site();
            let descs: Vec<TokenStream> = loaded
                .iter()
                .map(|&c| {
                    let container = self.cname(c);
                    let rank = self.sdfg.containers[c].shape.len();
                    quote!(#access_site { container: #container, write: false, rank: #rank })
                })
                .collect();
            let cond = e
                .condition
                .as_ref()
                .map(|c| emit.expr(c))
                .unwrap_or(quote!(true));
            let temps: Vec<Ident> = (0..e.assignments.len()).map(names::edge_value).collect();
            let values: Vec<TokenStream> = e.assignments.iter().map(|a| emit.expr(&a.1)).collect();
            let targets: Vec<Ident> = e.assignments.iter().map(|a| self.sym(a.0)).collect();
            let to = e.to;
            let what = format!(
                "interstate edge `{} -> {}`",
                self.sdfg.states[e.from].name.text, self.sdfg.states[e.to].name.text
            );
            out.extend(quote! {{
                #bindings
                let __fault_owner = #fault_type::new();
                let #fault = &__fault_owner;
                let __taken: bool = #cond;
                __fault_owner.check(#what, &[#(#descs),*])?;
                if __taken {
                    #(let #temps = #values;)*
                    __fault_owner.check(#what, &[#(#descs),*])?;
                    #(#targets = #temps;)*
                    __state = #to;
                    continue;
                }
            }});
        }
        out
    }

    /// Read access to the host containers an edge's expressions load.
    fn edge_bindings(&self, exprs: &[&Expr]) -> TokenStream {
        let mut out = TokenStream::new();
        let mut done = Vec::new();
        for e in exprs {
            e.walk(&mut |x| {
                if let ExprKind::Load { container, .. } = x.kind {
                    if !done.contains(&container) {
                        done.push(container);
                        let slot = names::host_slot(self.cname(container));
                        let name = names::data(self.cname(container));
                        let host_read = rt::at(x.span, rt::host_read());
                        out.extend(quote_spanned!(x.span=> let #name = #host_read(&#slot);));
                    }
                }
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::glue_of;
    use proc_macro2::Ident;

    fn execute_of(src: &str) -> String {
        let mut out = String::new();
        glue_of(src, |g| {
            out = g
                .execute_fn(&Ident::new("Args", proc_macro2::Span::call_site()))
                .to_string()
        });
        out
    }

    #[test]
    fn host_code_that_calls_mul_add_gets_a_copy_compiled_with_fma() {
        for (host, fused) in [
            (
                "map m[i in 0..N] on cpu { Y[i] = X[i].mul_add(2.0, Y[i]); }",
                true,
            ),
            (
                "map m[i in 0..N] on seq { Y[i] = X[i].mul_add(2.0, Y[i]); }",
                true,
            ),
            ("tasklet t { Y[0] = X[0].mul_add(2.0, Y[0]); }", true),
            ("map m[i in 0..N] on cpu { Y[i] = X[i].erf(); }", true),
            (
                "map m[i in 0..N] on cpu { Y[i] = X[i] * 2.0 + Y[i]; }",
                false,
            ),
            // A `gpu` map's twin has its own copy; the host code needs none.
            (
                "map m[i in 0..N] on gpu { G[i] = G[i].mul_add(2.0, 1.0); }",
                false,
            ),
        ] {
            let code = execute_of(&format!(
                "sdfg S {{ symbol N: i64; host X: f32[N]; host Y: f32[N]; gpu G: f32[N]; \
                 state s {{ {host} }} }}"
            ));
            assert_eq!(
                code.contains("target_feature (enable = \"fma\")"),
                fused,
                "{host}: {code}"
            );
            assert_eq!(
                code.contains("self . __execute_fma (__cx , __args)"),
                fused,
                "{host}"
            );
        }
    }
}
