//! Memory of the CPU device.

use crate::elem::{cells_from_raw, Elem};
use crate::error::{Error, Result};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Device memory of the CPU device: atomic cells, shared by the buffer and by
/// every queued job that uses it (so a job never outlives its memory).
pub(crate) struct CpuCells<T: Elem> {
    pub(crate) cells: Box<[T::Cell]>,
    /// The device's live-byte counter, decremented when the memory is freed.
    live_bytes: Arc<AtomicU64>,
}

impl<T: Elem> CpuCells<T> {
    /// Allocates `len` zeroed cells, refusing (not aborting) when the
    /// allocation does not fit in `capacity` or in the process's memory.
    pub(crate) fn zeroed(
        len: usize,
        live_bytes: &Arc<AtomicU64>,
        capacity: u64,
    ) -> Result<Arc<Self>> {
        let bytes = (len as u128) * (std::mem::size_of::<T>() as u128);
        let oom = Error::OutOfMemory {
            bytes: u64::try_from(bytes).unwrap_or(u64::MAX),
        };
        let bytes = u64::try_from(bytes).map_err(|_| oom.clone())?;
        // Reserve the bytes against the emulated card's capacity first.
        let reserved = live_bytes.fetch_add(bytes, Ordering::SeqCst);
        let release = || {
            live_bytes.fetch_sub(bytes, Ordering::SeqCst);
        };
        if reserved.saturating_add(bytes) > capacity {
            release();
            return Err(oom);
        }
        let mut cells: Vec<T::Cell> = Vec::new();
        if cells.try_reserve_exact(len).is_err() {
            release();
            return Err(oom);
        }
        cells.resize_with(len, Default::default);
        Ok(Arc::new(CpuCells {
            cells: cells.into_boxed_slice(),
            live_bytes: Arc::clone(live_bytes),
        }))
    }

    pub(crate) fn bytes(&self) -> u64 {
        (self.cells.len() * std::mem::size_of::<T>()) as u64
    }
}

impl<T: Elem> Drop for CpuCells<T> {
    fn drop(&mut self) {
        self.live_bytes.fetch_sub(self.bytes(), Ordering::SeqCst);
    }
}

/// Host memory of a `HostBuffer` on the CPU device: a plain heap allocation of
/// `T`, which stream workers write through atomic cells (see `HostBuffer`).
pub(crate) struct HeapBlock<T: Elem> {
    ptr: *mut T,
    len: usize,
}

// SAFETY: the block owns its allocation like a `Box<[T]>`; `T: Send + Sync`.
// Concurrent access is governed by the `HostBuffer` tracker (plain access) and
// by atomic cells (worker access), see `HostBuffer`.
unsafe impl<T: Elem> Send for HeapBlock<T> {}
// SAFETY: as above.
unsafe impl<T: Elem> Sync for HeapBlock<T> {}

impl<T: Elem> HeapBlock<T> {
    pub(crate) fn new(len: usize) -> Result<Self> {
        let mut v: Vec<T> = Vec::new();
        if v.try_reserve_exact(len).is_err() {
            return Err(Error::OutOfMemory {
                bytes: (len as u64).saturating_mul(std::mem::size_of::<T>() as u64),
            });
        }
        v.resize(len, T::default());
        let boxed = v.into_boxed_slice();
        let len = boxed.len();
        let ptr = Box::into_raw(boxed) as *mut T;
        Ok(HeapBlock { ptr, len })
    }

    pub(crate) fn ptr(&self) -> *mut T {
        self.ptr
    }

    /// The block as cells, for stream workers and racy peeks.
    ///
    /// # Safety
    /// No plain `&[T]`/`&mut [T]` to the block may be in use meanwhile.
    pub(crate) unsafe fn cells(&self) -> &[T::Cell] {
        // SAFETY: the block is valid for `len` elements while `self` lives;
        // exclusivity is the caller's contract.
        unsafe { cells_from_raw(self.ptr, self.len) }
    }
}

impl<T: Elem> Drop for HeapBlock<T> {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` came from `Box::into_raw` of a `Box<[T]>` of
        // exactly this length, and are freed only here.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.ptr, self.len)) });
    }
}
