//! Kernels: modules, arguments, launch configurations, and the CPU twins.

use crate::buffer::{DeviceBuffer, DeviceMemory};
use crate::cpu::memory::CpuCells;
use crate::cuda::CudaModule;
use crate::device::Device;
use crate::elem::{Elem, ElemType};
use crate::error::{Error, Result};
use crate::lock::lock;
use crate::stream::CpuFault;
use crate::tracker::{AccessKind, Tracker};
use std::any::Any;
use std::sync::Arc;

/// The Rust twin of a `gpu` map, run by the CPU device on a stream's worker
/// (it may use rayon).
pub type CpuKernel = fn(&KernelArgs<'_>);

/// One kernel of a module: its PTX entry name and its CPU twin.
///
/// ```
/// use sdfg_runtime::{KernelArgs, KernelEntry};
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

/// The cache key of a module: same PTX and entry names (and, on the CPU
/// device, the same twin functions) is the same module.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct ModuleKey {
    ptx: String,
    names: Vec<String>,
    cpu_twins: Vec<usize>,
}

/// A loaded set of kernels. Loaded once per device and PTX text (a cache in
/// the device), so the driver JIT is paid once per process.
///
/// ```
/// use sdfg_runtime::{Device, KernelArgs, KernelEntry, Module};
/// use std::sync::Arc;
/// fn k(_: &KernelArgs<'_>) {}
/// static KERNELS: [KernelEntry; 1] = [KernelEntry { name: "k", cpu: k }];
/// let dev = Device::cpu();
/// let a = Module::load(&dev, "// ptx", &KERNELS)?;
/// let b = Module::load(&dev, "// ptx", &KERNELS)?;
/// assert!(Arc::ptr_eq(&a, &b));
/// assert_eq!(a.kernel_names(), ["k"]);
/// # Ok::<(), sdfg_runtime::Error>(())
/// ```
pub struct Module {
    pub(crate) device_id: u64,
    names: Vec<Arc<str>>,
    cpu: Vec<CpuKernel>,
    cuda: Option<CudaModule>,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module")
            .field("kernels", &self.names)
            .finish()
    }
}

impl Module {
    /// Loads (or finds in the device's cache) a module. CUDA: JIT-compiles
    /// the PTX (`Err(JitFailed)` with the driver's log) and looks up each
    /// entry; CPU: keeps the twin table (the PTX is not used).
    ///
    /// ```
    /// use sdfg_runtime::{Device, Module};
    /// let module = Module::load(&Device::cpu(), "", &[])?;
    /// assert!(module.kernel_names().is_empty());
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn load(
        device: &Device,
        ptx: &'static str,
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
        let cuda = match device.cuda() {
            Some(ctx) => {
                let names: Vec<&str> = kernels.iter().map(|k| k.name).collect();
                Some(CudaModule::load(ctx, ptx, &names)?)
            }
            None => None,
        };
        let module = Arc::new(Module {
            device_id: device.id(),
            names: kernels.iter().map(|k| Arc::from(k.name)).collect(),
            cpu: kernels.iter().map(|k| k.cpu).collect(),
            cuda,
        });
        cache.insert(key, Arc::clone(&module));
        Ok(module)
    }

    /// Loads PTX generated at run time (no CPU twins, not cached): for
    /// differential tests of the PTX backend. `Err(Unsupported)` on the CPU device.
    ///
    /// ```
    /// use sdfg_runtime::{Device, Error, Module};
    /// let r = Module::load_dynamic(&Device::cpu(), "...".into(), vec!["k".into()]);
    /// assert!(matches!(r, Err(Error::Unsupported(_))));
    /// ```
    pub fn load_dynamic(device: &Device, ptx: String, names: Vec<String>) -> Result<Arc<Module>> {
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
        }))
    }

    /// The kernels' entry names, in launch-index order.
    ///
    /// ```
    /// let m = sdfg_runtime::Module::load(&sdfg_runtime::Device::cpu(), "", &[])?;
    /// assert_eq!(m.kernel_names().len(), 0);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn kernel_names(&self) -> Vec<&str> {
        self.names.iter().map(|n| &**n).collect()
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

/// Type-erased view of a `DeviceBuffer<T>` for kernel arguments.
pub(crate) trait BufferView: Sync {
    fn device_id(&self) -> u64;
    fn tracker(&self) -> &Tracker;
    fn elem_type(&self) -> ElemType;
    fn cpu_memory(&self) -> Option<Arc<dyn Any + Send + Sync>>;
    fn device_ptr(&self) -> u64;
}

