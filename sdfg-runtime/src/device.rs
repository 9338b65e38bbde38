//! Devices: a CUDA GPU (through cudarc) or the CPU emulator.

use crate::cuda::CudaContext;
use crate::error::{Error, Result};
use crate::kernel::{Module, ModuleKey};
use crate::lock::lock;
use crate::stream::{Stream, StreamInner};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

/// A snapshot of a device's operation counters.
///
/// The counting rules (tests assert exact numbers, on both devices):
/// - `host_syncs`: the host blocked until some stream work finished that the
///   host did not already know to be finished. One per `Pending::wait`,
///   per stream in `Running::wait`, per `Stream::synchronize` /
///   `Event::synchronize` / `Device::synchronize` (per stream), per tracker
///   wait (host access to a `HostBuffer` still written by a stream, drop of a
///   buffer still in use on a GPU), and one per `DeviceBuffer::to_vec` and
///   `copy_from_slice`. A wait for work already known finished (an earlier
///   host sync covered it) is free and not counted.
/// - `event_waits`: a stream was made to wait for an event of another stream:
///   one per `Stream::wait_event` and one per cross-stream dependency that the
///   buffer trackers found (skipped when the producer's work is known
///   finished, or this stream already waited for it).
/// - `event_records`: an event was recorded: one per `Stream::record_event`,
///   `record_timing_event`, and per new event the trackers needed (one
///   recorded at a position that covers the dependency is reused). Internal
///   completion markers of `Pending`s are not counted.
/// - `kernel_launches`: kernels issued (launches with an empty grid issue nothing).
/// - `copies`: copy operations issued, whatever the number of driver calls:
///   each `copy_*` call, `from_slice`, `copy_from_slice` and `to_vec` with
///   at least one element (empty copies issue nothing).
///
/// ```
/// use sdfg_runtime::{Device, DeviceBuffer};
/// let dev = Device::cpu();
/// let before = dev.counters();
/// let buf = DeviceBuffer::from_slice(&dev, &[1, 2, 3])?;
/// assert_eq!(buf.to_vec()?, [1, 2, 3]);
/// let d = dev.counters() - before;
/// assert_eq!((d.copies, d.host_syncs), (2, 1));
/// # Ok::<(), sdfg_runtime::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Host waits for stream work.
    pub host_syncs: u64,
    /// Streams made to wait for another stream's event.
    pub event_waits: u64,
    /// Events recorded.
    pub event_records: u64,
    /// Kernels launched.
    pub kernel_launches: u64,
    /// Copies issued.
    pub copies: u64,
}

impl std::ops::Sub for Counters {
    type Output = Counters;
    /// The counts between two snapshots (`later - earlier`).
    fn sub(self, earlier: Counters) -> Counters {
        Counters {
            host_syncs: self.host_syncs.saturating_sub(earlier.host_syncs),
            event_waits: self.event_waits.saturating_sub(earlier.event_waits),
            event_records: self.event_records.saturating_sub(earlier.event_records),
            kernel_launches: self.kernel_launches.saturating_sub(earlier.kernel_launches),
            copies: self.copies.saturating_sub(earlier.copies),
        }
    }
}

/// The live counters of a device.
#[derive(Default)]
pub(crate) struct CounterCells {
    pub(crate) host_syncs: AtomicU64,
    pub(crate) event_waits: AtomicU64,
    pub(crate) event_records: AtomicU64,
    pub(crate) kernel_launches: AtomicU64,
    pub(crate) copies: AtomicU64,
}

