//! The SDFGs that several tests and examples share, each written once.
//!
//! Each is a macro that hands the SDFG's tokens to a sink macro:
//! `fixtures::jacobi2d!(sdfg)` declares the program (the facade's tests and
//! the examples), `fixtures::jacobi2d!(stringify)` is its source text (the
//! compiler's tests, through `frontend_str`; see
//! `sdfg-compiler/tests/common/mod.rs`, which includes this file by path).
//! The doc comments on the macros say what each SDFG exercises.
#![allow(unused_macros, unused_imports)]

/// DESIGN section 3: the DaCe default-stream reproducer.
/// `repro!(sink, Name, policy)`: the policy is what `#[streams(...)]` takes.
macro_rules! repro {
    ($sink:ident, $name:ident, $($policy:tt)*) => {
        $sink! {
            /// Writes T on the GPU, reads it on the host, uses it as a map range.
            #[streams($($policy)*)]
            pub sdfg $name {
                symbol X_size: i32;
                gpu T_GPU: i32;
                host X: i32[X_size];
                host U: i32[1];
                transient host T: i32;

                state first {
                    map write[i in 0..1] on gpu { T_GPU = 10; }
                    copy T_GPU -> T;
                    tasklet cpu_computation { U[0] = T + 1; }
                }
                state second {
                    map compute[i in 0..R] on cpu { X[i] = 1; }
                }
                first -> second { R = T; S = false; }
            }
        }
    };
}
pub(crate) use repro;

/// DESIGN section 3: Polybench jacobi-2d, GPU maps and a host loop counter.
macro_rules! jacobi2d {
    ($sink:ident) => {
        $sink! {
            pub sdfg Jacobi2d {
                symbol N: i64; symbol TSTEPS: i64;
                gpu A: f64[N, N];
                gpu B: f64[N, N];
                state init {}
                state step {
                    map b[i in 1..N-1, j in 1..N-1] on gpu {
                        B[i, j] = 0.2 * (A[i, j] + A[i, j-1] + A[i, j+1] + A[i+1, j] + A[i-1, j]);
                    }
                    map a[i in 1..N-1, j in 1..N-1] on gpu {
                        A[i, j] = 0.2 * (B[i, j] + B[i, j-1] + B[i, j+1] + B[i+1, j] + B[i-1, j]);
                    }
                }
                state done {}
                init -> step { t = 0 }
                step -> step if t + 1 < TSTEPS { t = t + 1 }
                step -> done if t + 1 >= TSTEPS;
            }
        }
    };
}
pub(crate) use jacobi2d;

/// A WCR sum over a CPU map.
macro_rules! wcr_sum {
    ($sink:ident) => {
        $sink! {
            pub sdfg WcrSum {
                symbol N: i64;
                host A: i64[N];
                host S: i64[1];
                state s {
                    map sum[i in 0..N] on cpu { S[0] += A[i]; }
                }
            }
        }
    };
}
pub(crate) use wcr_sum;

/// Copies with subsets: a window of a 1-D array, a piece of a row of a 2-D one.
macro_rules! copy_subsets {
    ($sink:ident) => {
        $sink! {
            pub sdfg CopySubsets {
                host A: i32[20];
                host B: i32[10];
                host M: i32[4, 5];
                host V: i32[3];
                state s {
                    copy A[2..12] -> B[0..10];
                    copy M[2, 1..4] -> V[0..3];
                }
            }
        }
    };
}
pub(crate) use copy_subsets;

/// Host only: a CPU map with a local and a select, then a host tasklet
/// with a loop over dynamic accesses and an integer division.
macro_rules! cpu_only {
    ($sink:ident) => {
        $sink! {
            pub sdfg CpuOnly {
                symbol N: i64;
                host X: i64[N];
                host Y: i64[N];
                host total: i64[1];
                state s {
                    map scale[i in 0..N] on cpu {
                        let v = X[i] * 3;
                        Y[i] = if v > 10 { v - 10 } else { v };
                    }
                    tasklet summarize {
                        let mut acc = 0i64;
                        for k in 0..N { acc += Y[k]; }
                        total[0] = acc / 2;
                    }
                }
            }
        }
    };
}
pub(crate) use cpu_only;

