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
//! Where the phases reach only the iterations near their own
//! ([`crate::ir::reach`]), the words are followed by one flag per block
//! for blocks that synchronize with their neighbours
//! (`codegen::ptx::kernel::neighbours`), which every launch also leaves
//! at zero.

use crate::codegen::abi::KernelAbi;
use crate::codegen::names;
use crate::ir::reach::phase_reach;
use crate::ir::{
    Container, ContainerId, Expr, Map, Name, ScalarType, Sdfg, StateId, StatementKind, Storage,
    Value,
};
use crate::schedule::graphs::StatePlan;
use crate::schedule::Schedule;
use proc_macro2::Span;

/// The blocks' flags after the barrier's two words: neighbour
/// synchronization needs one per block of the launched grid, which is then
/// resident at once, so at most 32 blocks per SM (132 SMs on the H200: 4224
/// blocks). A larger grid synchronizes grid-wide.
pub const NEIGHBOUR_FLAGS: i64 = 8192;

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
    /// The barrier's words (and the blocks' flags, with `reach`).
    pub barrier: ContainerId,
    /// The offsets at which the phases read what one of them writes
    /// ([`phase_reach`]), for 3-D phases of that structure: their blocks
    /// may synchronize with their neighbours. None: grid-wide only.
    pub reach: Option<Vec<Vec<i128>>>,
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
        let maps: Vec<&Map> = p
            .phases
            .iter()
            .filter_map(|&k| match &sdfg.states[state].stmts[k].kind {
                StatementKind::Map(m) => Some(m),
                _ => None,
            })
            .collect();
        let reach = phase_reach(sdfg, &maps)
            .ok()
            .filter(|_| maps.iter().all(|m| m.params.len() == 3));
        let name = names::persistent_entry(sdfg, state, &taken);
        taken.push(name.clone());
        let span = Span::call_site();
        let words = 2 + if reach.is_some() { NEIGHBOUR_FLAGS } else { 0 };
        sdfg.containers.push(Container {
            name: Name::new(format!("__sdfg_barrier_{name}"), span),
            elem: ScalarType::U32,
            shape: vec![Expr::lit(Value::I64(words), span)],
            storage: Storage::Gpu,
            transient: true,
        });
        out.push(PersistentKernel {
            state,
            name,
            phases,
            barrier: sdfg.containers.len() - 1,
            reach,
            index: abis.len() + out.len(),
        });
    }
    out
}
