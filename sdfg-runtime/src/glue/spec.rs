//! What the `sdfg!` macro emits for one SDFG: its name, PTX, kernels,
//! stream policy, and what its kernels' fault codes mean.

use crate::kernel::cpu_twin::KernelEntry;

/// How a program uses streams.
///
/// ```
/// use sdfg_runtime::__glue::StreamSpec;
/// assert_ne!(StreamSpec::Default, StreamSpec::Created(1));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamSpec {
    /// Everything on the device's default stream (CUDA: the legacy default
    /// stream); every stream index maps to it.
    Default,
    /// This many created streams per context (indices `0..n`).
    Created(usize),
}

/// One access of a map or tasklet body, for fault messages: the container,
/// whether it writes, and the container's rank.
///
/// ```
/// use sdfg_runtime::__glue::AccessSite;
/// let a = AccessSite { container: "A", write: true, rank: 1 };
/// assert!(a.write);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccessSite {
    /// The container's name.
    pub container: &'static str,
    /// A store or reduction (else a load).
    pub write: bool,
    /// The container's number of dimensions.
    pub rank: usize,
}

/// What the fault codes of one kernel mean: its map and state, and its
/// body's accesses in the compiler's order (access code `n` is
/// `accesses[n - 1]`).
///
/// ```
/// use sdfg_runtime::__glue::{AccessSite, KernelSites};
/// static SITES: KernelSites = KernelSites {
///     map: "scatter",
///     state: "s",
///     accesses: &[AccessSite { container: "A", write: true, rank: 1 }],
/// };
/// assert_eq!(SITES.accesses.len(), 1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelSites {
    /// The `gpu` map the kernel runs.
    pub map: &'static str,
    /// Its state.
    pub state: &'static str,
    /// The accesses of its body, by access code.
    pub accesses: &'static [AccessSite],
}

/// What the `sdfg!` macro emits for one SDFG: name, PTX, kernels, streams,
/// and the kernels' fault sites.
///
/// A spec is a promise about its PTX, so building one takes `unsafe`
/// ([`ProgramSpec::new`]); the fields are not public. Generated code builds
/// it in a `static`.
///
/// ```
/// use sdfg_runtime::__glue::{ProgramSpec, StreamSpec};
/// // SAFETY: no kernels, so nothing is ever launched.
/// static SPEC: ProgramSpec = unsafe { ProgramSpec::new("axpy", "", &[], StreamSpec::Created(1)) };
/// assert_eq!(SPEC.name(), "axpy");
/// ```
#[derive(Debug)]
pub struct ProgramSpec {
    /// The SDFG's name (for messages).
    pub(crate) name: &'static str,
    /// The PTX module of its `gpu` maps.
    pub(crate) ptx: &'static str,
    /// Its kernels, in launch-index order.
    pub(crate) kernels: &'static [KernelEntry],
    /// Its stream policy.
    pub(crate) streams: StreamSpec,
    /// Per kernel (launch-index order), what its fault codes mean.
    pub(crate) sites: &'static [KernelSites],
    /// Its PTX assembled at build time, per compute capability, and whether
    /// that cubin's kernels wait for their grid dependencies.
    pub(crate) cubins: &'static [(u32, &'static [u8], bool)],
}

impl ProgramSpec {
    /// The spec of the SDFG `name`: its PTX module, its kernels in
    /// launch-index order, and its stream policy.
    ///
    /// # Safety
    ///
    /// The glue of a program launches the kernels of its spec from safe
    /// code, so the spec carries the promise that [`Stream::launch`] asks
    /// of its caller: every entry of `ptx` named in `kernels` declares the
    /// parameters, and touches only the buffer elements, that the glue of
    /// this SDFG passes to it (as `sdfg!` generates the PTX, the kernel
    /// table and the glue together from one SDFG). Each entry's `cpu` twin
    /// is what the CPU device runs instead.
    ///
    /// [`Stream::launch`]: crate::Stream::launch
    pub const unsafe fn new(
        name: &'static str,
        ptx: &'static str,
        kernels: &'static [KernelEntry],
        streams: StreamSpec,
    ) -> ProgramSpec {
        ProgramSpec {
            name,
            ptx,
            kernels,
            streams,
            sites: &[],
            cubins: &[],
        }
    }

    /// The spec with cubins of its PTX, per compute capability
    /// (`major * 10 + minor`): loading one that fits the GPU skips the JIT.
    /// The flag says that the cubin's kernels start with
    /// `griddepcontrol.wait`, so the runtime may launch them with
    /// programmatic dependencies.
    ///
    /// # Safety
    ///
    /// Each cubin is the spec's PTX assembled (by `ptxas`) for its compute
    /// capability, so that it keeps the promise of [`ProgramSpec::new`];
    /// where its flag is true, every kernel launched through
    /// [`Stream::launch`] waits for its grid dependencies before it touches
    /// memory (as `sdfg_compiler::codegen::ptx::for_arch` makes it).
    ///
    /// [`Stream::launch`]: crate::Stream::launch
    ///
    /// ```
    /// use sdfg_runtime::__glue::{ProgramSpec, StreamSpec};
    /// static CUBINS: [(u32, &[u8], bool); 0] = [];
    /// // SAFETY: no kernels and no cubins.
    /// static SPEC: ProgramSpec =
    ///     unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Default).with_cubins(&CUBINS) };
    /// assert_eq!(SPEC.name(), "p");
    /// ```
    pub const unsafe fn with_cubins(
        self,
        cubins: &'static [(u32, &'static [u8], bool)],
    ) -> ProgramSpec {
        ProgramSpec { cubins, ..self }
    }

    /// The same spec with `sites[k]` describing the fault codes of kernel
    /// `k` (generated code passes one per kernel, so a fault of a call
    /// names the map, the state, the container and the access).
    ///
    /// ```
    /// use sdfg_runtime::__glue::{AccessSite, KernelSites, ProgramSpec, StreamSpec};
    /// static SITES: [KernelSites; 0] = [];
    /// // SAFETY: no kernels, so nothing is ever launched.
    /// static SPEC: ProgramSpec =
    ///     unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Default) }.with_sites(&SITES);
    /// assert_eq!(SPEC.name(), "p");
    /// ```
    pub const fn with_sites(self, sites: &'static [KernelSites]) -> ProgramSpec {
        ProgramSpec { sites, ..self }
    }

    /// The SDFG's name.
    pub fn name(&self) -> &'static str {
        self.name
    }
}
