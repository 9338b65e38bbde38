//! Regions of buffers and copy plans.

use crate::error::{Error, Result};

/// A strided region of a buffer, in elements: `offset` plus, per dimension
/// (outermost first), `(extent, stride)`. The innermost stride must be 1, and
/// rows may not interleave (each stride at least the span of the dimension
/// inside it), which every sub-block of a row-major array satisfies.
///
/// ```
/// use sdfg_runtime::Region;
/// // Rows 1..3, columns 2..5 of a 4 x 6 row-major matrix.
/// let block = Region::new(1 * 6 + 2, vec![(2, 6), (3, 1)]);
/// assert_eq!(block.count(), 6);
/// assert_eq!(Region::whole(10).count(), 10);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Region {
    /// Index of the first element.
    pub offset: usize,
    /// `(extent, stride)` per dimension, outermost first.
    pub dims: Vec<(usize, usize)>,
}

impl Region {
    /// All `len` elements of a buffer.
    ///
    /// ```
    /// assert_eq!(sdfg_runtime::Region::whole(5).dims, vec![(5, 1)]);
    /// ```
    pub fn whole(len: usize) -> Region {
        Region {
            offset: 0,
            dims: vec![(len, 1)],
        }
    }

    /// A region from its parts (checked when used).
    ///
    /// ```
    /// let r = sdfg_runtime::Region::new(3, vec![(2, 1)]);
    /// assert_eq!(r.count(), 2);
    /// ```
    pub fn new(offset: usize, dims: Vec<(usize, usize)>) -> Region {
        Region { offset, dims }
    }

    /// Number of elements (saturating; no dimensions means one element).
    ///
    /// ```
    /// assert_eq!(sdfg_runtime::Region::new(0, vec![]).count(), 1);
    /// ```
    pub fn count(&self) -> usize {
        self.dims
            .iter()
            .fold(1usize, |acc, &(e, _)| acc.saturating_mul(e))
    }

    /// Validates against a buffer of `len` elements named `name`; returns the
    /// region with extent-1 dimensions dropped and contiguous ones merged.
    fn normalized(&self, len: usize, name: &str) -> Result<Normal> {
        let dims: Vec<(usize, usize)> = if self.dims.is_empty() {
            vec![(1, 1)]
        } else {
            self.dims.clone()
        };
        if let Some(&(_, stride)) = dims.last() {
            if stride != 1 && dims.last().is_some_and(|&(e, _)| e > 1) {
                return Err(Error::InvalidArgument(format!(
                    "region of `{name}`: the innermost stride must be 1, got {stride}"
                )));
            }
        }
        let count = dims
            .iter()
            .try_fold(1usize, |acc, &(e, _)| acc.checked_mul(e));
        let Some(count) = count else {
            return Err(Error::OutOfBounds {
                what: format!("region of `{name}` has more elements than fit in memory"),
            });
        };
        // Rows must not interleave: stride_i >= span of dims i+1.. .
        let mut span_inside = 1usize; // elements covered by one index of the current dim
        for (i, &(extent, stride)) in dims.iter().enumerate().rev() {
            let is_inner = i + 1 == dims.len();
            if !is_inner && extent > 1 && stride < span_inside {
                return Err(Error::InvalidArgument(format!(
                    "region of `{name}`: dimension {i} has stride {stride}, smaller than the \
                     {span_inside} elements of one of its rows (rows would overlap)"
                )));
            }
            let this_span = if extent == 0 {
                0
            } else {
                (extent - 1)
                    .checked_mul(if is_inner { 1 } else { stride })
                    .and_then(|x| x.checked_add(span_inside))
                    .ok_or_else(|| Error::OutOfBounds {
                        what: format!("region of `{name}` spans more elements than fit in memory"),
                    })?
            };
            span_inside = this_span;
        }
        if count == 0 {
            if self.offset > len {
                return Err(Error::OutOfBounds {
                    what: format!(
                        "empty region of `{name}` starts at {}, past its {len} elements",
                        self.offset
                    ),
                });
            }
            return Ok(Normal {
                offset: self.offset,
                dims: vec![],
                count: 0,
            });
        }
        let end = self.offset.checked_add(span_inside);
        if end.is_none_or(|end| end > len) {
            return Err(Error::OutOfBounds {
                what: format!(
                    "region of `{name}` (offset {}, dims {:?}) reaches element {}, but `{name}` has {len} elements",
                    self.offset,
                    self.dims,
                    self.offset.saturating_add(span_inside).saturating_sub(1)
                ),
            });
        }
        // Drop extent-1 dims, then merge dims that are contiguous with their inner one.
        let mut out: Vec<(usize, usize)> = Vec::new();
        for (i, &(extent, stride)) in dims.iter().enumerate() {
            if extent == 1 {
                continue;
            }
            let stride = if i + 1 == dims.len() { 1 } else { stride };
            out.push((extent, stride));
        }
        // A dropped innermost dimension (e.g. a column of a matrix) leaves a
        // strided innermost one: runs are then single elements.
        if out.last().is_none_or(|&(_, stride)| stride != 1) {
            out.push((1, 1));
        }
        let mut merged: Vec<(usize, usize)> = Vec::new();
        for &(extent, stride) in out.iter().rev() {
            // walking inner -> outer
            if let Some(last) = merged.last_mut() {
                if stride == last.0 * last.1 {
                    last.0 *= extent;
                    continue;
                }
            }
            merged.push((extent, stride));
        }
        merged.reverse();
        Ok(Normal {
            offset: self.offset,
            dims: merged,
            count,
        })
    }
}

