//! Neighbour synchronization of a persistent kernel (`persistent`): where
//! the phases' iterations reach only the adjacent tiles
//! ([`crate::ir::reach`]) and every phase runs the same tile on every
//! block, a block starts phase `g` once the blocks of those tiles have
//! finished phase `g - 1`, instead of meeting the whole grid at a barrier.
//! Blocks then run as far ahead of the grid as their neighbourhood lets
//! them: no block waits for the slowest block of the grid, only for the
//! slowest of its neighbours, and no phase ends with the grid draining.
//!
//! Each block has a flag, the number of phases it has finished, in the
//! words after the grid barrier's two (`codegen::persistent`). After a
//! phase every thread of the block reaches `bar.sync`, then the leader
//! publishes the new count with `st.release.gpu` (which releases the
//! block's writes, ordered before it by the barrier). Before a phase the
//! leader polls each neighbour's flag with `ld.relaxed.gpu` until that
//! neighbour has finished the phase before, acquires once
//! (`fence.acq_rel.gpu`), and `bar.sync` lets the block go on. Acquiring
//! invalidates the SM's L1 (`CCTL.IVALL`), under the feet of the other
//! blocks on the SM, whose stencils read their neighbours' values from
//! it: so one acquire per block and phase, not one per poll or per
//! direction. Counts are compared by their difference as a signed 32-bit
//! value, so they may wrap: neighbours are never more than one phase
//! apart. After its last phase every block meets the grid at the barrier
//! (so no block still waits on a flag) and sets its flag back to zero: the
//! next launch starts from zero, as the first one does from the fresh
//! transient.
//!
//! The launch decides (its `mode` parameter): the runtime passes 1 only
//! when the grid it launches is the phases' own grid, uncut (every block
//! resident at once, one tile per block) and has a flag per block; else
//! the kernel uses the grid-wide barrier after every phase, as any
//! persistent kernel (`Stream::launch_persistent`).

use std::collections::BTreeSet;
use std::fmt::Write;

/// The directions (z, y, x, in blocks) of the tiles a block depends on:
/// for every offset (dimensions 0, 1, 2 of the map: z, y, x) the tiles
/// the offset reaches from any iteration of a tile (`{0, sign(c)}` per
/// dimension), and their opposites (the tiles that read this one's); the
/// block's own excluded. None when an offset reaches past the adjacent
/// tile (`|c|` greater than the tile's `extents`).
pub(crate) fn directions(offsets: &[Vec<i128>], extents: [u64; 3]) -> Option<Vec<[i32; 3]>> {
    let mut dirs = BTreeSet::new();
    for o in offsets {
        if o.len() != 3 {
            return None;
        }
        let mut choices: Vec<[i32; 2]> = Vec::new();
        for (c, extent) in o.iter().zip(extents) {
            if c.unsigned_abs() > u128::from(extent) {
                return None;
            }
            choices.push([0, c.signum() as i32]);
        }
        for z in choices[0] {
            for y in choices[1] {
                for x in choices[2] {
                    if [z, y, x] != [0, 0, 0] {
                        dirs.insert([z, y, x]);
                        dirs.insert([-z, -y, -x]);
                    }
                }
            }
        }
    }
    Some(dirs.into_iter().collect())
}

/// The registers of the neighbour code (`%np0`: in grid mode,
/// `%np1`: a test, `%nr1`: phases finished, `%nrd0`/`%nrd1`: a flag's
/// address) and the block's count of finished phases in shared memory
/// (`NAME_phase`): nothing of it lives across a phase, so the walks keep
/// their registers.
pub(crate) fn decls(name: &str) -> String {
    format!(
        "\t.reg .pred %np<2>;\n\t.reg .b32 %nr<10>;\n\t.reg .b64 %nrd<2>;\n\t.shared .align 4 .b32 {name}_phase;\n"
    )
}

/// `%np0`: the launch chose the grid-wide barrier (`mode`: the parameter).
fn grid_mode(mode: &str) -> String {
    format!("\tld.param.u32 %nr0, [{mode}];\n\tsetp.eq.u32 %np0, %nr0, 0;\n")
}

/// `%nrd_to`: the flag of block (x, y, z) (registers holding them) after
/// the barrier's two words (`%brd1`: its global address).
fn flag_address(z: &str, y: &str, x: &str, to: &str) -> String {
    format!(
        "\tmov.u32 %nr9, %nctaid.y;\n\tmad.lo.u32 %nr9, {z}, %nr9, {y};\n\tmov.u32 %nr0, %nctaid.x;\n\tmad.lo.u32 %nr9, %nr9, %nr0, {x};\n\tmul.wide.u32 {to}, %nr9, 4;\n\tadd.u64 {to}, {to}, %brd1;\n\tadd.u64 {to}, {to}, 8;\n"
    )
}

/// `%nrd0`: this block's flag (`barrier`: the instructions that set `%brd1`).
fn own_flag(barrier: &str) -> String {
    format!(
        "{barrier}\tmov.u32 %nr2, %ctaid.x;\n\tmov.u32 %nr3, %ctaid.y;\n\tmov.u32 %nr4, %ctaid.z;\n{}",
        flag_address("%nr4", "%nr3", "%nr2", "%nrd0")
    )
}

