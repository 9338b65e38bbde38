//! The host glue: the items `sdfg!` expands to (DESIGN section 4) and the
//! state machine that runs the SDFG, written against sdfg-runtime.
//!
//! The proof the project rests on lives here: host data that a stream is
//! still writing is held in a `Pending<_>` binding, which the host-read
//! traits do not accept. The schedule's sync points become `.wait()` calls;
//! had the schedule (or the user, in `#[sync(manual)]`) missed one, the read
//! that follows would not type-check, and rustc reports it at the user's
//! tokens because those reads are spanned there.
//!
//! Shape of a call: check arguments, take a context (streams, transients),
//! then `loop { match state { ... } }` where each state arm prechecks its
//! ranges and indices, moves the host containers into local bindings,
//! issues its statements in textual order (waiting at sync points), settles
//! what is still in flight, moves the containers back and tries its edges.
//!
//! Rooms: `items` (the program type, the impl), `args` (the `Args` struct,
//! its field docs, how a call takes it apart), `states` (the call
//! and its state machine, waits, edges), `statements` (kernel launches, host
//! tasklets and maps, copies), `prechecks` (map ranges, indices and copy
//! regions checked before a state's work), `block` (a block map's checks
//! and launch shape), `faults` (what access codes mean, for fault
//! messages), `segments` (graph segments: their entry and exit at the top
//! of the state machine, and the arms that record a device loop and finish
//! it), `persistent` (the arm of a `#[persistent]` state: its iterations
//! counted on the host, one launch, launch by launch where it cannot).
//! Names come from [`super::names`], paths into the runtime from
//! `runtime_paths`.

mod args;
mod block;
mod faults;
mod items;
mod persistent;
mod prechecks;
mod segments;
mod statements;
mod states;

use super::abi::KernelAbi;
use super::cpu::tokens::rust_type;
use super::graphs::LoopParts;
use super::names;
use super::persistent::PersistentKernel;
use super::ptx::ptxas::EmbeddedCubin;
use super::ptx::{PtxKernel, PtxModule};
use crate::ir::{ContainerId, Sdfg, StateId, StmtId, SymbolId, TaskletBody};
use crate::schedule::Schedule;
use proc_macro2::{Ident, TokenStream};

/// Text constants the generated type carries besides its PTX.
pub struct Texts {
    /// The `sdfg!` input, for `Name::ir()`.
    pub source: String,
    /// Graphviz drawing with the schedule (`Name::to_dot()`).
    pub dot: String,
    /// DaCe `.sdfg` JSON (`Name::to_sdfg_json()`), or why the program has
    /// none (`export::dace::unexportable`).
    pub sdfg_json: Result<String, String>,
}

/// The kernels of one program: `abis` the maps' kernels' ABIs, `ptx` the
/// module generated from them, `persistent` the kernels of persistent
/// states (after the maps' in the module), `cubins` the module assembled by
/// `ptxas` (embedded, so a GPU they fit skips the JIT).
pub struct Kernels<'a> {
    pub abis: &'a [KernelAbi],
    pub ptx: &'a PtxModule,
    pub persistent: &'a [PersistentKernel],
    pub cubins: &'a [EmbeddedCubin],
}

/// Everything `sdfg!` expands to for one validated SDFG: `loops` the parts
/// added for its device loops, `kernels` its kernels.
pub fn generate(
    sdfg: &Sdfg,
    schedule: &Schedule,
    loops: &[LoopParts],
    kernels: &Kernels<'_>,
    texts: &Texts,
) -> TokenStream {
    let g = Glue {
        empty: TaskletBody::default(),
        sdfg,
        schedule,
        loops,
        abis: kernels.abis,
        ptx: kernels.ptx,
        persistent: kernels.persistent,
        cubins: kernels.cubins,
    };
    g.items(texts)
}

struct Glue<'a> {
    /// The body of expressions outside tasklets (shapes, ranges, edges).
    empty: TaskletBody,
    sdfg: &'a Sdfg,
    schedule: &'a Schedule,
    /// The generated parts of the device loops (`codegen::graphs`).
    loops: &'a [LoopParts],
    abis: &'a [KernelAbi],
    ptx: &'a PtxModule,
    /// The persistent kernels (`codegen::persistent`).
    persistent: &'a [PersistentKernel],
    /// The PTX assembled at build time, per compute capability (embedded).
    cubins: &'a [EmbeddedCubin],
}

impl Glue<'_> {
    fn cname(&self, c: ContainerId) -> &str {
        &self.sdfg.containers[c].name.text
    }
    fn sym(&self, s: SymbolId) -> Ident {
        names::symbol(&self.sdfg.symbols[s].name.text)
    }
    fn elem(&self, c: ContainerId) -> TokenStream {
        rust_type(self.sdfg.containers[c].elem)
    }
    fn writes(&self, c: ContainerId) -> bool {
        self.sdfg
            .states
            .iter()
            .flat_map(|s| &s.stmts)
            .flat_map(|st| &st.memlets)
            .any(|m| m.container == c && m.access.is_write())
    }
    fn host_containers(&self) -> impl Iterator<Item = ContainerId> + '_ {
        (0..self.sdfg.containers.len()).filter(|&c| self.sdfg.containers[c].storage.is_host())
    }
    fn stream_of(&self, sid: StateId, k: StmtId) -> Ident {
        names::stream(self.schedule.states[sid].stream_of[k].unwrap_or(0))
    }
    /// The kernel of `gpu` map `k` of state `sid`: its index in the
    /// module, its ABI, and its launch shape.
    fn kernel(&self, sid: StateId, k: StmtId) -> (usize, &KernelAbi, &PtxKernel) {
        let index = self
            .abis
            .iter()
            .position(|a| a.state == sid && a.stmt == k)
            .expect("every gpu map has a kernel ABI");
        let shape = self
            .ptx
            .kernel(sid, k)
            .expect("every gpu map has a kernel in the PTX module");
        (index, &self.abis[index], shape)
    }
}

#[cfg(test)]
mod test_support {
    use super::Glue;
    use crate::codegen::abi::kernel_abis;
    use crate::codegen::ptx::{generate_for, Tuning};
    use crate::ir::TaskletBody;

    /// Runs `check` on the glue of the program `src` (for the glue's tests).
    pub(super) fn glue_of(src: &str, check: impl FnOnce(&Glue)) {
        let sdfg = crate::frontend_str(src).expect("valid");
        let schedule = crate::schedule::schedule(&sdfg);
        let abis = kernel_abis(&sdfg);
        let ptx = generate_for(&sdfg, &abis, &Tuning::default());
        let g = Glue {
            empty: TaskletBody::default(),
            sdfg: &sdfg,
            schedule: &schedule,
            loops: &[],
            abis: &abis,
            ptx: &ptx,
            persistent: &[],
            cubins: &[],
        };
        check(&g);
    }
}
