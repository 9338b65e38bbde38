//! The CPU twins of kernels: what the CPU device runs for a `gpu` map, and
//! the arguments it hands them.

use crate::cpu::chunks::Workers;
use crate::cpu::memory::CpuCells;
use crate::cpu::plain::PlainView;
use crate::cpu::pool::KernelPool;
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
        /// Passed with `KernelArg::write` or `read_write`.
        writes: bool,
    },
    Value {
        ty: ElemType,
        bits: u128,
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
    pub(crate) pool: &'a KernelPool,
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
                ..
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

    /// Argument `i`, a buffer of `T` the kernel only reads, as a plain
    /// slice (loads the compiler can vectorize).
    ///
    /// # Safety
    /// Nothing writes the buffer while the kernel runs. Other streams
    /// cannot (the buffer trackers order every writer of a buffer with its
    /// readers); the caller promises that this kernel does not write it
    /// either (through [`KernelArgs::cells`] or a view of an aliasing
    /// argument), as the launch contract of `Stream::launch` already asks
    /// of a buffer passed with `KernelArg::read`.
    ///
    /// # Panics
    /// If argument `i` is not a buffer of `T` passed with `KernelArg::read`.
    ///
    /// ```
    /// use sdfg_runtime::*;
    /// use sdfg_runtime::__glue::{KernelArgs, KernelEntry};
    /// fn sum(args: &KernelArgs<'_>) {
    ///     // SAFETY: argument 0 is read only; nothing of this kernel writes it.
    ///     let x: &[i32] = unsafe { args.plain_read::<i32>(0) };
    ///     i32::store(&args.cells::<i32>(1)[0], x.iter().sum());
    /// }
    /// static K: [KernelEntry; 1] = [KernelEntry { name: "sum", cpu: sum }];
    /// let dev = Device::cpu();
    /// let x = DeviceBuffer::from_slice(&dev, &[1, 2, 3])?;
    /// let s = DeviceBuffer::<i32>::zeros(&dev, 1)?;
    /// // SAFETY (both): a CPU device runs only the CPU twin `sum`.
    /// let m = unsafe { Module::load(&dev, "", &K) }?;
    /// unsafe { dev.default_stream().launch(&m, 0, &LaunchConfig::for_counts(&dev, &[1], [1, 1, 1], 1),
    ///     &[KernelArg::read(&x), KernelArg::write(&s)]) }?;
    /// assert_eq!(s.to_vec()?, [6]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub unsafe fn plain_read<T: Elem>(&self, i: usize) -> &[T] {
        let cells = self.buffer::<T>(i, false);
        // SAFETY: the cells have `T`'s layout and hold valid `T`s; nothing
        // writes them while the kernel runs (this function's contract), so
        // a shared plain borrow for the kernel's duration is sound.
        unsafe { std::slice::from_raw_parts(cells.as_ptr() as *const T, cells.len()) }
    }

    /// Argument `i`, a buffer of `T` the kernel writes, as a [`PlainView`]
    /// its threads share.
    ///
    /// # Safety
    /// While the view is in use, the kernel's threads never touch one
    /// element at the same time when one of them writes it, and the kernel
    /// does not access this buffer through [`KernelArgs::cells`]. Other
    /// streams cannot touch it (the trackers order every use of a buffer
    /// after a kernel that writes it), and no other argument of this launch
    /// is the same buffer (checked: panics).
    ///
    /// # Panics
    /// If argument `i` is not a buffer of `T` passed with `KernelArg::write`
    /// or `read_write`, or another argument is the same buffer.
    ///
    /// ```
    /// use sdfg_runtime::*;
    /// use sdfg_runtime::__glue::{KernelArgs, KernelEntry};
    /// fn iota(args: &KernelArgs<'_>) {
    ///     // SAFETY: this kernel runs on one thread and uses no other view.
    ///     let x = unsafe { args.plain_write::<i64>(0) };
    ///     // SAFETY: every index is below x.len().
    ///     (0..x.len()).for_each(|i| unsafe { x.set(i, i as i64) });
    /// }
    /// static K: [KernelEntry; 1] = [KernelEntry { name: "iota", cpu: iota }];
    /// let dev = Device::cpu();
    /// let x = DeviceBuffer::<i64>::zeros(&dev, 4)?;
    /// // SAFETY (both): a CPU device runs only the CPU twin `iota`.
    /// let m = unsafe { Module::load(&dev, "", &K) }?;
    /// unsafe { dev.default_stream().launch(&m, 0, &LaunchConfig::for_counts(&dev, &[1], [1, 1, 1], 1),
    ///     &[KernelArg::write(&x)]) }?;
    /// assert_eq!(x.to_vec()?, [0, 1, 2, 3]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub unsafe fn plain_write<T: Elem>(&self, i: usize) -> PlainView<'_, T> {
        let cells = self.buffer::<T>(i, true);
        // SAFETY: the exclusivity of the memory for the view's use is this
        // function's contract together with the trackers and the alias check
        // in `buffer`.
        unsafe { PlainView::from_cells(cells) }
    }

    /// The cells of buffer argument `i`, checking that it was passed for
    /// writing when `write` (and then that no other argument aliases it)
    /// or for reading only otherwise.
    fn buffer<T: Elem>(&self, i: usize, write: bool) -> &[T::Cell] {
        let cells = self.cells::<T>(i);
        let Some(CpuArg::Buffer {
            memory: Some(memory),
            writes,
            ..
        }) = self.args.get(i)
        else {
            unreachable!("`cells` checked that argument {i} is a buffer")
        };
        assert!(
            *writes == write,
            "kernel `{}`: argument {i} was passed {}, but the kernel {} it",
            self.kernel,
            if *writes { "for writing" } else { "read only" },
            if write { "writes" } else { "only reads" },
        );
        if write {
            let aliased = self.args.iter().enumerate().any(|(j, a)| {
                j != i
                    && matches!(a, CpuArg::Buffer { memory: Some(other), .. }
                        if Arc::ptr_eq(other, memory))
            });
            assert!(
                !aliased,
                "kernel `{}`: argument {i} is written and also passed as another argument",
                self.kernel
            );
        }
        cells
    }

    /// The threads this kernel's maps run their chunks on: the device's
    /// kernel pool.
    pub fn workers(&self) -> Workers<'_> {
        Workers::kernels(self.pool)
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
