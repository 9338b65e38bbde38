//! Block teams: when a launch of a block map has fewer block iterations
//! than the CPU device has threads (four 128 x 128 tiles of a 256^2 product
//! on 16 threads), each block iteration runs on a *team* of threads, as
//! the GPU runs it on a block of threads. Every member runs the whole block
//! program; a thread map's iterations are split between the members by the
//! GPU thread that runs them (iteration `q` on thread `q mod B`, threads
//! split into equal runs), a `Stmt::Barrier` is [`Member::wait`], and the
//! stores of thread 0 (block-level statements) are member 0's.
//!
//! Why this is race-free is the GPU kernel's own proof: the iterations of
//! a thread map never conflict (`validate::block::races`), the compiler
//! placed a barrier before every phase that conflicts with an earlier one
//! (`ir::barriers`), and a GPU thread's iterations all run on one member,
//! so what the barrier placer leaves unsynchronized because one thread
//! keeps it stays with one member. Block data is one copy per block
//! iteration, seen by its members through [`TeamData`].
//!
//! Members spin at a barrier (then yield), so they must all run at once:
//! a team launch runs its members on threads of the device's kernel pool
//! (`ThreadPool::broadcast`; seven eighths of them, see [`Team::new`]),
//! and only one team launch at a time per pool
//! ([`Team::new`] says no while another holds it; that launch then runs
//! its block iterations as usual). Other work on the pool never waits for
//! a team (twins never block), so every member starts.
//!
//! A *private* team ([`Team::private`]; the compiler's
//! `codegen::cpu::replicas` decides when a program allows one) shares
//! nothing: each member has its own block data and runs whole the thread
//! maps that produce it, so no member ever waits for another. Its members
//! are plain tasks on seven eighths of the pool's threads, and any number of private
//! launches may run at once.

use super::chunks::Workers;
use super::plain::SharedSlice;
use rayon::prelude::*;
use std::ops::{Index, IndexMut};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

static TEAM_LAUNCHES: AtomicU64 = AtomicU64::new(0);

static PRIVATE_LAUNCHES: AtomicU64 = AtomicU64::new(0);

/// How many team launches this process has run (for tests: whether a
/// launch took the team path).
pub fn team_launches() -> u64 {
    TEAM_LAUNCHES.load(Ordering::Relaxed)
}

/// How many of [`team_launches`] were private teams ([`Team::private`]).
pub fn private_team_launches() -> u64 {
    PRIVATE_LAUNCHES.load(Ordering::Relaxed)
}

/// How teams run: `SDFG_TEAMS=off` runs every block iteration as one
/// task; `SDFG_TEAMS=<n>` caps a team at n members; `SDFG_TEAM_SPIN=<n>`:
/// spins at a barrier before yielding the thread.
struct Settings {
    max_members: usize,
    spins: u32,
}

fn settings() -> &'static Settings {
    static SETTINGS: std::sync::OnceLock<Settings> = std::sync::OnceLock::new();
    SETTINGS.get_or_init(|| {
        let var = |name: &str| std::env::var(name).ok();
        Settings {
            max_members: match var("SDFG_TEAMS").as_deref() {
                Some("off") => 0,
                Some(n) => n.parse().unwrap_or(usize::MAX),
                None => usize::MAX,
            },
            spins: var("SDFG_TEAM_SPIN")
                .and_then(|n| n.parse().ok())
                .unwrap_or(1 << 14),
        }
    })
}

/// Members per block iteration when `units` of them share `threads`
/// threads: seven eighths of the threads ([`Team::new`] says why).
fn members_per_unit(threads: usize, units: usize) -> usize {
    (threads - threads / 8) / units.max(1)
}

/// The right to run one team launch on a kernel pool (see the module).
pub struct Team<'a> {
    pool: &'a rayon::ThreadPool,
    /// The pool's team flag, held by a team whose members wait for each
    /// other; None for a private team (see [`Team::private`]).
    busy: Option<&'a AtomicBool>,
    units: usize,
    size: usize,
}

