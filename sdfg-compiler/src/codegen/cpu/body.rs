//! Tasklet bodies -> Rust. One emitter for every place a body runs on the
//! host: host tasklets, `cpu`/`seq` maps and the CPU-device twins of `gpu`
//! maps. Where the data lives differs per place; [`DataAccess`] supplies
//! those pieces, everything else (the language's semantics) is here once.
//!
//! Semantics follow `ir::expr`'s module documentation (the same as the PTX
//! backend and the reference evaluator): wrapping integer arithmetic,
//! `x / 0 == 0`, `x % 0 == x`, masked shift amounts, Rust's `as` casts,
//! lazy `&&`/`||`/`if`, IEEE floats without contraction.

use super::access::Reduction;
use super::thread_map::BlockPartial;
use super::tokens::{combine_values, literal, rust_type, zero_of};
use crate::codegen::{names, runtime_paths as rt};
use crate::ir::bounds::{for_each_access, split_constant, AccessNode, LoopScope};
use crate::ir::{
    range_end, BinOp, Container, ContainerId, ContainerUse, Expr, ExprKind, LocalId, MathFn,
    RangeEnd, ScalarType, Stmt, Storage, SymbolId, TaskletBody, ThreadMap, UnOp, VarRef, WcrOp,
};
use crate::math;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use std::cell::{Cell, RefCell};

/// How the emitted code reaches data in one place.
pub(crate) trait DataAccess {
    /// The value of element `offset` (a `usize` expression known in bounds) of `c`.
    fn load(&self, c: ContainerId, offset: TokenStream, span: Span) -> TokenStream;
    /// Store `value` to element `offset` of `c` (plain or reduction).
    fn store(
        &self,
        c: ContainerId,
        offset: TokenStream,
        value: TokenStream,
        wcr: Option<WcrOp>,
    ) -> TokenStream;
    /// Length of dimension `d` of `c`, a `usize` expression.
    fn extent(&self, c: ContainerId, d: usize) -> TokenStream;
    /// A statement recording that access `code` (from 1) was out of bounds
    /// at row-major `index` (an `i64` expression).
    fn fault(&self, code: u32, index: TokenStream) -> TokenStream;
    fn symbol(&self, s: SymbolId) -> TokenStream;
    /// Map parameter `n` (None outside maps).
    fn param(&self, n: usize) -> TokenStream;
    fn elem_type(&self, c: ContainerId) -> ScalarType;
    /// Code at the start and at the end of each iteration of a thread map
    /// that uses containers as `used` says: a block map's views of register
    /// data; none elsewhere.
    fn iteration_views(&self, used: &[ContainerUse]) -> (TokenStream, TokenStream) {
        let _ = used;
        (TokenStream::new(), TokenStream::new())
    }
}

/// Emits a body. Fault codes number the body's accesses 1, 2, ... in the
/// order of `ir::bounds::for_each_access`, the same numbering the PTX
/// backend uses, so a fault names the same access on every device.
pub(crate) struct BodyEmitter<'a> {
    pub data: &'a dyn DataAccess,
    pub body: &'a TaskletBody,
    /// Each access, keyed by its node (`AccessNode::key`): its fault code
    /// and whether `ir::bounds` prechecks it.
    codes: Vec<(*const (), u32, bool)>,
    /// The glue prechecked this body's statement (a map or a tasklet):
    /// prechecked accesses compute their offset without a check.
    prechecked: bool,
    /// Reduction sites that accumulate into a chunk's partial (a local)
    /// instead of the container.
    pub(super) partials: &'a [Reduction],
    /// Lane-blocked emission (`codegen::cpu::lanes`): the locals a `let`
    /// declares are arrays with one element per lane, indexed by `__lane`.
    pub(super) lanes: bool,
    /// Which locals a `let` declares (the others are `for` variables).
    pub(super) let_locals: Vec<bool>,
    /// In a block map's twin: the containers (for its block reductions).
    pub(super) block: Option<&'a [Container]>,
    /// In a block map's twin: the threads the kernel launches per block
    /// when the block's size is a constant (block partials are then arrays).
    pub(super) block_launched: Option<usize>,
    /// The block reductions of the thread map being emitted.
    pub(super) block_partials: RefCell<Vec<BlockPartial>>,
    /// In a block map's twin: the program a member of a block team runs
    /// (`runtime::cpu::team`; `__member` in scope): thread maps run the
    /// member's GPU threads, barriers wait for the team, block-level
    /// stores are member 0's.
    pub(super) team: bool,
    /// In a private team's program (`codegen::cpu::replicas`): the thread
    /// maps every member runs whole (by address); barriers are nothing and
    /// block-level stores to block data every member's.
    pub(super) replicated: Option<Vec<*const ThreadMap>>,
    /// Emitting the body of a thread map (not block-level statements).
    pub(super) in_thread_map: Cell<bool>,
}

