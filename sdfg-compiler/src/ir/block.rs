//! Thread-block cooperation: block maps, thread maps and barriers.
//!
//! A `gpu` map written `on gpu block(...)` is a *block map*: each of its
//! iterations runs on one thread block. Its body is a small structured
//! program that every thread of the block executes, in phases:
//!
//! - block-level `let`s (uniform values: every thread computes the same),
//!   `if`/`else` and `for` over uniform values;
//! - block-level stores (to `shared` or `gpu` data), done once per block, by
//!   the block's thread 0;
//! - thread maps ([`ThreadMap`], `map NAME[...] on threads { BODY }`), whose
//!   iterations are spread over the block's threads: the iteration space is
//!   linearized row-major and iteration `q` runs on thread `q mod B`.
//!
//! The block map declares its `shared` (one copy per block) and `register`
//! (one copy per thread-map iteration) containers first; they are ordinary
//! containers of the SDFG with [`Storage::Shared`] / [`Storage::Register`],
//! visible only inside the block map ([`Block::data`]).
//!
//! The compiler places the barriers ([`Stmt::Barrier`], see
//! [`super::barriers`](mod@super::barriers)); the user cannot write one. The IR of a block map
//! therefore shows every barrier with its reason.
//!
//! [`Storage::Shared`]: super::Storage::Shared
//! [`Storage::Register`]: super::Storage::Register

use super::{ContainerId, Expr, ExprKind, LocalId, Name, Stmt, VarRef, WcrOp};
use crate::ir::Container;
use proc_macro2::Span;
use std::collections::BTreeSet;

/// Threads per block when the user writes `block` without a size.
pub const DEFAULT_BLOCK_THREADS: u32 = 256;
/// The most threads a block may have (every CUDA GPU).
pub const MAX_BLOCK_THREADS: u64 = 1024;

/// The block part of a block map.
#[derive(Clone, Debug)]
pub struct Block {
    pub size: BlockSize,
    /// The `shared` and `register` containers the block map declares, in
    /// declaration order (ids into `Sdfg::containers`).
    pub data: Vec<ContainerId>,
    /// The `block` keyword.
    pub span: Span,
}

/// Threads per block.
#[derive(Clone, Debug)]
pub enum BlockSize {
    /// `block`: the compiler picks ([`DEFAULT_BLOCK_THREADS`]).
    Auto,
    /// `block(BX)`, `block(BX, BY)`, `block(BX, BY, BZ)`: integer expressions
    /// over symbols and literals. Only the product matters to the program
    /// (thread maps are linearized); the shape is what DaCe sees.
    Given(Vec<Expr>),
}

impl Block {
    /// The threads per block when every dimension is a constant.
    pub fn constant_threads(&self) -> Option<u64> {
        match &self.size {
            BlockSize::Auto => Some(DEFAULT_BLOCK_THREADS as u64),
            BlockSize::Given(dims) => super::linear::constant_product(dims),
        }
    }

    /// Whether the block is one warp (at most 32 threads, constant): its
    /// block reductions are warp shuffles only (no slots, no barrier).
    pub fn single_warp(&self) -> bool {
        self.constant_threads().is_some_and(|n| n <= 32)
    }

    /// The dimensions as given (`[256]` for `block`).
    pub fn dims(&self) -> Vec<Expr> {
        match &self.size {
            BlockSize::Auto => vec![Expr::lit(
                super::Value::U32(DEFAULT_BLOCK_THREADS),
                self.span,
            )],
            BlockSize::Given(d) => d.clone(),
        }
    }
}

/// `map NAME[p in a..b, ...] on threads { BODY }`.
#[derive(Clone, Debug)]
pub struct ThreadMap {
    pub name: Name,
    /// One per dimension, outermost first.
    pub params: Vec<ThreadParam>,
    /// A tasklet body (no thread maps, no declarations).
    pub body: Vec<Stmt>,
    /// The thread map's name.
    pub span: Span,
}

