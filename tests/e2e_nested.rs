//! Nested SDFGs end to end: programs that call nested SDFGs compute what
//! plain Rust computes on every device, and the sync proof covers the
//! callee (a GPU result a callee copies back is waited for before the
//! caller reads it).

mod common;
use sdfg::prelude::*;

common::fixtures::nested_host!(sdfg);
common::fixtures::nested_gpu!(sdfg);

#[test]
fn nested_host_matches_plain_rust() {
    for device in common::devices("nested_host") {
        let n = 9usize;
        let x: Vec<f64> = (0..n).map(|i| i as f64 * 0.75 - 2.0).collect();
        let y0: Vec<f64> = (0..2 * n).map(|i| (i as f64).sqrt()).collect();
        let (mut y, mut total) = (y0.clone(), vec![-1.0f64; 2]);
        NestedHost::load(&device)
            .unwrap()
            .run(NestedHostArgs {
                N: n as i64,
                X: &x,
                Y: &mut y,
                total: &mut total,
                scale: 1.5,
            })
            .unwrap();
        let mut ry = y0.clone();
        for i in 0..n {
            ry[2 * i] += 1.5 * x[i];
        }
        for i in 0..n - 1 {
            ry[2 * i + 1] += 1.5 * x[i + 1];
        }
        let mut rt = [0.0f64; 2];
        for (c, t) in rt.iter_mut().enumerate() {
            for i in 0..n {
                *t += ry[2 * i + c];
            }
        }
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&y), bits(&ry), "Y on {}", device.name());
        assert_eq!(bits(&total), bits(&rt), "total on {}", device.name());
    }
}

#[test]
fn nested_gpu_matches_plain_rust() {
    for device in common::devices("nested_gpu") {
        let (n, t) = (100usize, 5usize);
        let a0: Vec<f64> = (0..n).map(|i| (i % 7) as f64).collect();
        let mut a = DeviceBuffer::from_slice(&device, &a0).unwrap();
        let mut e = DeviceBuffer::from_slice(&device, &vec![-1.0f64; t]).unwrap();
        NestedGpu::load(&device)
            .unwrap()
            .run(NestedGpuArgs {
                N: n as i64,
                T: t as i64,
                A: &mut a,
                E: &mut e,
            })
            .unwrap();
        // Small integers: every sum is exact in any order.
        let mut ra = a0.clone();
        let mut re = Vec::new();
        for _ in 0..t {
            ra.iter_mut().for_each(|v| *v = *v * 2.0 + 1.0);
            re.push(ra.iter().map(|v| v * v).sum::<f64>());
        }
        assert_eq!(a.to_vec().unwrap(), ra, "A on {}", device.name());
        assert_eq!(e.to_vec().unwrap(), re, "E on {}", device.name());
    }
}

sdfg! {
    /// The callee's kernel is slow and its result comes back to a pinned
    /// transient of the caller, which the caller reads right after the call.
    pub sdfg NestedSync {
        symbol SPIN: i64;
        gpu G: i32;
        host U: i32[1];
        transient pinned T: i32;
        sdfg SlowFetch {
            symbol S: i64;
            gpu D: i32;
            pinned H: i32;
            state s {
                map spin[i in 0..1] on gpu {
                    let mut acc = 0.5;
                    for k in 0..S { acc = acc * 0.999999 + 1.0; }
                    D = if acc > 1.0e300 { 0 } else { 10 };
                }
                copy D -> H;
            }
        }
        state first {
            tasklet clear { U[0] = -1; }
            SlowFetch(S = SPIN, D = G, H = T);
            tasklet use_it { U[0] = T + 1; }
        }
    }
}

#[test]
fn a_result_a_callee_copies_back_is_waited_for_before_the_caller_reads_it() {
    use sdfg::compiler::schedule::SyncSite;
    let schedule = NestedSync::schedule().unwrap();
    let ir = NestedSync::ir().unwrap();
    let callee = ir.state_by_name("SlowFetch_s").unwrap();
    // The copy's destination settles at the end of the callee's state.
    assert_eq!(schedule.states[callee].syncs.len(), 1);
    assert_eq!(schedule.states[callee].syncs[0].site, SyncSite::StateEnd);
    for device in common::devices("nested_sync") {
        let program = NestedSync::load(&device).unwrap();
        let mut g = DeviceBuffer::<i32>::zeros(&device, 1).unwrap();
        for run in 0..10 {
            let mut u = vec![0i32];
            program
                .run(NestedSyncArgs {
                    SPIN: 200_000,
                    G: &mut g,
                    U: &mut u,
                })
                .unwrap();
            assert_eq!(u[0], 11, "run {run} on {}", device.name());
        }
    }
}

