//! A CPU stream: one thread that runs jobs in FIFO order.
//!
//! The n-th job pushed is *position* n (1-based). The worker counts finished
//! jobs, so "position p is complete" is `completed >= p`: events of the CPU
//! device are just positions, and waiting for an event is waiting for that
//! count.
//!
//! Both sides spin briefly before they sleep: the worker for a next job, a
//! waiter for its position. A program issues its operations back to back
//! and waits right after, so most hand-offs then cost an atomic load instead
//! of a futex wake-up of a sleeping thread (several microseconds, far more
//! on a busy machine), and a side notifies the other only when it sleeps
//! (a condition variable's notify is a system call even without waiters).
//! The spin is bounded (`SPIN`) and yields the CPU between bursts, so an
//! idle stream costs nothing.
//!
//! A waiter also helps: while the job it waits for (or an earlier one) is
//! still queued and no thread runs a job of this stream, the waiter runs the
//! next job itself, in FIFO order. A call that issues its work and waits for
//! it then needs no second thread at all, as with a plain function call;
//! the stream stays asynchronous until someone waits. (The one running job
//! is a token: the worker and helpers take it under the queue's lock.) A
//! thread of a rayon pool does not help: a kernel it ran would, waiting for
//! the kernel pool, steal a task of its own pool, and a `run()` in that task
//! could then wait for the stream whose token the suspended kernel holds.

use crate::lock::lock;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long a worker or a waiter spins before it sleeps.
const SPIN: Duration = Duration::from_micros(50);

/// Spins until `done()` or `SPIN` passed; true when `done()`. Between short
/// bursts it yields the CPU: the thread it waits for may need this core
/// (on a machine with more runnable threads than cores, a spin that never
/// yields can hold up the very work it waits for).
fn spin_until(done: impl Fn() -> bool) -> bool {
    let start = Instant::now();
    loop {
        for _ in 0..64 {
            if done() {
                return true;
            }
            std::hint::spin_loop();
        }
        if start.elapsed() > SPIN {
            return false;
        }
        std::thread::yield_now();
    }
}

/// A unit of work run by a worker.
pub(crate) type Job = Box<dyn FnOnce() + Send + 'static>;

struct Queue {
    jobs: VecDeque<Job>,
    shutdown: bool,
    /// The worker sleeps on `has_work` (set and cleared under the lock).
    worker_asleep: bool,
    /// A thread (the worker or a helping waiter) runs a job of this queue.
    running: bool,
}

/// The shared state of one worker thread.
pub(crate) struct Worker {
    queue: Mutex<Queue>,
    has_work: Condvar,
    /// Jobs pushed so far (read without the queue's lock while spinning).
    pushed: AtomicU64,
    /// Jobs finished so far; written under `progress_lock`, so a waiter that
    /// checks it under the lock and then sleeps cannot miss the wake-up.
    completed: AtomicU64,
    /// How many waiters sleep on `progress` (changed under `progress_lock`).
    progress_lock: Mutex<usize>,
    progress: Condvar,
}

impl Worker {
    /// Starts a worker thread. It runs until [`Worker::shutdown`] and an empty queue.
    pub(crate) fn spawn(name: String) -> std::io::Result<Arc<Worker>> {
        let worker = Arc::new(Worker {
            queue: Mutex::new(Queue {
                jobs: VecDeque::new(),
                shutdown: false,
                worker_asleep: false,
                running: false,
            }),
            has_work: Condvar::new(),
            pushed: AtomicU64::new(0),
            completed: AtomicU64::new(0),
            progress_lock: Mutex::new(0),
            progress: Condvar::new(),
        });
        let for_thread = Arc::clone(&worker);
        std::thread::Builder::new()
            .name(name)
            .spawn(move || for_thread.run())?;
        Ok(worker)
    }

    fn run(&self) {
        loop {
            // A next job is often pushed right after this one finished.
            let finished = self.completed.load(Ordering::Acquire);
            spin_until(|| self.pushed.load(Ordering::Acquire) > finished);
            let job = {
                let mut queue = lock(&self.queue);
                loop {
                    if !queue.running {
                        if let Some(job) = queue.jobs.pop_front() {
                            queue.running = true;
                            break job;
                        }
                        if queue.shutdown {
                            return;
                        }
                    }
                    queue.worker_asleep = true;
                    queue = self
                        .has_work
                        .wait(queue)
                        .unwrap_or_else(PoisonError::into_inner);
                    queue.worker_asleep = false;
                }
            };
            self.run_job(job);
        }
    }

