//! What the CPU twins of block maps call: the launch checks of a block map
//! (threads per block from symbols, one thread per iteration of thread maps
//! with register data), and the combination order of a block reduction,
//! which the twin follows so that the CPU device computes the same bits as
//! the GPU (docs/PTX.md, "Block maps"); block iterations on teams of
//! threads when a launch has fewer of them than threads ([`Team`]).

use crate::error::Error;

pub use crate::cpu::team::{private_team_launches, team_launches, Member, Team, TeamData};

/// Threads per block `dims` ask for (their product): 1 to 1024, else an
/// `Err` naming the block map.
///
/// ```
/// use sdfg_runtime::__glue::block::threads;
/// assert_eq!(threads("block map `rows`", &[16, 16]).unwrap(), 256);
/// assert!(threads("block map `rows`", &[64, 32]).is_err());
/// assert!(threads("block map `rows`", &[0]).is_err());
/// ```
pub fn threads(what: &str, dims: &[i128]) -> Result<usize, Error> {
    let n = dims.iter().try_fold(1i128, |a, &d| a.checked_mul(d));
    match n {
        Some(n) if dims.iter().all(|&d| d >= 1) && (1..=1024).contains(&n) => Ok(n as usize),
        _ => Err(Error::InvalidArgument(format!(
            "{what} asks for a block of {dims:?} threads; a block has 1 to 1024 threads"
        ))),
    }
}

/// The threads the kernel launches per block: `threads` rounded up to
/// whole warps.
pub fn launched(threads: usize) -> usize {
    threads.div_ceil(32) * 32
}

/// A thread map that touches register data has at most one iteration per
/// thread of the block (iteration `q` runs on thread `q`), else an `Err`.
///
/// ```
/// use sdfg_runtime::__glue::block::one_iteration_per_thread;
/// assert!(one_iteration_per_thread("thread map `t`", 256, 256).is_ok());
/// assert!(one_iteration_per_thread("thread map `t`", 257, 256).is_err());
/// ```
pub fn one_iteration_per_thread(what: &str, iterations: u64, threads: usize) -> Result<(), Error> {
    if iterations <= threads as u64 {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "{what} uses register data and has {iterations} iterations, but the block has {threads} threads: register data needs one thread per iteration"
    )))
}

/// A block reduction in the GPU's order: `parts[t]` is thread `t`'s partial
/// (`None` when it had no update; `parts.len()` is the launched threads,
/// whole warps). Each warp combines its 32 lanes with a butterfly (offsets
/// 16, 8, 4, 2, 1; lane `l` combines its value with lane `l ^ offset`'s,
/// its own first), then the warps' results combine the same way in warp 0.
/// `None` when no thread updated.
///
/// ```
/// use sdfg_runtime::__glue::block::tree;
/// let mut parts = vec![None; 64];
/// parts[0] = Some(1i64);
/// parts[33] = Some(2);
/// parts[63] = Some(4);
/// assert_eq!(tree(&parts, |a, b| a + b), Some(7));
/// assert_eq!(tree(&vec![None::<i64>; 32], |a, b| a + b), None);
/// ```
pub fn tree<T: Copy>(parts: &[Option<T>], combine: impl Fn(T, T) -> T) -> Option<T> {
    let mut slots = [None; 32];
    for (w, lanes) in parts.chunks(32).enumerate().take(32) {
        slots[w] = butterfly(lanes, &combine);
    }
    butterfly(&slots, &combine)
}

/// [`tree`] over partials that start at the operator's `identity` (`x op
/// identity == x` bit for bit, so an untouched thread's identity stands
/// for `None`): the same value, without an `Option` per thread.
/// `parts.len()` is the launched threads, whole warps.
///
/// ```
/// use sdfg_runtime::__glue::block::{tree, tree_of};
/// let parts: Vec<f32> = (0..64).map(|i| 1.0 + i as f32 * 1e-7).collect();
/// let some: Vec<Option<f32>> = parts.iter().map(|&x| Some(x)).collect();
/// let sum = |a: f32, b: f32| a + b;
/// assert_eq!(tree_of(&parts, -0.0, sum).to_bits(), tree(&some, sum).unwrap().to_bits());
/// ```
#[inline]
pub fn tree_of<T: Copy>(parts: &[T], identity: T, combine: impl Fn(T, T) -> T) -> T {
    let mut slots = [identity; 32];
    for (w, lanes) in parts.chunks(32).enumerate().take(32) {
        slots[w] = butterfly_of(lanes, identity, &combine);
    }
    butterfly_of(&slots, identity, &combine)
}

