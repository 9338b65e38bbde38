//! Recording a segment of a program call, to replay it as one graph.
//!
//! While the glue of a program records a segment (between `begin` and
//! `end`, on the glue's thread), the kernel launches and device-to-device
//! copies it issues are *described*, not run: each becomes a
//! [`RecordedOp`] with the buffers it touches. Any other stream operation
//! issued meanwhile is refused (`Err`), and the recording fails; the glue
//! then runs the segment on streams. A loop decided on the device is
//! recorded once, between `loop_begin` and `loop_end`, with the operation
//! that reads its condition last.
//!
//! The recorder is per thread: a program's glue is straight-line code on
//! the caller's thread, nothing else runs there during a recording, and
//! work issued by other threads (on any stream) is never captured.
//!
//! Ordering inside a recording comes from the buffers alone, as the
//! trackers order stream operations: [`dependencies`] makes each operation
//! follow the last writer of every buffer it touches and, for a write, the
//! readers since. Streams do not matter inside a graph.

use crate::cuda::graph::{DeviceCopy2d, GraphNode, KernelNode, NodeWork};
use crate::order::tracker::{AccessKind, Tracker};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

/// A job the CPU device's replay runs, any number of times.
pub(crate) type CpuJob = Arc<dyn Fn() + Send + Sync>;
/// The CPU device's reading of a loop's condition flag.
pub(crate) type CpuCondition = Arc<dyn Fn() -> bool + Send + Sync>;

/// What one recorded operation does, per back end.
pub(crate) enum OpWork {
    CudaKernel(KernelNode),
    /// One device-to-device copy: its 2-D pieces.
    CudaCopy(Vec<DeviceCopy2d>),
    /// Ends a loop body: the handle is set from the `u32` at this address.
    CudaCondition {
        flag: u64,
    },
    Cpu(CpuJob),
    CpuCondition(CpuCondition),
}

/// One recorded operation and the buffers it touches (identified by their
/// trackers' addresses, valid while the recording's call runs).
pub(crate) struct RecordedOp {
    pub(crate) work: OpWork,
    pub(crate) accesses: Vec<(usize, AccessKind)>,
}

impl RecordedOp {
    /// An operation touching these buffers (identified by their trackers).
    pub(crate) fn new(work: OpWork, accesses: &[(&Tracker, AccessKind)]) -> RecordedOp {
        RecordedOp {
            work,
            accesses: accesses
                .iter()
                .map(|(t, k)| (*t as *const Tracker as usize, *k))
                .collect(),
        }
    }
}

/// A top-level element of a recording.
pub(crate) enum Item {
    Op(RecordedOp),
    /// A loop decided on the device: `body` runs, then again while its last
    /// operation (a condition) reads a nonzero flag.
    Loop {
        body: Vec<RecordedOp>,
    },
}

/// A finished recording: what one graph launch runs.
pub(crate) struct Recording {
    pub(crate) items: Vec<Item>,
    /// Kernel launches and copies recorded (a loop body counted once).
    pub(crate) operations: usize,
}

/// More operations than this in one segment: the recording fails (a graph
/// of this size would take long to build and hold much driver memory).
pub(crate) const MAX_OPERATIONS: usize = 20_000;

struct Recorder {
    device_id: u64,
    items: Vec<Item>,
    body: Option<Vec<RecordedOp>>,
    operations: usize,
    failure: Option<String>,
}

thread_local! {
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
    static RECORDER: RefCell<Option<Recorder>> = const { RefCell::new(None) };
}

/// Is this thread recording? (One thread-local read: the cost every stream
/// operation pays for graphs.)
pub(crate) fn is_recording() -> bool {
    ACTIVE.with(Cell::get)
}

/// Starts recording on this thread, for operations on device `device_id`
/// (a recording left over from an abandoned call is dropped).
pub(crate) fn begin(device_id: u64) {
    RECORDER.with(|r| {
        *r.borrow_mut() = Some(Recorder {
            device_id,
            items: Vec::new(),
            body: None,
            operations: 0,
            failure: None,
        })
    });
    ACTIVE.with(|a| a.set(true));
}

