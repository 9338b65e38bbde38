//! A loaded set of kernels: entry names, CPU twins, and the CUDA module.

use crate::cuda::CudaModule;
use crate::error::{Error, Result};
use crate::kernel::cpu_twin::CpuKernel;
use std::sync::Arc;

/// The cache key of a module: same PTX and entry names (and, on the CPU
/// device, the same twin functions) is the same module.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct ModuleKey {
    pub(super) ptx: String,
    pub(super) names: Vec<String>,
    pub(super) cpu_twins: Vec<usize>,
}

/// A loaded set of kernels. Loaded once per device and PTX text (a cache in
/// the device), so the driver JIT is paid once per process.
///
/// ```
/// use sdfg_runtime::{Device, Module};
/// use sdfg_runtime::__glue::{KernelArgs, KernelEntry};
/// use std::sync::Arc;
/// fn k(_: &KernelArgs<'_>) {}
/// static KERNELS: [KernelEntry; 1] = [KernelEntry { name: "k", cpu: k }];
/// let dev = Device::cpu();
/// // SAFETY (both): a CPU device runs only the CPU twin `k`.
/// let a = unsafe { Module::load(&dev, "// ptx", &KERNELS) }?;
/// let b = unsafe { Module::load(&dev, "// ptx", &KERNELS) }?;
/// assert!(Arc::ptr_eq(&a, &b));
/// assert_eq!(a.kernel_names(), ["k"]);
/// # Ok::<(), sdfg_runtime::Error>(())
/// ```
pub struct Module {
    pub(crate) device_id: u64,
    pub(super) names: Vec<Arc<str>>,
    pub(super) cpu: Vec<CpuKernel>,
    pub(super) cuda: Option<CudaModule>,
    pub(super) origin: ModuleOrigin,
    /// Every kernel it launches starts with `griddepcontrol.wait` (an
    /// embedded `sm_90` cubin), and `SDFG_PDL` does not switch programmatic
    /// launches off: see [`Module::programmatic_launches`].
    pub(super) programmatic: bool,
}

/// Where a loaded module's kernels came from (the first load of a module
/// costs a JIT of its PTX unless a cubin was at hand; see
/// `Module::origin`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleOrigin {
    /// The CPU device: the kernels' Rust twins.
    CpuTwins,
    /// A cubin that `sdfg!` embedded at build time (`ptxas` was available;
    /// `SDFG_CUBIN_ARCHS` chose the GPUs).
    EmbeddedCubin,
    /// A cubin from the on-disk cache of an earlier process's JIT
    /// (`SDFG_CUBIN_CACHE`).
    CachedCubin,
    /// The driver's JIT of the PTX.
    Jit,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module")
            .field("kernels", &self.names)
            .finish()
    }
}

impl Module {
    /// The kernels' entry names, in launch-index order.
    ///
    /// ```
    /// // SAFETY: no kernels, so nothing can be launched.
    /// let m = unsafe { sdfg_runtime::Module::load(&sdfg_runtime::Device::cpu(), "", &[]) }?;
    /// assert_eq!(m.kernel_names().len(), 0);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn kernel_names(&self) -> Vec<&str> {
        self.names.iter().map(|n| &**n).collect()
    }

    /// Where its kernels came from: an embedded or cached cubin, the JIT,
    /// or (CPU device) the Rust twins.
    ///
    /// ```
    /// use sdfg_runtime::{Device, Module, ModuleOrigin};
    /// // SAFETY: no kernels, so nothing can be launched.
    /// let m = unsafe { Module::load(&Device::cpu(), "", &[]) }?;
    /// assert_eq!(m.origin(), ModuleOrigin::CpuTwins);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn origin(&self) -> ModuleOrigin {
        self.origin
    }

    /// Whether launches of its kernels may start before the kernels they
    /// depend on have finished (programmatic dependent launch: in a CUDA
    /// graph, kernel-to-kernel edges become programmatic): true when its
    /// machine code came from a cubin embedded for `sm_90` or later, whose
    /// kernels first wait for their dependencies (`griddepcontrol.wait`),
    /// unless `SDFG_PDL=off`. Always false on the CPU device and for PTX
    /// the driver compiled.
    ///
    /// ```
    /// // SAFETY: no kernels, so nothing can be launched.
    /// let m = unsafe { sdfg_runtime::Module::load(&sdfg_runtime::Device::cpu(), "", &[]) }?;
    /// assert!(!m.programmatic_launches());
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn programmatic_launches(&self) -> bool {
        self.programmatic
    }

    pub(crate) fn kernel_name(&self, kernel: usize) -> Result<&Arc<str>> {
        self.names.get(kernel).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "kernel index {kernel} out of range: the module has {} kernels",
                self.names.len()
            ))
        })
    }

    pub(crate) fn cpu_kernel(&self, kernel: usize) -> Result<CpuKernel> {
        self.cpu
            .get(kernel)
            .copied()
            .ok_or_else(|| Error::Unsupported(format!("kernel {kernel} has no cpu twin")))
    }

    pub(crate) fn cuda_function(&self, kernel: usize) -> Result<cudarc::driver::sys::CUfunction> {
        self.cuda
            .as_ref()
            .and_then(|m| m.functions.get(kernel).copied())
            .ok_or_else(|| Error::WrongDevice {
                what: format!("kernel {kernel} was not loaded for a cuda device"),
            })
    }
}
