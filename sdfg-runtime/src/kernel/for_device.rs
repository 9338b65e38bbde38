//! What a kernel needs from a device: its module loaded there (once per
//! device and PTX text, then cached in the device: from a cubin when one
//! is at hand, else by the JIT) and a grid sized for it.

use crate::cuda::load::{load_module, Origin};
use crate::cuda::CudaModule;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::kernel::cpu_twin::KernelEntry;
use crate::kernel::launch_config::LaunchConfig;
use crate::kernel::module::{Module, ModuleKey, ModuleOrigin};
use crate::lock::lock;
use std::sync::Arc;

impl Module {
    /// Loads (or finds in the device's cache) a module. CUDA: JIT-compiles
    /// the PTX (`Err(JitFailed)` with the driver's log) and looks up each
    /// entry; CPU: keeps the twin table (the PTX is not used).
    ///
    /// `kernels` is the table that generated code emits (its type is in the
    /// hidden glue module); a module without kernels needs none.
    ///
    /// # Safety
    ///
    /// The caller vouches for the PTX: every entry named in `kernels` keeps
    /// the contract of [`Stream::launch`] whenever it is launched, with the
    /// arguments it is launched with. Loading runs no kernel, but a loaded
    /// module is shared through the device's cache, and programs launch
    /// their modules from safe code.
    ///
    /// [`Stream::launch`]: crate::Stream::launch
    ///
    /// ```
    /// use sdfg_runtime::{Device, Module};
    /// // SAFETY: no kernels, so nothing can be launched.
    /// let module = unsafe { Module::load(&Device::cpu(), "", &[]) }?;
    /// assert!(module.kernel_names().is_empty());
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub unsafe fn load(
        device: &Device,
        ptx: &'static str,
        kernels: &'static [KernelEntry],
    ) -> Result<Arc<Module>> {
        // SAFETY: our caller's promise, with no cubins.
        unsafe { Module::load_with_cubins(device, ptx, &[], kernels) }
    }

    /// [`Module::load`] with cubins assembled from `ptx` at build time, per
    /// compute capability (`major * 10 + minor`): one that fits the GPU is
    /// loaded instead of the JIT (see `cuda/load.rs` for the order).
    ///
    /// # Safety
    ///
    /// As for [`Module::load`], and each cubin is `ptx` assembled for its
    /// compute capability.
    pub(crate) unsafe fn load_with_cubins(
        device: &Device,
        ptx: &'static str,
        cubins: &'static [(u32, &'static [u8], bool)],
        kernels: &'static [KernelEntry],
    ) -> Result<Arc<Module>> {
        let key = ModuleKey {
            ptx: ptx.to_string(),
            names: kernels.iter().map(|k| k.name.to_string()).collect(),
            cpu_twins: if device.is_gpu() {
                Vec::new()
            } else {
                kernels.iter().map(|k| k.cpu as usize).collect()
            },
        };
        // Held during the JIT: eight threads loading one program JIT it once.
        let mut cache = lock(&device.inner.modules);
        if let Some(module) = cache.get(&key) {
            return Ok(Arc::clone(module));
        }
        let (cuda, origin, grid_waits) = match device.cuda() {
            Some(ctx) => {
                let names: Vec<&str> = kernels.iter().map(|k| k.name).collect();
                let (module, origin, grid_waits) = load_module(ctx, ptx, cubins, &names)?;
                let origin = match origin {
                    Origin::EmbeddedCubin => ModuleOrigin::EmbeddedCubin,
                    Origin::CachedCubin => ModuleOrigin::CachedCubin,
                    Origin::Jit => ModuleOrigin::Jit,
                };
                (Some(module), origin, grid_waits)
            }
            None => (None, ModuleOrigin::CpuTwins, false),
        };
        let module = Arc::new(Module {
            device_id: device.id(),
            names: kernels.iter().map(|k| Arc::from(k.name)).collect(),
            cpu: kernels.iter().map(|k| k.cpu).collect(),
            cuda,
            origin,
            programmatic: grid_waits,
        });
        cache.insert(key, Arc::clone(&module));
        Ok(module)
    }

    /// Loads PTX generated at run time (no CPU twins, not cached): for
    /// differential tests of the PTX backend. `Err(Unsupported)` on the CPU device.
    ///
    /// # Safety
    ///
    /// As for [`Module::load`]: every entry named in `names` keeps the
    /// contract of [`Stream::launch`] whenever it is launched.
    ///
    /// [`Stream::launch`]: crate::Stream::launch
    ///
    /// ```
    /// use sdfg_runtime::{Device, Error, Module};
    /// // SAFETY: the CPU device refuses the module, nothing is loaded.
    /// let r = unsafe { Module::load_dynamic(&Device::cpu(), "...".into(), vec!["k".into()]) };
    /// assert!(matches!(r, Err(Error::Unsupported(_))));
    /// ```
    pub unsafe fn load_dynamic(
        device: &Device,
        ptx: String,
        names: Vec<String>,
    ) -> Result<Arc<Module>> {
        let Some(ctx) = device.cuda() else {
            return Err(Error::Unsupported(
                "a module without cpu twins cannot run on the cpu device".into(),
            ));
        };
        let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let cuda = CudaModule::load(ctx, &ptx, &name_refs)?;
        Ok(Arc::new(Module {
            device_id: device.id(),
            names: names.iter().map(|n| Arc::from(n.as_str())).collect(),
            cpu: Vec::new(),
            cuda: Some(cuda),
            origin: ModuleOrigin::Jit,
            programmatic: false,
        }))
    }
}