/// Stops recording: the recording, or why it failed (`None`: this thread
/// was not recording).
pub(crate) fn end() -> Option<Result<Recording, String>> {
    ACTIVE.with(|a| a.set(false));
    let recorder = RECORDER.with(|r| r.borrow_mut().take())?;
    Some(match (recorder.failure, recorder.body) {
        (Some(why), _) => Err(why),
        (None, Some(_)) => Err("a loop body was not closed".into()),
        (None, None) => Ok(Recording {
            items: recorder.items,
            operations: recorder.operations,
        }),
    })
}

fn with_recorder(f: impl FnOnce(&mut Recorder)) {
    RECORDER.with(|r| {
        if let Some(recorder) = r.borrow_mut().as_mut() {
            f(recorder)
        }
    })
}

fn fail(recorder: &mut Recorder, why: String) {
    recorder.failure.get_or_insert(why);
}

/// Records one operation of device `device_id`.
pub(crate) fn record(device_id: u64, op: RecordedOp) {
    with_recorder(|r| {
        if r.failure.is_some() {
            return;
        }
        if r.device_id != device_id {
            return fail(r, "an operation on another device".into());
        }
        r.operations += 1;
        if r.operations > MAX_OPERATIONS {
            return fail(
                r,
                format!("more than {MAX_OPERATIONS} operations in one segment"),
            );
        }
        match r.body.as_mut() {
            Some(body) => body.push(op),
            None => r.items.push(Item::Op(op)),
        }
    })
}

/// An operation that graphs cannot hold was issued while recording.
pub(crate) fn refuse(what: &str) {
    with_recorder(|r| fail(r, format!("{what} cannot be part of a graph")));
}

/// Has the recording failed (the glue stops recording early)?
pub(crate) fn failed() -> bool {
    let mut out = false;
    with_recorder(|r| out = r.failure.is_some());
    out
}

/// Opens a loop body (operations go into it until `loop_end`).
pub(crate) fn loop_begin() {
    with_recorder(|r| {
        if r.body.is_some() {
            return fail(r, "a loop inside a loop".into());
        }
        r.body = Some(Vec::new());
    })
}

/// Closes the loop body with the operation that reads its condition.
pub(crate) fn loop_end(device_id: u64, condition: RecordedOp) {
    with_recorder(|r| {
        let Some(mut body) = r.body.take() else {
            return fail(r, "a loop end without a loop".into());
        };
        if r.device_id != device_id {
            return fail(r, "a loop condition on another device".into());
        }
        body.push(condition);
        r.items.push(Item::Loop { body });
    })
}

/// For each operation (in order), the earlier operations it must follow:
/// the last writer of every buffer it touches and, for a write, every
/// reader since that write (the rules of the buffer trackers).
pub(crate) fn dependencies(accesses: &[Vec<(usize, AccessKind)>]) -> Vec<Vec<usize>> {
    #[derive(Default)]
    struct Uses {
        writer: Option<usize>,
        readers: Vec<usize>,
    }
    let mut buffers: HashMap<usize, Uses> = HashMap::new();
    let mut out: Vec<Vec<usize>> = Vec::with_capacity(accesses.len());
    for (i, op) in accesses.iter().enumerate() {
        let mut deps: Vec<usize> = Vec::new();
        for &(buffer, kind) in op {
            let uses = buffers.entry(buffer).or_default();
            deps.extend(uses.writer);
            if kind == AccessKind::Write {
                deps.extend(uses.readers.iter().copied());
            }
        }
        deps.sort_unstable();
        deps.dedup();
        for &(buffer, kind) in op {
            let uses = buffers.entry(buffer).or_default();
            match kind {
                AccessKind::Write => {
                    uses.writer = Some(i);
                    uses.readers.clear();
                }
                AccessKind::Read => {
                    if !uses.readers.contains(&i) {
                        uses.readers.push(i);
                    }
                }
            }
        }
        // An operation that reads and writes one buffer lists it twice; it
        // must not depend on itself.
        deps.retain(|&d| d != i);
        // Drop what another dependency already implies (a ping-pong stencil
        // depends on the previous sweep for its input and on the one before
        // for the buffer it overwrites): the graph gets the chain, not every
        // edge of it.
        let direct: Vec<usize> = deps
            .iter()
            .copied()
            .filter(|&d| !deps.iter().any(|&e| e != d && out[e].contains(&d)))
            .collect();
        out.push(direct);
    }
    out
}

