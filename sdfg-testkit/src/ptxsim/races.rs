//! Races between threads: two threads touching one byte, one of them
//! writing it, with nothing ordering them. On a GPU such a pair has no
//! order (the threads run concurrently); here they run one after another,
//! so the interpreter would silently pick one order. What orders two
//! accesses: program order on one thread, and a barrier between them when
//! both threads are in one block. So two threads of one block meeting on a
//! byte of `shared` or global memory between two barriers, or two threads
//! of different blocks meeting on a byte of global memory in one launch,
//! is an error naming both: the compiler's barriers (and its race test of
//! maps and thread maps) promise there is none.
//!
//! Atomics (`atom`, `red`) do not conflict with each other. An atomic and
//! a plain access conflict when they have the same address and width (an
//! element read while another thread updates it): a compare-and-swap on
//! the 32-bit word around a 1- or 2-byte element only changes that element,
//! so it does not conflict with plain accesses to its neighbours. The plain
//! load that starts a compare-and-swap loop counts as part of the atomic
//! (the swap checks what it read).
//!
//! Each byte keeps its last writer, its last atomic and up to
//! [`READERS`] readers of different threads: enough to see every conflict
//! with the accesses of one block, and most across blocks.

use std::collections::HashMap;

/// Readers remembered per byte.
const READERS: usize = 4;

/// How an access touches memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Touch {
    Read,
    Write,
    Atomic,
}

/// One access: who made it, when, and its address and width (what an
/// atomic is compared by).
#[derive(Clone, Copy, Debug)]
struct By {
    block: u64,
    thread: u32,
    /// The block's barrier phase.
    phase: u64,
    unit: (u64, usize),
}

impl By {
    /// Whether nothing orders `self` before `later`.
    fn races(&self, later: &By) -> bool {
        self.block != later.block || (self.thread != later.thread && self.phase == later.phase)
    }

    fn thread_text(&self, other: &By) -> String {
        if self.block == other.block {
            format!("thread {}", self.thread)
        } else {
            format!("thread {} of block {}", self.thread, self.block)
        }
    }
}

/// What one byte saw.
#[derive(Default)]
struct Cell {
    writer: Option<By>,
    atomic: Option<By>,
    readers: Vec<By>,
}

/// The accesses of the running launch (global memory) and block (shared).
#[derive(Default)]
pub(super) struct Tracker {
    /// No check (`Memory::allow_races`).
    pub(super) off: bool,
    block: u64,
    phase: u64,
    /// The thread now running (linear index in the block).
    pub(super) thread: u32,
    global: HashMap<u64, Cell>,
    shared: HashMap<u64, Cell>,
}

impl Tracker {
    /// A new launch: nothing touched (launches on a stream are ordered).
    pub(super) fn start_launch(&mut self) {
        self.global.clear();
        self.block = 0;
    }

    /// A new block: its own shared memory, unordered with other blocks.
    pub(super) fn start_block(&mut self) {
        self.shared.clear();
        self.block += 1;
        self.phase = 0;
    }

    /// Every thread of the block passed a barrier.
    pub(super) fn barrier(&mut self) {
        self.phase += 1;
    }

