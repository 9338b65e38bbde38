//! The schedule pass: which stream runs each GPU operation, which
//! cross-stream dependencies need an event, and where the host must wait for
//! GPU-produced data (sync points). The result lives beside the IR and is
//! visible through introspection and the exporters; the host glue emits a
//! `.wait()` at every sync point, and rustc rejects the glue if one is missing.

use crate::ir::{ContainerId, StateId, StmtId, StreamPolicy};
use proc_macro2::Span;

#[derive(Clone, Debug)]
pub struct Schedule {
    pub policy: StreamPolicy,
    /// How many streams a call uses: 0 means the legacy default stream.
    pub num_streams: usize,
    /// Indexed by `StateId`.
    pub states: Vec<StateSchedule>,
}

#[derive(Clone, Debug, Default)]
pub struct StateSchedule {
    /// Per statement: the stream index of a GPU operation (kernel or copy
    /// touching GPU memory); None for host work.
    pub stream_of: Vec<Option<usize>>,
    /// Cross-stream dependencies: the consumer's stream waits on an event
    /// recorded on the producer's stream.
    pub events: Vec<EventEdge>,
    /// Host waits, in the order the glue performs them.
    pub syncs: Vec<SyncPoint>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventEdge {
    pub producer: StmtId,
    pub consumer: StmtId,
    pub container: ContainerId,
}

#[derive(Clone, Debug)]
pub struct SyncPoint {
    /// The wait happens right before this statement, or at the end of the state.
    pub site: SyncSite,
    /// The host container whose in-flight copy is waited for.
    pub container: ContainerId,
    pub reason: SyncReason,
    /// The user's tokens that need the data (the read, the edge, the `wait`).
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncSite {
    Before(StmtId),
    StateEnd,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncReason {
    /// A host tasklet reads the data.
    HostTasklet,
    /// A `cpu` or `seq` map reads the data.
    HostMap,
    /// A kernel receives the value of a host scalar by value.
    KernelArgument,
    /// A host->host or host->GPU copy reads it.
    CopySource,
    /// The state ends: host data is settled before interstate edges run.
    StateEnd,
    /// `wait NAME;` in a `#[sync(manual)]` SDFG.
    Manual,
}

/// Where in a state's statement list a schedule entry belongs.
pub type StmtRef = (StateId, StmtId);
