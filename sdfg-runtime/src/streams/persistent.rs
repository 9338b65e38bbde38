//! Persistent kernels: one launch that runs every iteration of a loop,
//! its blocks meeting at grid-wide barriers between phases. On a GPU the
//! launch is cooperative (all blocks resident, so a barrier cannot wait
//! for a block that never gets an SM); the CPU device runs the kernel's
//! twin, whose phases are parallel loops joined in order.

use crate::cuda;
use crate::error::Result;
use crate::kernel::args::KernelArg;
use crate::kernel::launch_config::LaunchConfig;
use crate::kernel::module::Module;
use crate::order::counters::CounterCells;
use crate::order::recording;
use crate::order::stream_state::StreamBackend;
use crate::order::tracker::{AccessKind, Tracker};
use crate::streams::stream::Stream;

impl Stream {
    /// Launches kernel `kernel` of `module`, a persistent kernel whose
    /// blocks synchronize grid-wide: on a GPU with `cuLaunchCooperativeKernel`
    /// and `config.grid` cut down (z first, then y, then x) to the blocks
    /// that are resident at once (occupancy of `config.block` per SM times
    /// SMs); on the CPU device like [`Stream::launch`] (its twin). Returns
    /// `Ok(false)`, having issued nothing, where the GPU cannot run it
    /// (no cooperative launches, no block resident, or a graph being
    /// recorded): the caller then runs the work launch by launch.
    ///
    /// `neighbour_flags`: for a kernel whose blocks can also synchronize
    /// with their neighbours alone (one tile per block, a flag per block
    /// after the barrier's words; it takes a last `u32` parameter, the
    /// mode, which this passes), the number of flags. Where the phases'
    /// own grid is resident at once, has no more blocks than flags and no
    /// axis cut to the launch limits (so each block runs its own tile), it
    /// is launched whole in that mode (1); else cut down, in the grid-wide
    /// mode (0).
    ///
    /// # Safety
    ///
    /// As [`Stream::launch`]; and the kernel must be correct for every grid
    /// (its loops stride over the grid, and its barriers count the grid's
    /// blocks). With `neighbour_flags`, the kernel must take the mode as
    /// its last parameter, and its barrier argument must hold that many
    /// flags after its two words (the kernel writes one per block).
    pub unsafe fn launch_persistent(
        &self,
        module: &Module,
        kernel: usize,
        config: &LaunchConfig,
        args: &[KernelArg<'_>],
        neighbour_flags: Option<u32>,
    ) -> Result<bool> {
        let stream = match &self.inner.backend {
            // SAFETY: the caller's promise, passed on.
            StreamBackend::Cpu(_) => {
                return unsafe { self.launch(module, kernel, config, args) }.map(|()| true)
            }
            StreamBackend::Cuda(stream) => stream,
        };
        self.device
            .check_same(module.device_id, || "the module".to_string())?;
        let name = module.kernel_name(kernel)?.clone();
        config.validate()?;
        if recording::is_recording() {
            // A graph node of a cooperative kernel is not what segments record.
            return Ok(false);
        }
        if config.grid.contains(&0) {
            return Ok(true);
        }
        for (i, arg) in args.iter().enumerate() {
            if let Some(buffer) = arg.buffer_view() {
                self.device.check_same(buffer.device_id(), || {
                    format!("buffer argument {i} of kernel `{name}`")
                })?;
            }
        }
        if let Some(slot) = args.iter().find_map(KernelArg::slot) {
            self.device.check_same(slot.device_id(), || {
                format!("the fault slot of kernel `{name}`")
            })?;
        }
        if !cuda::cooperative::supported(&stream.ctx)? {
            return Ok(false);
        }
        let function = module.cuda_function(kernel)?;
        let threads = config.block.iter().product::<u32>();
        let per_sm =
            cuda::cooperative::resident_blocks_per_sm(function, threads, config.shared_bytes)?;
        let resident = per_sm.saturating_mul(self.device.sm_count());
        if resident == 0 {
            return Ok(false);
        }
        let whole = config.grid.iter().map(|&g| u64::from(g)).product::<u64>();
        let neighbours = neighbour_flags.is_some_and(|flags| {
            whole <= u64::from(resident.min(flags))
                && uncut(config.grid, LaunchConfig::grid_limits(&self.device))
        });
        let grid = if neighbours {
            config.grid
        } else {
            resident_grid(config.grid, resident)
        };
        let accesses: Vec<(&Tracker, AccessKind)> = args
            .iter()
            .filter_map(|a| Some((a.buffer_view()?.tracker(), a.access_kind()?)))
            .collect();
        let fault_ptr = self.inner.fault.device_ptr();
        let mut params: Vec<u128> = args.iter().map(|a| a.param_bits(fault_ptr)).collect();
        if neighbour_flags.is_some() {
            params.push(u128::from(neighbours));
        }
        self.issue(accesses.iter().copied(), |op| {
            cuda::cooperative::launch(
                op.cuda_stream(),
                function,
                grid,
                config.block,
                config.shared_bytes,
                &mut params,
            )
        })?;
        CounterCells::bump(&self.device.counters_cells().kernel_launches);
        Ok(true)
    }
}

/// Whether no axis of `grid` is at the limit the map grids are cut to
/// (`LaunchConfig::grid_limits`), so the grid covers its map with one tile
/// per block.
fn uncut(grid: [u32; 3], limits: [u64; 3]) -> bool {
    grid.iter()
        .zip(limits)
        .all(|(&g, limit)| u64::from(g) < limit)
}

/// `grid` cut down to at most `resident` blocks: z first, then y, then x
/// (the kernel strides over every axis, so any grid is correct; x, the
/// innermost dimension, keeps its coalesced width longest).
pub(crate) fn resident_grid(grid: [u32; 3], resident: u32) -> [u32; 3] {
    let [mut x, mut y, mut z] = grid.map(|g| g.max(1));
    let resident = resident.max(1);
    x = x.min(resident);
    y = y.min((resident / x).max(1));
    z = z.min((resident / (x * y)).max(1));
    [x, y, z]
}

#[cfg(test)]
mod tests {
    use super::{resident_grid, uncut};
    use crate::kernel::launch_config::LaunchConfig;