struct Normal {
    offset: usize,
    dims: Vec<(usize, usize)>,
    count: usize,
}

/// A validated copy: `dims` of `(extent, src_stride, dst_stride)`, outermost
/// first, innermost strides 1 on both sides. Element k of the source region
/// goes to element k of the destination region (row-major order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CopyPlan {
    pub(crate) src_offset: usize,
    pub(crate) dst_offset: usize,
    pub(crate) dims: Vec<(usize, usize, usize)>,
    pub(crate) count: usize,
}

impl CopyPlan {
    /// Checks both regions against their buffers and against each other:
    /// equal element counts, and equal shapes (after merging contiguous
    /// dimensions) unless one side is contiguous.
    pub(crate) fn new(
        src: &Region,
        src_len: usize,
        src_name: &str,
        dst: &Region,
        dst_len: usize,
        dst_name: &str,
    ) -> Result<CopyPlan> {
        let s = src.normalized(src_len, src_name)?;
        let d = dst.normalized(dst_len, dst_name)?;
        if s.count != d.count {
            return Err(Error::LengthMismatch {
                name: dst_name.to_string(),
                expected: s.count,
                actual: d.count,
            });
        }
        if s.count == 0 {
            return Ok(CopyPlan {
                src_offset: s.offset,
                dst_offset: d.offset,
                dims: vec![],
                count: 0,
            });
        }
        let Some(dims) = common_dims(&s.dims, &d.dims) else {
            let extents = |n: &Normal| n.dims.iter().map(|&(e, _)| e).collect::<Vec<_>>();
            return Err(Error::InvalidArgument(format!(
                "copy from `{src_name}` to `{dst_name}`: the regions have different shapes \
                 ({:?} and {:?})",
                extents(&s),
                extents(&d)
            )));
        };
        Ok(CopyPlan {
            src_offset: s.offset,
            dst_offset: d.offset,
            dims,
            count: s.count,
        })
    }

    /// The contiguous runs of the copy: `(src_index, dst_index)` of each run
    /// of `run_len()` elements, in order.
    pub(crate) fn runs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let outer = &self.dims[..self.dims.len().saturating_sub(1)];
        let rows: usize = outer.iter().map(|d| d.0).product();
        let rows = if self.count == 0 { 0 } else { rows };
        (0..rows).map(move |mut r| {
            let (mut s, mut d) = (self.src_offset, self.dst_offset);
            for &(extent, ss, ds) in outer.iter().rev() {
                let i = r % extent;
                r /= extent;
                s += i * ss;
                d += i * ds;
            }
            (s, d)
        })
    }

    /// Elements per contiguous run.
    pub(crate) fn run_len(&self) -> usize {
        self.dims.last().map_or(0, |d| d.0)
    }

    /// The plan with the destination replaced by a dense buffer of `count`
    /// elements (staging for downloads).
    pub(crate) fn with_dense_dst(&self) -> CopyPlan {
        let mut dims = self.dims.clone();
        let mut stride = 1;
        for d in dims.iter_mut().rev() {
            d.2 = stride;
            stride *= d.0;
        }
        CopyPlan {
            src_offset: self.src_offset,
            dst_offset: 0,
            dims,
            count: self.count,
        }
    }

    /// The plan with the source replaced by a dense buffer (staging for uploads).
    pub(crate) fn with_dense_src(&self) -> CopyPlan {
        let mut dims = self.dims.clone();
        let mut stride = 1;
        for d in dims.iter_mut().rev() {
            d.1 = stride;
            stride *= d.0;
        }
        CopyPlan {
            src_offset: 0,
            dst_offset: self.dst_offset,
            dims,
            count: self.count,
        }
    }

    /// `[first, last]` element indices touched on the source / destination.
    pub(crate) fn src_span(&self) -> (usize, usize) {
        let last: usize = self.dims.iter().map(|&(e, s, _)| (e - 1) * s).sum();
        (self.src_offset, self.src_offset + last)
    }

    pub(crate) fn dst_span(&self) -> (usize, usize) {
        let last: usize = self.dims.iter().map(|&(e, _, d)| (e - 1) * d).sum();
        (self.dst_offset, self.dst_offset + last)
    }
}

