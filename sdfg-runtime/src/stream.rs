//! Streams, events, and the issuing of every stream operation.

use crate::buffer::{DeviceBuffer, DeviceMemory, HostBuffer, HostMemory};
use crate::cpu::memory::HeapBlock;
use crate::cpu::worker::Worker;
use crate::cuda::{self, CudaContext, CudaEvent, CudaStream, PinnedBlock, Side};
use crate::device::{next_id, CounterCells, Device};
use crate::elem::Elem;
use crate::error::panic_message;
use crate::error::{Error, Result};
use crate::host::HostRead;
use crate::kernel::{CpuArg, KernelArg, KernelArgs, LaunchConfig, Module};
use crate::lock::lock;
use crate::pending::{Completion, Pending};
use crate::region::{CopyPlan, Region};
use crate::tracker::{merge_by_stream, AccessKind, Tracker, Use};
use std::collections::{HashMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Instant;

pub(crate) enum StreamBackend {
    Cpu(Arc<Worker>),
    Cuda(CudaStream),
}

/// The fault word of a CPU stream (kernels report out-of-bounds accesses here).
#[derive(Default)]
pub(crate) struct CpuFault {
    code: AtomicU32,
    kernel: Mutex<Option<String>>,
    panic: Mutex<Option<(String, String)>>,
}

impl CpuFault {
    /// Records the first fault (later ones are dropped until the next check).
    pub(crate) fn raise(&self, kernel: &str, code: u32) {
        let code = code.max(1);
        if self
            .code
            .compare_exchange(0, code, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            *lock(&self.kernel) = Some(kernel.to_string());
        }
    }

    fn panicked(&self, kernel: &str, message: String) {
        lock(&self.panic).get_or_insert((kernel.to_string(), message));
    }
}

pub(crate) enum FaultWord {
    Cpu(Arc<CpuFault>),
    /// Mapped pinned memory: kernels write it through its device address.
    Cuda(PinnedBlock),
}

/// A completion marker: stream work up to `position` is done once it fires.
pub(crate) enum EventRaw {
    Cpu(Arc<Worker>),
    Cuda(CudaEvent),
}

pub(crate) struct Marker {
    pub(crate) position: u64,
    pub(crate) raw: EventRaw,
}

pub(crate) struct StreamState {
    /// Operations issued so far (the position of the latest one).
    pub(crate) issued: u64,
    /// Recent events recorded for other streams, oldest first (at most
    /// `RECENT_EVENTS`); a waiter takes the earliest that covers its need,
    /// so it does not wait for later, unrelated work of this stream.
    recent_events: VecDeque<Arc<Marker>>,
    /// Per other stream: the latest position this stream already waits for.
    waited: HashMap<u64, u64>,
    /// Event waits this stream issued and the host has not yet seen finish:
    /// (position of the wait here, producer stream, producer position). When
    /// the host learns this stream finished past the wait, the producer's
    /// work is finished too (`StreamInner::mark_complete`). Weak: streams
    /// that wait on each other must not keep each other alive.
    wait_log: Vec<(u64, Weak<StreamInner>, u64)>,
    /// CUDA: kernels launched since the last fault check (for the message).
    kernels_since_check: Vec<String>,
    /// CUDA: upload staging blocks in flight, freed when their event fired.
    in_flight_staging: Vec<(CudaEvent, PinnedBlock)>,
}

/// How many recent events a stream keeps for reuse.
const RECENT_EVENTS: usize = 16;

impl StreamState {
    /// The earliest remembered event at or after `position`.
    fn covering_event(&self, position: u64) -> Option<Arc<Marker>> {
        self.recent_events
            .iter()
            .find(|m| m.position >= position)
            .cloned()
    }

    fn remember_event(&mut self, marker: Arc<Marker>) {
        if self
            .recent_events
            .back()
            .is_some_and(|m| m.position == marker.position)
        {
            return;
        }
        if self.recent_events.len() == RECENT_EVENTS {
            self.recent_events.pop_front();
        }
        self.recent_events.push_back(marker);
    }
}

pub(crate) struct StreamInner {
    pub(crate) id: u64,
    #[allow(dead_code)] // kept for debugging output
    pub(crate) device_id: u64,
    // Field order matters for CUDA: the stream is synchronized and destroyed
    // before the staging blocks in `state` and the fault word are freed.
    pub(crate) backend: StreamBackend,
    pub(crate) state: Mutex<StreamState>,
    /// Highest position the host knows to be finished (only host waits raise
    /// it, so counts are deterministic).
    completed: AtomicU64,
    fault: FaultWord,
}

impl Drop for StreamInner {
    fn drop(&mut self) {
        match &self.backend {
            StreamBackend::Cpu(worker) => worker.shutdown(),
            StreamBackend::Cuda(s) => {
                let _ = s.synchronize();
            }
        }
    }
}

impl StreamInner {
    fn with_backend(device_id: u64, backend: StreamBackend, fault: FaultWord) -> Arc<Self> {
        Arc::new(StreamInner {
            id: next_id(),
            device_id,
            backend,
            state: Mutex::new(StreamState {
                issued: 0,
                recent_events: VecDeque::new(),
                waited: HashMap::new(),
                kernels_since_check: Vec::new(),
                wait_log: Vec::new(),
                in_flight_staging: Vec::new(),
            }),
            completed: AtomicU64::new(0),
            fault,
        })
    }

    pub(crate) fn new_cpu(device_id: u64, label: &str) -> std::io::Result<Arc<Self>> {
        let worker = Worker::spawn(format!("sdfg-cpu{device_id}-{label}"))?;
        Ok(Self::with_backend(
            device_id,
            StreamBackend::Cpu(worker),
            FaultWord::Cpu(Arc::default()),
        ))
    }

    pub(crate) fn new_cuda(device_id: u64, ctx: &Arc<CudaContext>) -> Result<Arc<Self>> {
        let stream = CudaStream::create(ctx)?;
        let fault = PinnedBlock::new(ctx, 4, true)?;
        Ok(Self::with_backend(
            device_id,
            StreamBackend::Cuda(stream),
            FaultWord::Cuda(fault),
        ))
    }

    pub(crate) fn new_cuda_default(device_id: u64, ctx: &Arc<CudaContext>) -> Result<Arc<Self>> {
        let stream = CudaStream::legacy_default(ctx);
        let fault = PinnedBlock::new(ctx, 4, true)?;
        Ok(Self::with_backend(
            device_id,
            StreamBackend::Cuda(stream),
            FaultWord::Cuda(fault),
        ))
    }

    pub(crate) fn known_complete(&self, position: u64) -> bool {
        self.completed.load(Ordering::SeqCst) >= position
    }

    /// Records that the host knows this stream finished up to `position`,
    /// and so every producer position it waited on before that.
    fn mark_complete(&self, position: u64) {
        self.completed.fetch_max(position, Ordering::SeqCst);
        let finished: Vec<(Weak<StreamInner>, u64)> = {
            let mut state = lock(&self.state);
            let (done, pending): (Vec<_>, Vec<_>) = std::mem::take(&mut state.wait_log)
                .into_iter()
                .partition(|w| w.0 <= position);
            state.wait_log = pending;
            done.into_iter()
                .map(|(_, producer, at)| (producer, at))
                .collect()
        };
        // Our lock is released: a producer may in turn propagate further.
        for (producer, at) in finished {
            if let Some(p) = producer.upgrade() {
                if !p.known_complete(at) {
                    p.mark_complete(at);
                }
            }
        }
    }

    pub(crate) fn issued(&self) -> u64 {
        lock(&self.state).issued
    }

    /// Blocks the host until `position` is finished (counted unless already
    /// known finished). Faults are checked separately (`check_fault`).
    pub(crate) fn host_wait(
        &self,
        position: u64,
        device: &Device,
        marker: Option<&EventRaw>,
    ) -> Result<()> {
        if !self.known_complete(position) {
            match &self.backend {
                StreamBackend::Cpu(worker) => worker.wait_for(position),
                StreamBackend::Cuda(stream) => match marker {
                    Some(EventRaw::Cuda(event)) => event.synchronize()?,
                    _ => {
                        let covering = lock(&self.state).covering_event(position);
                        match covering.as_deref() {
                            Some(Marker {
                                raw: EventRaw::Cuda(event),
                                ..
                            }) => event.synchronize()?,
                            _ => CudaEvent::record(stream, false)?.synchronize()?,
                        }
                    }
                },
            }
            CounterCells::bump(&device.counters_cells().host_syncs);
            self.mark_complete(position);
            self.reclaim_staging(device);
        }
        Ok(())
    }

    /// Reads and resets the fault word.
    pub(crate) fn check_fault(&self) -> Result<()> {
        match &self.fault {
            FaultWord::Cpu(fault) => {
                if let Some((kernel, message)) = lock(&fault.panic).take() {
                    return Err(Error::KernelPanicked { kernel, message });
                }
                let code = fault.code.swap(0, Ordering::SeqCst);
                if code != 0 {
                    let kernel = lock(&fault.kernel).take().unwrap_or_default();
                    return Err(Error::KernelFault { kernel, code });
                }
                Ok(())
            }
            FaultWord::Cuda(block) => {
                // SAFETY: the block is 4 bytes of pinned memory, aligned (page
                // aligned by the driver), alive while `self` is; kernels write
                // it with plain stores, which the stream sync just ordered
                // before this read; AtomicU32 has u32's layout.
                let word = unsafe { &*(block.ptr as *const AtomicU32) };
                let code = word.swap(0, Ordering::SeqCst);
                let kernels = std::mem::take(&mut lock(&self.state).kernels_since_check);
                if code != 0 {
                    return Err(Error::KernelFault {
                        kernel: kernels.join(" or "),
                        code,
                    });
                }
                Ok(())
            }
        }
    }

    /// An event at or after `position` for other streams to wait on: the last
    /// recorded one if it covers, else a new one (counted) at the current end.
    fn event_covering(&self, position: u64, device: &Device) -> Result<Arc<Marker>> {
        let mut state = lock(&self.state);
        if let Some(m) = state.covering_event(position) {
            return Ok(m);
        }
        let marker = Arc::new(self.record_marker(state.issued, false)?);
        CounterCells::bump(&device.counters_cells().event_records);
        state.remember_event(Arc::clone(&marker));
        Ok(marker)
    }

    fn record_marker(&self, position: u64, timing: bool) -> Result<Marker> {
        let raw = match &self.backend {
            StreamBackend::Cpu(worker) => EventRaw::Cpu(Arc::clone(worker)),
            StreamBackend::Cuda(stream) => EventRaw::Cuda(CudaEvent::record(stream, timing)?),
        };
        Ok(Marker { position, raw })
    }

    /// Frees upload staging whose copies finished (a non-blocking query).
    fn reclaim_staging(&self, device: &Device) {
        let done: Vec<PinnedBlock> = {
            let mut state = lock(&self.state);
            let (finished, running): (Vec<_>, Vec<_>) =
                std::mem::take(&mut state.in_flight_staging)
                    .into_iter()
                    .partition(|(event, _)| event.is_complete());
            state.in_flight_staging = running;
            finished.into_iter().map(|(_, block)| block).collect()
        };
        for block in done {
            device.give_back_staging(block);
        }
    }

    fn fault_device_ptr(&self) -> u64 {
        match &self.fault {
            FaultWord::Cpu(_) => 0,
            FaultWord::Cuda(block) => block.device_ptr,
        }
    }
}

/// An ordered queue of device work. Cheap to clone (shared).
///
/// On CUDA a created stream has `CU_STREAM_NON_BLOCKING` (or it is the legacy
/// default stream); on the CPU device it is a worker thread with a FIFO queue,
/// so work really runs asynchronously. Operations that touch buffers used on
/// other streams are ordered automatically with events (see the buffer
/// trackers), and argument errors are an `Err` before anything is issued.
///
/// ```
/// use sdfg_runtime::{Device, DeviceBuffer, HostBuffer, Region};
/// let dev = Device::cpu();
/// let s = dev.new_stream()?;
/// let buf = DeviceBuffer::<i32>::zeros(&dev, 4)?;
/// s.copy_to_device(&[1, 2, 3, 4][..], &Region::whole(4), &buf, &Region::whole(4))?;
/// let host = HostBuffer::<i32>::new(&dev, 4)?;
/// let back = s.copy_to_host(&buf, &Region::whole(4), host, &Region::whole(4))?.wait()?;
/// assert_eq!(back.as_slice(), [1, 2, 3, 4]);
/// # Ok::<(), sdfg_runtime::Error>(())
/// ```
#[derive(Clone)]
pub struct Stream {
    pub(crate) device: Device,
    pub(crate) inner: Arc<StreamInner>,
}

impl PartialEq for Stream {
    fn eq(&self, other: &Stream) -> bool {
        self.inner.id == other.inner.id
    }
}
impl Eq for Stream {}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("id", &self.inner.id)
            .field("device", &self.device.name())
            .finish()
    }
}

