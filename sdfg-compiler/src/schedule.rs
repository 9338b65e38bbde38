//! The schedule pass: which stream runs each GPU operation, which
//! cross-stream dependencies need an event, and where the host must wait for
//! GPU-produced data (sync points). The result lives beside the IR and is
//! visible through introspection and the exporters; the host glue emits a
//! `.wait()` at every sync point, and rustc rejects the glue if one is missing.

use crate::ir::{ContainerId, StmtId, StreamPolicy};
use proc_macro2::Span;

#[derive(Clone, Debug)]
pub struct Schedule {
    pub policy: StreamPolicy,
    /// The streams a call uses.
    pub streams: Streams,
    /// Indexed by `StateId`.
    pub states: Vec<StateSchedule>,
}

/// The streams a call uses; stream indices in [`StateSchedule::stream_of`]
/// are below [`Streams::count`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Streams {
    /// Every GPU operation on the device's legacy default stream
    /// (`#[streams(default)]`): stream index 0 is that stream, and no
    /// state has events.
    Default,
    /// This many streams (at least 1), created for each call context.
    Created(usize),
}

impl Streams {
    /// How many stream indices a call uses (the default stream is one).
    pub fn count(self) -> usize {
        match self {
            Streams::Default => 1,
            Streams::Created(n) => n,
        }
    }
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
    /// The barriers inside each block map of the state.
    pub blocks: Vec<BlockBarriers>,
}

/// The barriers of one block map's kernel (`ir::barriers` places them).
#[derive(Clone, Debug)]
pub struct BlockBarriers {
    pub stmt: StmtId,
    /// Barriers between phases, in program order.
    pub phase_barriers: Vec<PhaseBarrier>,
    /// Thread maps whose block reductions (into the listed containers)
    /// have their own barrier, between the warps' slots and thread 0's
    /// update of the targets (none in a block of one warp).
    pub reduction_barriers: Vec<(String, Vec<ContainerId>)>,
}

/// A barrier the compiler placed before a phase.
#[derive(Clone, Debug)]
pub struct PhaseBarrier {
    /// Why: "`write` reads `mx`, which `reduce_max` reduced into".
    pub reason: String,
    /// The phase after the barrier.
    pub span: Span,
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
    /// A copy writes it again (the in-flight buffer must come back first).
    CopyTarget,
    /// The state ends: host data is settled before interstate edges run.
    StateEnd,
    /// `wait NAME;` in a `#[sync(manual)]` SDFG.
    Manual,
}

use crate::ir::{Access, MapSchedule, Sdfg, State, StatementKind, Storage, SyncMode};
use std::collections::HashMap;

/// Assigns streams, predicts cross-stream events and places host sync points.
pub fn schedule(sdfg: &Sdfg) -> Schedule {
    let states: Vec<StateSchedule> = sdfg
        .states
        .iter()
        .map(|s| schedule_state(sdfg, s))
        .collect();
    let used = states
        .iter()
        .flat_map(|s| s.stream_of.iter().flatten())
        .map(|&s| s + 1)
        .max()
        .unwrap_or(0);
    // Under `default` every GPU statement is on stream 0 (the legacy
    // default stream), so no state has events.
    let streams = match sdfg.streams {
        StreamPolicy::Default => Streams::Default,
        // A program with no GPU work still gets one stream: `run_on` and the
        // runtime's context need somewhere to order copies.
        _ => Streams::Created(used.max(1)),
    };
    Schedule {
        policy: sdfg.streams,
        streams,
        states,
    }
}

/// True for the statements that run on a GPU stream: `gpu` maps and copies
/// with a GPU end.
pub fn is_gpu_statement(sdfg: &Sdfg, kind: &StatementKind) -> bool {
    match kind {
        StatementKind::Map(m) => m.schedule == MapSchedule::Gpu,
        StatementKind::Copy(c) => {
            sdfg.containers[c.src].storage == Storage::Gpu
                || sdfg.containers[c.dst].storage == Storage::Gpu
        }
        // A call is inlined before scheduling (validate rejects an SDFG
        // that still holds one).
        StatementKind::Tasklet(_) | StatementKind::Wait(_) | StatementKind::Nested(_) => false,
    }
}

fn stream_limit(policy: StreamPolicy) -> usize {
    match policy {
        StreamPolicy::Default | StreamPolicy::Single => 1,
        StreamPolicy::Max(n) => n.max(1) as usize,
        StreamPolicy::Auto => usize::MAX,
    }
}

