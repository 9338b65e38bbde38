//! Element types of containers and their atomic cells.
//!
//! Every element type `T` has a [`Elem::Cell`] of identical size and
//! alignment that can be written through a shared reference. Generated `cpu`
//! maps write host slices through [`cells`], so a racy user map (`X[0] = i`
//! in parallel) is a benign race on atomics, never undefined behaviour.

use num_complex::Complex;
use std::fmt::Debug;
use std::sync::atomic::{
    AtomicBool, AtomicI16, AtomicI32, AtomicI64, AtomicI8, AtomicU16, AtomicU32, AtomicU64,
    AtomicU8, Ordering::Relaxed,
};

mod sealed {
    pub trait Sealed {}
}

/// The element type of a container, as a value.
///
/// ```
/// use sdfg_runtime::{Elem, ElemType};
/// assert_eq!(<f64 as Elem>::TYPE, ElemType::F64);
/// assert_eq!(ElemType::Bool.size_bytes(), 1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElemType {
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `u8`
    U8,
    /// `u16`
    U16,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `u32`
    U32,
    /// `u64`
    U64,
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `f16`: `half::f16`
    F16,
    /// `bf16`: `half::bf16`
    BF16,
    /// `bool` (one byte, 0 or 1; also as a kernel parameter)
    Bool,
    /// `c32`: `num_complex::Complex<f32>` (re, im)
    C32,
    /// `c64`: `num_complex::Complex<f64>` (re, im)
    C64,
}

impl ElemType {
    /// Size of one element in bytes (also the size of a scalar kernel parameter).
    ///
    /// ```
    /// assert_eq!(sdfg_runtime::ElemType::I64.size_bytes(), 8);
    /// ```
    pub const fn size_bytes(self) -> usize {
        match self {
            ElemType::I8 | ElemType::U8 | ElemType::Bool => 1,
            ElemType::I16 | ElemType::U16 | ElemType::F16 | ElemType::BF16 => 2,
            ElemType::I32 | ElemType::U32 | ElemType::F32 => 4,
            ElemType::I64 | ElemType::U64 | ElemType::F64 | ElemType::C32 => 8,
            ElemType::C64 => 16,
        }
    }

    /// The Rust name of the type (`"f32"`, ...).
    ///
    /// ```
    /// assert_eq!(sdfg_runtime::ElemType::U32.rust_name(), "u32");
    /// ```
    pub const fn rust_name(self) -> &'static str {
        match self {
            ElemType::I8 => "i8",
            ElemType::I16 => "i16",
            ElemType::U8 => "u8",
            ElemType::U16 => "u16",
            ElemType::I32 => "i32",
            ElemType::I64 => "i64",
            ElemType::U32 => "u32",
            ElemType::U64 => "u64",
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
            ElemType::F16 => "f16",
            ElemType::BF16 => "bf16",
            ElemType::Bool => "bool",
            ElemType::C32 => "c32",
            ElemType::C64 => "c64",
        }
    }
}

impl std::fmt::Display for ElemType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.rust_name())
    }
}

