//! The kernel pool of a CPU device: the rayon threads its kernel twins
//! spread their chunks over.
//!
//! The pool is the device's own, never the global rayon pool, and only
//! kernel twins run on it. A twin never blocks (it computes, forks and
//! joins), so a pool thread is never parked waiting for work that needs
//! another pool thread. The host side may block freely: a `run()` called
//! from a task of the user's rayon pool waits for its stream, whose twin
//! runs here, on threads that no user task can occupy. (When twins used
//! the global pool, a few `run()` calls from rayon tasks blocked every
//! global thread while their twins waited for one: a deadlock.)

use crate::lock::lock;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};

/// A rayon pool of a fixed number of threads, started at its first use.
pub(crate) struct KernelPool {
    threads: usize,
    label: String,
    pool: OnceLock<Option<rayon::ThreadPool>>,
    /// A team launch holds the pool (`cpu::team`: one at a time).
    team_busy: AtomicBool,
}

impl KernelPool {
    /// The process's pool of `threads` threads (at least 1), shared by every
    /// CPU device of that many threads: a test suite that makes a device per
    /// test starts its threads once, not per device. Sharing is safe for the
    /// same reason the pool is: only twins run there, and they never block.
    pub(crate) fn shared(threads: usize) -> Arc<KernelPool> {
        static POOLS: OnceLock<Mutex<HashMap<usize, Arc<KernelPool>>>> = OnceLock::new();
        let threads = threads.max(1);
        let mut pools = lock(POOLS.get_or_init(Default::default));
        Arc::clone(
            pools.entry(threads).or_insert_with(|| {
                Arc::new(KernelPool::new(threads, format!("sdfg-cpu-x{threads}")))
            }),
        )
    }

    /// A pool of `threads` threads (at least 1), named after `label`.
    pub(crate) fn new(threads: usize, label: String) -> KernelPool {
        KernelPool {
            threads: threads.max(1),
            label,
            pool: OnceLock::new(),
            team_busy: AtomicBool::new(false),
        }
    }

    /// The number of threads kernels are split for.
    pub(crate) fn threads(&self) -> usize {
        self.threads
    }

    /// Set while a team launch runs on the pool (`cpu::team::Team`).
    pub(crate) fn team_busy(&self) -> &AtomicBool {
        &self.team_busy
    }

    /// The rayon pool, started at the first call; None when its threads
    /// could not be started (the caller then runs the chunks in turn:
    /// slower, still correct).
    pub(crate) fn rayon(&self) -> Option<&rayon::ThreadPool> {
        self.pool
            .get_or_init(|| {
                let label = self.label.clone();
                rayon::ThreadPoolBuilder::new()
                    .num_threads(self.threads)
                    .thread_name(move |i| format!("{label}-k{i}"))
                    .build()
                    .ok()
            })
            .as_ref()
    }
}