/// Stream assignment is list scheduling in textual order: a GPU statement
/// continues the stream of a GPU predecessor that is still that stream's
/// last operation; otherwise it opens a new stream while the policy allows,
/// else joins the stream that has been idle longest. Independent work thus
/// lands on different streams (a fork), and a join waits through events.
fn schedule_state(sdfg: &Sdfg, state: &State) -> StateSchedule {
    let limit = stream_limit(sdfg.streams);
    let mut stream_of: Vec<Option<usize>> = vec![None; state.stmts.len()];
    // Last statement issued on each stream.
    let mut tail: Vec<StmtId> = Vec::new();
    for (id, st) in state.stmts.iter().enumerate() {
        if !is_gpu_statement(sdfg, &st.kind) {
            continue;
        }
        let mut preds = state.graph.predecessors(id);
        preds.sort_unstable_by(|a, b| b.cmp(a)); // most recent first
        let continued = preds
            .iter()
            .find_map(|&p| stream_of[p].filter(|&s| tail[s] == p));
        let stream = match continued {
            Some(s) => s,
            None if tail.len() < limit => {
                tail.push(id);
                tail.len() - 1
            }
            None => (0..tail.len()).min_by_key(|&s| tail[s]).unwrap_or(0),
        };
        tail[stream] = id;
        stream_of[id] = Some(stream);
    }
    let (events, syncs) = simulate(sdfg, state, &stream_of);
    StateSchedule {
        stream_of,
        events,
        syncs,
        blocks: block_barriers(sdfg, state),
    }
}

/// The barriers of every block map of `state`.
fn block_barriers(sdfg: &Sdfg, state: &State) -> Vec<BlockBarriers> {
    let mut out = Vec::new();
    for (id, st) in state.stmts.iter().enumerate() {
        let StatementKind::Map(map) = &st.kind else {
            continue;
        };
        if map.block.is_none() {
            continue;
        }
        let phase_barriers = crate::ir::barriers(&map.body.stmts)
            .into_iter()
            .map(|b| PhaseBarrier {
                reason: b.reason.to_string(),
                span: b.span,
            })
            .collect();
        // A block of one warp reduces with shuffles alone.
        let single_warp = map.block.as_ref().is_some_and(|b| b.single_warp());
        let reduction_barriers = crate::ir::thread_maps(&map.body.stmts)
            .into_iter()
            .filter(|_| !single_warp)
            .filter_map(|t| {
                let targets: Vec<ContainerId> = crate::ir::uniform_reductions(t, &sdfg.containers)
                    .iter()
                    .map(|r| r.container)
                    .collect();
                (!targets.is_empty()).then(|| (t.name.text.clone(), targets))
            })
            .collect();
        out.push(BlockBarriers {
            stmt: id,
            phase_barriers,
            reduction_barriers,
        });
    }
    out
}

