//! Private teams: a block map whose members need not talk to each other.
//!
//! A block team (`runtime::cpu::team`) splits every thread map between its
//! members, who then pass `shared` data to each other through memory and
//! meet at the compiler's barriers. When the phases that produce block
//! data are cheap next to the ones that consume it (the tiled gemm: loading
//! a tile of A and B against 16 multiply-adds per element of it), moving
//! that data between cores costs more than the split saves. So where the
//! program allows, each member instead keeps a *private* copy of the
//! block's `shared` data and runs every iteration of the thread maps that
//! produce it (they are *replicated*: each copy computes the same values,
//! iteration for iteration, as one task would), and only its own GPU
//! threads' iterations of the others (*split*). Nothing is then shared
//! between members: no barrier waits, and the members run as independent
//! tasks.
//!
//! The program allows it when
//! - every thread map that stores to `shared` data is replicated, and so is
//!   every thread map storing `register` data that a replicated one reads
//!   (a replicated map must see every GPU thread's copy; a split one sees
//!   only its member's, which it wrote itself);
//! - no replicated thread map stores to `gpu` data (a store must happen
//!   once);
//! - no `gpu` container is both read and stored in the block program (a
//!   member must not read what another member's split phase wrote: without
//!   barriers between members nothing orders the two);
//! - at least one thread map is split (else a team would only repeat work).
//!
//! Block-level stores to block data run on every member (each on its own
//! copy); to `gpu` data, on member 0 only, as in any team.

use crate::ir::{container_uses, thread_maps, ContainerId, Map, Sdfg, Storage, ThreadMap};

/// What one thread map touches.
struct Phase<'a> {
    map: &'a ThreadMap,
    stores_shared: bool,
    stores_global: bool,
    register_loads: Vec<ContainerId>,
    register_stores: Vec<ContainerId>,
}

/// The thread maps of `m` that a private team replicates (see the module),
/// by address, or None when `m` cannot run on private teams.
pub(super) fn replicated_phases(sdfg: &Sdfg, m: &Map) -> Option<Vec<*const ThreadMap>> {
    let storage = |c: ContainerId| sdfg.containers[c].storage;
    let is_block = |c: ContainerId| matches!(storage(c), Storage::Shared | Storage::Register);
    let loaded_and_stored = container_uses(&m.body.stmts)
        .iter()
        .any(|u| !is_block(u.container) && u.loaded && u.stored);
    if loaded_and_stored {
        return None;
    }
    let phases: Vec<Phase<'_>> = thread_maps(&m.body.stmts)
        .into_iter()
        .map(|t| phase(t, &storage))
        .collect();
    let mut replicated: Vec<bool> = phases.iter().map(|p| p.stores_shared).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..phases.len() {
            if !replicated[i] {
                continue;
            }
            for j in 0..phases.len() {
                let feeds = phases[j]
                    .register_stores
                    .iter()
                    .any(|r| phases[i].register_loads.contains(r));
                if feeds && !replicated[j] {
                    replicated[j] = true;
                    changed = true;
                }
            }
        }
    }
    let stores_twice = phases
        .iter()
        .zip(&replicated)
        .any(|(p, &r)| r && p.stores_global);
    if stores_twice || replicated.iter().all(|&r| r) {
        return None;
    }
    Some(
        phases
            .iter()
            .zip(&replicated)
            .filter(|(_, &r)| r)
            .map(|(p, _)| p.map as *const ThreadMap)
            .collect(),
    )
}

fn phase<'a>(t: &'a ThreadMap, storage: &dyn Fn(ContainerId) -> Storage) -> Phase<'a> {
    let mut p = Phase {
        map: t,
        stores_shared: false,
        stores_global: false,
        register_loads: Vec::new(),
        register_stores: Vec::new(),
    };
    for u in container_uses(&t.body) {
        match storage(u.container) {
            Storage::Shared => p.stores_shared |= u.stored,
            Storage::Register => {
                if u.loaded {
                    p.register_loads.push(u.container);
                }
                if u.stored {
                    p.register_stores.push(u.container);
                }
            }
            _ => p.stores_global |= u.stored,
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::StatementKind;

    /// The names of the thread maps a private team replicates in the first
    /// map of `body` (a block map of `block(32)` over `r in 0..R`), or None.
    fn replicated(decls: &str, body: &str) -> Option<Vec<String>> {
        let src = format!(
            "sdfg S {{ symbol R: i64; gpu X: f32[R, 32]; gpu Y: f32[R, 32]; {decls} \
             state s {{ map rows[r in 0..R] on gpu block(32) {{ {body} }} }} }}"
        );
        let sdfg = crate::frontend_str(&src).expect("valid");
        let StatementKind::Map(m) = &sdfg.states[0].stmts[0].kind else {
            panic!("the first statement is a map")
        };
        let names = replicated_phases(&sdfg, m)?;
        Some(
            thread_maps(&m.body.stmts)
                .into_iter()
                .filter(|t| names.contains(&(*t as *const ThreadMap)))
                .map(|t| t.name.text.clone())
                .collect(),
        )
    }

    #[test]
    fn producers_of_shared_data_and_of_the_registers_they_read_are_replicated() {
        let got = replicated(
            "",
            "shared s: f32[32]; register p: f32[1]; register acc: f32[1]; \
             map fetch[c in 0..32] on threads { p[0] = X[r, c]; } \
             map stash[c in 0..32] on threads { s[c] = p[0] * 2.0; } \
             map zero[c in 0..32] on threads { acc[0] = 0.0; } \
             map use_[c in 0..32] on threads { acc[0] = acc[0] + s[31 - c]; } \
             map put[c in 0..32] on threads { Y[r, c] = acc[0]; }",
        );
        assert_eq!(got, Some(vec!["fetch".to_string(), "stash".to_string()]));
    }

    #[test]
    fn a_producer_that_stores_gpu_data_needs_a_sharing_team() {
        let got = replicated(
            "",
            "shared s: f32[32]; \
             map load[c in 0..32] on threads { s[c] = X[r, c]; Y[r, c] = 0.0; } \
             map put[c in 0..32] on threads { Y[r, c] = s[31 - c]; }",
        );
        assert_eq!(got, None);
    }

    #[test]
    fn gpu_data_read_and_stored_in_the_block_needs_a_sharing_team() {
        let got = replicated(
            "",
            "shared s: f32[32]; \
             map load[c in 0..32] on threads { s[c] = X[r, c]; } \
             map put[c in 0..32] on threads { Y[r, c] = s[31 - c]; } \
             map again[c in 0..32] on threads { X[r, c] = Y[r, (c + 1) % 32]; }",
        );
        assert_eq!(got, None);
    }

    #[test]
    fn nothing_to_split_is_no_private_team() {
        let got = replicated(
            "",
            "shared s: f32[32]; \
             map load[c in 0..32] on threads { s[c] = X[r, c]; } \
             map twice[c in 0..32] on threads { s[c] = s[c] * 2.0; }",
        );
        assert_eq!(got, None);
    }

    #[test]
    fn a_block_without_shared_data_splits_everything() {
        let got = replicated(
            "",
            "register p: f32[1]; \
             map a[c in 0..32] on threads { p[0] = X[r, c]; } \
             map b[c in 0..32] on threads { Y[r, c] = p[0]; }",
        );
        assert_eq!(got, Some(vec![]));
    }
}
