//! A block's data while one phase of a block map runs on several threads
//! (the CPU device, when a launch has fewer block iterations than
//! threads): each thread-map iteration `q` touches only its own copy of
//! the block's register data, so the iterations can be split between
//! threads with no lock and no atomic.

use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// The elements of a block's register data (`copies` copies, one per
/// thread-map iteration), shared between the threads that run the
/// iterations of one thread map. `Copy`: each thread takes its own copy
/// of the view and indexes it like the vector it views (every index is
/// checked against the length).
///
/// ```
/// use sdfg_runtime::__glue::block::ThreadCopies;
/// use rayon::prelude::*;
/// let mut acc = vec![0.0f32; 4 * 8]; // 8 iterations, 4 elements each
/// // SAFETY: iteration q touches elements 4q..4q+4 only.
/// let view = unsafe { ThreadCopies::new(&mut acc) };
/// (0..8usize).into_par_iter().for_each(|q| {
///     let mut acc = view;
///     for e in 0..4 {
///         acc[q * 4 + e] = (q * 10 + e) as f32;
///     }
/// });
/// assert_eq!(acc[4 * 7 + 3], 73.0);
/// ```
pub struct ThreadCopies<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

impl<T> Clone for ThreadCopies<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ThreadCopies<'_, T> {}

// SAFETY: the view is a borrowed `&mut [T]` shared by the threads of one
// phase; `new`'s contract rules out two threads touching one element when
// one of them writes it, and `T: Send + Sync` may move between threads.
unsafe impl<T: Send + Sync> Send for ThreadCopies<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Sync for ThreadCopies<'_, T> {}

impl<'a, T> ThreadCopies<'a, T> {
    /// A view of `s`, exclusively borrowed while the view (and its copies)
    /// live.
    ///
    /// # Safety
    /// While any copy of the view lives, no two threads access one element
    /// when one of them writes it (generated code: iteration `q` of a thread
    /// map touches only copy `q`, elements `q * len .. (q + 1) * len` of
    /// every register datum, and each iteration runs on one thread).
    pub unsafe fn new(s: &'a mut [T]) -> ThreadCopies<'a, T> {
        ThreadCopies {
            ptr: s.as_mut_ptr(),
            len: s.len(),
            _borrow: PhantomData,
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// No elements?
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<T> Index<usize> for ThreadCopies<'_, T> {
    type Output = T;

    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        assert!(i < self.len, "register data index {i} out of {}", self.len);
        // SAFETY: in bounds (checked) and, by `new`'s contract, no other
        // thread writes element `i` while this thread reads it.
        unsafe { &*self.ptr.add(i) }
    }
}

impl<T> IndexMut<usize> for ThreadCopies<'_, T> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut T {
        assert!(i < self.len, "register data index {i} out of {}", self.len);
        // SAFETY: in bounds (checked) and, by `new`'s contract, no other
        // thread touches element `i` while this one writes it.
        unsafe { &mut *self.ptr.add(i) }
    }
}
