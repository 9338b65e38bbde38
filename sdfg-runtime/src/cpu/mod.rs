//! The CPU device: streams are worker threads with FIFO queues, device memory
//! is reference-counted atomic cells, events are positions in a worker's queue.

pub(crate) mod memory;
pub(crate) mod worker;