impl<T: Elem> BufferView for DeviceBuffer<T> {
    fn device_id(&self) -> u64 {
        self.device().id()
    }
    fn tracker(&self) -> &Tracker {
        DeviceBuffer::tracker(self)
    }
    fn elem_type(&self) -> ElemType {
        T::TYPE
    }
    fn cpu_memory(&self) -> Option<Arc<dyn Any + Send + Sync>> {
        match self.memory() {
            DeviceMemory::Cpu(cells) => Some(Arc::clone(cells) as Arc<dyn Any + Send + Sync>),
            DeviceMemory::Cuda(_) => None,
        }
    }
    fn device_ptr(&self) -> u64 {
        match self.memory() {
            DeviceMemory::Cpu(_) => 0,
            DeviceMemory::Cuda(alloc) => alloc.ptr,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    Read,
    Write,
    ReadWrite,
}

enum ArgRepr<'a> {
    Buffer {
        buffer: &'a dyn BufferView,
        access: Access,
    },
    Value {
        ty: ElemType,
        bits: u64,
    },
    Fault,
}

/// One kernel argument: a buffer with its access (for ordering), a scalar
/// passed by value (`bool` as one byte), or the fault word's address.
///
/// ```
/// use sdfg_runtime::{Device, DeviceBuffer, KernelArg};
/// let dev = Device::cpu();
/// let x = DeviceBuffer::<f32>::zeros(&dev, 4)?;
/// let args = [KernelArg::read(&x), KernelArg::value(2.0f32), KernelArg::fault()];
/// assert_eq!(args.len(), 3);
/// # Ok::<(), sdfg_runtime::Error>(())
/// ```
pub struct KernelArg<'a> {
    repr: ArgRepr<'a>,
}