/// Every buffer a recording touches and how (a write wins over a read):
/// what the graph launch declares to the trackers.
pub(crate) fn touched(recording: &Recording) -> Vec<(usize, AccessKind)> {
    let mut out: Vec<(usize, AccessKind)> = Vec::new();
    for op in recording.items.iter().flat_map(item_ops) {
        for &(buffer, kind) in &op.accesses {
            match out.iter_mut().find(|(b, _)| *b == buffer) {
                Some(entry) if kind == AccessKind::Write => entry.1 = AccessKind::Write,
                Some(_) => {}
                None => out.push((buffer, kind)),
            }
        }
    }
    out
}

fn item_ops(item: &Item) -> &[RecordedOp] {
    match item {
        Item::Op(op) => std::slice::from_ref(op),
        Item::Loop { body } => body,
    }
}

/// The buffers a top-level item touches (a loop: its whole body).
fn item_accesses(item: &Item) -> Vec<(usize, AccessKind)> {
    item_ops(item)
        .iter()
        .flat_map(|op| op.accesses.iter().copied())
        .collect()
}

impl Recording {
    /// Runs the recording on the calling thread (the CPU device's graph
    /// launch, on a stream's worker): items in order, a loop's body until
    /// its condition reads false.
    pub(crate) fn run_cpu(&self) {
        for item in &self.items {
            match item {
                Item::Op(op) => run_cpu_op(op),
                Item::Loop { body } => loop {
                    let mut again = false;
                    for op in body {
                        match &op.work {
                            OpWork::CpuCondition(read) => again = read(),
                            _ => run_cpu_op(op),
                        }
                    }
                    if !again {
                        break;
                    }
                },
            }
        }
    }

    /// The nodes of the CUDA graph, with dependencies from the buffers.
    /// `Err`: an operation of the CPU device (a bug: recordings hold one
    /// device's operations).
    pub(crate) fn cuda_nodes(&self) -> Result<Vec<GraphNode>, String> {
        let accesses: Vec<Vec<(usize, AccessKind)>> =
            self.items.iter().map(item_accesses).collect();
        let deps = dependencies(&accesses);
        let mut builder = NodeList::default();
        for (item, deps) in self.items.iter().zip(deps) {
            match item {
                Item::Op(op) => builder.push_op(op, &deps)?,
                Item::Loop { body } => {
                    let body_accesses: Vec<Vec<(usize, AccessKind)>> =
                        body.iter().map(|op| op.accesses.clone()).collect();
                    let mut inner = NodeList::default();
                    for (op, d) in body.iter().zip(dependencies(&body_accesses)) {
                        inner.push_op(op, &d)?;
                    }
                    builder.push(NodeWork::While { body: inner.nodes }, &deps);
                }
            }
        }
        Ok(builder.nodes)
    }
}

fn run_cpu_op(op: &RecordedOp) {
    if let OpWork::Cpu(job) = &op.work {
        job()
    }
}

/// Graph nodes made from operations: an operation may become several nodes
/// (a strided copy), and a dependency on it is one on each of them.
#[derive(Default)]
struct NodeList {
    nodes: Vec<GraphNode>,
    /// Per pushed operation: its node indices.
    of_op: Vec<Vec<usize>>,
}

impl NodeList {
    fn push(&mut self, work: NodeWork, op_deps: &[usize]) {
        let deps: Vec<usize> = op_deps
            .iter()
            .flat_map(|&d| self.of_op[d].iter().copied())
            .collect();
        self.of_op.push(vec![self.nodes.len()]);
        self.nodes.push(GraphNode { work, deps });
    }

