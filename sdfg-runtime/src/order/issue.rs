//! Issuing: every stream operation is ordered after the conflicting,
//! unfinished uses of its buffers on other streams (event waits), then
//! enqueued, then recorded in the buffers' trackers.

use crate::cuda::{CudaEvent, CudaStream};
use crate::error::{Error, Result};
use crate::lock::lock;
use crate::order::counters::CounterCells;
use crate::order::device_order::DeviceOrder;
use crate::order::marker::{EventRaw, Marker};
use crate::order::recording;
use crate::order::stream_state::{StreamBackend, StreamInner};
use crate::order::tracker::{merge_by_stream, AccessKind, Tracker, Use};
use std::sync::Arc;

/// Where an issued operation sits in its stream: what a host wait for its
/// result (a `Pending`) waits on.
pub(crate) struct Completion {
    pub(crate) stream: Arc<StreamInner>,
    pub(crate) position: u64,
    /// CUDA: an event recorded right after the operation (not counted as an
    /// event record: it is part of the host sync).
    pub(crate) event: Option<EventRaw>,
}

/// The pieces of one issued operation handed to its backend closure.
pub(crate) struct IssueCtx<'s> {
    pub(crate) stream: &'s Arc<StreamInner>,
    pub(crate) position: u64,
}

impl IssueCtx<'_> {
    /// The completion marker of the operation being issued.
    pub(crate) fn completion(&self, event: Option<CudaEvent>) -> Completion {
        Completion {
            stream: Arc::clone(self.stream),
            position: self.position,
            event: event.map(EventRaw::Cuda),
        }
    }

    /// Enqueues the operation's job on a CPU stream's worker.
    pub(crate) fn push_cpu(&self, job: impl FnOnce() + Send + 'static) {
        let StreamBackend::Cpu(worker) = &self.stream.backend else {
            unreachable!("cpu job on a cuda stream")
        };
        worker.push(Box::new(job));
    }

    /// The CUDA stream the operation is issued on.
    pub(crate) fn cuda_stream(&self) -> &CudaStream {
        let StreamBackend::Cuda(stream) = &self.stream.backend else {
            unreachable!("cuda work on a cpu stream")
        };
        stream
    }
}

impl StreamInner {
    /// Issues one operation: orders it after conflicting unfinished uses on
    /// other streams (events), runs `op` (which enqueues the work), then
    /// records the accesses. Returns `op`'s value and the new position.
    pub(crate) fn issue<'t, R>(
        self: &Arc<Self>,
        order: &DeviceOrder,
        accesses: impl Iterator<Item = (&'t Tracker, AccessKind)> + Clone,
        op: impl FnOnce(&IssueCtx<'_>) -> Result<R>,
    ) -> Result<(R, u64)> {
        if recording::is_recording() {
            // Kernel launches and device copies record themselves before
            // they get here; anything else has no graph form.
            recording::refuse("an operation with a host end or a host wait");
            return Err(Error::Unsupported(
                "a stream operation that graphs cannot hold was issued while a graph \
                 segment was recorded (a code generator bug: please report it)"
                    .into(),
            ));
        }
        let _issuing = lock(&order.issue_lock);
        let mut dependencies: Vec<Use> = Vec::new();
        for (tracker, kind) in accesses.clone() {
            // Not this stream's own uses: its FIFO order covers them.
            tracker.unfinished_conflicts_into(kind, Some(self.id), &mut dependencies);
        }
        for dep in merge_by_stream(dependencies) {
            let already = lock(&self.state)
                .waited
                .get(&dep.stream.id)
                .is_some_and(|&p| p >= dep.position);
            if already {
                continue;
            }
            let marker = dep.stream.event_covering(dep.position, order)?;
            self.enqueue_wait(order, &dep.stream, &marker)?;
        }
        let position = self.issued() + 1;
        let result = op(&IssueCtx {
            stream: self,
            position,
        });
        let issued = match (&result, &self.backend) {
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
            lock(&self.state).issued = position;
            for (tracker, kind) in accesses {
                tracker.record(kind, self, position);
            }
        }
        result.map(|value| (value, position))
    }

    /// Makes this stream's later work wait for `marker` of `producer`
    /// (counted in `event_waits`).
    pub(crate) fn wait_for_marker(
        &self,
        order: &DeviceOrder,
        producer: &Arc<StreamInner>,
        marker: &Arc<Marker>,
    ) -> Result<()> {
        let _issuing = lock(&order.issue_lock);
        self.enqueue_wait(order, producer, marker)
    }

    /// Issues "wait for `marker` of `producer`" on this stream. Issue lock held.
    fn enqueue_wait(
        &self,
        order: &DeviceOrder,
        producer: &Arc<StreamInner>,
        marker: &Arc<Marker>,
    ) -> Result<()> {
        let mut state = lock(&self.state);
        match (&self.backend, &marker.raw) {
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
        CounterCells::bump(&order.counters.event_waits);
        Ok(())
    }

    /// Records an event after the work issued so far for other streams that
    /// will need it (counted), unless one was recorded at that position.
    /// Nothing while this thread records a graph segment (inside a graph,
    /// the buffers order the operations).
    pub(crate) fn mark(&self, order: &DeviceOrder) -> Result<()> {
        if recording::is_recording() {
            return Ok(());
        }
        let _issuing = lock(&order.issue_lock);
        let mut state = lock(&self.state);
        if state
            .recent_events
            .back()
            .is_some_and(|m| m.position == state.issued)
        {
            return Ok(());
        }
        let marker = Arc::new(self.record_marker(state.issued, false)?);
        state.remember_event(marker);
        drop(state);
        CounterCells::bump(&order.counters.event_records);
        Ok(())
    }

    /// Records an event after the work issued so far (counted), remembered
    /// for other streams' waits.
    pub(crate) fn record_event(&self, order: &DeviceOrder) -> Result<Arc<Marker>> {
        let _issuing = lock(&order.issue_lock);
        let mut state = lock(&self.state);
        let marker = Arc::new(self.record_marker(state.issued, false)?);
        state.remember_event(Arc::clone(&marker));
        drop(state);
        CounterCells::bump(&order.counters.event_records);
        Ok(marker)
    }
}
