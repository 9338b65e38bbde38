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
//! (the loop reads only symbols), so the loop is uniform.

use super::{param_decl, KernelEmitter};
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
    ) -> (String, PhaseShape) {
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
        let text = format!(
            "\t// phase {phase}: map `{}`, {ipt} item(s) per thread in x, {rows} row(s) in {}\n\t{{\n{decls}{}\t}}\n",
            self.map.name.text,
            if self.rows_in_z { "z" } else { "y" },
            self.code
        );
        (text, shape)
    }
}

/// The `.entry` of `kernel` (its phases' ABIs in `abis`), and the launch
/// shape of each phase (by its index in `abis`).
pub(crate) fn persistent_entry(
    sdfg: &Sdfg,
    abis: &[KernelAbi],
    kernel: &PersistentKernel,
    funcs: &mut BTreeSet<MathFunc>,
    tuning: &Tuning,
) -> (String, Vec<(usize, PhaseShape)>) {
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
    let mut text = String::new();
    let _ = writeln!(
        text,
        "// persistent kernel of state `{}`: phases {}, a grid-wide barrier after each",
        state.name.text,
        maps.join(", ")
    );
    let _ = writeln!(
        text,
        ".visible .entry {name}(\n{}\n)\n{{",
        params.join(",\n")
    );
    text.push_str("\t.reg .pred %bp<3>;\n\t.reg .b32 %br<8>;\n\t.reg .b64 %brd<4>;\n");
    for ins in [
        format!("ld.param.u64 %brd0, [{name}_barrier]"),
        "cvta.to.global.u64 %brd1, %brd0".into(),
        // The arrival count at +0, the generation at +4.
        "add.u64 %brd2, %brd1, 4".into(),
        format!("ld.param.u64 %brd3, [{name}_iterations]"),
        "setp.eq.u64 %bp0, %brd3, 0".into(),
        "@%bp0 bra $P_exit".into(),
        // %bp1: not the block's leader (thread 0, 0, 0).
        "mov.u32 %br0, %tid.x".into(),
        "mov.u32 %br1, %tid.y".into(),
        "or.b32 %br0, %br0, %br1".into(),
        "mov.u32 %br1, %tid.z".into(),
        "or.b32 %br0, %br0, %br1".into(),
        "setp.ne.u32 %bp1, %br0, 0".into(),
        // %br2: the blocks of the grid less one (the last arrival's old count).
        "mov.u32 %br2, %nctaid.x".into(),
        "mov.u32 %br3, %nctaid.y".into(),
        "mul.lo.u32 %br2, %br2, %br3".into(),
        "mov.u32 %br3, %nctaid.z".into(),
        "mul.lo.u32 %br2, %br2, %br3".into(),
        "sub.u32 %br2, %br2, 1".into(),
    ] {
        let _ = writeln!(text, "\t{ins};");
    }
    text.push_str("$P_top:\n");
    let last = kernel.phases.len().saturating_sub(1);
    let tuning = &phase_tuning(tuning);
    let mut shapes = Vec::new();
    for (phase, &i) in kernel.phases.iter().enumerate() {
        let abi = &abis[i];
        let StatementKind::Map(map) = &state.stmts[abi.stmt].kind else {
            continue;
        };
        let exit = format!("$P_done_{phase}");
        let (body, shape) = KernelEmitter::new(sdfg, map, abi, i, funcs).emit_phase(
            tuning,
            phase,
            &exit,
            coherent.clone(),
        );
        text.push_str(&body);
        shapes.push((i, shape));
        let _ = writeln!(text, "{exit}:");
        if phase == last {
            // The last iteration needs no barrier after its last phase.
            text.push_str(
                "\tsub.u64 %brd3, %brd3, 1;\n\tsetp.eq.u64 %bp0, %brd3, 0;\n\t@%bp0 bra $P_exit;\n",
            );
        }
        text.push_str(&grid_barrier(phase));
    }
    text.push_str("\tbra.uni $P_top;\n$P_exit:\n\tret;\n}\n");
    (text, shapes)
}

/// The launch shape of the phases (recorded as `PtxKernel::phase`, which
/// the launch sizes the grid with): one item per thread in x in maps of
/// two and more dimensions, rows as tuned, no walks. The grid is capped at the blocks resident at once, so the
/// registers of the largest phase decide how many blocks run: heat3d's
/// phases need 64 registers this way instead of 96 with two items (ptxas,
/// sm_90), 8 resident blocks of 128 threads per SM instead of 5. Not yet
/// measured as a persistent kernel on a GPU.
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

/// The grid-wide barrier after phase `k` (see the module's docs).
fn grid_barrier(k: usize) -> String {
    let (wait, join) = (format!("$P_wait_{k}"), format!("$P_join_{k}"));
    let mut out = String::new();
    let _ = writeln!(out, "\t// grid-wide barrier {k}");
    for line in [
        "\tbar.sync 0;".to_string(),
        format!("\t@%bp1 bra {join};"),
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
    use crate::codegen::ptx::{generate_with, PhaseShape, Tuning};

    /// heat3d's maps walk their planes as kernels of their own, but as
    /// phases of the persistent kernel they run in tiles of rows in y (one
    /// item in x): the module records that shape for the launch, which
    /// must size the persistent grid by it, not by the walk's.
    #[test]
    fn phases_record_their_own_launch_shape() {
        let mut sdfg = crate::frontend_str(
            "sdfg H { symbol N: i64; symbol T: i64;
              gpu A: f64[N, N, N]; gpu B: f64[N, N, N];
              state init {}
              #[persistent]
              state step {
                map b[i in 1..N-1, j in 1..N-1, k in 1..N-1] on gpu {
                    B[i, j, k] = A[i + 1, j, k] + A[i - 1, j, k] + A[i, j, k];
                }
                map a[i in 1..N-1, j in 1..N-1, k in 1..N-1] on gpu {
                    A[i, j, k] = B[i + 1, j, k] + B[i - 1, j, k] + B[i, j, k];
                }
              }
              state done {}
              init -> step if T > 1 { t = 1 }
              init -> done if T <= 1;
              step -> step if t + 1 < T { t = t + 1 }
              step -> done if t + 1 >= T;
            }",
        )
        .unwrap();
        let schedule = crate::schedule::schedule(&sdfg);
        let abis = kernel_abis(&sdfg);
        let persistent = crate::codegen::persistent::augment(&mut sdfg, &schedule, &abis);
        assert_eq!(persistent.len(), 1);
        let tuning = Tuning::default();
        let m = generate_with(&sdfg, &abis, &persistent, &tuning);
        assert_eq!(m.kernels.len(), 2);
        for k in &m.kernels {
            assert!(k.rows_in_z && k.block == [64, 2, 1], "{k:?}");
            let want = PhaseShape {
                block: [tuning.block_2d[0], tuning.block_2d[1], 1],
                items_per_thread: 1,
                rows_per_thread: tuning.rows_2d,
                rows_in_z: false,
            };
            assert_eq!(k.phase, Some(want));
        }
    }
}
