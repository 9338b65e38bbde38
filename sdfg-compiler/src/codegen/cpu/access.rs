//! How a parallel map (a `cpu` map or the CPU twin of a `gpu` map) reaches
//! each container it touches: plain loads and stores wherever that is free
//! of data races, atomic cells only where iterations may share an element.
//!
//! The chunks of a map run on several threads at once (`runtime::__glue::par`).
//! A plain (non-atomic) access is sound when no other thread touches the
//! element at the same time while one of them writes it. So, per container:
//! - [`Mode::Read`]: the map only reads it; nothing else writes it while the
//!   map runs (the glue's statement order and the runtime's buffer trackers
//!   order every other writer), so a plain shared slice.
//! - [`Mode::Owned`]: the map writes it, and every element it touches
//!   belongs to one iteration ([`iterations_own`]): a plain view. Two
//!   iterations never touch one element, so neither do two chunks.
//! - [`Mode::Partials`]: every access is a reduction (one operator) into an
//!   element fixed for the whole map (its index reads only symbols and
//!   literals): each chunk accumulates one partial per reduction site in a
//!   local, and after the map one thread combines the partials into the
//!   container in chunk order ([`Reduction`]): no per-element atomics, and
//!   the same result on every run with the same number of threads.
//! - [`Mode::Cells`]: anything else (indices that read data or locals, a
//!   reduction into an element that varies, reads and writes that may meet):
//!   atomic cells, so a race the validator could not rule out stays free of
//!   undefined behaviour (a `#[independent]` opt-in, for instance).
//!
//! The decision is syntactic and errs toward `Cells`; it does not rely on
//! the validator's dependence test, whose opt-ins are the user's word, not a
//! proof.

use crate::ir::bounds::{for_each_access, is_widening, reads_only_symbols, AccessNode};
use crate::ir::{
    same_expr, BinOp, ContainerId, Expr, ExprKind, ScalarType, Stmt, TaskletBody, VarRef, WcrOp,
};

/// How a parallel map reaches one container (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Read,
    Owned,
    Partials,
    Cells,
}

/// One reduction site of a [`Mode::Partials`] container: the store with
/// fault code `code` (the body's access numbering), its operator and type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reduction {
    pub code: u32,
    pub container: ContainerId,
    pub op: WcrOp,
    pub elem: ScalarType,
    /// The store's index is checked where it runs (not prechecked): after
    /// the map the combine checks it, and faults only when the site ran.
    pub guarded: bool,
}

/// The access plan of one parallel map body.
#[derive(Clone, Debug, Default)]
pub(crate) struct AccessPlan {
    modes: Vec<(ContainerId, Mode)>,
    /// The reduction sites of every `Partials` container, in access order.
    pub reductions: Vec<Reduction>,
}

impl AccessPlan {
    /// The plan of `body`, a map over `params` parameters; `elem` gives a
    /// container's element type.
    pub fn of(
        body: &TaskletBody,
        params: usize,
        elem: &dyn Fn(ContainerId) -> ScalarType,
    ) -> AccessPlan {
        let mut containers: Vec<ContainerId> = Vec::new();
        for_each_access(&body.stmts, &mut |site| {
            if !containers.contains(&site.container) {
                containers.push(site.container);
            }
        });
        let mut plan = AccessPlan::default();
        for c in containers {
            let mode = mode_of(body, params, c);
            plan.modes.push((c, mode));
        }
        // Numbered as `BodyEmitter` numbers them (fault codes).
        let mut code = 0u32;
        for_each_access(&body.stmts, &mut |site| {
            code += 1;
            if site.is_store && plan.mode(site.container) == Mode::Partials {
                plan.reductions.push(Reduction {
                    code,
                    container: site.container,
                    op: wcr_of(site.node).unwrap_or(WcrOp::Sum),
                    elem: elem(site.container),
                    guarded: !site.is_prechecked(),
                });
            }
        });
        plan
    }

    /// Every reduction checked where it runs: the plan of a map whose
    /// accesses the glue does not precheck (a dependent range).
    pub fn guard_all(&mut self) {
        for r in &mut self.reductions {
            r.guarded = true;
        }
    }

    /// The mode of `c` (`Read` for a container the body does not touch).
    pub fn mode(&self, c: ContainerId) -> Mode {
        self.modes
            .iter()
            .find(|(x, _)| *x == c)
            .map_or(Mode::Read, |(_, m)| *m)
    }

