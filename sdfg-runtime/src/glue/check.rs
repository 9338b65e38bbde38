//! Argument and bounds checks used by the glue the `sdfg!` macro generates.
//!
//! They run before the work they guard: argument lengths against symbolic
//! shapes at the start of a call, map ranges and prechecked index ranges at
//! the start of each state (see `sdfg_compiler::ir::bounds` for which
//! accesses are prechecked; [`super::interval`] computes their ranges).
//! Every failure is an [`Error`] naming the container and the sizes;
//! nothing here panics.

pub use super::interval::Interval;
use crate::__glue::spec::AccessSite;
use crate::device::Device;
use crate::elem::Elem;
use crate::error::{describe_access, Error};
use crate::memory::device_buffer::DeviceBuffer;
use crate::memory::host_buffer::HostBuffer;
use crate::region::Region;
use std::sync::atomic::{AtomicI64, AtomicU32, Ordering};

/// An integer usable as an index: converts to an in-bounds `usize` or None.
pub trait IndexValue: Copy {
    /// `Some(self)` as a `usize` when `0 <= self < extent`.
    fn checked_index(self, extent: usize) -> Option<usize>;
}

macro_rules! index_value {
    ($($t:ty),*) => {$(
        impl IndexValue for $t {
            #[inline(always)]
            fn checked_index(self, extent: usize) -> Option<usize> {
                // Negative values fail the conversion; large ones the comparison.
                usize::try_from(self).ok().filter(|&i| i < extent)
            }
        }
    )*};
}
index_value!(i32, i64, u32, u64, usize);

/// `Some(i)` when `0 <= i < extent`.
#[inline(always)]
pub fn index<I: IndexValue>(i: I, extent: usize) -> Option<usize> {
    i.checked_index(extent)
}

/// The number of elements of a shape whose dimensions are symbolic values.
pub fn shape_len(container: &str, dims: &[i128]) -> Result<usize, Error> {
    let mut n: usize = 1;
    for (d, &v) in dims.iter().enumerate() {
        let v = usize::try_from(v).map_err(|_| {
            Error::InvalidArgument(format!(
                "dimension {d} of `{container}` is {v}, which is not a valid length"
            ))
        })?;
        n = n.checked_mul(v).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "the shape of `{container}` has more elements than fit in memory"
            ))
        })?;
    }
    Ok(n)
}

/// The dimensions of a shape as `usize`s (after [`shape_len`] succeeded).
pub fn extents<const N: usize>(dims: [i128; N]) -> [usize; N] {
    dims.map(|d| usize::try_from(d).unwrap_or(0))
}

/// A host argument's length must match its declared shape.
pub fn host_len(container: &str, actual: usize, expected: usize) -> Result<(), Error> {
    if actual == expected {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            name: container.to_string(),
            expected,
            actual,
        })
    }
}

/// A GPU argument must live on the program's device and match its shape.
pub fn device_buffer<T: Elem>(
    container: &str,
    buffer: &DeviceBuffer<T>,
    device: &Device,
    expected: usize,
) -> Result<(), Error> {
    if buffer.device() != device {
        return Err(Error::WrongDevice {
            what: format!(
                "`{container}` was allocated on {}, the program runs on {}",
                buffer.device().name(),
                device.name()
            ),
        });
    }
    if buffer.len() != expected {
        return Err(Error::LengthMismatch {
            name: container.to_string(),
            expected,
            actual: buffer.len(),
        });
    }
    Ok(())
}

/// A pinned argument must live on the program's device (its memory is
/// page-locked for that device's copies) and match its shape.
pub fn host_buffer<T: Elem>(
    container: &str,
    buffer: &HostBuffer<T>,
    device: &Device,
    expected: usize,
) -> Result<(), Error> {
    if buffer.device() != device {
        return Err(Error::WrongDevice {
            what: format!(
                "`{container}` (a pinned host buffer) was allocated for {}, the program runs on {}",
                buffer.device().name(),
                device.name()
            ),
        });
    }
    host_len(container, buffer.len(), expected)
}