impl<'a> KernelArg<'a> {
    /// A buffer the kernel only reads.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// let x = sdfg_runtime::DeviceBuffer::<i32>::zeros(&dev, 1)?;
    /// let _ = sdfg_runtime::KernelArg::read(&x);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn read<T: Elem>(buffer: &'a DeviceBuffer<T>) -> Self {
        Self::buffer(buffer, Access::Read)
    }

    /// A buffer the kernel writes (and may read).
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// let x = sdfg_runtime::DeviceBuffer::<i32>::zeros(&dev, 1)?;
    /// let _ = sdfg_runtime::KernelArg::write(&x);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn write<T: Elem>(buffer: &'a DeviceBuffer<T>) -> Self {
        Self::buffer(buffer, Access::Write)
    }

    /// A buffer the kernel reads and writes (ordered like a write).
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// let x = sdfg_runtime::DeviceBuffer::<i32>::zeros(&dev, 1)?;
    /// let _ = sdfg_runtime::KernelArg::read_write(&x);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn read_write<T: Elem>(buffer: &'a DeviceBuffer<T>) -> Self {
        Self::buffer(buffer, Access::ReadWrite)
    }

    fn buffer<T: Elem>(buffer: &'a DeviceBuffer<T>, access: Access) -> Self {
        KernelArg {
            repr: ArgRepr::Buffer { buffer, access },
        }
    }

    /// A scalar passed by value, with `T`'s size (`bool`: one byte, 0 or 1;
    /// declare it `.u8` in PTX).
    ///
    /// ```
    /// let _ = sdfg_runtime::KernelArg::value(3u64);
    /// let _ = sdfg_runtime::KernelArg::value(true);
    /// ```
    pub fn value<T: Elem>(v: T) -> Self {
        KernelArg {
            repr: ArgRepr::Value {
                ty: T::TYPE,
                bits: v.to_bits(),
            },
        }
    }

    /// The `u64` device address of the launching stream's fault word
    /// (kernels write a nonzero `u32` code there on an out-of-bounds access).
    ///
    /// ```
    /// let _ = sdfg_runtime::KernelArg::fault();
    /// ```
    pub fn fault() -> Self {
        KernelArg {
            repr: ArgRepr::Fault,
        }
    }

    pub(crate) fn buffer_view(&self) -> Option<&'a dyn BufferView> {
        match self.repr {
            ArgRepr::Buffer { buffer, .. } => Some(buffer),
            _ => None,
        }
    }

    pub(crate) fn access_kind(&self) -> Option<AccessKind> {
        match self.repr {
            ArgRepr::Buffer {
                access: Access::Read,
                ..
            } => Some(AccessKind::Read),
            ArgRepr::Buffer { .. } => Some(AccessKind::Write),
            _ => None,
        }
    }

    pub(crate) fn to_cpu(&self) -> CpuArg {
        match &self.repr {
            ArgRepr::Buffer { buffer, .. } => CpuArg::Buffer {
                memory: buffer.cpu_memory(),
                elem: buffer.elem_type(),
            },
            ArgRepr::Value { ty, bits } => CpuArg::Value {
                ty: *ty,
                bits: *bits,
            },
            ArgRepr::Fault => CpuArg::Fault,
        }
    }

    /// The parameter's bits for `cuLaunchKernel` (little-endian low bytes).
    pub(crate) fn param_bits(&self, fault_ptr: u64) -> u64 {
        match &self.repr {
            ArgRepr::Buffer { buffer, .. } => buffer.device_ptr(),
            ArgRepr::Value { bits, .. } => *bits,
            ArgRepr::Fault => fault_ptr,
        }
    }
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
/// let m = Module::load(&dev, "", &KERNELS)?;
/// let x = DeviceBuffer::from_slice(&dev, &[1.0, 2.0])?;
/// let s = dev.default_stream();
/// let cfg = LaunchConfig::for_counts(&dev, &[2], [64, 1, 1], 1);
/// s.launch(&m, 0, &cfg, &[KernelArg::read_write(&x), KernelArg::value(3.0), KernelArg::value(2u64)])?;
/// assert_eq!(x.to_vec()?, [3.0, 6.0]);
/// s.launch(&m, 0, &cfg, &[KernelArg::read_write(&x), KernelArg::value(1.0), KernelArg::value(3u64)])?;
/// assert!(matches!(s.synchronize(), Err(Error::KernelFault { code: 1, .. })));
/// s.synchronize()?; // the fault was reported once and reset
/// # Ok::<(), sdfg_runtime::Error>(())
/// ```
pub struct KernelArgs<'a> {
    pub(crate) args: &'a [CpuArg],
    pub(crate) fault: &'a CpuFault,
    pub(crate) kernel: &'a str,
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
    /// fn kernel(args: &KernelArgs<'_>) {
    ///     let x = args.cells::<i32>(0);
    ///     i32::store(&x[1], 3);
    /// }
    /// static K: [KernelEntry; 1] = [KernelEntry { name: "kernel", cpu: kernel }];
    /// let dev = Device::cpu();
    /// let x = DeviceBuffer::<i32>::zeros(&dev, 2)?;
    /// let s = dev.default_stream();
    /// s.launch(&*Module::load(&dev, "", &K)?, 0, &LaunchConfig::for_counts(&dev, &[2], [32, 1, 1], 1),
    ///     &[KernelArg::write(&x), KernelArg::value(5i32)])?;
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
    /// fn kernel(args: &KernelArgs<'_>) {
    ///     assert_eq!(args.value::<i32>(1), 5);
    /// }
    /// static K: [KernelEntry; 1] = [KernelEntry { name: "kernel", cpu: kernel }];
    /// let dev = Device::cpu();
    /// let x = DeviceBuffer::<i32>::zeros(&dev, 2)?;
    /// let s = dev.default_stream();
    /// s.launch(&*Module::load(&dev, "", &K)?, 0, &LaunchConfig::for_counts(&dev, &[2], [32, 1, 1], 1),
    ///     &[KernelArg::write(&x), KernelArg::value(5i32)])?;
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

    /// Reports a fault (e.g. an out-of-bounds access the kernel skipped); the
    /// first code is kept until the stream's next host synchronization
    /// returns it as `Err(KernelFault)`. A zero code counts as 1.
    ///
    /// ```
    /// use sdfg_runtime::*;
    /// fn oob(args: &KernelArgs<'_>) { args.fault(3); }
    /// static K: [KernelEntry; 1] = [KernelEntry { name: "oob", cpu: oob }];
    /// let dev = Device::cpu();
    /// let s = dev.default_stream();
    /// s.launch(&*Module::load(&dev, "", &K)?, 0, &LaunchConfig::for_counts(&dev, &[1], [1, 1, 1], 1), &[])?;
    /// assert_eq!(s.synchronize(), Err(Error::KernelFault { kernel: "oob".into(), code: 3 }));
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn fault(&self, code: u32) {
        self.fault.raise(self.kernel, code);
    }

    /// The number of arguments.
    ///
    /// ```
    /// use sdfg_runtime::*;
    /// fn kernel(args: &KernelArgs<'_>) {
    ///     assert_eq!((args.len(), args.is_empty()), (2, false));
    /// }
    /// static K: [KernelEntry; 1] = [KernelEntry { name: "kernel", cpu: kernel }];
    /// let dev = Device::cpu();
    /// let x = DeviceBuffer::<i32>::zeros(&dev, 2)?;
    /// let s = dev.default_stream();
    /// s.launch(&*Module::load(&dev, "", &K)?, 0, &LaunchConfig::for_counts(&dev, &[2], [32, 1, 1], 1),
    ///     &[KernelArg::write(&x), KernelArg::value(5i32)])?;
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
    /// fn kernel(args: &KernelArgs<'_>) {
    ///     assert!(!args.is_empty());
    /// }
    /// static K: [KernelEntry; 1] = [KernelEntry { name: "kernel", cpu: kernel }];
    /// let dev = Device::cpu();
    /// let x = DeviceBuffer::<i32>::zeros(&dev, 2)?;
    /// let s = dev.default_stream();
    /// s.launch(&*Module::load(&dev, "", &K)?, 0, &LaunchConfig::for_counts(&dev, &[2], [32, 1, 1], 1),
    ///     &[KernelArg::write(&x), KernelArg::value(5i32)])?;
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
    /// fn kernel(args: &KernelArgs<'_>) {
    ///     assert_eq!(args.kernel_name(), "kernel");
    /// }
    /// static K: [KernelEntry; 1] = [KernelEntry { name: "kernel", cpu: kernel }];
    /// let dev = Device::cpu();
    /// let x = DeviceBuffer::<i32>::zeros(&dev, 2)?;
    /// let s = dev.default_stream();
    /// s.launch(&*Module::load(&dev, "", &K)?, 0, &LaunchConfig::for_counts(&dev, &[2], [32, 1, 1], 1),
    ///     &[KernelArg::write(&x), KernelArg::value(5i32)])?;
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
    /// fn kernel(args: &KernelArgs<'_>) {
    ///     assert_eq!(args.launch_config().block, [32, 1, 1]);
    /// }
    /// static K: [KernelEntry; 1] = [KernelEntry { name: "kernel", cpu: kernel }];
    /// let dev = Device::cpu();
    /// let x = DeviceBuffer::<i32>::zeros(&dev, 2)?;
    /// let s = dev.default_stream();
    /// s.launch(&*Module::load(&dev, "", &K)?, 0, &LaunchConfig::for_counts(&dev, &[2], [32, 1, 1], 1),
    ///     &[KernelArg::write(&x), KernelArg::value(5i32)])?;
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
        Some(CpuArg::Fault) => "the fault word".into(),
    }
}

