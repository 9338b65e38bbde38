//! Memory (floor 2, with `device.rs` and `kernel/`): device buffers, host
//! buffers, and the host-access traits that a `Pending` lacks.

pub(crate) mod device_buffer;
pub(crate) mod host_access;
pub(crate) mod host_buffer;
