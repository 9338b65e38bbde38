//! Code generation, after the schedule: [`abi`] fixes every `gpu` map's
//! kernel parameters once; [`ptx`] emits the kernels, `cpu` the Rust that
//! runs on the host (tasklet bodies, `cpu`/`seq` maps, the kernels' twins
//! for the CPU device), and [`glue`] the items `sdfg!` expands to and the
//! state machine, written against sdfg-runtime. Every generated name comes
//! from [`names`], every path into the runtime from `runtime_paths`;
//! [`replay`] is the macro through which other `sdfg!`s call the program.

pub mod abi;
pub(crate) mod cpu;
pub mod glue;
pub mod names;
pub mod ptx;
pub mod replay;
pub(crate) mod runtime_paths;

use crate::ir::Sdfg;
use crate::schedule::Schedule;
use proc_macro2::TokenStream;

/// Everything `sdfg!` expands to for one validated, scheduled SDFG.
pub fn generate(sdfg: &Sdfg, schedule: &Schedule, texts: &glue::Texts) -> TokenStream {
    let abis = abi::kernel_abis(sdfg);
    let ptx = ptx::generate_for(sdfg, &abis, &ptx::Tuning::default());
    glue::generate(sdfg, schedule, &abis, &ptx, texts)
}
