//! NPBench's heat3d as shared SDFGs (included by `fixtures.rs`, which
//! re-exports them): the host-driven loop of two sweeps per time step, and
//! the two-step form that does both sweeps of a step in one block kernel.

/// NPBench `heat_3d` (`examples/common/heat3d.rs`, `tests/e2e_persistent.rs`):
/// a host-driven loop of two 7-point stencil maps in 3-D.
/// `heat3d!(sink, /// docs Name)`, or `heat3d!(sink, Name, #[persistent])`
/// for the state `step` with an attribute (its loop as one kernel).
macro_rules! heat3d {
    ($sink:ident, $(#[$doc:meta])* $name:ident $(, #[$state:meta])?) => {
        $sink! {
            $(#[$doc])*
            pub sdfg $name {
                symbol N: i64; symbol TSTEPS: i64;
                gpu A: f64[N, N, N];
                gpu B: f64[N, N, N];
                state init {}
                $(#[$state])?
                state step {
                    map b[i in 1..N-1, j in 1..N-1, k in 1..N-1] on gpu {
                        B[i, j, k] = 0.125 * (A[i+1, j, k] - 2.0 * A[i, j, k] + A[i-1, j, k])
                            + 0.125 * (A[i, j+1, k] - 2.0 * A[i, j, k] + A[i, j-1, k])
                            + 0.125 * (A[i, j, k+1] - 2.0 * A[i, j, k] + A[i, j, k-1])
                            + A[i, j, k];
                    }
                    map a[i in 1..N-1, j in 1..N-1, k in 1..N-1] on gpu {
                        A[i, j, k] = 0.125 * (B[i+1, j, k] - 2.0 * B[i, j, k] + B[i-1, j, k])
                            + 0.125 * (B[i, j+1, k] - 2.0 * B[i, j, k] + B[i, j-1, k])
                            + 0.125 * (B[i, j, k+1] - 2.0 * B[i, j, k] + B[i, j, k-1])
                            + B[i, j, k];
                    }
                }
                state done {}
                init -> step if TSTEPS > 1 { t = 1 }
                init -> done if TSTEPS <= 1;
                step -> step if t + 1 < TSTEPS { t = t + 1 }
                step -> done if t + 1 >= TSTEPS;
            }
        }
    };
}
pub(crate) use heat3d;

/// NPBench `heat_3d` with both sweeps of a time step in one block kernel
/// (`examples/common/heat3d.rs`, `tests/e2e_two_step.rs`). Each block
/// walks a chunk of `TI = 3 ROUNDS - 2` planes of a tile of `HJ - 2` x 30
/// points: per plane it computes `B` over the tile and a ring of one point
/// around it (`HJ` x 32 threads, one point each) into shared memory, then
/// the new `A` of the tile from the last three planes of `B`. A thread
/// carries the source of its column in registers (`w`), the next plane's
/// value loaded a plane ahead. The new `A` goes to a second grid (`C`, a
/// transient), since the blocks around a tile still read the old one: the
/// steps alternate A -> C and C -> A, and an odd number of steps ends with
/// C copied back into A. Per step the kernel reads one grid and writes two
/// (B and the new A), against two reads and two writes for two sweeps;
/// every value comes from the same expression as in `heat3d!`, so the
/// results are the same bits.
///
/// The planes go in rounds of three, `u` = 0, 1, 2: plane `u` of a round
/// is stored in slots `u` and `u + 3` (slot 5 is never read), so the two
/// planes before it are in slots `u + 2` and `u + 1`, without a `%`; a
/// slot's rows are 34 wide, so that the two idle threads of each row of 32
/// computing the new `A` read inside it (values they never store). Every
/// load of the source and of shared memory is unconditional, its index
/// written out in the map parameters and loop variables (not `let`s) and
/// clamped into the grid (values past the grid are computed and never
/// used), so the host proves them all in bounds before the launch and the
/// kernel checks none; the four neighbours in a plane are those of the
/// point clamped into the interior, `c + 1` and `c - 1` of one clamped
/// `c`, so they share one address. Only the stores (and the reads of `B`
/// on the boundary) are under an `if`. The plane of `B` a thread computes
/// is `q = TI bi + 3 r + u`, its row `j = (HJ - 2) bj + jj` and column
/// `k = 30 bk + kk`. `M` is an `i32`, so the index arithmetic is 32-bit
/// (docs/GUIDE.md, section 15.2).
/// `heat3d_two_step!(sink, /// docs Name, ROUNDS, HJ)`.
macro_rules! heat3d_two_step {
    ($sink:ident, $(#[$doc:meta])* $name:ident, $rounds:literal, $hj:literal) => {
        $sink! {
            $(#[$doc])*
            pub sdfg $name {
                symbol N: i64; symbol TSTEPS: i64;
                gpu A: f64[N, N, N];
                gpu B: f64[N, N, N];
                transient gpu C: f64[N, N, N];
                /// One time step: B from S, then D from B (S and D share
                /// their boundary, which no step writes).
                sdfg Step {
                    symbol M: i32;
                    gpu S: f64[M, M, M];
                    gpu B: f64[M, M, M];
                    gpu D: f64[M, M, M];
                    state s {
                        // The race test sees `kk < 30` (a block stores
                        // only its own tile's columns) but not `3 * r + u
                        // >= 2`, which keeps its stores inside its own
                        // chunk of planes (two variables in one bound),
                        // nor that it reads `B` only on the boundary,
                        // where no block stores.
                        #[independent(B, D)]
                        map tile[
                            bi in 0..(M + 3 * $rounds - 5) / (3 * $rounds - 2),
                            bj in 0..(M + $hj - 5) / ($hj - 2),
                            bk in 0..(M + 27) / 30
                        ] on gpu block(32, $hj) {
                            shared Bs: f64[6, $hj, 34];
                            register w: f64[4];
                            // w: S at the planes q - 1 to q + 2 of the
                            // thread's column, for the plane q of B.
                            map start[jj in 0..$hj, kk in 0..32] on threads {
                                w[0] = 0.0;
                                w[1] = S[((3 * $rounds - 2) * bi - 1).max(0), (($hj - 2) * bj + jj).min(M - 1), (30 * bk + kk).min(M - 1)];
                                w[2] = S[(3 * $rounds - 2) * bi, (($hj - 2) * bj + jj).min(M - 1), (30 * bk + kk).min(M - 1)];
                                w[3] = S[(3 * $rounds - 2) * bi + 1, (($hj - 2) * bj + jj).min(M - 1), (30 * bk + kk).min(M - 1)];
                            }
                            for r in 0..$rounds {
                                for u in 0..3 {
                                    // B's plane q over the tile and its ring.
                                    map bplane[jj in 0..$hj, kk in 0..32] on threads {
                                        let q = (3 * $rounds - 2) * bi + 3 * r + u;
                                        let j = ($hj - 2) * bj + jj;
                                        let k = 30 * bk + kk;
                                        w[0] = w[1];
                                        w[1] = w[2];
                                        w[2] = w[3];
                                        w[3] = S[((3 * $rounds - 2) * bi + 3 * r + u + 2).min(M - 1), (($hj - 2) * bj + jj).min(M - 1), (30 * bk + kk).min(M - 1)];
                                        // The neighbours around the point
                                        // clamped into the interior: one
                                        // address, constant offsets.
                                        let mut v = 0.125 * (w[2] - 2.0 * w[1] + w[0])
                                            + 0.125 * (S[((3 * $rounds - 2) * bi + 3 * r + u).max(1).min(M - 2), (($hj - 2) * bj + jj).max(1).min(M - 2) + 1, (30 * bk + kk).max(1).min(M - 2)]
                                                - 2.0 * w[1]
                                                + S[((3 * $rounds - 2) * bi + 3 * r + u).max(1).min(M - 2), (($hj - 2) * bj + jj).max(1).min(M - 2) - 1, (30 * bk + kk).max(1).min(M - 2)])
                                            + 0.125 * (S[((3 * $rounds - 2) * bi + 3 * r + u).max(1).min(M - 2), (($hj - 2) * bj + jj).max(1).min(M - 2), (30 * bk + kk).max(1).min(M - 2) + 1]
                                                - 2.0 * w[1]
                                                + S[((3 * $rounds - 2) * bi + 3 * r + u).max(1).min(M - 2), (($hj - 2) * bj + jj).max(1).min(M - 2), (30 * bk + kk).max(1).min(M - 2) - 1])
                                            + w[1];
                                        if (q < 1 || q >= M - 1 || j < 1 || j >= M - 1 || k < 1 || k >= M - 1) && q < M && j < M && k < M {
                                            v = B[q, j, k];
                                        }
                                        Bs[u, jj, kk] = v;
                                        Bs[u + 3, jj, kk] = v;
                                    }
                                    // D's plane q - 1 over the tile, and B's
                                    // (from the third plane of the chunk on;
                                    // rows of 32 threads, the last two idle,
                                    // so no division by 30 numbers them).
                                    map dplane[jj in 0..$hj - 2, kk in 0..32] on threads {
                                        let q = (3 * $rounds - 2) * bi + 3 * r + u;
                                        let j = ($hj - 2) * bj + 1 + jj;
                                        let k = 30 * bk + 1 + kk;
                                        let c = Bs[u + 2, jj + 1, kk + 1];
                                        let v = 0.125 * (Bs[u, jj + 1, kk + 1] - 2.0 * c + Bs[u + 1, jj + 1, kk + 1])
                                            + 0.125 * (Bs[u + 2, jj + 2, kk + 1] - 2.0 * c + Bs[u + 2, jj, kk + 1])
                                            + 0.125 * (Bs[u + 2, jj + 1, kk + 2] - 2.0 * c + Bs[u + 2, jj + 1, kk])
                                            + c;
                                        if 3 * r + u >= 2 && kk < 30 && q < M && j < M - 1 && k < M - 1 {
                                            B[q - 1, j, k] = c;
                                            D[q - 1, j, k] = v;
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                state init { copy A -> C; }
                state ac { Step(S = A, B = B, D = C); }
                state ca { Step(S = C, B = B, D = A); }
                state back { copy C -> A; }
                state done {}
                init -> ac if TSTEPS > 1 { t = 1 }
                init -> done if TSTEPS <= 1;
                ac -> ca if t + 1 < TSTEPS { t = t + 1 }
                ac -> back if t + 1 >= TSTEPS;
                ca -> ac if t + 1 < TSTEPS { t = t + 1 }
                ca -> done if t + 1 >= TSTEPS;
                back -> done;
            }
        }
    };
}
pub(crate) use heat3d_two_step;