    #[test]
    fn a_grid_at_a_launch_limit_may_not_cover_its_map() {
        // The H200's limits: 132 SMs.
        let limits = [132 * 32, 65535, 65535];
        assert!(uncut([2, 59, 15], limits));
        assert!(!uncut([132 * 32, 1, 1], limits));
        assert!(!uncut([1, 65535, 1], limits));
        assert!(!uncut([1, 1, 65535], limits));
        assert!(uncut([4223, 65534, 65534], limits));
    }

    #[test]
    fn the_limits_are_those_the_map_grids_are_cut_to() {
        let dev = crate::Device::cpu();
        let limits = LaunchConfig::grid_limits(&dev);
        let huge = LaunchConfig::for_tiles(&dev, &[1 << 20, 1 << 40, 1 << 40], [1, 1, 1], 1, 1);
        assert_eq!(huge.grid.map(u64::from), limits);
        assert!(!uncut(huge.grid, limits));
    }

    #[test]
    fn the_grid_fits_the_resident_blocks() {
        assert_eq!(resident_grid([1, 15, 118], 1056), [1, 15, 70]);
        assert_eq!(resident_grid([4, 4, 4], 1056), [4, 4, 4]);
        assert_eq!(resident_grid([2000, 3, 3], 1056), [1056, 1, 1]);
        assert_eq!(resident_grid([10, 200, 9], 1056), [10, 105, 1]);
        assert_eq!(resident_grid([0, 0, 0], 8), [1, 1, 1]);
        for grid in [[1, 15, 118], [7, 300, 5], [1, 1, 100000]] {
            for resident in [1, 2, 132, 1056, 4096] {
                let g = resident_grid(grid, resident);
                assert!(g.iter().product::<u32>() <= resident, "{grid:?} {resident}");
            }
        }
    }
}
