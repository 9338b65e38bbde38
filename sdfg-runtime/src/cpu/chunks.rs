//! Parallel maps on the host in contiguous chunks: the one fast path of
//! `cpu` maps and of the CPU device's kernel twins.
//!
//! A map's iteration space is cut into *units*: its points in row-major
//! order (a block map's: its block iterations). Contiguous runs of units
//! form the chunks, one rayon task each; inside a chunk the generated code
//! loops over its rows (whole rows, and parts of rows at its ends) and,
//! per row, over the innermost dimension with plain indexing, which the
//! compiler can vectorize. A map of few long rows still gets several
//! chunks per thread.
//!
//! The partition depends only on the sizes, the grain and the number of
//! threads, never on timing: reductions that keep one partial per chunk
//! and combine them in chunk order ([`map_chunks`]) give the same result
//! on every run with the same thread count. A map without results
//! ([`for_each_chunk`]) runs finer *pieces* of the same units instead (up
//! to `PIECES_PER_THREAD` per thread, each worth at least
//! `PIECE_GRAINS` grains): its order does not matter, and with many small
//! tasks a thread that the rest of the machine slows down leaves its share
//! to the others (on 16 threads, four chunks per thread left the last
//! thread's chunk alone at the end).

use crate::cpu::pool::KernelPool;
use rayon::iter::{IntoParallelIterator, ParallelIterator};
use std::ops::Range;

/// At most this many chunks per thread: enough that a thread slowed down
/// by the rest of the machine hands work to the others, few enough that a
/// chunk's fixed costs (a task, its partials) stay negligible.
const CHUNKS_PER_THREAD: usize = 4;

/// At most this many pieces per thread for maps without results.
const PIECES_PER_THREAD: usize = 16;

/// A piece is worth at least this many grains (a task's fixed cost stays
/// small against its work).
const PIECE_GRAINS: usize = 4;

/// The threads a map's chunks run on: the caller's rayon pool
/// ([`Workers::caller`]) or a CPU device's kernel pool
/// (`KernelArgs::workers`).
#[derive(Clone, Copy)]
pub struct Workers<'a>(Where<'a>);

#[derive(Clone, Copy)]
enum Where<'a> {
    /// The calling thread's rayon pool (host `cpu` maps: the user's pool,
    /// where nested parallelism steals work instead of blocking).
    Caller,
    /// A CPU device's kernel pool (kernel twins; see `cpu::pool`).
    Kernels(&'a KernelPool),
}

impl<'a> Workers<'a> {
    /// The calling thread's rayon pool (what host `cpu` maps use).
    pub fn caller() -> Workers<'static> {
        Workers(Where::Caller)
    }

    pub(crate) fn kernels(pool: &'a KernelPool) -> Workers<'a> {
        Workers(Where::Kernels(pool))
    }

    /// The CPU device's kernel pool these are (None: the caller's pool).
    pub(crate) fn kernel_pool(&self) -> Option<&'a KernelPool> {
        match self.0 {
            Where::Caller => None,
            Where::Kernels(pool) => Some(pool),
        }
    }

    /// How many threads the chunks are cut for.
    ///
    /// ```
    /// use sdfg_runtime::__glue::par::Workers;
    /// assert_eq!(Workers::caller().threads(), rayon::current_num_threads());
    /// ```
    pub fn threads(&self) -> usize {
        match self.0 {
            Where::Caller => rayon::current_num_threads(),
            Where::Kernels(pool) => pool.threads(),
        }
    }
}

/// `units` units in contiguous chunks.
///
/// ```
/// use sdfg_runtime::__glue::par::Chunks;
/// // 1000 rows of 64 iterations, at least 4096 iterations per chunk, 2 threads.
/// let c = Chunks::for_threads(1000, 64, 4096, 2);
/// assert_eq!(c.count(), 8);
/// assert_eq!(c.units(0), 0..125);
/// assert_eq!(c.units(7), 875..1000);
/// // Small work: one chunk, run on the calling thread.
/// assert_eq!(Chunks::for_threads(10, 10, 4096, 16).count(), 1);
/// assert_eq!(Chunks::for_threads(0, 10, 1, 16).count(), 0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunks {
    units: usize,
    chunks: usize,
    /// The finer partition [`for_each_chunk`] runs (at least `chunks`).
    pieces: usize,
}

impl Chunks {
    /// `units` units of `unit_len` iterations each, cut into chunks of at
    /// least `grain` iterations (at most `CHUNKS_PER_THREAD` per thread of
    /// `workers`, at most one per unit). When there is a chunk's worth of
    /// work for every thread, the count is a multiple of the thread count,
    /// so the threads run equal shares (7 chunks on 2 threads would leave
    /// one thread 4 of them: 6 leave each 3).
    pub fn new(units: usize, unit_len: usize, grain: usize, workers: Workers<'_>) -> Chunks {
        Chunks::for_threads(units, unit_len, grain, workers.threads())
    }

