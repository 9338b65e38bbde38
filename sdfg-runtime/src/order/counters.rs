//! Operation counters: what the tests count, and the rules they count by.

use std::sync::atomic::{AtomicU64, Ordering};

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
/// - `graph_launches`: recorded segments of program calls launched as one
///   graph (CUDA graph, or its emulation on the CPU device). The kernels
///   and copies inside a graph are not counted in `kernel_launches` and
///   `copies` (the host issued one operation), and the ordering inside it
///   needs no events; a graph launch is ordered after other streams' work
///   like any operation (`event_waits`).
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
    /// Graphs launched.
    pub graph_launches: u64,
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
            graph_launches: self.graph_launches.saturating_sub(earlier.graph_launches),
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
    pub(crate) graph_launches: AtomicU64,
}

impl CounterCells {
    pub(crate) fn bump(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// The counts now.
    pub(crate) fn snapshot(&self) -> Counters {
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        Counters {
            host_syncs: get(&self.host_syncs),
            event_waits: get(&self.event_waits),
            event_records: get(&self.event_records),
            kernel_launches: get(&self.kernel_launches),
            copies: get(&self.copies),
            graph_launches: get(&self.graph_launches),
        }
    }
}