impl<'a> BodyEmitter<'a> {
    pub fn new(data: &'a dyn DataAccess, body: &'a TaskletBody) -> BodyEmitter<'a> {
        let mut codes = Vec::new();
        let mut next = 1u32;
        for_each_access(&body.stmts, &mut |site| {
            codes.push((site.node.key(), next, site.is_prechecked()));
            next += 1;
        });
        let mut let_locals = vec![false; body.locals.len()];
        for s in &body.stmts {
            s.walk(&mut |x| {
                if let Stmt::Let { local, .. } = x {
                    let_locals[*local] = true;
                }
            });
        }
        BodyEmitter {
            data,
            body,
            codes,
            prechecked: false,
            partials: &[],
            lanes: false,
            let_locals,
            block: None,
            block_launched: None,
            block_partials: RefCell::new(Vec::new()),
            team: false,
            replicated: None,
            in_thread_map: Cell::new(false),
        }
    }

    /// The body of a block map (thread maps run in order; block reductions
    /// combine per-thread partials in the GPU's order, see `thread_map`);
    /// `launched`: the threads per block in whole warps, when a constant.
    pub fn block_map(
        data: &'a dyn DataAccess,
        body: &'a TaskletBody,
        containers: &'a [Container],
        launched: Option<usize>,
    ) -> BodyEmitter<'a> {
        let mut e = BodyEmitter::new(data, body);
        e.block = Some(containers);
        e.block_launched = launched;
        e
    }

    /// The program of a member of a block team (see `team`).
    pub fn in_team(mut self) -> Self {
        self.team = true;
        self
    }

    /// The program of a member of a private team (see `replicated`).
    pub fn in_private_team(mut self, replicated: Vec<*const ThreadMap>) -> Self {
        self.team = true;
        self.replicated = Some(replicated);
        self
    }

    /// Whether thread map `t` runs only the member's GPU threads: in a
    /// team, unless a private team replicates it.
    pub(super) fn splits(&self, t: &ThreadMap) -> bool {
        self.team
            && !self
                .replicated
                .as_ref()
                .is_some_and(|r| r.contains(&(t as *const ThreadMap)))
    }

    /// Whether `c` is block data (`shared` or `register`).
    fn is_block_data(&self, c: ContainerId) -> bool {
        self.block
            .is_some_and(|cs| matches!(cs[c].storage, Storage::Shared | Storage::Register))
    }

    /// A local as the code reads and writes it: `__l3`, or in lane-blocked
    /// code, for a `let` local, `__l3[__lane]`.
    pub(super) fn local_place(&self, l: LocalId) -> TokenStream {
        let name = names::local(l);
        if self.lanes && self.let_locals[l] {
            quote!(#name[__lane])
        } else {
            quote!(#name)
        }
    }

    /// The body of a statement whose prechecks the glue emitted (a map or
    /// a tasklet; not an interstate edge): the accesses `ir::bounds`
    /// prechecks index without a check, as in the PTX kernel.
    pub fn after_prechecks(mut self) -> Self {
        self.prechecked = true;
        self
    }

    /// Lane-blocked emission (`codegen::cpu::lanes`).
    pub fn lane_blocked(mut self) -> Self {
        self.lanes = true;
        self
    }

    /// The reduction sites that accumulate into chunk partials
    /// ([`BodyEmitter::partial_locals`], [`BodyEmitter::combine_partials`]).
    pub fn with_partials(mut self, partials: &'a [Reduction]) -> Self {
        self.partials = partials;
        self
    }

    /// An emitter for expressions outside any body (an interstate edge's
    /// condition and assignments; `empty` has no locals): fault codes
    /// number their loads 1, 2, ... in evaluation order, and the second
    /// result lists the container of each, for the fault's message.
    pub fn for_exprs(
        data: &'a dyn DataAccess,
        empty: &'a TaskletBody,
        exprs: &[&Expr],
    ) -> (BodyEmitter<'a>, Vec<ContainerId>) {
        fn loads(e: &Expr, out: &mut Vec<(*const (), ContainerId)>) {
            match &e.kind {
                ExprKind::Load { container, index } => {
                    index.iter().for_each(|i| loads(i, out));
                    out.push((e as *const Expr as *const (), *container));
                }
                ExprKind::Lit(_) | ExprKind::Var(_) => {}
                ExprKind::Unary { arg, .. } | ExprKind::Cast { arg } => loads(arg, out),
                ExprKind::Binary { lhs, rhs, .. } => {
                    loads(lhs, out);
                    loads(rhs, out);
                }
                ExprKind::Select { cond, then, else_ } => {
                    loads(cond, out);
                    loads(then, out);
                    loads(else_, out);
                }
                ExprKind::Call { args, .. } => args.iter().for_each(|a| loads(a, out)),
            }
        }
        let mut found = Vec::new();
        exprs.iter().for_each(|e| loads(e, &mut found));
        let codes = found
            .iter()
            .map(|&(key, _)| key)
            .zip(1u32..)
            .map(|(key, code)| (key, code, false))
            .collect();
        let containers = found.into_iter().map(|(_, c)| c).collect();
        (
            BodyEmitter {
                data,
                body: empty,
                codes,
                prechecked: false,
                partials: &[],
                lanes: false,
                let_locals: Vec::new(),
                block: None,
                block_launched: None,
                block_partials: RefCell::new(Vec::new()),
                team: false,
                replicated: None,
                in_thread_map: Cell::new(false),
            },
            containers,
        )
    }

    /// When store site `code` reduces into a chunk partial (a local
    /// combined after the map), the update of that partial by `__v`.
    pub(super) fn chunk_partial_update(&self, code: u32) -> Option<TokenStream> {
        let r = self.partials.iter().find(|r| r.code == code)?;
        let part = names::partial(code);
        let combined = combine_values(r.op, r.elem, quote!(#part), quote!(__v));
        let hit = r.guarded.then(|| {
            let hit = names::partial_hit(code);
            quote!(#hit = true;)
        });
        Some(quote!(#part = #combined; #hit))
    }

    /// The fault code of the access at `node` and whether it is prechecked.
    pub(super) fn site(&self, node: AccessNode<'_>) -> (u32, bool) {
        let key = node.key();
        self.codes
            .iter()
            .find(|(k, _, _)| *k == key)
            .map_or((u32::MAX, false), |k| (k.1, self.prechecked && k.2))
    }

    pub fn stmts(&self, stmts: &[Stmt]) -> TokenStream {
        stmts
            .iter()
            .map(|s| self.stmt(s, &LoopScope::default()))
            .collect()
    }

    pub(super) fn stmt(&self, s: &Stmt, loops: &LoopScope) -> TokenStream {
        match s {
            Stmt::Let { local, init, .. } if self.lanes => {
                let place = self.local_place(*local);
                let v = self.expr(init);
                quote!(#place = #v;)
            }
            Stmt::Let { local, init, .. } => {
                let name = names::local(*local);
                let ty = rust_type(self.body.locals[*local].ty);
                let v = self.expr(init);
                if self.body.locals[*local].mutable {
                    quote!(#[allow(unused_mut)] let mut #name: #ty = #v;)
                } else {
                    quote!(let #name: #ty = #v;)
                }
            }
            Stmt::AssignLocal { local, value, .. } => {
                let place = self.local_place(*local);
                let v = self.expr(value);
                quote!(#place = #v;)
            }
            // A block-level store is thread 0's, so member 0's in a team:
            // the store as any other, under `rank == 0` (in a private team,
            // a store to block data is every member's, to its own copy).
            Stmt::Store { container, .. }
                if self.team
                    && !self.in_thread_map.get()
                    && !(self.replicated.is_some() && self.is_block_data(*container)) =>
            {
                self.in_thread_map.set(true);
                let store = self.stmt(s, loops);
                self.in_thread_map.set(false);
                quote!(if __member.rank == 0 { #store })
            }
            Stmt::Store {
                container,
                index,
                value,
                wcr,
                ..
            } => {
                if let Some(redirected) = self.partial_update(*container, index, value) {
                    return redirected;
                }
                let v = self.expr(value);
                let (code, prechecked) = self.site(AccessNode::Store(s));
                if let Some(update) = self.chunk_partial_update(code) {
                    // A chunk partial: the element is combined after the map.
                    return quote! {{
                        let __v = #v;
                        #update
                    }};
                }
                let store = self.data.store(*container, quote!(__o), quote!(__v), *wcr);
                if prechecked {
                    let offset = self.direct_offset(*container, index);
                    return quote! {{
                        let __v = #v;
                        let __o: usize = #offset;
                        #store
                    }};
                }
                let offset = self.offset(*container, index);
                let flat = names::fault_index();
                let fault = self.data.fault(code, quote!(#flat));
                quote! {{
                    let __v = #v;
                    match #offset {
                        ::core::result::Result::Ok(__o) => { #store }
                        ::core::result::Result::Err(#flat) => { #fault }
                    }
                }}
            }
            Stmt::If {
                cond, then, else_, ..
            } => {
                let c = self.expr(cond);
                let t: TokenStream = then.iter().map(|s| self.stmt(s, loops)).collect();
                let e: TokenStream = else_.iter().map(|s| self.stmt(s, loops)).collect();
                quote!(if #c { #t } else { #e })
            }
            Stmt::For {
                var,
                start,
                end,
                inclusive,
                step,
                body,
                ..
            } => {
                if let Some(folded) = self.keyed_fold(s) {
                    return folded;
                }
                let inner = loops.enter_loop(*var, start, end, step.as_ref(), body);
                let b_tokens: TokenStream = body.iter().map(|s| self.stmt(s, &inner)).collect();
                self.for_loop(
                    *var,
                    start,
                    range_end(end, *inclusive),
                    step.as_ref(),
                    b_tokens,
                )
            }
            Stmt::While { cond, body, .. } => {
                let c = self.expr(cond);
                let inner = loops.enter_while();
                let b_tokens: TokenStream = body.iter().map(|s| self.stmt(s, &inner)).collect();
                quote!(while #c { #b_tokens })
            }
            Stmt::Break { .. } => quote!(break;),
            Stmt::Continue { .. } => quote!(continue;),
            Stmt::ThreadMap(t) => self.thread_map(t, loops),
            // A team waits for its members; one task runs the phases in
            // order, so for it a barrier is only their boundary.
            Stmt::Barrier(_) if self.team && self.replicated.is_none() => {
                quote!(__member.wait();)
            }
            Stmt::Barrier(_) => TokenStream::new(),
        }
    }

    /// `for var in (start..end).step_by(step) { body }` (or `start..=last`)
    /// with the language's semantics: start, start+step, ... while below
    /// the bound (`<=` for `a..=last`, which reaches the type's maximum); a
    /// non-positive step runs nothing; the loop ends when the next value
    /// would pass the bound or overflow (as on the GPU).
    pub(super) fn for_loop(
        &self,
        var: LocalId,
        start: &Expr,
        end: RangeEnd<'_>,
        step: Option<&Expr>,
        body: TokenStream,
    ) -> TokenStream {
        let name = names::local(var);
        let var_ty = self.body.locals[var].ty;
        let ty = rust_type(var_ty);
        let unsigned = rust_type(var_ty.to_unsigned());
        let a = self.expr(start);
        let (b, inclusive) = match end {
            RangeEnd::Exclusive(e) => (self.expr(e), false),
            RangeEnd::Inclusive(last) => (self.expr(last), true),
        };
        let Some(step) = step else {
            // A step of one is exactly Rust's range loop (`a..=last` too
            // reaches the type's maximum), which LLVM unrolls and
            // vectorizes where the general loop below defeats it.
            let range = if inclusive {
                quote!(__first..=__bound)
            } else {
                quote!(__first..__bound)
            };
            return quote! {{
                let (__first, __bound): (#ty, #ty) = (#a, #b);
                for #name in #range { #body }
            }};
        };
        let st = self.expr(step);
        let (enter, stop) = if inclusive {
            (quote!(<=), quote!(<))
        } else {
            (quote!(<), quote!(<=))
        };
        // The next value is computed before the body, so a `continue` in
        // it (Rust's, on this `while`) steps too.
        quote! {{
            let mut __next: #ty = #a;
            let __bound: #ty = #b;
            let __step: #ty = #st;
            #[allow(unused_comparisons)]
            let mut __more: bool = __step > (0 as #ty) && __next #enter __bound;
            while __more {
                let #name: #ty = __next;
                if (__bound as #unsigned).wrapping_sub(__next as #unsigned) #stop (__step as #unsigned) {
                    __more = false;
                } else {
                    __next = __next.wrapping_add(__step);
                }
                { #body }
            }
        }}
    }

    /// `Result<usize, i64>`: the row-major offset, or, when any index is
    /// outside its dimension, the row-major index in wrapping `i64` (what
    /// the fault reports; the PTX backend computes the same number).
    pub(super) fn offset(&self, c: ContainerId, index: &[Expr]) -> TokenStream {
        if index.is_empty() {
            return quote!(::core::result::Result::<usize, i64>::Ok(0usize));
        }
        let (check_index, flat_index) = (rt::check_index(), rt::check_flat_index());
        let values: Vec<proc_macro2::Ident> = (0..index.len()).map(names::index_value).collect();
        let exts: Vec<TokenStream> = (0..index.len()).map(|d| self.data.extent(c, d)).collect();
        let evals: Vec<TokenStream> = index.iter().map(|e| self.expr(e)).collect();
        let indices: Vec<proc_macro2::Ident> = (0..index.len()).map(names::index).collect();
        let first = &indices[0];
        let mut acc = quote!(#first);
        for (d, i) in indices.iter().enumerate().skip(1) {
            let ext = &exts[d];
            acc = quote!((#acc) * (#ext) + #i);
        }
        quote! {{
            #(let #values = #evals;)*
            match (#(#check_index(#values, #exts),)*) {
                (#(::core::option::Option::Some(#indices),)*) => ::core::result::Result::<usize, i64>::Ok(#acc),
                #[allow(unreachable_patterns)]
                _ => ::core::result::Result::Err(#flat_index(&[#(#values as i64),*], &[#(#exts),*])),
            }
        }}
    }

    /// `e` as one Rust operand (an atom, a call chain or a parenthesized
    /// expression).
    pub fn expr(&self, e: &Expr) -> TokenStream {
        match self.expr_form(e) {
            (code, Form::Infix(_)) => quote!((#code)),
            (code, _) => code,
        }
    }

    /// `usize`: the row-major offset of an access `ir::bounds` prechecks.
    /// The glue checked, before the statement ran, that every index lies in
    /// its dimension in every iteration, so each converts to `usize`
    /// exactly and the offset is below the element count.
    ///
    /// Where an index adds a literal to a core (`A[i - 1, j + 1]`,
    /// `ir::bounds::split_constant`), the offset is that of the cores, in
    /// wrapping arithmetic, plus the constants' offset: LLVM then shares one address among the accesses
    /// of a row and offsets it (a 2-D stencil's inner loop ran 5-7%
    /// faster: docs/BENCHMARKS.md). Modulo 2^64 the sum is the true
    /// offset, which is below the element count, so it is exact.
    pub(super) fn direct_offset(&self, c: ContainerId, index: &[Expr]) -> TokenStream {
        let split: Vec<(&Expr, i64)> = index.iter().map(split_constant).collect();
        if split.iter().any(|&(_, k)| k != 0) {
            let (core, k) = split[0];
            let core = self.expr(core);
            let mut cores = quote!(((#core) as usize));
            let mut constants = quote!(((#k) as usize));
            for (d, &(core, k)) in split.iter().enumerate().skip(1) {
                let ext = self.data.extent(c, d);
                let core = self.expr(core);
                cores = quote!(#cores.wrapping_mul(#ext).wrapping_add((#core) as usize));
                constants = quote!(#constants.wrapping_mul(#ext).wrapping_add((#k) as usize));
            }
            return quote!(#cores.wrapping_add(#constants));
        }
        let mut parts = index.iter().map(|e| {
            let v = self.expr(e);
            quote!(((#v) as usize))
        });
        let Some(first) = parts.next() else {
            return quote!(0usize);
        };
        let mut acc = first;
        for (d, i) in parts.enumerate() {
            let ext = self.data.extent(c, d + 1);
            acc = quote!((#acc) * (#ext) + #i);
        }
        acc
    }

    /// A method receiver: call chains stay flat (`a.wrapping_add(b).wrapping_add(c)`).
    fn receiver(&self, e: &Expr) -> TokenStream {
        match self.expr_form(e) {
            (code, Form::Postfix) => code,
            (code, _) => quote!((#code)),
        }
    }

    /// `e` and the form of its outermost operator. Long chains stay flat:
    /// rustc parses `a + b + c + ...` and `a.f(b).f(c)...` in a loop, but
    /// recurses into every parenthesis, and 2,000 nested ones exhaust its
    /// stack.
    fn expr_form(&self, e: &Expr) -> (TokenStream, Form) {
        let form = match &e.kind {
            ExprKind::Lit(v) => literal(*v),
            ExprKind::Var(VarRef::Local(l)) => self.local_place(*l),
            ExprKind::Var(VarRef::Param(p)) => self.data.param(*p),
            ExprKind::Var(VarRef::Symbol(s)) => self.data.symbol(*s),
            ExprKind::Load { container, index } => {
                let (code, prechecked) = self.site(AccessNode::Load(e));
                let load = self.data.load(*container, quote!(__o), e.span);
                if prechecked {
                    let offset = self.direct_offset(*container, index);
                    return (quote!({ let __o: usize = #offset; #load }), Form::Atom);
                }
                let offset = self.offset(*container, index);
                let flat = names::fault_index();
                let fault = self.data.fault(code, quote!(#flat));
                let zero = literal(zero_of(self.data.elem_type(*container)));
                quote! {
                    match #offset {
                        ::core::result::Result::Ok(__o) => #load,
                        ::core::result::Result::Err(#flat) => { #fault #zero }
                    }
                }
            }
            ExprKind::Unary { op, arg } => match (op, e.ty.is_integer()) {
                (UnOp::Neg, true) => {
                    let a = self.receiver(arg);
                    return (quote!(#a.wrapping_neg()), Form::Postfix);
                }
                (UnOp::Neg, false) => {
                    let a = self.expr(arg);
                    quote!((-#a))
                }
                (UnOp::Not, _) => {
                    let a = self.expr(arg);
                    quote!((!#a))
                }
            },
            ExprKind::Binary { op, lhs, rhs } => return self.binary(*op, lhs, rhs),
            ExprKind::Cast { arg } => self.cast(arg, e.ty),
            ExprKind::Select { cond, then, else_ } => {
                let c = self.expr(cond);
                let t = self.expr(then);
                let f = self.expr(else_);
                quote!((if #c { #t } else { #f }))
            }
            ExprKind::Call { func, args } => return (self.call(*func, args, e.ty), Form::Postfix),
        };
        (form, Form::Atom)
    }

    fn binary(&self, op: BinOp, lhs: &Expr, rhs: &Expr) -> (TokenStream, Form) {
        let int = lhs.ty.is_integer();
        let method = |name: &str| {
            let recv = self.receiver(lhs);
            let b = self.expr(rhs);
            let name = quote::format_ident!("{}", name);
            (quote!(#recv.#name(#b)), Form::Postfix)
        };
        match op {
            BinOp::Add if int => return method("wrapping_add"),
            BinOp::Sub if int => return method("wrapping_sub"),
            BinOp::Mul if int => return method("wrapping_mul"),
            _ => {}
        }
        if let Some(level) = infix_level(op, int) {
            // Left-associative: the left operand needs no parentheses when
            // it binds at least as tightly, the right one when tighter.
            let a = match self.expr_form(lhs) {
                (code, Form::Infix(l)) if l >= level => code,
                (code, Form::Infix(_)) => quote!((#code)),
                (code, _) => code,
            };
            let b = match self.expr_form(rhs) {
                (code, Form::Infix(l)) if l > level => code,
                (code, Form::Infix(_)) => quote!((#code)),
                (code, _) => code,
            };
            let op = infix_token(op);
            return (quote!(#a #op #b), Form::Infix(level));
        }
        let a = self.expr(lhs);
        let b = self.expr(rhs);
        let lty = rust_type(lhs.ty);
        let code = match op {
            BinOp::Div if int => quote!({
                let (__a, __b): (#lty, #lty) = (#a, #b);
                if __b == 0 { 0 } else { __a.wrapping_div(__b) }
            }),
            BinOp::Rem if int => quote!({
                let (__a, __b): (#lty, #lty) = (#a, #b);
                if __b == 0 { __a } else { __a.wrapping_rem(__b) }
            }),
            BinOp::Shl => quote!((#a).wrapping_shl((#b) as u32)),
            BinOp::Shr => quote!((#a).wrapping_shr((#b) as u32)),
            BinOp::Eq => quote!((#a == #b)),
            BinOp::Ne => quote!((#a != #b)),
            BinOp::Lt => quote!((#a < #b)),
            BinOp::Le => quote!((#a <= #b)),
            BinOp::Gt => quote!((#a > #b)),
            BinOp::Ge => quote!((#a >= #b)),
            // The operators emitted infix above (same meaning here).
            BinOp::Add
            | BinOp::Sub
            | BinOp::Mul
            | BinOp::Div
            | BinOp::Rem
            | BinOp::BitAnd
            | BinOp::BitOr
            | BinOp::BitXor
            | BinOp::And
            | BinOp::Or => {
                let op = infix_token(op);
                quote!((#a #op #b))
            }
        };
        (code, Form::Atom)
    }

    /// `arg as ty`. Rust has no `as` for `half`'s types: a 16-bit float
    /// is read as the f32 it equals and made from an f32 (or an f64) with
    /// one rounding, as `ir::semantics::cast` defines.
    fn cast(&self, arg: &Expr, ty: ScalarType) -> TokenStream {
        let mut a = self.expr(arg);
        let from = arg.ty;
        if from.is_half_float() {
            if ty == from {
                return a;
            }
            a = quote!((#a).to_f32());
        }
        if ty.is_half_float() {
            let half = rust_type(ty);
            return match from {
                ScalarType::F64 => {
                    let odd = rt::f32_round_to_odd();
                    quote!(#half::from_f32(#odd(#a)))
                }
                ScalarType::Bool => quote!(#half::from_f32((#a) as u8 as f32)),
                _ => quote!(#half::from_f32((#a) as f32)),
            };
        }
        let rust = rust_type(ty);
        quote!(((#a) as #rust))
    }

    fn call(&self, func: MathFn, args: &[Expr], ty: ScalarType) -> TokenStream {
        // The receiver of a method, or the first argument of min/max.
        let mut a = if matches!(func, MathFn::Min | MathFn::Max) {
            self.expr(&args[0])
        } else {
            self.receiver(&args[0])
        };
        let mut b = args.get(1).map(|e| self.expr(e));
        let mut c = args.get(2).map(|e| self.expr(e));
        if args[0].ty.is_complex() || func == MathFn::Complex {
            // num-complex's methods and fields.
            return match func {
                MathFn::Abs => quote!(#a.norm()),
                MathFn::Re => quote!(#a.re),
                MathFn::Im => quote!(#a.im),
                MathFn::Complex => {
                    let (complex, part) = (rt::complex(), rust_type(ty.real_part()));
                    let re = self.expr(&args[0]);
                    quote!(#complex::<#part>::new(#re, #b))
                }
                f => {
                    let name = quote::format_ident!("{}", f.method_name());
                    quote!(#a.#name())
                }
            };
        }
        if args[0].ty.is_half_float() {
            // f16/bf16: the f32 function, rounded once (like the evaluator).
            a = quote!((#a).to_f32());
            if args.get(1).is_some_and(|e| e.ty.is_half_float()) {
                b = b.map(|b| quote!((#b).to_f32()));
            }
            c = c.map(|c| quote!((#c).to_f32()));
            let wide = self.real_call(func, a, b, c, ScalarType::F32);
            let half = rust_type(ty);
            return quote!(#half::from_f32(#wide));
        }
        self.real_call(func, a, b, c, ty)
    }

    /// A function of a real receiver `a` of type `ty` (f32 for f16/bf16).
    fn real_call(
        &self,
        func: MathFn,
        a: TokenStream,
        b: Option<TokenStream>,
        c: Option<TokenStream>,
        ty: ScalarType,
    ) -> TokenStream {
        let int = ty.is_integer();
        match func {
            MathFn::Sqrt => quote!(#a.sqrt()),
            MathFn::Abs if int => quote!(#a.wrapping_abs()),
            MathFn::Abs => quote!(#a.abs()),
            MathFn::Exp => quote!(#a.exp()),
            MathFn::Ln => quote!(#a.ln()),
            MathFn::Sin => quote!(#a.sin()),
            MathFn::Cos => quote!(#a.cos()),
            MathFn::Tanh => quote!(#a.tanh()),
            MathFn::Powi => quote!(#a.powi(#b)),
            MathFn::Powf => quote!(#a.powf(#b)),
            // Not `f64::min`: the sign of a zero result must match PTX.
            MathFn::Min => {
                let mm = rt::min_max_number();
                quote!(#mm::min_number(#a, #b))
            }
            MathFn::Max => {
                let mm = rt::min_max_number();
                quote!(#mm::max_number(#a, #b))
            }
            MathFn::Floor => quote!(#a.floor()),
            MathFn::Ceil => quote!(#a.ceil()),
            MathFn::Atan2 => quote!(#a.atan2(#b)),
            MathFn::Asin => quote!(#a.asin()),
            MathFn::Acos => quote!(#a.acos()),
            MathFn::Atan => quote!(#a.atan()),
            MathFn::Sinh => quote!(#a.sinh()),
            MathFn::Cosh => quote!(#a.cosh()),
            MathFn::Hypot => quote!(#a.hypot(#b)),
            MathFn::Cbrt => quote!(#a.cbrt()),
            // Not in std: the GPU's program, emitted as Rust (what the
            // evaluator runs, bit for bit); f32 widens and rounds once.
            MathFn::Erf => {
                let f = math::RustOps::function("__sdfg_erf", 1, |o, x| math::erf_prog(o, x[0]));
                match ty {
                    ScalarType::F32 => quote!({ #f (__sdfg_erf((#a) as f64) as f32) }),
                    _ => quote!({ #f __sdfg_erf(#a) }),
                }
            }
            // Only of complex values (above).
            MathFn::Conj
            | MathFn::NormSqr
            | MathFn::Arg
            | MathFn::Re
            | MathFn::Im
            | MathFn::Complex => a,
            MathFn::MulAdd => quote!(#a.mul_add(#b, #c)),
        }
    }
}

/// The shape of generated code, for parentheses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// A name, literal, block or parenthesized expression.
    Atom,
    /// A call or method call chain (a receiver as it is).
    Postfix,
    /// `a OP b` without parentheses, at this precedence level (higher
    /// binds tighter).
    Infix(u8),
}

/// The precedence level of the operators emitted infix (float arithmetic,
/// bit operations, `&&`, `||`); None for the others.
fn infix_level(op: BinOp, int: bool) -> Option<u8> {
    Some(match op {
        BinOp::Mul | BinOp::Div | BinOp::Rem if !int => 10,
        BinOp::Add | BinOp::Sub if !int => 9,
        BinOp::BitAnd => 7,
        BinOp::BitXor => 6,
        BinOp::BitOr => 5,
        BinOp::And => 3,
        BinOp::Or => 2,
        _ => return None,
    })
}

fn infix_token(op: BinOp) -> TokenStream {
    match op {
        BinOp::Mul => quote!(*),
        BinOp::Div => quote!(/),
        BinOp::Rem => quote!(%),
        BinOp::Add => quote!(+),
        BinOp::Sub => quote!(-),
        BinOp::BitAnd => quote!(&),
        BinOp::BitXor => quote!(^),
        BinOp::BitOr => quote!(|),
        BinOp::And => quote!(&&),
        _ => quote!(||),
    }
}
