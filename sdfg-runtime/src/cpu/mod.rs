//! The CPU device: streams are worker threads with FIFO queues, device memory
//! is reference-counted atomic cells, events are positions in a worker's queue;
//! kernel twins split their maps into chunks ([`chunks`]) on the device's
//! kernel pool ([`pool`]), with plain access where no two iterations share
//! an element ([`plain`]); a block map with fewer block iterations than
//! threads runs each on a team of threads ([`team`]).

pub(crate) mod chunks;
pub(crate) mod fused;
pub(crate) mod memory;
pub(crate) mod plain;
pub(crate) mod pool;
pub(crate) mod team;
pub(crate) mod worker;
