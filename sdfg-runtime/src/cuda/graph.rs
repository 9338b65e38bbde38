//! CUDA graphs built node by node from a recorded segment of a program call
//! (the recording and its dependency analysis are `order/recording.rs`):
//! kernel nodes, device-to-device copy nodes, and conditional WHILE nodes
//! whose body ends with a one-thread kernel that sets the loop's handle
//! from a flag word the body wrote.
//!
//! Nothing here runs unless [`graph_support`] found every driver entry point
//! it calls (cudarc panics on a missing symbol), and every failure is an
//! `Err`, so a caller can fall back to running the segment on streams.

use crate::cuda::{driver, CudaContext, CudaStream};
use crate::error::{Error, Result};
use cudarc::driver::sys;
use std::ffi::c_void;
use std::sync::{Arc, OnceLock};

/// A kernel entry of a loaded module (a driver handle, usable from any thread).
#[derive(Clone, Copy, Debug)]
pub(crate) struct FunctionHandle(pub(crate) sys::CUfunction);

// SAFETY: function handles may be used from any thread (the driver API is
// thread-safe); the module they belong to outlives every graph built from
// them (modules live in the device's cache, graphs in program contexts that
// hold the program, which holds its module).
unsafe impl Send for FunctionHandle {}
// SAFETY: as above.
unsafe impl Sync for FunctionHandle {}

/// One kernel launch: what `cuLaunchKernel` would have been given.
#[derive(Clone, Debug)]
pub(crate) struct KernelNode {
    pub(crate) function: FunctionHandle,
    pub(crate) grid: [u32; 3],
    pub(crate) block: [u32; 3],
    pub(crate) shared_bytes: u32,
    /// One 16-byte slot per parameter, little-endian (as for `launch`).
    pub(crate) params: Vec<u128>,
    /// The kernel waits for its grid dependencies before it touches memory
    /// (`Module::programmatic_launches`): its edges from other kernels may
    /// be programmatic, so it is scheduled while they finish.
    pub(crate) programmatic: bool,
}

/// One 2-D device-to-device copy: `height` rows of `width_bytes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DeviceCopy2d {
    pub(crate) src: u64,
    pub(crate) src_pitch: usize,
    pub(crate) dst: u64,
    pub(crate) dst_pitch: usize,
    pub(crate) width_bytes: usize,
    pub(crate) height: usize,
}

/// What a node does.
#[derive(Clone, Debug)]
pub(crate) enum NodeWork {
    Kernel(KernelNode),
    Copy(DeviceCopy2d),
    /// Inside a loop body only: sets the loop's handle to `*flag != 0`
    /// (a `u32` in device memory that an earlier body node wrote).
    SetCondition {
        flag: u64,
    },
    /// A conditional WHILE node: `body` runs while its handle is nonzero;
    /// the handle is 1 at every launch (the body runs once before the
    /// first test) and the body's `SetCondition` node sets it.
    While {
        body: Vec<GraphNode>,
    },
}

/// A node and the earlier nodes of the same list it depends on.
#[derive(Clone, Debug)]
pub(crate) struct GraphNode {
    pub(crate) work: NodeWork,
    /// Indices of earlier nodes of the same list.
    pub(crate) deps: Vec<usize>,
}

/// The driver entry points graphs use: all present, or the first missing.
const GRAPH_SYMBOLS: [&str; 7] = [
    "cuGraphCreate",
    "cuGraphDestroy",
    "cuGraphAddKernelNode_v2",
    "cuGraphAddMemcpyNode",
    "cuGraphInstantiateWithFlags",
    "cuGraphLaunch",
    "cuGraphExecDestroy",
];

/// The entry points of conditional nodes (CUDA 12.3 and later).
const CONDITIONAL_SYMBOLS: [&str; 2] = ["cuGraphConditionalHandleCreate", "cuGraphAddNode_v2"];

/// The entry point of edges with data (programmatic edges; CUDA 12.3).
const EDGE_DATA_SYMBOLS: [&str; 1] = ["cuGraphAddDependencies_v2"];

/// The oldest driver whose conditional WHILE nodes may be set from their
/// own body (CUDA 12.4).
const CONDITIONAL_DRIVER: i32 = 12040;

