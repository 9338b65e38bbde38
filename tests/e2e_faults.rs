//! Faults reach the call that caused them (issue 13, item 6): an access
//! that is checked where it runs (a data-dependent index, an index under an
//! `if`) and is out of bounds is skipped, and the call that ran the kernel
//! returns `Err(KernelFault)` naming the map, the state, the container,
//! read or write, and the index. Every call has its own fault slot, so no
//! other call, download or program ever sees it.
//!
//! Each scenario runs on the CPU device (`*_cpu`) and on the GPU
//! (`*_gpu`: skipped without one, a failure when `SDFG_REQUIRE_GPU=1`).
//! Before per-call slots, `issue_scenario_default` and `concurrent_default`
//! failed on both devices: the unrelated download, and the clean call,
//! received the faulty call's fault.

mod common;
use sdfg::prelude::*;

macro_rules! gather {
    ($name:ident, $($policy:tt)*) => {
        sdfg! {
            /// B[i] = A[IDX[i]]: an index outside A is a read fault of `A`.
            #[streams($($policy)*)]
            pub sdfg $name {
                symbol N: i64;
                symbol M: i64;
                gpu A: i32[N];
                gpu IDX: i64[M];
                gpu B: i32[M];
                state s {
                    map gather[i in 0..M] on gpu { B[i] = A[IDX[i]]; }
                }
            }
        }
    };
}

gather!(GatherDefault, default);
gather!(GatherAuto, auto);

sdfg! {
    /// Writes A[i + S] where IDX[i] is positive: S too large is a write
    /// fault of `A` (the write sits under an `if`, so the kernel checks it).
    pub sdfg Shift {
        symbol N: i64;
        symbol S: i64;
        gpu A: i32[N];
        gpu IDX: i64[N];
        state s {
            map shift[i in 0..N] on gpu {
                if IDX[i] > 0 { A[i + S] = 1; }
            }
        }
    }
}

sdfg! {
    /// A two-dimensional read: the fault reports the row-major index.
    pub sdfg Rows {
        symbol R: i64;
        symbol C: i64;
        gpu G: i32[R, C];
        gpu IDX: i64[R];
        gpu OUT: i32[R];
        state load {
            map row[i in 0..R] on gpu { OUT[i] = G[i, IDX[i]]; }
        }
    }
}

sdfg! {
    /// Unrelated to the others: it must keep running cleanly.
    #[streams(default)]
    pub sdfg Fill {
        symbol N: i64;
        gpu X: i32[N];
        state s {
            map fill[i in 0..N] on gpu { X[i] = 7; }
        }
    }
}

sdfg! {
    /// A `cpu` map checks its data-dependent index as it runs, too.
    pub sdfg HostGather {
        symbol M: i64;
        host HA: i32[4];
        host HIDX: i64[M];
        host HB: i32[M];
        state s {
            map hgather[i in 0..M] on cpu { HB[i] = HA[HIDX[i]]; }
        }
    }
}

/// The message a read fault of `A` at `index` in `gather` gives.
fn gather_message(index: i64) -> String {
    format!(
        "map `gather` in state `s`: the read of `A` at index {index} was out of bounds \
         and skipped (kernel `k_s_gather`)"
    )
}

fn expect_fault(result: Result<(), Error>, message: &str) {
    match result {
        Err(e @ Error::KernelFault { .. }) => assert_eq!(e.to_string(), message),
        other => panic!("expected the call's own fault ({message}), got {other:?}"),
    }
}

macro_rules! issue_scenario {
    ($scenario:ident, $program:ident, $args:ident) => {
        /// The issue's scenario: a faulty `launch`, then an unrelated
        /// download and another program's `run` (both `Ok`), then the
        /// faulty call's `wait` (its fault); the next clean call is `Ok`.
        fn $scenario(device: &Device) {
            let program = $program::load(device).unwrap();
            let fill = Fill::load(device).unwrap();
            let a = DeviceBuffer::from_slice(device, &[10, 11, 12, 13]).unwrap();
            let bad = DeviceBuffer::from_slice(device, &[3i64, 16, 0]).unwrap();
            let good = DeviceBuffer::from_slice(device, &[3i64, 1, 0]).unwrap();
            let mut b = DeviceBuffer::<i32>::zeros(device, 3).unwrap();
            let unrelated = DeviceBuffer::from_slice(device, &[5i32, 6]).unwrap();
            let mut x = DeviceBuffer::<i32>::zeros(device, 2).unwrap();

            let running = program
                .launch($args {
                    N: 4,
                    M: 3,
                    A: &a,
                    IDX: &bad,
                    B: &mut b,
                })
                .unwrap();
            assert_eq!(unrelated.to_vec().unwrap(), [5, 6]);
            fill.run(FillArgs { N: 2, X: &mut x }).unwrap();
            assert_eq!(x.to_vec().unwrap(), [7, 7]);
            expect_fault(running.wait(), &gather_message(16));
            // The access was skipped (a read gives zero); the rest ran.
            assert_eq!(b.to_vec().unwrap(), [13, 0, 10]);
            device.synchronize().unwrap();
            program
                .run($args {
                    N: 4,
                    M: 3,
                    A: &a,
                    IDX: &good,
                    B: &mut b,
                })
                .unwrap();
            assert_eq!(b.to_vec().unwrap(), [13, 11, 10]);
        }
    };
}

