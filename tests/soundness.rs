//! Issue 13, part A, at run time: index prechecks that are sound for every
//! operator (and no longer reject valid indices), transients that start
//! every call at zero, inclusive ranges that end at a type's maximum,
//! arguments checked before any work, and errors that name the container.
//! On the CPU device always, and on the GPU when there is one.

mod common;
use sdfg::prelude::*;

// Unusual indices are reads (a write through a non-affine index is a race
// question of its own); the prechecks treat loads and stores alike.

sdfg! {
    /// `A[(S << 3) * i as i64]`: the shift is a point the host evaluates like the kernel.
    pub sdfg ShiftIndex {
        symbol S: i64;
        gpu A: i64[10];
        gpu O: i64[4];
        host H: i64[10];
        host P: i64[4];
        state s {
            map g[i in 0..4] on gpu { O[i] = A[(S << 3) * i as i64]; }
            map c[i in 0..4] on cpu { P[i] = H[(S << 3) * i as i64]; }
        }
    }
}

sdfg! {
    /// `A[i << S]`: a shift by a symbol, its amount masked to the width (32).
    pub sdfg ShiftAmount {
        symbol S: i64;
        gpu A: i64[10];
        gpu O: i64[4];
        state s {
            map g[i in 0..4] on gpu { O[i] = A[(i << S) as i64]; }
        }
    }
}

sdfg! {
    /// `A[(!S) * i as i64]`: bitwise not of a symbol.
    pub sdfg NotIndex {
        symbol S: i64;
        gpu A: i64[10];
        gpu O: i64[8];
        host H: i64[10];
        host P: i64[8];
        state s {
            map g[i in 0..8] on gpu { O[i] = A[(!S) * i as i64]; }
            map q[i in 0..8] on seq { P[i] = H[(!S) * i as i64]; }
        }
    }
}

sdfg! {
    /// `A[(S / 2) * i as i64]`: a division is not a product.
    pub sdfg DivIndex {
        symbol S: i64;
        gpu A: i64[10];
        gpu O: i64[5];
        state s {
            map g[i in 0..5] on gpu { O[i] = A[(S / 2) * i as i64]; }
        }
    }
}

sdfg! {
    /// Indices with variables under `/`, `>>`, `min`, `max` and casts
    /// (prechecked) and under `%` (guarded).
    pub sdfg MixedIndex {
        symbol S: i32;
        symbol N: i32;
        gpu A: i32[N];
        gpu B: i32[N];
        gpu O: i32[2 * N];
        host R: i32[N];
        host H: i32[N];
        state s {
            map g[i in 0..2 * N] on gpu {
                O[i] = 100 * A[(i / 2 + S).min(N - 1).max(0)] + B[i >> 1];
            }
            map c[i in 0..N] on cpu { H[i] = R[(i + S) % N]; }
        }
    }
}

sdfg! {
    /// `i + S` wraps around `i32` for `S` near `i32::MAX`.
    pub sdfg WrapIndex {
        symbol S: i32;
        gpu A: i32[8];
        state s {
            map g[i in 0..3] on gpu { A[(i + S) - 2147483640] = i; }
        }
    }
}

fn expect_out_of_bounds(result: Result<(), Error>, container: &str, what: &str) {
    match result {
        Err(Error::OutOfBounds { what: text }) => {
            assert!(text.contains(&format!("`{container}`")), "{what}: {text}")
        }
        other => {
            panic!("{what}: expected an out-of-bounds error naming `{container}`, got {other:?}")
        }
    }
}

fn upload(device: &Device, values: &[i64]) -> DeviceBuffer<i64> {
    DeviceBuffer::from_slice(device, values).unwrap()
}

const TENS: [i64; 10] = [10, 11, 12, 13, 14, 15, 16, 17, 18, 19];