fn missing_symbol(names: &[&str]) -> Option<String> {
    // SAFETY: only called after a `CudaContext` exists, so libcuda is
    // loaded; looking a symbol up runs no driver code.
    let lib = unsafe { sys::culib() };
    names
        .iter()
        .find(|name| {
            // SAFETY: the symbol is only looked up, never called through this type.
            unsafe { lib.get::<unsafe extern "C" fn()>(name.as_bytes()) }.is_err()
        })
        .map(|name| name.to_string())
}

/// `Ok` when the driver has every entry point of plain graphs, else why not.
pub(crate) fn graph_support() -> Result<()> {
    static SUPPORT: OnceLock<Option<String>> = OnceLock::new();
    match SUPPORT.get_or_init(|| missing_symbol(&GRAPH_SYMBOLS)) {
        None => Ok(()),
        Some(name) => Err(Error::Unsupported(format!(
            "cuda graphs: the driver has no `{name}`"
        ))),
    }
}

/// Whether the driver can add programmatic edges (else every edge is a
/// full dependency, which is always right).
fn programmatic_edges_supported() -> bool {
    static SUPPORT: OnceLock<bool> = OnceLock::new();
    *SUPPORT.get_or_init(|| missing_symbol(&EDGE_DATA_SYMBOLS).is_none())
}

/// `Ok` when conditional WHILE nodes can be built (driver 12.4 or later with
/// every entry point), else why not.
pub(crate) fn conditional_support() -> Result<()> {
    static SUPPORT: OnceLock<Option<String>> = OnceLock::new();
    let reason = SUPPORT.get_or_init(|| {
        if let Some(name) = missing_symbol(&CONDITIONAL_SYMBOLS) {
            return Some(format!("the driver has no `{name}`"));
        }
        let mut version = 0i32;
        // SAFETY: writes one int.
        match unsafe { sys::cuDriverGetVersion(&mut version) }.result() {
            Ok(()) if version >= CONDITIONAL_DRIVER => None,
            Ok(()) => Some(format!(
                "the driver supports cuda {}.{}; conditional nodes need 12.4",
                version / 1000,
                (version % 1000) / 10
            )),
            Err(e) => Some(format!("cuDriverGetVersion failed: {e:?}")),
        }
    });
    graph_support()?;
    match reason {
        None => Ok(()),
        Some(why) => Err(Error::Unsupported(format!(
            "conditional graph nodes: {why}"
        ))),
    }
}

/// An instantiated graph, ready to launch on any stream of its context.
pub(crate) struct CudaGraph {
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
    ctx: Arc<CudaContext>,
}

// SAFETY: graph and executable-graph handles may be used from any thread;
// launches of one executable graph are serialized by its owner (a program
// context, used by one call at a time).
unsafe impl Send for CudaGraph {}
// SAFETY: as above.
unsafe impl Sync for CudaGraph {}

impl CudaGraph {
    /// Builds and instantiates `nodes` (in dependency order). `set_condition`
    /// is the one-thread kernel `(handle: u64, flag: u64)` that loop bodies
    /// end with; it is needed only when there is a `While` node.
    pub(crate) fn build(
        ctx: &Arc<CudaContext>,
        nodes: &[GraphNode],
        set_condition: Option<FunctionHandle>,
    ) -> Result<CudaGraph> {
        graph_support()?;
        if contains_loop(nodes) {
            conditional_support()?;
        }
        ctx.bind()?;
        let mut graph: sys::CUgraph = std::ptr::null_mut();
        // SAFETY: writes one handle.
        unsafe { sys::cuGraphCreate(&mut graph, 0) }
            .result()
            .map_err(driver("cuGraphCreate"))?;
        // From here on, `Drop` destroys what was created.
        let mut this = CudaGraph {
            graph,
            exec: std::ptr::null_mut(),
            ctx: Arc::clone(ctx),
        };
        let builder = Builder { ctx, set_condition };
        builder.add_nodes(graph, nodes, None)?;
        let mut exec: sys::CUgraphExec = std::ptr::null_mut();
        // SAFETY: `graph` is a complete graph of this context.
        unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0) }
            .result()
            .map_err(driver("cuGraphInstantiateWithFlags"))?;
        this.exec = exec;
        Ok(this)
    }

    /// Launches the graph on `stream` (asynchronous, like a kernel launch).
    pub(crate) fn launch(&self, stream: &CudaStream) -> Result<()> {
        stream.ctx.bind()?;
        // SAFETY: `exec` was instantiated in this context (the caller checks
        // that the stream belongs to the same device); every address the
        // graph's nodes use was checked alive by the caller (the cache key).
        unsafe { sys::cuGraphLaunch(self.exec, stream.raw) }
            .result()
            .map_err(driver("cuGraphLaunch"))
    }
}