    /// As [`Chunks::new`], for `threads` threads.
    pub fn for_threads(units: usize, unit_len: usize, grain: usize, threads: usize) -> Chunks {
        if units == 0 || unit_len == 0 {
            return Chunks {
                units: 0,
                chunks: 0,
                pieces: 0,
            };
        }
        let iterations = units.saturating_mul(unit_len);
        let threads = threads.max(1);
        // `per_thread` tasks per thread of at least `grain` iterations each.
        let count = |grain: usize, per_thread: usize| {
            let by_grain = (iterations / grain.max(1)).max(1);
            let n = if by_grain >= threads {
                threads.saturating_mul((by_grain / threads).min(per_thread))
            } else {
                by_grain
            };
            n.min(units)
        };
        let chunks = count(grain, CHUNKS_PER_THREAD);
        let pieces = count(grain.max(1).saturating_mul(PIECE_GRAINS), PIECES_PER_THREAD);
        Chunks {
            units,
            chunks,
            pieces: pieces.max(chunks),
        }
    }

    /// The number of chunks.
    pub fn count(&self) -> usize {
        self.chunks
    }

    /// The units of chunk `c` (`c < count()`): an even split, the larger
    /// chunks last.
    pub fn units(&self, c: usize) -> Range<usize> {
        split(self.units, self.chunks, c)
    }

    /// The number of pieces ([`for_each_chunk`]'s partition).
    pub fn piece_count(&self) -> usize {
        self.pieces
    }

    /// The units of piece `p` (`p < piece_count()`), split like chunks.
    ///
    /// ```
    /// use sdfg_runtime::__glue::par::Chunks;
    /// // 2048 rows of a loop body (grain 1) on 16 threads: 4 chunks per
    /// // thread for reductions, 16 pieces per thread otherwise.
    /// let c = Chunks::for_threads(2048, 1, 1, 16);
    /// assert_eq!((c.count(), c.piece_count()), (64, 256));
    /// assert_eq!(c.piece_units(255), 2040..2048);
    /// ```
    pub fn piece_units(&self, p: usize) -> Range<usize> {
        split(self.units, self.pieces, p)
    }
}

/// Part `k` of `units` split evenly into `parts`, the larger parts last.
fn split(units: usize, parts: usize, k: usize) -> Range<usize> {
    let at = |k: usize| ((k as u128 * units as u128) / parts as u128) as usize;
    at(k)..at(k + 1)
}

/// Runs `body` once per piece of `chunks` (its finer partition, for maps
/// whose pieces produce nothing to combine), in parallel on `workers` (on
/// the calling thread when there is one piece).
///
/// ```
/// use sdfg_runtime::__glue::par::{for_each_chunk, Chunks, Workers};
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// let seen = AtomicUsize::new(0);
/// let chunks = Chunks::for_threads(1000, 1, 1, 4);
/// for_each_chunk(Workers::caller(), &chunks, |units| {
///     seen.fetch_add(units.len(), Ordering::Relaxed);
/// });
/// assert_eq!(seen.into_inner(), 1000);
/// ```
pub fn for_each_chunk(workers: Workers<'_>, chunks: &Chunks, body: impl Fn(Range<usize>) + Sync) {
    match chunks.piece_count() {
        0 => {}
        1 => body(chunks.piece_units(0)),
        n => {
            let all = || {
                (0..n)
                    .into_par_iter()
                    .for_each(|p| body(chunks.piece_units(p)))
            };
            match workers.0 {
                Where::Caller => all(),
                Where::Kernels(pool) => match pool.rayon() {
                    Some(rayon) => rayon.install(all),
                    None => (0..n).for_each(|p| body(chunks.piece_units(p))),
                },
            }
        }
    }
}