#[test]
fn shifted_and_negated_symbols_are_prechecked_exactly() {
    for device in common::devices("shifted_and_negated_symbols_are_prechecked_exactly") {
        let on = &device.name();
        let shift = ShiftIndex::load(&device).unwrap();
        let a = upload(&device, &TENS);
        let h = TENS.to_vec();
        // (1 << 3) * i reaches 24: out of bounds before any work.
        let mut o = upload(&device, &[-1; 4]);
        let mut p = vec![-1i64; 4];
        let r = shift.run(ShiftIndexArgs {
            S: 1,
            A: &a,
            O: &mut o,
            H: &h,
            P: &mut p,
        });
        expect_out_of_bounds(r, "A", on);
        assert_eq!(
            (o.to_vec().unwrap(), p.clone()),
            (vec![-1; 4], vec![-1; 4]),
            "{on}"
        );
        // (0 << 3) * i is 0 for every i.
        shift
            .run(ShiftIndexArgs {
                S: 0,
                A: &a,
                O: &mut o,
                H: &h,
                P: &mut p,
            })
            .unwrap();
        assert_eq!(
            (o.to_vec().unwrap(), p.clone()),
            (vec![10; 4], vec![10; 4]),
            "{on}"
        );

        let not = NotIndex::load(&device).unwrap();
        let mut o = upload(&device, &[-1; 8]);
        let mut p = vec![-1i64; 8];
        // (!-3) * i = 2 * i reaches 14.
        let r = not.run(NotIndexArgs {
            S: -3,
            A: &a,
            O: &mut o,
            H: &h,
            P: &mut p,
        });
        expect_out_of_bounds(r, "A", on);
        assert_eq!(
            (o.to_vec().unwrap(), p.clone()),
            (vec![-1; 8], vec![-1; 8]),
            "{on}"
        );
        // (!-2) * i = i.
        not.run(NotIndexArgs {
            S: -2,
            A: &a,
            O: &mut o,
            H: &h,
            P: &mut p,
        })
        .unwrap();
        assert_eq!(o.to_vec().unwrap(), TENS[..8], "{on}");
        assert_eq!(p, TENS[..8], "{on}");

        // i << S: the amount is masked to the width (65 and 33 shift by 1).
        let amount = ShiftAmount::load(&device).unwrap();
        let mut o = upload(&device, &[-1; 4]);
        amount
            .run(ShiftAmountArgs {
                S: 65,
                A: &a,
                O: &mut o,
            })
            .unwrap();
        assert_eq!(o.to_vec().unwrap(), [10, 12, 14, 16], "{on}");
        amount
            .run(ShiftAmountArgs {
                S: 64,
                A: &a,
                O: &mut o,
            })
            .unwrap();
        assert_eq!(o.to_vec().unwrap(), [10, 11, 12, 13], "{on}");
        let r = amount.run(ShiftAmountArgs {
            S: 67,
            A: &a,
            O: &mut o,
        });
        expect_out_of_bounds(r, "A", on);
    }
}

#[test]
fn a_division_by_a_symbol_is_not_a_product() {
    for device in common::devices("a_division_by_a_symbol_is_not_a_product") {
        let on = &device.name();
        let program = DivIndex::load(&device).unwrap();
        let a = upload(&device, &TENS);
        let mut o = upload(&device, &[-1; 5]);
        // (4 / 2) * i and (5 / 2) * i (truncation) = 0, 2, 4, 6, 8.
        for s in [4, 5] {
            program
                .run(DivIndexArgs {
                    S: s,
                    A: &a,
                    O: &mut o,
                })
                .unwrap();
            assert_eq!(o.to_vec().unwrap(), [10, 12, 14, 16, 18], "S = {s} on {on}");
        }
        // 6 / 2 = 3 reaches 12.
        let r = program.run(DivIndexArgs {
            S: 6,
            A: &a,
            O: &mut o,
        });
        expect_out_of_bounds(r, "A", on);
    }
}