/// A thread map's parameter: a read-only local of the block map's body
/// (`TaskletBody::locals`), with its range. The bounds are block-level
/// (uniform) integer expressions: symbols, literals, block parameters,
/// block-level locals and loop variables.
#[derive(Clone, Debug)]
pub struct ThreadParam {
    pub local: LocalId,
    pub start: Expr,
    /// Exclusive (`last + 1` when `inclusive`; see [`crate::ir::range_end`]).
    pub end: Expr,
    /// Written `start..=last`: run-time code reads the end through
    /// [`crate::ir::range_end`], so a last value at the type's maximum runs.
    pub inclusive: bool,
    /// A positive step (None: 1).
    pub step: Option<Expr>,
}

/// A barrier the compiler placed, with the reason it is needed.
#[derive(Clone, Debug)]
pub struct Barrier {
    pub reason: BarrierReason,
    /// The phase that needs it (the tokens after the barrier).
    pub span: Span,
}

/// Why a barrier sits where it does: the phase after it touches data that
/// an earlier phase touched since the last barrier, one of them writes it,
/// and other threads may be involved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BarrierReason {
    /// The phase after the barrier and what it does (`write reads mx`).
    pub later: PhaseAccess,
    /// The earlier phase it conflicts with.
    pub earlier: PhaseAccess,
    /// The data both touch: a container's name, or a thread map's warp
    /// partials (`the warp partials of reduce_max`).
    pub data: String,
    /// The earlier access is from the previous iteration of this loop
    /// (`for k`, or the block map itself: its next block iteration).
    pub previous_iteration_of: Option<String>,
    /// Both accesses are one thread map's, which may well be made by the
    /// same thread, but the compiler cannot prove it: why not (`an index of
    /// `t` uses `base``). A conservative barrier.
    pub unproven_same_thread: Option<String>,
}

/// One side of a [`BarrierReason`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhaseAccess {
    /// `` `write` `` (a thread map), `the block-level store to `mx``, ...
    pub phase: String,
    /// `reads`, `writes` or `reduces into`.
    pub verb: &'static str,
}

impl std::fmt::Display for BarrierReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let past = match self.earlier.verb {
            "reads" => "read",
            "writes" => "wrote",
            _ => "reduced into",
        };
        write!(
            f,
            "{} {} {}, which {} {past}",
            self.later.phase, self.later.verb, self.data, self.earlier.phase
        )?;
        if let Some(l) = &self.previous_iteration_of {
            write!(f, " in the previous iteration of {l}")?;
        }
        if let Some(why) = &self.unproven_same_thread {
            write!(f, " (perhaps on the same thread, but not proven: {why})")?;
        }
        Ok(())
    }
}

/// A reduction of a thread map into one element that is the same for every
/// iteration (a shared or gpu scalar, or an element with a uniform index):
/// it lowers to per-thread partials, a warp reduction and one shared-memory
/// step per block (and, into `gpu` data, one atomic per block).
#[derive(Clone, Debug)]
pub struct UniformReduction<'a> {
    pub container: ContainerId,
    pub index: &'a [Expr],
    pub op: WcrOp,
}

/// Every local declared inside a thread map: its parameters and the `let`s
/// and `for` variables of its body.
pub fn thread_map_locals(t: &ThreadMap) -> BTreeSet<LocalId> {
    let mut out: BTreeSet<LocalId> = t.params.iter().map(|p| p.local).collect();
    for s in &t.body {
        s.walk(&mut |s| match s {
            Stmt::Let { local, .. } => {
                out.insert(*local);
            }
            Stmt::For { var, .. } => {
                out.insert(*var);
            }
            _ => {}
        });
    }
    out
}

/// Whether `e` has the same value in every iteration of thread map `t`
/// (reads no local of the thread map and no data).
pub fn is_uniform_in(e: &Expr, inner: &BTreeSet<LocalId>) -> bool {
    let mut ok = true;
    e.walk(&mut |x| match &x.kind {
        ExprKind::Var(VarRef::Local(l)) if inner.contains(l) => ok = false,
        ExprKind::Load { .. } => ok = false,
        _ => {}
    });
    ok
}

