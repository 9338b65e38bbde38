//! A caller's cudarc stream as a runtime [`Stream`], so that sdfg-rs work
//! composes with code that already uses cudarc: programs and stream
//! operations issued on it are ordered with the caller's own work on that
//! stream (one FIFO), and the caller's handle stays borrowed while a
//! program's call on it runs.

use crate::device::Device;
use crate::error::{Error, Result};
use crate::lock::lock;
use crate::order::stream_state::StreamInner;
use crate::streams::stream::Stream;
use std::marker::PhantomData;
use std::sync::Arc;

/// A caller's cudarc stream, borrowed for `'s`: a [`Stream`] (through
/// `Deref`) whose work goes onto the caller's CUDA stream.
///
/// `program.launch_on(&stream, args)` returns a `Running` that borrows it,
/// so the caller's `Arc<cudarc::driver::CudaStream>` can be neither dropped
/// nor moved before the program's work on it was waited for. (Soundness does
/// not rest on that borrow: the wrapper also holds a clone of the `Arc`, so
/// the handle outlives every use the runtime may still make of it.)
///
/// ```no_run
/// use sdfg_runtime::{Device, DeviceBuffer, Region};
/// use std::sync::Arc;
/// let device = Device::gpu(0)?;
/// let cudarc_ctx = sdfg_runtime::cudarc::driver::CudaContext::new(0).unwrap();
/// let theirs: Arc<sdfg_runtime::cudarc::driver::CudaStream> = cudarc_ctx.new_stream().unwrap();
/// let ours = device.borrow_cudarc_stream(&theirs)?;
/// let buf = DeviceBuffer::<f32>::zeros(&device, 4)?;
/// ours.copy_to_device(&[1.0, 2.0, 3.0, 4.0][..], &Region::whole(4), &buf, &Region::whole(4))?;
/// ours.synchronize()?; // the caller's stream, as cudarc sees it too
/// # Ok::<(), sdfg_runtime::Error>(())
/// ```
pub struct CudarcStream<'s> {
    stream: Stream,
    _borrow: PhantomData<&'s Arc<cudarc::driver::CudaStream>>,
}

impl std::fmt::Debug for CudarcStream<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudarcStream")
            .field("stream", &self.stream)
            .finish()
    }
}

impl std::ops::Deref for CudarcStream<'_> {
    type Target = Stream;
    fn deref(&self) -> &Stream {
        &self.stream
    }
}

impl Device {
    /// Borrows a caller's cudarc stream: work issued on the returned
    /// stream goes onto it, in order with the caller's own work there. The
    /// stream must belong to this GPU's primary context (what
    /// `cudarc::driver::CudaContext::new(ordinal)` retains); `Err` on the
    /// CPU device or for another context.
    ///
    /// ```no_run
    /// # use sdfg_runtime::Device;
    /// let device = Device::gpu(0)?;
    /// let theirs = sdfg_runtime::cudarc::driver::CudaContext::new(0).unwrap().new_stream().unwrap();
    /// let ours = device.borrow_cudarc_stream(&theirs)?;
    /// assert!(ours.device().is_gpu());
    /// assert!(Device::cpu().borrow_cudarc_stream(&theirs).is_err());
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn borrow_cudarc_stream<'s>(
        &self,
        stream: &'s Arc<cudarc::driver::CudaStream>,
    ) -> Result<CudarcStream<'s>> {
        let Some(ctx) = self.cuda() else {
            return Err(Error::Unsupported(
                "a cudarc stream needs a cuda device, not the cpu device".into(),
            ));
        };
        let inner: Arc<StreamInner> = StreamInner::new_cuda_borrowed(self.id(), ctx, stream)?;
        let mut streams = lock(&self.inner.streams);
        streams.retain(|w| w.strong_count() > 0);
        streams.push(Arc::downgrade(&inner));
        drop(streams);
        Ok(CudarcStream {
            stream: Stream {
                device: self.clone(),
                inner,
            },
            _borrow: PhantomData,
        })
    }
}