#[test]
fn monotone_operators_are_prechecked_and_the_others_guarded() {
    for device in common::devices("monotone_operators_are_prechecked_and_the_others_guarded") {
        let on = &device.name();
        let program = MixedIndex::load(&device).unwrap();
        let n = 6i32;
        let a = DeviceBuffer::from_slice(&device, &[0, 1, 2, 3, 4, 5]).unwrap();
        let b = DeviceBuffer::from_slice(&device, &[0, 1, 2, 3, 4, 5]).unwrap();
        let r: Vec<i32> = (0..n).map(|v| 10 + v).collect();
        let mut o = DeviceBuffer::<i32>::zeros(&device, 12).unwrap();
        let mut h = vec![0i32; 6];
        // A: clamp(i / 2 + S) stays inside for any S; B: i >> 1 < N; R: (i + S) % N.
        for s in [0, 3, 100] {
            program
                .run(MixedIndexArgs {
                    S: s,
                    N: n,
                    A: &a,
                    B: &b,
                    O: &mut o,
                    R: &r,
                    H: &mut h,
                })
                .unwrap_or_else(|e| panic!("S = {s} on {on}: {e}"));
            let expected_o: Vec<i32> = (0..2 * n)
                .map(|i| 100 * (i / 2 + s).clamp(0, n - 1) + i / 2)
                .collect();
            assert_eq!(o.to_vec().unwrap(), expected_o, "S = {s} on {on}");
            let expected_h: Vec<i32> = (0..n).map(|i| 10 + (i + s) % n).collect();
            assert_eq!(h, expected_h, "S = {s} on {on}");
        }
        // A negative remainder is out of bounds: guarded, the call fails.
        let r2 = program.run(MixedIndexArgs {
            S: -1,
            N: n,
            A: &a,
            B: &b,
            O: &mut o,
            R: &r,
            H: &mut h,
        });
        assert!(r2.is_err(), "{on}: {r2:?}");
    }
}
#[test]
fn an_index_that_wraps_around_its_type_is_an_error() {
    for device in common::devices("an_index_that_wraps_around_its_type_is_an_error") {
        let on = &device.name();
        let program = WrapIndex::load(&device).unwrap();
        let mut a = DeviceBuffer::<i32>::zeros(&device, 8).unwrap();
        program
            .run(WrapIndexArgs {
                S: 2147483640,
                A: &mut a,
            })
            .unwrap();
        assert_eq!(a.to_vec().unwrap()[..3], [0, 1, 2], "{on}");
        // i + S reaches i32::MAX + 1 at i = 2: the kernel would wrap.
        let r = program.run(WrapIndexArgs {
            S: i32::MAX - 1,
            A: &mut a,
        });
        match r {
            Err(Error::OutOfBounds { what }) => {
                assert!(
                    what.contains("`A`") && what.contains("wraps around `i32`"),
                    "{on}: {what}"
                )
            }
            other => panic!("{on}: {other:?}"),
        }
    }
}

sdfg! {
    /// Transients read before anything writes them, host and gpu, and
    /// reductions into transients.
    pub sdfg TransientsStartAtZero {
        symbol N: i64;
        host OUT: i64[N];
        host SUMS: i64[2];
        gpu OUT_G: i64[N];
        transient host T: i64[N];
        transient host S: i64;
        transient gpu TG: i64[N];
        transient gpu SG: i64;
        transient host SG_HOST: i64;
        state s {
            map h[i in 0..N] on seq { OUT[i] = T[i]; T[i] = T[i] + i + 1; }
            map g[i in 0..N] on gpu { OUT_G[i] = TG[i]; TG[i] = TG[i] + i + 1; }
            map r[i in 0..4] on cpu { S += 1; }
            map rg[i in 0..4] on gpu { SG += 1; }
            copy SG -> SG_HOST;
            tasklet out { SUMS[0] = S; SUMS[1] = SG_HOST; }
        }
    }
}