/// Iterations of `start..end` by `step`, or an error naming the map parameter.
pub fn range_count(what: &str, start: i128, end: i128, step: i128) -> Result<u64, Error> {
    if step <= 0 {
        return Err(Error::InvalidArgument(format!(
            "{what} has step {step}; a map step must be positive"
        )));
    }
    if end <= start {
        return Ok(0);
    }
    let n = (end - start + step - 1) / step;
    u64::try_from(n)
        .map_err(|_| Error::InvalidArgument(format!("{what} has {n} iterations, too many to run")))
}

/// A dimension of a nested call's binding spans what its callee declares
/// (`sdfg_compiler::ir::ExtentCheck`): the compiler proved the two equal
/// unless some value wraps around its integer type, such as a symbol
/// `M: i32` that takes an extent above `i32::MAX`.
pub fn binding_extent(what: &str, declared: i128, bound: i128) -> Result<(), Error> {
    if declared == bound {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "{what} is {declared} in the callee, but the binding spans {bound}: \
         a value wraps around its integer type there; declare the callee's \
         symbol with a type that holds the extent (`i64`)"
    )))
}

/// The product of a map's iteration counts, as a `usize` loop bound.
pub fn total_iterations(what: &str, counts: &[u64]) -> Result<usize, Error> {
    counts
        .iter()
        .try_fold(1usize, |acc, &c| acc.checked_mul(usize::try_from(c).ok()?))
        .ok_or_else(|| {
            Error::InvalidArgument(format!("{what} has more iterations than fit in usize"))
        })
}

/// A prechecked index must stay inside its dimension for every iteration.
pub fn index_in_dim(
    range: Interval,
    extent: usize,
    what: &dyn Fn() -> String,
) -> Result<(), Error> {
    if range.lo >= 0 && range.hi < extent as i128 {
        Ok(())
    } else {
        Err(Error::OutOfBounds {
            what: format!(
                "{} takes values {}..={}, outside 0..{}",
                what(),
                range.lo,
                range.hi,
                extent
            ),
        })
    }
}

/// The row-major offset of an access whose indices are `indices` (each
/// widened to 64 bits by its type's signedness) in `extents`, in wrapping
/// 64-bit arithmetic: what a kernel records in its fault slot, so host
/// code, CPU twins and PTX kernels report the same number.
///
/// ```
/// use sdfg_runtime::__glue::check::flat_index;
/// assert_eq!(flat_index(&[16], &[10]), 16);
/// assert_eq!(flat_index(&[2, -1], &[3, 4]), 7);
/// ```
pub fn flat_index(indices: &[i64], extents: &[usize]) -> i64 {
    let mut flat = 0i64;
    for (d, &i) in indices.iter().enumerate() {
        let extent = extents.get(d).copied().unwrap_or(1) as i64;
        flat = if d == 0 {
            i
        } else {
            flat.wrapping_mul(extent).wrapping_add(i)
        };
    }
    flat
}

/// Records the first out-of-bounds access of host code or of a CPU twin
/// (a `cpu` map's threads share one): its access code and index.
#[derive(Debug, Default)]
pub struct Fault {
    code: AtomicU32,
    index: AtomicI64,
}

impl Fault {
    /// No fault yet.
    pub fn new() -> Fault {
        Fault::default()
    }

