//! The persistent kernel of a `#[persistent]` state
//! (`codegen::persistent`): one `.entry` that runs the state's loop. Its
//! parameters are the maps' kernels' parameters, in order and under the
//! same names, then the barrier's address and the iteration count. Each
//! map is a *phase*: the map's own grid-stride loops (emitted as for its
//! kernel, so they are correct for any grid and any block) in a `{ }`
//! scope of their own registers, its labels prefixed by the phase. After
//! every phase the blocks meet at a grid-wide barrier: always, not only
//! where the next phase reads what this one wrote, because the next
//! iteration's first phase follows the last one and stencil loops
//! alternate their buffers, so in the programs this is for every barrier
//! is needed; a dependence test between phases would save none of them.
//! What can be saved is the wait for blocks far away: where the phases
//! reach only the adjacent tiles ([`crate::ir::reach`]) the phases walk,
//! one tile per block, and the entry takes a last parameter, the mode, with
//! which the launch may choose [`neighbours`] instead of the barrier.
//!
//! The barrier (sense by generation): every thread of a block reaches
//! `bar.sync`; the block's leader reads the generation, then arrives
//! (`fence.acq_rel.gpu`, then an `atom.acq_rel.gpu` add on the arrival
//! count: the block's writes are released with it). The last arrival
//! resets the count and publishes the next generation with
//! `st.release.gpu`; the others spin on `ld.acquire.gpu` until the
//! generation changes; a second `bar.sync` lets the block go on. The
//! launch is cooperative (`Stream::launch_persistent`), so every block is
//! resident and the spin cannot wait for a block without an SM.
//!
//! Loads of data some phase writes are plain `ld.global`, never
//! `ld.global.nc`: the non-coherent cache could hold what an earlier phase
//! of the same launch overwrote. The iteration count comes from the host
//! (the loop reads only symbols), so the loop is uniform; the iterations
//! left live in shared memory and everything else the loop needs (the
//! barrier's address, the leader test) is computed again where it is
//! needed, so nothing stays in registers across a phase: a walk is capped
//! at the registers one plane needs, and every value live across it would
//! be spilled inside it.

use super::{neighbours, param_decl, KernelEmitter};
use crate::codegen::abi::KernelAbi;
use crate::codegen::persistent::PersistentKernel;
use crate::codegen::ptx::{MathFunc, PhaseShape, Tuning};
use crate::ir::{ContainerId, Sdfg, StatementKind};
use std::collections::BTreeSet;
use std::fmt::Write;

impl KernelEmitter<'_> {
    /// The map as phase `phase` of a persistent kernel: its loops in a
    /// scope of their own, leaving through `exit`; and its launch shape.
    fn emit_phase(
        mut self,
        tuning: &Tuning,
        phase: usize,
        exit: &str,
        coherent: BTreeSet<ContainerId>,
    ) -> (String, PhaseShape, Option<u32>) {
        self.label_prefix = format!("p{phase}");
        self.coherent = coherent;
        let (block, ipt, rows) = self.flat_shape(tuning);
        let shape = PhaseShape {
            block,
            items_per_thread: ipt,
            rows_per_thread: rows,
            rows_in_z: self.rows_in_z,
        };
        let ranges = self.load_params();
        self.start_scalar_reductions();
        self.grid_loops(&ranges, ipt, rows);
        self.finish_scalar_reductions();
        self.ins(format!("bra.uni {exit}"));
        let decls = self.register_decls();
        // A persistent kernel has no dependents to trigger.
        let code = self
            .code
            .replace(crate::codegen::ptx::GRID_TRIGGER_MARK, "");
        let text = format!(
            "\t// phase {phase}: map `{}`, {ipt} item(s) per thread in x, {rows} row(s) in {}{}\n\t{{\n{decls}{code}\t}}\n",
            self.map.name.text,
            if self.rows_in_z { "z" } else { "y" },
            if self.walk.is_some() { ", walked" } else { "" },
        );
        (text, shape, self.walk)
    }
}

/// The phases of a persistent kernel as emitted: their text, launch
/// shapes (by ABI index) and the registers a walk of theirs is capped at.
struct Phases {
    texts: Vec<String>,
    shapes: Vec<(usize, PhaseShape)>,
    caps: Vec<Option<u32>>,
}