impl CounterCells {
    pub(crate) fn bump(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

pub(crate) enum DeviceKind {
    Cpu { capacity: u64 },
    Cuda(Arc<CudaContext>),
}

pub(crate) struct DeviceInner {
    pub(crate) id: u64,
    pub(crate) name: String,
    pub(crate) kind: DeviceKind,
    pub(crate) counters: CounterCells,
    /// Serializes the issuing of stream operations of this device, so that the
    /// trackers' view of "who used a buffer last" is consistent. Only issuing
    /// is serialized (microseconds), never the work.
    pub(crate) issue_lock: Mutex<()>,
    pub(crate) default_stream: Arc<StreamInner>,
    pub(crate) streams: Mutex<Vec<Weak<StreamInner>>>,
    pub(crate) modules: Mutex<HashMap<ModuleKey, Arc<Module>>>,
    /// Bytes of live device buffers (CPU device).
    pub(crate) live_bytes: Arc<AtomicU64>,
    pub(crate) sm_count: u32,
    /// Pinned staging blocks free for reuse (CUDA device).
    pub(crate) staging_pool: crate::cuda::StagingPool,
}

impl Drop for DeviceInner {
    fn drop(&mut self) {
        // Module handles must be unloaded while the context is still retained:
        // the map holds the last references, and `kind` (the context) is
        // dropped after this function, field by field.
        lock(&self.modules).clear();
        self.staging_pool.clear();
    }
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A process-unique id for devices and streams.
pub(crate) fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
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
    /// twins (with rayon), memory is host memory. Each call makes an
    /// independent device with its own counters.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// assert_eq!(dev.counters(), Default::default());
    /// ```
    pub fn cpu() -> Device {
        let id = next_id();
        let default_stream = StreamInner::new_cpu(id, "default")
            .expect("could not start the worker thread of a cpu device");
        let threads = rayon::current_num_threads().max(1);
        Device::from_parts(
            id,
            format!("cpu ({threads} threads)"),
            DeviceKind::Cpu {
                capacity: cpu_capacity(),
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
                counters: CounterCells::default(),
                issue_lock: Mutex::new(()),
                streams: Mutex::new(vec![Arc::downgrade(&default_stream)]),
                default_stream,
                modules: Mutex::new(HashMap::new()),
                live_bytes: Arc::new(AtomicU64::new(0)),
                sm_count,
                staging_pool: crate::cuda::StagingPool::default(),
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
        let c = &self.inner.counters;
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        Counters {
            host_syncs: get(&c.host_syncs),
            event_waits: get(&c.event_waits),
            event_records: get(&c.event_records),
            kernel_launches: get(&c.kernel_launches),
            copies: get(&c.copies),
        }
    }

    /// The device-wide default stream: the legacy default stream on CUDA, one
    /// device-wide worker on the CPU device.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// assert_eq!(dev.default_stream(), dev.default_stream());
    /// ```
    pub fn default_stream(&self) -> Stream {
        Stream {
            device: self.clone(),
            inner: Arc::clone(&self.inner.default_stream),
        }
    }

    /// A new stream (CUDA: `CU_STREAM_NON_BLOCKING`; CPU: a new worker thread).
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// let s = dev.new_stream()?;
    /// assert_ne!(s, dev.default_stream());
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn new_stream(&self) -> Result<Stream> {
        let inner = match &self.inner.kind {
            DeviceKind::Cpu { .. } => {
                StreamInner::new_cpu(self.inner.id, "stream").map_err(|e| {
                    Error::InvalidArgument(format!("could not start a stream worker: {e}"))
                })?
            }
            DeviceKind::Cuda(ctx) => StreamInner::new_cuda(self.inner.id, ctx)?,
        };
        let mut streams = lock(&self.inner.streams);
        streams.retain(|w| w.strong_count() > 0);
        streams.push(Arc::downgrade(&inner));
        drop(streams);
        Ok(Stream {
            device: self.clone(),
            inner,
        })
    }

    /// Waits for the work of every live stream of this device (one counted
    /// host sync per stream with outstanding work) and reports kernel faults.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// dev.synchronize()?;
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn synchronize(&self) -> Result<()> {
        let streams: Vec<Arc<StreamInner>> = lock(&self.inner.streams)
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        let mut first_error = None;
        for s in streams {
            let stream = Stream {
                device: self.clone(),
                inner: s,
            };
            if let Err(e) = stream.synchronize() {
                first_error.get_or_insert(e);
            }
        }
        first_error.map_or(Ok(()), Err)
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

    /// Streaming multiprocessors (CPU device: rayon threads). Used to size grids.
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

    pub(crate) fn counters_cells(&self) -> &CounterCells {
        &self.inner.counters
    }

    pub(crate) fn cuda(&self) -> Option<&Arc<CudaContext>> {
        match &self.inner.kind {
            DeviceKind::Cuda(ctx) => Some(ctx),
            DeviceKind::Cpu { .. } => None,
        }
    }

    pub(crate) fn cpu_capacity(&self) -> u64 {
        match &self.inner.kind {
            DeviceKind::Cpu { capacity } => *capacity,
            DeviceKind::Cuda(_) => u64::MAX,
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

    /// A pinned staging block of at least `bytes` (CUDA only).
    pub(crate) fn take_staging(&self, bytes: usize) -> Result<crate::cuda::PinnedBlock> {
        let ctx = self
            .cuda()
            .ok_or_else(|| Error::Unsupported("pinned staging on a cpu device".into()))?;
        self.inner.staging_pool.take(ctx, bytes)
    }

    /// Returns a staging block to the pool (bounded; the rest is freed).
    pub(crate) fn give_back_staging(&self, block: crate::cuda::PinnedBlock) {
        self.inner.staging_pool.give_back(block);
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
