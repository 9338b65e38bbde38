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
//!
//! A call that waits for its own work puts off waking the workers
//! ([`DeferWakes`], around a program's `run()`): its waiter runs the jobs
//! anyway, and waking a sleeping worker only for it to find the job taken
//! cost a futex wake-up and a context switch on a core the kernel's
//! threads need: about 8 us per call of axpy's twin on 2 threads (1.13x to
//! 1.35x the rayon loop with the wake-up, 1.07x to 1.09x without;
//! docs/BENCHMARKS.md). The put-off wake-ups happen when the thread starts
//! waiting (for the other workers), when a waiter that cannot run the jobs
//! waits, when another thread waits at the same time, and at the latest
//! when the guard ends; so no job waits for a wake-up that never comes.

use crate::lock::lock;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
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
    /// Threads inside [`Worker::wait_for`] for a position not yet complete.
    /// A helper puts off waking the worker only while it is the one waiter
    /// (read under the queue's lock; see `run_job`).
    waiters: AtomicUsize,
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
            waiters: AtomicUsize::new(0),
        });
        let for_thread = Arc::clone(&worker);
        std::thread::Builder::new()
            .name(name)
            .spawn(move || for_thread.run())?;
        Ok(worker)
    }

    fn run(self: &Arc<Self>) {
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
    fn run_job(self: &Arc<Self>, job: Job) {
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
        let (wake_worker, may_defer) = {
            let mut queue = lock(&self.queue);
            queue.running = false;
            // Read under the lock: a waiter counts itself before it takes
            // the lock to help or to wake the worker, so either this sees
            // it and wakes, or it sees the token free and acts itself.
            let alone = self.waiters.load(Ordering::SeqCst) <= 1;
            (
                queue.worker_asleep && (!queue.jobs.is_empty() || queue.shutdown),
                alone && !queue.shutdown,
            )
        };
        if wake_worker && !(may_defer && defer_wake(self)) {
            self.has_work.notify_one();
        }
    }

    /// Wakes the worker if it sleeps while jobs are queued.
    fn wake_if_work(&self) {
        let wake = {
            let queue = lock(&self.queue);
            queue.worker_asleep && (!queue.jobs.is_empty() || queue.shutdown)
        };
        if wake {
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
    pub(crate) fn push(self: &Arc<Self>, job: Job) {
        let asleep = {
            let mut queue = lock(&self.queue);
            queue.jobs.push_back(job);
            self.pushed.fetch_add(1, Ordering::Release);
            queue.worker_asleep
        };
        if asleep && !defer_wake(self) {
            self.has_work.notify_one();
        }
    }

    /// Blocks until the job at `position` (and so every earlier one) has run.
    /// (The worker's `Release` increment and this `Acquire` load order the
    /// jobs' effects before the waiter's next step.)
    pub(crate) fn wait_for(self: &Arc<Self>, position: u64) {
        let done = || self.completed.load(Ordering::Acquire) >= position;
        if done() {
            return;
        }
        self.waiters.fetch_add(1, Ordering::SeqCst);
        let _counted = Counted(&self.waiters);
        // Help: run the queued jobs up to `position` while no thread runs
        // one; the other workers this thread put off waking start now.
        let may_help = rayon::current_thread_index().is_none();
        if may_help {
            wake_deferred(Some(self));
        }
        while may_help && !done() {
            match self.take_next() {
                Some(job) => self.run_job(job),
                None => break,
            }
        }
        if done() {
            return;
        }
        // Someone runs a job, or this thread may not: the worker must not
        // sleep on queued jobs (a wake-up some thread put off).
        self.wake_if_work();
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

/// Decrements a counter when dropped.
struct Counted<'a>(&'a AtomicUsize);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

thread_local! {
    /// The workers this thread put off waking, while a [`DeferWakes`] of
    /// this thread lives (None otherwise).
    static DEFERRED: RefCell<Option<Vec<Arc<Worker>>>> = const { RefCell::new(None) };
}

/// Records that `worker` needs a wake-up this thread puts off; false when
/// the thread does not defer (the caller wakes it now).
fn defer_wake(worker: &Arc<Worker>) -> bool {
    DEFERRED
        .try_with(|deferred| match deferred.borrow_mut().as_mut() {
            Some(list) => {
                if !list.iter().any(|w| Arc::ptr_eq(w, worker)) {
                    list.push(Arc::clone(worker));
                }
                true
            }
            None => false,
        })
        .unwrap_or(false)
}

/// Wakes the workers this thread put off waking, but `keep` (which stays
/// on the list: the thread is about to run its jobs itself).
fn wake_deferred(keep: Option<&Worker>) {
    let kept = |w: &Arc<Worker>| keep.is_some_and(|k| std::ptr::eq(&**w, k));
    let woken: Vec<Arc<Worker>> = DEFERRED
        .try_with(|deferred| match deferred.borrow_mut().as_mut() {
            // Every wait starts here: nothing to wake allocates nothing.
            Some(list) if !list.iter().all(kept) => {
                let (stay, woken) = list.drain(..).partition(kept);
                *list = stay;
                woken
            }
            _ => Vec::new(),
        })
        .unwrap_or_default();
    for worker in woken {
        worker.wake_if_work();
    }
}

/// While it lives, the calling thread's jobs pushed to a sleeping CPU
/// stream worker do not wake it (see the module): for a call that waits
/// for its own work, which its waiter then runs. The wake-ups it put off
/// happen when the thread waits, when another thread waits for the same
/// worker, and at the latest when the guard is dropped (an error that ends
/// the call early leaves no job asleep). A guard on a thread of a rayon
/// pool, whose waits do not run jobs, or inside another guard does nothing.
///
/// ```
/// use sdfg_runtime::__glue::DeferWakes;
/// let wakes = DeferWakes::new();
/// // ... issue a call's work on CPU streams and wait for it ...
/// drop(wakes);
/// ```
#[must_use = "the wake-ups are put off only while the guard lives"]
pub struct DeferWakes {
    active: bool,
}

impl DeferWakes {
    /// Starts putting off this thread's wake-ups (see the type).
    #[allow(clippy::new_without_default)]
    pub fn new() -> DeferWakes {
        if rayon::current_thread_index().is_some() {
            return DeferWakes { active: false };
        }
        let active = DEFERRED
            .try_with(|deferred| {
                let mut deferred = deferred.borrow_mut();
                if deferred.is_some() {
                    false
                } else {
                    *deferred = Some(Vec::new());
                    true
                }
            })
            .unwrap_or(false);
        DeferWakes { active }
    }
}

impl Drop for DeferWakes {
    fn drop(&mut self) {
        if !self.active {
            return;
        }
        wake_deferred(None);
        let _ = DEFERRED.try_with(|deferred| deferred.borrow_mut().take());
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

    /// A worker that has slept for a while (its spin is long over).
    fn sleeping_worker() -> Arc<Worker> {
        let w = Worker::spawn("test".into()).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        w
    }

    /// A job that records the thread it ran on.
    fn recording_job(ran_on: &Arc<Mutex<Option<std::thread::ThreadId>>>) -> Job {
        let ran_on = Arc::clone(ran_on);
        Box::new(move || *lock(&ran_on) = Some(std::thread::current().id()))
    }

    /// Under a guard, a job pushed to a sleeping worker waits for its
    /// waiter, which runs it; without the guard the worker would have run
    /// it during the 20 ms.
    #[test]
    fn a_deferred_job_runs_on_its_waiter() {
        let w = sleeping_worker();
        let ran_on = Arc::new(Mutex::new(None));
        let wakes = DeferWakes::new();
        w.push(recording_job(&ran_on));
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(*lock(&ran_on), None, "the worker was woken");
        w.wait_for(1);
        assert_eq!(*lock(&ran_on), Some(std::thread::current().id()));
        drop(wakes);
        w.shutdown();
    }

    /// Dropping the guard without waiting wakes the worker, which runs the job.
    #[test]
    fn dropping_the_guard_wakes_the_worker() {
        let w = sleeping_worker();
        let ran_on = Arc::new(Mutex::new(None));
        let wakes = DeferWakes::new();
        w.push(recording_job(&ran_on));
        drop(wakes);
        let start = Instant::now();
        while lock(&ran_on).is_none() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "the job never ran"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_ne!(*lock(&ran_on), Some(std::thread::current().id()));
        w.shutdown();
    }

    /// A waiter on a rayon thread (which does not run jobs) wakes the
    /// worker a guard put off waking, and a guard on a rayon thread defers
    /// nothing.
    #[test]
    fn a_waiter_that_cannot_run_jobs_wakes_the_worker() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let w = sleeping_worker();
        let ran_on = Arc::new(Mutex::new(None));
        let wakes = DeferWakes::new();
        w.push(recording_job(&ran_on));
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = Arc::clone(&w);
        pool.spawn(move || {
            waiter.wait_for(1);
            tx.send(()).unwrap();
        });
        rx.recv_timeout(Duration::from_secs(10))
            .expect("the rayon waiter was left waiting");
        drop(wakes);
        assert!(pool.install(|| !DeferWakes::new().active));
        w.shutdown();
    }

    /// While another thread waits for the same worker, a helper under a
    /// guard does not put off waking it: the other waiter (here one that
    /// cannot run jobs) is not left asleep behind the helper's job, even
    /// when the helper then blocks on that waiter.
    #[test]
    fn a_helper_wakes_the_worker_for_another_waiter() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        for _ in 0..200 {
            let w = Worker::spawn("test".into()).unwrap();
            let wakes = DeferWakes::new();
            w.push(Box::new(|| std::thread::sleep(Duration::from_micros(200))));
            w.push(Box::new(|| {}));
            let (tx, rx) = std::sync::mpsc::channel();
            let waiter = Arc::clone(&w);
            pool.spawn(move || {
                waiter.wait_for(2);
                tx.send(()).unwrap();
            });
            w.wait_for(1);
            rx.recv_timeout(Duration::from_secs(10))
                .expect("the other waiter was left asleep");
            drop(wakes);
            w.shutdown();
        }
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
