//! The seed's reproducer (DaCe issue 2120) as DaCe itself saved it
//! (tests/fixtures/dace/repro.sdfg, made by ci/dace_fixtures.py with the
//! issue's SDFG-API code), compiled with `include` under all four stream
//! policies: DaCe's own code reads `T` before the copy from the GPU has
//! finished when it uses the default stream; ours waits, so `U[0] == 11`
//! and exactly `R == 10` elements of `X` are set, 20 times out of 20 on
//! every device (the CPU device here, the GPU too when there is one;
//! `SDFG_REQUIRE_GPU=1` makes a missing GPU a failure).

mod common;
use sdfg::prelude::*;

macro_rules! repro {
    ($name:ident, $($policy:tt)*) => {
        sdfg! {
            /// DaCe's reproducer, read from its `.sdfg`.
            #[streams($($policy)*)]
            pub sdfg $name = include "tests/fixtures/dace/repro.sdfg";
        }
    };
}

repro!(DaceReproDefault, default);
repro!(DaceReproSingle, single);
repro!(DaceReproMax2, max(2));
repro!(DaceReproAuto, auto);

const RUNS: usize = 20;

macro_rules! check_policy {
    ($test:ident, $name:ident, $args:ident) => {
        #[test]
        fn $test() {
            for device in common::devices(stringify!($test)) {
                let program = $name::load(&device).expect("load");
                let mut t_gpu = DeviceBuffer::<i32>::zeros(&device, 1).expect("alloc");
                let mut right = 0;
                for run in 0..RUNS {
                    let mut x = vec![0i32; 32];
                    let mut u = vec![0i32; 1];
                    program
                        .run($args {
                            X_size: 32,
                            T_GPU: &mut t_gpu,
                            X: &mut x,
                            U: &mut u,
                        })
                        .expect("run");
                    let x_ok = x[..10].iter().all(|&v| v == 1) && x[10..].iter().all(|&v| v == 0);
                    if u[0] == 11 && x_ok {
                        right += 1;
                    } else {
                        println!("run {run} on {}: U = {u:?}, X = {x:?}", device.name());
                    }
                }
                assert_eq!(
                    right,
                    RUNS,
                    "{} of {RUNS} runs right on {}",
                    right,
                    device.name()
                );
            }
        }
    };
}

check_policy!(default_policy, DaceReproDefault, DaceReproDefaultArgs);
check_policy!(single_policy, DaceReproSingle, DaceReproSingleArgs);
check_policy!(max2_policy, DaceReproMax2, DaceReproMax2Args);
check_policy!(auto_policy, DaceReproAuto, DaceReproAutoArgs);

#[test]
fn the_imported_schedule_waits_where_the_host_needs_t() {
    use sdfg::compiler::schedule::{SyncReason, SyncSite};
    for schedule in [
        DaceReproDefault::schedule(),
        DaceReproSingle::schedule(),
        DaceReproMax2::schedule(),
        DaceReproAuto::schedule(),
    ] {
        let schedule = schedule.expect("schedule");
        let first = &schedule.states[0];
        // One wait, right before the host tasklet (statement 2) that reads T.
        assert_eq!(first.syncs.len(), 1);
        assert_eq!(first.syncs[0].site, SyncSite::Before(2));
        assert_eq!(first.syncs[0].reason, SyncReason::HostTasklet);
    }
}

#[test]
fn the_import_is_the_reproducer_written_in_the_dsl() {
    // The IR of the translation (`SOURCE`, what `ir()` parses) has the
    // DSL reproducer's statements and edge.
    let ir = DaceReproDefault::ir().expect("ir");
    assert!(!DaceReproDefault::SOURCE.contains("include"));
    let names: Vec<String> = ir.states[0].stmts.iter().map(|s| s.label()).collect();
    assert_eq!(names, ["write_map", "copy", "cpu_computation"]);
    let t = ir.container_by_name("T").expect("T");
    assert!(ir.containers[t].transient && ir.containers[t].is_scalar());
    let t_gpu = ir.container_by_name("T_GPU").expect("T_GPU");
    assert_eq!(
        ir.containers[t_gpu].storage,
        sdfg::compiler::ir::Storage::Gpu
    );
    assert_eq!(ir.edges.len(), 1);
    assert_eq!(ir.edges[0].assignments.len(), 2);
}
