//! Values still being produced by a stream.

use crate::device::Device;
use crate::elem::Elem;
use crate::error::{Error, Result};
use crate::memory::host_buffer::HostBuffer;
use crate::order::issue::Completion;

/// Work to do on the value once the stream finished (e.g. unpack staging).
pub(crate) type Finish<V> = Box<dyn FnOnce(&mut V) + Send>;

/// A value that a stream is still producing, e.g. the destination of a
/// device-to-host copy. The only way to the value is [`Pending::wait`], which
/// synchronizes exactly the stream position the value was issued at.
/// `Pending` deliberately does not implement [`HostRead`](crate::HostRead),
/// so reading it early does not compile.
///
/// Dropping it waits too (politeness: soundness never relies on it; a
/// forgotten `Pending` leaks its value, and the buffers' trackers order
/// later uses).
///
/// ```
/// use sdfg_runtime::{Device, DeviceBuffer, HostBuffer, Region};
/// let dev = Device::cpu();
/// let buf = DeviceBuffer::from_slice(&dev, &[10i32])?;
/// let pending = dev.new_stream()?.copy_to_host(&buf, &Region::whole(1), HostBuffer::new(&dev, 1)?, &Region::whole(1))?;
/// let host = pending.wait()?;
/// assert_eq!(host.as_slice(), [10]);
/// # Ok::<(), sdfg_runtime::Error>(())
/// ```
#[must_use = "the value is not ready: call `.wait()` to get it"]
pub struct Pending<V> {
    device: Device,
    value: Option<V>,
    completion: Option<Completion>,
    finish: Option<Finish<V>>,
}

impl<V> std::fmt::Debug for Pending<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending")
            .field("position", &self.completion.as_ref().map(|c| c.position))
            .finish_non_exhaustive()
    }
}

impl<V> Pending<V> {
    pub(crate) fn new(
        device: Device,
        value: V,
        completion: Option<Completion>,
        finish: Option<Finish<V>>,
    ) -> Self {
        Pending {
            device,
            value: Some(value),
            completion,
            finish,
        }
    }

    /// A value that is ready at once (nothing to wait for).
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// assert_eq!(sdfg_runtime::Pending::ready(&dev, 5).wait()?, 5);
    /// assert_eq!(dev.counters().host_syncs, 0);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn ready(device: &Device, value: V) -> Self {
        Pending::new(device.clone(), value, None, None)
    }

    /// Blocks until the producing operation finished (one counted host
    /// sync, unless the host already knows it finished) and returns the
    /// value. Kernel faults are not its business: a program call reports its
    /// own (`Running::wait`), a raw kernel's code waits for its stream's
    /// `synchronize()`.
    ///
    /// ```
    /// use sdfg_runtime::{Device, DeviceBuffer, Region};
    /// let dev = Device::cpu();
    /// let buf = DeviceBuffer::from_slice(&dev, &[1u8 as u32; 3])?;
    /// let mut out = vec![0; 3];
    /// let before = dev.counters().host_syncs;
    /// dev.default_stream().copy_to_slice(&buf, &Region::whole(3), &mut out, &Region::whole(3))?.wait()?;
    /// assert_eq!(dev.counters().host_syncs - before, 1);
    /// assert_eq!(out, [1, 1, 1]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn wait(mut self) -> Result<V> {
        let result = self.complete();
        let value = self.value.take();
        result?;
        value.ok_or_else(|| Error::InvalidArgument("the pending value was already taken".into()))
    }

    fn complete(&mut self) -> Result<()> {
        if let Some(c) = self.completion.take() {
            if let Err(e) = c
                .stream
                .host_wait(c.position, self.device.order(), c.event.as_ref())
            {
                // The wait itself failed: the stream may still write the
                // staging memory that `finish` owns. Leak it.
                if let Some(finish) = self.finish.take() {
                    std::mem::forget(finish);
                }
                return Err(e);
            }
        }
        if let (Some(finish), Some(value)) = (self.finish.take(), self.value.as_mut()) {
            finish(value);
        }
        Ok(())
    }
}

impl<T: Elem> Pending<HostBuffer<T>> {
    /// Reads the destination **without waiting**: a deliberately racy read
    /// for negative-control tests, showing that a read before `.wait()` can
    /// see stale data.
    ///
    /// # Safety
    /// On a CUDA device this races with the DMA engine writing the pinned
    /// buffer: the caller must accept stale or partly updated contents
    /// (reads are volatile; each element reads as its old or new value) and
    /// must not draw conclusions from them beyond "not synchronized". On the
    /// CPU device the worker writes through atomic cells and this reads
    /// atomically, so there it is merely racy, never undefined behaviour.
    ///
    /// ```
    /// use sdfg_runtime::{Device, DeviceBuffer, HostBuffer, Region};
    /// let dev = Device::cpu();
    /// let buf = DeviceBuffer::from_slice(&dev, &[9i32])?;
    /// let p = dev.default_stream().copy_to_host(&buf, &Region::whole(1), HostBuffer::new(&dev, 1)?, &Region::whole(1))?;
    /// // SAFETY: CPU device; the value is only printed.
    /// let maybe_stale = unsafe { p.peek_unsynchronized() };
    /// assert!(maybe_stale == [0] || maybe_stale == [9]);
    /// assert_eq!(p.wait()?.as_slice(), [9]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub unsafe fn peek_unsynchronized(&self) -> Vec<T> {
        match &self.value {
            // SAFETY: forwarded contract.
            Some(buffer) => unsafe { buffer.peek_racy() },
            None => Vec::new(),
        }
    }
}

impl<V> Drop for Pending<V> {
    fn drop(&mut self) {
        let _ = self.complete();
    }
}