/// The pieces of one issued operation handed to its backend closure.
pub(crate) struct IssueCtx<'s> {
    pub(crate) stream: &'s Arc<StreamInner>,
    pub(crate) position: u64,
}

impl Stream {
    /// The device of this stream.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// assert_eq!(dev.new_stream()?.device(), &dev);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Blocks until all work issued so far on this stream finished (one
    /// counted host sync, unless nothing was outstanding), then reports a
    /// kernel fault of this stream as `Err(KernelFault)`.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// let s = dev.new_stream()?;
    /// s.record_timing_event()?; // some work
    /// s.synchronize()?;
    /// assert_eq!(dev.counters().host_syncs, 1);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn synchronize(&self) -> Result<()> {
        let position = self.inner.issued();
        self.inner.host_wait(position, &self.device, None)?;
        self.inner.check_fault()
    }

    /// Records an event after the work issued so far, for other streams that
    /// will need this work: the runtime orders their later operations on it
    /// instead of on the stream's end at that time, so independent work
    /// issued here afterwards does not delay them. The generated glue calls
    /// this after each operation the schedule found a cross-stream consumer
    /// for. Counted in `event_records`; a second mark at the same position
    /// records nothing.
    ///
    /// ```
    /// use sdfg_runtime::*;
    /// let dev = Device::cpu();
    /// let (a, b) = (dev.new_stream()?, dev.new_stream()?);
    /// let x = DeviceBuffer::<i32>::zeros(&dev, 4)?;
    /// a.copy_to_device(&[1, 2, 3, 4][..], &Region::whole(4), &x, &Region::whole(4))?;
    /// a.mark()?;
    /// let y = DeviceBuffer::<i32>::zeros(&dev, 4)?;
    /// b.copy_device(&x, &Region::whole(4), &y, &Region::whole(4))?; // waits on the mark
    /// assert_eq!((dev.counters().event_records, dev.counters().event_waits), (1, 1));
    /// assert_eq!(y.to_vec()?, [1, 2, 3, 4]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn mark(&self) -> Result<()> {
        let _issuing = lock(&self.device.inner.issue_lock);
        let mut state = lock(&self.inner.state);
        if state
            .recent_events
            .back()
            .is_some_and(|m| m.position == state.issued)
        {
            return Ok(());
        }
        let marker = Arc::new(self.inner.record_marker(state.issued, false)?);
        state.remember_event(marker);
        drop(state);
        CounterCells::bump(&self.device.counters_cells().event_records);
        Ok(())
    }

    /// Records an event after the work issued so far (counted in `event_records`).
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// let (a, b) = (dev.new_stream()?, dev.new_stream()?);
    /// let e = a.record_event()?;
    /// b.wait_event(&e)?; // b's later work runs after a's earlier work
    /// assert_eq!(dev.counters().event_waits, 1);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn record_event(&self) -> Result<Event> {
        let _issuing = lock(&self.device.inner.issue_lock);
        let mut state = lock(&self.inner.state);
        let marker = Arc::new(self.inner.record_marker(state.issued, false)?);
        state.remember_event(Arc::clone(&marker));
        drop(state);
        CounterCells::bump(&self.device.counters_cells().event_records);
        Ok(Event {
            device: self.device.clone(),
            stream: Arc::clone(&self.inner),
            marker,
            timing: None,
        })
    }

    /// Records an event that also takes a timestamp when the stream reaches
    /// it (for benchmarks; see [`Event::elapsed_ms`]). It occupies one
    /// position in the stream, like an operation.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// let s = dev.new_stream()?;
    /// let start = s.record_timing_event()?;
    /// let end = s.record_timing_event()?;
    /// end.synchronize()?;
    /// assert!(sdfg_runtime::Event::elapsed_ms(&start, &end)? >= 0.0);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn record_timing_event(&self) -> Result<Event> {
        let stamp: Arc<OnceLock<Instant>> = Arc::default();
        let job_stamp = Arc::clone(&stamp);
        let (marker, _) = self.issue(&[], move |op| {
            let raw = match &op.stream.backend {
                StreamBackend::Cpu(worker) => {
                    worker.push(Box::new(move || {
                        let _ = job_stamp.set(Instant::now());
                    }));
                    EventRaw::Cpu(Arc::clone(worker))
                }
                StreamBackend::Cuda(stream) => EventRaw::Cuda(CudaEvent::record(stream, true)?),
            };
            Ok(Arc::new(Marker {
                position: op.position,
                raw,
            }))
        })?;
        CounterCells::bump(&self.device.counters_cells().event_records);
        Ok(Event {
            device: self.device.clone(),
            stream: Arc::clone(&self.inner),
            marker,
            timing: Some(stamp),
        })
    }

    /// Makes this stream's later work wait for `event` (counted in
    /// `event_waits`; a no-op for an event of this same stream).
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// let s = dev.new_stream()?;
    /// let e = s.record_event()?;
    /// s.wait_event(&e)?; // same stream: nothing to do
    /// assert_eq!(dev.counters().event_waits, 0);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        self.device
            .check_same(event.device.id(), || "the event".to_string())?;
        if event.stream.id == self.inner.id {
            return Ok(());
        }
        let _issuing = lock(&self.device.inner.issue_lock);
        self.enqueue_wait(&event.stream, &event.marker)
    }

    /// Issues "wait for `marker` of `producer`" on this stream. Issue lock held.
    fn enqueue_wait(&self, producer: &Arc<StreamInner>, marker: &Arc<Marker>) -> Result<()> {
        let mut state = lock(&self.inner.state);
        match (&self.inner.backend, &marker.raw) {
            (StreamBackend::Cpu(worker), EventRaw::Cpu(producer_worker)) => {
                let producer_worker = Arc::clone(producer_worker);
                let position = marker.position;
                worker.push(Box::new(move || producer_worker.wait_for(position)));
            }
            (StreamBackend::Cuda(stream), EventRaw::Cuda(event)) => stream.wait_event(event)?,
            _ => {
                return Err(Error::WrongDevice {
                    what: "an event of another kind of device".into(),
                })
            }
        }
        state.issued += 1;
        let here = state.issued;
        state
            .wait_log
            .push((here, Arc::downgrade(producer), marker.position));
        let seen = state.waited.entry(producer.id).or_insert(0);
        *seen = (*seen).max(marker.position);
        drop(state);
        CounterCells::bump(&self.device.counters_cells().event_waits);
        Ok(())
    }

    /// Issues one operation: orders it after conflicting unfinished uses on
    /// other streams (events), runs `op` (which enqueues the work), then
    /// records the accesses. Returns `op`'s value and the new position.
    pub(crate) fn issue<R>(
        &self,
        accesses: &[(&Tracker, AccessKind)],
        op: impl FnOnce(&IssueCtx<'_>) -> Result<R>,
    ) -> Result<(R, u64)> {
        let _issuing = lock(&self.device.inner.issue_lock);
        let mut dependencies: Vec<Use> = Vec::new();
        for (tracker, kind) in accesses {
            dependencies.extend(tracker.unfinished_conflicts(*kind));
        }
        for dep in merge_by_stream(dependencies) {
            if dep.stream.id == self.inner.id {
                continue; // FIFO order of the stream itself
            }
            let already = lock(&self.inner.state)
                .waited
                .get(&dep.stream.id)
                .is_some_and(|&p| p >= dep.position);
            if already {
                continue;
            }
            let marker = dep.stream.event_covering(dep.position, &self.device)?;
            self.enqueue_wait(&dep.stream, &marker)?;
        }
        let position = self.inner.issued() + 1;
        let result = op(&IssueCtx {
            stream: &self.inner,
            position,
        });
        let issued = match (&result, &self.inner.backend) {
            (Ok(_), _) => true,
            // A failing driver call may follow accepted ones (a loop of 2-D
            // copies, a copy then its event): track the operation as issued,
            // so later host accesses and frees wait for whatever did start
            // (a CUDA wait covers everything issued so far, so it cannot hang).
            (Err(_), StreamBackend::Cuda(_)) => true,
            // CPU operations fail only before their job is pushed.
            (Err(_), StreamBackend::Cpu(_)) => false,
        };
        if issued {
            lock(&self.inner.state).issued = position;
            for (tracker, kind) in accesses {
                tracker.record(*kind, &self.inner, position);
            }
        }
        result.map(|value| (value, position))
    }

    /// Launches kernel number `kernel` of `module` (CUDA: `cuLaunchKernel`;
    /// CPU: the kernel's Rust twin runs on this stream's worker). An empty
    /// grid issues nothing.
    ///
    /// ```
    /// use sdfg_runtime::*;
    /// fn fill(args: &KernelArgs<'_>) {
    ///     let out = args.cells::<i32>(0);
    ///     let v: i32 = args.value(1);
    ///     for c in out { i32::store(c, v); }
    /// }
    /// static KERNELS: [KernelEntry; 1] = [KernelEntry { name: "fill", cpu: fill }];
    /// let dev = Device::cpu();
    /// let module = Module::load(&dev, "// ptx", &KERNELS)?;
    /// let buf = DeviceBuffer::<i32>::zeros(&dev, 8)?;
    /// let s = dev.default_stream();
    /// let config = LaunchConfig::for_counts(&dev, &[8], [128, 1, 1], 1);
    /// s.launch(&module, 0, &config, &[KernelArg::write(&buf), KernelArg::value(7i32)])?;
    /// assert_eq!(buf.to_vec()?, [7; 8]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn launch(
        &self,
        module: &Module,
        kernel: usize,
        config: &LaunchConfig,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        self.device
            .check_same(module.device_id, || "the module".to_string())?;
        let name: Arc<str> = Arc::clone(module.kernel_name(kernel)?);
        config.validate()?;
        for (i, arg) in args.iter().enumerate() {
            if let Some(buffer) = arg.buffer_view() {
                self.device.check_same(buffer.device_id(), || {
                    format!("buffer argument {i} of kernel `{name}`")
                })?;
            }
        }
        if config.grid.contains(&0) {
            return Ok(());
        }
        let accesses: Vec<(&Tracker, AccessKind)> = args
            .iter()
            .filter_map(|a| Some((a.buffer_view()?.tracker(), a.access_kind()?)))
            .collect();
        match &self.inner.backend {
            StreamBackend::Cpu(_) => {
                let kernel_fn = module.cpu_kernel(kernel)?;
                let cpu_args: Vec<CpuArg> = args.iter().map(KernelArg::to_cpu).collect();
                let FaultWord::Cpu(fault) = &self.inner.fault else {
                    unreachable!("a cpu stream has a cpu fault word")
                };
                let fault = Arc::clone(fault);
                let config = *config;
                self.issue(&accesses, move |op| {
                    let StreamBackend::Cpu(worker) = &op.stream.backend else {
                        unreachable!()
                    };
                    worker.push(Box::new(move || {
                        let args = KernelArgs {
                            args: &cpu_args,
                            fault: &fault,
                            kernel: &name,
                            config,
                        };
                        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| kernel_fn(&args))) {
                            fault.panicked(&name, panic_message(&*panic));
                        }
                    }));
                    Ok(())
                })?;
            }
            StreamBackend::Cuda(_) => {
                let function = module.cuda_function(kernel)?;
                let fault_ptr = self.inner.fault_device_ptr();
                let mut params: Vec<u64> = args.iter().map(|a| a.param_bits(fault_ptr)).collect();
                self.issue(&accesses, |op| {
                    let StreamBackend::Cuda(stream) = &op.stream.backend else {
                        unreachable!()
                    };
                    cuda::launch(
                        stream,
                        function,
                        config.grid,
                        config.block,
                        config.shared_bytes,
                        &mut params,
                    )?;
                    let mut state = lock(&op.stream.state);
                    if !state.kernels_since_check.iter().any(|k| **k == *name) {
                        state.kernels_since_check.push(name.to_string());
                    }
                    Ok(())
                })?;
            }
        }
        CounterCells::bump(&self.device.counters_cells().kernel_launches);
        Ok(())
    }

    /// Host to device: copies `src_region` of a host container into
    /// `dst_region` of `dst`. A pageable source (slice, `Vec`) is packed into
    /// runtime-owned (pinned, on CUDA) staging memory first, so the copy is
    /// truly asynchronous and the source is free again when this returns. A
    /// `HostBuffer` of this device is copied directly (DMA from pinned
    /// memory); its tracker records the read, so host writes to it wait.
    ///
    /// ```
    /// use sdfg_runtime::{Device, DeviceBuffer, Region};
    /// let dev = Device::cpu();
    /// let buf = DeviceBuffer::<f32>::zeros(&dev, 4)?;
    /// let src = vec![1.0f32, 2.0];
    /// dev.default_stream().copy_to_device(&src, &Region::whole(2), &buf, &Region::new(2, vec![(2, 1)]))?;
    /// assert_eq!(buf.to_vec()?, [0.0, 0.0, 1.0, 2.0]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn copy_to_device<T: Elem, H: HostRead<Elem = T> + ?Sized>(
        &self,
        src: &H,
        src_region: &Region,
        dst: &DeviceBuffer<T>,
        dst_region: &Region,
    ) -> Result<()> {
        self.device
            .check_same(dst.device().id(), || "the destination buffer".to_string())?;
        if let Some(pinned) = src.as_host_buffer() {
            if pinned.device().id() == self.device.id() {
                return self.upload_from_host_buffer(pinned, src_region, dst, dst_region);
            }
        }
        let src = src.host_slice();
        let plan = CopyPlan::new(
            src_region,
            src.len(),
            "source",
            dst_region,
            dst.len(),
            "destination",
        )?;
        if plan.count == 0 {
            return Ok(());
        }
        let packed_plan = plan.with_dense_src();
        let accesses = [(dst.tracker(), AccessKind::Write)];
        match (&self.inner.backend, dst.memory()) {
            (StreamBackend::Cpu(_), DeviceMemory::Cpu(cells)) => {
                let staging = pack(src, &plan);
                let cells = Arc::clone(cells);
                self.issue(&accesses, move |op| {
                    push_cpu(op, move || {
                        let len = packed_plan.run_len();
                        for (s, d) in packed_plan.runs() {
                            for k in 0..len {
                                T::store(&cells.cells[d + k], staging[s + k]);
                            }
                        }
                    });
                    Ok(())
                })?;
            }
            (StreamBackend::Cuda(_), DeviceMemory::Cuda(alloc)) => {
                let bytes = plan.count * std::mem::size_of::<T>();
                self.inner.reclaim_staging(&self.device);
                let staging = self.device.take_staging(bytes)?;
                // SAFETY: the block holds at least `count` `T`s, is aligned
                // (page-aligned by the driver) and not in use by any stream
                // (it came from the free pool or a new allocation).
                let packed =
                    unsafe { std::slice::from_raw_parts_mut(staging.ptr as *mut T, plan.count) };
                pack_into(src, &plan, packed);
                let dst_ptr = alloc.ptr;
                let staging_ptr = staging.ptr;
                self.issue(&accesses, |op| {
                    let StreamBackend::Cuda(stream) = &op.stream.backend else {
                        unreachable!()
                    };
                    let issued = cuda_copy(
                        stream,
                        &packed_plan,
                        Side::Host(staging_ptr),
                        Side::Device(dst_ptr),
                        std::mem::size_of::<T>(),
                    )
                    .and_then(|()| CudaEvent::record(stream, false));
                    match issued {
                        Ok(done) => {
                            // Freed (back to the pool) once `done` fired.
                            lock(&op.stream.state)
                                .in_flight_staging
                                .push((done, staging));
                            Ok(())
                        }
                        Err(e) => {
                            // Part of the copy may be in flight: leak the block.
                            std::mem::forget(staging);
                            Err(e)
                        }
                    }
                })?;
            }
            _ => return Err(mixed_backends()),
        }
        CounterCells::bump(&self.device.counters_cells().copies);
        Ok(())
    }

    /// Host to device from a `HostBuffer` of this device: direct (DMA from
    /// pinned memory on CUDA), no staging. Its tracker records the read, so a
    /// later host write waits, and a pending device write into it is ordered
    /// before (with an event, not a host wait).
    fn upload_from_host_buffer<T: Elem>(
        &self,
        src: &HostBuffer<T>,
        src_region: &Region,
        dst: &DeviceBuffer<T>,
        dst_region: &Region,
    ) -> Result<()> {
        let plan = CopyPlan::new(
            src_region,
            src.len(),
            "source",
            dst_region,
            dst.len(),
            "destination",
        )?;
        if plan.count == 0 {
            return Ok(());
        }
        let accesses = [
            (src.tracker(), AccessKind::Read),
            (dst.tracker(), AccessKind::Write),
        ];
        match (&self.inner.backend, src.memory(), dst.memory()) {
            (StreamBackend::Cpu(_), HostMemory::Heap(block), DeviceMemory::Cpu(cells)) => {
                let (block, cells) = (Arc::clone(block), Arc::clone(cells));
                self.issue(&accesses, move |op| {
                    push_cpu(op, move || {
                        // SAFETY: host code reaches the block through the
                        // tracker-guarded accessors: writers wait for this job,
                        // readers only read, like this job.
                        let s = unsafe { block.cells() };
                        copy_cells::<T>(s, &cells.cells, &plan)
                    });
                    Ok(())
                })?;
            }
            (StreamBackend::Cuda(_), HostMemory::Pinned(block, _), DeviceMemory::Cuda(alloc)) => {
                let (sp, dp) = (block.ptr, alloc.ptr);
                self.issue(&accesses, |op| {
                    let StreamBackend::Cuda(stream) = &op.stream.backend else {
                        unreachable!()
                    };
                    cuda_copy(
                        stream,
                        &plan,
                        Side::Host(sp),
                        Side::Device(dp),
                        std::mem::size_of::<T>(),
                    )
                })?;
            }
            _ => return Err(mixed_backends()),
        }
        CounterCells::bump(&self.device.counters_cells().copies);
        Ok(())
    }

    /// Device to device. Copying within one buffer with overlapping regions is
    /// an `Err`.
    ///
    /// ```
    /// use sdfg_runtime::{Device, DeviceBuffer, Region};
    /// let dev = Device::cpu();
    /// let a = DeviceBuffer::from_slice(&dev, &[1u64, 2, 3, 4])?;
    /// let b = DeviceBuffer::<u64>::zeros(&dev, 4)?;
    /// dev.default_stream().copy_device(&a, &Region::new(0, vec![(2, 1)]), &b, &Region::new(2, vec![(2, 1)]))?;
    /// assert_eq!(b.to_vec()?, [0, 0, 1, 2]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn copy_device<T: Elem>(
        &self,
        src: &DeviceBuffer<T>,
        src_region: &Region,
        dst: &DeviceBuffer<T>,
        dst_region: &Region,
    ) -> Result<()> {
        self.device
            .check_same(src.device().id(), || "the source buffer".to_string())?;
        self.device
            .check_same(dst.device().id(), || "the destination buffer".to_string())?;
        let plan = CopyPlan::new(
            src_region,
            src.len(),
            "source",
            dst_region,
            dst.len(),
            "destination",
        )?;
        if plan.count == 0 {
            return Ok(());
        }
        if src.same_memory(dst) {
            let (a, b) = plan.src_span();
            let (c, d) = plan.dst_span();
            if a <= d && c <= b {
                return Err(Error::InvalidArgument(format!(
                    "copy within one buffer: the source elements {a}..={b} and destination \
                     elements {c}..={d} overlap"
                )));
            }
        }
        let accesses = [
            (src.tracker(), AccessKind::Read),
            (dst.tracker(), AccessKind::Write),
        ];
        match (&self.inner.backend, src.memory(), dst.memory()) {
            (StreamBackend::Cpu(_), DeviceMemory::Cpu(s), DeviceMemory::Cpu(d)) => {
                let (s, d) = (Arc::clone(s), Arc::clone(d));
                self.issue(&accesses, move |op| {
                    push_cpu(op, move || copy_cells::<T>(&s.cells, &d.cells, &plan));
                    Ok(())
                })?;
            }
            (StreamBackend::Cuda(_), DeviceMemory::Cuda(s), DeviceMemory::Cuda(d)) => {
                let (sp, dp) = (s.ptr, d.ptr);
                self.issue(&accesses, |op| {
                    let StreamBackend::Cuda(stream) = &op.stream.backend else {
                        unreachable!()
                    };
                    cuda_copy(
                        stream,
                        &plan,
                        Side::Device(sp),
                        Side::Device(dp),
                        std::mem::size_of::<T>(),
                    )
                })?;
            }
            _ => return Err(mixed_backends()),
        }
        CounterCells::bump(&self.device.counters_cells().copies);
        Ok(())
    }

    /// Device to host into a `HostBuffer` that the returned [`Pending`] owns
    /// until `.wait()` hands it back (direct DMA on CUDA).
    ///
    /// ```
    /// use sdfg_runtime::{Device, DeviceBuffer, HostBuffer, Region};
    /// let dev = Device::cpu();
    /// let buf = DeviceBuffer::from_slice(&dev, &[5i64, 6])?;
    /// let pending = dev.default_stream().copy_to_host(&buf, &Region::whole(2), HostBuffer::new(&dev, 2)?, &Region::whole(2))?;
    /// assert_eq!(pending.wait()?.as_slice(), [5, 6]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn copy_to_host<T: Elem>(
        &self,
        src: &DeviceBuffer<T>,
        src_region: &Region,
        dst: HostBuffer<T>,
        dst_region: &Region,
    ) -> Result<Pending<HostBuffer<T>>> {
        let completion = self.download_into_host_buffer(src, src_region, &dst, dst_region)?;
        Ok(Pending::new(self.device.clone(), dst, completion, None))
    }

    /// Device to host directly into a borrowed `HostBuffer`. If the returned
    /// `Pending` is forgotten, the buffer's own tracker makes later host
    /// accesses wait for the copy.
    ///
    /// ```
    /// use sdfg_runtime::{Device, DeviceBuffer, HostBuffer, Region};
    /// let dev = Device::cpu();
    /// let buf = DeviceBuffer::from_slice(&dev, &[1u32, 2, 3])?;
    /// let mut host = HostBuffer::<u32>::new(&dev, 3)?;
    /// dev.default_stream().copy_to_host_buffer(&buf, &Region::whole(3), &mut host, &Region::whole(3))?.wait()?;
    /// assert_eq!(host.as_slice(), [1, 2, 3]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn copy_to_host_buffer<'a, T: Elem>(
        &self,
        src: &DeviceBuffer<T>,
        src_region: &Region,
        dst: &'a mut HostBuffer<T>,
        dst_region: &Region,
    ) -> Result<Pending<&'a mut HostBuffer<T>>> {
        let completion = self.download_into_host_buffer(src, src_region, dst, dst_region)?;
        Ok(Pending::new(self.device.clone(), dst, completion, None))
    }

    fn download_into_host_buffer<T: Elem>(
        &self,
        src: &DeviceBuffer<T>,
        src_region: &Region,
        dst: &HostBuffer<T>,
        dst_region: &Region,
    ) -> Result<Option<Completion>> {
        self.device
            .check_same(src.device().id(), || "the source buffer".to_string())?;
        self.device.check_same(dst.device().id(), || {
            "the destination host buffer".to_string()
        })?;
        let plan = CopyPlan::new(
            src_region,
            src.len(),
            "source",
            dst_region,
            dst.len(),
            "destination",
        )?;
        if plan.count == 0 {
            return Ok(None);
        }
        let accesses = [
            (src.tracker(), AccessKind::Read),
            (dst.tracker(), AccessKind::Write),
        ];
        let completion = match (&self.inner.backend, src.memory(), dst.memory()) {
            (StreamBackend::Cpu(_), DeviceMemory::Cpu(s), HostMemory::Heap(block)) => {
                let s = Arc::clone(s);
                let block = Arc::clone(block);
                self.issue(&accesses, move |op| {
                    push_cpu(op, move || {
                        // SAFETY: while this job may run, the host reaches
                        // the block only through the tracker-guarded
                        // accessors (which wait for this job) or the cells
                        // of `peek_unsynchronized`; no plain reference is live.
                        let d = unsafe { block.cells() };
                        copy_cells::<T>(&s.cells, d, &plan)
                    });
                    Ok(op.completion(None))
                })?
                .0
            }
            (StreamBackend::Cuda(_), DeviceMemory::Cuda(s), HostMemory::Pinned(block, _)) => {
                let (sp, dp) = (s.ptr, block.ptr);
                self.issue(&accesses, |op| {
                    let StreamBackend::Cuda(stream) = &op.stream.backend else {
                        unreachable!()
                    };
                    cuda_copy(
                        stream,
                        &plan,
                        Side::Device(sp),
                        Side::Host(dp),
                        std::mem::size_of::<T>(),
                    )?;
                    Ok(op.completion(Some(CudaEvent::record(stream, false)?)))
                })?
                .0
            }
            _ => return Err(mixed_backends()),
        };
        CounterCells::bump(&self.device.counters_cells().copies);
        Ok(Some(completion))
    }

    /// Device to host into a borrowed slice, through runtime-owned staging
    /// memory: the slice is written only inside `.wait()`, so a forgotten
    /// `Pending` leaves it untouched.
    ///
    /// ```
    /// use sdfg_runtime::{Device, DeviceBuffer, Region};
    /// let dev = Device::cpu();
    /// let buf = DeviceBuffer::from_slice(&dev, &[1.5f64, 2.5])?;
    /// let mut out = [0.0; 2];
    /// dev.default_stream().copy_to_slice(&buf, &Region::whole(2), &mut out, &Region::whole(2))?.wait()?;
    /// assert_eq!(out, [1.5, 2.5]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn copy_to_slice<'a, T: Elem>(
        &self,
        src: &DeviceBuffer<T>,
        src_region: &Region,
        dst: &'a mut [T],
        dst_region: &Region,
    ) -> Result<Pending<&'a mut [T]>> {
        self.device
            .check_same(src.device().id(), || "the source buffer".to_string())?;
        let plan = CopyPlan::new(
            src_region,
            src.len(),
            "source",
            dst_region,
            dst.len(),
            "destination",
        )?;
        if plan.count == 0 {
            return Ok(Pending::new(self.device.clone(), dst, None, None));
        }
        let staged_plan = plan.with_dense_dst();
        let unpack_plan = plan.with_dense_src();
        let accesses = [(src.tracker(), AccessKind::Read)];
        let (completion, finish): (Completion, crate::pending::Finish<&'a mut [T]>) =
            match (&self.inner.backend, src.memory()) {
                (StreamBackend::Cpu(_), DeviceMemory::Cpu(s)) => {
                    let staging = Arc::new(HeapBlock::<T>::new(plan.count)?);
                    let s = Arc::clone(s);
                    let job_staging = Arc::clone(&staging);
                    let (completion, _) = self.issue(&accesses, move |op| {
                        push_cpu(op, move || {
                            // SAFETY: the staging block is only reached
                            // through cells until the job finished.
                            let d = unsafe { job_staging.cells() };
                            copy_cells::<T>(&s.cells, d, &staged_plan)
                        });
                        Ok(op.completion(None))
                    })?;
                    let finish = Box::new(move |dst: &mut &'a mut [T]| {
                        // SAFETY: `wait` ran before this: the job finished and
                        // no one else holds the staging block's memory.
                        let staged = unsafe { block_cells_as_slice(&staging) };
                        unpack(&staged, &unpack_plan, dst);
                    });
                    (completion, finish)
                }
                (StreamBackend::Cuda(_), DeviceMemory::Cuda(s)) => {
                    let staging = self
                        .device
                        .take_staging(plan.count * std::mem::size_of::<T>())?;
                    let (sp, dp) = (s.ptr, staging.ptr);
                    let issued = self.issue(&accesses, |op| {
                        let StreamBackend::Cuda(stream) = &op.stream.backend else {
                            unreachable!()
                        };
                        cuda_copy(
                            stream,
                            &staged_plan,
                            Side::Device(sp),
                            Side::Host(dp),
                            std::mem::size_of::<T>(),
                        )?;
                        Ok(op.completion(Some(CudaEvent::record(stream, false)?)))
                    });
                    let (completion, _) = match issued {
                        Ok(done) => done,
                        Err(e) => {
                            // Part of the copy may be in flight: leak the block.
                            std::mem::forget(staging);
                            return Err(e);
                        }
                    };
                    let device = self.device.clone();
                    let count = plan.count;
                    let finish = Box::new(move |dst: &mut &'a mut [T]| {
                        // SAFETY: `wait` synchronized the copy's event, so the
                        // DMA into the block finished; it holds `count` `T`s.
                        let staged =
                            unsafe { std::slice::from_raw_parts(staging.ptr as *const T, count) };
                        unpack(staged, &unpack_plan, dst);
                        device.give_back_staging(staging);
                    });
                    (completion, finish)
                }
                _ => return Err(mixed_backends()),
            };
        CounterCells::bump(&self.device.counters_cells().copies);
        Ok(Pending::new(
            self.device.clone(),
            dst,
            Some(completion),
            Some(finish),
        ))
    }
}

