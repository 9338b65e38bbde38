//! Graph segments in the state machine (`schedule::graphs` decides what
//! may be captured; `sdfg_runtime::__glue::GraphStep` says what happens).
//!
//! A *segment* is a run of captured states, or one device loop. At the top
//! of every turn of the machine's loop:
//! - recording, at a state outside the segment (or the end, or after the
//!   recording failed): `graph_leave`. `Ran`: the graph was built and
//!   launched; go on. `Restart`: nothing was issued; restore the symbols of
//!   the entry and run the segment again, on streams.
//! - running a segment on streams: nothing until the machine leaves it.
//! - otherwise, at a state that may start a segment: `graph_enter` with the
//!   symbols and the call's device buffers. `Ran(exit)`: the segment ran as
//!   one graph launch; take its exit state and symbols. `Record`: run the
//!   segment's states while their operations are recorded (a device loop
//!   is recorded by its own arm). `Streams`: run the segment as usual.
//!
//! A device loop `s` has two more arms: `record_loop(s)` (arm `2N + s`)
//! records its body once inside a conditional node, between the generated
//! init and condition maps, and exits to `finish_loop(s)` (arm `N + s`),
//! which runs after the graph: the deferred copies to the host, the
//! read-back of the loop's symbols, and the state's edges on the host.

use super::Glue;
use crate::codegen::graphs::LoopParts;
use crate::codegen::names;
use crate::codegen::runtime_paths as rt;
use crate::ir::{StateId, Storage};
use crate::schedule::SyncSite;
use proc_macro2::{Span, TokenStream};
use quote::quote;

