//! Block teams on the CPU device: a launch of a block map with fewer block
//! iterations than the device has threads runs each block iteration on a
//! team of threads (`runtime::cpu::team`), members meeting at the
//! compiler's barriers. The results must be the sequential twin's bit for
//! bit (a GPU thread's iterations, and so its order of operations, stay
//! with one member) and plain Rust's: shared data written by some threads
//! and read by others after a barrier, block-level `let`, `if`, `for` and
//! stores (thread 0's), thread maps of fewer and of more iterations than
//! threads, register data, and the tiled gemm.

mod common;
use sdfg::prelude::*;
use sdfg::runtime::__glue::block::{private_team_launches, team_launches};
use sdfg_testkit::rng::Rng;

common::fixtures::block_gemm!(sdfg);
common::fixtures::block_gemm_runner!();

sdfg! {
    /// Each row through shared data: loaded by every thread, then read at
    /// another thread's position (a barrier between), a block-level store
    /// of thread 0 read by all, steps on a thread's own elements in a
    /// block-level loop, and register data.
    pub sdfg TeamRows {
        symbol R: i64;
        symbol C: i64;
        gpu X: i32[R, C];
        gpu Out: i32[R, C];
        gpu Firsts: i32[R];
        state s {
            map rows[r in 0..R] on gpu block(64) {
                shared row: i32[C];
                shared first: i32;
                register keep: i32[2];
                let base = r * 3;
                map load[c in 0..C] on threads { row[c] = X[r, c] + base as i32; }
                first = row[C - 1];
                if r % 2 == 0 {
                    map rev[c in 0..C] on threads { Out[r, c] = row[C - 1 - c] - first; }
                } else {
                    for pass in 0..3 {
                        map dbl[c in 0..C] on threads { row[c] = row[c] * 2 + pass as i32; }
                    }
                    map pick[t in 0..64] on threads {
                        keep[0] = row[(t * 7) % C];
                        keep[1] = first;
                    }
                    map put[t in 0..64] on threads {
                        if t < C { Out[r, t] = keep[0] + keep[1]; }
                    }
                }
                Firsts[r] = first;
            }
        }
    }
}

/// The tests of this file one at a time: they read the process's launch
/// counters (did this launch run a team, a private one?).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn team_rows_reference(rows: usize, cols: usize, x: &[i32]) -> (Vec<i32>, Vec<i32>) {
    let (mut out, mut firsts) = (vec![0i32; rows * cols], vec![0i32; rows]);
    for r in 0..rows {
        let mut row: Vec<i32> = (0..cols)
            .map(|c| x[r * cols + c] + (r * 3) as i32)
            .collect();
        let first = row[cols - 1];
        firsts[r] = first;
        if r % 2 == 0 {
            for c in 0..cols {
                out[r * cols + c] = row[cols - 1 - c] - first;
            }
        } else {
            for pass in 0..3 {
                for v in row.iter_mut() {
                    *v = *v * 2 + pass;
                }
            }
            for t in 0..64.min(cols) {
                out[r * cols + t] = row[(t * 7) % cols] + first;
            }
        }
    }
    (out, firsts)
}

#[test]
fn teams_run_shared_data_barriers_and_block_level_statements_like_one_thread() {
    let _serial = serial();
    // 12 threads: not the pool of the gemm test, which runs at the same
    // time (one team launch per pool at a time; another would run as
    // one task per block iteration, and this test checks that a team ran).
    let twelve = Device::cpu_with_threads(12);
    for (rows, cols) in [(2usize, 50usize), (3, 64), (1, 200), (4, 7)] {
        let mut rng = Rng::new(rows as u64 * 31 + cols as u64);
        let x: Vec<i32> = (0..rows * cols)
            .map(|_| (rng.next_u64() % 201) as i32 - 100)
            .collect();
        let program = TeamRows::load(&twelve).unwrap();
        let dx = DeviceBuffer::from_slice(&twelve, &x).unwrap();
        let mut out = DeviceBuffer::<i32>::zeros(&twelve, rows * cols).unwrap();
        let mut firsts = DeviceBuffer::<i32>::zeros(&twelve, rows).unwrap();
        let (before, private) = (team_launches(), private_team_launches());
        program
            .run(TeamRowsArgs {
                R: rows as i64,
                C: cols as i64,
                X: &dx,
                Out: &mut out,
                Firsts: &mut firsts,
            })
            .unwrap();
        assert!(
            team_launches() > before,
            "{rows} rows on 16 threads ran no team"
        );
        // Its phases pass data only through shared data that the phases
        // storing it (`load`, `dbl`) can all run whole on every member.
        assert!(private_team_launches() > private, "not a private team");
        let (want_out, want_firsts) = team_rows_reference(rows, cols, &x);
        let what = format!("{rows} x {cols} on 12 threads");
        assert_eq!(out.to_vec().unwrap(), want_out, "Out, {what}");
        assert_eq!(firsts.to_vec().unwrap(), want_firsts, "Firsts, {what}");
    }
}