impl IssueCtx<'_> {
    /// The completion marker of the operation being issued.
    fn completion(&self, event: Option<CudaEvent>) -> Completion {
        Completion {
            stream: Arc::clone(self.stream),
            position: self.position,
            event: event.map(EventRaw::Cuda),
        }
    }
}

fn mixed_backends() -> Error {
    Error::WrongDevice {
        what: "the operation mixes memory of a cpu device and a cuda device".into(),
    }
}

fn push_cpu(op: &IssueCtx<'_>, job: impl FnOnce() + Send + 'static) {
    let StreamBackend::Cpu(worker) = &op.stream.backend else {
        unreachable!("cpu job on a cuda stream")
    };
    worker.push(Box::new(job));
}

/// The source region packed densely, in row-major order.
fn pack<T: Elem>(src: &[T], plan: &CopyPlan) -> Vec<T> {
    let mut out = vec![T::default(); plan.count];
    pack_into(src, plan, &mut out);
    out
}

fn pack_into<T: Elem>(src: &[T], plan: &CopyPlan, out: &mut [T]) {
    let len = plan.run_len();
    for (i, (s, _)) in plan.runs().enumerate() {
        out[i * len..(i + 1) * len].copy_from_slice(&src[s..s + len]);
    }
}

/// Scatters densely packed `staged` elements into `dst` (plan with dense source).
fn unpack<T: Elem>(staged: &[T], plan: &CopyPlan, dst: &mut [T]) {
    let len = plan.run_len();
    for (s, d) in plan.runs() {
        dst[d..d + len].copy_from_slice(&staged[s..s + len]);
    }
}