/// A state machine with a loop: `body` runs 4 times, adding `k` each time.
macro_rules! loop_cond {
    ($sink:ident) => {
        $sink! {
            pub sdfg LoopCond {
                symbol N: i64;
                host A: i64[N];
                state init {}
                state body {
                    map inc[i in 0..N] on seq { A[i] = A[i] + k; }
                }
                state done {}
                init -> body { k = 0 }
                body -> body if k + 1 < 4 { k = k + 1 }
                body -> done;
            }
        }
    };
}
pub(crate) use loop_cond;

/// Two independent kernels on two streams, a kernel that needs both (an
/// event), a copy back read on the host (a sync), a host scalar read by a kernel.
macro_rules! streams {
    ($sink:ident) => {
        $sink! {
            #[streams(auto)]
            pub sdfg Streams {
                symbol N: i64;
                gpu A: f64[N];
                gpu B: f64[N];
                gpu C: f64[N];
                pinned H: f64[N];
                host total: f64[1];
                host alpha: f64;
                state compute {
                    map fill_a[i in 0..N] on gpu { A[i] = i as f64; }
                    map fill_b[i in 0..N] on gpu { B[i] = alpha; }
                    map combine[i in 0..N] on gpu { C[i] = A[i] * B[i]; }
                    copy C -> H;
                    map sum[i in 0..N] on cpu { total[0] += H[i]; }
                }
            }
        }
    };
}
pub(crate) use streams;

/// The corners of the tasklet language where C++ and Rust differ: integer
/// division by zero and `MIN / -1`, masked shifts, NaN-ignoring `min`/`max`,
/// shadowed locals, stepped loops, conditional stores, guarded loads.
/// Inputs: `inp = [7, 0, -7, i64::MIN, -1, 65]`, `fin = [0.0, 2.0]`.
macro_rules! semantics {
    ($sink:ident) => {
        $sink! {
            pub sdfg Semantics {
                host inp: i64[6];
                host fin: f64[2];
                host out: i64[22];
                host fout: f64[7];
                host f32out: f32[1];
                state s {
                    tasklet sem {
                        let a = inp[0]; let b = inp[1]; let c = inp[2]; let m = inp[3]; let neg1 = inp[4]; let sh = inp[5];
                        out[0] = a / b;
                        out[1] = a % b;
                        out[2] = c / 2;
                        out[3] = c % 2;
                        out[4] = m / neg1;
                        out[5] = m % neg1;
                        out[6] = a << sh;
                        out[7] = c >> sh;
                        out[8] = if a > 0 { 1 } else { 2 };
                        out[9] = (a as f64 * 2.5) as i64;
                        out[10] = !a;
                        out[11] = c.abs();
                        out[12] = a.min(c);
                        let mut s = 0i64;
                        for k in (1i64..10).step_by(3) { s += k; }
                        out[13] = s;
                        let x = 1i64;
                        let x = x + 10;
                        out[14] = x;
                        if c < 0 { out[15] = 100; } else { out[15] = 200; }
                        out[16] = if a > 100 { inp[a] } else { 5 };
                        let mut n = 0i64;
                        for k in (9223372036854775802i64..9223372036854775807).step_by(4) { n += 1; }
                        out[17] = n;
                        let mut z = 0i64;
                        for k in (0i64..5).step_by(b) { z += 1; }
                        out[18] = z;
                        out[19] = (fin[0] / fin[0]) as i64;
                        out[20] = (fin[1] * 1e300) as i64;
                        out[21] = (fin[1] * -1e300) as i32 as i64;
                        let nan = fin[0] / fin[0];
                        fout[0] = nan.min(1.5);
                        fout[1] = fin[1].sqrt();
                        fout[2] = (-0.5f64).max(nan);
                        fout[3] = 1.0 / fin[0];
                        fout[4] = nan;
                        fout[5] = fin[1].powi(3);
                        fout[6] = (fin[1] * -1.25).floor();
                        f32out[0] = fin[1] as f32 * 0.1;
                    }
                }
            }
        }
    };
}
pub(crate) use semantics;