/// The phases of `kernel` emitted with `tuning` (walks or not).
fn emit_phases(
    sdfg: &Sdfg,
    abis: &[KernelAbi],
    kernel: &PersistentKernel,
    funcs: &mut BTreeSet<MathFunc>,
    tuning: &Tuning,
    coherent: &BTreeSet<ContainerId>,
) -> Phases {
    let state = &sdfg.states[kernel.state];
    let mut out = Phases {
        texts: Vec::new(),
        shapes: Vec::new(),
        caps: Vec::new(),
    };
    for (phase, &i) in kernel.phases.iter().enumerate() {
        let abi = &abis[i];
        let StatementKind::Map(map) = &state.stmts[abi.stmt].kind else {
            continue;
        };
        let exit = format!("$P_done_{phase}");
        let (text, shape, cap) = KernelEmitter::new(sdfg, map, abi, i, funcs).emit_phase(
            tuning,
            phase,
            &exit,
            coherent.clone(),
        );
        out.texts.push(text);
        out.shapes.push((i, shape));
        out.caps.push(cap);
    }
    out
}

/// Where the phases can synchronize with their neighbours
/// ([`neighbours`]): every phase walks (one tile per block, the phases'
/// own grid covering the map), all in one shape, and the offsets of
/// `kernel.reach` stay within the adjacent tiles. The directions, or None.
fn neighbour_directions(kernel: &PersistentKernel, phases: &Phases) -> Option<Vec<[i32; 3]>> {
    let offsets = kernel.reach.as_ref()?;
    let (_, shape) = *phases.shapes.first()?;
    let same = phases.shapes.iter().all(|(_, s)| *s == shape);
    if !same || phases.caps.iter().any(Option::is_none) || !shape.rows_in_z {
        return None;
    }
    let [bx, by, bz] = shape.block.map(u64::from);
    let extents = [
        bz * u64::from(shape.rows_per_thread),
        by,
        bx * u64::from(shape.items_per_thread),
    ];
    neighbours::directions(offsets, extents)
}

/// What [`persistent_entry`] emits.
pub(crate) struct PersistentEntry {
    pub text: String,
    /// The launch shape of each phase (by its index in the ABIs).
    pub shapes: Vec<(usize, PhaseShape)>,
    /// Whether the entry can synchronize its blocks with their neighbours
    /// (it then takes the mode parameter; [`neighbours`]).
    pub neighbour_sync: bool,
}