#[test]
fn gemm_on_teams_equals_the_sequential_twin_bit_for_bit() {
    let _serial = serial();
    let (one, sixteen) = (Device::cpu_with_threads(1), Device::cpu_with_threads(16));
    // One tile (a team of 14: seven eighths of 16), two tiles (teams of
    // 7), K of 1 and 3 steps.
    for dims in [(128usize, 128usize, 16usize), (256, 128, 48)] {
        let (m, n, k) = dims;
        let mut rng = Rng::new(m as u64 + k as u64);
        // Random floats: sums that depend on the order of the operations.
        let a: Vec<f32> = (0..m * k).map(|_| rng.range(-1.0, 1.0) as f32).collect();
        let b: Vec<f32> = (0..k * n).map(|_| rng.range(-1.0, 1.0) as f32).collect();
        let (before, private) = (team_launches(), private_team_launches());
        let teams = gemm_on(&sixteen, dims, &a, &b);
        assert!(
            private_team_launches() > private,
            "{dims:?}: not a private team"
        );
        assert!(
            team_launches() > before,
            "{dims:?} on 16 threads ran no team"
        );
        let sequential = gemm_on(&one, dims, &a, &b);
        assert!(
            teams
                .iter()
                .zip(&sequential)
                .all(|(x, y)| x.to_bits() == y.to_bits()),
            "{dims:?}: teams and one thread differ"
        );
        // And the product itself (within float error of a plain loop).
        for (e, got) in teams.iter().enumerate() {
            let (i, j) = (e / n, e % n);
            let want: f64 = (0..k)
                .map(|p| a[i * k + p] as f64 * b[p * n + j] as f64)
                .sum();
            assert!(
                (*got as f64 - want).abs() < 1e-4,
                "C[{i}, {j}]: {got} vs {want}"
            );
        }
    }
}

sdfg! {
    /// Rows whose phases pass data between the members of a team: `load`
    /// stores to shared and to `gpu` data at once (so it cannot run whole
    /// on every member), and `shift` reads what other threads of the block
    /// stored to `Twice` in `load` (so a member must wait for the others).
    pub sdfg TeamShares {
        symbol R: i64;
        symbol C: i64;
        gpu X: i32[R, C];
        gpu Twice: i32[R, C];
        gpu Out: i32[R, C];
        state s {
            map rows[r in 0..R] on gpu block(32) {
                shared row: i32[C];
                map load[c in 0..C] on threads {
                    row[c] = X[r, c] + 1;
                    Twice[r, c] = X[r, c] * 2;
                }
                map shift[c in 0..C] on threads {
                    Out[r, c] = row[C - 1 - c] + Twice[r, (c + 1) % C];
                }
            }
        }
    }
}

/// The teams of a block map choose how they work: members with private
/// block data and no barriers when no phase passes data between GPU
/// threads except through shared data its producers can all recompute
/// (the row program above and the gemm), members sharing block data and
/// meeting at barriers otherwise. Both give the one-thread results.
#[test]
fn teams_share_block_data_only_where_the_program_needs_it() {
    let _serial = serial();
    let (one, ten) = (Device::cpu_with_threads(1), Device::cpu_with_threads(10));
    let (rows, cols) = (3usize, 45usize);
    let x: Vec<i32> = (0..rows * cols)
        .map(|i| (i * 37 % 101) as i32 - 50)
        .collect();
    let mut results = Vec::new();
    for (device, teams_expected) in [(&one, false), (&ten, true)] {
        let program = TeamShares::load(device).unwrap();
        let dx = DeviceBuffer::from_slice(device, &x).unwrap();
        let mut twice = DeviceBuffer::<i32>::zeros(device, rows * cols).unwrap();
        let mut out = DeviceBuffer::<i32>::zeros(device, rows * cols).unwrap();
        let (teams, private) = (team_launches(), private_team_launches());
        program
            .run(TeamSharesArgs {
                R: rows as i64,
                C: cols as i64,
                X: &dx,
                Twice: &mut twice,
                Out: &mut out,
            })
            .unwrap();
        if teams_expected {
            assert!(team_launches() > teams, "no team ran");
            assert_eq!(private_team_launches(), private, "a private team ran");
        }
        results.push((twice.to_vec().unwrap(), out.to_vec().unwrap()));
    }
    for r in 0..rows {
        for c in 0..cols {
            let e = r * cols + c;
            let want = x[r * cols + cols - 1 - c] + 1 + 2 * x[r * cols + (c + 1) % cols];
            assert_eq!(results[1].1[e], want, "Out[{r}, {c}]");
        }
    }
    assert_eq!(results[0], results[1], "one thread and teams differ");
}