impl Drop for CudaGraph {
    fn drop(&mut self) {
        if self.ctx.bind().is_err() {
            return;
        }
        // SAFETY: destroyed once each; the driver defers the destruction of
        // an executable graph until its launches finished.
        unsafe {
            if !self.exec.is_null() {
                let _ = sys::cuGraphExecDestroy(self.exec);
            }
            let _ = sys::cuGraphDestroy(self.graph);
        }
    }
}

fn contains_loop(nodes: &[GraphNode]) -> bool {
    nodes
        .iter()
        .any(|n| matches!(n.work, NodeWork::While { .. }))
}

struct Builder<'a> {
    ctx: &'a Arc<CudaContext>,
    set_condition: Option<FunctionHandle>,
}

impl Builder<'_> {
    /// Adds `nodes` to `graph`; `handle` is the conditional handle of the
    /// loop whose body `graph` is.
    fn add_nodes(
        &self,
        graph: sys::CUgraph,
        nodes: &[GraphNode],
        handle: Option<sys::CUgraphConditionalHandle>,
    ) -> Result<()> {
        let mut made: Vec<sys::CUgraphNode> = Vec::with_capacity(nodes.len());
        // Which of `made` are kernel nodes (the upstream end of a
        // programmatic edge must be one).
        let mut kernels: Vec<bool> = Vec::with_capacity(nodes.len());
        for node in nodes {
            let mut deps = Vec::with_capacity(node.deps.len());
            for &d in &node.deps {
                let Some(&dep) = made.get(d) else {
                    return Err(Error::InvalidArgument(format!(
                        "graph node {} depends on node {d}, which is not before it",
                        made.len()
                    )));
                };
                deps.push(dep);
            }
            let added = match &node.work {
                // Programmatic edges only in the top-level graph: a loop
                // body keeps full dependencies.
                NodeWork::Kernel(k) if k.programmatic && handle.is_none() => {
                    let from_kernels: Vec<bool> = node.deps.iter().map(|&d| kernels[d]).collect();
                    add_waiting_kernel(graph, &deps, &from_kernels, k)
                }
                NodeWork::Kernel(k) => add_kernel(graph, &deps, k.function, k, &k.params),
                NodeWork::Copy(c) => add_copy(self.ctx, graph, &deps, c),
                NodeWork::SetCondition { flag } => {
                    let (Some(handle), Some(function)) = (handle, self.set_condition) else {
                        return Err(Error::InvalidArgument(
                            "a condition node outside a loop body, or no condition kernel".into(),
                        ));
                    };
                    let one = KernelNode {
                        function,
                        grid: [1, 1, 1],
                        block: [1, 1, 1],
                        shared_bytes: 0,
                        params: Vec::new(),
                        programmatic: false,
                    };
                    add_kernel(
                        graph,
                        &deps,
                        function,
                        &one,
                        &[u128::from(handle), u128::from(*flag)],
                    )
                }
                NodeWork::While { body } => self.add_while(graph, &deps, body),
            }?;
            made.push(added);
            kernels.push(matches!(
                node.work,
                NodeWork::Kernel(_) | NodeWork::SetCondition { .. }
            ));
        }
        Ok(())
    }

    /// A conditional WHILE node whose handle is 1 at each launch.
    fn add_while(
        &self,
        graph: sys::CUgraph,
        deps: &[sys::CUgraphNode],
        body: &[GraphNode],
    ) -> Result<sys::CUgraphNode> {
        let mut handle: sys::CUgraphConditionalHandle = 0;
        // SAFETY: `graph` is alive and of this context; default value 1 is
        // assigned at every launch (CU_GRAPH_COND_ASSIGN_DEFAULT).
        unsafe {
            sys::cuGraphConditionalHandleCreate(
                &mut handle,
                graph,
                self.ctx.ctx,
                1,
                sys::CU_GRAPH_COND_ASSIGN_DEFAULT,
            )
        }
        .result()
        .map_err(driver("cuGraphConditionalHandleCreate"))?;
        let conditional = sys::CUDA_CONDITIONAL_NODE_PARAMS {
            handle,
            type_: sys::CUgraphConditionalNodeType::CU_GRAPH_COND_TYPE_WHILE,
            size: 1,
            phGraph_out: std::ptr::null_mut(),
            ctx: self.ctx.ctx,
        };
        let mut params = sys::CUgraphNodeParams {
            type_: sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_CONDITIONAL,
            reserved0: [0; 3],
            __bindgen_anon_1: sys::CUgraphNodeParams_st__bindgen_ty_1 { reserved1: [0; 29] },
            reserved2: 0,
        };
        params.__bindgen_anon_1.conditional = conditional;
        let mut node: sys::CUgraphNode = std::ptr::null_mut();
        // SAFETY: `params` is a fully initialized conditional node
        // description (the union was zeroed first); no edge data.
        unsafe {
            sys::cuGraphAddNode_v2(
                &mut node,
                graph,
                deps_ptr(deps),
                std::ptr::null(),
                deps.len(),
                &mut params,
            )
        }
        .result()
        .map_err(driver("cuGraphAddNode(conditional)"))?;
        // SAFETY: the driver filled `phGraph_out` with an array of `size`
        // (1) body graphs that it owns; reading the union's conditional
        // member is what was written above and by the driver.
        let body_graph = unsafe {
            let out = params.__bindgen_anon_1.conditional.phGraph_out;
            if out.is_null() {
                return Err(Error::Unsupported(
                    "the driver returned no body graph for a conditional node".into(),
                ));
            }
            *out
        };
        self.add_nodes(body_graph, body, Some(handle))?;
        Ok(node)
    }
}