    /// Whether some container is reached in `mode`.
    pub fn has(&self, mode: Mode) -> bool {
        self.modes.iter().any(|(_, m)| *m == mode)
    }

    /// Overrides the mode of `c` (a kernel twin: a buffer the kernel's ABI
    /// passes read only is never written plainly, see `codegen::cpu::twin`).
    pub fn set_mode(&mut self, c: ContainerId, mode: Mode) {
        match self.modes.iter_mut().find(|(x, _)| *x == c) {
            Some(entry) => entry.1 = mode,
            None => self.modes.push((c, mode)),
        }
        if mode != Mode::Partials {
            self.reductions.retain(|r| r.container != c);
        }
    }
}

/// One access of the container being decided: its index and what it does.
struct Site<'a> {
    index: &'a [Expr],
    is_store: bool,
    wcr: Option<WcrOp>,
}

fn mode_of(body: &TaskletBody, params: usize, c: ContainerId) -> Mode {
    let mut sites: Vec<Site<'_>> = Vec::new();
    for_each_access(&body.stmts, &mut |site| {
        if site.container == c {
            let wcr = wcr_of(site.node);
            sites.push(Site {
                index: site.index,
                is_store: site.is_store,
                wcr,
            });
        }
    });
    if !sites.iter().any(|s| s.is_store) {
        return Mode::Read;
    }
    if iterations_own(&sites, params) {
        return Mode::Owned;
    }
    let first_op = sites.first().and_then(|s| s.wcr);
    let partials = first_op.is_some()
        && sites
            .iter()
            .all(|s| s.is_store && s.wcr == first_op && s.index.iter().all(reads_only_symbols));
    if partials {
        Mode::Partials
    } else {
        Mode::Cells
    }
}

