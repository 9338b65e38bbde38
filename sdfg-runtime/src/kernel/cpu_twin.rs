//! The CPU twins of kernels: what the CPU device runs for a `gpu` map, and
//! the arguments it hands them.

use crate::cpu::memory::CpuCells;
use crate::elem::{Elem, ElemType};
use crate::kernel::launch_config::LaunchConfig;
use crate::order::fault::CpuSlot;
use std::any::Any;
use std::sync::Arc;

/// The Rust twin of a `gpu` map, run by the CPU device on a stream's worker
/// (it may use rayon).
pub type CpuKernel = fn(&KernelArgs<'_>);

/// One kernel of a module: its PTX entry name and its CPU twin.
///
/// ```
/// use sdfg_runtime::__glue::{KernelArgs, KernelEntry};
/// fn nothing(_: &KernelArgs<'_>) {}
/// static KERNELS: [KernelEntry; 1] = [KernelEntry { name: "nothing", cpu: nothing }];
/// assert_eq!(KERNELS[0].name, "nothing");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct KernelEntry {
    /// The `.entry` name in the PTX.
    pub name: &'static str,
    /// The CPU twin.
    pub cpu: CpuKernel,
}

/// A kernel argument as the CPU twin sees it.
pub(crate) enum CpuArg {
    Buffer {
        memory: Option<Arc<dyn Any + Send + Sync>>,
        elem: ElemType,
    },
    Value {
        ty: ElemType,
        bits: u64,
    },
    Fault,
}

/// What a [`CpuKernel`] receives: its arguments, by launch position.
///
/// A type or kind mismatch is a code-generator bug and panics with a clear
/// message; the runtime reports that panic as `Err(KernelPanicked)` at the
/// stream's next synchronization, and the stream keeps working.
///
/// ```
/// use sdfg_runtime::*;
/// use sdfg_runtime::__glue::{KernelArgs, KernelEntry};
/// fn scale(args: &KernelArgs<'_>) {
///     let x = args.cells::<f64>(0);
///     let factor: f64 = args.value(1);
///     let n: u64 = args.value(2);
///     for i in 0..n as usize {
///         if i >= x.len() { args.fault(1); continue; }
///         f64::store(&x[i], f64::load(&x[i]) * factor);
///     }
/// }
/// static KERNELS: [KernelEntry; 1] = [KernelEntry { name: "scale", cpu: scale }];
/// let dev = Device::cpu();
/// // SAFETY (all three): a CPU device runs only the CPU twin `scale`.
/// let m = unsafe { Module::load(&dev, "", &KERNELS) }?;
/// let x = DeviceBuffer::from_slice(&dev, &[1.0, 2.0])?;
/// let s = dev.default_stream();
/// let cfg = LaunchConfig::for_counts(&dev, &[2], [64, 1, 1], 1);
/// unsafe { s.launch(&m, 0, &cfg, &[KernelArg::read_write(&x), KernelArg::value(3.0), KernelArg::value(2u64)]) }?;
/// assert_eq!(x.to_vec()?, [3.0, 6.0]);
/// unsafe { s.launch(&m, 0, &cfg, &[KernelArg::read_write(&x), KernelArg::value(1.0), KernelArg::value(3u64)]) }?;
/// assert!(matches!(s.synchronize(), Err(Error::KernelFault { code: 1, .. })));
/// s.synchronize()?; // the fault was reported once and reset
/// # Ok::<(), sdfg_runtime::Error>(())
/// ```
pub struct KernelArgs<'a> {
    pub(crate) args: &'a [CpuArg],
    /// The launch's fault slot: its call's, or else its stream's.
    pub(crate) fault: &'a CpuSlot,
    pub(crate) kernel: &'a str,
    /// The kernel's launch index in its module.
    pub(crate) kernel_index: usize,
    pub(crate) config: LaunchConfig,
}

