//! How far the phases of a persistent kernel reach from their own
//! iteration: the facts that let its blocks synchronize with their
//! neighbours instead of the whole grid (`codegen::ptx::kernel::persistent`).
//!
//! Phases that share one iteration space (the same ranges, step 1) and
//! touch the data any of them writes only at `A[p_0 + c_0, ..., p_n + c_n]`
//! (each index the map parameter of its dimension plus a constant), and
//! store only at `A[p_0, ..., p_n]`, have a simple dependence structure
//! once every block runs the same tile of the iteration space in every
//! phase: an element of written data is stored by the one tile that owns
//! it and read only by tiles whose iterations lie within the largest
//! offset `c` of it. When no offset exceeds the tile's extent in its
//! dimension, those readers are the owner's adjacent tiles, so a block may
//! start phase `g` as soon as those tiles have finished phase `g - 1`:
//! what it reads was written (and will not be overwritten before it has
//! read it), and what it overwrites they have read. No grid-wide barrier
//! is needed. [`phase_reach`] finds the offsets or says why there are none.

use super::bounds::{for_each_map_access, AccessNode};
use super::linear::{Affine, AffineVar};
use super::{ContainerId, Expr, Map, Sdfg, Stmt};
use std::collections::BTreeSet;

/// The offsets (one per dimension) at which `maps` read data that one of
/// them writes, relative to the reading iteration, without duplicates and
/// without the zero offset; or why the maps do not have that structure.
pub fn phase_reach(sdfg: &Sdfg, maps: &[&Map]) -> Result<Vec<Vec<i128>>, String> {
    let first = maps.first().ok_or("no phase")?;
    let dims = first.params.len();
    let same_range = |m: &Map| {
        m.params.len() == dims
            && m.params.iter().zip(&first.params).all(|(p, q)| {
                p.step.is_none()
                    && p.inclusive == q.inclusive
                    && Affine::of(&p.start).is_some_and(|s| Some(s) == Affine::of(&q.start))
                    && Affine::of(&p.end).is_some_and(|e| Some(e) == Affine::of(&q.end))
            })
    };
    for m in maps {
        if m.block.is_some() || m.gpu_tasklet {
            return Err(format!("map `{}` is not a flat map", m.name.text));
        }
        if !same_range(m) {
            return Err(format!(
                "map `{}` does not have the ranges of map `{}` (each with step 1)",
                m.name.text, first.name.text
            ));
        }
    }
    // Every access of every phase, once (`ir::bounds`'s walk).
    let mut sites = Vec::new();
    for m in maps {
        for_each_map_access(m, &mut |a| sites.push((*m, a)));
    }
    let written: BTreeSet<ContainerId> = sites
        .iter()
        .filter(|(_, a)| a.is_store)
        .map(|(_, a)| a.container)
        .collect();
    let mut offsets = BTreeSet::new();
    for (m, a) in &sites {
        if !written.contains(&a.container) {
            continue;
        }
        let name = &sdfg.containers[a.container].name.text;
        let o = offset(a.index, dims);
        match &a.node {
            AccessNode::Store(Stmt::Store { wcr, .. }) => {
                if wcr.is_some() || !o.is_some_and(|o| o.iter().all(|&c| c == 0)) {
                    return Err(format!(
                        "map `{}` stores into `{name}` elsewhere than at its own iteration (or reduces)",
                        m.name.text
                    ));
                }
            }
            _ => match o {
                Some(o) if o.iter().any(|&c| c != 0) => {
                    offsets.insert(o);
                }
                Some(_) => {}
                None => {
                    return Err(format!(
                        "map `{}` reads `{name}`, which a phase writes, at an index that is not its own parameter plus a constant",
                        m.name.text
                    ))
                }
            },
        }
    }
    Ok(offsets.into_iter().collect())
}

/// `index` as `p_d + c_d` for every dimension `d` (the map's own
/// parameters, in order), the constants; None for any other index.
fn offset(index: &[Expr], dims: usize) -> Option<Vec<i128>> {
    if index.len() != dims {
        return None;
    }
    index
        .iter()
        .enumerate()
        .map(|(d, e)| {
            let form = Affine::of(e)?;
            let mut terms = form.terms.iter();
            match (terms.next(), terms.next()) {
                (Some((AffineVar::Param(p), 1)), None) if *p == d => Some(form.constant),
                _ => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::phase_reach;
    use crate::ir::{Map, StatementKind};

    /// The reach of the maps of state `step` of a program whose state holds
    /// `maps` over `A`, `B` (written) and `C` (read only), 2-D.
    fn reach(maps: &str) -> Result<Vec<Vec<i128>>, String> {
        let src = format!(
            "sdfg R {{ symbol N: i64;
              gpu A: f64[N, N]; gpu B: f64[N, N]; gpu C: f64[N, N];
              state step {{ {maps} }}
            }}"
        );
        let sdfg = crate::frontend_str(&src).unwrap();
        let maps: Vec<&Map> = sdfg.states[0]
            .stmts
            .iter()
            .filter_map(|s| match &s.kind {
                StatementKind::Map(m) => Some(m),
                _ => None,
            })
            .collect();
        phase_reach(&sdfg, &maps)
    }

    #[test]
    fn a_stencil_reaches_its_offsets_and_reads_of_unwritten_data_do_not_count() {
        let r = reach(
            "map b[i in 1..N-1, j in 1..N-1] on gpu {
                 B[i, j] = A[i - 1, j] + A[i, j + 1] + A[i, j] + C[0, N - 1 - j];
             }
             map a[i in 1..N-1, j in 1..N-1] on gpu { A[i, j] = B[i + 1, j - 1]; }",
        );
        assert_eq!(r, Ok(vec![vec![-1, 0], vec![0, 1], vec![1, -1]]));
    }

    #[test]
    fn what_breaks_the_structure_is_named() {
        let cases = [
            (
                "map b[i in 1..N-1, j in 1..N-1] on gpu { B[i, j] = A[j, i]; }
                 map a[i in 1..N-1, j in 1..N-1] on gpu { A[i, j] = B[i, j]; }",
                "map `b` reads `A`",
            ),
            (
                "map b[i in 1..N-1, j in 1..N-1] on gpu { B[i + 1, j] = A[i, j]; }",
                "map `b` stores into `B`",
            ),
            (
                "map b[i in 0..N, j in 0..N] on gpu { B[i, j] += A[i, j]; }",
                "map `b` stores into `B`",
            ),
            (
                "map b[i in 1..N-1, j in 1..N-1] on gpu { B[i, j] = A[i, j]; }
                 map a[i in 1..N-2, j in 1..N-1] on gpu { A[i, j] = B[i, j]; }",
                "map `a` does not have the ranges of map `b`",
            ),
        ];
        for (maps, want) in cases {
            let r = reach(maps);
            assert!(
                r.as_ref().is_err_and(|e| e.starts_with(want)),
                "{maps}: {r:?}"
            );
        }
    }
}
