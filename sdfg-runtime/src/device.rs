//! Devices: a CUDA GPU (through cudarc) or the CPU emulator.
//!
//! `Device` is declared here, with the memory and kernels it owns; its
//! stream methods (`default_stream`, `new_stream`, `synchronize`) are added
//! by the stream floor (`streams/device.rs`), which is built on it.

use crate::cpu::pool::KernelPool;
use crate::cuda::CudaContext;
use crate::error::{Error, Result};
use crate::kernel::module::{Module, ModuleKey};
use crate::lock::lock;
use crate::order::counters::{CounterCells, Counters};
use crate::order::device_order::DeviceOrder;
use crate::order::fault::FaultSlot;
use crate::order::ids::next_id;
use crate::order::stream_state::StreamInner;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

pub(crate) enum DeviceKind {
    Cpu {
        capacity: u64,
        /// Where kernel twins run their chunks (the device's own threads).
        pool: Arc<KernelPool>,
    },
    Cuda(Arc<CudaContext>),
}

pub(crate) struct DeviceInner {
    pub(crate) id: u64,
    pub(crate) name: String,
    pub(crate) kind: DeviceKind,
    /// Counters, the issue lock and the staging pool, shared by the streams.
    pub(crate) order: DeviceOrder,
    pub(crate) default_stream: Arc<StreamInner>,
    pub(crate) streams: Mutex<Vec<Weak<StreamInner>>>,
    pub(crate) modules: Mutex<HashMap<ModuleKey, Arc<Module>>>,
    /// Bytes of live device buffers (CPU device).
    pub(crate) live_bytes: Arc<AtomicU64>,
    pub(crate) sm_count: u32,
}

impl Drop for DeviceInner {
    fn drop(&mut self) {
        // Module handles must be unloaded while the context is still retained:
        // the map holds the last references, and `kind` (the context) is
        // dropped after this function, field by field.
        lock(&self.modules).clear();
        self.order.staging.clear();
    }
}

/// A compute device: a CUDA GPU or the CPU emulator. Cheap to clone (shared).
///
/// ```
/// use sdfg_runtime::Device;
/// let dev = Device::cpu();
/// assert!(!dev.is_gpu());
/// assert!(dev.sm_count() >= 1);
/// let same = dev.clone();
/// assert_eq!(same.name(), dev.name());
/// ```
#[derive(Clone)]
pub struct Device {
    pub(crate) inner: Arc<DeviceInner>,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device")
            .field("id", &self.inner.id)
            .field("name", &self.inner.name)
            .finish()
    }
}

impl PartialEq for Device {
    fn eq(&self, other: &Device) -> bool {
        self.inner.id == other.inner.id
    }
}
impl Eq for Device {}

impl Device {
    /// A new CPU device: streams are worker threads, kernels run their Rust
    /// twins in chunks on the device's own pool of as many threads as the
    /// current rayon pool has (`RAYON_NUM_THREADS`, else one per core), memory
    /// is host memory. Each call makes an independent device with its own
    /// counters.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// assert_eq!(dev.counters(), Default::default());
    /// ```
    pub fn cpu() -> Device {
        Device::cpu_with_threads(rayon::current_num_threads())
    }

    /// A new CPU device whose kernels run on `threads` threads (at least 1;
    /// started at the first kernel that splits its work, and shared with
    /// the other CPU devices of as many threads). `cpu` maps run on the
    /// caller's rayon pool whatever the device.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu_with_threads(3);
    /// assert_eq!(dev.name(), "cpu (3 threads)");
    /// assert_eq!(dev.sm_count(), 3);
    /// ```
    pub fn cpu_with_threads(threads: usize) -> Device {
        let id = next_id();
        let default_stream = StreamInner::new_cpu(id, "default")
            .expect("could not start the worker thread of a cpu device");
        let threads = threads.max(1);
        Device::from_parts(
            id,
            format!("cpu ({threads} threads)"),
            DeviceKind::Cpu {
                capacity: cpu_capacity(),
                pool: KernelPool::shared(threads),
            },
            default_stream,
            threads as u32,
        )
    }

    /// The CUDA GPU with this ordinal. An `Err` (never a panic) says why when
    /// there is no libcuda, no GPU, or the driver fails.
    ///
    /// ```
    /// match sdfg_runtime::Device::gpu(0) {
    ///     Ok(dev) => assert!(dev.is_gpu()),
    ///     Err(e) => println!("no gpu: {e}"),
    /// }
    /// ```
    pub fn gpu(ordinal: usize) -> Result<Device> {
        let ctx = CudaContext::new(ordinal)?;
        let id = next_id();
        let default_stream = StreamInner::new_cuda_default(id, &ctx)?;
        let name = ctx.name.clone();
        let sms = ctx.sm_count;
        Ok(Device::from_parts(
            id,
            name,
            DeviceKind::Cuda(ctx),
            default_stream,
            sms,
        ))
    }

    /// GPU 0 if it can be used, else a CPU device.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::auto();
    /// println!("running on {}", dev.name());
    /// ```
    pub fn auto() -> Device {
        Device::gpu(0).unwrap_or_else(|_| Device::cpu())
    }