impl<'a> Team<'a> {
    /// A team launch of `units` block iterations on `workers`, when each
    /// gets at least two threads (of seven eighths of the pool's) and no
    /// other team launch holds the pool; else None (the caller runs the
    /// block iterations as usual).
    pub fn new(workers: Workers<'a>, units: usize) -> Option<Team<'a>> {
        let (kernels, threads) = (workers.kernel_pool()?, workers.threads());
        let cap = settings().max_members;
        // An eighth of the threads stays out of the teams (2 of 16): a
        // member that loses its core to another thread (the stream's, the
        // caller's, the system's) holds up its whole team at every
        // barrier. On the H200 host, teams of 4 on all 16 threads took 5
        // to 17 ms per call, teams of 3 a steady 4.3 to 4.8.
        let size = members_per_unit(threads, units);
        if units == 0 || size < 2 || cap < 2 {
            return None;
        }
        let pool = kernels.rayon()?;
        let busy = kernels.team_busy();
        busy.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .ok()?;
        Some(Team {
            pool,
            busy: Some(busy),
            units,
            size: size.min(cap),
        })
    }

    /// A *private* team launch of `units` block iterations on `workers`:
    /// its members never wait for each other (each has its own block data
    /// and runs whole the thread maps that produce it; the compiler's
    /// `codegen::cpu::replicas` says when a program allows that), so they
    /// run as independent tasks on seven eighths of the pool's threads, at
    /// least two per block iteration, and any number of such launches at once; else
    /// None (the caller runs the block iterations as usual).
    pub fn private(workers: Workers<'a>, units: usize) -> Option<Team<'a>> {
        let (kernels, threads) = (workers.kernel_pool()?, workers.threads());
        let cap = settings().max_members;
        // As in `new`: a member that waits for a core holds up the
        // launch's end. On the H200 host, gemm (blocks) at 256^3 (four
        // tiles, 16 threads) took 0.445-0.520 ms in teams of 3 against
        // 0.472-0.633 in teams of 4 (docs/BENCHMARKS.md, run ZZ).
        let size = members_per_unit(threads, units);
        if units == 0 || size < 2 || cap < 2 {
            return None;
        }
        Some(Team {
            pool: kernels.rayon()?,
            busy: None,
            units,
            size: size.min(cap),
        })
    }

    /// The members per block iteration.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Runs `member` once per member of every block iteration, all at once.
    pub fn run(&self, member: &(dyn Fn(Member<'_>) + Sync)) {
        TEAM_LAUNCHES.fetch_add(1, Ordering::Relaxed);
        let (units, size) = (self.units, self.size);
        if self.busy.is_none() {
            // A private team: no member waits (its program has no
            // `Member::wait`), so plain tasks will do, and one barrier
            // nobody reaches stands in for the teams'.
            PRIVATE_LAUNCHES.fetch_add(1, Ordering::Relaxed);
            let unused = TeamBarrier::new(size);
            self.pool.install(|| {
                (0..units * size).into_par_iter().for_each(|i| {
                    member(Member {
                        unit: i / size,
                        rank: i % size,
                        size,
                        barrier: &unused,
                    })
                })
            });
            return;
        }
        let barriers: Vec<TeamBarrier> = (0..units).map(|_| TeamBarrier::new(size)).collect();
        self.pool.broadcast(|ctx| {
            let i = ctx.index();
            if i < units * size {
                let barrier = &barriers[i / size];
                // A member that panics poisons its team's barrier, so the
                // others panic at their next wait instead of waiting
                // forever; the broadcast then re-raises the panic.
                let _poison = PoisonOnUnwind(barrier);
                member(Member {
                    unit: i / size,
                    rank: i % size,
                    size,
                    barrier,
                });
            }
        });
    }
}

impl Drop for Team<'_> {
    fn drop(&mut self) {
        if let Some(busy) = self.busy {
            busy.store(false, Ordering::Release);
        }
    }
}

/// One member of a block iteration's team.
#[derive(Clone, Copy)]
pub struct Member<'a> {
    /// The block iteration (unit) the team runs.
    pub unit: usize,
    /// This member's place in the team, from 0.
    pub rank: usize,
    /// The members of the team.
    pub size: usize,
    barrier: &'a TeamBarrier,
}

impl Member<'_> {
    /// Waits until every member of the team has reached this barrier; what
    /// each wrote before it is visible to all after it.
    #[inline]
    pub fn wait(&self) {
        self.barrier.wait();
    }

    /// The first and past-the-last GPU thread of the block's `threads`
    /// whose thread-map iterations this member runs: equal runs of threads.
    #[inline]
    pub fn threads(&self, threads: usize) -> (usize, usize) {
        (
            self.rank * threads / self.size,
            (self.rank + 1) * threads / self.size,
        )
    }
}

/// Poisons a barrier when dropped during a panic.
struct PoisonOnUnwind<'a>(&'a TeamBarrier);

impl Drop for PoisonOnUnwind<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.poisoned.store(true, Ordering::Release);
        }
    }
}

/// A reusable barrier of `size` threads that spins, then yields. Aligned
/// to 128 bytes (two cache lines, the unit of the adjacent-line
/// prefetcher): the teams' barriers lie side by side in one vector, and
/// one team's spinning must not pull the line another team is updating.
#[repr(align(128))]
struct TeamBarrier {
    size: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
    /// A member panicked (see `Team::run`).
    poisoned: AtomicBool,
}

impl TeamBarrier {
    fn new(size: usize) -> TeamBarrier {
        TeamBarrier {
            size,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            poisoned: AtomicBool::new(false),
        }
    }

    fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        // AcqRel: the last arrival acquires every earlier member's writes
        // (a release sequence on `arrived`) and publishes them with the
        // generation's Release; waiters acquire it.
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.size {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
            return;
        }
        let (mut spins, limit) = (0u32, settings().spins);
        while self.generation.load(Ordering::Acquire) == generation {
            if self.poisoned.load(Ordering::Acquire) {
                panic!("another thread of this block team panicked");
            }
            if spins < limit {
                std::hint::spin_loop();
                spins += 1;
            } else {
                // An oversubscribed machine: let the other members run.
                std::thread::yield_now();
            }
        }
    }
}