/// Lane 0's value after the butterfly of up to 32 lanes (missing lanes:
/// the identity). Only the lanes lane 0 reads are combined: at offset
/// `o`, lanes `l < o` combine with `l + o` (`l ^ o`), their own first.
#[inline]
fn butterfly_of<T: Copy>(lanes: &[T], identity: T, combine: &impl Fn(T, T) -> T) -> T {
    let mut v = [identity; 32];
    let n = lanes.len().min(32);
    v[..n].copy_from_slice(&lanes[..n]);
    for offset in [16, 8, 4, 2, 1] {
        for l in 0..offset {
            v[l] = combine(v[l], v[l + offset]);
        }
    }
    v[0]
}

/// Lane 0's value after the butterfly of up to 32 lanes (missing lanes: `None`).
fn butterfly<T: Copy>(lanes: &[Option<T>], combine: &impl Fn(T, T) -> T) -> Option<T> {
    let mut v = [None; 32];
    v[..lanes.len().min(32)].copy_from_slice(&lanes[..lanes.len().min(32)]);
    for offset in [16, 8, 4, 2, 1] {
        let before = v;
        for (l, slot) in v.iter_mut().enumerate() {
            *slot = match (before[l], before[l ^ offset]) {
                (Some(mine), Some(other)) => Some(combine(mine, other)),
                (mine, None) => mine,
                (None, other) => other,
            };
        }
    }
    v[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_follows_the_butterfly_order() {
        // Floats whose sum depends on the order: the tree's order is
        // lane-pairwise within a warp, then warp-pairwise.
        let parts: Vec<Option<f32>> = (0..64).map(|i| Some(1.0 + i as f32 * 1e-7)).collect();
        let mut warp = [0f32; 2];
        for (w, slot) in warp.iter_mut().enumerate() {
            let mut v: Vec<f32> = (0..32).map(|l| parts[w * 32 + l].unwrap()).collect();
            for off in [16, 8, 4, 2, 1] {
                let b = v.clone();
                for l in 0..32 {
                    v[l] = b[l] + b[l ^ off];
                }
            }
            *slot = v[0];
        }
        let want = warp[0] + warp[1];
        assert_eq!(tree(&parts, |a, b| a + b), Some(want));
    }

    /// The identity form computes the same bits as the `Option` form, for
    /// every operator, with untouched threads (`None`, the identity) and
    /// values whose combination depends on the order (float sums, NaN and
    /// signed zeros for min/max).
    #[test]
    fn the_identity_form_is_the_option_form() {
        use crate::elem::MinMaxNumber;
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        type Op = fn(f32, f32) -> f32;
        let ops: [(Op, f32); 4] = [
            (|a, b| a + b, -0.0),
            (|a, b| a * b, 1.0),
            (f32::min_number, f32::NAN),
            (f32::max_number, f32::NAN),
        ];
        for launched in [32, 64, 256, 1024] {
            for round in 0..50 {
                let parts: Vec<Option<f32>> = (0..launched)
                    .map(|_| match next() % 8 {
                        0 => None,
                        1 => Some(-0.0),
                        2 => Some(0.0),
                        3 if round % 5 == 0 => Some(f32::NAN),
                        _ => Some((next() % 2000) as f32 * 0.37e-3 - 0.3),
                    })
                    .collect();
                for (op, identity) in ops {
                    let plain: Vec<f32> = parts.iter().map(|p| p.unwrap_or(identity)).collect();
                    let want = tree(&parts, op).unwrap_or(identity);
                    let got = tree_of(&plain, identity, op);
                    assert!(
                        got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                        "{got} != {want} ({launched} threads)"
                    );
                }
            }
        }
    }

    #[test]
    fn threads_are_checked() {
        assert_eq!(threads("m", &[32, 4, 2]).unwrap(), 256);
        assert!(threads("m", &[2000]).is_err());
        assert!(threads("m", &[-1, -1]).is_err());
        assert_eq!(launched(33), 64);
        assert_eq!(launched(64), 64);
    }
}