impl LaunchConfig {
    /// A grid for a map with these iteration counts (outermost first): the
    /// innermost dimension goes to x, the next to y, the product of the rest
    /// to z. Kernels use grid-stride loops on every axis, so the grid is
    /// capped (x at `sm_count * 32` blocks, y and z at 65535). A zero count
    /// gives an empty grid, and `launch` then issues nothing.
    ///
    /// ```
    /// use sdfg_runtime::{Device, LaunchConfig};
    /// let dev = Device::cpu();
    /// assert_eq!(LaunchConfig::for_counts(&dev, &[0, 5], [32, 1, 1], 1).grid[1], 0);
    /// assert_eq!(LaunchConfig::for_counts(&dev, &[1 << 40], [256, 1, 1], 4).grid[0], dev.sm_count() * 32);
    /// ```
    pub fn for_counts(
        device: &Device,
        counts: &[u64],
        block: [u32; 3],
        items_per_thread: u32,
    ) -> LaunchConfig {
        LaunchConfig::for_tiles(device, counts, block, items_per_thread, 1)
    }

    /// [`LaunchConfig::for_counts`] for kernels whose threads also run
    /// `rows_per_thread` consecutive iterations in y (the stencil form of
    /// 2-D and higher maps): the y grid covers `block.y * rows_per_thread`
    /// rows per block.
    ///
    /// ```
    /// use sdfg_runtime::{Device, LaunchConfig};
    /// let dev = Device::cpu();
    /// let c = LaunchConfig::for_tiles(&dev, &[100, 1000], [64, 4, 1], 2, 4);
    /// assert_eq!(c.grid[1], 7); // ceil(100 / (4 * 4))
    /// ```
    pub fn for_tiles(
        device: &Device,
        counts: &[u64],
        block: [u32; 3],
        items_per_thread: u32,
        rows_per_thread: u32,
    ) -> LaunchConfig {
        let n = counts.len();
        let count_x = if n >= 1 { counts[n - 1] } else { 1 };
        let count_y = if n >= 2 { counts[n - 2] } else { 1 };
        let rest: u64 = if n >= 3 {
            counts[..n - 2]
                .iter()
                .fold(1u64, |a, &c| a.saturating_mul(c))
        } else {
            1
        };
        let ceil_div = |count: u64, per: u64| count.div_ceil(per.max(1));
        let per_block_x = (block[0].max(1) as u64).saturating_mul(items_per_thread.max(1) as u64);
        let per_block_y = (block[1].max(1) as u64).saturating_mul(rows_per_thread.max(1) as u64);
        let [max_x, max_y, max_z] = LaunchConfig::grid_limits(device);
        LaunchConfig {
            grid: [
                ceil_div(count_x, per_block_x).min(max_x) as u32,
                ceil_div(count_y, per_block_y).min(max_y) as u32,
                ceil_div(rest, block[2].max(1) as u64).min(max_z) as u32,
            ],
            block,
            shared_bytes: 0,
        }
    }

