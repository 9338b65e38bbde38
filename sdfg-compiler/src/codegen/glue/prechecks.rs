//! What a state checks before any of its work: every map range (its
//! iteration count), every prechecked index (its exact range by interval
//! arithmetic, `ir::bounds` decides which accesses qualify) and every copy
//! region. A failure is an `Err` naming the container, before the state
//! has touched anything.

use super::Glue;
use crate::codegen::cpu::body::{literal, BodyEmitter};
use crate::codegen::cpu::place::Place;
use crate::codegen::names::{self, RangeScope};
use crate::codegen::runtime_paths as rt;
use crate::ir::bounds::{for_each_access, AccessSite};
use crate::ir::{
    BinOp, ContainerId, Expr, ExprKind, ScalarType, State, Statement, StatementKind, StmtId,
    SubsetDim, TaskletBody, UnOp, VarRef,
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
        for (k, st) in state.stmts.iter().enumerate() {
            match &st.kind {
                StatementKind::Map(m) => {
                    let mut nonempty = Vec::new();
                    let dependent: Vec<bool> = m.params.iter().map(|p| p.is_dependent()).collect();
                    for (d, p) in m.params.iter().enumerate() {
                        let r = names::range(RangeScope::Statement(k), d);
                        let (s, e, t, c) = (r.start, r.end, r.step, r.count);
                        let what = format!(
                            "parameter `{}` of map `{}` in state `{state_name}`",
                            p.name.text, m.name.text
                        );
                        // A dependent range (`ir::ranges`): its box, from the
                        // boxes of the parameters before it.
                        let (start, end) = if dependent[d] {
                            let lo = self.interval(k, &p.start, &what, &dependent);
                            let hi = self.interval(k, &p.end, &what, &dependent);
                            (quote!(#lo.lo), quote!(#hi.hi))
                        } else {
                            (emit.expr(&p.start), emit.expr(&p.end))
                        };
                        let step = p.step.as_ref().map_or(quote!(1), |x| emit.expr(x));
                        out.extend(quote! {
                            let #s: i128 = (#start) as i128;
                            let #e: i128 = (#end) as i128;
                            let #t: i128 = (#step) as i128;
                            let #c: u64 = #range_count(#what, #s, #e, #t)?;
                        });
                        nonempty.push(quote!(#c > 0));
                    }
                    let checks =
                        self.index_prechecks(k, &m.name.text, state_name, &m.body, &dependent);
                    out.extend(quote!(if true #(&& #nonempty)* { #checks }));
                }
                StatementKind::Tasklet(t) => {
                    out.extend(self.index_prechecks(k, &t.name.text, state_name, &t.body, &[]))
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
        dependent: &[bool],
    ) -> TokenStream {
        let mut out = TokenStream::new();
        let mut sites = Vec::new();
        for_each_access(&body.stmts, &mut |site| sites.push(site));
        for site in sites.iter().filter(|s| s.is_prechecked()) {
            out.extend(self.site_precheck(k, stmt_name, state_name, site, dependent));
        }
        out
    }

    fn site_precheck(
        &self,
        k: StmtId,
        stmt_name: &str,
        state_name: &str,
        site: &AccessSite<'_>,
        dependent: &[bool],
    ) -> TokenStream {
        let symbols_only = Place::symbols_only(self.sdfg);
        let emit = BodyEmitter::new(&symbols_only, &self.empty);
        let name = self.cname(site.container);
        let ext = names::extents(name);
        let (index_in_dim, interval) = (rt::check_index_in_dim(), rt::check_interval());
        let mut checks = TokenStream::new();
        for (d, e) in site.index.iter().enumerate() {
            let what = format!("index {d} of `{name}` in `{stmt_name}` (state `{state_name}`)");
            let iv = self.interval(k, e, &what, dependent);
            checks.extend(quote! {
                #index_in_dim(#iv, #ext[#d], &|| ::std::string::String::from(#what))?;
            });
        }
        // Boxed loops enclosing the access: it runs only when they do.
        for (var, start, end, step) in site.enclosing_loops.iter().rev() {
            if !site.loops.is_boxed(*var) {
                continue;
            }
            let lv = names::loop_interval(*var);
            let (a, b) = (emit.expr(start), emit.expr(end));
            let s = step.map_or(quote!(1), |x| emit.expr(x));
            checks = quote! {
                if let ::core::option::Option::Some(#lv) = #interval::of_loop((#a) as i128, (#b) as i128, (#s) as i128) {
                    #checks
                }
            };
        }
        quote!({ #checks })
    }

    /// The exact range of an affine index expression, failing when an
    /// intermediate value may overflow its type (the kernel would wrap).
    /// `dependent[d]`: parameter `d`'s range reads earlier ones; its values
    /// are then all of `start..end` of its box (`ir::ranges`).
    fn interval(&self, k: StmtId, e: &Expr, what: &str, dependent: &[bool]) -> TokenStream {
        let interval = rt::check_interval();
        let raw = match &e.kind {
            ExprKind::Lit(v) => {
                let l = literal(*v);
                quote!(#interval::point((#l) as i128))
            }
            ExprKind::Var(VarRef::Symbol(s)) => {
                let v = self.sym(*s);
                quote!(#interval::point(#v as i128))
            }
            ExprKind::Var(VarRef::Param(d)) if dependent.get(*d).copied().unwrap_or(false) => {
                let r = names::range(RangeScope::Statement(k), *d);
                let (s, e) = (r.start, r.end);
                quote!(#interval::of_loop(#s, #e, 1).unwrap_or(#interval::point(#s)))
            }
            ExprKind::Var(VarRef::Param(d)) => {
                let r = names::range(RangeScope::Statement(k), *d);
                let (s, c, t) = (r.start, r.count, r.step);
                quote!(#interval::strided(#s, #c, #t))
            }
            ExprKind::Var(VarRef::Local(l)) => {
                let lv = names::loop_interval(*l);
                quote!(#lv)
            }
            ExprKind::Unary { op: UnOp::Neg, arg } => {
                let a = self.interval(k, arg, what, dependent);
                quote!(#a.neg())
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let a = self.interval(k, lhs, what, dependent);
                let b = self.interval(k, rhs, what, dependent);
                match op {
                    BinOp::Add => quote!(#a.add(#b)),
                    BinOp::Sub => quote!(#a.sub(#b)),
                    _ => quote!(#a.mul(#b)),
                }
            }
            ExprKind::Cast { arg } => self.interval(k, arg, what, dependent),
            // Not reachable for prechecked accesses (ir::bounds); a point at
            // zero keeps the expansion well-formed.
            _ => quote!(#interval::point(0)),
        };
        let (min, max) = int_range(e.ty);
        quote!(#raw.fits(#min, #max, &|| ::std::string::String::from(#what))?)
    }

    /// Human descriptions of a body's accesses, by fault code.
    pub(super) fn access_descriptions(&self, body: &TaskletBody) -> Vec<String> {
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
}

/// The range of an integer type, as i128 bounds.
fn int_range(t: ScalarType) -> (TokenStream, TokenStream) {
    match t {
        ScalarType::I32 => (quote!(i32::MIN as i128), quote!(i32::MAX as i128)),
        ScalarType::I64 => (quote!(i64::MIN as i128), quote!(i64::MAX as i128)),
        ScalarType::U32 => (quote!(0i128), quote!(u32::MAX as i128)),
        ScalarType::U64 => (quote!(0i128), quote!(u64::MAX as i128)),
        _ => (quote!(i128::MIN), quote!(i128::MAX)),
    }
}
