//! GPU maps -> one PTX module (DESIGN section 6).
//!
//! [`generate`] emits one `.visible .entry` per `gpu` map of the SDFG, named
//! and parameterized exactly as its [`KernelAbi`] says, plus the math
//! subroutines (`.func`) the kernels call. See docs/PTX.md for the launch
//! contract, the bool-parameter convention and the accuracy of each math
//! function ([`ULP_BOUNDS`]).
//!
//! Launch contract (the runtime computes the grid; every kernel is correct
//! for any grid): the map's innermost dimension is x, the next one y, the
//! product of all outer ones z; every axis is a grid-stride loop. In x a
//! thread handles `items_per_thread` iterations per grid-stride step,
//! `tile_start + threadIdx.x + k * blockDim.x` for `k < items_per_thread`
//! with `tile_start = blockIdx.x * blockDim.x * items_per_thread`, so the
//! runtime should launch `grid.x = min(ceil(count_x / (block.x *
//! items_per_thread)), sm_count * 32)`, `grid.y = min(ceil(count_y /
//! (block.y * rows_per_thread)), 65535)`, `grid.z = min(ceil(count_z /
//! block.z), 65535)` (`LaunchConfig::for_tiles`). In y a thread handles
//! `rows_per_thread` consecutive iterations: with step 1, a load that one
//! row's iteration shares with another's (`A[i + 1, j]` of row i is
//! `A[i, j]` of row i + 1) is issued once for all of them. A 3-D map's
//! rows may run along z instead (`Tuning::rows_3d_in_z`, `PtxKernel::rows_in_z`;
//! `grid.y = ceil(count_y / block.y)`, `grid.z = ceil(count_z / (block.z *
//! rows_per_thread))`: `LaunchConfig::for_tiles_in_z`): the loads a whole
//! plane away are then the shared ones. That is the launch of the 3-D maps
//! that *walk* their planes (`Tuning::walk_3d`, the default for plain
//! bodies): one item in x, each row's loads just before its body; a walk's
//! kernel starts with [`GRID_WAIT_MARK`] instead of
//! [`GRID_DEPENDENCY_MARK`].
//!
//! This file is the front door: the module, its kernels and their launch
//! shapes. `kernel` emits one entry per map (and the persistent kernels
//! of `#[persistent]` states), [`crate::math`] the subroutines they
//! call (PTX text of its programs), [`ptxas`] assembles a module for the tests.

mod kernel;
pub mod ptxas;

use crate::codegen::abi::{kernel_abis, KernelAbi};
use crate::codegen::persistent::PersistentKernel;
use crate::ir::{MathFn, Sdfg, StateId, StatementKind, StmtId};
use crate::math;
use std::collections::BTreeSet;

/// The line every launched kernel (a map's, not a persistent state's)
/// starts its body with: a comment for the `sm_80` PTX, where it does
/// nothing, and the place [`for_arch`] puts the grid-dependency waits for
/// `sm_90` and later.
pub const GRID_DEPENDENCY_MARK: &str =
    "\t// grid dependency: wait for the kernels this one depends on\n";

/// The line a kernel whose dependents should start only as its blocks
/// finish starts its body with instead of [`GRID_DEPENDENCY_MARK`]: from
/// `sm_90` on it becomes `griddepcontrol.wait` alone (a block that exits
/// counts as having triggered its dependents). The walks of
/// `kernel/walk.rs` fill the SMs in one wave: blocks of the next kernel
/// scheduled early would wait in the place of the walk's own.
pub const GRID_WAIT_MARK: &str =
    "\t// grid dependency: wait; dependents start as the blocks finish\n";

/// The line after a thread's last store in a kernel that starts with
/// [`GRID_WAIT_MARK`] (a walk's end): from `sm_90` on it becomes
/// `griddepcontrol.launch_dependents`, so the dependent kernel is
/// scheduled as the blocks finish their work rather than once they have
/// exited. It only lets the dependents *start*: each waits for this
/// kernel to complete before it touches memory. On the H200, heat3d's
/// 998 walks as one graph took 6.64-6.66 ms with it against 6.72-6.75
/// without (docs/BENCHMARKS.md, run OO).
pub const GRID_TRIGGER_MARK: &str = "\t// grid dependency: dependents may start\n";

/// The first compute capability with programmatic dependent launch
/// (`griddepcontrol`, PTX ISA 7.8, `sm_90`).
pub const GRID_DEPENDENCY_CC: u32 = 90;

