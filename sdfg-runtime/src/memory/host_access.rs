//! Host reads and writes: the traits that a `Pending` deliberately lacks.

use crate::elem::Elem;
use crate::memory::host_buffer::HostBuffer;

/// Data that is readable on the host now. `Pending` values do not implement
/// it: they must be `.wait()`ed first, so a read before the sync is a
/// compile error.
///
/// ```
/// use sdfg_runtime::{host_read, Device, HostBuffer};
/// let dev = Device::cpu();
/// let h = HostBuffer::from_slice(&dev, &[1, 2])?;
/// assert_eq!(host_read(&h), [1, 2]);
/// assert_eq!(host_read(&vec![3]), [3]);
/// # Ok::<(), sdfg_runtime::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not readable on the host yet",
    label = "this data may still be in flight on a GPU stream",
    note = "call `.wait()` on it first; in an `sdfg!` with `#[sync(manual)]`, add `wait NAME;` to the state before this read"
)]
pub trait HostRead {
    /// The element type.
    type Elem: Elem;
    /// The data as a slice.
    ///
    /// ```
    /// use sdfg_runtime::HostRead;
    /// assert_eq!(vec![1u64, 2].host_slice(), [1, 2]);
    /// ```
    fn host_slice(&self) -> &[Self::Elem];

    /// The data as a `HostBuffer`, if it is one: uploads from it are then
    /// direct (DMA from pinned memory, ordered by its tracker) instead of
    /// staged. Not meant to be overridden elsewhere.
    #[doc(hidden)]
    fn as_host_buffer(&self) -> Option<&HostBuffer<Self::Elem>> {
        None
    }
}

/// Data that is writable on the host now.
///
/// ```
/// use sdfg_runtime::host_write;
/// let mut v = vec![0u32; 2];
/// host_write(&mut v)[1] = 5;
/// assert_eq!(v, [0, 5]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not writable on the host yet",
    label = "this data may still be in flight on a GPU stream",
    note = "call `.wait()` on it first; in an `sdfg!` with `#[sync(manual)]`, add `wait NAME;` to the state before this write"
)]
pub trait HostWrite: HostRead {
    /// The data as a mutable slice.
    ///
    /// ```
    /// use sdfg_runtime::HostWrite;
    /// let mut v = vec![1i32];
    /// v.host_slice_mut()[0] = 2;
    /// assert_eq!(v, [2]);
    /// ```
    fn host_slice_mut(&mut self) -> &mut [Self::Elem];
}

impl<T: Elem> HostRead for [T] {
    type Elem = T;
    fn host_slice(&self) -> &[T] {
        self
    }
}

impl<T: Elem> HostWrite for [T] {
    fn host_slice_mut(&mut self) -> &mut [T] {
        self
    }
}

impl<T: Elem> HostRead for Vec<T> {
    type Elem = T;
    fn host_slice(&self) -> &[T] {
        self
    }
}

impl<T: Elem> HostWrite for Vec<T> {
    fn host_slice_mut(&mut self) -> &mut [T] {
        self
    }
}

impl<T: Elem> HostRead for HostBuffer<T> {
    type Elem = T;
    fn host_slice(&self) -> &[T] {
        self.as_slice()
    }
    fn as_host_buffer(&self) -> Option<&HostBuffer<T>> {
        Some(self)
    }
}

impl<T: Elem> HostWrite for HostBuffer<T> {
    fn host_slice_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<H: HostRead + ?Sized> HostRead for &H {
    type Elem = H::Elem;
    fn host_slice(&self) -> &[H::Elem] {
        (**self).host_slice()
    }
    fn as_host_buffer(&self) -> Option<&HostBuffer<H::Elem>> {
        (**self).as_host_buffer()
    }
}

impl<H: HostRead + ?Sized> HostRead for &mut H {
    type Elem = H::Elem;
    fn host_slice(&self) -> &[H::Elem] {
        (**self).host_slice()
    }
    fn as_host_buffer(&self) -> Option<&HostBuffer<H::Elem>> {
        (**self).as_host_buffer()
    }
}

impl<H: HostWrite + ?Sized> HostWrite for &mut H {
    fn host_slice_mut(&mut self) -> &mut [H::Elem] {
        (**self).host_slice_mut()
    }
}

/// Reads host data (anything [`HostRead`]).
///
/// ```
/// assert_eq!(sdfg_runtime::host_read(&[1.0f64][..]), [1.0]);
/// ```
pub fn host_read<H: HostRead + ?Sized>(h: &H) -> &[H::Elem] {
    h.host_slice()
}

/// Writes host data (anything [`HostWrite`]).
///
/// ```
/// let mut a = [false; 2];
/// sdfg_runtime::host_write(&mut a[..])[0] = true;
/// assert_eq!(a, [true, false]);
/// ```
pub fn host_write<H: HostWrite + ?Sized>(h: &mut H) -> &mut [H::Elem] {
    h.host_slice_mut()
}
