//! Graph segments of program calls: the per-context cache of recorded
//! segments and the steps the glue takes at a segment's entry and exit.
//!
//! A *segment* is a run of states that the compiler found capturable
//! (only kernels and device-to-device copies, edges that read only
//! symbols; or one loop decided on the device). Everything its stream
//! operations depend on is in the segment's key: the entry state, the
//! values of all symbols at entry, the identities of the program's device
//! buffers (device addresses) and of the fault words of the context's
//! streams. The same key gives the same operations, so a recording made
//! for a key is the segment for that key.
//!
//! Policy ("auto"): the first call with a key runs on streams and is
//! remembered; the second records the segment (its operations are
//! described, not run), builds the graph and launches it; later calls
//! launch the cached graph. A segment of fewer than [`MIN_OPERATIONS`]
//! operations, or one that could not be recorded or built, runs on
//! streams from then on (the reason is kept in the program's notes). Each
//! context keeps at most [`CACHE_ENTRIES`] keys, least recently used out.

use crate::device::Device;
use crate::elem::Elem;
use crate::error::{Error, Result};
use crate::kernel::args::KernelArg;
use crate::lock::lock;
use crate::memory::device_buffer::{DeviceBuffer, DeviceMemory};
use crate::order::recording::{self, OpWork, RecordedOp};
use crate::order::tracker::{AccessKind, Tracker};
use crate::streams::graph::ReadyGraph;
use crate::streams::stream::Stream;
use std::sync::{Arc, Mutex};

/// Keys one context remembers (segments seen, recorded or refused).
pub const CACHE_ENTRIES: usize = 8;

/// A segment with fewer kernel launches and copies runs on streams: one
/// graph launch costs about what a few launches do.
pub const MIN_OPERATIONS: usize = 4;

/// What the glue does next, at a segment's entry or exit.
#[derive(Debug)]
pub enum GraphStep {
    /// Run the segment's states on streams.
    Streams,
    /// Run the segment's states while recording: their kernel launches and
    /// device copies are recorded, not issued, until `graph_leave`.
    Record,
    /// The segment ran as one graph launch: continue at its exit.
    Ran(GraphExit),
    /// The recording did not become a graph: run the segment again, on
    /// streams, from its entry (nothing of it was issued).
    Restart,
}

/// Where a segment left the state machine: the next state and the values
/// of every symbol there (as `Elem::to_bits`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphExit {
    state: usize,
    symbols: Vec<u64>,
}

impl GraphExit {
    /// The state the machine continues at (`usize::MAX`: the end).
    pub fn state(&self) -> usize {
        self.state
    }
    /// Symbol `i`'s bits at the exit.
    ///
    /// # Panics
    /// If there is no symbol `i` (a code-generator bug).
    pub fn symbol(&self, i: usize) -> u64 {
        self.symbols[i]
    }
}

/// Ends a recording the glue left by an error (`?`) or a panic, so that no
/// later operation of this thread is recorded instead of issued.
#[derive(Debug, Default)]
pub struct GraphGuard {
    _private: (),
}

impl Drop for GraphGuard {
    fn drop(&mut self) {
        if recording::is_recording() {
            let _ = recording::end();
        }
    }
}

/// A least-recently-used map from keys (words) to values.
pub(crate) struct Lru<V> {
    entries: Vec<(Vec<u64>, V, u64)>,
    clock: u64,
    capacity: usize,
}

impl<V> Lru<V> {
    pub(crate) fn new(capacity: usize) -> Self {
        Lru {
            entries: Vec::new(),
            clock: 0,
            capacity: capacity.max(1),
        }
    }

    /// The value of `key`, now the most recently used.
    pub(crate) fn get_mut(&mut self, key: &[u64]) -> Option<&mut V> {
        self.clock += 1;
        let clock = self.clock;
        let entry = self.entries.iter_mut().find(|e| e.0 == key)?;
        entry.2 = clock;
        Some(&mut entry.1)
    }