/// An element type of a container: `i8 i16 i32 i64 u8 u16 u32 u64 f32 f64
/// bool`, the 16-bit floats `half::f16` and `half::bf16`, and the complex `c32` and `c64` (`num_complex::Complex<f32>`,
/// `Complex<f64>`) (sealed).
///
/// ```
/// use sdfg_runtime::Elem;
/// let cell = <i32 as Elem>::Cell::default();
/// i32::store(&cell, 7);
/// assert_eq!(i32::load(&cell), 7);
/// assert_eq!(<f32 as Elem>::from_bits(Elem::to_bits(1.5f32)), 1.5);
/// ```
pub trait Elem:
    Copy + Send + Sync + Default + PartialEq + Debug + sealed::Sealed + 'static
{
    /// The type as a value.
    const TYPE: ElemType;
    /// An atomic cell with the same size and alignment as `Self`.
    type Cell: Send + Sync + Default + 'static;
    /// Compile-time proof that `Self` and `Self::Cell` have the same layout;
    /// evaluated wherever slices are reinterpreted.
    #[doc(hidden)]
    const SAME_LAYOUT: () = assert!(
        std::mem::size_of::<Self>() == std::mem::size_of::<Self::Cell>()
            && std::mem::align_of::<Self>() == std::mem::align_of::<Self::Cell>()
    );
    /// Loads the value (Relaxed).
    fn load(cell: &Self::Cell) -> Self;
    /// Stores a value (Relaxed).
    fn store(cell: &Self::Cell, v: Self);
    /// The value's bits as in memory (little-endian), zero-extended to 128
    /// bits (bool: 0 or 1; complex: re in the low half).
    fn to_bits(self) -> u128;
    /// The inverse of [`Elem::to_bits`] (extra high bits are ignored; bool: nonzero is true).
    fn from_bits(bits: u128) -> Self;
}

/// Element types that `+=` reductions take (every numeric type and the
/// complex ones, which add part by part).
///
/// ```
/// use num_complex::Complex;
/// use sdfg_runtime::{Elem, SumElem};
/// let cell = <Complex<f64> as Elem>::Cell::default();
/// Complex::<f64>::reduce_sum(&cell, Complex::new(1.5, -1.0));
/// Complex::<f64>::reduce_sum(&cell, Complex::new(2.0, 0.5));
/// assert_eq!(Complex::<f64>::load(&cell), Complex::new(3.5, -0.5));
/// ```
pub trait SumElem: Elem {
    /// `*cell += v`, atomically (complex values: each part atomically).
    fn reduce_sum(cell: &Self::Cell, v: Self);
}

/// Numeric element types (all but `bool` and the complex ones): atomic
/// write-conflict resolution.
///
/// Integers wrap on overflow; float `min`/`max` are [`MinMaxNumber`]'s.
///
/// ```
/// use sdfg_runtime::{Elem, NumElem, SumElem};
/// let cell = <f64 as Elem>::Cell::default();
/// f64::reduce_sum(&cell, 1.5);
/// f64::reduce_sum(&cell, 2.0);
/// f64::reduce_max(&cell, f64::NAN);
/// assert_eq!(f64::load(&cell), 3.5);
/// ```
pub trait NumElem: SumElem {
    /// `*cell *= v`, atomically.
    fn reduce_product(cell: &Self::Cell, v: Self);
    /// `*cell = min(*cell, v)`, atomically.
    fn reduce_min(cell: &Self::Cell, v: Self);
    /// `*cell = max(*cell, v)`, atomically.
    fn reduce_max(cell: &Self::Cell, v: Self);
}

macro_rules! int_elem {
    ($t:ty, $cell:ty, $variant:ident, $unsigned:ty) => {
        impl sealed::Sealed for $t {}
        impl Elem for $t {
            const TYPE: ElemType = ElemType::$variant;
            type Cell = $cell;
            #[inline]
            fn load(cell: &$cell) -> $t {
                cell.load(Relaxed)
            }
            #[inline]
            fn store(cell: &$cell, v: $t) {
                cell.store(v, Relaxed)
            }
            #[inline]
            fn to_bits(self) -> u128 {
                self as $unsigned as u128
            }
            #[inline]
            fn from_bits(bits: u128) -> $t {
                bits as $unsigned as $t
            }
        }
        impl SumElem for $t {
            #[inline]
            fn reduce_sum(cell: &$cell, v: $t) {
                cell.fetch_add(v, Relaxed); // wraps on overflow
            }
        }
        impl NumElem for $t {
            #[inline]
            fn reduce_product(cell: &$cell, v: $t) {
                let _ = cell.fetch_update(Relaxed, Relaxed, |old| Some(old.wrapping_mul(v)));
            }
            #[inline]
            fn reduce_min(cell: &$cell, v: $t) {
                cell.fetch_min(v, Relaxed);
            }
            #[inline]
            fn reduce_max(cell: &$cell, v: $t) {
                cell.fetch_max(v, Relaxed);
            }
        }
    };
}

