//! What a state checks before any of its work: every map range (its
//! iteration count), every prechecked index (its exact range, computed by
//! the runtime's interval arithmetic from the plan `ir::bounds` made for
//! it: the same plan that decided the access is prechecked) and every copy
//! region. A failure is an `Err` naming the container, before the state
//! has touched anything.

use super::Glue;
use crate::codegen::cpu::body::BodyEmitter;
use crate::codegen::cpu::intervals::{exclusive_end, plan_range};
use crate::codegen::cpu::place::Place;
use crate::codegen::names::{self, RangeScope};
use crate::codegen::runtime_paths as rt;
use crate::ir::bounds::{for_each_access, AccessSite, IntervalPlan, PlanVar};
use crate::ir::{ContainerId, State, Statement, StatementKind, StmtId, SubsetDim, TaskletBody};
use proc_macro2::TokenStream;
use quote::quote;

impl Glue<'_> {
    /// Map ranges and every prechecked index of the state, before its work.
    pub(super) fn prechecks(&self, state: &State) -> TokenStream {
        let mut out = TokenStream::new();
        let symbols_only = Place::symbols_only(self.sdfg);
        let emit = BodyEmitter::new(&symbols_only, &self.empty);
        let state_name = &state.name.text;
        let range_count = rt::check_range_count();
        for (k, st) in state.stmts.iter().enumerate() {
            match &st.kind {
                StatementKind::Map(m) => {
                    let mut nonempty = Vec::new();
                    for (d, p) in m.params.iter().enumerate() {
                        let r = names::range(RangeScope::Statement(k), d);
                        let (s, e, t, c) = (r.start, r.end, r.step, r.count);
                        let start = emit.expr(&p.start);
                        let end = exclusive_end(&emit, p.run_end());
                        let step = p.step.as_ref().map_or(quote!(1), |x| emit.expr(x));
                        let what = format!(
                            "parameter `{}` of map `{}` in state `{state_name}`",
                            p.name.text, m.name.text
                        );
                        out.extend(quote! {
                            let #s: i128 = (#start) as i128;
                            let #e: i128 = #end;
                            let #t: i128 = (#step) as i128;
                            let #c: u64 = #range_count(#what, #s, #e, #t)?;
                        });
                        nonempty.push(quote!(#c > 0));
                    }
                    let block = self.block_prechecks(m, state_name);
                    let checks = self.index_prechecks(k, &m.name.text, state_name, &m.body);
                    out.extend(quote!(if true #(&& #nonempty)* { #block #checks }));
                }
                StatementKind::Tasklet(t) => {
                    out.extend(self.index_prechecks(k, &t.name.text, state_name, &t.body))
                }
                StatementKind::Copy(c) => out.extend(self.copy_regions(k, st, c.src, c.dst)),
                // Calls are inlined before code generation (validate
                // rejects an SDFG that still holds one).
                StatementKind::Wait(_) | StatementKind::Nested(_) => {}
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
        let symbols_only = Place::symbols_only(self.sdfg);
        let emit = BodyEmitter::new(&symbols_only, &self.empty);
        let copy_side = rt::check_copy_side();
        let side = |c: ContainerId, memlet: usize| -> TokenStream {
            let name = self.cname(c);
            let ext = names::extents(name);
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
            quote!(#copy_side { container: #name, dims: &[#(#dims),*], extents: &#ext })
        };
        let (a, b) = (side(src, 0), side(dst, 1));
        let (rs, rd) = names::copy_regions(k);
        let copy_regions = rt::check_copy_regions();
        quote!(let (#rs, #rd) = #copy_regions(#a, #b)?;)
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
        for site in &sites {
            if let Some(plans) = site.precheck_plans() {
                out.extend(self.site_precheck(k, stmt_name, state_name, site, &plans));
            }
        }
        out
    }

    fn site_precheck(
        &self,
        k: StmtId,
        stmt_name: &str,
        state_name: &str,
        site: &AccessSite<'_>,
        plans: &[IntervalPlan<'_>],
    ) -> TokenStream {
        let symbols_only = Place::symbols_only(self.sdfg);
        let emit = BodyEmitter::new(&symbols_only, &self.empty);
        let name = self.cname(site.container);
        let ext = names::extents(name);
        let (index_in_dim, interval) = (rt::check_index_in_dim(), rt::interval());
        let var = |v: PlanVar| match v {
            PlanVar::Param(d) => {
                let r = names::range(RangeScope::Statement(k), d);
                let (s, c, t) = (r.start, r.count, r.step);
                quote!(#interval::strided(#s, #c, #t))
            }
            PlanVar::Loop(l) => {
                let lv = names::loop_interval(l);
                quote!(#lv)
            }
        };
        let mut checks = TokenStream::new();
        for (d, plan) in plans.iter().enumerate() {
            let what = format!("index {d} of `{name}` in `{stmt_name}` (state `{state_name}`)");
            let range = plan_range(plan, &emit, &var, &what);
            checks.extend(quote! {
                #index_in_dim(#range, #ext[#d], &|| ::std::string::String::from(#what))?;
            });
        }
        // Boxed loops enclosing the access: it runs only when they do.
        for lp in site.enclosing_loops.iter().rev() {
            if !site.loops.is_boxed(lp.var) {
                continue;
            }
            let lv = names::loop_interval(lp.var);
            let a = emit.expr(lp.start);
            let b = exclusive_end(&emit, lp.end);
            let s = lp.step.map_or(quote!(1), |x| emit.expr(x));
            checks = quote! {
                if let ::core::option::Option::Some(#lv) = #interval::of_loop((#a) as i128, #b, (#s) as i128) {
                    #checks
                }
            };
        }
        quote!({ #checks })
    }
}
