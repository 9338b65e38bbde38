//! Plain (non-atomic) access to the memory of a map from several threads.
//!
//! Atomic cells make any access pattern free of undefined behaviour, but the
//! compiler can neither vectorize nor combine their loads and stores. A map
//! whose iterations provably never share an element that one of them writes
//! (the code generator decides, `sdfg_compiler::codegen::cpu::access`)
//! reads and writes through a [`PlainView`] instead: plain loads and stores
//! through a raw pointer, the exclusivity argued where the view is made.

use crate::elem::Elem;
use std::marker::PhantomData;

/// `len` elements that the threads of one map read and write with plain
/// loads and stores. `Copy`, `Send` and `Sync`: every access is `unsafe`,
/// with the contract that no two threads touch one element at the same
/// time when one of them writes it.
///
/// ```
/// use sdfg_runtime::__glue::par::PlainView;
/// use rayon::prelude::*;
/// let mut x = vec![1.0f64; 1000];
/// let v = PlainView::new(&mut x);
/// (0..1000usize).into_par_iter().for_each(|i| {
///     // SAFETY: i < 1000, and iteration i alone touches element i.
///     unsafe { v.set(i, v.get(i) * i as f64) }
/// });
/// assert_eq!(x[999], 999.0);
/// ```
pub struct PlainView<'a, T> {
    slice: SharedSlice<'a, T>,
}

impl<T> Clone for PlainView<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for PlainView<'_, T> {}

/// A borrowed `&mut [T]` as a raw pointer and a length that the threads of
/// one map or one block team share: `Copy`, `Send` and `Sync`. It gives out
/// only raw element pointers; the views built on it ([`PlainView`],
/// `team::TeamData`) state and argue the contract that rules out data
/// races.
pub(crate) struct SharedSlice<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

impl<T> Clone for SharedSlice<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SharedSlice<'_, T> {}

// SAFETY: the slice is a borrowed `&mut [T]` shared between threads; it
// only hands out raw pointers, and every view that dereferences them does
// so in an `unsafe fn` (or behind an `unsafe` constructor) whose contract
// rules out data races. `T: Send + Sync` may be reached from any thread.
unsafe impl<T: Send + Sync> Send for SharedSlice<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Sync for SharedSlice<'_, T> {}

impl<'a, T> SharedSlice<'a, T> {
    /// The slice of `s`, exclusively borrowed while the slice and its
    /// copies live.
    pub(crate) fn new(s: &'a mut [T]) -> SharedSlice<'a, T> {
        SharedSlice {
            ptr: s.as_mut_ptr(),
            len: s.len(),
            _borrow: PhantomData,
        }
    }

    /// The number of elements.
    #[inline(always)]
    pub(crate) fn len(self) -> usize {
        self.len
    }

    /// The address of element `i`.
    ///
    /// # Safety
    /// `i <= self.len()` (in or one past the borrowed slice, so the
    /// pointer arithmetic stays in bounds: `add`, which the optimizer may
    /// assume, and the compiler vectorize on).
    #[inline(always)]
    pub(crate) unsafe fn at(self, i: usize) -> *mut T {
        // SAFETY: in or one past the borrowed slice, by the contract.
        unsafe { self.ptr.add(i) }
    }
}

impl<'a, T: Elem> PlainView<'a, T> {
    /// The view of an exclusively borrowed slice (a host container of a
    /// `cpu` map): nothing else reads or writes it while the view lives.
    pub fn new(s: &'a mut [T]) -> PlainView<'a, T> {
        PlainView {
            slice: SharedSlice::new(s),
        }
    }

    /// The view of device memory held as cells (the CPU device).
    ///
    /// # Safety
    /// For `'a`, nothing accesses the cells except through this view (and
    /// its copies).
    pub(crate) unsafe fn from_cells(cells: &'a [T::Cell]) -> PlainView<'a, T> {
        #[allow(clippy::let_unit_value)]
        let () = T::SAME_LAYOUT;
        PlainView {
            slice: SharedSlice {
                // A pointer derived from `&[T::Cell]` may write: the cells
                // are `UnsafeCell`s, and `T` has their layout (asserted
                // above).
                ptr: cells.as_ptr() as *mut T,
                len: cells.len(),
                _borrow: PhantomData,
            },
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.slice.len()
    }

    /// No elements?
    pub fn is_empty(&self) -> bool {
        self.slice.len() == 0
    }

    /// Element `i`.
    ///
    /// # Safety
    /// `i < self.len()`, and no other thread writes element `i` meanwhile.
    #[inline(always)]
    pub unsafe fn get(self, i: usize) -> T {
        debug_assert!(i < self.slice.len());
        // SAFETY: in bounds and race free by the contract.
        unsafe { self.slice.at(i).read() }
    }

    /// Writes element `i`.
    ///
    /// # Safety
    /// `i < self.len()`, and no other thread reads or writes element `i`
    /// meanwhile.
    #[inline(always)]
    pub unsafe fn set(self, i: usize, v: T) {
        debug_assert!(i < self.slice.len());
        // SAFETY: in bounds and race free by the contract.
        unsafe { self.slice.at(i).write(v) }
    }
}

/// Panics unless a row-major array of `extents` fits in `len` elements: the
/// one check behind the generated code's unchecked offsets (an in-range
/// index in every dimension is then an offset below `len`).
///
/// ```
/// sdfg_runtime::__glue::par::assert_covers("X", 12, &[3, 4]);
/// let r = std::panic::catch_unwind(|| sdfg_runtime::__glue::par::assert_covers("X", 11, &[3, 4]));
/// assert!(r.is_err());
/// ```
#[inline]
pub fn assert_covers(container: &str, len: usize, extents: &[usize]) {
    let elements = extents
        .iter()
        .try_fold(1usize, |acc, &e| acc.checked_mul(e));
    assert!(
        elements.is_some_and(|n| n <= len),
        "`{container}`: {len} elements hold no array of extents {extents:?}"
    );
}