/// The module text to assemble for compute capability `cc`, and whether its
/// kernels wait for their grid dependencies.
///
/// From `sm_90` on, every [`GRID_DEPENDENCY_MARK`] becomes
/// `griddepcontrol.wait` (the kernel waits until the kernels it depends on
/// have completed and their writes are visible: before any other
/// instruction, so nothing it reads or writes can race with them) followed
/// by `griddepcontrol.launch_dependents` (the kernel that depends on this
/// one may be scheduled now: it will wait in turn). A kernel launched
/// without a programmatic dependency passes both at once, so the module is
/// right whichever way the runtime launches it; one launched with one (a
/// graph's programmatic edge) starts while its predecessor finishes,
/// hiding the launch latency. A [`GRID_WAIT_MARK`] becomes the wait alone
/// and a [`GRID_TRIGGER_MARK`] the trigger alone (a walk's kernel: the
/// wait first, the trigger after the walk). Other targets get the text
/// unchanged.
///
/// ```
/// use sdfg_compiler::codegen::ptx::{for_arch, GRID_DEPENDENCY_MARK, GRID_TRIGGER_MARK, GRID_WAIT_MARK};
/// let ptx = format!(".version 8.0\n.target sm_80\n.entry k()\n{{\n{GRID_DEPENDENCY_MARK}\tret;\n}}\n");
/// let (hopper, waits) = for_arch(&ptx, 90);
/// assert!(waits && hopper.contains(".target sm_90") && hopper.contains("griddepcontrol.wait;"));
/// assert!(hopper.contains("griddepcontrol.launch_dependents;"));
/// assert_eq!(for_arch(&ptx, 80), (ptx.clone(), false));
/// // A walk's kernel waits, and lets its dependents start as it finishes.
/// let walk = ptx.replace(GRID_DEPENDENCY_MARK, GRID_WAIT_MARK);
/// let (hopper, waits) = for_arch(&walk, 90);
/// assert!(waits && hopper.contains("griddepcontrol.wait;"));
/// assert!(!hopper.contains("launch_dependents") && !hopper.contains("grid dependency"));
/// // ... and triggers them where it says so.
/// let walk = walk.replace("\tret;", &format!("{GRID_TRIGGER_MARK}\tret;"));
/// let (hopper, _) = for_arch(&walk, 90);
/// assert!(hopper.contains("griddepcontrol.launch_dependents;\n\tret;"));
/// assert!(!hopper.contains("grid dependency"));
/// ```
pub fn for_arch(ptx: &str, cc: u32) -> (String, bool) {
    if cc < GRID_DEPENDENCY_CC
        || !(ptx.contains(GRID_DEPENDENCY_MARK) || ptx.contains(GRID_WAIT_MARK))
    {
        return (ptx.to_string(), false);
    }
    let text = ptx
        .replacen(".target sm_80\n", ".target sm_90\n", 1)
        .replace(
            GRID_DEPENDENCY_MARK,
            "\tgriddepcontrol.wait;\n\tgriddepcontrol.launch_dependents;\n",
        )
        .replace(GRID_WAIT_MARK, "\tgriddepcontrol.wait;\n")
        .replace(GRID_TRIGGER_MARK, "\tgriddepcontrol.launch_dependents;\n");
    (text, true)
}

