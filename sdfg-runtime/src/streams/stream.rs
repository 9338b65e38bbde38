//! The stream handle and its ordering API: synchronizing, marks, events.
//! Copies (`copy.rs`) and launches (`launch.rs`) are issued through
//! `Stream::issue`.

use crate::cuda::CudaEvent;
use crate::device::Device;
use crate::error::Result;
use crate::order::counters::CounterCells;
use crate::order::issue::IssueCtx;
use crate::order::marker::{EventRaw, Marker};
use crate::order::stream_state::{StreamBackend, StreamInner};
use crate::order::tracker::{AccessKind, Tracker};
use crate::streams::event::Event;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

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
    /// counted host sync, unless nothing was outstanding), then reports the
    /// first fault a raw kernel launched here with [`KernelArg::fault`]
    /// wrote since the last `synchronize()`, as `Err(KernelFault)` (a CPU
    /// twin's panic as `Err(KernelPanicked)`), and resets it. Faults of
    /// program calls are reported by the call, never here.
    ///
    /// [`KernelArg::fault`]: crate::KernelArg::fault
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
        self.wait_issued()?;
        self.inner.check_fault()
    }

    /// Blocks until all work issued so far finished (counted like
    /// `synchronize`), leaving the stream's fault slot alone.
    pub(crate) fn wait_issued(&self) -> Result<()> {
        let position = self.inner.issued();
        self.inner.host_wait(position, self.device.order(), None)
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
        self.inner.mark(self.device.order())
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
        let marker = self.inner.record_event(self.device.order())?;
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
        let (marker, _) = self.issue(std::iter::empty(), move |op| {
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
        self.inner
            .wait_for_marker(self.device.order(), &event.stream, &event.marker)
    }

    /// Issues one operation on this stream (see `StreamInner::issue`).
    pub(crate) fn issue<'t, R>(
        &self,
        accesses: impl Iterator<Item = (&'t Tracker, AccessKind)> + Clone,
        op: impl FnOnce(&IssueCtx<'_>) -> Result<R>,
    ) -> Result<(R, u64)> {
        self.inner.issue(self.device.order(), accesses, op)
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