fn copy_cells<T: Elem>(src: &[T::Cell], dst: &[T::Cell], plan: &CopyPlan) {
    let len = plan.run_len();
    for (s, d) in plan.runs() {
        for k in 0..len {
            T::store(&dst[d + k], T::load(&src[s + k]));
        }
    }
}

/// # Safety
/// No stream job may still write the block.
unsafe fn block_cells_as_slice<T: Elem>(block: &HeapBlock<T>) -> Vec<T> {
    // SAFETY: reading through the cells is always sound; the caller's
    // contract makes the values final.
    let cells = unsafe { block.cells() };
    cells.iter().map(T::load).collect()
}

/// Issues the driver copies of a plan: one 1-D copy, one 2-D copy, or a loop
/// of 2-D copies over the outer dimensions.
fn cuda_copy(
    stream: &CudaStream,
    plan: &CopyPlan,
    src: Side,
    dst: Side,
    elem: usize,
) -> Result<()> {
    let offset = |side: Side, elements: usize| match side {
        Side::Device(p) => Side::Device(p + (elements * elem) as u64),
        // `wrapping_add` keeps this safe code; the copy stays inside the
        // validated region.
        Side::Host(p) => Side::Host((p as *mut u8).wrapping_add(elements * elem) as *mut _),
    };
    let n = plan.dims.len();
    if n == 1 {
        return cuda::copy_2d(
            stream,
            offset(src, plan.src_offset),
            0,
            offset(dst, plan.dst_offset),
            0,
            plan.count * elem,
            1,
        );
    }
    let (height, src_pitch, dst_pitch) = plan.dims[n - 2];
    let width = plan.dims[n - 1].0;
    let outer = &plan.dims[..n - 2];
    let blocks: usize = outer.iter().map(|d| d.0).product();
    for mut b in 0..blocks {
        let (mut s, mut d) = (plan.src_offset, plan.dst_offset);
        for &(extent, ss, ds) in outer.iter().rev() {
            let i = b % extent;
            b /= extent;
            s += i * ss;
            d += i * ds;
        }
        cuda::copy_2d(
            stream,
            offset(src, s),
            src_pitch * elem,
            offset(dst, d),
            dst_pitch * elem,
            width * elem,
            height,
        )?;
    }
    Ok(())
}