#[test]
fn the_program_keeps_its_calls_for_dace() {
    let ir = NestedHost::ir().unwrap();
    let form = ir.nested_form.as_ref().expect("the calls");
    let calls: Vec<&str> = form.states[0]
        .stmts
        .iter()
        .filter_map(|s| match &s.kind {
            sdfg::compiler::ir::StatementKind::Nested(c) => Some(c.callee.name.text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(calls, ["Axpy", "Axpy", "Sum", "Sum"]);
    assert_eq!(
        NestedHost::to_sdfg_json().matches("\"NestedSDFG\"").count(),
        4
    );
    // The inlined program has the callees' states.
    assert!(ir.state_by_name("Sum_2_body").is_some());
}

sdfg! {
    /// A callee whose transients accumulate, called in a loop of states:
    /// every call finds them at zero, as a call of the callee on its own does.
    pub sdfg NestedZeroed {
        symbol K: i64;
        host A: f64[4];
        host Out: f64[K];
        gpu G: f64[4];
        gpu W: f64[K, 4];
        sdfg Accumulate {
            host V: f64[4];
            host S: f64;
            gpu D: f64[4];
            gpu R: f64[4];
            transient host T: f64;
            transient gpu Acc: f64[4];
            state s {
                map sum[i in 0..4] on cpu { T += V[i]; }
                tasklet out { S = T; }
                map add[i in 0..4] on gpu { Acc[i] += D[i]; }
                map put[i in 0..4] on gpu { R[i] = Acc[i]; }
            }
        }
        state init {}
        state step { Accumulate(V = A, S = Out[k], D = G, R = W[k, 0..4]); }
        state done {}
        init -> step { k = 0 }
        step -> step if k + 1 < K { k = k + 1 }
        step -> done;
    }
}

#[test]
fn a_callee_called_again_finds_its_transients_at_zero() {
    let ir = NestedZeroed::ir().unwrap();
    assert!(ir.state_by_name("Accumulate_zero").is_some());
    for device in common::devices("nested_zeroed") {
        let k = 3usize;
        let a = [1.0, 2.0, 3.0, 4.5];
        let mut out = vec![-1.0f64; k];
        let g = DeviceBuffer::from_slice(&device, &a).unwrap();
        let mut w = DeviceBuffer::<f64>::zeros(&device, 4 * k).unwrap();
        NestedZeroed::load(&device)
            .unwrap()
            .run(NestedZeroedArgs {
                K: k as i64,
                A: &a,
                Out: &mut out,
                G: &g,
                W: &mut w,
            })
            .unwrap();
        assert_eq!(out, vec![10.5; k], "Out on {}", device.name());
        assert_eq!(w.to_vec().unwrap(), a.repeat(k), "W on {}", device.name());
    }
}

sdfg! {
    /// A callee with a block map (shared data, a thread map) and a
    /// transient it accumulates into, called in a loop of states: its block
    /// data and transients become the caller's, cleared for every call.
    pub sdfg NestedBlocks {
        symbol K: i64;
        gpu X: f32[K, 4, 8];
        gpu S: f32[K];
        sdfg SquareSum {
            symbol B: i64;
            symbol C: i64;
            gpu U: f32[B, C];
            gpu out: f32;
            transient gpu P: f32[B];
            state s {
                map partial[b in 0..B] on gpu block(32) {
                    shared part: f32;
                    part = 0.0;
                    map t[i in 0..C] on threads { part += U[b, i] * U[b, i]; }
                    P[b] += part;
                }
                map total[z in 0..1] on gpu {
                    let mut s = 0.0;
                    for b in 0..B { s += P[b]; }
                    out = s;
                }
            }
        }
        state init {}
        state step { SquareSum(U = X[k, 0..4, 0..8], out = S[k]); }
        state done {}
        init -> step { k = 0 }
        step -> step if k + 1 < K { k = k + 1 }
        step -> done;
    }
}

#[test]
fn a_callee_with_a_block_map_runs_in_a_loop() {
    let ir = NestedBlocks::ir().unwrap();
    assert!(ir.state_by_name("SquareSum_zero").is_some());
    for device in common::devices("nested_blocks") {
        let k = 3usize;
        // Small integers: every sum is exact in any order.
        let x0: Vec<f32> = (0..k * 32).map(|v| (v % 5) as f32 - 2.0).collect();
        let x = DeviceBuffer::from_slice(&device, &x0).unwrap();
        let mut s = DeviceBuffer::<f32>::zeros(&device, k).unwrap();
        NestedBlocks::load(&device)
            .unwrap()
            .run(NestedBlocksArgs {
                K: k as i64,
                X: &x,
                S: &mut s,
            })
            .unwrap();
        let want: Vec<f32> = x0
            .chunks(32)
            .map(|c| c.iter().map(|v| v * v).sum())
            .collect();
        assert_eq!(s.to_vec().unwrap(), want, "S on {}", device.name());
    }
}

sdfg! {
    /// Callees whose extents are narrow symbols taken from their bindings:
    /// `Bump`'s `M: i32` is the extent of `A` cast to `i32`, directly in
    /// `first` and through `Outer` (whose own `K: i64` is that extent
    /// unchanged) in `second`; `Tail`'s `L: u32` is the extent of `A[5..N]`
    /// cast to `u32` in `third`.
    pub sdfg NarrowExtents {
        symbol N: i64;
        gpu A: u8[N];
        sdfg Bump {
            symbol M: i32;
            gpu X: u8[M];
            state s {
                map f[i in 0..M] on gpu { X[i] = X[i] + 1; }
            }
        }
        sdfg Outer {
            symbol K: i64;
            gpu Y: u8[K];
            state t { Bump(X = Y); }
        }
        sdfg Tail {
            symbol L: u32;
            gpu X: u8[L];
            state s {
                map f[i in 0..L] on gpu { X[i] = X[i] + 1; }
            }
        }
        state first { Bump(X = A); }
        state second { Outer(Y = A); }
        state third { Tail(X = A[5..N]); }
        first -> second;
        second -> third;
    }
}

/// Runs `NarrowExtents` over `n` zeros: the bytes, or the error's text.
fn narrow_extents(device: &Device, n: usize) -> Result<Vec<u8>, String> {
    let mut a = DeviceBuffer::<u8>::zeros(device, n).unwrap();
    NarrowExtents::load(device)
        .unwrap()
        .run(NarrowExtentsArgs {
            N: n as i64,
            A: &mut a,
        })
        .map_err(|e| e.to_string())?;
    Ok(a.to_vec().unwrap())
}

/// A symbol left out of a call takes its binding's extent cast to the
/// symbol's type. Where that wraps (`A[5..N]` with `N = 3` spans -2, which
/// is 4294967294 as a `u32`), the call is an `Err` naming the binding
/// before the state does any work, not a callee that runs over another
/// extent than its data has.
#[test]
fn an_extent_that_wraps_around_a_callee_symbol_is_an_error() {
    let ir = NarrowExtents::ir().unwrap();
    let checks = |name: &str| {
        ir.states[ir.state_by_name(name).unwrap()]
            .extent_checks
            .len()
    };
    assert_eq!(
        (checks("first"), checks("Outer_t"), checks("third")),
        (1, 1, 1)
    );
    assert_eq!(checks("second"), 0, "K: i64 takes N as it is");
    for device in common::devices("nested_narrow_extents") {
        let mut want = vec![2u8; 1000];
        want[5..].iter_mut().for_each(|v| *v = 3);
        assert_eq!(narrow_extents(&device, 1000), Ok(want), "{}", device.name());
        let message = narrow_extents(&device, 3).unwrap_err();
        assert!(
            message.contains(
                "dimension 0 of `X` of nested sdfg `Tail` (declared `L`), called in state \
                 `third` with `A`, is 4294967294 in the callee, but the binding spans -2"
            ),
            "{message} on {}",
            device.name()
        );
    }
}

/// The same above `i32::MAX`: 2^31 + 5 as an `i32` is -2^31 + 5, over which
/// `Bump`'s map would run no iteration and the call would return `Ok`.
/// GPU only (the CPU device takes a minute to allocate and clear 2 GiB in
/// a debug build): skipped without a GPU, a failure when
/// `SDFG_REQUIRE_GPU=1`.
#[test]
fn gpu_an_extent_above_i32_max_is_an_error_for_an_i32_symbol() {
    let Some(device) = common::gpu_or_skip("nested_narrow_extents_large") else {
        return;
    };
    let message = narrow_extents(&device, (1 << 31) + 5).unwrap_err();
    assert!(
        message.contains(
            "dimension 0 of `X` of nested sdfg `Bump` (declared `M`), called in state \
             `first` with `A`, is -2147483643 in the callee, but the binding spans 2147483653"
        ),
        "{message}"
    );
}
