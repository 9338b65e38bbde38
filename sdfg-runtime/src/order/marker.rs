//! Raw events: points in a stream's work that other streams or the host
//! can wait for.

use crate::cpu::worker::Worker;
use crate::cuda::CudaEvent;
use std::sync::Arc;

/// A completion marker: stream work up to `position` is done once it fires.
pub(crate) enum EventRaw {
    Cpu(Arc<Worker>),
    Cuda(CudaEvent),
}

pub(crate) struct Marker {
    pub(crate) position: u64,
    pub(crate) raw: EventRaw,
}
