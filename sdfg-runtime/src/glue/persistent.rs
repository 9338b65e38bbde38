//! The CPU side of persistent kernels (`#[persistent]` states): the twin
//! of the kernel runs the maps' twins as its phases, in order, for every
//! iteration; each phase is a parallel loop on the kernel pool that joins
//! before the next begins (the join is the grid-wide barrier), so the CPU
//! device computes what the GPU's one launch computes, bit for bit.

use crate::kernel::cpu_twin::{CpuKernel, KernelArgs};
use crate::kernel::launch_config::LaunchConfig;

/// One phase of a persistent kernel: a map's kernel, and where its
/// arguments lie in the persistent kernel's argument list.
#[derive(Clone, Copy)]
pub struct PersistentPhase {
    /// The map's kernel index in the module (faults name it).
    pub kernel: usize,
    /// Its entry name.
    pub name: &'static str,
    /// Its CPU twin.
    pub twin: CpuKernel,
    /// Its first argument in the persistent kernel's list, and how many.
    pub first: usize,
    pub count: usize,
}

/// The twin of a persistent kernel: `phases` in order, as many times as
/// its argument `iterations` (a `u64`) says.
///
/// # Panics
/// If the arguments do not match the phases (a code-generator bug).
pub fn run_phases(args: &KernelArgs<'_>, phases: &[PersistentPhase], iterations: usize) {
    let n: u64 = args.value(iterations);
    for _ in 0..n {
        for phase in phases {
            let sub = KernelArgs {
                args: &args.args[phase.first..phase.first + phase.count],
                fault: args.fault,
                kernel: phase.name,
                kernel_index: phase.kernel,
                config: args.config,
                pool: args.pool,
            };
            (phase.twin)(&sub);
        }
    }
}

/// The launch of a persistent kernel from its phases' launches: the first
/// phase's block, per axis the largest grid (the launch cuts it down to
/// what is resident at once; `Stream::launch_persistent`).
pub fn persistent_config(phases: &[LaunchConfig]) -> LaunchConfig {
    let mut config = phases.first().copied().unwrap_or(LaunchConfig {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        shared_bytes: 0,
    });
    for p in phases {
        for axis in 0..3 {
            config.grid[axis] = config.grid[axis].max(p.grid[axis]);
        }
        config.shared_bytes = config.shared_bytes.max(p.shared_bytes);
    }
    config
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_covers_every_phase() {
        let a = LaunchConfig {
            grid: [1, 15, 118],
            block: [64, 2, 1],
            shared_bytes: 0,
        };
        let b = LaunchConfig {
            grid: [2, 10, 100],
            block: [32, 4, 1],
            shared_bytes: 0,
        };
        let c = persistent_config(&[a, b]);
        assert_eq!(c.grid, [2, 15, 118]);
        assert_eq!(c.block, [64, 2, 1]);
    }
}