/// The other reductions (`min`, `max`, `*=`), an inclusive range, a stepped
/// map and a 2-D map.
macro_rules! reductions2 {
    ($sink:ident) => {
        $sink! {
            pub sdfg Reductions2 {
                symbol N: i64;
                host A: i64[N];
                host R: i64[4];
                state s {
                    map mn[i in 0..N] on cpu { R[0] = R[0].min(A[i]); }
                    map mx[i in 0..=N - 1] on cpu { R[1] = R[1].max(A[i]); }
                    map pr[i in (0..N).step_by(3)] on seq { R[2] *= A[i]; }
                    map two[i in 0..4i64, j in 0..3i64] on cpu { R[3] += i * j; }
                }
            }
        }
    };
}
pub(crate) use reductions2;

/// `#[sync(manual)]` with a `wait`, a GPU reduction into a transient scalar.
macro_rules! manual {
    ($sink:ident) => {
        $sink! {
            #[sync(manual)]
            #[streams(max(2))]
            pub sdfg Manual {
                gpu G: i32[4];
                pinned H: i32[4];
                host O: i32[1];
                transient gpu S: i32;
                state init {
                    map z[i in 0..1] on gpu { S = 0; }
                }
                state s {
                    map w[i in 0..4] on gpu { G[i] = i as i32; }
                    map r[i in 0..4] on gpu { S += G[i]; }
                    copy G -> H;
                    wait H;
                    tasklet t { O[0] = H[0] + H[3]; }
                }
                init -> s;
            }
        }
    };
}
pub(crate) use manual;

/// Nested SDFGs on the host (GUIDE section 5.7): a one-state callee called
/// twice with different bindings (a column of a matrix, a shifted part of
/// a vector), a callee with a loop of states and a symbol of its own, the
/// callee's `M` taken from the extent of the bound data, a host scalar
/// passed on, and a scalar bound to one element of an array.
macro_rules! nested_host {
    ($sink:ident) => {
        $sink! {
            pub sdfg NestedHost {
                symbol N: i64;
                host X: f64[N];
                host Y: f64[N, 2];
                host total: f64[2];
                host scale: f64;
                sdfg Axpy {
                    symbol M: i64;
                    host a: f64;
                    host U: f64[M];
                    host V: f64[M];
                    state s {
                        map axpy[i in 0..M] on cpu { V[i] = a * U[i] + V[i]; }
                    }
                }
                sdfg Sum {
                    symbol M: i64;
                    host U: f64[M];
                    host s: f64;
                    state init { tasklet zero { s = 0.0; } }
                    state body { tasklet add { s = s + U[k]; } }
                    state done {}
                    init -> body { k = 0 }
                    body -> body if k + 1 < M { k = k + 1 }
                    body -> done;
                }
                state main {
                    Axpy(a = scale, U = X, V = Y[0..N, 0]);
                    Axpy(a = scale, U = X[1..N], V = Y[0..N - 1, 1]);
                    Sum(U = Y[0..N, 0], s = total[0]);
                    Sum(M = N, U = Y[0..N, 1], s = total[1]);
                }
            }
        }
    };
}
pub(crate) use nested_host;

/// Nested SDFGs on the GPU: a callee with two states, a transient and a
/// GPU reduction into a scalar bound to the element `E[t]` of the caller,
/// called in every iteration of the caller's loop of states (the shape of
/// NPBench's nbody, which calls its energy function once per step).
macro_rules! nested_gpu {
    ($sink:ident) => {
        $sink! {
            pub sdfg NestedGpu {
                symbol N: i64;
                symbol T: i64;
                gpu A: f64[N];
                gpu E: f64[T];
                sdfg SquareSum {
                    symbol M: i64;
                    gpu V: f64[M];
                    gpu out: f64;
                    transient gpu Sq: f64[M];
                    state init {
                        map zero[i in 0..1] on gpu { out = 0.0; }
                    }
                    state sum {
                        map square[i in 0..M] on gpu { Sq[i] = V[i] * V[i]; }
                        map add[i in 0..M] on gpu { out += Sq[i]; }
                    }
                    init -> sum;
                }
                state init {}
                state step {
                    map grow[i in 0..N] on gpu { A[i] = A[i] * 2.0 + 1.0; }
                    SquareSum(V = A, out = E[t]);
                }
                state done {}
                init -> step { t = 0 }
                step -> step if t + 1 < T { t = t + 1 }
                step -> done;
            }
        }
    };
}
pub(crate) use nested_gpu;

