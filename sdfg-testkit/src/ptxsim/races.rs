//! Races between the threads of one block: two threads touching one byte
//! of `shared` or global memory between two barriers, one of them writing
//! it. On a GPU such a pair has no order (the threads run concurrently);
//! here they run one after another, so the interpreter would silently pick
//! one order. Every access of a block is logged per byte with the barrier
//! phase it happened in, and a conflicting pair is an error naming both
//! threads: the compiler's barriers (and its race test of thread maps)
//! promise there is none.
//!
//! Atomics (`atom`, `red`) do not conflict with each other. An atomic and
//! a plain access conflict when they have the same address and width (an
//! element read while another thread updates it): a compare-and-swap on
//! the 32-bit word around a 1- or 2-byte element only changes that element,
//! so it does not conflict with plain accesses to its neighbours. The plain
//! load that starts a compare-and-swap loop counts as part of the atomic
//! (the swap checks what it read).

use std::collections::HashMap;

/// How an access touches memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Touch {
    Read,
    Write,
    Atomic,
}

/// One access: the thread, and the access's address and width (what an
/// atomic is compared by).
#[derive(Clone, Copy, Debug)]
struct By {
    thread: u32,
    unit: (u64, usize),
}

/// What one byte saw in the current phase.
#[derive(Default)]
struct Cell {
    phase: u64,
    writer: Option<By>,
    /// The first reader, and the first reader on another thread.
    reader: Option<By>,
    second_reader: Option<By>,
    atomic: Option<By>,
}

/// The accesses of the running block since its last barrier.
#[derive(Default)]
pub(super) struct Tracker {
    /// No check (`Memory::allow_races`).
    pub(super) off: bool,
    phase: u64,
    /// The thread now running (linear index in the block).
    pub(super) thread: u32,
    /// By (shared?, byte address).
    cells: HashMap<(bool, u64), Cell>,
}

impl Tracker {
    /// A new block: nothing touched.
    pub(super) fn start_block(&mut self) {
        self.cells.clear();
        self.phase = 0;
    }

    /// Every thread of the block passed a barrier.
    pub(super) fn barrier(&mut self) {
        self.phase += 1;
    }

    /// Logs an access of `len` bytes at `addr` by the running thread; an
    /// error if it conflicts with another thread's access in this phase.
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
            thread: self.thread,
            unit: (addr, len),
        };
        let other = |b: &Option<By>| b.filter(|b| b.thread != me.thread);
        let same_unit = |b: &Option<By>| other(b).filter(|b| b.unit == me.unit);
        for byte in addr..addr + len as u64 {
            let cell = self.cells.entry((shared, byte)).or_default();
            if cell.phase != self.phase {
                *cell = Cell {
                    phase: self.phase,
                    ..Cell::default()
                };
            }
            let reader = other(&cell.reader).or(other(&cell.second_reader));
            let conflict = match touch {
                Touch::Read => other(&cell.writer)
                    .map(|w| (w, "wrote"))
                    .or(same_unit(&cell.atomic).map(|a| (a, "updated"))),
                Touch::Write => other(&cell.writer)
                    .map(|w| (w, "wrote"))
                    .or(reader.map(|r| (r, "read")))
                    .or(same_unit(&cell.atomic).map(|a| (a, "updated"))),
                Touch::Atomic => same_unit(&cell.writer)
                    .map(|w| (w, "wrote"))
                    .or(same_unit(&cell.reader).map(|r| (r, "read")))
                    .or(same_unit(&cell.second_reader).map(|r| (r, "read"))),
            };
            if let Some((by, what)) = conflict {
                let space = if shared { "shared" } else { "global" };
                let verb = match touch {
                    Touch::Read => "reads",
                    Touch::Write => "writes",
                    Touch::Atomic => "updates",
                };
                return Err(format!(
                    "race: thread {} {verb} {space} byte {byte:#x}, which thread {} {what} since the last barrier",
                    me.thread, by.thread
                ));
            }
            match touch {
                Touch::Read => match cell.reader {
                    None => cell.reader = Some(me),
                    Some(r) if r.thread != me.thread && cell.second_reader.is_none() => {
                        cell.second_reader = Some(me)
                    }
                    Some(_) => {}
                },
                Touch::Write => cell.writer = Some(me),
                Touch::Atomic => cell.atomic = Some(me),
            }
        }
        Ok(())
    }
}