/// Replays one state as the runtime will run it, assuming all earlier work is
/// complete when the state starts, to place the host sync points and predict
/// the cross-stream events.
///
/// Events follow the runtime's buffer tracking: before an operation on
/// stream `s`, the conflicting earlier GPU uses of its buffers (the last
/// write; for a write also the reads since), merged to the latest one per
/// other stream `t`, each need a wait on `t` unless `s` already waited for
/// that far on `t` or the host saw it complete (a sync point). The glue
/// marks every producer found here right after issuing it
/// (`Stream::mark`), so the wait is on that exact position and independent
/// work issued on `t` afterwards does not delay `s`.
///
/// Sync points: a device-to-host copy leaves its destination in flight until
/// the host needs it: a host statement touching it, a kernel taking it by
/// value, a copy reading or replacing it, `wait` (manual mode), or the end
/// of the state (host data is settled before interstate edges run). In
/// manual mode only `wait` and the state end sync; a read before the `wait`
/// is then a type error in the generated glue, reported at the read.
fn simulate(
    sdfg: &Sdfg,
    state: &State,
    stream_of: &[Option<usize>],
) -> (Vec<EventEdge>, Vec<SyncPoint>) {
    let manual = sdfg.sync == SyncMode::Manual;
    let nstreams = stream_of
        .iter()
        .flatten()
        .map(|&s| s + 1)
        .max()
        .unwrap_or(0);
    // Per stream: operations issued, how far the host has seen it complete,
    // and per other stream how far it already waited.
    let mut issued = vec![0usize; nstreams];
    let mut completion = Completion {
        done: vec![0; nstreams],
        wait_log: vec![Vec::new(); nstreams],
    };
    let mut waited = vec![vec![0usize; nstreams]; nstreams];
    // Per GPU container: last writer and readers since, as (stream, position, stmt).
    let mut writer: HashMap<ContainerId, (usize, usize, StmtId)> = HashMap::new();
    let mut readers: HashMap<ContainerId, Vec<(usize, usize, StmtId)>> = HashMap::new();
    // Host containers written by an in-flight copy: container -> (stream, position).
    let mut in_flight: Vec<(ContainerId, usize, usize)> = Vec::new();
    let mut events = Vec::new();
    let mut syncs = Vec::new();

    let mut sync = |c: ContainerId,
                    site: SyncSite,
                    reason: SyncReason,
                    span: Span,
                    in_flight: &mut Vec<(ContainerId, usize, usize)>,
                    completion: &mut Completion| {
        if let Some(k) = in_flight.iter().position(|f| f.0 == c) {
            let (_, s, pos) = in_flight.remove(k);
            completion.finish(s, pos);
            syncs.push(SyncPoint {
                site,
                container: c,
                reason,
                span,
            });
        }
    };

    for (id, st) in state.stmts.iter().enumerate() {
        // 1. Host needs before this statement.
        let gpu = stream_of[id].is_some();
        for m in &st.memlets {
            let storage = sdfg.containers[m.container].storage;
            if !storage.is_host() {
                continue;
            }
            let reason = match &st.kind {
                StatementKind::Wait(_) => SyncReason::Manual,
                StatementKind::Copy(c) if c.dst == m.container && m.access.is_write() => {
                    SyncReason::CopyTarget
                }
                StatementKind::Copy(_) => SyncReason::CopySource,
                StatementKind::Map(map) if map.schedule == MapSchedule::Gpu => {
                    SyncReason::KernelArgument
                }
                StatementKind::Map(_) => SyncReason::HostMap,
                // A call is inlined before scheduling; as a host step it
                // would need settled host data like a tasklet.
                StatementKind::Tasklet(_) | StatementKind::Nested(_) => SyncReason::HostTasklet,
            };
            let automatic = !manual || reason == SyncReason::CopyTarget;
            if automatic || reason == SyncReason::Manual {
                sync(
                    m.container,
                    SyncSite::Before(id),
                    reason,
                    m.span,
                    &mut in_flight,
                    &mut completion,
                );
            }
        }
        if let StatementKind::Wait(w) = &st.kind {
            sync(
                w.container,
                SyncSite::Before(id),
                SyncReason::Manual,
                st.span,
                &mut in_flight,
                &mut completion,
            );
        }
        if !gpu {
            continue;
        }
        // 2. Cross-stream dependencies of this GPU operation.
        let s = stream_of[id].unwrap_or(0);
        let mut latest: Vec<Option<(usize, StmtId, ContainerId)>> = vec![None; nstreams];
        for m in &st.memlets {
            if sdfg.containers[m.container].storage != Storage::Gpu {
                continue;
            }
            let mut uses: Vec<(usize, usize, StmtId)> =
                writer.get(&m.container).copied().into_iter().collect();
            if m.access.is_write() {
                uses.extend(readers.get(&m.container).into_iter().flatten().copied());
            }
            for (t, pos, p) in uses {
                if t != s && completion.done[t] < pos && latest[t].is_none_or(|(q, _, _)| pos > q) {
                    latest[t] = Some((pos, p, m.container));
                }
            }
        }
        for (t, need) in latest.into_iter().enumerate() {
            let Some((pos, p, container)) = need else {
                continue;
            };
            if waited[s][t] >= pos {
                continue;
            }
            waited[s][t] = pos;
            issued[s] += 1; // the runtime counts a wait as an operation of `s`
            completion.wait_log[s].push((issued[s], t, pos));
            events.push(EventEdge {
                producer: p,
                consumer: id,
                container,
            });
        }
        issued[s] += 1;
        let pos = issued[s];
        for m in &st.memlets {
            match sdfg.containers[m.container].storage {
                Storage::Gpu => match m.access {
                    Access::Read => {
                        let r = readers.entry(m.container).or_default();
                        r.retain(|u| u.0 != s);
                        r.push((s, pos, id));
                    }
                    Access::Write | Access::Reduce(_) => {
                        writer.insert(m.container, (s, pos, id));
                        readers.remove(&m.container);
                    }
                },
                // A device-to-host copy: its destination is in flight.
                _ if m.access.is_write() => in_flight.push((m.container, s, pos)),
                _ => {}
            }
        }
    }
    let end_span = state.name.span;
    for (c, _, _) in in_flight.clone() {
        sync(
            c,
            SyncSite::StateEnd,
            SyncReason::StateEnd,
            end_span,
            &mut in_flight,
            &mut completion,
        );
    }
    (events, syncs)
}

/// What the host knows finished, per stream, as the runtime tracks it: a
/// host wait finishes a stream up to a position, and with it every producer
/// position that stream had waited for on the GPU before that point.
struct Completion {
    done: Vec<usize>,
    /// Per stream: (position of the wait, producer stream, producer position).
    wait_log: Vec<Vec<(usize, usize, usize)>>,
}

impl Completion {
    fn finish(&mut self, stream: usize, position: usize) {
        self.done[stream] = self.done[stream].max(position);
        let (now, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.wait_log[stream])
            .into_iter()
            .partition(|w| w.0 <= position);
        self.wait_log[stream] = later;
        for (_, producer, at) in now {
            if self.done[producer] < at {
                self.finish(producer, at);
            }
        }
    }
}
