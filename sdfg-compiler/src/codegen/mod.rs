//! Code generation, after the schedule: [`abi`] fixes every `gpu` map's
//! kernel parameters once; [`ptx`] emits the kernels, `cpu` the Rust that
//! runs on the host (tasklet bodies, `cpu`/`seq` maps, the kernels' twins
//! for the CPU device), and [`glue`] the items `sdfg!` expands to and the
//! state machine, written against sdfg-runtime. [`graphs`] adds what the
//! conditional nodes of device loops need before any of them runs,
//! [`persistent`] the barriers and kernels of `#[persistent]` states. Every
//! generated name comes from [`names`], every path into the runtime from
//! `runtime_paths`; [`replay`] is the macro through which other `sdfg!`s
//! call the program.

pub mod abi;
pub(crate) mod cpu;
pub mod glue;
pub mod graphs;
pub mod names;
pub mod persistent;
pub mod ptx;
pub mod replay;
pub(crate) mod runtime_paths;

use crate::ir::Sdfg;
use crate::schedule::Schedule;
use proc_macro2::TokenStream;

/// Everything `sdfg!` expands to for one validated, scheduled SDFG. The
/// device loops of the schedule's graph plan first gain their generated
/// parts ([`graphs::augment`]).
pub fn generate(sdfg: &Sdfg, schedule: &Schedule, texts: &glue::Texts) -> TokenStream {
    let augmented = graphs::augment(sdfg, schedule);
    let (sdfg, schedule, loops) = match &augmented {
        Some(a) => (&a.sdfg, &a.schedule, a.loops.as_slice()),
        None => (sdfg, schedule, &[][..]),
    };
    let abis = abi::kernel_abis(sdfg);
    // Persistent states gain their barriers (the maps' kernels stay as they are).
    let mut with_barriers = None;
    let persistent = if schedule.graphs.has_persistent() {
        let mut out = sdfg.clone();
        let kernels = persistent::augment(&mut out, schedule, &abis);
        with_barriers = Some(out);
        kernels
    } else {
        Vec::new()
    };
    let sdfg = with_barriers.as_ref().unwrap_or(sdfg);
    let ptx = ptx::generate_with(sdfg, &abis, &persistent, &ptx::Tuning::default());
    let cubins = ptx::ptxas::embedded_cubins(&ptx.text, !abis.is_empty());
    let kernels = glue::Kernels {
        abis: &abis,
        ptx: &ptx,
        persistent: &persistent,
        cubins: &cubins,
    };
    glue::generate(sdfg, schedule, loops, &kernels, texts)
}
