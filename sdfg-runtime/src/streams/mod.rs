//! Floor 3, the streams: the [`Stream`](stream::Stream) API, its copies
//! (one dispatch for both back ends) and launches, events, the values a
//! stream is still producing (`Pending`) and the program calls still
//! running (`Running`), graph launches, a caller's cudarc stream
//! (`CudarcStream`), and the stream methods of `Device`.

pub(crate) mod copy;
pub(crate) mod device;
pub(crate) mod event;
pub(crate) mod external;
pub(crate) mod fill;
pub(crate) mod graph;
pub(crate) mod launch;
pub(crate) mod pending;
pub(crate) mod persistent;
pub(crate) mod running;
pub(crate) mod stream;
