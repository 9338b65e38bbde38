//! The seed's reproducer (DaCe issue 2120) under all four stream policies:
//! the host tasklet and the interstate edge read `T` only after the copy
//! from the GPU finished, so `U[0] == 11` and exactly `R == 10` elements of
//! `X` are set, every time.

mod common;
use sdfg::prelude::*;

common::fixtures::repro!(sdfg, ReproDefault, default);
common::fixtures::repro!(sdfg, ReproSingle, single);
common::fixtures::repro!(sdfg, ReproMax2, max(2));
common::fixtures::repro!(sdfg, ReproAuto, auto);

macro_rules! check_policy {
    ($test:ident, $name:ident, $args:ident) => {
        #[test]
        fn $test() {
            for device in common::devices(stringify!($test)) {
                let program = $name::load(&device).expect("load");
                let mut t_gpu = DeviceBuffer::<i32>::zeros(&device, 1).expect("alloc");
                for run in 0..100 {
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
                    assert_eq!(u[0], 11, "run {run} on {}", device.name());
                    assert_eq!(
                        x.iter().filter(|&&v| v == 1).count(),
                        10,
                        "run {run} on {}",
                        device.name()
                    );
                    assert!(x[..10].iter().all(|&v| v == 1) && x[10..].iter().all(|&v| v == 0));
                }
            }
        }
    };
}

check_policy!(default_policy, ReproDefault, ReproDefaultArgs);
check_policy!(single_policy, ReproSingle, ReproSingleArgs);
check_policy!(max2_policy, ReproMax2, ReproMax2Args);
check_policy!(auto_policy, ReproAuto, ReproAutoArgs);

#[test]
fn the_schedule_waits_where_the_host_needs_t() {
    use sdfg::compiler::schedule::{SyncReason, SyncSite};
    let schedule = ReproDefault::schedule().expect("schedule");
    let first = &schedule.states[0];
    // One wait, right before the host tasklet (statement 2) that reads T.
    assert_eq!(first.syncs.len(), 1);
    assert_eq!(first.syncs[0].site, SyncSite::Before(2));
    assert_eq!(first.syncs[0].reason, SyncReason::HostTasklet);
    assert!(schedule.states[1].syncs.is_empty());
}

#[test]
fn counts_one_host_wait_for_t_per_run() {
    let device = Device::cpu();
    let program = ReproSingle::load(&device).unwrap();
    let mut t_gpu = DeviceBuffer::<i32>::zeros(&device, 1).unwrap();
    let mut x = vec![0i32; 32];
    let mut u = vec![0i32; 1];
    let before = device.counters();
    program
        .run(ReproSingleArgs {
            X_size: 32,
            T_GPU: &mut t_gpu,
            X: &mut x,
            U: &mut u,
        })
        .unwrap();
    let after = device.counters();
    // The wait for T; the end of the run needs no second one, because no
    // stream work was issued after it (the second state is host work).
    assert_eq!(after.host_syncs - before.host_syncs, 1);
    assert_eq!(after.event_waits - before.event_waits, 0);
}

#[test]
fn a_short_argument_is_an_error_and_nothing_runs() {
    let device = Device::cpu();
    let program = ReproAuto::load(&device).unwrap();
    let mut t_gpu = DeviceBuffer::<i32>::zeros(&device, 1).unwrap();
    let mut x = vec![7i32; 5];
    let mut u = vec![7i32; 1];
    let err = program
        .run(ReproAutoArgs {
            X_size: 32,
            T_GPU: &mut t_gpu,
            X: &mut x,
            U: &mut u,
        })
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains('X') && msg.contains("32") && msg.contains('5'),
        "{msg}"
    );
    assert_eq!(x, vec![7; 5]);
    assert_eq!(u, vec![7]);
    assert_eq!(t_gpu.to_vec().unwrap(), vec![0]);
}

#[test]
fn a_map_range_past_the_array_is_an_error_before_the_state_runs() {
    // R = 10 elements of X are written, so X_size = 8 is too small: the
    // second state's range check fails before its map runs.
    let device = Device::cpu();
    let program = ReproDefault::load(&device).unwrap();
    let mut t_gpu = DeviceBuffer::<i32>::zeros(&device, 1).unwrap();
    let mut x = vec![0i32; 8];
    let mut u = vec![0i32; 1];
    let err = program
        .run(ReproDefaultArgs {
            X_size: 8,
            T_GPU: &mut t_gpu,
            X: &mut x,
            U: &mut u,
        })
        .unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("`X`") && msg.contains("compute"), "{msg}");
    assert_eq!(x, vec![0; 8]);
}
