//! The runtime on a CUDA GPU: the same scenarios as cpu_runtime.rs. Each test
//! prints "skipped: no GPU" and returns when `Device::gpu(0)` fails, unless
//! SDFG_REQUIRE_GPU=1, in which case it panics.

mod common;

use sdfg_runtime::*;

fn gpu() -> Option<Device> {
    match Device::gpu(0) {
        Ok(dev) => Some(dev),
        Err(e) => {
            if std::env::var("SDFG_REQUIRE_GPU").as_deref() == Ok("1") {
                panic!("SDFG_REQUIRE_GPU=1 but the gpu cannot be used: {e}");
            }
            println!("skipped: no GPU ({e})");
            None
        }
    }
}

macro_rules! gpu_tests {
    ($($name:ident),* $(,)?) => {$(
        #[test]
        fn $name() -> Result<()> {
            match gpu() {
                Some(dev) => common::$name(&dev),
                None => Ok(()),
            }
        }
    )*};
}

gpu_tests!(
    cross_stream_read_after_write,
    cross_stream_after_host_sync,
    cross_stream_write_after_read,
    unsynchronized_read_sees_stale_data,
    forgotten_pending_host_buffer,
    forgotten_pending_slice_untouched,
    forgotten_running_then_reuse,
    drop_buffer_after_forgotten_running,
    copies_with_regions,
    bad_copies_touch_nothing,
    faults_and_launch_errors,
    raw_faults_wait_for_their_stream,
    call_faults_stay_with_their_call,
    scalar_parameters,
    program_from_eight_threads,
    running_counts,
    out_of_memory_is_an_error,
    timing_events,
    module_cache,
    two_programs_share_a_buffer,
    explicit_events,
    device_synchronize,
    host_buffer_source_waits,
    default_stream_program,
);

#[test]
fn random_ops_match_sequential_model() -> Result<()> {
    let Some(dev) = gpu() else { return Ok(()) };
    for seed in 0..6 {
        common::random_ops_match_sequential_model(&dev, seed)?;
    }
    Ok(())
}

/// An invalid module is `Err(JitFailed)` carrying the driver's log.
#[test]
fn invalid_ptx_reports_the_jit_log() {
    let Some(dev) = gpu() else { return };
    let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry broken() { bogus.instruction; }\n";
    // SAFETY: the module does not compile; nothing is launched.
    match unsafe { Module::load_dynamic(&dev, ptx.to_string(), vec!["broken".into()]) } {
        Err(Error::JitFailed { log }) => {
            println!("jit log: {log}");
            assert!(!log.is_empty());
        }
        other => panic!("expected JitFailed, got {other:?}"),
    }
    // The device keeps working.
    let b = DeviceBuffer::from_slice(&dev, &[1u32]).unwrap();
    assert_eq!(b.to_vec().unwrap(), [1]);
}

/// A missing entry name is an error naming the kernel.
#[test]
fn missing_kernel_name_is_an_error() {
    let Some(dev) = gpu() else { return };
    // SAFETY: the entry does not exist; nothing is launched.
    let r = unsafe {
        Module::load_dynamic(&dev, common::PTX.to_string(), vec!["no_such_kernel".into()])
    };
    assert!(
        matches!(&r, Err(Error::InvalidArgument(m)) if m.contains("no_such_kernel")),
        "{r:?}"
    );
}

/// The GPU device reports its properties.
#[test]
fn gpu_properties() {
    let Some(dev) = gpu() else { return };
    assert!(dev.is_gpu());
    assert!(dev.sm_count() > 1);
    assert!(dev.memory_in_use().unwrap() > 0);
    println!("{} with {} SMs", dev.name(), dev.sm_count());
    assert!(Device::auto().is_gpu());
}