/// The `.entry` of `kernel` (its phases' ABIs in `abis`), and the launch
/// shape of each phase (by its index in `abis`). Its blocks synchronize
/// with their neighbours where they can ([`neighbours`]; the entry then
/// takes a last parameter, the mode), else grid-wide after every phase.
pub(crate) fn persistent_entry(
    sdfg: &Sdfg,
    abis: &[KernelAbi],
    kernel: &PersistentKernel,
    funcs: &mut BTreeSet<MathFunc>,
    tuning: &Tuning,
) -> PersistentEntry {
    let name = &kernel.name;
    let state = &sdfg.states[kernel.state];
    // What any phase writes: loaded coherently in every phase.
    let coherent: BTreeSet<ContainerId> = kernel
        .phases
        .iter()
        .flat_map(|&i| &state.stmts[abis[i].stmt].memlets)
        .filter(|m| m.access.is_write())
        .map(|m| m.container)
        .collect();
    // Walks where the blocks can wait for their neighbours alone (one
    // tile per block); else the tiles of rows of `phase_tuning`.
    let mut dirs = None;
    let mut walked = None;
    if kernel.reach.is_some() {
        let tuning = &Tuning {
            rows_3d: tuning.neighbour_rows_3d,
            ..*tuning
        };
        let phases = emit_phases(sdfg, abis, kernel, funcs, tuning, &coherent);
        dirs = neighbour_directions(kernel, &phases);
        walked = dirs.is_some().then_some(phases);
    }
    let phases = match walked {
        Some(p) => p,
        None => emit_phases(sdfg, abis, kernel, funcs, &phase_tuning(tuning), &coherent),
    };
    let mut params = Vec::new();
    let mut maps = Vec::new();
    for &i in &kernel.phases {
        let abi = &abis[i];
        for (k, p) in abi.params.iter().enumerate() {
            params.push(format!(
                "\t{}",
                param_decl(p, &format!("{}_param_{k}", abi.name))
            ));
        }
        if let StatementKind::Map(m) = &state.stmts[abi.stmt].kind {
            maps.push(format!("`{}`", m.name.text));
        }
    }
    params.push(format!("\t.param .u64 {name}_barrier"));
    params.push(format!("\t.param .u64 {name}_iterations"));
    let mode = format!("{name}_mode");
    if dirs.is_some() {
        params.push(format!("\t.param .u32 {mode}"));
    }
    let mut text = String::new();
    let _ = writeln!(
        text,
        "// persistent kernel of state `{}`: phases {}, {}",
        state.name.text,
        maps.join(", "),
        match &dirs {
            Some(d) => format!(
                "each block waiting for its {} neighbour(s) before each phase (or a grid-wide barrier after each)",
                d.len()
            ),
            None => "a grid-wide barrier after each".into(),
        }
    );
    let _ = writeln!(text, ".visible .entry {name}(\n{}\n)", params.join(",\n"));
    // The walks' register cap, and a few more: every block of the phases'
    // grid must be resident at once, and at the walk's own cap ptxas
    // spills inside the walks of a kernel of several phases
    // (`Tuning::neighbour_extra_registers`).
    if let Some(cap) = dirs.as_ref().and(phases.caps.iter().flatten().max()) {
        let _ = writeln!(text, ".maxnreg {}", cap + tuning.neighbour_extra_registers);
    }
    text.push_str("{\n");
    text.push_str("\t.reg .pred %bp<3>;\n\t.reg .b32 %br<8>;\n\t.reg .b64 %brd<4>;\n");
    let _ = writeln!(text, "\t.shared .align 8 .b64 {name}_left;");
    if dirs.is_some() {
        text.push_str(&neighbours::decls(name));
    }
    // Nothing of the loop's own lives in registers across a phase (the
    // walks' register cap would make ptxas spill inside them): the
    // iterations left are in shared memory, the rest is computed again
    // from the parameters where it is needed.
    let (not_leader, barrier) = (not_leader(), barrier_address(name));
    let _ = write!(
        text,
        "\tld.param.u64 %brd3, [{name}_iterations];\n\
         \tsetp.eq.u64 %bp0, %brd3, 0;\n\
         \t@%bp0 bra $P_exit;\n\
         {not_leader}\t@%bp1 bra $P_start;\n\
         \tst.shared.u64 [{name}_left], %brd3;\n"
    );
    if dirs.is_some() {
        let _ = writeln!(text, "\tst.shared.u32 [{name}_phase], 0;");
    }
    text.push_str("$P_start:\n\tbar.sync 0;\n$P_top:\n");
    let last = phases.texts.len().saturating_sub(1);
    for (phase, body) in phases.texts.iter().enumerate() {
        if let Some(d) = &dirs {
            text.push_str(&neighbours::wait(phase, name, d, (&not_leader, &barrier)));
        }
        text.push_str(body);
        let _ = writeln!(text, "$P_done_{phase}:");
        // After the last phase: one iteration less; the leader stores
        // the count once every thread has read it (after the barrier).
        let mut leader = String::new();
        if phase == last {
            let _ = write!(
                text,
                "\tld.shared.u64 %brd3, [{name}_left];\n\
                 \tsub.u64 %brd3, %brd3, 1;\n\
                 \tsetp.eq.u64 %bp0, %brd3, 0;\n\
                 \t@%bp0 bra $P_finish;\n"
            );
            let _ = writeln!(leader, "\tst.shared.u64 [{name}_left], %brd3;");
        }
        let grid = grid_barrier(&phase.to_string(), &leader, (&not_leader, &barrier));
        match &dirs {
            Some(_) => text.push_str(&neighbours::after_phase(
                phase,
                name,
                &grid,
                &leader,
                (&not_leader, &barrier),
            )),
            None => text.push_str(&grid),
        }
    }
    text.push_str("\tbra.uni $P_top;\n$P_finish:\n");
    if dirs.is_some() {
        let grid = grid_barrier("end", "", (&not_leader, &barrier));
        text.push_str(&neighbours::finish(name, &grid, (&not_leader, &barrier)));
    }
    text.push_str("$P_exit:\n\tret;\n}\n");
    PersistentEntry {
        text,
        shapes: phases.shapes,
        neighbour_sync: dirs.is_some(),
    }
}