    /// [`LaunchConfig::for_tiles`] for a 3-D map whose threads run their
    /// `rows_per_thread` consecutive iterations along z (dimension 0)
    /// instead of y: the z grid covers `block.z * rows_per_thread` planes
    /// per block, the y grid one row per thread.
    ///
    /// ```
    /// use sdfg_runtime::{Device, LaunchConfig};
    /// let dev = Device::cpu();
    /// let c = LaunchConfig::for_tiles_in_z(&dev, &[120, 120, 120], [64, 2, 1], 1, 4);
    /// assert_eq!(c.grid, [2, 60, 30]);
    /// ```
    pub fn for_tiles_in_z(
        device: &Device,
        counts: &[u64],
        block: [u32; 3],
        items_per_thread: u32,
        rows_per_thread: u32,
    ) -> LaunchConfig {
        let mut config = LaunchConfig::for_tiles(device, counts, block, items_per_thread, 1);
        if counts.len() >= 3 {
            let per_block_z =
                (block[2].max(1) as u64).saturating_mul(rows_per_thread.max(1) as u64);
            let planes: u64 = counts[..counts.len() - 2]
                .iter()
                .fold(1u64, |a, &c| a.saturating_mul(c));
            config.grid[2] = planes
                .div_ceil(per_block_z)
                .min(LaunchConfig::grid_limits(device)[2]) as u32;
        }
        config
    }

    /// A block map's kernel: 1-D blocks of `threads` (whole warps), a 1-D
    /// grid that strides over `iterations` block iterations (capped at
    /// `sm_count * 32` blocks, the kernel loops over the rest), and
    /// `shared_bytes` of dynamic shared memory. No iteration gives an
    /// empty grid, and `launch` then issues nothing.
    ///
    /// ```
    /// use sdfg_runtime::{Device, LaunchConfig};
    /// let dev = Device::cpu();
    /// let c = LaunchConfig::for_blocks(&dev, 10, 256, 1024);
    /// assert_eq!((c.grid, c.block, c.shared_bytes), ([10, 1, 1], [256, 1, 1], 1024));
    /// let c = LaunchConfig::for_blocks(&dev, 1 << 40, 128, 0);
    /// assert_eq!(c.grid[0], dev.sm_count() * 32);
    /// ```
    pub fn for_blocks(
        device: &Device,
        iterations: u64,
        threads: u32,
        shared_bytes: u32,
    ) -> LaunchConfig {
        let max = LaunchConfig::grid_limits(device)[0];
        LaunchConfig {
            grid: [iterations.min(max) as u32, 1, 1],
            block: [threads, 1, 1],
            shared_bytes,
        }
    }

    /// The most blocks the map grids of this type have along x, y and z
    /// (`for_tiles`, `for_tiles_in_z`; a block map's grid takes the x
    /// limit): past them the kernels' grid-stride loops cover the rest, so
    /// a grid at a limit may not run one tile per block
    /// (`Stream::launch_persistent` asks that).
    pub(crate) fn grid_limits(device: &Device) -> [u64; 3] {
        [
            (device.sm_count().max(1) as u64).saturating_mul(32),
            65535,
            65535,
        ]
    }
}