/// Runs `body` once per chunk, in parallel on `workers`, and returns the
/// results in chunk order (whichever thread ran which chunk), so that a
/// reduction combining them in order is reproducible.
///
/// ```
/// use sdfg_runtime::__glue::par::{map_chunks, Chunks, Workers};
/// let x: Vec<f32> = (0..100_000).map(|i| (i as f32).sin()).collect();
/// let chunks = Chunks::for_threads(x.len(), 1, 1024, 4);
/// let sum = |_| -> f32 {
///     map_chunks(Workers::caller(), &chunks, |r| x[r].iter().sum::<f32>())
///         .into_iter()
///         .fold(0.0, |a, b| a + b)
/// };
/// let first = sum(());
/// assert!((0..20).all(|_| sum(()).to_bits() == first.to_bits()));
/// ```
pub fn map_chunks<P: Send>(
    workers: Workers<'_>,
    chunks: &Chunks,
    body: impl Fn(Range<usize>) -> P + Sync,
) -> Vec<P> {
    match chunks.count() {
        0 => Vec::new(),
        1 => vec![body(chunks.units(0))],
        n => {
            let all = || {
                (0..n)
                    .into_par_iter()
                    .map(|c| body(chunks.units(c)))
                    .collect::<Vec<P>>()
            };
            match workers.0 {
                Where::Caller => all(),
                Where::Kernels(pool) => match pool.rayon() {
                    Some(rayon) => rayon.install(all),
                    None => (0..n).map(|c| body(chunks.units(c))).collect(),
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_every_unit_once_in_order() {
        for (units, len, grain, threads) in [
            (1, 1, 1, 1),
            (7, 3, 1, 2),
            (1000, 1, 64, 3),
            (1 << 20, 1, 4096, 16),
            (199, 198, 4096, 2),
            (198, 198, 2048, 16),
            (7 * 4096, 1, 4096, 2),
        ] {
            let c = Chunks::for_threads(units, len, grain, threads);
            assert!(c.count() >= 1 && c.count() <= units);
            assert!(c.count() <= threads * CHUNKS_PER_THREAD);
            let by_grain = units * len / grain;
            if by_grain >= threads && units >= threads * CHUNKS_PER_THREAD {
                assert_eq!(c.count() % threads, 0, "{units} x {len} on {threads}");
            }
            for (parts, of) in [
                (
                    c.count(),
                    &(|k| c.units(k)) as &dyn Fn(usize) -> Range<usize>,
                ),
                (c.piece_count(), &|k| c.piece_units(k)),
            ] {
                let mut next = 0;
                for k in 0..parts {
                    let r = of(k);
                    assert_eq!(r.start, next);
                    assert!(!r.is_empty());
                    next = r.end;
                }
                assert_eq!(next, units);
            }
            // Pieces: never fewer than chunks, at most 16 per thread, each
            // worth 4 grains where there is enough work for more than the chunks.
            assert!(c.piece_count() >= c.count() && c.piece_count() <= units);
            assert!(c.piece_count() <= (threads * PIECES_PER_THREAD).max(c.count()));
            if c.piece_count() > c.count() {
                assert!(units * len / c.piece_count() >= grain * PIECE_GRAINS);
            }
        }
    }

    #[test]
    fn for_each_chunk_runs_every_piece_once() {
        let pool = KernelPool::new(4, "test".into());
        let chunks = Chunks::for_threads(100_000, 1, 256, 4);
        assert_eq!((chunks.count(), chunks.piece_count()), (16, 64));
        let seen: Vec<std::sync::atomic::AtomicU8> = (0..100_000)
            .map(|_| std::sync::atomic::AtomicU8::new(0))
            .collect();
        for_each_chunk(Workers::kernels(&pool), &chunks, |r| {
            for u in r {
                seen[u].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        });
        assert!(seen
            .iter()
            .all(|s| s.load(std::sync::atomic::Ordering::Relaxed) == 1));
    }

    /// What makes reductions reproducible: the results come back in chunk
    /// order even when the chunks finish in the opposite order.
    #[test]
    fn results_come_back_in_chunk_order_whatever_finishes_first() {
        let pool = KernelPool::new(4, "test".into());
        let chunks = Chunks::for_threads(8, 1, 1, 4);
        assert_eq!(chunks.count(), 8);
        let finished = std::sync::Mutex::new(Vec::new());
        let parts = map_chunks(Workers::kernels(&pool), &chunks, |r| {
            // Later chunks finish first.
            std::thread::sleep(std::time::Duration::from_millis(3 * (8 - r.start as u64)));
            finished.lock().unwrap().push(r.start);
            r.start
        });
        assert_eq!(parts, (0..8).collect::<Vec<_>>());
        // (Collected in completion order, they would mostly start with 7.)
        assert_eq!(finished.into_inner().unwrap().len(), 8);
    }

    #[test]
    fn a_pool_runs_every_chunk() {
        let pool = KernelPool::new(3, "test".into());
        let chunks = Chunks::new(10_000, 1, 100, Workers::kernels(&pool));
        assert_eq!(chunks.count(), 12);
        let parts = map_chunks(Workers::kernels(&pool), &chunks, |r| r.len());
        assert_eq!(parts.iter().sum::<usize>(), 10_000);
        assert_eq!(parts.len(), 12);
    }
}