/// Which of the kernels `abis` run their blocks in reverse order: a flat
/// map's kernel that reads a `gpu` container the previous flat map's kernel
/// of its state writes, when that one runs its blocks forward. Block `b`
/// of `n` then does the work of block `n - 1 - b` on every axis (a
/// permutation of the blocks, so the same work, for any grid), and the
/// kernel starts on the tiles its producer wrote last, which are still in
/// L2. On the H200, a 2800^2 jacobi sweep pair (two 62.7 MB grids, just
/// beyond the 50 MB L2) took 3% less time this way; grids in L2 or far
/// beyond it did not change (docs/BENCHMARKS.md).
///
/// Maps of three or more dimensions keep their order: their kernels walk
/// planes in one wave of blocks (`kernel/walk.rs`), and heat3d's 998
/// sweeps as one graph took 6.84-7.39 ms on the H200 with every second
/// sweep reversed against 6.72-6.75 ms with none (the same cubin but for
/// the reversal, in one process; docs/BENCHMARKS.md, run LL).
///
/// ```
/// use sdfg_compiler::codegen::abi::kernel_abis;
/// use sdfg_compiler::codegen::ptx::reversed_kernels;
/// let sdfg = sdfg_compiler::frontend_str(
///     "sdfg S { symbol N: i64; gpu A: f64[N]; gpu B: f64[N]; gpu C: f64[N];
///       state s {
///         map b[i in 0..N] on gpu { B[i] = A[i]; }
///         map a[i in 0..N] on gpu { A[i] = B[i]; }
///         map c[i in 0..N] on gpu { C[i] = A[i]; }
///       } }",
/// )
/// .unwrap();
/// // `a` reads what `b` wrote; `c` reads what `a` wrote, but `a` runs in reverse.
/// assert_eq!(reversed_kernels(&sdfg, &kernel_abis(&sdfg)), [false, true, false]);
/// // The same sweeps in 3-D run forward.
/// let cube = sdfg_compiler::frontend_str(
///     "sdfg S { symbol N: i64; gpu A: f64[N, N, N]; gpu B: f64[N, N, N];
///       state s {
///         map b[i in 0..N, j in 0..N, k in 0..N] on gpu { B[i, j, k] = A[i, j, k]; }
///         map a[i in 0..N, j in 0..N, k in 0..N] on gpu { A[i, j, k] = B[i, j, k]; }
///       } }",
/// )
/// .unwrap();
/// assert_eq!(reversed_kernels(&cube, &kernel_abis(&cube)), [false, false]);
/// ```
pub fn reversed_kernels(sdfg: &Sdfg, abis: &[KernelAbi]) -> Vec<bool> {
    use crate::ir::{Access, ContainerId, Storage};
    let mut reversed = vec![false; abis.len()];
    let mut order: Vec<usize> = (0..abis.len()).collect();
    order.sort_by_key(|&k| (abis[k].state, abis[k].stmt));
    // Per state: what its previous flat kernel writes, and its order.
    let mut previous: Option<(StateId, Vec<ContainerId>, bool)> = None;
    for k in order {
        let (state, stmt) = (abis[k].state, abis[k].stmt);
        let statement = &sdfg.states[state].stmts[stmt];
        let StatementKind::Map(map) = &statement.kind else {
            continue;
        };
        if map.block.is_some() || map.gpu_tasklet {
            continue;
        }
        let gpu = |c: ContainerId| sdfg.containers[c].storage == Storage::Gpu;
        let reads_from_previous = previous.as_ref().is_some_and(|(s, writes, rev)| {
            *s == state
                && !*rev
                && statement
                    .memlets
                    .iter()
                    .any(|m| m.access == Access::Read && writes.contains(&m.container))
        });
        reversed[k] = reads_from_previous && map.params.len() <= 2;
        let writes = statement
            .memlets
            .iter()
            .filter(|m| m.access != Access::Read && gpu(m.container))
            .map(|m| m.container)
            .collect();
        previous = Some((state, writes, reversed[k]));
    }
    reversed
}

/// The PTX of all `gpu` maps of one SDFG.
#[derive(Clone, Debug)]
pub struct PtxModule {
    pub text: String,
    pub kernels: Vec<PtxKernel>,
    /// The module indices of the persistent kernels whose blocks can
    /// synchronize with their neighbours instead of the whole grid (they
    /// take the mode parameter last; `kernel::neighbours`).
    pub neighbour_sync: Vec<usize>,
}

/// One kernel of a [`PtxModule`] and how to launch it.
#[derive(Clone, Debug)]
pub struct PtxKernel {
    pub state: StateId,
    pub stmt: StmtId,
    /// The ABI the kernel was generated for: entry name (`abi.name`) and
    /// parameter order.
    pub abi: KernelAbi,
    /// Threads per block (x, y, z).
    pub block: [u32; 3],
    /// Consecutive-tile iterations per thread per grid-stride step in x.
    pub items_per_thread: u32,
    /// Consecutive iterations per thread per grid-stride step in y (in z
    /// with `rows_in_z`).
    pub rows_per_thread: u32,
    /// A 3-D map whose rows run along z, the outermost dimension
    /// (`Tuning::rows_3d_in_z`; `LaunchConfig::for_tiles_in_z`).
    pub rows_in_z: bool,
    /// The kernel runs its blocks in reverse order (block `b` of `n` on an
    /// axis does the work of block `n - 1 - b`; see [`reversed_kernels`]).
    pub reversed_blocks: bool,
    /// How the map runs as a phase of its state's persistent kernel
    /// (`#[persistent]`; None otherwise): its launch shape there, which
    /// may differ from the kernel's own (one item in x, no walk), and from
    /// which the launch sizes the persistent grid.
    pub phase: Option<PhaseShape>,
    /// How to launch the kernel of a block map (None: a flat map). Its
    /// `block` is `[B rounded up to whole warps, 1, 1]` when `B` is a
    /// constant, else `[0, 1, 1]` (the launch computes it from the symbols).
    pub block_map: Option<BlockLaunch>,
}