#[test]
fn transients_are_zero_at_the_start_of_every_call() {
    for device in common::devices("transients_are_zero_at_the_start_of_every_call") {
        let on = &device.name();
        let program = TransientsStartAtZero::load(&device).unwrap();
        let mut out_g = DeviceBuffer::<i64>::zeros(&device, 3).unwrap();
        for call in 0..3 {
            let mut out = vec![-1i64; 3];
            let mut sums = vec![0i64; 2];
            program
                .run(TransientsStartAtZeroArgs {
                    N: 3,
                    OUT: &mut out,
                    SUMS: &mut sums,
                    OUT_G: &mut out_g,
                })
                .unwrap();
            assert_eq!(out, [0, 0, 0], "call {call} on {on}: host transient");
            assert_eq!(
                out_g.to_vec().unwrap(),
                [0, 0, 0],
                "call {call} on {on}: gpu transient"
            );
            assert_eq!(
                sums,
                [4, 4],
                "call {call} on {on}: reductions into transients"
            );
        }
    }
}

#[test]
fn transients_written_whole_first_are_not_cleared() {
    use sdfg::compiler::ir::transients::needs_zero_fill;
    common::fixtures::repro!(sdfg, Repro, default);
    let ir = Repro::ir().unwrap();
    let t = ir.container_by_name("T").unwrap();
    // `copy T_GPU -> T` writes the whole scalar before anything reads it.
    assert!(!needs_zero_fill(&ir, t));
    let ir = TransientsStartAtZero::ir().unwrap();
    for name in ["T", "S", "TG", "SG"] {
        assert!(
            needs_zero_fill(&ir, ir.container_by_name(name).unwrap()),
            "{name}"
        );
    }
    assert!(!needs_zero_fill(
        &ir,
        ir.container_by_name("SG_HOST").unwrap()
    ));
}

sdfg! {
    /// `(N - 2)..=N` at the type's maximum, in every map kind and in loops.
    pub sdfg InclusiveToMaxI32 {
        symbol N: i32;
        gpu G: i64[2];
        host C: i64[2];
        host Q: i64[2];
        host L: i64[2];
        state s {
            map g[i in (N - 2)..=N] on gpu { G[0] += 1; G[1] += (N - i) as i64; }
            map c[i in (N - 2)..=N] on cpu { C[0] += 1; C[1] += (N - i) as i64; }
            map q[i in (N - 2)..=N] on seq { Q[0] += 1; Q[1] += (N - i) as i64; }
            map f[j in 0..1] on gpu { for k in (N - 2)..=N { G[0] += 10; G[1] += 10 * (N - k) as i64; } }
            tasklet t { for k in (N - 2)..=N { L[0] += 1; L[1] += (N - k) as i64; } }
        }
    }
}

sdfg! {
    pub sdfg InclusiveToMaxU64 {
        symbol N: u64;
        gpu G: u64[2];
        host C: u64[2];
        host Q: u64[2];
        host L: u64[2];
        state s {
            map g[i in (N - 2)..=N] on gpu { G[0] += 1; G[1] += N - i; }
            map c[i in (N - 2)..=N] on cpu { C[0] += 1; C[1] += N - i; }
            map q[i in ((N - 4)..=N).step_by(2)] on seq { Q[0] += 1; Q[1] += N - i; }
            map f[j in 0..1] on gpu { for k in (N - 2)..=N { G[0] += 10; G[1] += 10 * (N - k); } }
            tasklet t { for k in ((N - 5)..=N).step_by(2) { L[0] += 1; L[1] += N - k; } }
        }
    }
}