/// Every element the sites touch belongs to one iteration: for every map
/// parameter `p` some dimension `k` holds `p + c` in every site, `c` one
/// expression over symbols and literals (the same in every site, so equal
/// in every iteration). Two iterations differ in some parameter `p`, so
/// their indices differ in dimension `k` (`x + c` is one-to-one even with
/// wrapping arithmetic), and an index is checked per dimension: they never
/// touch one element.
fn iterations_own(sites: &[Site<'_>], params: usize) -> bool {
    let Some(first) = sites.first() else {
        return true;
    };
    (0..params).all(|p| {
        (0..first.index.len()).any(|k| {
            let Some(offset) = param_plus(&first.index[k], p) else {
                return false;
            };
            sites.iter().all(|s| {
                s.index
                    .get(k)
                    .and_then(|e| param_plus(e, p))
                    .is_some_and(|o| same_offset(&o, &offset))
            })
        })
    })
}

/// `e` as parameter `p` plus an offset over symbols and literals: the
/// offset's terms with their signs (`p`: none; `p + N - 1`: `+N`, `-1`).
/// Only one-to-one steps: `+` and `-` of an invariant, and widening casts.
fn param_plus(e: &Expr, p: usize) -> Option<Vec<(bool, &Expr)>> {
    match &e.kind {
        ExprKind::Var(VarRef::Param(q)) if *q == p => Some(Vec::new()),
        ExprKind::Cast { arg } if arg.ty.is_integer() && is_widening(arg.ty, e.ty) => {
            param_plus(arg, p)
        }
        ExprKind::Binary {
            op: op @ (BinOp::Add | BinOp::Sub),
            lhs,
            rhs,
        } if e.ty.is_integer() => {
            if reads_only_symbols(rhs) {
                let mut terms = param_plus(lhs, p)?;
                terms.push((*op == BinOp::Add, &**rhs));
                Some(terms)
            } else if *op == BinOp::Add && reads_only_symbols(lhs) {
                let mut terms = param_plus(rhs, p)?;
                terms.push((true, &**lhs));
                Some(terms)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The same terms in the same order: equal values in every iteration.
fn same_offset(a: &[(bool, &Expr)], b: &[(bool, &Expr)]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((sa, ea), (sb, eb))| sa == sb && same_expr(ea, eb))
}

/// The reduction operator of a store (None: a plain store or a load).
fn wcr_of(node: AccessNode<'_>) -> Option<WcrOp> {
    match node {
        AccessNode::Store(Stmt::Store { wcr, .. }) => *wcr,
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Sdfg, StatementKind};

    fn plan(src: &str) -> (Sdfg, AccessPlan) {
        let sdfg = crate::frontend_str(src).expect("valid");
        let StatementKind::Map(m) = &sdfg.states[0].stmts[0].kind else {
            panic!("the first statement is a map")
        };
        let elem = |c: ContainerId| sdfg.containers[c].elem;
        let plan = AccessPlan::of(&m.body, m.params.len(), &elem);
        (sdfg, plan)
    }

    fn mode(sdfg: &Sdfg, plan: &AccessPlan, name: &str) -> Mode {
        let c = sdfg
            .containers
            .iter()
            .position(|c| c.name.text == name)
            .expect("container");
        plan.mode(c)
    }

    #[test]
    fn own_elements_are_plain_and_shared_ones_atomic() {
        let (s, p) = plan(
            "sdfg S { symbol N: i64; gpu A: f64[N]; gpu B: f64[N, N]; gpu C: f64[N]; \
             state a { #[independent(C)] map m[i in 1..N-1, j in 0..N] on gpu { \
                B[i, j] = A[i - 1] + A[i + 1]; C[i] = A[i]; } } }",
        );
        assert_eq!(mode(&s, &p, "A"), Mode::Read);
        assert_eq!(mode(&s, &p, "B"), Mode::Owned);
        // Every j writes C[i]: iterations share it. (The race test rejects
        // this without the opt-in; with it, the claim is the user's, and a
        // wrong one must still not be undefined behaviour: atomics.)
        assert_eq!(mode(&s, &p, "C"), Mode::Cells);
    }

    #[test]
    fn offsets_must_agree_between_reads_and_writes() {
        let (s, p) = plan(
            "sdfg S { symbol N: i64; gpu X: f64[N]; \
             state a { map m[i in 0..N-1] on gpu { X[i + 1] = X[i + 1] * 2.0; } } }",
        );
        assert_eq!(mode(&s, &p, "X"), Mode::Owned);
        let (s, p) = plan(
            "sdfg S { symbol N: i64; gpu X: f64[N]; \
             state a { #[independent(X)] map m[i in 0..N-1] on gpu { X[i] = X[i + 1]; } } } ",
        );
        assert_eq!(mode(&s, &p, "X"), Mode::Cells);
    }

    #[test]
    fn invariant_reductions_take_partials() {
        let (s, p) = plan(
            "sdfg S { symbol N: i64; gpu X: f32[N]; gpu S: f32; gpu H: i32[4]; \
             state a { map m[i in 0..N] on gpu { S += X[i]; H[(i % 4)] += 1; } } }",
        );
        assert_eq!(mode(&s, &p, "S"), Mode::Partials);
        assert_eq!(mode(&s, &p, "H"), Mode::Cells);
        assert_eq!(p.reductions.len(), 1);
        assert_eq!(p.reductions[0].op, WcrOp::Sum);
        assert!(!p.reductions[0].guarded);
    }

    #[test]
    fn a_reduction_into_own_elements_is_plain() {
        let (s, p) = plan(
            "sdfg S { symbol N: i64; gpu X: f32[N]; gpu Y: f32[N]; \
             state a { map m[i in 0..N] on gpu { Y[i] += X[i]; } } }",
        );
        assert_eq!(mode(&s, &p, "Y"), Mode::Owned);
        assert!(p.reductions.is_empty());
    }

    #[test]
    fn a_block_program_reads_plainly_and_owns_its_rows() {
        // The block parameter `b` is the map's; the thread map's `i` is a
        // local: X is only read, each block iteration owns row `b` of P
        // and of R (written by its threads), and S is shared by all.
        let (s, p) = plan(
            "sdfg S { symbol B: i64; symbol C: i64; gpu X: f32[B, C]; gpu R: f32[B, C]; \
             gpu P: f32[B]; gpu S: f32; \
             state a { map m[b in 0..B] on gpu block(64) { shared part: f32; part = 0.0; \
                map t[i in 0..C] on threads { part += X[b, i]; R[b, i] = X[b, i]; } \
                P[b] = part; S += part; } } }",
        );
        assert_eq!(mode(&s, &p, "X"), Mode::Read);
        assert_eq!(mode(&s, &p, "R"), Mode::Owned);
        assert_eq!(mode(&s, &p, "P"), Mode::Owned);
        assert_eq!(mode(&s, &p, "S"), Mode::Partials);
    }
}