    /// Runs a job taken with the running token, counts it, wakes the
    /// sleeping waiters, and hands the token back (waking the worker when
    /// a helper leaves jobs behind).
    fn run_job(&self, job: Job) {
        // Jobs catch the panics of user-visible code (kernels) themselves
        // and report them; this is the last line of defence so that a bug
        // in a runtime job cannot stall every waiter of this stream.
        let _ = catch_unwind(AssertUnwindSafe(job));
        let sleepers = {
            let sleepers = lock(&self.progress_lock);
            self.completed.fetch_add(1, Ordering::Release);
            *sleepers
        };
        if sleepers > 0 {
            self.progress.notify_all();
        }
        let wake_worker = {
            let mut queue = lock(&self.queue);
            queue.running = false;
            queue.worker_asleep && (!queue.jobs.is_empty() || queue.shutdown)
        };
        if wake_worker {
            self.has_work.notify_one();
        }
    }

    /// The next job with the running token, when no thread runs one.
    fn take_next(&self) -> Option<Job> {
        let mut queue = lock(&self.queue);
        if queue.running {
            return None;
        }
        let job = queue.jobs.pop_front()?;
        queue.running = true;
        Some(job)
    }

    /// Appends a job; it will run after every job pushed before it.
    pub(crate) fn push(&self, job: Job) {
        let asleep = {
            let mut queue = lock(&self.queue);
            queue.jobs.push_back(job);
            self.pushed.fetch_add(1, Ordering::Release);
            queue.worker_asleep
        };
        if asleep {
            self.has_work.notify_one();
        }
    }

    /// Blocks until the job at `position` (and so every earlier one) has run.
    /// (The worker's `Release` increment and this `Acquire` load order the
    /// jobs' effects before the waiter's next step.)
    pub(crate) fn wait_for(&self, position: u64) {
        let done = || self.completed.load(Ordering::Acquire) >= position;
        // Help: run the queued jobs up to `position` while no thread runs one.
        let may_help = rayon::current_thread_index().is_none();
        while may_help && !done() {
            match self.take_next() {
                Some(job) => self.run_job(job),
                None => break,
            }
        }
        // Someone runs a job (or everything is done): wait for them.
        if spin_until(done) {
            return;
        }
        let mut sleepers = lock(&self.progress_lock);
        while self.completed.load(Ordering::Acquire) < position {
            *sleepers += 1;
            sleepers = self
                .progress
                .wait(sleepers)
                .unwrap_or_else(PoisonError::into_inner);
            *sleepers -= 1;
        }
    }

    /// How many jobs have finished (a racy snapshot, for tests and reclaiming).
    #[allow(dead_code)]
    pub(crate) fn completed(&self) -> u64 {
        self.completed.load(Ordering::Acquire)
    }

    /// Lets the thread exit once the queue is empty. Queued jobs still run:
    /// other streams may be waiting for them.
    pub(crate) fn shutdown(&self) {
        lock(&self.queue).shutdown = true;
        self.has_work.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn runs_in_order_and_counts_positions() {
        let w = Worker::spawn("test".into()).unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        for i in 0..100u64 {
            let seen = Arc::clone(&seen);
            w.push(Box::new(move || lock(&seen).push(i)));
        }
        w.wait_for(100);
        assert_eq!(*lock(&seen), (0..100).collect::<Vec<_>>());
        assert_eq!(w.completed(), 100);
        w.shutdown();
    }

    #[test]
    fn helping_waiters_keep_fifo_order() {
        let w = Worker::spawn("test".into()).unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let helpers: Vec<_> = (1..=4u64)
            .map(|k| {
                let w = Arc::clone(&w);
                std::thread::spawn(move || {
                    for p in (k..=2000).step_by(97) {
                        w.wait_for(p);
                        assert!(w.completed() >= p);
                    }
                })
            })
            .collect();
        for i in 0..2000u64 {
            let seen = Arc::clone(&seen);
            w.push(Box::new(move || lock(&seen).push(i)));
        }
        for h in helpers {
            h.join().unwrap();
        }
        w.wait_for(2000);
        assert_eq!(*lock(&seen), (0..2000).collect::<Vec<_>>());
        w.shutdown();
    }

    #[test]
    fn a_panicking_job_does_not_stall_the_queue() {
        let w = Worker::spawn("test".into()).unwrap();
        let n = Arc::new(AtomicU64::new(0));
        w.push(Box::new(|| panic!("boom")));
        let n2 = Arc::clone(&n);
        w.push(Box::new(move || {
            n2.fetch_add(1, Ordering::SeqCst);
        }));
        w.wait_for(2);
        assert_eq!(n.load(Ordering::SeqCst), 1);
        w.shutdown();
    }
}
