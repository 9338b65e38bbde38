//! Filling a device buffer with zeros on a stream: the start-of-call reset
//! of a reused transient, ordered like a write of the buffer.

use crate::cuda;
use crate::elem::Elem;
use crate::error::{Error, Result};
use crate::memory::device_buffer::{DeviceBuffer, DeviceMemory};
use crate::order::stream_state::StreamBackend;
use crate::order::tracker::AccessKind;
use crate::streams::stream::Stream;
use std::sync::Arc;

impl Stream {
    /// Sets every element of `buffer` to zero (`false` for bool) on this
    /// stream: after the buffer's earlier uses on any stream (events where
    /// they ran elsewhere), before later ones, like a copy into it.
    ///
    /// ```
    /// use sdfg_runtime::{Device, DeviceBuffer};
    /// let dev = Device::cpu();
    /// let buf = DeviceBuffer::from_slice(&dev, &[1i32, 2, 3])?;
    /// dev.default_stream().fill_zeros(&buf)?;
    /// assert_eq!(buf.to_vec()?, [0, 0, 0]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn fill_zeros<T: Elem>(&self, buffer: &DeviceBuffer<T>) -> Result<()> {
        self.device
            .check_same(buffer.device().id(), || "the buffer to fill".to_string())?;
        if buffer.is_empty() {
            return Ok(());
        }
        let accesses = [(buffer.tracker(), AccessKind::Write)];
        match (&self.inner.backend, buffer.memory()) {
            (StreamBackend::Cpu(_), DeviceMemory::Cpu(cells)) => {
                let cells = Arc::clone(cells);
                self.issue(accesses.iter().copied(), move |op| {
                    op.push_cpu(move || {
                        for cell in cells.cells.iter() {
                            T::store(cell, T::default());
                        }
                    });
                    Ok(op.completion(None))
                })?;
            }
            (StreamBackend::Cuda(_), DeviceMemory::Cuda(alloc)) => {
                let bytes = buffer.len() * std::mem::size_of::<T>();
                self.issue(accesses.iter().copied(), |op| {
                    cuda::zero_async(op.cuda_stream(), alloc.ptr, bytes)?;
                    Ok(op.completion(None))
                })?;
            }
            _ => {
                return Err(Error::WrongDevice {
                    what: "the operation mixes memory of a cpu device and a cuda device".into(),
                })
            }
        }
        Ok(())
    }
}
