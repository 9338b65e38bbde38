//! Iterating a map's N-d range on the host: in contiguous chunks on several
//! threads (`cpu` maps, kernel twins) or as nested loops (`seq` maps). The
//! range values (start, count, step per dimension) are locals the caller
//! bound, named by [`names::range`]; for a dependent range (`ir::ranges`)
//! they describe its box, and each iteration starts it where the earlier
//! parameters put it and skips once it reaches their end.

use super::body::{BodyEmitter, DataAccess};
use super::tokens::rust_type;
use crate::codegen::names::{self, RangeScope};
use crate::codegen::runtime_paths as rt;
use crate::ir::{ExprKind, Map, MathFn, Stmt, TaskletBody};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

pub(crate) struct MapRanges<'a> {
    pub map: &'a Map,
    pub scope: RangeScope,
    /// How the body reads symbols and parameters (for dependent bounds).
    pub data: &'a dyn DataAccess,
}

/// What a chunked map runs per point of its range.
pub(crate) enum PointCode {
    /// The body, for one point (its parameters bound).
    One(TokenStream),
    /// Blocks of `lanes` neighbouring points of the innermost dimension:
    /// `locals` per block, then `block`, which binds each lane's position
    /// and parameter with [`MapRanges::lane_prelude`].
    Lanes {
        lanes: usize,
        locals: TokenStream,
        block: TokenStream,
    },
}

/// What a chunked map computes besides its stores: per chunk, `locals`
/// declared before its loops and `result` returned after them; after the
/// map, `combine` runs once per chunk result (bound to `pattern`), in chunk
/// order, on the calling thread.
pub(crate) struct ChunkResults {
    pub locals: TokenStream,
    pub result: TokenStream,
    pub pattern: TokenStream,
    pub combine: TokenStream,
}