issue_scenario!(issue_scenario_default, GatherDefault, GatherDefaultArgs);
issue_scenario!(issue_scenario_auto, GatherAuto, GatherAutoArgs);

macro_rules! concurrent_calls {
    ($scenario:ident, $program:ident, $args:ident) => {
        /// Two calls at once, only one faulty: launched together, and from
        /// two threads many times.
        fn $scenario(device: &Device) {
            let program = $program::load(device).unwrap();
            let a = DeviceBuffer::from_slice(device, &[10, 11, 12, 13]).unwrap();
            let bad = DeviceBuffer::from_slice(device, &[-1i64, 2]).unwrap();
            let good = DeviceBuffer::from_slice(device, &[2i64, 3]).unwrap();
            let (mut b1, mut b2) = (
                DeviceBuffer::<i32>::zeros(device, 2).unwrap(),
                DeviceBuffer::<i32>::zeros(device, 2).unwrap(),
            );
            let faulty = program
                .launch($args {
                    N: 4,
                    M: 2,
                    A: &a,
                    IDX: &bad,
                    B: &mut b1,
                })
                .unwrap();
            let clean = program
                .launch($args {
                    N: 4,
                    M: 2,
                    A: &a,
                    IDX: &good,
                    B: &mut b2,
                })
                .unwrap();
            clean.wait().unwrap();
            expect_fault(faulty.wait(), &gather_message(-1));
            assert_eq!(b2.to_vec().unwrap(), [12, 13]);

            std::thread::scope(|scope| {
                scope.spawn(|| {
                    for _ in 0..10 {
                        let r = program.run($args {
                            N: 4,
                            M: 2,
                            A: &a,
                            IDX: &bad,
                            B: &mut b1,
                        });
                        expect_fault(r, &gather_message(-1));
                    }
                });
                scope.spawn(|| {
                    for _ in 0..10 {
                        program
                            .run($args {
                                N: 4,
                                M: 2,
                                A: &a,
                                IDX: &good,
                                B: &mut b2,
                            })
                            .unwrap();
                    }
                });
            });
        }
    };
}

concurrent_calls!(concurrent_default, GatherDefault, GatherDefaultArgs);
concurrent_calls!(concurrent_auto, GatherAuto, GatherAutoArgs);

