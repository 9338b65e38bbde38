//! What a state checks before any of its work: the extents of the nested
//! calls it makes that the compiler could not prove (`ir::ExtentCheck`),
//! every map range (its iteration count), every prechecked index (its exact
//! range, computed by the runtime's interval arithmetic from the plan
//! `ir::bounds` made for it: the same plan that decided the access is
//! prechecked) and every copy region. A failure is an `Err` naming the
//! container, before the state has touched anything.

use super::Glue;
use crate::codegen::cpu::body::BodyEmitter;
use crate::codegen::cpu::intervals::{exclusive_end, plan_range};
use crate::codegen::cpu::place::Place;
use crate::codegen::names::{self, RangeScope};
use crate::codegen::runtime_paths as rt;
use crate::ir::bounds::{
    for_each_access, for_each_map_access, hull_plan, AccessSite, IntervalPlan, PlanVar,
};
use crate::ir::{
    BinOp, ContainerId, Expr, ExprKind, MapParam, RangeEnd, State, Statement, StatementKind,
    StmtId, SubsetDim, UnOp,
};
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
        let binding_extent = rt::check_binding_extent();
        for c in &state.extent_checks {
            let what = format!(
                "dimension {} of `{}` of nested sdfg `{}` (declared {}), called in state `{}` with `{}`,",
                c.dim, c.inner, c.callee, c.declared_text, c.state, c.outer
            );
            let declared = emit.expr(&c.declared);
            let bound = emit.expr(&c.bound);
            out.extend(quote! {
                #binding_extent(#what, (#declared) as i128, (#bound) as i128)?;
            });
        }
        for (k, st) in state.stmts.iter().enumerate() {
            match &st.kind {
                StatementKind::Map(m) => {
                    let mut nonempty = Vec::new();
                    for (d, p) in m.params.iter().enumerate() {
                        let r = names::range(RangeScope::Statement(k), d);
                        let (s, e, t, c) = (r.start, r.end, r.step, r.count);
                        let what = format!(
                            "parameter `{}` of map `{}` in state `{state_name}`",
                            p.name.text, m.name.text
                        );
                        let (start, end) = if p.is_dependent() {
                            self.dependent_box(k, p, &emit, &what)
                        } else {
                            let start = emit.expr(&p.start);
                            (quote!((#start) as i128), exclusive_end(&emit, p.run_end()))
                        };
                        let step = p.step.as_ref().map_or(quote!(1), |x| emit.expr(x));
                        out.extend(quote! {
                            let #s: i128 = #start;
                            let #e: i128 = #end;
                            let #t: i128 = (#step) as i128;
                            let #c: u64 = #range_count(#what, #s, #e, #t)?;
                        });
                        nonempty.push(quote!(#c > 0));
                    }
                    let mut sites = Vec::new();
                    for_each_map_access(m, &mut |site| sites.push(site));
                    let block = self.block_prechecks(m, state_name);
                    let checks = self.index_prechecks(k, &m.name.text, state_name, &sites);
                    out.extend(quote!(if true #(&& #nonempty)* { #block #checks }));
                }
                StatementKind::Tasklet(t) => {
                    let mut sites = Vec::new();
                    for_each_access(&t.body.stmts, &mut |site| sites.push(site));
                    out.extend(self.index_prechecks(k, &t.name.text, state_name, &sites))
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
                        let i = exact_bound(&emit, i);
                        quote!({ let __i = #i; (__i, __i.saturating_add(1)) })
                    }
                    SubsetDim::Range { start, end } => {
                        let (a, b) = (exact_bound(&emit, start), exact_bound(&emit, end));
                        quote!((#a, #b))
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

    /// The box of a dependent range (`ir::ranges`) as `i128` start and
    /// exclusive end: the smallest start and the largest end over the boxes
    /// of the parameters before it (hull plans: a superset of every
    /// iteration's range, which is what the launch needs; the accesses of
    /// such a map are guarded, `ir::bounds::LoopScope::for_map`).
    fn dependent_box(
        &self,
        k: StmtId,
        p: &MapParam,
        emit: &BodyEmitter<'_>,
        what: &str,
    ) -> (TokenStream, TokenStream) {
        let interval = rt::interval();
        // Every value from the start to the end of an earlier parameter's
        // range (its box, when it is dependent itself): with a step, an
        // earlier dependent parameter's values need not lie on its box's
        // stride (`(i..2 * i + 1).step_by(2)` takes odd values for odd `i`).
        let var = |v: PlanVar| match v {
            PlanVar::Param(d) => {
                let r = names::range(RangeScope::Statement(k), d);
                let (s, e) = (r.start, r.end);
                quote!(#interval::of_loop(#s, #e, 1).unwrap_or(#interval::point(#s)))
            }
            // Range bounds read no loop variables (ir::ranges).
            PlanVar::Loop(_) => quote!(#interval::point(0)),
        };
        let (last, plus) = match p.run_end() {
            RangeEnd::Exclusive(e) => (e, quote!()),
            RangeEnd::Inclusive(last) => (last, quote!(+ 1)),
        };
        match (hull_plan(&p.start), hull_plan(last)) {
            (Some(lo), Some(hi)) => {
                let lo = plan_range(&lo, emit, &var, what);
                let hi = plan_range(&hi, emit, &var, what);
                (quote!(#lo.lo), quote!((#hi.hi #plus)))
            }
            // Lowering admits only `+ - *` of parameters, symbols and
            // literals, which always have a hull plan; an empty box else.
            _ => (quote!(0i128), quote!(0i128)),
        }
    }

    /// Interval checks of every prechecked access among `sites`.
    fn index_prechecks(
        &self,
        k: StmtId,
        stmt_name: &str,
        state_name: &str,
        sites: &[AccessSite<'_>],
    ) -> TokenStream {
        let mut out = TokenStream::new();
        // A read and a write of the same element (`Y[i] = Y[i] + 1`), or two
        // reads of it, check the same range: once is enough (each check
        // costs the call time, every call).
        let mut emitted = std::collections::HashSet::new();
        for site in sites {
            if let Some(plans) = site.precheck_plans() {
                let check = self.site_precheck(k, stmt_name, state_name, site, &plans);
                if emitted.insert(check.to_string()) {
                    out.extend(check);
                }
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

/// A copy subset bound as an exact `i128`: its `+`, `-`, `*` and negation
/// do not wrap in the symbols' type (saturating in `i128`, where a value
/// out of its range is out of every container anyway), other operators
/// keep the type's meaning. A subset end `a..=N` is `N + 1` in the IR: with
/// `N == u64::MAX` it would wrap to 0 and the subset `0..0` would copy
/// nothing; the offsets that inlining a nested SDFG adds to its subsets
/// (`X[1..=1 + M]`) are checked the same way.
fn exact_bound(emit: &BodyEmitter<'_>, e: &Expr) -> TokenStream {
    let exact = |x: &Expr| exact_bound(emit, x);
    match &e.kind {
        ExprKind::Binary { op, lhs, rhs } if matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul) => {
            let (a, b) = (exact(lhs), exact(rhs));
            match op {
                BinOp::Add => quote!((#a).saturating_add(#b)),
                BinOp::Sub => quote!((#a).saturating_sub(#b)),
                _ => quote!((#a).saturating_mul(#b)),
            }
        }
        ExprKind::Unary { op: UnOp::Neg, arg } => {
            let a = exact(arg);
            quote!((#a).saturating_neg())
        }
        _ => {
            let v = emit.expr(e);
            quote!(((#v) as i128))
        }
    }
}

#[cfg(test)]
mod tests {
    /// `Y[i] = Y[i] + 1` reads and writes the same element: one check of
    /// its range per call, not two; a different index is still checked.
    #[test]
    fn the_same_index_is_checked_once() {
        let source = "sdfg P { symbol N: i64; gpu X: f32[N]; gpu Y: f32[N]; \
             state s { map t[i in 1..N] on gpu { Y[i] = Y[i] + X[i] * X[i - 1]; } } }";
        let glue = crate::expand(source.parse().expect("tokens")).to_string();
        // Each check names its index twice (wrap-around and bounds messages).
        let checks = |c: &str| glue.matches(&format!("index 0 of `{c}` in `t`")).count();
        assert_eq!((checks("Y"), checks("X")), (2, 4), "{glue}");
    }
}