impl MapRanges<'_> {
    /// `let __pd: T = start + t * step;` with wrapping i64 arithmetic: exact
    /// modulo 2^64, so the cast to any parameter type is the true value. A
    /// map written without a step steps by 1, known here: `start + t`, an
    /// induction variable the compiler can vectorize over. A dependent
    /// range (`ir::ranges`) starts at its start for the earlier parameters
    /// (exact in i128) and `continue`s the loop of its position once past
    /// its end (every use sits in the loop over its dimension's positions;
    /// such maps are never lane-blocked).
    fn param_value(&self, d: usize, t: &Ident) -> TokenStream {
        let r = names::range(self.scope, d);
        let (s, st) = (r.start, r.step);
        let p = names::map_param(d);
        let param = &self.map.params[d];
        let ty = rust_type(param.ty);
        if param.is_dependent() {
            // Dependent bounds read no locals.
            let no_locals = TaskletBody::default();
            let emit = BodyEmitter::new(self.data, &no_locals);
            let (start, end) = (emit.expr(&param.start), emit.expr(&param.end));
            return quote! {
                let #p: #ty = {
                    let __v: i128 = ((#start) as i128) + (#t as i128) * (#st as i128);
                    if __v >= (#end) as i128 {
                        continue;
                    }
                    __v as #ty
                };
            };
        }
        if self.map.params[d].step.is_none() {
            quote!(let #p: #ty = ((#s as i64).wrapping_add(#t as i64)) as #ty;)
        } else {
            quote!(let #p: #ty = ((#s as i64).wrapping_add((#t as i64).wrapping_mul(#st as i64))) as #ty;)
        }
    }

    /// Inside a lane loop of a block starting at `__t_lo`: the lane's
    /// innermost position and parameter.
    pub fn lane_prelude(&self) -> TokenStream {
        let inner = self.map.params.len().saturating_sub(1);
        let t = names::flat_position(inner);
        let p = self.param_value(inner, &t);
        quote!(let #t: usize = __t_lo + __lane; #p)
    }

    fn counts(&self) -> Vec<Ident> {
        (0..self.map.params.len())
            .map(|d| names::range(self.scope, d).count)
            .collect()
    }

    /// The positions and parameters of the first `dims` dimensions at unit
    /// `__u` (row-major over those dimensions, the last fastest).
    fn position_of_unit(&self, dims: usize) -> TokenStream {
        let counts = self.counts();
        let mut out = quote!(let __rest: usize = __u;);
        for d in (0..dims).rev() {
            let t = names::flat_position(d);
            let c = &counts[d];
            out.extend(if d == 0 {
                quote!(let #t: usize = __rest;)
            } else {
                quote! {
                    let #t: usize = __rest % (#c as usize);
                    let __rest: usize = __rest / (#c as usize);
                }
            });
        }
        for d in 0..dims {
            out.extend(self.param_value(d, &names::flat_position(d)));
        }
        out
    }

    /// A block map's parameters at its block iteration `__u` (for a block
    /// team's members, which run one block iteration each).
    pub fn block_iteration(&self) -> TokenStream {
        self.position_of_unit(self.map.params.len())
    }

    /// Runs `body` once per point of the range in contiguous chunks on
    /// `workers` (a `runtime::__glue::par::Workers`): a chunk is a run of
    /// points in row-major order (a row: every dimension but the
    /// innermost fixed), each row's part of it running the innermost
    /// dimension in order; a block map's chunk is a run of block
    /// iterations. `what`
    /// names the map in the error when the point count overflows `usize`.
    /// With `results`, each chunk also returns a value, combined after the
    /// map in chunk order (reproducible for a given number of threads).
    /// `instead`: a `bool` expression tried first (with `__total` and
    /// `__workers` in scope); when it is true it ran the map and the
    /// chunks do not run (a block map's team, `codegen::cpu::block`).
    pub fn chunked(
        &self,
        body: &PointCode,
        what: &str,
        workers: TokenStream,
        results: Option<&ChunkResults>,
        instead: Option<TokenStream>,
    ) -> TokenStream {
        let counts = self.counts();
        let n = counts.len();
        let Some(inner) = n.checked_sub(1) else {
            // No parameters (a GPU tasklet): one point, on this thread
            // (never lane-blocked: lanes need an innermost parameter).
            let PointCode::One(code) = body else {
                return TokenStream::new();
            };
            return match results {
                None => quote!({ #code }),
                Some(r) => {
                    let (locals, result, pattern, combine) =
                        (&r.locals, &r.result, &r.pattern, &r.combine);
                    quote!({ #locals { #code } let #pattern = #result; #combine })
                }
            };
        };
        let t_inner = names::flat_position(inner);
        let p_inner = self.param_value(inner, &t_inner);
        let c_inner = &counts[inner];
        // A block map's iteration is a whole block program: each is a unit
        // of its own (four 128 x 128 tiles of a 256^2 product are four
        // tasks, not two rows of them).
        let points = n > 1 && self.map.block.is_some();
        // The positions of unit `__u` (row-major, the last dimension
        // fastest): the outer ones of a row, or all of a point.
        let outer = if n > 1 {
            self.position_of_unit(if points { n } else { inner })
        } else {
            TokenStream::new()
        };
        // The innermost positions `lo..hi` of one unit, point by point or
        // in blocks of lanes.
        let inner_run = |lo: TokenStream, hi: TokenStream| match body {
            PointCode::One(code) => quote! {
                for #t_inner in #lo..#hi {
                    #p_inner
                    #code
                }
            },
            PointCode::Lanes {
                lanes,
                locals,
                block,
            } => {
                quote! {
                    let __t_end: usize = #hi;
                    let mut __t_lo: usize = #lo;
                    while __t_lo < __t_end {
                        let __nl: usize = ::core::cmp::Ord::min(#lanes, __t_end - __t_lo);
                        #locals
                        #block
                        __t_lo += __nl;
                    }
                }
            }
        };
        let (units, unit_len, loops) = if points {
            let PointCode::One(code) = body else {
                return TokenStream::new();
            };
            (
                quote!(__total),
                quote!(1usize),
                quote! {
                    for __u in __units {
                        #outer
                        #code
                    }
                },
            )
        } else if n > 1 {
            // A chunk is a run of points in row-major order: whole rows
            // and, at its ends, parts of rows (a map of few long rows, 16
            // rows of softmax statistics on 16 threads, still gets several
            // chunks per thread). Each row's part runs the innermost
            // dimension in order. The position advances before the row's
            // code, which may `continue` past a dependent range's end.
            let run = inner_run(quote!(__lo), quote!(__hi));
            (
                quote!(__total),
                quote!(1usize),
                quote! {
                    let __row_len: usize = #c_inner as usize;
                    let mut __at: usize = __units.start;
                    while __at < __units.end {
                        let __u: usize = __at / __row_len;
                        let __lo: usize = __at - __u * __row_len;
                        let __hi: usize = ::core::cmp::Ord::min(__row_len, __lo + (__units.end - __at));
                        __at += __hi - __lo;
                        #outer
                        #run
                    }
                },
            )
        } else {
            let run = inner_run(quote!(__units.start), quote!(__units.end));
            (quote!(__total), quote!(1usize), run)
        };
        let grain = grain(&self.map.body);
        let (total, chunks, for_each, map_chunks) = (
            rt::check_total_iterations(),
            rt::par_chunks(),
            rt::par_for_each_chunk(),
            rt::par_map_chunks(),
        );
        let setup = quote! {
            let __total: usize = #total(#what, &[#(#counts),*])?;
            let __unit_len: usize = #unit_len;
            let __workers = #workers;
            let __chunks = #chunks::new(#units, __unit_len, #grain, __workers);
        };
        let run = match results {
            None => quote! {
                #for_each(__workers, &__chunks, move |__units: ::core::ops::Range<usize>| {
                    #loops
                });
            },
            Some(r) => {
                let (locals, result, pattern, combine) =
                    (&r.locals, &r.result, &r.pattern, &r.combine);
                quote! {
                    let __results = #map_chunks(__workers, &__chunks, move |__units: ::core::ops::Range<usize>| {
                        #locals
                        #loops
                        #result
                    });
                    for #pattern in __results {
                        #combine
                    }
                }
            }
        };
        match instead {
            None => quote!(#setup #run),
            Some(other) => quote! {
                #setup
                if !{ #other } {
                    #run
                }
            },
        }
    }

    /// Runs `body` once per point of the range, in order.
    pub fn sequential(&self, body: &TokenStream) -> TokenStream {
        let counts = self.counts();
        let mut code = body.clone();
        for d in (0..counts.len()).rev() {
            let t = names::flat_position(d);
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

/// The fewest iterations worth a chunk (a task on another thread): many for
/// a straight-line body, fewer when it calls transcendental functions, one
/// when it loops (each iteration may be long).
fn grain(body: &TaskletBody) -> usize {
    fn loops(stmts: &[Stmt]) -> bool {
        stmts.iter().any(|s| match s {
            // A thread map is a block's whole work.
            Stmt::For { .. } | Stmt::ThreadMap(_) => true,
            Stmt::If { then, else_, .. } => loops(then) || loops(else_),
            _ => false,
        })
    }
    if loops(&body.stmts) {
        return 1;
    }
    let mut heavy = false;
    for s in &body.stmts {
        s.walk_exprs(&mut |e| {
            if let ExprKind::Call { func, .. } = &e.kind {
                heavy |= !matches!(
                    func,
                    MathFn::Abs | MathFn::Min | MathFn::Max | MathFn::Floor | MathFn::Ceil
                );
            }
        });
    }
    if heavy {
        256
    } else {
        2048
    }
}