/// Grid and block dimensions of a launch, and dynamic shared memory.
///
/// ```
/// use sdfg_runtime::{Device, LaunchConfig};
/// let dev = Device::cpu();
/// let c = LaunchConfig::for_counts(&dev, &[3, 100, 1000], [256, 1, 1], 1);
/// assert_eq!(c.grid[0], 4.min(dev.sm_count() * 32));
/// assert_eq!((c.grid[1], c.grid[2]), (100, 3));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks per grid (x, y, z).
    pub grid: [u32; 3],
    /// Threads per block (x, y, z).
    pub block: [u32; 3],
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
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
        let max_x = (device.sm_count().max(1) as u64).saturating_mul(32);
        LaunchConfig {
            grid: [
                ceil_div(count_x, per_block_x).min(max_x) as u32,
                ceil_div(count_y, per_block_y).min(65535) as u32,
                ceil_div(rest, block[2].max(1) as u64).min(65535) as u32,
            ],
            block,
            shared_bytes: 0,
        }
    }

    /// Checks the limits every CUDA GPU has (and the CPU device mirrors).
    pub(crate) fn validate(&self) -> Result<()> {
        let [bx, by, bz] = self.block;
        if bx == 0 || by == 0 || bz == 0 {
            return Err(Error::InvalidArgument(format!(
                "block dimensions {:?} contain a zero",
                self.block
            )));
        }
        if bx > 1024 || by > 1024 || bz > 64 || (bx as u64) * (by as u64) * (bz as u64) > 1024 {
            return Err(Error::InvalidArgument(format!(
                "block dimensions {:?} exceed the limits (x, y <= 1024, z <= 64, at most 1024 threads)",
                self.block
            )));
        }
        if self.grid[0] > i32::MAX as u32 || self.grid[1] > 65535 || self.grid[2] > 65535 {
            return Err(Error::InvalidArgument(format!(
                "grid dimensions {:?} exceed the limits (x < 2^31, y and z <= 65535)",
                self.grid
            )));
        }
        Ok(())
    }
}