/// A point in a stream's work, for ordering other streams or the host.
///
/// ```
/// let dev = sdfg_runtime::Device::cpu();
/// let s = dev.new_stream()?;
/// let e = s.record_event()?;
/// e.synchronize()?;
/// # Ok::<(), sdfg_runtime::Error>(())
/// ```
pub struct Event {
    device: Device,
    stream: Arc<StreamInner>,
    marker: Arc<Marker>,
    timing: Option<Arc<OnceLock<Instant>>>,
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Event")
            .field("stream", &self.stream.id)
            .field("position", &self.marker.position)
            .finish()
    }
}

impl Event {
    /// Blocks the host until the event fired (a counted host sync unless
    /// already known finished), and reports a kernel fault of its stream.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// let e = dev.default_stream().record_timing_event()?;
    /// e.synchronize()?;
    /// assert_eq!(dev.counters().host_syncs, 1);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn synchronize(&self) -> Result<()> {
        self.stream
            .host_wait(self.marker.position, &self.device, Some(&self.marker.raw))?;
        self.stream.check_fault()
    }

    /// Milliseconds between two finished timing events of one device
    /// (recorded with [`Stream::record_timing_event`]).
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// let s = dev.default_stream();
    /// let a = s.record_timing_event()?;
    /// let b = s.record_timing_event()?;
    /// s.synchronize()?;
    /// assert!(sdfg_runtime::Event::elapsed_ms(&a, &b)? >= 0.0);
    /// let plain = s.record_event()?;
    /// assert!(sdfg_runtime::Event::elapsed_ms(&a, &plain).is_err());
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn elapsed_ms(start: &Event, end: &Event) -> Result<f32> {
        start
            .device
            .check_same(end.device.id(), || "the end event".into())?;
        let (Some(a), Some(b)) = (&start.timing, &end.timing) else {
            return Err(Error::InvalidArgument(
                "elapsed_ms needs two events from record_timing_event".into(),
            ));
        };
        match (&start.marker.raw, &end.marker.raw) {
            (EventRaw::Cuda(a), EventRaw::Cuda(b)) => CudaEvent::elapsed_ms(a, b),
            _ => {
                let (Some(a), Some(b)) = (a.get(), b.get()) else {
                    return Err(Error::InvalidArgument(
                        "elapsed_ms: an event has not fired yet (synchronize it first)".into(),
                    ));
                };
                let ms = if b >= a {
                    (*b - *a).as_secs_f64() * 1e3
                } else {
                    -((*a - *b).as_secs_f64() * 1e3)
                };
                Ok(ms as f32)
            }
        }
    }
}

// Silences "never read" for fields used only by one backend in some builds.
#[allow(dead_code)]
fn _assert_send_sync() {
    fn check<T: Send + Sync>() {}
    check::<Stream>();
    check::<Event>();
    check::<AtomicU64>();
}