/// The dimensions `(extent, src_stride, dst_stride)` of a copy between two
/// normalized regions (outermost first) that walk their elements in the
/// same row-major order: each side's dimensions split where the other's
/// boundaries fall (`[(8, 4), (2, 1)]`, rows of 4 x 2 elements merged, and
/// `[(2, 21), (4, 3), (2, 1)]` are both 2 x 4 x 2), then merged where both
/// sides are contiguous across them, and a run of single elements appended
/// when either side's innermost stride is not 1. `None` when the shapes
/// cannot be split alike (`3 x 4` against `2 x 6`).
fn common_dims(
    src: &[(usize, usize)],
    dst: &[(usize, usize)],
) -> Option<Vec<(usize, usize, usize)>> {
    let sized = |dims: &[(usize, usize)]| -> Vec<(usize, usize)> {
        dims.iter().copied().filter(|&(e, _)| e != 1).collect()
    };
    let (mut s, mut d) = (sized(src), sized(dst));
    // Inner to outer.
    let mut split: Vec<(usize, usize, usize)> = Vec::new();
    while let (Some(&(se, ss)), Some(&(de, ds))) = (s.last(), d.last()) {
        let e = se.min(de);
        if se % e != 0 || de % e != 0 {
            return None;
        }
        split.push((e, ss, ds));
        // What is left of each side's dimension: its outer part.
        for (side, extent, stride) in [(&mut s, se, ss), (&mut d, de, ds)] {
            side.pop();
            if extent > e {
                side.push((extent / e, stride * e));
            }
        }
    }
    if !s.is_empty() || !d.is_empty() {
        return None;
    }
    let mut merged: Vec<(usize, usize, usize)> = Vec::new();
    for (e, ss, ds) in split {
        match merged.last_mut() {
            Some(inner) if ss == inner.0 * inner.1 && ds == inner.0 * inner.2 => inner.0 *= e,
            _ => merged.push((e, ss, ds)),
        }
    }
    if merged.first().is_none_or(|&(_, ss, ds)| ss != 1 || ds != 1) {
        merged.insert(0, (1, 1, 1));
    }
    merged.reverse();
    Some(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_is_one_run() {
        let p = CopyPlan::new(&Region::whole(10), 10, "a", &Region::whole(10), 10, "b").unwrap();
        assert_eq!(p.runs().collect::<Vec<_>>(), [(0, 0)]);
        assert_eq!(p.run_len(), 10);
    }

    #[test]
    fn sub_block_rows() {
        // 2x3 block at (1,2) of a 4x6 matrix -> 2x3 block at (0,0) of a 3x3 matrix
        let src = Region::new(8, vec![(2, 6), (3, 1)]);
        let dst = Region::new(0, vec![(2, 3), (3, 1)]);
        let p = CopyPlan::new(&src, 24, "a", &dst, 9, "b").unwrap();
        // dst is contiguous after merging -> dims follow src
        assert_eq!(p.runs().collect::<Vec<_>>(), [(8, 0), (14, 3)]);
        assert_eq!(p.run_len(), 3);
    }

    /// Element `k` of each side, from the plan's runs.
    fn pairs(p: &CopyPlan) -> Vec<(usize, usize)> {
        p.runs()
            .flat_map(|(s, d)| (0..p.run_len()).map(move |k| (s + k, d + k)))
            .collect()
    }

    #[test]
    fn a_single_index_innermost_on_one_side_only() {
        // A[0..6, 0..2, 1] of a 7 x 5 x 3 array (its innermost dimension
        // a single index) -> B[2, 1..7, 2..4] of a 4 x 7 x 5 array: both
        // 6 x 2 (the regions once had "different shapes" [6, 2, 1] and [6, 2]).
        let src = Region::new(1, vec![(6, 15), (2, 3), (1, 1)]);
        let dst = Region::new(2 * 35 + 5 + 2, vec![(1, 35), (6, 5), (2, 1)]);
        let want: Vec<(usize, usize)> = (0..6)
            .flat_map(|i| (0..2).map(move |j| (1 + 15 * i + 3 * j, 77 + 5 * i + j)))
            .collect();
        let p = CopyPlan::new(&src, 105, "A", &dst, 140, "B").unwrap();
        assert_eq!(pairs(&p), want);
        // And the other way around.
        let back = CopyPlan::new(&dst, 140, "B", &src, 105, "A").unwrap();
        let flipped: Vec<(usize, usize)> = want.iter().map(|&(a, b)| (b, a)).collect();
        assert_eq!(pairs(&back), flipped);
    }

    #[test]
    fn sides_merged_differently_split_alike() {
        // C2[1..=2, 0..=3, 0..2] of a 5 x 4 x 4 array (its two outer
        // dimensions merge: rows of 4 x 2 elements 4 apart) -> C4[1..3,
        // 3..=6, 1..=2] of a 7 x 7 x 3 array: both 2 x 4 x 2 (once
        // "different shapes ([8, 2] and [2, 4, 2])").
        let src = Region::new(16, vec![(2, 16), (4, 4), (2, 1)]);
        let dst = Region::new(21 + 9 + 1, vec![(2, 21), (4, 3), (2, 1)]);
        let want: Vec<(usize, usize)> = (0..2)
            .flat_map(|i| {
                (0..4).flat_map(move |j| {
                    (0..2).map(move |k| (16 + 16 * i + 4 * j + k, 31 + 21 * i + 3 * j + k))
                })
            })
            .collect();
        let p = CopyPlan::new(&src, 80, "C2", &dst, 147, "C4").unwrap();
        assert_eq!(pairs(&p), want);
        let back = CopyPlan::new(&dst, 147, "C4", &src, 80, "C2").unwrap();
        let flipped: Vec<(usize, usize)> = want.iter().map(|&(a, b)| (b, a)).collect();
        assert_eq!(pairs(&back), flipped);
        // Shapes that cannot be split alike stay an error naming both sides.
        let e = CopyPlan::new(
            &Region::new(0, vec![(3, 10), (4, 1)]),
            30,
            "A",
            &Region::new(0, vec![(2, 7), (6, 1)]),
            14,
            "B",
        );
        assert!(
            matches!(&e, Err(Error::InvalidArgument(m)) if m.contains("`A`") && m.contains("`B`")),
            "{e:?}"
        );
    }

    #[test]
    fn contiguous_dims_merge() {
        let r = Region::new(0, vec![(4, 6), (6, 1)]);
        let p = CopyPlan::new(&r, 24, "a", &Region::whole(24), 24, "b").unwrap();
        assert_eq!(p.dims, vec![(24, 1, 1)]);
    }

    #[test]
    fn errors() {
        let e = CopyPlan::new(&Region::whole(11), 10, "a", &Region::whole(11), 11, "b");
        assert!(matches!(e, Err(Error::OutOfBounds { .. })), "{e:?}");
        let e = CopyPlan::new(&Region::whole(10), 10, "a", &Region::whole(9), 10, "b");
        assert!(matches!(e, Err(Error::LengthMismatch { .. })), "{e:?}");
        let e = CopyPlan::new(
            &Region::new(0, vec![(2, 2)]),
            10,
            "a",
            &Region::whole(2),
            10,
            "b",
        );
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        let e = CopyPlan::new(
            &Region::new(0, vec![(3, 2), (3, 1)]),
            10,
            "a",
            &Region::whole(9),
            10,
            "b",
        );
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        let e = CopyPlan::new(
            &Region::new(0, vec![(2, 4), (3, 1)]),
            10,
            "a",
            &Region::new(0, vec![(3, 4), (2, 1)]),
            12,
            "b",
        );
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        let e = CopyPlan::new(
            &Region::new(usize::MAX, vec![(2, 1)]),
            10,
            "a",
            &Region::whole(2),
            10,
            "b",
        );
        assert!(matches!(e, Err(Error::OutOfBounds { .. })), "{e:?}");
    }

    #[test]
    fn empty_is_fine() {
        let p = CopyPlan::new(
            &Region::whole(0),
            0,
            "a",
            &Region::new(5, vec![(0, 1)]),
            5,
            "b",
        )
        .unwrap();
        assert_eq!(p.count, 0);
        assert_eq!(p.runs().count(), 0);
    }

    #[test]
    fn three_d() {
        let src = Region::new(0, vec![(2, 100), (3, 10), (4, 1)]);
        let dst = Region::new(1, vec![(2, 50), (3, 5), (4, 1)]);
        let p = CopyPlan::new(&src, 200, "a", &dst, 100, "b").unwrap();
        let runs: Vec<_> = p.runs().collect();
        assert_eq!(
            runs,
            [(0, 1), (10, 6), (20, 11), (100, 51), (110, 56), (120, 61)]
        );
        assert_eq!(p.with_dense_dst().runs().collect::<Vec<_>>()[1], (10, 4));
        assert_eq!(p.with_dense_src().runs().collect::<Vec<_>>()[1], (4, 6));
    }
}
