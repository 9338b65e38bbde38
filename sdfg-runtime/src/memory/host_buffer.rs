//! Host buffers: host memory that streams copy into asynchronously (pinned
//! on CUDA), readable only when no device copy still writes it.

use crate::cpu::memory::HeapBlock;
use crate::cuda::PinnedBlock;
use crate::device::Device;
use crate::elem::Elem;
use crate::error::{Error, Result};
use crate::order::tracker::{AccessKind, Tracker};
use std::marker::PhantomData;
use std::sync::Arc;

pub(crate) enum HostMemory<T: Elem> {
    /// CPU device: shared with the queued jobs that write it.
    Heap(Arc<HeapBlock<T>>),
    /// CUDA device: page-locked memory (DMA target).
    Pinned(PinnedBlock, PhantomData<T>),
}

impl<T: Elem> HostMemory<T> {
    fn ptr(&self) -> *mut T {
        match self {
            HostMemory::Heap(b) => b.ptr(),
            HostMemory::Pinned(b, _) => b.ptr as *mut T,
        }
    }
}

/// Host memory that streams can copy into asynchronously: page-locked (not
/// write-combined) on CUDA, heap memory on the CPU device.
///
/// Its tracker knows about device copies still writing it (possible only
/// after a forgotten [`Pending`](crate::Pending)): host access then waits first
/// (a counted host sync).
///
/// ```
/// use sdfg_runtime::{Device, HostBuffer};
/// let dev = Device::cpu();
/// let mut h = HostBuffer::from_slice(&dev, &[1u8 as i32, 2])?;
/// h.as_mut_slice()[0] = 10;
/// assert_eq!(h.as_slice(), [10, 2]);
/// assert_eq!(h.to_vec(), vec![10, 2]);
/// # Ok::<(), sdfg_runtime::Error>(())
/// ```
pub struct HostBuffer<T: Elem> {
    device: Device,
    len: usize,
    memory: HostMemory<T>,
    tracker: Tracker,
}

impl<T: Elem> std::fmt::Debug for HostBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "HostBuffer<{}>[{}] on {}",
            T::TYPE,
            self.len,
            self.device.name()
        )
    }
}

