//! The state of one stream: its back end, the positions it issued and the
//! host knows finished, the events it keeps for others, and its fault slot.

use crate::cpu::worker::Worker;
use crate::cuda::{CudaContext, CudaEvent, CudaStream, PinnedBlock};
use crate::error::{Error, Result};
use crate::lock::lock;
use crate::order::counters::CounterCells;
use crate::order::device_order::DeviceOrder;
use crate::order::fault::{FaultSlot, Recorded};
use crate::order::ids::next_id;
use crate::order::marker::{EventRaw, Marker};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

pub(crate) enum StreamBackend {
    Cpu(Arc<Worker>),
    Cuda(CudaStream),
}

pub(crate) struct StreamState {
    /// Operations issued so far (the position of the latest one).
    pub(crate) issued: u64,
    /// Recent events recorded for other streams, oldest first (at most
    /// `RECENT_EVENTS`); a waiter takes the earliest that covers its need,
    /// so it does not wait for later, unrelated work of this stream.
    pub(super) recent_events: VecDeque<Arc<Marker>>,
    /// Per other stream: the latest position this stream already waits for.
    pub(super) waited: HashMap<u64, u64>,
    /// Event waits this stream issued and the host has not yet seen finish:
    /// (position of the wait here, producer stream, producer position). When
    /// the host learns this stream finished past the wait, the producer's
    /// work is finished too (`StreamInner::mark_complete`). Weak: streams
    /// that wait on each other must not keep each other alive.
    pub(super) wait_log: Vec<(u64, Weak<StreamInner>, u64)>,
    /// CUDA: kernels launched with this stream's fault slot since the last
    /// check (for the message: the GPU writes a raw code, not a name).
    pub(crate) kernels_since_check: Vec<String>,
    /// CUDA: upload staging blocks in flight, freed when their event fired.
    pub(crate) in_flight_staging: Vec<(CudaEvent, PinnedBlock)>,
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

    pub(super) fn remember_event(&mut self, marker: Arc<Marker>) {
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
    // before the staging blocks in `state` and the fault slot are freed.
    pub(crate) backend: StreamBackend,
    pub(crate) state: Mutex<StreamState>,
    /// Highest position the host knows to be finished (only host waits raise
    /// it, so counts are deterministic).
    completed: AtomicU64,
    /// Where raw kernels launched with `KernelArg::fault()` report.
    pub(crate) fault: FaultSlot,
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
    fn with_backend(device_id: u64, backend: StreamBackend, fault: FaultSlot) -> Arc<Self> {
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
            FaultSlot::new_cpu(device_id),
        ))
    }

    pub(crate) fn new_cuda(device_id: u64, ctx: &Arc<CudaContext>) -> Result<Arc<Self>> {
        let stream = CudaStream::create(ctx)?;
        let fault = FaultSlot::new_cuda(device_id, ctx)?;
        Ok(Self::with_backend(
            device_id,
            StreamBackend::Cuda(stream),
            fault,
        ))
    }

    /// A caller's cudarc stream (see `CudaStream::borrowed`).
    pub(crate) fn new_cuda_borrowed(
        device_id: u64,
        ctx: &Arc<CudaContext>,
        owner: &Arc<cudarc::driver::CudaStream>,
    ) -> Result<Arc<Self>> {
        let stream = CudaStream::borrowed(ctx, owner)?;
        let fault = FaultSlot::new_cuda(device_id, ctx)?;
        Ok(Self::with_backend(
            device_id,
            StreamBackend::Cuda(stream),
            fault,
        ))
    }

    pub(crate) fn new_cuda_default(device_id: u64, ctx: &Arc<CudaContext>) -> Result<Arc<Self>> {
        let stream = CudaStream::legacy_default(ctx);
        let fault = FaultSlot::new_cuda(device_id, ctx)?;
        Ok(Self::with_backend(
            device_id,
            StreamBackend::Cuda(stream),
            fault,
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
            if state.wait_log.is_empty() {
                return; // the usual case: this stream waited on no other
            }
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
        order: &DeviceOrder,
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
                            // No event at or after `position`: wait for
                            // everything issued (what an event recorded now
                            // would cover), without making one.
                            _ => stream.synchronize()?,
                        }
                    }
                },
            }
            CounterCells::bump(&order.counters.host_syncs);
            self.mark_complete(position);
            self.reclaim_staging(order);
        }
        Ok(())
    }

    /// Reads and resets this stream's fault slot (what raw kernels launched
    /// with `KernelArg::fault()` reported since the last check).
    pub(crate) fn check_fault(&self) -> Result<()> {
        let kernels = std::mem::take(&mut lock(&self.state).kernels_since_check).join(" or ");
        match self.fault.take() {
            None => Ok(()),
            Some(Recorded::Panic { kernel, message }) => {
                Err(Error::KernelPanicked { kernel, message })
            }
            Some(Recorded::Code { kernel, code }) => Err(Error::KernelFault {
                kernel: kernel.unwrap_or(kernels),
                code,
                site: None,
            }),
            // A generated kernel launched raw: no program describes its sites.
            Some(Recorded::Site { access, .. }) => Err(Error::KernelFault {
                kernel: kernels,
                code: access,
                site: None,
            }),
        }
    }

    /// An event at or after `position` for other streams to wait on: the last
    /// recorded one if it covers, else a new one (counted) at the current end.
    pub(super) fn event_covering(&self, position: u64, order: &DeviceOrder) -> Result<Arc<Marker>> {
        let mut state = lock(&self.state);
        if let Some(m) = state.covering_event(position) {
            return Ok(m);
        }
        let marker = Arc::new(self.record_marker(state.issued, false)?);
        CounterCells::bump(&order.counters.event_records);
        state.remember_event(Arc::clone(&marker));
        Ok(marker)
    }

    pub(super) fn record_marker(&self, position: u64, timing: bool) -> Result<Marker> {
        let raw = match &self.backend {
            StreamBackend::Cpu(worker) => EventRaw::Cpu(Arc::clone(worker)),
            StreamBackend::Cuda(stream) => EventRaw::Cuda(CudaEvent::record(stream, timing)?),
        };
        Ok(Marker { position, raw })
    }

    /// Frees upload staging whose copies finished (a non-blocking query).
    pub(crate) fn reclaim_staging(&self, order: &DeviceOrder) {
        let done: Vec<PinnedBlock> = {
            let mut state = lock(&self.state);
            if state.in_flight_staging.is_empty() {
                return;
            }
            let (finished, running): (Vec<_>, Vec<_>) =
                std::mem::take(&mut state.in_flight_staging)
                    .into_iter()
                    .partition(|(event, _)| event.is_complete());
            state.in_flight_staging = running;
            finished.into_iter().map(|(_, block)| block).collect()
        };
        for block in done {
            order.staging.give_back(block);
        }
    }
}
