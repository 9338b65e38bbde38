//! Floor 1, the ordering core: which stream did what, at which position,
//! and what the host knows to be finished. Per-stream state, raw events,
//! buffer trackers, the issuing of operations, counters, ids and the fault
//! slots of streams and calls. It knows streams only as
//! `stream_state::StreamInner` and devices only as their shared
//! `device_order::DeviceOrder`, so nothing here imports the memory, kernel
//! or public floors above.

pub(crate) mod counters;
pub(crate) mod device_order;
pub(crate) mod fault;
pub(crate) mod ids;
pub(crate) mod issue;
pub(crate) mod marker;
pub(crate) mod stream_state;
pub(crate) mod tracker;