/// Before phase `k`: in neighbour mode, the block's leader polls the
/// flag of each neighbour on the grid (directions `dirs`) until it has
/// finished as many phases as this block, acquires once, and the block's
/// barrier lets every thread go on. `barrier`: the instructions that set
/// `%brd1`; `not_leader` sets `%bp1`.
pub(crate) fn wait(
    k: usize,
    name: &str,
    dirs: &[[i32; 3]],
    (not_leader, barrier): (&str, &str),
) -> String {
    let (go, sync) = (format!("$N_go_{k}"), format!("$N_sync_{k}"));
    let mut out = String::from("\t// neighbours: wait for the tiles this phase depends on\n");
    out.push_str(&grid_mode(&format!("{name}_mode")));
    let _ = writeln!(out, "\t@%np0 bra {go};");
    out.push_str(not_leader);
    let _ = writeln!(out, "\t@%bp1 bra {sync};");
    out.push_str(barrier);
    let _ = writeln!(out, "\tld.shared.u32 %nr1, [{name}_phase];");
    for (t, dir) in dirs.iter().enumerate() {
        let (skip, spin) = (format!("$N_skip_{k}_{t}"), format!("$N_spin_{k}_{t}"));
        // The neighbour (z, y, x); one off the grid (below zero wraps to
        // a huge value) is skipped.
        for ((reg, axis), d) in [("%nr6", 'z'), ("%nr7", 'y'), ("%nr8", 'x')]
            .into_iter()
            .zip(dir)
        {
            let _ = write!(
                out,
                "\tmov.u32 {reg}, %ctaid.{axis};\n\tadd.u32 {reg}, {reg}, {};\n\tmov.u32 %nr9, %nctaid.{axis};\n\tsetp.ge.u32 %np1, {reg}, %nr9;\n\t@%np1 bra {skip};\n",
                *d as u32
            );
        }
        out.push_str(&flag_address("%nr6", "%nr7", "%nr8", "%nrd1"));
        let _ = write!(
            out,
            "{spin}:\n\
             \tld.relaxed.gpu.global.u32 %nr9, [%nrd1];\n\
             \tsub.u32 %nr9, %nr9, %nr1;\n\
             \tsetp.lt.s32 %np1, %nr9, 0;\n\
             \t@%np1 bra {spin};\n\
             {skip}:\n"
        );
    }
    let _ = write!(
        out,
        "\tfence.acq_rel.gpu;\n\
         {sync}:\n\
         \tbar.sync 0;\n\
         {go}:\n"
    );
    out
}

/// After phase `k`: in grid mode, `grid` (the grid-wide barrier); in
/// neighbour mode the leader counts the phase in shared memory, the block
/// meets at its barrier, and the leader runs `leader` (what the grid
/// barrier's leader would), releases the block's writes and publishes the
/// count. `not_leader` sets `%bp1`, `barrier` `%brd1`.
pub(crate) fn after_phase(
    k: usize,
    name: &str,
    grid: &str,
    leader: &str,
    (not_leader, barrier): (&str, &str),
) -> String {
    let (release, sync, done) = (
        format!("$N_release_{k}"),
        format!("$N_count_{k}"),
        format!("$N_next_{k}"),
    );
    format!(
        "{mode}\t@!%np0 bra {release};\n{grid}\tbra.uni {done};\n\
         {release}:\n\
         \t// neighbours: this block finished one more phase\n\
         {not_leader}\t@%bp1 bra {sync};\n\
         \tld.shared.u32 %nr1, [{name}_phase];\n\
         \tadd.u32 %nr1, %nr1, 1;\n\
         \tst.shared.u32 [{name}_phase], %nr1;\n\
         {sync}:\n\
         \tbar.sync 0;\n\
         \t@%bp1 bra {done};\n\
         {leader}{flag}\tst.release.gpu.global.u32 [%nrd0], %nr1;\n\
         {done}:\n",
        mode = grid_mode(&format!("{name}_mode")),
        flag = own_flag(barrier),
    )
}

/// At the end, in neighbour mode: `grid` (the grid-wide barrier, so no
/// block still waits on a flag), then the leader clears the block's flag.
/// Leaves through `$P_exit`.
pub(crate) fn finish(name: &str, grid: &str, (not_leader, barrier): (&str, &str)) -> String {
    format!(
        "\t// neighbours: every block done, flags back to zero\n{mode}\t@%np0 bra $P_exit;\n{grid}{not_leader}\t@%bp1 bra $P_exit;\n{flag}\tst.relaxed.gpu.global.u32 [%nrd0], 0;\n",
        mode = grid_mode(&format!("{name}_mode")),
        flag = own_flag(barrier),
    )
}

#[cfg(test)]
mod tests {
    use super::directions;

    #[test]
    fn a_seven_point_stencil_depends_on_its_six_faces() {
        let offsets = vec![
            vec![1, 0, 0],
            vec![-1, 0, 0],
            vec![0, 1, 0],
            vec![0, -1, 0],
            vec![0, 0, 1],
            vec![0, 0, -1],
        ];
        let dirs = directions(&offsets, [8, 2, 64]).unwrap();
        assert_eq!(dirs.len(), 6);
        assert!(dirs.contains(&[0, 0, -1]) && dirs.contains(&[1, 0, 0]));
    }

    #[test]
    fn a_diagonal_offset_reaches_the_corner_and_its_opposite() {
        let dirs = directions(&[vec![1, 1, 0]], [8, 2, 64]).unwrap();
        // (0,1,0), (1,0,0), (1,1,0) and their opposites.
        assert_eq!(dirs.len(), 6);
        assert!(dirs.contains(&[1, 1, 0]) && dirs.contains(&[-1, -1, 0]));
    }

    #[test]
    fn an_offset_past_the_adjacent_tile_is_refused() {
        assert_eq!(directions(&[vec![0, 3, 0]], [8, 2, 64]), None);
        assert!(directions(&[vec![0, 2, 0]], [8, 2, 64]).is_some());
    }
}