/// One block iteration's block data (`shared`, or `register` with a copy
/// per thread-map iteration), shared by its team's members. `Copy`: each
/// member indexes its own copy of the view like the vector it views (every
/// index is checked against the length).
///
/// ```
/// use sdfg_runtime::__glue::block::TeamData;
/// let mut v = vec![0u32; 8];
/// // SAFETY: the two threads touch disjoint halves.
/// let view = unsafe { TeamData::new(&mut v) };
/// std::thread::scope(|s| {
///     for half in 0..2 {
///         s.spawn(move || {
///             let mut d = view;
///             for i in half * 4..half * 4 + 4 {
///                 d[i] = i as u32;
///             }
///         });
///     }
/// });
/// assert_eq!(v, [0, 1, 2, 3, 4, 5, 6, 7]);
/// ```
pub struct TeamData<'a, T> {
    slice: SharedSlice<'a, T>,
}

impl<T> Clone for TeamData<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for TeamData<'_, T> {}

impl<'a, T> TeamData<'a, T> {
    /// A view of `s`, exclusively borrowed while the view and its copies
    /// live.
    ///
    /// # Safety
    /// While any copy lives, no two threads access one element at once when
    /// one of them writes it, unless a [`Member::wait`] of both orders the
    /// accesses (generated code: the module's argument).
    pub unsafe fn new(s: &'a mut [T]) -> TeamData<'a, T> {
        TeamData {
            slice: SharedSlice::new(s),
        }
    }
}

impl<T> TeamData<'_, T> {
    /// Element `i`, unchecked (the generated code's offsets of block data
    /// are in bounds: prechecked, or checked per dimension where they run).
    ///
    /// # Safety
    /// `i` is below the length.
    #[inline(always)]
    pub unsafe fn get_unchecked(&self, i: usize) -> &T {
        debug_assert!(i < self.slice.len());
        // SAFETY: in bounds (the caller's contract); by `new`'s contract no
        // other thread writes element `i` while this one reads it.
        unsafe { &*self.slice.at(i) }
    }

    /// Element `i` for writing, unchecked.
    ///
    /// # Safety
    /// `i` is below the length.
    #[inline(always)]
    pub unsafe fn get_unchecked_mut(&mut self, i: usize) -> &mut T {
        debug_assert!(i < self.slice.len());
        // SAFETY: in bounds (the caller's contract); by `new`'s contract no
        // other thread touches element `i` while this one writes it.
        unsafe { &mut *self.slice.at(i) }
    }
}

impl<T> Index<usize> for TeamData<'_, T> {
    type Output = T;

    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        let len = self.slice.len();
        assert!(i < len, "block data index {i} out of {len}");
        // SAFETY: in bounds (checked); by `new`'s contract no other thread
        // writes element `i` while this one reads it.
        unsafe { &*self.slice.at(i) }
    }
}

impl<T> IndexMut<usize> for TeamData<'_, T> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut T {
        let len = self.slice.len();
        assert!(i < len, "block data index {i} out of {len}");
        // SAFETY: in bounds (checked); by `new`'s contract no other thread
        // touches element `i` while this one writes it.
        unsafe { &mut *self.slice.at(i) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::pool::KernelPool;

    #[test]
    fn members_meet_at_barriers_and_see_each_others_writes() {
        let pool = KernelPool::new(8, "team-test".into());
        let workers = Workers::kernels(&pool);
        let team = Team::new(workers, 2).expect("8 threads for 2 units");
        // 7 of the 8 threads in teams: 3 each.
        assert_eq!(team.size(), 3);
        // A second team launch on the pool is refused while one holds it.
        assert!(Team::new(workers, 2).is_none());
        let mut data: Vec<Vec<usize>> = vec![vec![0; 64]; 2];
        let views: Vec<TeamData<'_, usize>> = data
            .iter_mut()
            .map(|v| unsafe { TeamData::new(v) })
            .collect();
        let sums: Vec<AtomicUsize> = (0..6).map(|_| AtomicUsize::new(0)).collect();
        team.run(&|m: Member<'_>| {
            let mut d = views[m.unit];
            for round in 0..50 {
                let (lo, hi) = m.threads(64);
                for i in lo..hi {
                    d[i] = round * 1000 + i;
                }
                m.wait();
                // Every member reads what the others wrote before the barrier.
                let s: usize = (0..64).map(|i| d[i]).sum();
                assert_eq!(s, 64 * round * 1000 + 63 * 32);
                m.wait();
            }
            sums[m.unit * m.size + m.rank].fetch_add(1, Ordering::Relaxed);
        });
        assert!(sums.iter().all(|s| s.load(Ordering::Relaxed) == 1));
        drop(team);
        // A member's panic reaches the caller; its team does not hang.
        let team = Team::new(workers, 2).expect("free again");
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            team.run(&|m: Member<'_>| {
                if m.unit == 1 && m.rank == 2 {
                    panic!("a member fails");
                }
                m.wait();
            })
        }));
        assert!(caught.is_err());
        drop(team);
        assert!(Team::new(workers, 2).is_some());
        assert!(
            Team::new(workers, 5).is_none(),
            "fewer than two threads per unit"
        );
    }
}
