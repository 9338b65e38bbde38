//! What the code generators add for the `#[persistent]` states of the
//! graph plan (`schedule::graphs::PersistentLoop`): per state, the words
//! of its grid-wide barrier (a transient `gpu` `u32[2]`: arrivals, then
//! the generation) and one more kernel, after every map's, whose phases
//! are the state's maps. The IR users see, export and introspect stays as
//! written; the barrier is added after the schedule, like the parts of
//! device loops (`codegen::graphs`).
//!
//! The barrier's words start at zero (a fresh transient is zeros) and
//! every launch leaves the arrival count at zero again (each barrier
//! resets it before it releases the blocks), so no call clears them.

use crate::codegen::abi::KernelAbi;
use crate::codegen::names;
use crate::ir::{Container, ContainerId, Expr, Name, ScalarType, Sdfg, StateId, Storage, Value};
use crate::schedule::graphs::StatePlan;
use crate::schedule::Schedule;
use proc_macro2::Span;

/// The persistent kernel of one `#[persistent]` state.
#[derive(Clone, Debug)]
pub struct PersistentKernel {
    pub state: StateId,
    /// The PTX entry name (`p_<state>`, [`names::persistent_entry`]).
    pub name: String,
    /// The kernels of the state's maps, in order (indices into the ABIs):
    /// the phases. Each phase runs with its map's kernel index, so a fault
    /// names the map.
    pub phases: Vec<usize>,
    /// The barrier's words.
    pub barrier: ContainerId,
    /// The kernel's index in the module: after every map's kernel.
    pub index: usize,
}

/// Adds the barrier of every persistent state of the plan to `sdfg` and
/// describes their kernels (`abis`: the maps' kernels, which the added
/// containers do not change). Empty when the plan has none.
pub fn augment(sdfg: &mut Sdfg, schedule: &Schedule, abis: &[KernelAbi]) -> Vec<PersistentKernel> {
    let mut taken: Vec<String> = abis.iter().map(|a| a.name.clone()).collect();
    let mut out = Vec::new();
    for (state, plan) in schedule.graphs.states.iter().enumerate() {
        let StatePlan::Persistent(p) = plan else {
            continue;
        };
        let phases: Vec<usize> = p
            .phases
            .iter()
            .filter_map(|&k| abis.iter().position(|a| a.state == state && a.stmt == k))
            .collect();
        let name = names::persistent_entry(sdfg, state, &taken);
        taken.push(name.clone());
        let span = Span::call_site();
        sdfg.containers.push(Container {
            name: Name::new(format!("__sdfg_barrier_{name}"), span),
            elem: ScalarType::U32,
            shape: vec![Expr::lit(Value::I64(2), span)],
            storage: Storage::Gpu,
            transient: true,
        });
        out.push(PersistentKernel {
            state,
            name,
            phases,
            barrier: sdfg.containers.len() - 1,
            index: abis.len() + out.len(),
        });
    }
    out
}