impl PtxKernel {
    /// The shape the map is launched in: its phase's when it runs as a
    /// phase of a persistent kernel (`as_phase`) and has one, else the
    /// kernel's own.
    pub fn launch_shape(&self, as_phase: bool) -> PhaseShape {
        match self.phase {
            Some(phase) if as_phase => phase,
            _ => PhaseShape {
                block: self.block,
                items_per_thread: self.items_per_thread,
                rows_per_thread: self.rows_per_thread,
                rows_in_z: self.rows_in_z,
            },
        }
    }
}

/// The launch shape of a map as a phase of a persistent kernel (the
/// fields of [`PtxKernel`] of the same names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhaseShape {
    pub block: [u32; 3],
    pub items_per_thread: u32,
    pub rows_per_thread: u32,
    pub rows_in_z: bool,
}

/// The launch of a block map's kernel: 1-D blocks of `B` threads rounded up
/// to whole warps, a 1-D grid striding over the block iterations (any grid
/// is correct; `min(iterations, sm_count * 32)` blocks is the rule), and
/// the dynamic shared memory of `dynamic_shared`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockLaunch {
    /// The threads the program sees per block (`B`) when constant; None:
    /// the product of the block's dimensions, from the symbols.
    pub threads: Option<u32>,
    /// Bytes of the kernel's static shared memory (its `.shared` arrays and
    /// reduction slots).
    pub static_shared_bytes: u32,
    /// The shared containers whose shapes use symbols, in the order they
    /// lie in dynamic shared memory, each aligned to 16 bytes: the launch
    /// passes the sum of `align16(elements * element size)`.
    pub dynamic_shared: Vec<crate::ir::ContainerId>,
}

/// The launch shape of the kernels of small straight-line bodies (the ones
/// worth unrolling): threads per block, iterations per thread in x (strided
/// by `block.x`, coalesced) and consecutive rows per thread in y. The
/// defaults are what the H200 measurements in docs/BENCHMARKS.md chose;
/// [`generate_tuned`] takes others, for those measurements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tuning {
    /// 1-D maps: block and items per thread.
    pub block_1d: u32,
    pub items_1d: u32,
    /// Maps of 2 and more dimensions: block (x, y), items per thread in x,
    /// rows per thread in y.
    pub block_2d: [u32; 2],
    pub items_2d: u32,
    pub rows_2d: u32,
    /// L2 prefetch size of global loads in bytes (`.L2::64B`, `::128B`,
    /// `::256B`); 0: no hint.
    pub l2_prefetch: u32,
    /// Plain stores as `st.global.cs` (streaming: evict first from L2,
    /// which keeps the rows a stencil reads again).
    pub streaming_stores: bool,
    /// Blocks per SM ptxas must make room for (`.maxntid` + `.minnctapersm`,
    /// which caps the registers per thread); 0: no directive.
    pub min_blocks_per_sm: u32,
    /// 3-D maps: a thread's `rows_2d` rows run along the outermost
    /// dimension (z) instead of y, so the loads of neighbouring planes,
    /// which no other thread of the block shares, are issued once per run
    /// of planes (a 7-point stencil reads 1.5 planes per point, not 3).
    /// Off by default: on the H200, heat3d N=120 (in L2) ran no faster
    /// (docs/BENCHMARKS.md, "heat3d launch shapes").
    pub rows_3d_in_z: bool,
    /// 3-D maps of plain bodies (`kernel/walk.rs` says which): each thread
    /// walks `rows_3d` planes along z, the outermost dimension, one after
    /// the other, in blocks of `block_3d` threads (x, y), one item in x.
    /// Off, and for other bodies: they take the 2-D shape (with
    /// `rows_3d_in_z`, in z). On by
    /// default, 64 x 2 threads and 8 planes: on the H200, heat3d N=120
    /// T=500 took 6.8-6.9 ms against 7.55 with the 2-D shape; 32 x 4, 32 x
    /// 8 and 64 x 4 blocks 6.9-7.2, 4 planes 7.2, 16 planes 7.5-7.8
    /// (docs/BENCHMARKS.md).
    pub walk_3d: bool,
    pub block_3d: [u32; 2],
    pub rows_3d: u32,
    /// The planes per thread of the walks of a persistent kernel whose
    /// blocks wait for their neighbours (`kernel::neighbours`), and the
    /// registers its cap has beyond the walk's. There every value the loop
    /// keeps across a phase costs the walk registers: at the walk's own
    /// cap (32) ptxas 13 spilled inside the walks of heat3d's two phases,
    /// so they get 8 more (40: 12 blocks of 128 threads per SM instead of
    /// 16) and more planes each, so that the grid (one tile per block)
    /// still fits the SMs at once. On the H200, heat3d N=120 T=500 took
    /// 11.8 ms at 8 planes and 32 registers, 8.5 / 8.1 / 8.3 ms at 10 / 12
    /// / 16 planes and 40 (docs/BENCHMARKS.md, run EEE).
    pub neighbour_rows_3d: u32,
    pub neighbour_extra_registers: u32,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            block_1d: 256,
            items_1d: 4,
            block_2d: [128, 1],
            items_2d: 1,
            rows_2d: 6,
            l2_prefetch: 0,
            streaming_stores: false,
            min_blocks_per_sm: 0,
            rows_3d_in_z: false,
            walk_3d: true,
            block_3d: [64, 2],
            rows_3d: 8,
            neighbour_rows_3d: 12,
            neighbour_extra_registers: 8,
        }
    }
}