/// Softmax with one thread block per row (block maps): the row's maximum
/// and sum are block reductions into `shared` scalars; each phase is a
/// thread map, the compiler places the barriers between them. `exp` once
/// per element: the sum phase keeps `e` in `Y`, the last phase scales it.
macro_rules! block_softmax {
    ($sink:ident) => {
        $sink! {
            pub sdfg BlockSoftmax {
                symbol ROWS: i64;
                symbol COLS: i64;
                gpu X: f32[ROWS, COLS];
                gpu Y: f32[ROWS, COLS];
                state s {
                    map row[r in 0..ROWS] on gpu block(128) {
                        shared mx: f32;
                        shared sum: f32;
                        mx = -3.4e38;
                        sum = 0.0;
                        map reduce_max[c in 0..COLS] on threads { mx = mx.max(X[r, c]); }
                        map exp_sum[c in 0..COLS] on threads {
                            let e = (X[r, c] - mx).exp();
                            Y[r, c] = e;
                            sum += e;
                        }
                        map scale[c in 0..COLS] on threads { Y[r, c] = Y[r, c] / sum; }
                    }
                }
            }
        }
    };
}
pub(crate) use block_softmax;

/// Softmax over rows of 512 with one warp per row (a block of 32 threads),
/// the row in registers: each thread holds the columns `q + 32 u` (16 of
/// them; each `u` is 128 consecutive bytes across the warp), loads them
/// first (16 in flight), the row's max and sum are block reductions (warp
/// shuffles alone in a block of one warp), and the row is read once and
/// written once. One division per thread (`inv`), then products. The
/// literal row length makes every index provably in bounds (no checks in
/// the kernel).
macro_rules! block_softmax_registers {
    ($sink:ident) => {
        $sink! {
            pub sdfg BlockSoftmaxRegisters {
                symbol ROWS: i64;
                gpu X: f32[ROWS, 512];
                gpu Y: f32[ROWS, 512];
                state s {
                    map row[r in 0..ROWS] on gpu block(32) {
                        shared mx: f32;
                        shared sum: f32;
                        register v: f32[16];
                        mx = -3.4e38;
                        sum = 0.0;
                        map load[q in 0..32] on threads {
                            for u in 0..16 { v[u] = X[r, q + 32 * u]; }
                            for u in 0..16 { mx = mx.max(v[u]); }
                        }
                        map exp_sum[q in 0..32] on threads {
                            for u in 0..16 {
                                v[u] = (v[u] - mx).exp();
                                sum += v[u];
                            }
                        }
                        let inv = 1.0f32 / sum;
                        map scale[q in 0..32] on threads {
                            for u in 0..16 { Y[r, q + 32 * u] = v[u] * inv; }
                        }
                    }
                }
            }
        }
    };
}
pub(crate) use block_softmax_registers;

/// A dot product with block partials: each block iteration reduces a chunk
/// of `X * Y` into a `shared` scalar and stores it to `P`; a second block
/// map with one iteration reduces `P` and adds the sum to `S`
/// (deterministic for a block size).
macro_rules! block_dot {
    ($sink:ident) => {
        $sink! {
            pub sdfg BlockDot {
                symbol BLOCKS: i64;
                symbol CHUNK: i64;
                gpu X: f32[BLOCKS, CHUNK];
                gpu Y: f32[BLOCKS, CHUNK];
                gpu S: f32;
                transient gpu P: f32[BLOCKS];
                state s {
                    map partial[b in 0..BLOCKS] on gpu block(256) {
                        shared part: f32;
                        part = 0.0;
                        map t[i in 0..CHUNK] on threads { part += X[b, i] * Y[b, i]; }
                        P[b] = part;
                    }
                    map total[z in 0..1] on gpu block(1024) {
                        shared s: f32;
                        s = 0.0;
                        map t[b in 0..BLOCKS] on threads { s += P[b]; }
                        S += s;
                    }
                }
            }
        }
    };
}
pub(crate) use block_dot;