fn deps_ptr(deps: &[sys::CUgraphNode]) -> *const sys::CUgraphNode {
    if deps.is_empty() {
        std::ptr::null()
    } else {
        deps.as_ptr()
    }
}

fn add_kernel(
    graph: sys::CUgraph,
    deps: &[sys::CUgraphNode],
    function: FunctionHandle,
    shape: &KernelNode,
    params: &[u128],
) -> Result<sys::CUgraphNode> {
    let mut slots: Vec<u128> = params.to_vec();
    let mut pointers: Vec<*mut c_void> = slots
        .iter_mut()
        .map(|slot| slot as *mut u128 as *mut c_void)
        .collect();
    let p = sys::CUDA_KERNEL_NODE_PARAMS {
        func: function.0,
        gridDimX: shape.grid[0],
        gridDimY: shape.grid[1],
        gridDimZ: shape.grid[2],
        blockDimX: shape.block[0],
        blockDimY: shape.block[1],
        blockDimZ: shape.block[2],
        sharedMemBytes: shape.shared_bytes,
        kernelParams: if pointers.is_empty() {
            std::ptr::null_mut()
        } else {
            pointers.as_mut_ptr()
        },
        extra: std::ptr::null_mut(),
        kern: std::ptr::null_mut(),
        ctx: std::ptr::null_mut(),
    };
    // A block map's launch with more than 48 KiB of shared memory, as a
    // stream launch of it would allow (the builder bound the context).
    crate::cuda::allow_shared_bytes(function.0, shape.shared_bytes)?;
    let mut node: sys::CUgraphNode = std::ptr::null_mut();
    // SAFETY: `function` is a kernel of a loaded module of this context;
    // each parameter pointer points to a live, 16-byte aligned u128 that the driver copies
    // during the call (as for `cuLaunchKernel`), with the width the kernel
    // declares (the low bytes: little-endian).
    unsafe { sys::cuGraphAddKernelNode_v2(&mut node, graph, deps_ptr(deps), deps.len(), &p) }
        .result()
        .map_err(driver("cuGraphAddKernelNode"))?;
    Ok(node)
}