int_elem!(i8, AtomicI8, I8, u8);
int_elem!(i16, AtomicI16, I16, u16);
int_elem!(u8, AtomicU8, U8, u8);
int_elem!(u16, AtomicU16, U16, u16);
int_elem!(i32, AtomicI32, I32, u32);
int_elem!(i64, AtomicI64, I64, u64);
int_elem!(u32, AtomicU32, U32, u32);
int_elem!(u64, AtomicU64, U64, u64);

macro_rules! float_elem {
    ($t:ty, $cell:ty, $variant:ident, $bits:ty) => {
        impl sealed::Sealed for $t {}
        impl Elem for $t {
            const TYPE: ElemType = ElemType::$variant;
            type Cell = $cell;
            #[inline]
            fn load(cell: &$cell) -> $t {
                <$t>::from_bits(cell.load(Relaxed))
            }
            #[inline]
            fn store(cell: &$cell, v: $t) {
                cell.store(v.to_bits(), Relaxed)
            }
            #[inline]
            fn to_bits(self) -> u128 {
                <$t>::to_bits(self) as u128
            }
            #[inline]
            fn from_bits(bits: u128) -> $t {
                <$t>::from_bits(bits as $bits)
            }
        }
        impl SumElem for $t {
            #[inline]
            fn reduce_sum(cell: &$cell, v: $t) {
                update_float(cell, |old: $t| old + v);
            }
        }
        impl NumElem for $t {
            #[inline]
            fn reduce_product(cell: &$cell, v: $t) {
                update_float(cell, |old: $t| old * v);
            }
            #[inline]
            fn reduce_min(cell: &$cell, v: $t) {
                update_float(cell, |old: $t| MinMaxNumber::min_number(old, v));
            }
            #[inline]
            fn reduce_max(cell: &$cell, v: $t) {
                update_float(cell, |old: $t| MinMaxNumber::max_number(old, v));
            }
        }
    };
}

float_elem!(f32, AtomicU32, F32, u32);
float_elem!(f64, AtomicU64, F64, u64);
// `half`'s operators compute in f32 and round once, as kernels do.
float_elem!(half::f16, AtomicU16, F16, u16);
float_elem!(half::bf16, AtomicU16, BF16, u16);

/// A complex element: a pair of float cells (re, im), each atomic; a store
/// or `+=` updates the parts one after the other (a racing reader may see
/// one part updated: a torn value, never undefined behaviour).
macro_rules! complex_elem {
    ($part:ty, $cell:ty, $variant:ident, $half:expr) => {
        impl sealed::Sealed for Complex<$part> {}
        impl Elem for Complex<$part> {
            const TYPE: ElemType = ElemType::$variant;
            type Cell = [$cell; 2];
            #[inline]
            fn load(cell: &[$cell; 2]) -> Self {
                Complex::new(
                    <$part as Elem>::load(&cell[0]),
                    <$part as Elem>::load(&cell[1]),
                )
            }
            #[inline]
            fn store(cell: &[$cell; 2], v: Self) {
                <$part as Elem>::store(&cell[0], v.re);
                <$part as Elem>::store(&cell[1], v.im);
            }
            #[inline]
            fn to_bits(self) -> u128 {
                <$part as Elem>::to_bits(self.re) | <$part as Elem>::to_bits(self.im) << $half
            }
            #[inline]
            fn from_bits(bits: u128) -> Self {
                Complex::new(
                    <$part as Elem>::from_bits(bits),
                    <$part as Elem>::from_bits(bits >> $half),
                )
            }
        }
        impl SumElem for Complex<$part> {
            #[inline]
            fn reduce_sum(cell: &[$cell; 2], v: Self) {
                <$part as SumElem>::reduce_sum(&cell[0], v.re);
                <$part as SumElem>::reduce_sum(&cell[1], v.im);
            }
        }
    };
}