    /// Records access `code` (from 1) at row-major `index` unless an
    /// earlier fault is recorded.
    ///
    /// ```
    /// let f = sdfg_runtime::__glue::check::Fault::new();
    /// f.raise(2, 16);
    /// f.raise(1, 3);
    /// assert_eq!(f.first(), Some((2, 16)));
    /// ```
    #[inline]
    pub fn raise(&self, code: u32, index: i64) {
        // Relaxed: readers look after the threads that raise were joined.
        if self
            .code
            .compare_exchange(0, code, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
        {
            self.index.store(index, Ordering::Relaxed);
        }
    }

    /// The first fault's access code and index, if any.
    pub fn first(&self) -> Option<(u32, i64)> {
        match self.code.load(Ordering::Relaxed) {
            0 => None,
            code => Some((code, self.index.load(Ordering::Relaxed))),
        }
    }

    /// `Err` naming the access when one was out of bounds. `accesses[code - 1]`
    /// describes access `code`.
    ///
    /// ```
    /// use sdfg_runtime::__glue::{check::Fault, AccessSite};
    /// let f = Fault::new();
    /// f.raise(1, -1);
    /// let e = f.check("map `m` in state `s`", &[AccessSite { container: "A", write: false, rank: 1 }]);
    /// assert_eq!(
    ///     e.unwrap_err().to_string(),
    ///     "out of bounds: map `m` in state `s`: the read of `A` at index -1 was out of bounds"
    /// );
    /// ```
    pub fn check(&self, statement: &str, accesses: &[AccessSite]) -> Result<(), Error> {
        let Some((code, index)) = self.first() else {
            return Ok(());
        };
        let access = match accesses.get((code as usize).wrapping_sub(1)) {
            Some(a) => describe_access(a.write, a.container, a.rank, Some(index)),
            None => format!("an access at index {index}"),
        };
        Err(Error::OutOfBounds {
            what: format!("{statement}: {access} was out of bounds"),
        })
    }
}

/// One side of a copy: a subset of a row-major container, each dimension a
/// `start..end` (an index `i` is `i..i + 1`).
pub struct CopySide<'a> {
    /// The container's name, for messages.
    pub container: &'a str,
    /// `start..end` per dimension.
    pub dims: &'a [(i128, i128)],
    /// The container's dimensions.
    pub extents: &'a [usize],
}

impl CopySide<'_> {
    fn region(&self) -> Result<(Region, Vec<usize>), Error> {
        if self.dims.len() != self.extents.len() {
            return Err(Error::InvalidArgument(format!(
                "copy subset of `{}` has {} dimensions, the container {}",
                self.container,
                self.dims.len(),
                self.extents.len()
            )));
        }
        let mut strides = vec![1usize; self.extents.len()];
        for d in (0..self.extents.len().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * self.extents[d + 1];
        }
        let mut offset = 0usize;
        let mut dims = Vec::new();
        let mut shape = Vec::new();
        for (d, &(start, end)) in self.dims.iter().enumerate() {
            if start < 0 || end > self.extents[d] as i128 || end < start {
                return Err(Error::OutOfBounds {
                    what: format!(
                        "copy subset {start}..{end} of dimension {d} of `{}` is outside 0..{}",
                        self.container, self.extents[d]
                    ),
                });
            }
            offset += start as usize * strides[d];
            let extent = (end - start) as usize;
            dims.push((extent, strides[d]));
            if extent != 1 {
                shape.push(extent);
            }
        }
        if dims.is_empty() {
            dims.push((1, 1));
        }
        Ok((Region::new(offset, dims), shape))
    }
}

/// The regions of a copy: each side within its container, and the same
/// elements on both sides once unit dimensions are dropped
/// (`A[i, 0..N] -> row[0..N]` is fine).
pub fn copy_regions(src: CopySide<'_>, dst: CopySide<'_>) -> Result<(Region, Region), Error> {
    let (src_region, src_shape) = src.region()?;
    let (dst_region, dst_shape) = dst.region()?;
    if src_shape != dst_shape {
        return Err(Error::InvalidArgument(format!(
            "copy from `{}` to `{}` moves a {:?} block into a {:?} block",
            src.container, dst.container, src_shape, dst_shape
        )));
    }
    Ok((src_region, dst_region))
}

/// A host-to-host copy between two regions of plain slices.
pub fn host_copy<T: Copy>(
    src: &[T],
    src_region: &Region,
    dst: &mut [T],
    dst_region: &Region,
) -> Result<(), Error> {
    let from = region_offsets(src_region, src.len())?;
    let to = region_offsets(dst_region, dst.len())?;
    for (a, b) in from.into_iter().zip(to) {
        dst[b] = src[a];
    }
    Ok(())
}

/// A copy between two regions of one host container.
pub fn host_copy_within<T: Copy>(data: &mut [T], src: &Region, dst: &Region) -> Result<(), Error> {
    let from = region_offsets(src, data.len())?;
    let to = region_offsets(dst, data.len())?;
    let values: Vec<T> = from.into_iter().map(|i| data[i]).collect();
    for (v, i) in values.into_iter().zip(to) {
        data[i] = v;
    }
    Ok(())
}