    fn from_parts(
        id: u64,
        name: String,
        kind: DeviceKind,
        default_stream: Arc<StreamInner>,
        sm_count: u32,
    ) -> Device {
        Device {
            inner: Arc::new(DeviceInner {
                id,
                name,
                kind,
                order: DeviceOrder::default(),
                streams: Mutex::new(vec![Arc::downgrade(&default_stream)]),
                default_stream,
                modules: Mutex::new(HashMap::new()),
                live_bytes: Arc::new(AtomicU64::new(0)),
                sm_count,
            }),
        }
    }

    /// Is this a CUDA GPU?
    ///
    /// ```
    /// assert!(!sdfg_runtime::Device::cpu().is_gpu());
    /// ```
    pub fn is_gpu(&self) -> bool {
        matches!(self.inner.kind, DeviceKind::Cuda(_))
    }

    /// A human-readable name (the GPU's name, or `cpu (N threads)`).
    ///
    /// ```
    /// assert!(sdfg_runtime::Device::cpu().name().starts_with("cpu"));
    /// ```
    pub fn name(&self) -> String {
        self.inner.name.clone()
    }

    /// A snapshot of the operation counters (see [`Counters`] for the rules).
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// dev.default_stream().synchronize()?;
    /// assert_eq!(dev.counters().host_syncs, 0); // nothing was outstanding
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn counters(&self) -> Counters {
        self.inner.order.counters.snapshot()
    }

    /// Bytes of device memory in use: `total - free` on CUDA (all processes),
    /// the bytes of live `DeviceBuffer`s on the CPU device.
    ///
    /// ```
    /// use sdfg_runtime::{Device, DeviceBuffer};
    /// let dev = Device::cpu();
    /// let buf = DeviceBuffer::<f64>::zeros(&dev, 1000)?;
    /// assert_eq!(dev.memory_in_use()?, 8000);
    /// drop(buf);
    /// assert_eq!(dev.memory_in_use()?, 0);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn memory_in_use(&self) -> Result<u64> {
        match &self.inner.kind {
            DeviceKind::Cpu { .. } => Ok(self.inner.live_bytes.load(Ordering::SeqCst)),
            DeviceKind::Cuda(ctx) => {
                let (free, total) = ctx.mem_info()?;
                Ok(total.saturating_sub(free) as u64)
            }
        }
    }

    /// Streaming multiprocessors (CPU device: its kernel threads). Used to size grids.
    ///
    /// ```
    /// assert!(sdfg_runtime::Device::cpu().sm_count() >= 1);
    /// ```
    pub fn sm_count(&self) -> u32 {
        self.inner.sm_count
    }

    pub(crate) fn id(&self) -> u64 {
        self.inner.id
    }

    /// What this device's streams share for ordering (counters, issue lock, staging).
    pub(crate) fn order(&self) -> &DeviceOrder {
        &self.inner.order
    }

    pub(crate) fn counters_cells(&self) -> &CounterCells {
        &self.inner.order.counters
    }

    pub(crate) fn cuda(&self) -> Option<&Arc<CudaContext>> {
        match &self.inner.kind {
            DeviceKind::Cuda(ctx) => Some(ctx),
            DeviceKind::Cpu { .. } => None,
        }
    }

    pub(crate) fn cpu_capacity(&self) -> u64 {
        match &self.inner.kind {
            DeviceKind::Cpu { capacity, .. } => *capacity,
            DeviceKind::Cuda(_) => u64::MAX,
        }
    }

    /// The pool kernel twins run on (CPU device only).
    pub(crate) fn kernel_pool(&self) -> Option<&Arc<KernelPool>> {
        match &self.inner.kind {
            DeviceKind::Cpu { pool, .. } => Some(pool),
            DeviceKind::Cuda(_) => None,
        }
    }

    /// `Err(WrongDevice)` unless `other` is this device.
    pub(crate) fn check_same(&self, other_id: u64, what: impl FnOnce() -> String) -> Result<()> {
        if self.inner.id == other_id {
            Ok(())
        } else {
            Err(Error::WrongDevice {
                what: format!(
                    "{} belongs to another device than {}",
                    what(),
                    self.inner.name
                ),
            })
        }
    }

    /// A new fault slot on this device (each program context owns one).
    pub(crate) fn new_fault_slot(&self) -> Result<FaultSlot> {
        match &self.inner.kind {
            DeviceKind::Cpu { .. } => Ok(FaultSlot::new_cpu(self.inner.id)),
            DeviceKind::Cuda(ctx) => FaultSlot::new_cuda(self.inner.id, ctx),
        }
    }

    /// A pinned staging block of at least `bytes` (CUDA only).
    pub(crate) fn take_staging(&self, bytes: usize) -> Result<crate::cuda::PinnedBlock> {
        let ctx = self
            .cuda()
            .ok_or_else(|| Error::Unsupported("pinned staging on a cpu device".into()))?;
        self.inner.order.staging.take(ctx, bytes)
    }

    /// Returns a staging block to the pool (bounded; the rest is freed).
    pub(crate) fn give_back_staging(&self, block: crate::cuda::PinnedBlock) {
        self.inner.order.staging.give_back(block);
    }
}

/// The emulated card memory of a CPU device: the machine's RAM (from
/// /proc/meminfo), so an allocation beyond it is refused instead of
/// overcommitted.
fn cpu_capacity() -> u64 {
    const FALLBACK: u64 = 16 << 30;
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib * 1024)
        })
        .unwrap_or(FALLBACK)
}