impl Glue<'_> {
    /// May any segment begin (else the call has no graph code at all)?
    pub(super) fn has_segments(&self) -> bool {
        let plan = &self.schedule.graphs;
        (0..self.sdfg.states.len()).any(|s| plan.segment_start(self.sdfg, s))
    }

    /// The parts of the device loop at state `s`.
    fn loop_parts(&self, s: StateId) -> Option<&LoopParts> {
        self.loops.iter().find(|l| l.state == s)
    }

    /// Is `s` one of the states added for a device loop (never entered)?
    pub(super) fn is_loop_parts(&self, s: StateId) -> bool {
        self.loops.iter().any(|l| l.parts == s)
    }

    fn finish_arm(&self, s: StateId) -> usize {
        self.sdfg.states.len() + s
    }

    fn record_arm(&self, s: StateId) -> usize {
        2 * self.sdfg.states.len() + s
    }

    /// How a state arm ends the machine when no edge is taken: with
    /// segments, through the top of the loop (a recording may end there).
    pub(super) fn end_of_machine(&self) -> TokenStream {
        if self.has_segments() {
            quote!(__state = usize::MAX; continue;)
        } else {
            quote!(break;)
        }
    }

    /// Every symbol's bits, in symbol order (symbols are integers of at
    /// most 64 bits: the low 64 of `Elem::to_bits` are all of them).
    fn symbol_bits(&self) -> TokenStream {
        let elem = rt::elem();
        let bits = (0..self.sdfg.symbols.len()).map(|s| {
            let v = self.sym(s);
            quote!((#elem::to_bits(#v) as u64))
        });
        quote!([#(#bits),*])
    }

    /// Assigns every symbol from `bits(i)`.
    fn assign_symbols(&self, bits: impl Fn(usize) -> TokenStream) -> TokenStream {
        let elem = rt::elem();
        self.sdfg
            .symbols
            .iter()
            .enumerate()
            .map(|(s, sym)| {
                let v = self.sym(s);
                let t = crate::codegen::cpu::tokens::rust_type(sym.ty);
                let b = bits(s);
                quote!(#v = <#t as #elem>::from_bits(u128::from(#b));)
            })
            .collect()
    }

    /// `matches!(var, a | b | ...)` over `states` (`false` if none).
    fn state_in(var: &proc_macro2::Ident, states: &[usize]) -> TokenStream {
        if states.is_empty() {
            quote!(false)
        } else {
            quote!(matches!(#var, #(#states)|*))
        }
    }

    /// The bindings a call with segments needs (after its setup).
    pub(super) fn segment_setup(&self) -> TokenStream {
        if !self.has_segments() {
            return TokenStream::new();
        }
        let n = names::segments();
        let (buffers, on, recording, streaming, entry, saved, guard) = (
            n.buffers,
            n.on,
            n.recording,
            n.streaming,
            n.entry,
            n.saved,
            n.guard,
        );
        let (kernel_arg, graph_guard) = (rt::kernel_arg(), rt::graph_guard());
        let list: Vec<TokenStream> = self
            .sdfg
            .containers
            .iter()
            .filter(|c| c.storage == Storage::Gpu)
            .map(|c| {
                let g = names::gpu_ref(&c.name.text);
                quote!(#kernel_arg::read(#g))
            })
            .collect();
        let count = list.len();
        let nsym = self.sdfg.symbols.len();
        quote! {
            let #guard = #graph_guard::default();
            // Every device buffer of the call (the access kinds of a graph
            // launch come from its recording).
            let #buffers: [#kernel_arg<'_>; #count] = [#(#list),*];
            let #on: bool = self.__program.graphs_enabled();
            let mut #recording: bool = false;
            let mut #streaming: bool = false;
            let mut #entry: usize = 0;
            let mut #saved: [u64; #nsym] = [0; #nsym];
        }
    }

    /// The top of each turn of the state machine (see the module docs).
    pub(super) fn segment_step(&self) -> TokenStream {
        if !self.has_segments() {
            return TokenStream::new();
        }
        let plan = &self.schedule.graphs;
        let n = names::segments();
        let (buffers, on, recording, streaming, entry, saved, exit) = (
            n.buffers,
            n.on,
            n.recording,
            n.streaming,
            n.entry,
            n.saved,
            n.exit,
        );
        let step = rt::graph_step();
        let all = 0..self.sdfg.states.len();
        let captured: Vec<usize> = all.clone().filter(|&s| plan.captured(s)).collect();
        let loops: Vec<usize> = all
            .clone()
            .filter(|&s| plan.device_loop(s).is_some() && self.loop_parts(s).is_some())
            .collect();
        let starts: Vec<usize> = all
            .clone()
            .filter(|&s| {
                plan.segment_start(self.sdfg, s) && (plan.captured(s) || loops.contains(&s))
            })
            .collect();
        let state = proc_macro2::Ident::new("__state", Span::call_site());
        let (state_captured, state_starts, state_loops, entry_loops) = (
            Self::state_in(&state, &captured),
            Self::state_in(&state, &starts),
            Self::state_in(&state, &loops),
            Self::state_in(&entry, &loops),
        );
        let bits = self.symbol_bits();
        let restore = self.assign_symbols(|i| quote!(#saved[#i]));
        let from_exit = self.assign_symbols(|i| quote!(#exit.symbol(#i)));
        let record_offset = self.record_arm(0);
        quote! {
            if #on {
                // The segment that began at `#entry`: a device loop is its
                // one state, else a run of captured states.
                let __in_segment: bool = if #entry_loops { __state == #entry } else { #state_captured };
                if #recording && (!__in_segment || __cx.graph_recording_failed()) {
                    #recording = false;
                    // SAFETY: the segment from `#entry` holds only states
                    // the schedule captured (or one device loop): their
                    // operations depend on the symbols, the buffers and the
                    // context alone.
                    let __step = unsafe { __cx.graph_leave(__state, &#bits, &#buffers) }?;
                    if let #step::Restart = __step {
                        #restore
                        __state = #entry;
                    }
                    continue;
                }
                if #streaming && !__in_segment {
                    #streaming = false;
                }
                if !#recording && !#streaming && #state_starts {
                    #entry = __state;
                    // SAFETY: as at `graph_leave` above.
                    match unsafe { __cx.graph_enter(__state, &#bits, &#buffers) }? {
                        #step::Ran(#exit) => {
                            #from_exit
                            __state = #exit.state();
                            continue;
                        }
                        #step::Record => {
                            #recording = true;
                            #saved = #bits;
                            if #state_loops {
                                __state += #record_offset;
                            }
                        }
                        _ => #streaming = true,
                    }
                }
            }
        }
    }

    /// The recording and finishing arms of every device loop.
    pub(super) fn loop_arms(&self) -> TokenStream {
        self.loops
            .iter()
            .filter(|l| self.schedule.graphs.device_loop(l.state).is_some())
            .map(|l| {
                let record = self.record_loop(l);
                let finish = self.finish_loop(l);
                quote!(#record #finish)
            })
            .collect()
    }

    /// Records the loop's body once, inside a conditional node.
    fn record_loop(&self, l: &LoopParts) -> TokenStream {
        let arm = self.record_arm(l.state);
        let finish = self.finish_arm(l.state);
        let (state, parts) = (&self.sdfg.states[l.state], &self.sdfg.states[l.parts]);
        let deferred: Vec<usize> = self
            .schedule
            .graphs
            .device_loop(l.state)
            .map(|d| d.copies.iter().map(|c| c.0).collect())
            .unwrap_or_default();
        let parts_checks = self.prechecks(parts);
        let init = l
            .init
            .map(|k| {
                let launch = self.statement(l.parts, k, &parts.stmts[k]);
                quote!({ #parts_checks #launch })
            })
            .unwrap_or_default();
        let state_checks = self.prechecks(state);
        let body: TokenStream = state
            .stmts
            .iter()
            .enumerate()
            .filter(|(k, _)| !deferred.contains(k))
            .map(|(k, st)| self.statement(l.state, k, st))
            .collect();
        let condition = self.statement(l.parts, l.condition, &parts.stmts[l.condition]);
        let flag = names::gpu_ref(self.cname(l.flag));
        quote! {
            #arm => {
                #init
                __cx.graph_loop_begin();
                { #state_checks #body }
                { #parts_checks #condition }
                __cx.graph_loop_end(#flag);
                __state = #finish;
                continue;
            }
        }
    }

    /// After the loop's graph: the deferred copies and the read-back of the
    /// loop's symbols, then the state's edges.
    fn finish_loop(&self, l: &LoopParts) -> TokenStream {
        let arm = self.finish_arm(l.state);
        let parts = &self.sdfg.states[l.parts];
        let sched = &self.schedule.states[l.parts];
        let checks = self.prechecks(parts);
        let mut body = TokenStream::new();
        for k in l.copies.clone() {
            for sp in sched.syncs.iter().filter(|p| p.site == SyncSite::Before(k)) {
                body.extend(self.wait(sp.container, sp.span));
            }
            body.extend(self.statement(l.parts, k, &parts.stmts[k]));
        }
        for sp in sched.syncs.iter().filter(|p| p.site == SyncSite::StateEnd) {
            body.extend(self.wait(sp.container, sp.span));
        }
        let host_read = rt::host_read();
        let read_back: TokenStream = l
            .slots
            .iter()
            .map(|&(sym, _, host)| {
                let v = self.sym(sym);
                let h = names::host_var(self.cname(host), Span::call_site());
                quote!(#v = #host_read(&#h)[0];)
            })
            .collect();
        let (move_in, move_out) = (self.move_in(), self.move_out());
        let edges = self.edges(l.state);
        let end = self.end_of_machine();
        quote! {
            #arm => {
                #checks
                #move_in
                #body
                #read_back
                #move_out
                #edges
                #end
            }
        }
    }
}
