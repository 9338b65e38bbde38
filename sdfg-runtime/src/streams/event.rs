//! Events: points in a stream's work that the host or other streams wait for.

use crate::cuda::CudaEvent;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::order::marker::{EventRaw, Marker};
use crate::order::stream_state::StreamInner;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// A point in a stream's work, for ordering other streams or the host.
///
/// ```
/// let dev = sdfg_runtime::Device::cpu();
/// let s = dev.new_stream()?;
/// let e = s.record_event()?;
/// e.synchronize()?;
/// # Ok::<(), sdfg_runtime::Error>(())
/// ```
pub struct Event {
    pub(crate) device: Device,
    pub(crate) stream: Arc<StreamInner>,
    pub(crate) marker: Arc<Marker>,
    /// Timing events: when the stream reached the event (CPU device).
    pub(crate) timing: Option<Arc<OnceLock<Instant>>>,
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Event")
            .field("stream", &self.stream.id)
            .field("position", &self.marker.position)
            .finish()
    }
}

impl Event {
    /// Blocks the host until the event fired (a counted host sync unless
    /// already known finished). Kernel faults are reported by the stream's
    /// `synchronize()` (raw kernels) or the program call (`Running::wait`).
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// let e = dev.default_stream().record_timing_event()?;
    /// e.synchronize()?;
    /// assert_eq!(dev.counters().host_syncs, 1);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn synchronize(&self) -> Result<()> {
        self.stream.host_wait(
            self.marker.position,
            self.device.order(),
            Some(&self.marker.raw),
        )
    }

    /// Milliseconds between two finished timing events of one device
    /// (recorded with [`Stream::record_timing_event`](crate::Stream::record_timing_event)).
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// let s = dev.default_stream();
    /// let a = s.record_timing_event()?;
    /// let b = s.record_timing_event()?;
    /// s.synchronize()?;
    /// assert!(sdfg_runtime::Event::elapsed_ms(&a, &b)? >= 0.0);
    /// let plain = s.record_event()?;
    /// assert!(sdfg_runtime::Event::elapsed_ms(&a, &plain).is_err());
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn elapsed_ms(start: &Event, end: &Event) -> Result<f32> {
        start
            .device
            .check_same(end.device.id(), || "the end event".into())?;
        let (Some(a), Some(b)) = (&start.timing, &end.timing) else {
            return Err(Error::InvalidArgument(
                "elapsed_ms needs two events from record_timing_event".into(),
            ));
        };
        match (&start.marker.raw, &end.marker.raw) {
            (EventRaw::Cuda(a), EventRaw::Cuda(b)) => CudaEvent::elapsed_ms(a, b),
            _ => {
                let (Some(a), Some(b)) = (a.get(), b.get()) else {
                    return Err(Error::InvalidArgument(
                        "elapsed_ms: an event has not fired yet (synchronize it first)".into(),
                    ));
                };
                let ms = if b >= a {
                    (*b - *a).as_secs_f64() * 1e3
                } else {
                    -((*a - *b).as_secs_f64() * 1e3)
                };
                Ok(ms as f32)
            }
        }
    }
}