/// C = A B (f32) with 128 x 128 tiles of C per block iteration: `shared`
/// tiles of A and B per step of 16 in k (A's transposed and padded to 132
/// columns: a warp's stores meet at most 2-way bank conflicts; 16 rather
/// than 8 halves the barriers per `fma`), a `register` 8 x 8 block of C
/// per thread, `mul_add` (one rounding). A thread's rows and columns are
/// two runs of 4, 64 apart (`64 h + 4 ty + i`): its 16-byte shared loads
/// of a row of `Bs` then lie side by side across a quarter warp (no bank
/// conflicts, which runs of 8 would have).
///
/// The loads of the next step's tiles overlap this step's `fma`s: before
/// `compute`, every thread loads its 8 elements of each next tile into
/// `register` data (`pa`, `pb`), and after it stores them into the shared
/// tiles. The next step is clamped (`(k0 + 1).min(K / 16 - 1)`; the last
/// step loads its own tiles again) rather than guarded by an `if`, so the
/// host proves every load in bounds before the launch. A thread's 8
/// elements of A are 4 consecutive ones in each of two rows 64 apart, its
/// 8 of B lie in one row 16 apart: few addresses, constant offsets, and a
/// warp's loads cover whole 32-byte sectors. M and N are multiples of 128,
/// K of 16.
macro_rules! block_gemm {
    ($sink:ident) => {
        $sink! {
            pub sdfg BlockGemm {
                symbol M: i64;
                symbol N: i64;
                symbol K: i64;
                gpu A: f32[M, K];
                gpu B: f32[K, N];
                gpu C: f32[M, N];
                state s {
                    map tile[bi in 0..M / 128, bj in 0..N / 128] on gpu block(256) {
                        shared As: f32[16, 132];
                        shared Bs: f32[16, 128];
                        register acc: f32[8, 8];
                        register a: f32[8];
                        register b: f32[8];
                        register pa: f32[2, 4];
                        register pb: f32[8];
                        map zero[ty in 0..16, tx in 0..16] on threads {
                            for i in 0..8 {
                                for j in 0..8 { acc[i, j] = 0.0; }
                            }
                        }
                        map load_a[m in 0..128, kk in 0..16] on threads {
                            As[kk, m] = A[bi * 128 + m, kk];
                        }
                        map load_b[kk in 0..16, n in 0..128] on threads {
                            Bs[kk, n] = B[kk, bj * 128 + n];
                        }
                        for k0 in 0..K / 16 {
                            map fetch_a[m in 0..64, q in 0..4] on threads {
                                for r in 0..2 {
                                    for c in 0..4 {
                                        pa[r, c] = A[bi * 128 + 64 * r + m, (k0 + 1).min(K / 16 - 1) * 16 + 4 * q + c];
                                    }
                                }
                            }
                            map fetch_b[kk in 0..16, c in 0..16] on threads {
                                for r in 0..8 {
                                    pb[r] = B[(k0 + 1).min(K / 16 - 1) * 16 + kk, bj * 128 + c + 16 * r];
                                }
                            }
                            map compute[ty in 0..16, tx in 0..16] on threads {
                                for kk in 0..16 {
                                    for i in 0..4 { a[i] = As[kk, ty * 4 + i]; }
                                    for i in 0..4 { a[i + 4] = As[kk, 64 + ty * 4 + i]; }
                                    for j in 0..4 { b[j] = Bs[kk, tx * 4 + j]; }
                                    for j in 0..4 { b[j + 4] = Bs[kk, 64 + tx * 4 + j]; }
                                    for i in 0..8 {
                                        for j in 0..8 { acc[i, j] = a[i].mul_add(b[j], acc[i, j]); }
                                    }
                                }
                            }
                            map stash_a[m in 0..64, q in 0..4] on threads {
                                for r in 0..2 {
                                    for c in 0..4 { As[4 * q + c, 64 * r + m] = pa[r, c]; }
                                }
                            }
                            map stash_b[kk in 0..16, c in 0..16] on threads {
                                for r in 0..8 { Bs[kk, c + 16 * r] = pb[r]; }
                            }
                        }
                        map store[ty in 0..16, tx in 0..16] on threads {
                            for h in 0..2 {
                                for i in 0..4 {
                                    for g in 0..2 {
                                        for j in 0..4 {
                                            C[bi * 128 + 64 * h + ty * 4 + i, bj * 128 + 64 * g + tx * 4 + j] =
                                                acc[4 * h + i, 4 * g + j];
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    };
}
pub(crate) use block_gemm;

/// `gemm_on(device, (m, n, k), a, b) -> C`: one call of `block_gemm!`'s
/// program (in the test crate that expanded it).
macro_rules! block_gemm_runner {
    () => {
        fn gemm_on(
            device: &Device,
            (m, n, k): (usize, usize, usize),
            a: &[f32],
            b: &[f32],
        ) -> Vec<f32> {
            let program = BlockGemm::load(device).unwrap();
            let (da, db) = (
                DeviceBuffer::from_slice(device, a).unwrap(),
                DeviceBuffer::from_slice(device, b).unwrap(),
            );
            let mut dc = DeviceBuffer::<f32>::zeros(device, m * n).unwrap();
            program
                .run(BlockGemmArgs {
                    M: m as i64,
                    N: n as i64,
                    K: k as i64,
                    A: &da,
                    B: &db,
                    C: &mut dc,
                })
                .unwrap();
            dc.to_vec().unwrap()
        }
    };
}
pub(crate) use block_gemm_runner;

/// Block-map features together: a block size from a symbol, `shared` data
/// sized by a symbol (dynamic shared memory), block-level `let`, `if` and
/// `for`, a reduction into `gpu` data (one atomic per block), a histogram
/// into `shared` data (atomics), and a GPU tasklet.
macro_rules! block_features {
    ($sink:ident) => {
        $sink! {
            pub sdfg BlockFeatures {
                symbol R: i64;
                symbol C: i64;
                symbol T: i64;
                gpu X: i32[R, C];
                gpu Out: i32[R, C];
                gpu Hist: i32[R, 8];
                gpu Total: i64;
                gpu Seed: i64;
                state s {
                    tasklet seed on gpu { Seed = 7; }
                    map rows[r in 0..R] on gpu block(T) {
                        shared row: i32[C];
                        shared h: i32[8];
                        shared flag: i32;
                        let base = r * 3;
                        flag = 0;
                        map zero[k in 0..8] on threads { h[k] = 0; }
                        map load[c in 0..C] on threads { row[c] = X[r, c] + base as i32; }
                        map hist[c in 0..C] on threads {
                            h[((row[c] % 8 + 8) % 8) as i64] += 1;
                            Total += row[c] as i64;
                        }
                        if r % 2 == 0 {
                            map even[c in 0..C] on threads { Out[r, c] = row[C - 1 - c]; }
                        } else {
                            for pass in 0..2 {
                                map odd[c in 0..C] on threads { Out[r, c] = row[c] * (pass as i32 + 1); }
                            }
                        }
                        map keep[k in 0..8] on threads { Hist[r, k] = h[k]; }
                    }
                }
            }
        }
    };
}
pub(crate) use block_features;

/// A time loop over symbols (`tests/e2e_graphs.rs`,
/// `tests/e2e_programmatic.rs`): every state is captured in a graph, the
/// loop unrolled into it, and each of the 2 T kernels reads what the one
/// before it wrote. `common::time_loop_reference` is it in plain Rust.
/// `time_loop!(sink)` is `TimeLoop`; `time_loop!(sink, Name, #[attr] ...)`
/// the same program named `Name`, with more attributes (`#[graph(off)]`).
macro_rules! time_loop {
    ($sink:ident) => {
        $crate::common::fixtures::time_loop!($sink, TimeLoop,);
    };
    ($sink:ident, $name:ident, $($attr:tt)*) => {
        $sink! {
            /// A time loop over symbols (with `#[graph(auto)]`, the default,
            /// every state is captured and the loop unrolled).
            #[streams(single)]
            $($attr)*
            pub sdfg $name {
                symbol N: i64; symbol T: i64;
                gpu A: f64[N];
                gpu B: f64[N];
                state init {}
                state step {
                    map b[i in 1..N-1] on gpu { B[i] = 0.5 * (A[i - 1] + A[i + 1]); }
                    map a[i in 1..N-1] on gpu { A[i] = 0.5 * (B[i - 1] + B[i + 1]); }
                }
                state done {}
                init -> step { t = 0 }
                step -> step if t + 1 < T { t = t + 1 }
                step -> done;
            }
        }
    };
}
pub(crate) use time_loop;

// The heat3d programs: a file of their own, re-exported here.
#[path = "heat3d_fixtures.rs"]
mod heat3d_fixtures;
pub(crate) use heat3d_fixtures::{heat3d, heat3d_two_step};

/// Block data of every element type (`tests/e2e_block_types.rs`, the
/// PTX simulator's `block_data_of_every_type_matches_the_evaluator`):
/// `shared` and `register` data of `f16`, `bf16`, `c32`, `c64`, `i16` and
/// `bool`, stored from global memory, read back by other threads (the
/// mirrored and the next thread of the block), computed with and stored;
/// and an f16 sum into shared data and a c32 sum into `gpu` data (small
/// integers: exact in any order).
/// N is a multiple of 64.
macro_rules! block_types {
    ($sink:ident) => {
        $sink! {
            pub sdfg BlockTypes {
                symbol N: i64;
                gpu H: f16[N];
                gpu B: bf16[N];
                gpu Z: c32[N];
                gpu W: c64[N];
                gpu I: i16[N];
                gpu HO: f16[N];
                gpu BO: bf16[N];
                gpu ZO: c32[N];
                gpu WO: c64[N];
                gpu IO: i16[N];
                gpu PO: bool[N];
                gpu HS: f16[N / 64];
                gpu ZS: c32[1];
                state s {
                    map blk[g in 0..N / 64] on gpu block(64) {
                        shared SH: f16[64];
                        shared SB: bf16[64];
                        shared SZ: c32[64];
                        shared SW: c64[64];
                        shared SI: i16[64];
                        shared SP: bool[64];
                        register rh: f16[2];
                        register rz: c32[2];
                        register rw: c64[2];
                        shared acc: f16[1];
                        acc[0] = 0.0;
                        map ld[t in 0..64] on threads {
                            let at = g * 64 + t as i64;
                            SH[t] = H[at];
                            SB[t] = B[at];
                            SZ[t] = Z[at];
                            SW[t] = W[at];
                            SI[t] = I[at];
                            SP[t] = H[at] > 0.0;
                        }
                        map st[t in 0..64] on threads {
                            let at = g * 64 + t as i64;
                            let u = 63 - t;
                            let v = (t + 1) % 64;
                            rh[0] = SH[u];
                            rh[1] = rh[0] * SH[t];
                            HO[at] = rh[1] + SH[v];
                            BO[at] = SB[u] * SB[t] + SB[v];
                            rz[0] = SZ[u];
                            rz[1] = rz[0] * SZ[t];
                            ZO[at] = rz[1] + SZ[v];
                            rw[0] = SW[u];
                            rw[1] = rw[0] * SW[t] - SW[v];
                            WO[at] = rw[1] / SW[t];
                            IO[at] = SI[u] * SI[t] + SI[v];
                            PO[at] = SP[u] != SP[t];
                            acc[0] += (SI[t] % 8) as f16;
                            ZS[0] += Complex::new((SI[t] % 8) as f32, 1.0);
                        }
                        HS[g] = acc[0];
                    }
                }
            }
        }
    };
}
pub(crate) use block_types;
