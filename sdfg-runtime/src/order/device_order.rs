//! What the streams of one device share for ordering their work.

use crate::cuda::StagingPool;
use crate::order::counters::CounterCells;
use std::sync::Mutex;

/// The ordering state of one device, shared by its streams: the counters,
/// the issue lock, and (CUDA) the pinned staging blocks that finished
/// uploads hand back.
#[derive(Default)]
pub(crate) struct DeviceOrder {
    pub(crate) counters: CounterCells,
    /// Serializes the issuing of stream operations of this device, so that the
    /// trackers' view of "who used a buffer last" is consistent. Only issuing
    /// is serialized (microseconds), never the work.
    pub(crate) issue_lock: Mutex<()>,
    /// Pinned staging blocks free for reuse (CUDA device).
    pub(crate) staging: StagingPool,
}