/// Every element offset of a region in row-major order, each checked against `len`.
fn region_offsets(r: &Region, len: usize) -> Result<Vec<usize>, Error> {
    let mut out = vec![r.offset];
    for &(extent, stride) in &r.dims {
        let mut next = Vec::with_capacity(out.len() * extent);
        for &base in &out {
            for k in 0..extent {
                next.push(base + k * stride);
            }
        }
        out = next;
    }
    if out.iter().any(|&i| i >= len) {
        return Err(Error::OutOfBounds {
            what: format!("copy region reaches past the end ({len} elements)"),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_rejects_negative_and_large() {
        assert_eq!(index(-1i32, 4), None);
        assert_eq!(index(4u64, 4), None);
        assert_eq!(index(3i64, 4), Some(3));
        assert_eq!(index(u64::MAX, usize::MAX), None);
    }

    #[test]
    fn range_count_rounds_up_and_rejects_bad_steps() {
        assert_eq!(range_count("m", 0, 10, 3).unwrap(), 4);
        assert_eq!(range_count("m", 5, 5, 1).unwrap(), 0);
        assert_eq!(range_count("m", 5, 1, 1).unwrap(), 0);
        assert!(range_count("m", 0, 10, 0).is_err());
    }

    #[test]
    fn binding_extents_must_match_the_callee() {
        assert!(binding_extent("dimension 0 of `S`", 300, 300).is_ok());
        let e = binding_extent("dimension 0 of `S`", 44, 300).unwrap_err();
        assert!(
            e.to_string()
                .contains("dimension 0 of `S` is 44 in the callee, but the binding spans 300"),
            "{e}"
        );
    }

    #[test]
    fn index_ranges_are_checked_against_the_dimension() {
        let r = Interval { lo: 2, hi: 2799 };
        assert!(index_in_dim(r, 2800, &|| "j + 1".into()).is_ok());
        let past = index_in_dim(Interval { lo: 3, hi: 2800 }, 2800, &|| "j + 2".into());
        assert!(past
            .unwrap_err()
            .to_string()
            .contains("j + 2 takes values 3..=2800"));
        assert!(index_in_dim(Interval { lo: -1, hi: 0 }, 2800, &|| "j - 1".into()).is_err());
    }

    #[test]
    fn copy_regions_check_bounds_and_shapes() {
        let ext = [4usize, 8];
        let ok = copy_regions(
            CopySide {
                container: "A",
                dims: &[(1, 2), (0, 8)],
                extents: &ext,
            },
            CopySide {
                container: "row",
                dims: &[(0, 8)],
                extents: &[8],
            },
        );
        let (s, d) = ok.unwrap();
        assert_eq!(s.offset, 8);
        assert_eq!(d.offset, 0);
        assert!(copy_regions(
            CopySide {
                container: "A",
                dims: &[(0, 1), (3, 9)],
                extents: &ext
            },
            CopySide {
                container: "row",
                dims: &[(0, 6)],
                extents: &[8]
            },
        )
        .is_err());
        assert!(copy_regions(
            CopySide {
                container: "A",
                dims: &[(0, 2), (0, 2)],
                extents: &ext
            },
            CopySide {
                container: "row",
                dims: &[(0, 4)],
                extents: &[8]
            },
        )
        .is_err());
    }

    #[test]
    fn host_copies_move_the_right_elements() {
        let src: Vec<i32> = (0..16).collect();
        let mut dst = vec![0; 4];
        let (s, d) = copy_regions(
            CopySide {
                container: "A",
                dims: &[(1, 3), (2, 4)],
                extents: &[4, 4],
            },
            CopySide {
                container: "B",
                dims: &[(0, 2), (0, 2)],
                extents: &[2, 2],
            },
        )
        .unwrap();
        host_copy(&src, &s, &mut dst, &d).unwrap();
        assert_eq!(dst, vec![6, 7, 10, 11]);
        let mut one: Vec<i32> = (0..8).collect();
        let (s, d) = copy_regions(
            CopySide {
                container: "A",
                dims: &[(0, 4)],
                extents: &[8],
            },
            CopySide {
                container: "A",
                dims: &[(2, 6)],
                extents: &[8],
            },
        )
        .unwrap();
        host_copy_within(&mut one, &s, &d).unwrap();
        assert_eq!(one, vec![0, 1, 0, 1, 2, 3, 6, 7]);
    }
}