/// A write fault, a two-dimensional fault (row-major index, the access
/// code of `G` in its body), and a host map's fault.
fn messages(device: &Device) {
    let shift = Shift::load(device).unwrap();
    let mut a = DeviceBuffer::<i32>::zeros(device, 4).unwrap();
    let idx = DeviceBuffer::from_slice(device, &[0i64, 0, 0, 1]).unwrap();
    let r = shift.run(ShiftArgs {
        N: 4,
        S: 2,
        A: &mut a,
        IDX: &idx,
    });
    expect_fault(
        r,
        "map `shift` in state `s`: the write to `A` at index 5 was out of bounds and skipped \
         (kernel `k_s_shift`)",
    );
    assert_eq!(a.to_vec().unwrap(), [0; 4]);
    shift
        .run(ShiftArgs {
            N: 4,
            S: 0,
            A: &mut a,
            IDX: &idx,
        })
        .unwrap();
    assert_eq!(a.to_vec().unwrap(), [0, 0, 0, 1]);

    let rows = Rows::load(device).unwrap();
    let g = DeviceBuffer::from_slice(device, &[0i32, 1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
    // Row 1 reads column 4 of 3: row-major index 1 * 3 + 4 = 7, inside the
    // buffer's 9 elements but outside its row; only row 1 faults.
    let idx = DeviceBuffer::from_slice(device, &[2i64, 4, 0]).unwrap();
    let mut out = DeviceBuffer::<i32>::zeros(device, 3).unwrap();
    let r = rows.run(RowsArgs {
        R: 3,
        C: 3,
        G: &g,
        IDX: &idx,
        OUT: &mut out,
    });
    match r {
        Err(e @ Error::KernelFault { .. }) => {
            let Error::KernelFault { kernel, code, site } = &e else {
                unreachable!()
            };
            // Access 1 is IDX[i], 2 is G[..], 3 is OUT[i].
            assert_eq!((kernel.as_str(), *code), ("k_load_row", 2));
            let site = site.as_deref().expect("a program's fault has a site");
            assert_eq!(
                (
                    site.map.as_str(),
                    site.state.as_str(),
                    site.container.as_str()
                ),
                ("row", "load", "G")
            );
            assert_eq!((site.write, site.rank, site.index), (false, 2, 7));
            assert!(
                e.to_string()
                    .contains("the read of `G` at row-major index 7"),
                "{e}"
            );
        }
        other => panic!("expected a fault of `G`, got {other:?}"),
    }
    assert_eq!(out.to_vec().unwrap(), [2, 0, 6]);

    let host = HostGather::load(device).unwrap();
    let ha = [1, 2, 3, 4];
    let mut hb = [0i32; 2];
    let r = host.run(HostGatherArgs {
        M: 2,
        HA: &ha,
        HIDX: &[1, 9],
        HB: &mut hb,
    });
    assert_eq!(
        r.unwrap_err().to_string(),
        "out of bounds: map `hgather` in state `s`: the read of `HA` at index 9 was out of bounds"
    );
}

macro_rules! on_both_devices {
    ($($scenario:ident => $cpu:ident, $gpu:ident;)*) => {$(
        #[test]
        fn $cpu() {
            $scenario(&Device::cpu());
        }

        #[test]
        fn $gpu() {
            if let Some(device) = common::gpu_or_skip(stringify!($gpu)) {
                $scenario(&device);
            }
        }
    )*};
}

on_both_devices! {
    issue_scenario_default => issue_scenario_default_cpu, issue_scenario_default_gpu;
    issue_scenario_auto => issue_scenario_auto_cpu, issue_scenario_auto_gpu;
    concurrent_default => concurrent_default_cpu, concurrent_default_gpu;
    concurrent_auto => concurrent_auto_cpu, concurrent_auto_gpu;
    messages => messages_cpu, messages_gpu;
}

sdfg! {
    /// A data-dependent index into `shared` data: checked where it runs
    /// (the CPU device indexes block data without a check of its own, so
    /// this check is all that stands between a bad index and memory).
    pub sdfg SharedGather {
        gpu SIDX: i64[64];
        gpu SOUT: f32[64];
        state s {
            map tile[t in 0..1] on gpu block(64) {
                shared S: f32[64];
                map fill[i in 0..64] on threads { S[i] = i as f32 + 0.5; }
                map pick[i in 0..64] on threads { SOUT[i] = S[SIDX[i]]; }
            }
        }
    }
}

/// An out-of-bounds index into shared data is a fault of the call, on one
/// task, on a team (16 threads) and on the GPU, and the other elements are
/// right.
#[test]
fn shared_data_out_of_bounds_is_a_fault() {
    let mut devices = common::devices("shared gather");
    devices.push(Device::cpu_with_threads(16));
    for device in devices {
        let program = SharedGather::load(&device).unwrap();
        for bad in [None, Some(64i64), Some(-1), Some(i64::MAX)] {
            let mut idx: Vec<i64> = (0..64).map(|i| (i * 7) % 64).collect();
            if let Some(b) = bad {
                idx[5] = b;
            }
            let sidx = DeviceBuffer::from_slice(&device, &idx).unwrap();
            let mut out = DeviceBuffer::from_slice(&device, &[f32::NAN; 64]).unwrap();
            let result = program.run(SharedGatherArgs {
                SIDX: &sidx,
                SOUT: &mut out,
            });
            let got = out.to_vec().unwrap();
            match bad {
                None => result.unwrap(),
                Some(b) => expect_fault(
                    result,
                    &format!(
                        "map `tile` in state `s`: the read of `S` at index {b} was out of \
                         bounds and skipped (kernel `k_s_tile`)"
                    ),
                ),
            }
            for (i, &g) in got.iter().enumerate() {
                if bad.is_none() || i != 5 {
                    assert_eq!(g, idx[i] as f32 + 0.5, "SOUT[{i}] on {}", device.name());
                }
            }
        }
    }
}