    fn push_op(&mut self, op: &RecordedOp, op_deps: &[usize]) -> Result<(), String> {
        match &op.work {
            OpWork::CudaKernel(k) => self.push(NodeWork::Kernel(k.clone()), op_deps),
            OpWork::CudaCondition { flag } => {
                self.push(NodeWork::SetCondition { flag: *flag }, op_deps)
            }
            OpWork::CudaCopy(pieces) => {
                let deps: Vec<usize> = op_deps
                    .iter()
                    .flat_map(|&d| self.of_op[d].iter().copied())
                    .collect();
                let mut mine = Vec::with_capacity(pieces.len());
                for piece in pieces {
                    mine.push(self.nodes.len());
                    self.nodes.push(GraphNode {
                        work: NodeWork::Copy(*piece),
                        deps: deps.clone(),
                    });
                }
                self.of_op.push(mine);
            }
            OpWork::Cpu(_) | OpWork::CpuCondition(_) => {
                return Err("a cpu-device operation in a cuda recording".into())
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::graph::FunctionHandle;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use AccessKind::{Read, Write};

    #[test]
    fn operations_follow_the_last_writer_and_writes_follow_the_readers() {
        // 0 writes A; 1 reads A, writes B; 2 reads A (independent of 1);
        // 3 writes A (after the readers 1 and 2); 4 reads B (after 1).
        let ops = vec![
            vec![(1, Write)],
            vec![(1, Read), (2, Write)],
            vec![(1, Read)],
            vec![(1, Write)],
            vec![(2, Read)],
        ];
        // (3 needs 0 through 1 and 2 already.)
        assert_eq!(
            dependencies(&ops),
            vec![vec![], vec![0], vec![0], vec![1, 2], vec![1]]
        );
    }

    #[test]
    fn a_ping_pong_stencil_is_a_chain() {
        // b: reads A, writes B; a: reads B, writes A; three steps.
        let step = [vec![(1, Read), (2, Write)], vec![(2, Read), (1, Write)]];
        let ops: Vec<Vec<(usize, AccessKind)>> = step.iter().cycle().take(6).cloned().collect();
        let deps = dependencies(&ops);
        let chain: Vec<Vec<usize>> = (0..6)
            .map(|i| if i == 0 { vec![] } else { vec![i - 1] })
            .collect();
        assert_eq!(deps, chain);
    }

    #[test]
    fn a_read_write_of_one_buffer_does_not_depend_on_itself() {
        let ops = vec![vec![(7, Read), (7, Write)], vec![(7, Read), (7, Write)]];
        assert_eq!(dependencies(&ops), vec![vec![], vec![0]]);
    }

    #[test]
    fn independent_chains_stay_independent() {
        // Two ping-pong chains on disjoint buffers: a fork the graph can run
        // concurrently, as streams would.
        let ops = vec![
            vec![(1, Read), (2, Write)],
            vec![(3, Read), (4, Write)],
            vec![(2, Read), (1, Write)],
            vec![(4, Read), (3, Write)],
        ];
        assert_eq!(dependencies(&ops), vec![vec![], vec![], vec![0], vec![1]]);
    }

    fn cpu_op(counter: &Arc<AtomicUsize>, accesses: Vec<(usize, AccessKind)>) -> RecordedOp {
        let c = Arc::clone(counter);
        RecordedOp {
            work: OpWork::Cpu(Arc::new(move || {
                c.fetch_add(1, Ordering::SeqCst);
            })),
            accesses,
        }
    }

    #[test]
    fn the_recorder_collects_ops_and_a_loop_then_the_cpu_replay_runs_them() {
        let ran = Arc::new(AtomicUsize::new(0));
        let left = Arc::new(AtomicUsize::new(3));
        begin(42);
        assert!(is_recording());
        record(42, cpu_op(&ran, vec![(1, Write)]));
        loop_begin();
        record(42, cpu_op(&ran, vec![(1, Read), (1, Write)]));
        let l = Arc::clone(&left);
        let condition = RecordedOp {
            work: OpWork::CpuCondition(Arc::new(move || l.fetch_sub(1, Ordering::SeqCst) > 1)),
            accesses: vec![(9, Read)],
        };
        loop_end(42, condition);
        let recording = end().expect("was recording").expect("recorded");
        assert!(!is_recording());
        assert_eq!(recording.operations, 2);
        assert_eq!(touched(&recording), vec![(1, Write), (9, Read)]);
        recording.run_cpu();
        // One op, then the body three times (the condition said yes twice).
        assert_eq!(ran.load(Ordering::SeqCst), 4);
        // Twice more: a graph replays.
        left.store(1, Ordering::SeqCst);
        recording.run_cpu();
        assert_eq!(ran.load(Ordering::SeqCst), 6);
    }

    #[test]
    fn refused_and_foreign_operations_fail_the_recording() {
        let ran = Arc::new(AtomicUsize::new(0));
        begin(1);
        refuse("a copy to the host");
        assert!(failed());
        let why = end().unwrap().err().unwrap();
        assert!(
            why.contains("a copy to the host cannot be part of a graph"),
            "{why}"
        );

        begin(1);
        record(2, cpu_op(&ran, vec![]));
        assert!(end().unwrap().err().unwrap().contains("another device"));

        begin(1);
        loop_begin();
        assert!(end().unwrap().err().unwrap().contains("not closed"));

        assert!(end().is_none(), "not recording any more");
        record(1, cpu_op(&ran, vec![])); // ignored outside a recording
        assert_eq!(ran.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn too_many_operations_fail_the_recording() {
        let ran = Arc::new(AtomicUsize::new(0));
        begin(1);
        for _ in 0..=MAX_OPERATIONS {
            record(1, cpu_op(&ran, vec![]));
        }
        assert!(end().unwrap().err().unwrap().contains("more than"));
    }

    fn kernel(tag: u64, accesses: Vec<(usize, AccessKind)>) -> RecordedOp {
        RecordedOp {
            work: OpWork::CudaKernel(KernelNode {
                function: FunctionHandle(std::ptr::null_mut()),
                grid: [1, 1, 1],
                block: [1, 1, 1],
                shared_bytes: 0,
                params: vec![u128::from(tag)],
                programmatic: false,
            }),
            accesses,
        }
    }

    #[test]
    fn cuda_nodes_split_strided_copies_and_nest_loop_bodies() {
        let piece = DeviceCopy2d {
            src: 0x1000,
            src_pitch: 64,
            dst: 0x2000,
            dst_pitch: 64,
            width_bytes: 32,
            height: 4,
        };
        let recording = Recording {
            items: vec![
                Item::Op(kernel(0, vec![(1, Write)])),
                Item::Op(RecordedOp {
                    work: OpWork::CudaCopy(vec![piece, piece]),
                    accesses: vec![(1, Read), (2, Write)],
                }),
                Item::Loop {
                    body: vec![
                        kernel(1, vec![(2, Read), (3, Write)]),
                        kernel(2, vec![(3, Read), (4, Write)]),
                        RecordedOp {
                            work: OpWork::CudaCondition { flag: 0x3000 },
                            accesses: vec![(4, Read)],
                        },
                    ],
                },
                Item::Op(kernel(3, vec![(1, Read)])),
            ],
            operations: 5,
        };
        let nodes = recording.cuda_nodes().unwrap();
        let deps: Vec<Vec<usize>> = nodes.iter().map(|n| n.deps.clone()).collect();
        // kernel, copy piece, copy piece, while (after both pieces), kernel
        // (reads buffer 1: only after the first kernel).
        assert_eq!(deps, vec![vec![], vec![0], vec![0], vec![1, 2], vec![0]]);
        let NodeWork::While { body } = &nodes[3].work else {
            panic!("node 3 is the loop")
        };
        let body_deps: Vec<Vec<usize>> = body.iter().map(|n| n.deps.clone()).collect();
        assert_eq!(body_deps, vec![vec![], vec![0], vec![1]]);
        assert!(matches!(
            body[2].work,
            NodeWork::SetCondition { flag: 0x3000 }
        ));
    }
}
