//! Device buffers: memory on a device, with no host access at all.

use crate::cpu::memory::CpuCells;
use crate::cuda::DeviceAlloc;
use crate::device::Device;
use crate::elem::Elem;
use crate::error::{Error, Result};
use crate::order::counters::CounterCells;
use crate::order::tracker::{AccessKind, Tracker};
use std::sync::Arc;

pub(crate) enum DeviceMemory<T: Elem> {
    /// Shared with every queued job that uses it.
    Cpu(Arc<CpuCells<T>>),
    Cuda(DeviceAlloc),
}

/// Memory on a device. There is no host access at all: data reaches the host
/// only through a stream copy whose result is a [`Pending`](crate::Pending),
/// or through the synchronous [`DeviceBuffer::to_vec`].
///
/// Every buffer carries a tracker (its last writer and the readers since), so
/// uses on different streams are ordered with events, also across programs
/// and after a forgotten `Running`/`Pending`; dropping a buffer never frees
/// memory a stream may still use.
///
/// ```
/// use sdfg_runtime::{Device, DeviceBuffer};
/// let dev = Device::cpu();
/// let buf = DeviceBuffer::from_slice(&dev, &[1.0f32, 2.0, 3.0])?;
/// assert_eq!(buf.len(), 3);
/// assert_eq!(buf.to_vec()?, [1.0, 2.0, 3.0]);
/// # Ok::<(), sdfg_runtime::Error>(())
/// ```
pub struct DeviceBuffer<T: Elem> {
    device: Device,
    len: usize,
    memory: DeviceMemory<T>,
    tracker: Tracker,
}

impl<T: Elem> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceBuffer<{}>[{}] on {}",
            T::TYPE,
            self.len,
            self.device.name()
        )
    }
}

impl<T: Elem> DeviceBuffer<T> {
    /// `len` zeroed elements (`false` for bool). Beyond the device's memory:
    /// `Err(OutOfMemory)`, and the device keeps working.
    ///
    /// ```
    /// use sdfg_runtime::{Device, DeviceBuffer};
    /// let dev = Device::cpu();
    /// assert_eq!(DeviceBuffer::<bool>::zeros(&dev, 2)?.to_vec()?, [false, false]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn zeros(device: &Device, len: usize) -> Result<Self> {
        let memory = match device.cuda() {
            None => DeviceMemory::Cpu(CpuCells::zeroed(
                len,
                &device.inner.live_bytes,
                device.cpu_capacity(),
            )?),
            Some(ctx) => {
                let bytes =
                    len.checked_mul(std::mem::size_of::<T>())
                        .ok_or(Error::OutOfMemory {
                            bytes: (len as u64).saturating_mul(std::mem::size_of::<T>() as u64),
                        })?;
                DeviceMemory::Cuda(DeviceAlloc::zeroed(ctx, bytes)?)
            }
        };
        Ok(DeviceBuffer {
            device: device.clone(),
            len,
            memory,
            tracker: Tracker::default(),
        })
    }

    /// A buffer holding a copy of `data` (a synchronous upload; counts one copy).
    ///
    /// ```
    /// use sdfg_runtime::{Device, DeviceBuffer};
    /// let dev = Device::cpu();
    /// let buf = DeviceBuffer::from_slice(&dev, &[7u32; 5])?;
    /// assert_eq!(buf.to_vec()?, [7; 5]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn from_slice(device: &Device, data: &[T]) -> Result<Self> {
        let buffer = Self::zeros(device, data.len())?;
        match &buffer.memory {
            // Fresh memory that no job knows yet: written right here.
            DeviceMemory::Cpu(cells) => {
                for (cell, &v) in cells.cells.iter().zip(data) {
                    T::store(cell, v);
                }
            }
            DeviceMemory::Cuda(alloc) => crate::cuda::upload_sync(alloc, data)?,
        }
        if !data.is_empty() {
            CounterCells::bump(&device.counters_cells().copies);
        }
        Ok(buffer)
    }

    /// Number of elements.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// assert_eq!(sdfg_runtime::DeviceBuffer::<i32>::zeros(&dev, 3)?.len(), 3);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// `len() == 0`.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// assert!(sdfg_runtime::DeviceBuffer::<i32>::zeros(&dev, 0)?.is_empty());
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device that holds the memory.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// assert_eq!(sdfg_runtime::DeviceBuffer::<i32>::zeros(&dev, 1)?.device(), &dev);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn device(&self) -> &Device {
        &self.device
    }

    pub(crate) fn tracker(&self) -> &Tracker {
        &self.tracker
    }

    pub(crate) fn memory(&self) -> &DeviceMemory<T> {
        &self.memory
    }

    pub(crate) fn same_memory(&self, other: &DeviceBuffer<T>) -> bool {
        std::ptr::eq(self, other)
    }
}

impl<T: Elem> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        if let DeviceMemory::Cuda(_) = &self.memory {
            // GPU memory is not reference counted by the work that uses it:
            // wait for that work (counted host syncs) before freeing. If the
            // wait fails the context is broken; leak rather than free memory
            // a kernel might still touch.
            if self
                .tracker
                .host_wait(AccessKind::Write, self.device.order())
                .is_err()
            {
                let memory = std::mem::replace(&mut self.memory, DeviceMemory::Cpu(placeholder()));
                std::mem::forget(memory);
            }
        }
        // CPU memory is shared with the queued jobs (`Arc`) and freed by the last one.
    }
}

/// An empty CPU memory used only to move real memory out of a dropped buffer.
fn placeholder<T: Elem>() -> Arc<CpuCells<T>> {
    CpuCells::zeroed(0, &Arc::default(), 0).expect("an empty allocation always fits")
}