impl KernelArgs<'_> {
    /// Argument `i`, a buffer of `T`, as atomic cells.
    ///
    /// # Panics
    /// If argument `i` is not a buffer of `T` (a code-generator bug).
    ///
    /// ```
    /// use sdfg_runtime::*;
    /// use sdfg_runtime::__glue::{KernelArgs, KernelEntry};
    /// fn kernel(args: &KernelArgs<'_>) {
    ///     let x = args.cells::<i32>(0);
    ///     i32::store(&x[1], 3);
    /// }
    /// static K: [KernelEntry; 1] = [KernelEntry { name: "kernel", cpu: kernel }];
    /// let dev = Device::cpu();
    /// let x = DeviceBuffer::<i32>::zeros(&dev, 2)?;
    /// let s = dev.default_stream();
    /// // SAFETY (both): a CPU device runs only the CPU twin `kernel`.
    /// let m = unsafe { Module::load(&dev, "", &K) }?;
    /// unsafe { s.launch(&m, 0, &LaunchConfig::for_counts(&dev, &[2], [32, 1, 1], 1),
    ///     &[KernelArg::write(&x), KernelArg::value(5i32)]) }?;
    /// s.synchronize()?;
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn cells<T: Elem>(&self, i: usize) -> &[T::Cell] {
        match self.args.get(i) {
            Some(CpuArg::Buffer {
                memory: Some(memory),
                elem,
            }) => match memory.downcast_ref::<CpuCells<T>>() {
                Some(cells) => &cells.cells,
                None => panic!(
                    "kernel `{}`: argument {i} is a buffer of {elem}, but the kernel reads it as a buffer of {}",
                    self.kernel,
                    T::TYPE
                ),
            },
            other => panic!(
                "kernel `{}`: argument {i} is {}, but the kernel reads it as a buffer of {}",
                self.kernel,
                describe(other),
                T::TYPE
            ),
        }
    }

    /// Argument `i`, a scalar of type `T`.
    ///
    /// # Panics
    /// If argument `i` is not a scalar of type `T` (a code-generator bug).
    ///
    /// ```
    /// use sdfg_runtime::*;
    /// use sdfg_runtime::__glue::{KernelArgs, KernelEntry};
    /// fn kernel(args: &KernelArgs<'_>) {
    ///     assert_eq!(args.value::<i32>(1), 5);
    /// }
    /// static K: [KernelEntry; 1] = [KernelEntry { name: "kernel", cpu: kernel }];
    /// let dev = Device::cpu();
    /// let x = DeviceBuffer::<i32>::zeros(&dev, 2)?;
    /// let s = dev.default_stream();
    /// // SAFETY (both): a CPU device runs only the CPU twin `kernel`.
    /// let m = unsafe { Module::load(&dev, "", &K) }?;
    /// unsafe { s.launch(&m, 0, &LaunchConfig::for_counts(&dev, &[2], [32, 1, 1], 1),
    ///     &[KernelArg::write(&x), KernelArg::value(5i32)]) }?;
    /// s.synchronize()?;
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn value<T: Elem>(&self, i: usize) -> T {
        match self.args.get(i) {
            Some(CpuArg::Value { ty, bits }) if *ty == T::TYPE => T::from_bits(*bits),
            other => panic!(
                "kernel `{}`: argument {i} is {}, but the kernel reads it as a {} scalar",
                self.kernel,
                describe(other),
                T::TYPE
            ),
        }
    }

    /// Reports a fault (e.g. an out-of-bounds access the kernel skipped) as
    /// a raw code, as a PTX kernel writes one to [`KernelArg::fault`]: the
    /// first code is kept until the stream's next `synchronize()` returns it
    /// as `Err(KernelFault)`. A zero code counts as 1.
    ///
    /// [`KernelArg::fault`]: crate::KernelArg::fault
    ///
    /// ```
    /// use sdfg_runtime::*;
    /// use sdfg_runtime::__glue::{KernelArgs, KernelEntry};
    /// fn oob(args: &KernelArgs<'_>) { args.fault(3); }
    /// static K: [KernelEntry; 1] = [KernelEntry { name: "oob", cpu: oob }];
    /// let dev = Device::cpu();
    /// let s = dev.default_stream();
    /// // SAFETY (both): a CPU device runs only the CPU twin `oob`.
    /// let m = unsafe { Module::load(&dev, "", &K) }?;
    /// unsafe { s.launch(&m, 0, &LaunchConfig::for_counts(&dev, &[1], [1, 1, 1], 1), &[]) }?;
    /// assert_eq!(s.synchronize(), Err(Error::KernelFault { kernel: "oob".into(), code: 3, site: None }));
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn fault(&self, code: u32) {
        self.fault.raise_code(self.kernel, code);
    }

    /// Reports that the twin of a generated kernel skipped its access number
    /// `access` (from 1, in the compiler's order of the map body's accesses)
    /// at row-major `index`, as the PTX kernel records it in its fault
    /// slot: the first report of a call wins, and the call's `wait()`
    /// describes it from its program's fault sites.
    ///
    /// ```
    /// use sdfg_runtime::*;
    /// use sdfg_runtime::__glue::{KernelArgs, KernelEntry};
    /// fn oob(args: &KernelArgs<'_>) { args.fault_at(2, 16); }
    /// static K: [KernelEntry; 1] = [KernelEntry { name: "oob", cpu: oob }];
    /// let dev = Device::cpu();
    /// let s = dev.default_stream();
    /// // SAFETY (both): a CPU device runs only the CPU twin `oob`.
    /// let m = unsafe { Module::load(&dev, "", &K) }?;
    /// unsafe { s.launch(&m, 0, &LaunchConfig::for_counts(&dev, &[1], [1, 1, 1], 1), &[KernelArg::fault()]) }?;
    /// // Launched raw, outside a program: the stream reports the access number.
    /// assert!(matches!(s.synchronize(), Err(Error::KernelFault { code: 2, site: None, .. })));
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn fault_at(&self, access: u32, index: i64) {
        self.fault.raise_site(self.kernel_index, access, index);
    }

    /// The number of arguments.
    ///
    /// ```
    /// use sdfg_runtime::*;
    /// use sdfg_runtime::__glue::{KernelArgs, KernelEntry};
    /// fn kernel(args: &KernelArgs<'_>) {
    ///     assert_eq!((args.len(), args.is_empty()), (2, false));
    /// }
    /// static K: [KernelEntry; 1] = [KernelEntry { name: "kernel", cpu: kernel }];
    /// let dev = Device::cpu();
    /// let x = DeviceBuffer::<i32>::zeros(&dev, 2)?;
    /// let s = dev.default_stream();
    /// // SAFETY (both): a CPU device runs only the CPU twin `kernel`.
    /// let m = unsafe { Module::load(&dev, "", &K) }?;
    /// unsafe { s.launch(&m, 0, &LaunchConfig::for_counts(&dev, &[2], [32, 1, 1], 1),
    ///     &[KernelArg::write(&x), KernelArg::value(5i32)]) }?;
    /// s.synchronize()?;
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.args.len()
    }

    /// No arguments?
    ///
    /// ```
    /// use sdfg_runtime::*;
    /// use sdfg_runtime::__glue::{KernelArgs, KernelEntry};
    /// fn kernel(args: &KernelArgs<'_>) {
    ///     assert!(!args.is_empty());
    /// }
    /// static K: [KernelEntry; 1] = [KernelEntry { name: "kernel", cpu: kernel }];
    /// let dev = Device::cpu();
    /// let x = DeviceBuffer::<i32>::zeros(&dev, 2)?;
    /// let s = dev.default_stream();
    /// // SAFETY (both): a CPU device runs only the CPU twin `kernel`.
    /// let m = unsafe { Module::load(&dev, "", &K) }?;
    /// unsafe { s.launch(&m, 0, &LaunchConfig::for_counts(&dev, &[2], [32, 1, 1], 1),
    ///     &[KernelArg::write(&x), KernelArg::value(5i32)]) }?;
    /// s.synchronize()?;
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.args.is_empty()
    }

    /// The kernel's entry name.
    ///
    /// ```
    /// use sdfg_runtime::*;
    /// use sdfg_runtime::__glue::{KernelArgs, KernelEntry};
    /// fn kernel(args: &KernelArgs<'_>) {
    ///     assert_eq!(args.kernel_name(), "kernel");
    /// }
    /// static K: [KernelEntry; 1] = [KernelEntry { name: "kernel", cpu: kernel }];
    /// let dev = Device::cpu();
    /// let x = DeviceBuffer::<i32>::zeros(&dev, 2)?;
    /// let s = dev.default_stream();
    /// // SAFETY (both): a CPU device runs only the CPU twin `kernel`.
    /// let m = unsafe { Module::load(&dev, "", &K) }?;
    /// unsafe { s.launch(&m, 0, &LaunchConfig::for_counts(&dev, &[2], [32, 1, 1], 1),
    ///     &[KernelArg::write(&x), KernelArg::value(5i32)]) }?;
    /// s.synchronize()?;
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn kernel_name(&self) -> &str {
        self.kernel
    }

    /// The launch configuration (the CPU twin usually ignores it).
    ///
    /// ```
    /// use sdfg_runtime::*;
    /// use sdfg_runtime::__glue::{KernelArgs, KernelEntry};
    /// fn kernel(args: &KernelArgs<'_>) {
    ///     assert_eq!(args.launch_config().block, [32, 1, 1]);
    /// }
    /// static K: [KernelEntry; 1] = [KernelEntry { name: "kernel", cpu: kernel }];
    /// let dev = Device::cpu();
    /// let x = DeviceBuffer::<i32>::zeros(&dev, 2)?;
    /// let s = dev.default_stream();
    /// // SAFETY (both): a CPU device runs only the CPU twin `kernel`.
    /// let m = unsafe { Module::load(&dev, "", &K) }?;
    /// unsafe { s.launch(&m, 0, &LaunchConfig::for_counts(&dev, &[2], [32, 1, 1], 1),
    ///     &[KernelArg::write(&x), KernelArg::value(5i32)]) }?;
    /// s.synchronize()?;
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn launch_config(&self) -> &LaunchConfig {
        &self.config
    }
}

fn describe(arg: Option<&CpuArg>) -> String {
    match arg {
        None => "missing".into(),
        Some(CpuArg::Buffer { elem, .. }) => format!("a buffer of {elem}"),
        Some(CpuArg::Value { ty, .. }) => format!("a {ty} scalar"),
        Some(CpuArg::Fault) => "the fault slot".into(),
    }
}
