//! The stream methods of a [`Device`]: its default stream, new streams,
//! and waiting for all of them.

use crate::device::{Device, DeviceKind};
use crate::error::{Error, Result};
use crate::lock::lock;
use crate::order::stream_state::StreamInner;
use crate::streams::stream::Stream;
use std::sync::{Arc, Weak};

impl Device {
    /// The device-wide default stream: the legacy default stream on CUDA, one
    /// device-wide worker on the CPU device.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// assert_eq!(dev.default_stream(), dev.default_stream());
    /// ```
    pub fn default_stream(&self) -> Stream {
        Stream {
            device: self.clone(),
            inner: Arc::clone(&self.inner.default_stream),
        }
    }

    /// A new stream (CUDA: `CU_STREAM_NON_BLOCKING`; CPU: a new worker thread).
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// let s = dev.new_stream()?;
    /// assert_ne!(s, dev.default_stream());
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn new_stream(&self) -> Result<Stream> {
        let inner = match &self.inner.kind {
            DeviceKind::Cpu { .. } => {
                StreamInner::new_cpu(self.inner.id, "stream").map_err(|e| {
                    Error::InvalidArgument(format!("could not start a stream worker: {e}"))
                })?
            }
            DeviceKind::Cuda(ctx) => StreamInner::new_cuda(self.inner.id, ctx)?,
        };
        let mut streams = lock(&self.inner.streams);
        streams.retain(|w| w.strong_count() > 0);
        streams.push(Arc::downgrade(&inner));
        drop(streams);
        Ok(Stream {
            device: self.clone(),
            inner,
        })
    }

    /// Waits for the work of every live stream of this device (one counted
    /// host sync per stream with outstanding work) and reports kernel faults.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// dev.synchronize()?;
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn synchronize(&self) -> Result<()> {
        let streams: Vec<Arc<StreamInner>> = lock(&self.inner.streams)
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        let mut first_error = None;
        for s in streams {
            let stream = Stream {
                device: self.clone(),
                inner: s,
            };
            if let Err(e) = stream.synchronize() {
                first_error.get_or_insert(e);
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}