impl<T: Elem> HostBuffer<T> {
    /// `len` zeroed elements.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// assert_eq!(sdfg_runtime::HostBuffer::<f32>::new(&dev, 2)?.as_slice(), [0.0, 0.0]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn new(device: &Device, len: usize) -> Result<Self> {
        let memory = match device.cuda() {
            None => {
                // Refuse what cannot fit in RAM instead of overcommitting.
                let bytes = (len as u128) * (std::mem::size_of::<T>() as u128);
                if bytes > device.cpu_capacity() as u128 {
                    return Err(Error::OutOfMemory {
                        bytes: u64::try_from(bytes).unwrap_or(u64::MAX),
                    });
                }
                HostMemory::Heap(Arc::new(HeapBlock::new(len)?))
            }
            Some(ctx) => {
                let bytes = len
                    .checked_mul(std::mem::size_of::<T>())
                    .ok_or(Error::OutOfMemory { bytes: u64::MAX })?;
                // Zeroed bytes are a valid value of every element type.
                HostMemory::Pinned(PinnedBlock::new(ctx, bytes, false)?, PhantomData)
            }
        };
        Ok(HostBuffer {
            device: device.clone(),
            len,
            memory,
            tracker: Tracker::default(),
        })
    }

    /// A buffer holding a copy of `data`.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// assert_eq!(sdfg_runtime::HostBuffer::from_slice(&dev, &[true])?.as_slice(), [true]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn from_slice(device: &Device, data: &[T]) -> Result<Self> {
        let mut buffer = Self::new(device, data.len())?;
        buffer.as_mut_slice().copy_from_slice(data);
        Ok(buffer)
    }

    /// Number of elements.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// assert_eq!(sdfg_runtime::HostBuffer::<u64>::new(&dev, 4)?.len(), 4);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// `len() == 0`.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// assert!(sdfg_runtime::HostBuffer::<u64>::new(&dev, 0)?.is_empty());
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device whose streams may copy into this buffer.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// assert_eq!(sdfg_runtime::HostBuffer::<u64>::new(&dev, 1)?.device(), &dev);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The contents, after any device copy still writing them (counted wait).
    ///
    /// # Panics
    /// Only if the CUDA driver fails while waiting for such a copy (the
    /// context is then unusable, and the memory may still be written).
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// assert_eq!(sdfg_runtime::HostBuffer::from_slice(&dev, &[1, 2])?.as_slice(), [1, 2]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn as_slice(&self) -> &[T] {
        self.wait_for_device(AccessKind::Read);
        // SAFETY: the memory holds `len` initialized `T`s (zeroed or written
        // with valid values) and lives as long as `self`. No device copy
        // writes it now (just waited), and none can start while this shared
        // borrow lives: writing copies need the buffer by value or `&mut`.
        unsafe { std::slice::from_raw_parts(self.memory.ptr(), self.len) }
    }

    /// The contents, mutable, after any device copy still using them.
    ///
    /// # Panics
    /// As [`HostBuffer::as_slice`].
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// let mut h = sdfg_runtime::HostBuffer::<i32>::new(&dev, 2)?;
    /// h.as_mut_slice().copy_from_slice(&[4, 5]);
    /// assert_eq!(h.as_slice(), [4, 5]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.wait_for_device(AccessKind::Write);
        // SAFETY: as in `as_slice`, and `&mut self` makes this the only
        // reference to the memory (jobs that share the allocation finished).
        unsafe { std::slice::from_raw_parts_mut(self.memory.ptr(), self.len) }
    }

    /// A copy of the contents.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// assert_eq!(sdfg_runtime::HostBuffer::from_slice(&dev, &[3])?.to_vec(), vec![3]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn to_vec(&self) -> Vec<T> {
        self.as_slice().to_vec()
    }

    fn wait_for_device(&self, kind: AccessKind) {
        if let Err(e) = self.tracker.host_wait(kind, self.device.order()) {
            panic!("waiting for a device copy into a host buffer failed: {e}");
        }
    }

    /// Reads the contents without waiting for device copies (racy).
    ///
    /// # Safety
    /// On a CUDA device the read races with DMA writes (volatile reads; the
    /// values may be stale or partially updated, each element is one of its
    /// old or new values). On the CPU device the reads are atomic and always
    /// sound.
    pub(crate) unsafe fn peek_racy(&self) -> Vec<T> {
        match &self.memory {
            // SAFETY: only cells are used; the worker writes through cells too.
            HostMemory::Heap(block) => unsafe { block.cells() }.iter().map(T::load).collect(),
            HostMemory::Pinned(block, _) => {
                let ptr = block.ptr as *const T;
                // SAFETY: in bounds and aligned; the race with the DMA engine
                // is the caller's explicit contract (see above).
                (0..self.len)
                    .map(|i| unsafe { std::ptr::read_volatile(ptr.add(i)) })
                    .collect()
            }
        }
    }

    pub(crate) fn tracker(&self) -> &Tracker {
        &self.tracker
    }

    pub(crate) fn memory(&self) -> &HostMemory<T> {
        &self.memory
    }
}

impl<T: Elem> Drop for HostBuffer<T> {
    fn drop(&mut self) {
        if let HostMemory::Pinned(..) = &self.memory {
            // Pinned memory is freed by us, not by the work that uses it:
            // wait first (leak if the wait fails), see `DeviceBuffer`'s drop.
            if self
                .tracker
                .host_wait(AccessKind::Write, self.device.order())
                .is_err()
            {
                let memory = std::mem::replace(
                    &mut self.memory,
                    HostMemory::Heap(Arc::new(HeapBlock::new(0).expect("empty"))),
                );
                std::mem::forget(memory);
            }
        }
    }
}