complex_elem!(f32, AtomicU32, C32, 32);
complex_elem!(f64, AtomicU64, C64, 64);

/// A compare-and-swap loop applying `f` to the float stored in `cell`.
#[inline]
fn update_float<T: Elem>(cell: &T::Cell, f: impl Fn(T) -> T)
where
    T::Cell: FloatBitsCell,
{
    let mut old_bits = cell.load_bits();
    loop {
        let new = f(T::from_bits(old_bits as u128));
        match cell.compare_exchange_bits(old_bits, new.to_bits() as u64) {
            Ok(()) => return,
            Err(actual) => old_bits = actual,
        }
    }
}

/// The bit-level CAS of the float cells (`AtomicU16`, `AtomicU32`, `AtomicU64`).
trait FloatBitsCell {
    fn load_bits(&self) -> u64;
    fn compare_exchange_bits(&self, old: u64, new: u64) -> Result<(), u64>;
}

impl FloatBitsCell for AtomicU16 {
    fn load_bits(&self) -> u64 {
        self.load(Relaxed) as u64
    }
    fn compare_exchange_bits(&self, old: u64, new: u64) -> Result<(), u64> {
        self.compare_exchange_weak(old as u16, new as u16, Relaxed, Relaxed)
            .map(|_| ())
            .map_err(|actual| actual as u64)
    }
}

impl FloatBitsCell for AtomicU32 {
    fn load_bits(&self) -> u64 {
        self.load(Relaxed) as u64
    }
    fn compare_exchange_bits(&self, old: u64, new: u64) -> Result<(), u64> {
        self.compare_exchange_weak(old as u32, new as u32, Relaxed, Relaxed)
            .map(|_| ())
            .map_err(|actual| actual as u64)
    }
}

impl FloatBitsCell for AtomicU64 {
    fn load_bits(&self) -> u64 {
        self.load(Relaxed)
    }
    fn compare_exchange_bits(&self, old: u64, new: u64) -> Result<(), u64> {
        self.compare_exchange_weak(old, new, Relaxed, Relaxed)
            .map(|_| ())
    }
}

impl sealed::Sealed for bool {}
impl Elem for bool {
    const TYPE: ElemType = ElemType::Bool;
    type Cell = AtomicBool;
    #[inline]
    fn load(cell: &AtomicBool) -> bool {
        cell.load(Relaxed)
    }
    #[inline]
    fn store(cell: &AtomicBool, v: bool) {
        cell.store(v, Relaxed)
    }
    #[inline]
    fn to_bits(self) -> u128 {
        self as u128
    }
    #[inline]
    fn from_bits(bits: u128) -> bool {
        bits != 0
    }
}

/// Views an exclusively borrowed slice as atomic cells, so that parallel code
/// may write it through shared references without undefined behaviour.
///
/// ```
/// use sdfg_runtime::Elem;
/// use sdfg_runtime::__glue::cells;
/// use rayon::prelude::*;
/// let mut x = vec![0i64; 4];
/// let c = cells(&mut x);
/// (0..1000i64).into_par_iter().for_each(|i| i64::store(&c[0], i)); // racy, but not UB
/// (0..4usize).into_par_iter().for_each(|i| i64::store(&c[i], i as i64 * 2));
/// assert_eq!(x, [0, 2, 4, 6]);
/// ```
pub fn cells<T: Elem>(s: &mut [T]) -> &[T::Cell] {
    // Forces the compile-time layout assertion for this `T`.
    #[allow(clippy::let_unit_value)]
    let () = T::SAME_LAYOUT;
    // SAFETY: `T::Cell` has the same size and alignment as `T` (asserted at
    // compile time just above), and every bit pattern that is a valid `T` is a
    // valid cell (the cells are the std atomics of exactly that primitive, or
    // an unsigned atomic holding a float's bits). The exclusive borrow of `s`
    // is turned into a shared borrow of the cells for the same lifetime, so
    // nothing else can read or write the memory as plain `T` meanwhile; all
    // accesses go through the atomics' interior mutability. Cells store only
    // valid `T` bit patterns (`store` takes a `T`), so `s` is valid afterwards.
    unsafe { std::slice::from_raw_parts(s.as_mut_ptr() as *const T::Cell, s.len()) }
}