/// The reductions of thread map `t` into uniform elements of `shared` or
/// `gpu` containers, one per distinct (container, index), in program order.
/// A target updated with two operators, or also read or plainly stored by
/// the thread map, is not one (validation rejects those forms); nor is a
/// complex one (each iteration's `+=` reduces its parts on its own), nor
/// one of a `shared` container that the thread map also reduces into at
/// an element that depends on the iteration.
pub fn uniform_reductions<'a>(
    t: &'a ThreadMap,
    containers: &[Container],
) -> Vec<UniformReduction<'a>> {
    let inner = thread_map_locals(t);
    let mut found: Vec<UniformReduction<'a>> = Vec::new();
    let mut spoiled: Vec<(ContainerId, String)> = Vec::new();
    let key = |index: &[Expr]| index.iter().map(Expr::key).collect::<Vec<_>>().join(",");
    for s in &t.body {
        s.walk(&mut |s| {
            if let Stmt::Store {
                container,
                index,
                wcr,
                ..
            } = s
            {
                let storage = containers[*container].storage;
                let shared_or_global = matches!(
                    storage,
                    crate::ir::Storage::Shared | crate::ir::Storage::Gpu
                );
                let k = key(index);
                // A complex sum is one reduction per part, not a value the
                // warps can shuffle and combine: each iteration reduces
                // into its target on its own (`+=` only, validated).
                let uniform = index.iter().all(|e| is_uniform_in(e, &inner))
                    && !containers[*container].elem.is_complex();
                match wcr {
                    Some(op) if shared_or_global && uniform => {
                        if let Some(f) = found
                            .iter()
                            .find(|f| f.container == *container && key(f.index) == k)
                        {
                            if f.op != *op {
                                spoiled.push((*container, k));
                            }
                        } else {
                            found.push(UniformReduction {
                                container: *container,
                                index,
                                op: *op,
                            });
                        }
                    }
                    // An atomic update of a shared element another
                    // iteration picks (`S[b + i] += x`) may be the target
                    // of a uniform reduction (`S[6] += y`), whose thread 0
                    // adds its block's value with a plain load and store
                    // when the map ends: every such target is spoiled. (A
                    // `gpu` target gets one atomic per block, which others'
                    // atomics do not race with.)
                    Some(_) if storage == crate::ir::Storage::Shared => {
                        spoiled.push((*container, String::from("*")))
                    }
                    _ => spoiled.push((*container, k)),
                }
            }
        });
    }
    // A read of the target spoils it too (the reduced value is not known
    // while the thread map runs).
    for s in &t.body {
        s.walk_exprs(&mut |e| {
            if let ExprKind::Load { container, .. } = &e.kind {
                spoiled.push((*container, String::from("*")));
            }
        });
    }
    found.retain(|f| {
        !spoiled
            .iter()
            .any(|(c, k)| *c == f.container && (k == "*" || *k == key(f.index)))
    });
    found
}

/// The thread maps of a block body, in program order.
pub fn thread_maps(stmts: &[Stmt]) -> Vec<&ThreadMap> {
    let mut out = Vec::new();
    for s in stmts {
        s.walk(&mut |s| {
            if let Stmt::ThreadMap(t) = s {
                out.push(t);
            }
        });
    }
    out
}

/// How statements use one container (see [`container_uses`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContainerUse {
    pub container: ContainerId,
    pub loaded: bool,
    pub stored: bool,
}

/// Every container that `stmts` load or store (nested statements and
/// thread maps included), once each, in order of first use.
pub fn container_uses(stmts: &[Stmt]) -> Vec<ContainerUse> {
    let mut uses: Vec<ContainerUse> = Vec::new();
    let mut note = |container: ContainerId, stored: bool| {
        let at = match uses.iter().position(|u| u.container == container) {
            Some(at) => at,
            None => {
                uses.push(ContainerUse {
                    container,
                    loaded: false,
                    stored: false,
                });
                uses.len() - 1
            }
        };
        let u = &mut uses[at];
        if stored {
            u.stored = true;
        } else {
            u.loaded = true;
        }
    };
    for s in stmts {
        s.walk(&mut |x| {
            if let Stmt::Store { container, .. } = x {
                note(*container, true);
            }
        });
        s.walk_exprs(&mut |e| {
            if let ExprKind::Load { container, .. } = e.kind {
                note(container, false);
            }
        });
    }
    uses
}

/// The barriers of a block body, in program order.
pub fn barriers(stmts: &[Stmt]) -> Vec<&Barrier> {
    let mut out = Vec::new();
    for s in stmts {
        s.walk(&mut |s| {
            if let Stmt::Barrier(b) = s {
                out.push(b);
            }
        });
    }
    out
}