/// The launch shape of the phases (recorded as `PtxKernel::phase`, which
/// the launch sizes the grid with) where they synchronize grid-wide: one
/// item per thread in x in maps of two and more dimensions, rows as tuned,
/// no walks. The grid is capped at the blocks resident at once, so the
/// registers of the largest phase decide how many blocks run: heat3d's
/// phases need 64 registers this way instead of 96 with two items (ptxas,
/// sm_90), 8 resident blocks of 128 threads per SM instead of 5.
fn phase_tuning(tuning: &Tuning) -> Tuning {
    Tuning {
        items_2d: 1,
        // A walk's one-pass form needs a grid that covers the map, which a
        // persistent grid rarely is; its grid-stride loops around a walk
        // took heat3d from 9.4 to 11.3-11.9 ms (H200; docs/BENCHMARKS.md).
        walk_3d: false,
        ..*tuning
    }
}

/// `%bp1`: this thread is not its block's leader (thread 0, 0, 0).
fn not_leader() -> String {
    "\tmov.u32 %br0, %tid.x;\n\tmov.u32 %br1, %tid.y;\n\tor.b32 %br0, %br0, %br1;\n\tmov.u32 %br1, %tid.z;\n\tor.b32 %br0, %br0, %br1;\n\tsetp.ne.u32 %bp1, %br0, 0;\n".into()
}

/// `%brd1`: the barrier's global address (its arrival count), `%brd2`:
/// its generation's (`name`: the kernel's).
fn barrier_address(name: &str) -> String {
    format!(
        "\tld.param.u64 %brd0, [{name}_barrier];\n\tcvta.to.global.u64 %brd1, %brd0;\n\tadd.u64 %brd2, %brd1, 4;\n"
    )
}