#[test]
fn inclusive_ranges_reach_the_types_maximum() {
    for device in common::devices("inclusive_ranges_reach_the_types_maximum") {
        let on = &device.name();
        let program = InclusiveToMaxI32::load(&device).unwrap();
        for n in [5, i32::MAX] {
            let mut g = DeviceBuffer::<i64>::zeros(&device, 2).unwrap();
            let (mut c, mut q, mut l) = (vec![0i64; 2], vec![0i64; 2], vec![0i64; 2]);
            program
                .run(InclusiveToMaxI32Args {
                    N: n,
                    G: &mut g,
                    C: &mut c,
                    Q: &mut q,
                    L: &mut l,
                })
                .unwrap();
            // Three iterations, N - i = 2, 1, 0.
            assert_eq!(g.to_vec().unwrap(), [33, 33], "N = {n} on {on}");
            assert_eq!(
                (c.clone(), q.clone(), l.clone()),
                (vec![3, 3], vec![3, 3], vec![3, 3]),
                "N = {n} on {on}"
            );
        }
        let program = InclusiveToMaxU64::load(&device).unwrap();
        for n in [7, u64::MAX] {
            let mut g = DeviceBuffer::<u64>::zeros(&device, 2).unwrap();
            let (mut c, mut q, mut l) = (vec![0u64; 2], vec![0u64; 2], vec![0u64; 2]);
            program
                .run(InclusiveToMaxU64Args {
                    N: n,
                    G: &mut g,
                    C: &mut c,
                    Q: &mut q,
                    L: &mut l,
                })
                .unwrap();
            assert_eq!(g.to_vec().unwrap(), [33, 33], "N = {n} on {on}");
            assert_eq!(c, [3, 3], "N = {n} on {on}");
            // Steps of 2: N - 4, N - 2, N (3 values); N - 5, N - 3, N - 1.
            assert_eq!(q, [3, 6], "N = {n} on {on}");
            assert_eq!(l, [3, 9], "N = {n} on {on}");
        }
    }
}

/// `copy_to_max!(Name, T)`: copies whose subsets end at `N: T` inclusive,
/// host to GPU and back.
macro_rules! copy_to_max {
    ($name:ident, $t:ident) => {
        sdfg! {
            pub sdfg $name {
                symbol S: $t;
                symbol N: $t;
                host X: f64[4];
                gpu G: f64[4];
                host Y: f64[4];
                state s {
                    copy X[S..=N] -> G[S..=N];
                    copy G[S..=N] -> Y[S..=N];
                }
            }
        }
    };
}
copy_to_max!(CopyToMaxU64, u64);
copy_to_max!(CopyToMaxI64, i64);

/// A copy subset `S..=N` ends at `N + 1` as a mathematical integer: with
/// `N` the type's maximum it is out of bounds (in `u64`, `N + 1` wraps to
/// 0, and the subset `0..0` would have copied nothing without a word).
#[test]
fn copy_subsets_that_end_at_the_types_maximum_are_out_of_bounds() {
    for device in common::devices("copy_subsets_that_end_at_the_types_maximum_are_out_of_bounds") {
        let on = device.name();
        let x = [1.0, 2.0, 3.0, 4.0];
        let unsigned = CopyToMaxU64::load(&device).unwrap();
        let signed = CopyToMaxI64::load(&device).unwrap();
        let run = |s: i128, n: i128| -> (Result<(), Error>, Vec<f64>) {
            let mut g = DeviceBuffer::<f64>::zeros(&device, 4).unwrap();
            let mut y = vec![0.0; 4];
            let result = if s >= 0 && n > i64::MAX as i128 {
                unsigned.run(CopyToMaxU64Args {
                    S: s as u64,
                    N: n as u64,
                    X: &x,
                    G: &mut g,
                    Y: &mut y,
                })
            } else {
                signed.run(CopyToMaxI64Args {
                    S: s as i64,
                    N: n as i64,
                    X: &x,
                    G: &mut g,
                    Y: &mut y,
                })
            };
            (result, y)
        };
        let (ok, y) = run(1, 3);
        ok.unwrap();
        assert_eq!(y, [0.0, 2.0, 3.0, 4.0], "on {on}");
        for (s, n) in [
            (0, u64::MAX as i128),
            (u64::MAX as i128, u64::MAX as i128),
            (0, i64::MAX as i128),
            (i64::MAX as i128, i64::MAX as i128),
            (i64::MIN as i128, i64::MAX as i128),
        ] {
            let (result, y) = run(s, n);
            expect_out_of_bounds(result, "X", &format!("X[{s}..={n}] on {on}"));
            assert_eq!(y, [0.0; 4], "nothing copied: X[{s}..={n}] on {on}");
        }
    }
}