/// Reinterprets a raw pointer to `len` `T`s as cells (used by the CPU device
/// for host memory written by stream workers).
///
/// # Safety
/// `ptr` must be valid for reads and writes of `len` `T`s for `'a`, and no
/// plain (non-atomic) reference to that memory may be used during `'a`.
pub(crate) unsafe fn cells_from_raw<'a, T: Elem>(ptr: *mut T, len: usize) -> &'a [T::Cell] {
    #[allow(clippy::let_unit_value)]
    let () = T::SAME_LAYOUT;
    // SAFETY: layout equality as in `cells`; validity and exclusivity are the
    // caller's contract.
    unsafe { std::slice::from_raw_parts(ptr as *const T::Cell, len) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    #[test]
    fn bits_round_trip() {
        assert_eq!(i32::from_bits((-5i32).to_bits()), -5);
        assert_eq!((-1i32).to_bits(), 0xffff_ffff);
        assert_eq!(i64::from_bits((-5i64).to_bits()), -5);
        assert_eq!(f32::from_bits(2.5f32.to_bits()), 2.5);
        assert!(bool::from_bits(true.to_bits()));
        assert!(!bool::from_bits(0));
    }

    #[test]
    fn int_sum_under_contention_is_exact() {
        let cell = <i64 as Elem>::Cell::default();
        (1..=1_000_000i64)
            .into_par_iter()
            .for_each(|i| i64::reduce_sum(&cell, i));
        assert_eq!(i64::load(&cell), 500_000_500_000);
        let cell = <u32 as Elem>::Cell::default();
        (1..=1_000_000u32)
            .into_par_iter()
            .for_each(|i| u32::reduce_sum(&cell, i));
        assert_eq!(u32::load(&cell), (500_000_500_000u64 % (1u64 << 32)) as u32);
    }

    #[test]
    fn float_sum_under_contention() {
        // Integers up to 2^53 are exact in f64, and so is the sum here.
        let cell = <f64 as Elem>::Cell::default();
        (1..=1_000_000i64)
            .into_par_iter()
            .for_each(|i| f64::reduce_sum(&cell, i as f64));
        assert_eq!(f64::load(&cell), 500_000_500_000.0);
    }

    #[test]
    fn min_max_product() {
        let c = <i32 as Elem>::Cell::default();
        (-500..500)
            .into_par_iter()
            .for_each(|i| i32::reduce_min(&c, i));
        assert_eq!(i32::load(&c), -500);
        (-500..500)
            .into_par_iter()
            .for_each(|i| i32::reduce_max(&c, i));
        assert_eq!(i32::load(&c), 499);
        let c = <u64 as Elem>::Cell::default();
        u64::store(&c, 1);
        (1..=20u64)
            .into_par_iter()
            .for_each(|i| u64::reduce_product(&c, i));
        assert_eq!(u64::load(&c), 2_432_902_008_176_640_000);
        let c = <f32 as Elem>::Cell::default();
        f32::store(&c, f32::NAN);
        f32::reduce_min(&c, 3.0);
        assert_eq!(f32::load(&c), 3.0);
        f32::reduce_min(&c, f32::NAN);
        assert_eq!(f32::load(&c), 3.0);
        f32::reduce_max(&c, 4.0);
        f32::reduce_product(&c, 0.5);
        assert_eq!(f32::load(&c), 2.0);
    }

    #[test]
    fn cells_write_through() {
        let mut v = vec![0u32; 1000];
        let c = cells(&mut v);
        (0..1000usize)
            .into_par_iter()
            .for_each(|i| u32::store(&c[i], i as u32));
        (0..1000usize)
            .into_par_iter()
            .for_each(|_| u32::reduce_sum(&c[0], 1));
        assert_eq!(v[0], 1000);
        assert_eq!(v[999], 999);
        let mut b = vec![false; 3];
        bool::store(&cells(&mut b)[1], true);
        assert_eq!(b, [false, true, false]);
    }
}

/// The language's `min` and `max`: for floats IEEE 754-2019 minimumNumber /
/// maximumNumber (a NaN operand is ignored, two NaNs give the canonical
/// `NAN`, and -0.0 < +0.0), which is what PTX `min`/`max` compute. Rust's `f64::min` leaves the sign of a zero
/// result unspecified, so the CPU side must not use it. For integers the
/// usual order.
///
/// ```
/// use sdfg_runtime::MinMaxNumber;
/// assert!(MinMaxNumber::max_number(-0.0f64, 0.0).is_sign_positive());
/// assert!(MinMaxNumber::min_number(0.0f32, -0.0).is_sign_negative());
/// assert_eq!(MinMaxNumber::min_number(f64::NAN, 2.0), 2.0);
/// assert_eq!(MinMaxNumber::max_number(3i64, -4), 3);
/// ```
pub trait MinMaxNumber: Copy {
    /// The smaller operand (see the trait).
    fn min_number(self, other: Self) -> Self;
    /// The larger operand (see the trait).
    fn max_number(self, other: Self) -> Self;
}

macro_rules! min_max_float {
    ($($t:ty),*) => {$(
        impl MinMaxNumber for $t {
            #[inline]
            fn min_number(self, other: $t) -> $t {
                if self.is_nan() && other.is_nan() {
                    <$t>::NAN
                } else if self.is_nan() || (self == other && self.is_sign_positive()) {
                    other
                } else if other.is_nan() || self < other {
                    self
                } else if self == other {
                    self
                } else {
                    other
                }
            }
            #[inline]
            fn max_number(self, other: $t) -> $t {
                if self.is_nan() && other.is_nan() {
                    <$t>::NAN
                } else if self.is_nan() || (self == other && self.is_sign_negative()) {
                    other
                } else if other.is_nan() || self > other {
                    self
                } else if self == other {
                    self
                } else {
                    other
                }
            }
        }
    )*};
}
min_max_float!(f32, f64, half::f16, half::bf16);

macro_rules! min_max_int {
    ($($t:ty),*) => {$(
        impl MinMaxNumber for $t {
            #[inline]
            fn min_number(self, other: $t) -> $t {
                Ord::min(self, other)
            }
            #[inline]
            fn max_number(self, other: $t) -> $t {
                Ord::max(self, other)
            }
        }
    )*};
}
min_max_int!(i8, i16, i32, i64, u8, u16, u32, u64);

#[cfg(test)]
mod min_max_tests {
    use super::MinMaxNumber;

    #[test]
    fn signed_zeros_and_nans_follow_ieee_2019() {
        for (a, b) in [(-0.0f64, 0.0), (0.0, -0.0)] {
            assert!(a.min_number(b).is_sign_negative());
            assert!(a.max_number(b).is_sign_positive());
        }
        assert_eq!(f64::NAN.max_number(1.0), 1.0);
        assert_eq!(1.0f64.min_number(f64::NAN), 1.0);
        assert!(f64::NAN.min_number(f64::NAN).is_nan());
        assert_eq!((-3.0f32).max_number(2.0), 2.0);
        assert_eq!(f64::NEG_INFINITY.min_number(0.0), f64::NEG_INFINITY);
    }
}