    /// Logs an access of `len` bytes at `addr` by the running thread; an
    /// error if nothing orders it after another thread's access that
    /// conflicts with it.
    pub(super) fn access(
        &mut self,
        shared: bool,
        addr: u64,
        len: usize,
        touch: Touch,
    ) -> Result<(), String> {
        if self.off {
            return Ok(());
        }
        let me = By {
            block: self.block,
            thread: self.thread,
            phase: self.phase,
            unit: (addr, len),
        };
        let cells = if shared {
            &mut self.shared
        } else {
            &mut self.global
        };
        let racing = |b: &By| b.races(&me);
        let same_unit = |b: &By| b.races(&me) && b.unit == me.unit;
        for byte in addr..addr + len as u64 {
            let cell = cells.entry(byte).or_default();
            let reader = || cell.readers.iter().find(|r| racing(r));
            let conflict = match touch {
                Touch::Read => cell
                    .writer
                    .filter(racing)
                    .map(|w| (w, "wrote"))
                    .or(cell.atomic.filter(same_unit).map(|a| (a, "updated"))),
                Touch::Write => cell
                    .writer
                    .filter(racing)
                    .map(|w| (w, "wrote"))
                    .or(reader().map(|r| (*r, "read")))
                    .or(cell.atomic.filter(same_unit).map(|a| (a, "updated"))),
                Touch::Atomic => cell.writer.filter(same_unit).map(|w| (w, "wrote")).or(cell
                    .readers
                    .iter()
                    .find(|r| same_unit(r))
                    .map(|r| (*r, "read"))),
            };
            if let Some((by, what)) = conflict {
                let space = if shared { "shared" } else { "global" };
                let verb = match touch {
                    Touch::Read => "reads",
                    Touch::Write => "writes",
                    Touch::Atomic => "updates",
                };
                let since = if by.block == me.block {
                    "since the last barrier"
                } else {
                    "in the same launch"
                };
                return Err(format!(
                    "race: thread {} {verb} {space} byte {byte:#x}, which {} {what} {since}",
                    me.thread,
                    by.thread_text(&me)
                ));
            }
            match touch {
                Touch::Read => {
                    let known = cell
                        .readers
                        .iter()
                        .position(|r| r.block == me.block && r.thread == me.thread);
                    match known {
                        Some(k) => cell.readers[k] = me,
                        None => {
                            if cell.readers.len() == READERS {
                                cell.readers.remove(0);
                            }
                            cell.readers.push(me);
                        }
                    }
                }
                Touch::Write => cell.writer = Some(me),
                Touch::Atomic => cell.atomic = Some(me),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{Touch, Tracker};

    fn at(t: &mut Tracker, thread: u32, touch: Touch, addr: u64, len: usize) -> Result<(), String> {
        t.thread = thread;
        t.access(false, addr, len, touch)
    }

    #[test]
    fn a_barrier_orders_the_threads_of_one_block_only() {
        let mut t = Tracker::default();
        t.start_launch();
        t.start_block();
        at(&mut t, 3, Touch::Write, 64, 8).unwrap();
        // The same thread: program order.
        at(&mut t, 3, Touch::Read, 64, 8).unwrap();
        let e = at(&mut t, 4, Touch::Read, 68, 4).unwrap_err();
        assert!(
            e.contains("thread 4 reads") && e.contains("thread 3 wrote since the last barrier"),
            "{e}"
        );
        t.barrier();
        at(&mut t, 4, Touch::Read, 64, 8).unwrap();
        at(&mut t, 5, Touch::Read, 64, 8).unwrap();
        // Another block: no barrier orders it with the first.
        t.start_block();
        let e = at(&mut t, 0, Touch::Write, 64, 8).unwrap_err();
        assert!(
            e.contains("thread 0 writes")
                && e.contains("of block 1")
                && e.contains("in the same launch"),
            "{e}"
        );
        // A new launch is ordered after the last.
        t.start_launch();
        t.start_block();
        at(&mut t, 0, Touch::Write, 64, 8).unwrap();
    }

    #[test]
    fn atomics_combine_and_meet_plain_accesses_of_their_element_only() {
        let mut t = Tracker::default();
        t.start_launch();
        t.start_block();
        at(&mut t, 0, Touch::Atomic, 64, 4).unwrap();
        at(&mut t, 1, Touch::Atomic, 64, 4).unwrap();
        // A neighbour byte of the word a 1-byte update swaps.
        at(&mut t, 2, Touch::Write, 65, 1).unwrap();
        let e = at(&mut t, 3, Touch::Read, 64, 4).unwrap_err();
        assert!(e.contains("updated"), "{e}");
        t.start_block();
        at(&mut t, 0, Touch::Atomic, 64, 4).unwrap();
        let e = at(&mut t, 0, Touch::Write, 64, 4).unwrap_err();
        assert!(e.contains("of block"), "{e}");
    }

    #[test]
    fn allowed_races_are_not_checked() {
        let mut t = Tracker {
            off: true,
            ..Tracker::default()
        };
        t.start_launch();
        t.start_block();
        at(&mut t, 0, Touch::Write, 64, 8).unwrap();
        at(&mut t, 1, Touch::Write, 64, 8).unwrap();
    }
}