impl PtxModule {
    pub fn kernel(&self, state: StateId, stmt: StmtId) -> Option<&PtxKernel> {
        self.kernels
            .iter()
            .find(|k| k.state == state && k.stmt == stmt)
    }
}

/// A subroutine of the module: a math function of one float type, or the
/// exact f64 `fmod` (the slow path of float `%`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum MathFunc {
    Call { func: MathFn, f32: bool },
    Fmod,
}

// MathFn is not Ord: order by name for a stable module text.
impl Ord for MathFunc {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.name().cmp(&other.name())
    }
}
impl PartialOrd for MathFunc {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl MathFunc {
    pub fn name(self) -> String {
        match self {
            MathFunc::Call { func, f32 } => format!(
                "__sdfg_{}_{}",
                func.method_name(),
                if f32 { "f32" } else { "f64" }
            ),
            MathFunc::Fmod => "__sdfg_fmod_f64".to_string(),
        }
    }

    fn definition(self) -> String {
        use math::*;
        let name = self.name();
        let (func, f32) = match self {
            MathFunc::Call { func, f32 } => (func, f32),
            MathFunc::Fmod => return fmod_function(&name),
        };
        match func {
            MathFn::Powi => powi_function(&name, f32),
            MathFn::Exp if f32 => exp_f32_function(&name),
            MathFn::Powf => PtxOps::function(&name, f32, 2, |o, a| powf_prog(o, a[0], a[1])),
            MathFn::Atan2 => PtxOps::function(&name, f32, 2, |o, a| atan2_prog(o, a[0], a[1])),
            MathFn::Hypot => PtxOps::function(&name, f32, 2, |o, a| hypot_prog(o, a[0], a[1])),
            f => PtxOps::function(&name, f32, 1, |o, a| match f {
                MathFn::Exp => exp_prog(o, a[0]),
                MathFn::Ln => ln_prog(o, a[0]),
                MathFn::Sin => sin_prog(o, a[0]),
                MathFn::Cos => cos_prog(o, a[0]),
                MathFn::Asin => asin_prog(o, a[0]),
                MathFn::Acos => acos_prog(o, a[0]),
                MathFn::Atan => atan_prog(o, a[0]),
                MathFn::Sinh => sinh_prog(o, a[0]),
                MathFn::Cosh => cosh_prog(o, a[0]),
                MathFn::Cbrt => cbrt_prog(o, a[0]),
                MathFn::Erf => erf_prog(o, a[0]),
                _ => tanh_prog(o, a[0]),
            }),
        }
    }
}

/// The PTX module for every `gpu` map of `sdfg` (valid IR; never panics).
pub fn generate(sdfg: &Sdfg) -> PtxModule {
    generate_tuned(sdfg, &Tuning::default())
}

/// [`generate`] with another launch shape for unrolled bodies.
pub fn generate_tuned(sdfg: &Sdfg, tuning: &Tuning) -> PtxModule {
    generate_for(sdfg, &kernel_abis(sdfg), tuning)
}

/// The PTX module for the kernels `abis` describe (built once by
/// [`kernel_abis`] and shared with the glue and the CPU twins).
pub fn generate_for(sdfg: &Sdfg, abis: &[KernelAbi], tuning: &Tuning) -> PtxModule {
    generate_with(sdfg, abis, &[], tuning)
}

/// [`generate_for`] and, after the maps' kernels, the persistent kernels
/// of `#[persistent]` states (`codegen::persistent`).
pub fn generate_with(
    sdfg: &Sdfg,
    abis: &[KernelAbi],
    persistent: &[PersistentKernel],
    tuning: &Tuning,
) -> PtxModule {
    let mut funcs = BTreeSet::new();
    let mut kernels = Vec::new();
    let mut entries = String::new();
    let reversed = reversed_kernels(sdfg, abis);
    for (index, abi) in abis.iter().enumerate() {
        let (state, stmt) = (abi.state, abi.stmt);
        let StatementKind::Map(map) = &sdfg.states[state].stmts[stmt].kind else {
            continue;
        };
        let (text, k) = kernel::KernelEmitter::new(sdfg, map, abi, index, &mut funcs)
            .with_reversed_blocks(reversed[index])
            .emit(state, stmt, tuning);
        entries.push('\n');
        entries.push_str(&text);
        kernels.push(k);
    }
    let mut neighbour_sync = Vec::new();
    for p in persistent {
        entries.push('\n');
        let entry = kernel::persistent::persistent_entry(sdfg, abis, p, &mut funcs, tuning);
        entries.push_str(&entry.text);
        if entry.neighbour_sync {
            neighbour_sync.push(p.index);
        }
        for (abi, shape) in entry.shapes {
            let (state, stmt) = (abis[abi].state, abis[abi].stmt);
            if let Some(k) = kernels
                .iter_mut()
                .find(|k| (k.state, k.stmt) == (state, stmt))
            {
                k.phase = Some(shape);
            }
        }
    }
    let mut text = String::new();
    text.push_str(&format!(
        "// Generated by sdfg-rs for `{}`: {} kernel(s).\n",
        sdfg.name.text,
        kernels.len() + persistent.len()
    ));
    text.push_str(".version 8.0\n.target sm_80\n.address_size 64\n");
    if kernels.iter().any(|k| {
        k.block_map
            .as_ref()
            .is_some_and(|b| !b.dynamic_shared.is_empty())
    }) {
        text.push_str(&format!(
            "\n.extern .shared .align 16 .b8 {}[];\n",
            kernel::block_data::DYNAMIC_SHARED
        ));
    }
    for f in &funcs {
        text.push('\n');
        text.push_str(&f.definition());
    }
    text.push_str(&entries);
    PtxModule {
        text,
        kernels,
        neighbour_sync,
    }
}

/// A documented accuracy bound of one math function (vs Rust std, which the
/// evaluator uses; `erf`, which std lacks, vs glibc's `erf`/`erff`), in
/// units in the last place of the result type.
#[derive(Clone, Copy, Debug)]
pub struct UlpBound {
    pub function: &'static str,
    pub ulp: f64,
    pub note: &'static str,
}

/// Per function and type: the maximal error against Rust std (glibc for
/// `erf`; measured by tests/ptx_math.rs on the Rust mirrors of the PTX code; see docs/PTX.md).
pub const ULP_BOUNDS: &[UlpBound] = &[
    UlpBound {
        function: "sqrt f32/f64",
        ulp: 0.0,
        note: "sqrt.rn: exact",
    },
    UlpBound {
        function: "abs min max floor ceil",
        ulp: 0.0,
        note: "exact",
    },
    UlpBound {
        function: "mul_add f32/f64",
        ulp: 0.0,
        note: "fma.rn: a * b + c rounded once, as Rust's mul_add",
    },
    UlpBound {
        function: "fmod f32/f64",
        ulp: 0.0,
        note: "exact: fma fast path for quotients below 2^53, bitwise long division otherwise",
    },
    UlpBound {
        function: "powi f32/f64",
        ulp: 0.0,
        note: "bit-exact: the same repeated squaring as compiler-rt __powi[sd]f2",
    },
    UlpBound {
        function: "exp f64",
        ulp: 2.0,
        note: "measured max 1",
    },
    UlpBound {
        function: "exp f32",
        ulp: 1.0,
        note: "via f64",
    },
    UlpBound {
        function: "ln f64",
        ulp: 2.0,
        note: "measured max 1",
    },
    UlpBound {
        function: "ln f32",
        ulp: 1.0,
        note: "via f64",
    },
    UlpBound {
        function: "sin f64",
        ulp: 2.0,
        note: "all x: Cody-Waite below 2^20, Payne-Hanek above; measured max 1",
    },
    UlpBound {
        function: "cos f64",
        ulp: 2.0,
        note: "all x: Cody-Waite below 2^20, Payne-Hanek above; measured max 1",
    },
    UlpBound {
        function: "sin f32",
        ulp: 1.0,
        note: "via f64; all x",
    },
    UlpBound {
        function: "cos f32",
        ulp: 1.0,
        note: "via f64; all x",
    },
    UlpBound {
        function: "tanh f64",
        ulp: 3.0,
        note: "measured max 3 against glibc, whose tanh is not correctly rounded either",
    },
    UlpBound {
        function: "tanh f32",
        ulp: 2.0,
        note: "via f64",
    },
    UlpBound {
        function: "powf f64",
        ulp: 2.0,
        note: "exp(y ln|x|) with ln|x| and y ln|x| in double-double; measured max 1",
    },
    UlpBound {
        function: "powf f32",
        ulp: 1.0,
        note: "via f64",
    },
    UlpBound {
        function: "atan2 f64",
        ulp: 2.0,
        note: "atan of min/max on [0, 1] by eighths (table) and Taylor, double-double; C99 special cases",
    },
    UlpBound {
        function: "atan2 f32",
        ulp: 1.0,
        note: "via f64",
    },
    UlpBound {
        function: "atan f64",
        ulp: 2.0,
        note: "atan2(x, 1)",
    },
    UlpBound {
        function: "atan f32",
        ulp: 1.0,
        note: "via f64",
    },
    UlpBound {
        function: "asin f64",
        ulp: 2.0,
        note: "atan2(x, sqrt(fma(-x, x, 1)))",
    },
    UlpBound {
        function: "asin f32",
        ulp: 1.0,
        note: "via f64",
    },
    UlpBound {
        function: "acos f64",
        ulp: 2.0,
        note: "atan2(sqrt(fma(-x, x, 1)), x)",
    },
    UlpBound {
        function: "acos f32",
        ulp: 1.0,
        note: "via f64",
    },
    UlpBound {
        function: "sinh f64",
        ulp: 2.0,
        note: "fdlibm's formulas over an expm1 with exact 2^k scaling; measured max 2 against glibc (1 from the exact value on both sides)",
    },
    UlpBound {
        function: "sinh f32",
        ulp: 2.0,
        note: "via f64; measured max 2 against glibc's sinhf, which is not correctly rounded",
    },
    UlpBound {
        function: "cosh f64",
        ulp: 2.0,
        note: "fdlibm's formulas: expm1 near 0, (e + 1/e) / 2, e^(|x| - ln2); measured max 2 against glibc",
    },
    UlpBound {
        function: "cosh f32",
        ulp: 2.0,
        note: "via f64; measured max 2 against glibc's coshf, which is not correctly rounded",
    },
    UlpBound {
        function: "hypot f64",
        ulp: 1.0,
        note: "double-double sum of squares, corrected sqrt, scaled outside 2^+-500",
    },
    UlpBound {
        function: "hypot f32",
        ulp: 1.0,
        note: "via f64",
    },
    UlpBound {
        function: "cbrt f64",
        ulp: 1.0,
        note: "Newton from a quadratic start, last step with a double-double residual",
    },
    UlpBound {
        function: "cbrt f32",
        ulp: 1.0,
        note: "via f64",
    },
    UlpBound {
        function: "erf f64",
        ulp: 2.0,
        note: "fdlibm's rational fits, one exp of a double-double argument; against glibc's erf (std has none): measured max 1 (20M samples)",
    },
    UlpBound {
        function: "erf f32",
        ulp: 1.0,
        note: "via f64; measured max 1 against glibc's erff, which is not correctly rounded",
    },
];