sdfg! {
    /// A callee's inclusive copy subset, on containers bound to subsets of
    /// the caller's: inlined, it ends at `1 + N + 1` of `X` and `Y`.
    pub sdfg NestedCopyToMax {
        symbol N: u64;
        host X: f64[4];
        host Y: f64[4];
        sdfg Part {
            symbol M: u64;
            host D: f64[3];
            host E: f64[3];
            state s { copy D[0..=M] -> E[0..=M]; }
        }
        state s { Part(M = N, D = X[1..4], E = Y[1..4]); }
    }
}

/// The same through a nested SDFG: composing the callee's `0..=M` with the
/// binding's offset keeps it inclusive (`X[1..=1 + M]`).
#[test]
fn inlined_copy_subsets_that_end_at_the_types_maximum_are_out_of_bounds() {
    let device = Device::cpu();
    let program = NestedCopyToMax::load(&device).unwrap();
    let x = [1.0, 2.0, 3.0, 4.0];
    let mut y = vec![0.0; 4];
    program
        .run(NestedCopyToMaxArgs {
            N: 1,
            X: &x,
            Y: &mut y,
        })
        .unwrap();
    assert_eq!(y, [0.0, 2.0, 3.0, 0.0]);
    let mut y = vec![0.0; 4];
    let result = program.run(NestedCopyToMaxArgs {
        N: u64::MAX,
        X: &x,
        Y: &mut y,
    });
    expect_out_of_bounds(result, "X", "X[1..=1 + u64::MAX] through Part");
    assert_eq!(y, [0.0; 4], "nothing copied");
}

sdfg! {
    /// Work in the first state, a pinned argument used in the second.
    pub sdfg PinnedLater {
        symbol N: i64;
        host W: i32[N];
        pinned P: i32[N];
        gpu G: i32[N];
        state first {
            map w[i in 0..N] on cpu { W[i] = 7; }
        }
        state second {
            copy P -> G;
        }
        first -> second;
    }
}

#[test]
fn a_pinned_argument_of_another_device_fails_before_any_work() {
    let device = Device::cpu();
    let other = Device::cpu();
    let program = PinnedLater::load(&device).unwrap();
    let mut w = vec![0i32; 4];
    let p = HostBuffer::<i32>::new(&other, 4).unwrap();
    let mut g = DeviceBuffer::<i32>::zeros(&device, 4).unwrap();
    let r = program.run(PinnedLaterArgs {
        N: 4,
        W: &mut w,
        P: &p,
        G: &mut g,
    });
    match r {
        Err(Error::WrongDevice { what }) => assert!(what.contains("`P`"), "{what}"),
        other => panic!("expected a wrong-device error naming `P`, got {other:?}"),
    }
    assert_eq!(w, [0; 4], "the first state must not have run");
    let p = HostBuffer::<i32>::from_slice(&device, &[1, 2, 3, 4]).unwrap();
    program
        .run(PinnedLaterArgs {
            N: 4,
            W: &mut w,
            P: &p,
            G: &mut g,
        })
        .unwrap();
    assert_eq!((w, g.to_vec().unwrap()), (vec![7; 4], vec![1, 2, 3, 4]));
}

sdfg! {
    /// An interstate edge reads a host array at a symbolic index.
    pub sdfg EdgeRead {
        symbol K: i64;
        host X: i32[4];
        host Y: i32[1];
        state a {}
        state b { tasklet t { Y[0] = 1; } }
        a -> b if X[K] > 0;
    }
}

#[test]
fn an_edge_out_of_bounds_names_the_container() {
    let device = Device::cpu();
    let program = EdgeRead::load(&device).unwrap();
    let x = vec![1i32; 4];
    let mut y = vec![0i32; 1];
    program
        .run(EdgeReadArgs {
            K: 2,
            X: &x,
            Y: &mut y,
        })
        .unwrap();
    assert_eq!(y, [1]);
    match program.run(EdgeReadArgs {
        K: 9,
        X: &x,
        Y: &mut y,
    }) {
        Err(Error::OutOfBounds { what }) => {
            assert!(what.contains("`a -> b`") && what.contains("`X`"), "{what}")
        }
        other => panic!("expected an out-of-bounds error naming `X`, got {other:?}"),
    }
}
