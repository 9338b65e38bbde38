//! Graph launches: a recorded segment of a program call (see
//! `order/recording.rs`), made ready for its device, runs as one operation
//! on a stream, ordered by the trackers of the buffers it touches like any
//! other operation. CUDA: an instantiated CUDA graph (`cuGraphLaunch`);
//! the CPU device: one job on the stream's worker that runs the recorded
//! jobs in order (loops until their condition reads false), so results,
//! positions and counts are the same on both devices.

use crate::cuda::graph::{CudaGraph, FunctionHandle, SET_CONDITION_ENTRY, SET_CONDITION_PTX};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::kernel::cpu_twin::{KernelArgs, KernelEntry};
use crate::kernel::module::Module;
use crate::order::counters::CounterCells;
use crate::order::recording::{Item, Recording};
use crate::order::stream_state::StreamBackend;
use crate::order::tracker::{AccessKind, Tracker};
use crate::streams::stream::Stream;
use std::sync::Arc;

/// A recording made ready to launch on its device.
pub(crate) struct ReadyGraph {
    recording: Arc<Recording>,
    /// CUDA: the instantiated graph (None on the CPU device).
    cuda: Option<CudaGraph>,
    device_id: u64,
}

impl std::fmt::Debug for ReadyGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadyGraph")
            .field("operations", &self.recording.operations)
            .finish_non_exhaustive()
    }
}

/// The condition kernel has no CPU twin: the CPU replay reads the flag itself.
fn no_twin(_: &KernelArgs<'_>) {}

static SET_CONDITION_KERNELS: [KernelEntry; 1] = [KernelEntry {
    name: SET_CONDITION_ENTRY,
    cpu: no_twin,
}];

impl ReadyGraph {
    /// Makes `recording` ready on `device`: on CUDA builds and instantiates
    /// the graph (loading the loop-condition kernel first when it has a
    /// loop); an `Err` says why it cannot be a graph there.
    pub(crate) fn new(device: &Device, recording: Recording) -> Result<ReadyGraph> {
        let cuda = match device.cuda() {
            None => None,
            Some(ctx) => {
                let nodes = recording.cuda_nodes().map_err(Error::Unsupported)?;
                let has_loop = recording
                    .items
                    .iter()
                    .any(|i| matches!(i, Item::Loop { .. }));
                let set_condition = if has_loop {
                    crate::cuda::graph::conditional_support()?;
                    // SAFETY: the condition kernel reads one u32 at the flag
                    // address it is given (a device buffer of the program,
                    // written by the body) and sets the handle it is given;
                    // graphs launch it only with those two parameters.
                    let module =
                        unsafe { Module::load(device, SET_CONDITION_PTX, &SET_CONDITION_KERNELS) }?;
                    Some(FunctionHandle(module.cuda_function(0)?))
                } else {
                    None
                };
                Some(CudaGraph::build(ctx, &nodes, set_condition)?)
            }
        };
        Ok(ReadyGraph {
            recording: Arc::new(recording),
            cuda,
            device_id: device.id(),
        })
    }
}

impl Stream {
    /// Launches `graph` as one operation of this stream, after the
    /// conflicting unfinished uses of `accesses` on other streams (counted
    /// in `graph_launches`).
    pub(crate) fn launch_graph(
        &self,
        graph: &ReadyGraph,
        accesses: &[(&Tracker, AccessKind)],
    ) -> Result<()> {
        self.device
            .check_same(graph.device_id, || "the graph".to_string())?;
        match (&self.inner.backend, &graph.cuda) {
            (StreamBackend::Cpu(_), None) => {
                let recording = Arc::clone(&graph.recording);
                self.issue(accesses.iter().copied(), move |op| {
                    op.push_cpu(move || recording.run_cpu());
                    Ok(())
                })?;
            }
            (StreamBackend::Cuda(_), Some(cuda)) => {
                self.issue(accesses.iter().copied(), |op| cuda.launch(op.cuda_stream()))?;
            }
            _ => {
                return Err(Error::WrongDevice {
                    what: "a graph of another kind of device".into(),
                })
            }
        }
        CounterCells::bump(&self.device.counters_cells().graph_launches);
        Ok(())
    }
}