    /// Sets `key`'s value (the least recently used key makes room).
    pub(crate) fn insert(&mut self, key: Vec<u64>, value: V) {
        self.clock += 1;
        if let Some(entry) = self.entries.iter_mut().find(|e| e.0 == key) {
            entry.1 = value;
            entry.2 = self.clock;
            return;
        }
        if self.entries.len() == self.capacity {
            if let Some(oldest) = (0..self.entries.len()).min_by_key(|&i| self.entries[i].2) {
                self.entries.swap_remove(oldest);
            }
        }
        self.entries.push((key, value, self.clock));
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

/// What a context knows about one key.
enum Entry {
    /// Seen once: that call ran on streams.
    Seen,
    /// Runs on streams from now on; why.
    Streams,
    Ready(Box<Ready>),
}

struct Ready {
    graph: ReadyGraph,
    exit: GraphExit,
    /// Per buffer of the glue's list (by index), how the graph touches it.
    accesses: Vec<(usize, AccessKind)>,
}

/// The graph state of one context.
pub(crate) struct Graphs {
    cache: Lru<Entry>,
    /// The key of the segment being recorded.
    recording: Option<Vec<u64>>,
    /// Reasons segments of this program ran on streams (shared by its contexts).
    notes: Arc<Mutex<Vec<String>>>,
}

impl Graphs {
    pub(crate) fn new(notes: Arc<Mutex<Vec<String>>>) -> Self {
        Graphs {
            cache: Lru::new(CACHE_ENTRIES),
            recording: None,
            notes,
        }
    }

    pub(crate) fn note(&self, why: String) {
        const MAX_NOTES: usize = 32;
        let mut notes = lock(&self.notes);
        if !notes.contains(&why) && notes.len() < MAX_NOTES {
            notes.push(why);
        }
    }
}

/// The key of the segment entered at `entry`: the entry, the symbols, the
/// buffers' identities, and `faults` (the identities of the fault words
/// the segment's kernels are given).
pub(crate) fn key(
    entry: usize,
    symbols: &[u64],
    buffers: &[KernelArg<'_>],
    faults: impl Iterator<Item = u64>,
) -> Vec<u64> {
    let mut key = Vec::with_capacity(2 + symbols.len() + buffers.len());
    key.push(entry as u64);
    key.extend_from_slice(symbols);
    key.extend(
        buffers
            .iter()
            .map(|b| b.buffer_view().map_or(0, |v| v.identity())),
    );
    key.extend(faults);
    key
}

impl Graphs {
    /// A segment's entry with `key` (see `Context::graph_enter`); a ready
    /// graph is launched on `origin`.
    pub(crate) fn enter(
        &mut self,
        device: &Device,
        origin: &Stream,
        key: Vec<u64>,
        buffers: &[KernelArg<'_>],
    ) -> Result<GraphStep> {
        if recording::is_recording() {
            return Ok(GraphStep::Streams);
        }
        match self.cache.get_mut(&key) {
            None => {
                self.cache.insert(key, Entry::Seen);
                Ok(GraphStep::Streams)
            }
            Some(Entry::Streams) => Ok(GraphStep::Streams),
            Some(Entry::Seen) => {
                self.recording = Some(key);
                recording::begin(device.id());
                Ok(GraphStep::Record)
            }
            Some(Entry::Ready(ready)) => {
                launch_ready(origin, ready, buffers)?;
                Ok(GraphStep::Ran(ready.exit.clone()))
            }
        }
    }

    /// A recorded segment's exit (see `Context::graph_leave`).
    pub(crate) fn leave(
        &mut self,
        device: &Device,
        origin: &Stream,
        exit: usize,
        symbols: &[u64],
        buffers: &[KernelArg<'_>],
    ) -> Result<GraphStep> {
        let recorded = recording::end();
        let (Some(key), Some(recorded)) = (self.recording.take(), recorded) else {
            return Ok(GraphStep::Restart);
        };
        let exit = GraphExit {
            state: exit,
            symbols: symbols.to_vec(),
        };
        let ready = recorded
            .map_err(|why| format!("the segment could not be recorded: {why}"))
            .and_then(|recording| {
                if recording.operations < MIN_OPERATIONS {
                    return Err(format!(
                        "a segment of {} operations runs on streams (a graph needs {MIN_OPERATIONS})",
                        recording.operations
                    ));
                }
                let accesses = buffer_accesses(&recording::touched(&recording), buffers)?;
                let graph = ReadyGraph::new(device, recording)
                    .map_err(|e| format!("the graph could not be built: {e}"))?;
                Ok(Ready {
                    graph,
                    exit: exit.clone(),
                    accesses,
                })
            });
        let ready = match ready {
            Ok(ready) => ready,
            Err(why) => {
                self.note(why);
                self.cache.insert(key, Entry::Streams);
                return Ok(GraphStep::Restart);
            }
        };
        match launch_ready(origin, &ready, buffers) {
            Ok(()) => {
                self.cache.insert(key, Entry::Ready(Box::new(ready)));
                Ok(GraphStep::Ran(exit))
            }
            Err(e) => {
                self.note(format!("the graph launch failed: {e}"));
                self.cache.insert(key, Entry::Streams);
                Err(e)
            }
        }
    }

    /// How many keys the cache holds.
    pub(crate) fn keys(&self) -> usize {
        self.cache.len()
    }
}

fn launch_ready(origin: &Stream, ready: &Ready, buffers: &[KernelArg<'_>]) -> Result<()> {
    let mut accesses: Vec<(&Tracker, AccessKind)> = Vec::with_capacity(ready.accesses.len());
    for &(i, kind) in &ready.accesses {
        let tracker = buffers
            .get(i)
            .and_then(|b| b.buffer_view())
            .map(|v| v.tracker())
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "graph buffer {i} is missing from the call's list (code generator bug)"
                ))
            })?;
        accesses.push((tracker, kind));
    }
    origin.launch_graph(&ready.graph, &accesses)
}

/// Closes a recorded loop body: it runs again while the `u32` in `flag`
/// (written by the body) is nonzero.
pub(crate) fn loop_end(flag: &DeviceBuffer<u32>) {
    let work = match flag.memory() {
        DeviceMemory::Cuda(alloc) => OpWork::CudaCondition { flag: alloc.ptr },
        DeviceMemory::Cpu(cells) => {
            let cells = Arc::clone(cells);
            OpWork::CpuCondition(Arc::new(move || {
                cells.cells.first().is_some_and(|c| u32::load(c) != 0)
            }))
        }
    };
    let op = RecordedOp::new(work, &[(flag.tracker(), AccessKind::Read)]);
    recording::loop_end(flag.device().id(), op);
}

/// The recorded buffers (by tracker) as indices into the glue's list.
fn buffer_accesses(
    touched: &[(usize, AccessKind)],
    buffers: &[KernelArg<'_>],
) -> std::result::Result<Vec<(usize, AccessKind)>, String> {
    touched
        .iter()
        .map(|&(tracker, kind)| {
            buffers
                .iter()
                .position(|b| {
                    b.buffer_view()
                        .is_some_and(|v| v.tracker() as *const Tracker as usize == tracker)
                })
                .map(|i| (i, kind))
                .ok_or_else(|| "the segment touches a buffer the call does not list".to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_key_makes_room() {
        let mut lru = Lru::new(2);
        lru.insert(vec![1], "a");
        lru.insert(vec![2], "b");
        assert_eq!(lru.get_mut(&[1]).copied(), Some("a")); // 1 is now newer than 2
        lru.insert(vec![3], "c");
        assert_eq!(lru.len(), 2);
        assert!(lru.get_mut(&[2]).is_none(), "2 was the least recently used");
        assert_eq!(lru.get_mut(&[1]).copied(), Some("a"));
        assert_eq!(lru.get_mut(&[3]).copied(), Some("c"));
        lru.insert(vec![3], "C"); // replacing keeps the size
        assert_eq!((lru.len(), lru.get_mut(&[3]).copied()), (2, Some("C")));
    }

    #[test]
    fn keys_differ_in_any_word() {
        let mut lru = Lru::new(4);
        lru.insert(vec![0, 5, 7], 1);
        assert!(lru.get_mut(&[0, 5]).is_none());
        assert!(lru.get_mut(&[0, 5, 8]).is_none());
        assert_eq!(lru.get_mut(&[0, 5, 7]).copied(), Some(1));
    }
}