/// The grid-wide barrier after phase `k` (see the module's docs); the
/// leader runs `leader` first. `not_leader` sets `%bp1`, `barrier` the
/// barrier's addresses.
fn grid_barrier(k: &str, leader: &str, (not_leader, barrier): (&str, &str)) -> String {
    let (wait, join) = (format!("$P_wait_{k}"), format!("$P_join_{k}"));
    let mut out = String::new();
    let _ = writeln!(out, "\t// grid-wide barrier {k}\n\tbar.sync 0;");
    out.push_str(not_leader);
    let _ = writeln!(out, "\t@%bp1 bra {join};");
    out.push_str(leader);
    out.push_str(barrier);
    for line in [
        // %br2: the blocks of the grid less one (the last arrival's old count).
        "\tmov.u32 %br2, %nctaid.x;".to_string(),
        "\tmov.u32 %br3, %nctaid.y;".into(),
        "\tmul.lo.u32 %br2, %br2, %br3;".into(),
        "\tmov.u32 %br3, %nctaid.z;".into(),
        "\tmul.lo.u32 %br2, %br2, %br3;".into(),
        "\tsub.u32 %br2, %br2, 1;".into(),
        "\tld.relaxed.gpu.global.u32 %br4, [%brd2];".into(),
        "\tfence.acq_rel.gpu;".into(),
        "\tatom.acq_rel.gpu.global.add.u32 %br5, [%brd1], 1;".into(),
        "\tsetp.ne.u32 %bp2, %br5, %br2;".into(),
        format!("\t@%bp2 bra {wait};"),
        "\tst.relaxed.gpu.global.u32 [%brd1], 0;".into(),
        "\tadd.u32 %br6, %br4, 1;".into(),
        "\tst.release.gpu.global.u32 [%brd2], %br6;".into(),
        format!("\tbra.uni {join};"),
        format!("{wait}:"),
        "\tld.acquire.gpu.global.u32 %br7, [%brd2];".into(),
        "\tsetp.eq.u32 %bp2, %br7, %br4;".into(),
        format!("\t@%bp2 bra {wait};"),
        format!("{join}:"),
        "\tbar.sync 0;".into(),
    ] {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::codegen::abi::kernel_abis;
    use crate::codegen::ptx::{generate_with, PhaseShape, PtxModule, Tuning};

    /// A two-phase heat-like loop whose phases read `reads` (an index of
    /// `A` / `B`, in `i, j, k`), and its module.
    fn two_phases(reads: &str) -> PtxModule {
        let src = format!(
            "sdfg H {{ symbol N: i64; symbol T: i64;
              gpu A: f64[N, N, N]; gpu B: f64[N, N, N];
              state init {{}}
              #[persistent]
              state step {{
                map b[i in 1..N-1, j in 1..N-3, k in 1..N-1] on gpu {{
                    B[i, j, k] = A[i + 1, j, k] + A[i - 1, j, k] + A[{reads}];
                }}
                map a[i in 1..N-1, j in 1..N-3, k in 1..N-1] on gpu {{
                    A[i, j, k] = B[i + 1, j, k] + B[i - 1, j, k] + B[i, j, k];
                }}
              }}
              state done {{}}
              init -> step if T > 1 {{ t = 1 }}
              init -> done if T <= 1;
              step -> step if t + 1 < T {{ t = t + 1 }}
              step -> done if t + 1 >= T;
            }}"
        );
        let mut sdfg = crate::frontend_str(&src).unwrap();
        let schedule = crate::schedule::schedule(&sdfg);
        let abis = kernel_abis(&sdfg);
        let persistent = crate::codegen::persistent::augment(&mut sdfg, &schedule, &abis);
        assert_eq!(persistent.len(), 1);
        generate_with(&sdfg, &abis, &persistent, &Tuning::default())
    }

    /// Phases that reach only the adjacent tiles walk as their own kernels
    /// do (with the planes and registers of `Tuning::neighbour_rows_3d`),
    /// and the entry waits for the 2 neighbours along z (their offsets)
    /// instead of the grid; the module records the walk's shape for the
    /// launch, which sizes the grid by it.
    #[test]
    fn phases_that_reach_their_neighbours_walk_and_wait_for_them() {
        let m = two_phases("i, j, k");
        assert_eq!(m.neighbour_sync, vec![2]);
        let tuning = Tuning::default();
        for k in &m.kernels {
            assert!(k.rows_in_z && k.block == [64, 2, 1], "{k:?}");
            let want = PhaseShape {
                rows_per_thread: tuning.neighbour_rows_3d,
                ..k.launch_shape(false)
            };
            assert_eq!(k.phase, Some(want));
        }
        let entry = &m.text[m.text.find(".visible .entry p_step(").unwrap()..];
        assert!(entry.contains(".param .u32 p_step_mode"), "{entry}");
        assert_eq!(entry.matches("$N_spin_0_").count(), 4, "{entry}");
        assert!(entry.contains("ld.relaxed.gpu.global.u32 %nr9, [%nrd1]"));
        assert!(
            entry.contains("atom.acq_rel.gpu.global.add.u32"),
            "the grid mode"
        );
        assert!(entry.contains(".maxnreg 40") && !entry.contains("launch_dependents"));
        assert!(!entry.contains("grid dependency"));
    }

    /// A read three rows away in y reaches past the adjacent tile (two
    /// rows): the phases synchronize grid-wide, in tiles of rows in y
    /// (one item in x), and the module records that shape for the launch.
    #[test]
    fn phases_that_reach_further_meet_the_grid_in_rows() {
        let tuning = Tuning::default();
        for reads in ["i, j + 3, k", "i, k, j", "i, j, N - 1 - k"] {
            let m = two_phases(reads);
            assert!(m.neighbour_sync.is_empty(), "{reads}");
            let entry = &m.text[m.text.find(".visible .entry p_step(").unwrap()..];
            assert!(
                !entry.contains("p_step_mode") && !entry.contains("%np"),
                "{reads}"
            );
            for k in &m.kernels {
                let want = PhaseShape {
                    block: [tuning.block_2d[0], tuning.block_2d[1], 1],
                    items_per_thread: 1,
                    rows_per_thread: tuning.rows_2d,
                    rows_in_z: false,
                };
                assert_eq!(k.phase, Some(want), "{reads}");
            }
        }
    }
}