/// A kernel node that waits for its grid dependencies: its edges from the
/// kernel nodes among `deps` (`from_kernels`) are programmatic (the kernel
/// may be scheduled once every block of the upstream kernel has started
/// its body: `griddepcontrol.launch_dependents`), the others full. Plain
/// edges where the driver has no edge data.
fn add_waiting_kernel(
    graph: sys::CUgraph,
    deps: &[sys::CUgraphNode],
    from_kernels: &[bool],
    kernel: &KernelNode,
) -> Result<sys::CUgraphNode> {
    if !programmatic_edges_supported() || !from_kernels.contains(&true) {
        return add_kernel(graph, deps, kernel.function, kernel, &kernel.params);
    }
    let node = add_kernel(graph, &[], kernel.function, kernel, &kernel.params)?;
    let to = vec![node; deps.len()];
    let edges: Vec<sys::CUgraphEdgeData> = from_kernels
        .iter()
        .map(|&programmatic| {
            // All zero: a full dependency (the default edge).
            let (port, kind) = if programmatic {
                (
                    sys::CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC as u8,
                    sys::CUgraphDependencyType::CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC as u8,
                )
            } else {
                (0, 0)
            };
            sys::CUgraphEdgeData {
                from_port: port,
                to_port: 0,
                type_: kind,
                reserved: [0; 5],
            }
        })
        .collect();
    // SAFETY: `from`, `to` and `edges` have `deps.len()` entries each; every
    // node belongs to `graph`; a programmatic edge joins two kernel nodes
    // and its downstream kernel waits for its grid dependencies before it
    // touches memory (`KernelNode::programmatic`), so it sees everything
    // the upstream kernel wrote.
    unsafe {
        sys::cuGraphAddDependencies_v2(
            graph,
            deps.as_ptr(),
            to.as_ptr(),
            edges.as_ptr(),
            deps.len(),
        )
    }
    .result()
    .map_err(driver("cuGraphAddDependencies"))?;
    Ok(node)
}

fn add_copy(
    ctx: &CudaContext,
    graph: sys::CUgraph,
    deps: &[sys::CUgraphNode],
    c: &DeviceCopy2d,
) -> Result<sys::CUgraphNode> {
    let device = sys::CUmemorytype::CU_MEMORYTYPE_DEVICE;
    let p = sys::CUDA_MEMCPY3D {
        srcXInBytes: 0,
        srcY: 0,
        srcZ: 0,
        srcLOD: 0,
        srcMemoryType: device,
        srcHost: std::ptr::null(),
        srcDevice: c.src,
        srcArray: std::ptr::null_mut(),
        reserved0: std::ptr::null_mut(),
        srcPitch: c.src_pitch.max(c.width_bytes),
        srcHeight: c.height,
        dstXInBytes: 0,
        dstY: 0,
        dstZ: 0,
        dstLOD: 0,
        dstMemoryType: device,
        dstHost: std::ptr::null_mut(),
        dstDevice: c.dst,
        dstArray: std::ptr::null_mut(),
        reserved1: std::ptr::null_mut(),
        dstPitch: c.dst_pitch.max(c.width_bytes),
        dstHeight: c.height,
        WidthInBytes: c.width_bytes,
        Height: c.height,
        Depth: 1,
    };
    let mut node: sys::CUgraphNode = std::ptr::null_mut();
    // SAFETY: both sides are device memory of this context inside regions
    // the copy plan validated (the same plan a stream copy would issue).
    unsafe { sys::cuGraphAddMemcpyNode(&mut node, graph, deps_ptr(deps), deps.len(), &p, ctx.ctx) }
        .result()
        .map_err(driver("cuGraphAddMemcpyNode"))?;
    Ok(node)
}

/// The PTX of the loop-condition kernel: `(handle, flag)`, one thread;
/// `cudaGraphSetConditional(handle, *flag != 0)`. The driver's JIT resolves
/// the device runtime function (no libcudadevrt, no toolkit): verified on
/// driver 580 (CUDA 13.0), see docs/BENCHMARKS.md.
pub(crate) const SET_CONDITION_PTX: &str = r#".version 8.0
.target sm_80
.address_size 64
.extern .func cudaGraphSetConditional
(
	.param .b64 p0,
	.param .b32 p1
)
.visible .entry sdfg_set_condition(
	.param .u64 handle,
	.param .u64 flag
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [handle];
	ld.param.u64 %rd2, [flag];
	cvta.to.global.u64 %rd3, %rd2;
	ld.global.u32 %r1, [%rd3];
	setp.ne.u32 %p1, %r1, 0;
	selp.u32 %r2, 1, 0, %p1;
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd1;
	.param .b32 param1;
	st.param.b32 [param1+0], %r2;
	call.uni cudaGraphSetConditional, (param0, param1);
	}
	ret;
}
"#;

/// The entry name in [`SET_CONDITION_PTX`].
pub(crate) const SET_CONDITION_ENTRY: &str = "sdfg_set_condition";
