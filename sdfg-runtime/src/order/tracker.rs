//! Buffer trackers: who used a buffer last, so that uses on different streams
//! are ordered with events and host accesses wait for in-flight device work.
//!
//! A tracker remembers the last write (stream, position) and the reads since
//! that write (at most one per stream, the latest). Before an operation on a
//! stream S is issued, every conflicting use on another stream that is not
//! known to be finished becomes an event wait on S (read-after-write for a
//! read; write-after-read and write-after-write for a write). A write clears
//! the reads: it was ordered after them, so later users are ordered after
//! them through it.

use crate::error::Result;
use crate::lock::lock;
use crate::order::device_order::DeviceOrder;
use crate::order::stream_state::StreamInner;
use std::sync::{Arc, Mutex};

/// How an operation touches a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AccessKind {
    Read,
    Write,
}

/// One use of a buffer: the operation at `position` of `stream`.
#[derive(Clone)]
pub(crate) struct Use {
    pub(crate) stream: Arc<StreamInner>,
    pub(crate) position: u64,
}

impl Use {
    fn finished_known(&self) -> bool {
        self.stream.known_complete(self.position)
    }
}

#[derive(Default)]
struct TrackerState {
    last_write: Option<Use>,
    reads: Vec<Use>,
}

/// The tracker of one buffer.
#[derive(Default)]
pub(crate) struct Tracker {
    state: Mutex<TrackerState>,
}

impl Tracker {
    /// The uses that an access of `kind` must be ordered after and that are
    /// not known to be finished (any stream, including the caller's).
    pub(crate) fn unfinished_conflicts(&self, kind: AccessKind) -> Vec<Use> {
        let mut out = Vec::new();
        self.unfinished_conflicts_into(kind, None, &mut out);
        out
    }

    /// [`Tracker::unfinished_conflicts`] on streams other than `except`
    /// (the issuing stream, whose own uses its FIFO order covers),
    /// appended to `out`, which stays unallocated when there are none: the
    /// usual case of a call whose kernels follow each other on one stream,
    /// or whose previous call was waited for.
    pub(crate) fn unfinished_conflicts_into(
        &self,
        kind: AccessKind,
        except: Option<u64>,
        out: &mut Vec<Use>,
    ) {
        let mut state = lock(&self.state);
        // Forget what is known finished, so the tracker does not pin streams.
        if state.last_write.as_ref().is_some_and(Use::finished_known) {
            state.last_write = None;
        }
        state.reads.retain(|u| !u.finished_known());
        let other = |u: &&Use| Some(u.stream.id) != except;
        out.extend(state.last_write.iter().filter(other).cloned());
        if kind == AccessKind::Write {
            out.extend(state.reads.iter().filter(other).cloned());
        }
    }

    /// Records that the operation at `position` of `stream` accesses the buffer.
    pub(crate) fn record(&self, kind: AccessKind, stream: &Arc<StreamInner>, position: u64) {
        let mut state = lock(&self.state);
        let new_use = Use {
            stream: Arc::clone(stream),
            position,
        };
        match kind {
            AccessKind::Write => {
                state.last_write = Some(new_use);
                state.reads.clear();
            }
            AccessKind::Read => {
                if let Some(r) = state.reads.iter_mut().find(|r| r.stream.id == stream.id) {
                    r.position = r.position.max(position);
                } else {
                    state.reads.push(new_use);
                }
            }
        }
    }

    /// Blocks the host until no unfinished device use conflicts with a host
    /// access of `kind` (one counted host sync per stream waited for).
    /// Kernel faults stay in their slots for the call or the stream
    /// `synchronize()` they belong to.
    pub(crate) fn host_wait(&self, kind: AccessKind, order: &DeviceOrder) -> Result<()> {
        let uses = self.unfinished_conflicts(kind);
        let mut first_error = None;
        for u in merge_by_stream(uses) {
            if let Err(e) = u.stream.host_wait(u.position, order, None) {
                first_error.get_or_insert(e);
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

/// One use per stream: the latest position (earlier ones are implied, FIFO).
pub(crate) fn merge_by_stream(uses: Vec<Use>) -> Vec<Use> {
    let mut merged: Vec<Use> = Vec::with_capacity(uses.len());
    for u in uses {
        match merged.iter_mut().find(|m| m.stream.id == u.stream.id) {
            Some(m) => m.position = m.position.max(u.position),
            None => merged.push(u),
        }
    }
    merged
}
