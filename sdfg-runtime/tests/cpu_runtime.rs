//! The runtime on the CPU device (runs everywhere).

mod common;

use sdfg_runtime::__glue::{cells, KernelArgs, KernelEntry, Program, ProgramSpec, StreamSpec};
use sdfg_runtime::*;

fn cpu() -> Device {
    Device::cpu()
}

#[test]
fn cross_stream_read_after_write() -> Result<()> {
    common::cross_stream_read_after_write(&cpu())
}

#[test]
fn cross_stream_after_host_sync() -> Result<()> {
    common::cross_stream_after_host_sync(&cpu())
}

#[test]
fn cross_stream_write_after_read() -> Result<()> {
    common::cross_stream_write_after_read(&cpu())
}

#[test]
fn unsynchronized_read_sees_stale_data() -> Result<()> {
    common::unsynchronized_read_sees_stale_data(&cpu())
}

#[test]
fn forgotten_pending_host_buffer() -> Result<()> {
    common::forgotten_pending_host_buffer(&cpu())
}

#[test]
fn forgotten_pending_slice_untouched() -> Result<()> {
    common::forgotten_pending_slice_untouched(&cpu())
}

#[test]
fn forgotten_running_then_reuse() -> Result<()> {
    common::forgotten_running_then_reuse(&cpu())
}

#[test]
fn drop_buffer_after_forgotten_running() -> Result<()> {
    common::drop_buffer_after_forgotten_running(&cpu())
}

#[test]
fn copies_with_regions() -> Result<()> {
    common::copies_with_regions(&cpu())
}

#[test]
fn bad_copies_touch_nothing() -> Result<()> {
    common::bad_copies_touch_nothing(&cpu())
}

#[test]
fn faults_and_launch_errors() -> Result<()> {
    common::faults_and_launch_errors(&cpu())
}

#[test]
fn raw_faults_wait_for_their_stream() -> Result<()> {
    common::raw_faults_wait_for_their_stream(&cpu())
}

#[test]
fn call_faults_stay_with_their_call() -> Result<()> {
    common::call_faults_stay_with_their_call(&cpu())
}

#[test]
fn scalar_parameters() -> Result<()> {
    common::scalar_parameters(&cpu())
}

#[test]
fn program_from_eight_threads() -> Result<()> {
    common::program_from_eight_threads(&cpu())
}

#[test]
fn running_counts() -> Result<()> {
    common::running_counts(&cpu())
}

#[test]
fn out_of_memory_is_an_error() -> Result<()> {
    common::out_of_memory_is_an_error(&cpu())
}

#[test]
fn timing_events() -> Result<()> {
    common::timing_events(&cpu())
}

#[test]
fn module_cache() -> Result<()> {
    common::module_cache(&cpu())
}

#[test]
fn two_programs_share_a_buffer() -> Result<()> {
    common::two_programs_share_a_buffer(&cpu())
}

#[test]
fn explicit_events() -> Result<()> {
    common::explicit_events(&cpu())
}

#[test]
fn device_synchronize() -> Result<()> {
    common::device_synchronize(&cpu())
}

#[test]
fn host_buffer_source_waits() -> Result<()> {
    common::host_buffer_source_waits(&cpu())
}

#[test]
fn default_stream_program() -> Result<()> {
    common::default_stream_program(&cpu())
}

#[test]
fn random_ops_match_sequential_model() -> Result<()> {
    let dev = cpu();
    for seed in 0..6 {
        common::random_ops_match_sequential_model(&dev, seed)?;
    }
    Ok(())
}

/// Without libcuda (or without a GPU), `Device::gpu` is an error, not a
/// panic. With a GPU present the test skips with a printed line (the GPU
/// tests in gpu_runtime.rs then run); with SDFG_REQUIRE_GPU=1 a missing GPU
/// fails it.
#[test]
fn gpu_without_cuda_is_an_error() {
    let required = std::env::var("SDFG_REQUIRE_GPU").as_deref() == Ok("1");
    match Device::gpu(0) {
        Err(e) => {
            assert!(
                !required,
                "SDFG_REQUIRE_GPU=1 but Device::gpu(0) failed: {e}"
            );
            assert!(
                matches!(e, Error::NoCuda { .. } | Error::Driver { .. }),
                "{e}"
            );
            println!("as expected, no gpu: {e}");
            assert!(!Device::auto().is_gpu());
            assert!(Device::gpu(usize::MAX).is_err());
        }
        Ok(dev) => {
            // Still an error, not a panic, for an ordinal that does not exist.
            assert!(matches!(Device::gpu(1 << 20), Err(Error::NoCuda { .. })));
            println!("skipped: a gpu is present ({})", dev.name());
        }
    }
}

/// WCR cells under rayon contention: exact integer sums.
#[test]
fn wcr_sum_under_contention() {
    use rayon::prelude::*;
    let mut total = [0i64; 1];
    let mut total_u32 = [0u32; 1];
    let mut maximum = [i32::MIN; 1];
    {
        let t = cells(&mut total);
        let u = cells(&mut total_u32);
        let m = cells(&mut maximum);
        (1..=1_000_000i64).into_par_iter().for_each(|i| {
            i64::reduce_sum(&t[0], i);
            u32::reduce_sum(&u[0], i as u32);
            i32::reduce_max(&m[0], (i % 777) as i32);
        });
    }
    assert_eq!(total[0], 500_000_500_000);
    assert_eq!(total_u32[0], (500_000_500_000u64 % (1 << 32)) as u32);
    assert_eq!(maximum[0], 776);
}

/// A racy parallel write through cells is well defined (one of the values wins).
#[test]
fn racy_map_write_through_cells() {
    use rayon::prelude::*;
    let mut x = vec![0i32; 4];
    {
        let c = cells(&mut x);
        (0..100_000)
            .into_par_iter()
            .for_each(|i| i32::store(&c[0], i));
    }
    assert!((0..100_000).contains(&x[0]));
}

/// A CPU twin that panics (a code-generator bug) is reported, and the stream
/// keeps working.
#[test]
fn cpu_kernel_panic_is_reported() -> Result<()> {
    fn wrong_type(args: &KernelArgs<'_>) {
        let _ = args.cells::<f32>(0);
    }
    static K: [KernelEntry; 1] = [KernelEntry {
        name: "wrong_type",
        cpu: wrong_type,
    }];
    let dev = cpu();
    // SAFETY (load and launch): a CPU device runs only the CPU twin.
    let m = unsafe { Module::load(&dev, "panicky", &K) }?;
    let s = dev.new_stream()?;
    let x = DeviceBuffer::<i32>::zeros(&dev, 1)?;
    unsafe { s.launch(&m, 0, &common::single_thread(), &[KernelArg::read(&x)]) }?;
    match s.synchronize() {
        Err(Error::KernelPanicked { kernel, message }) => {
            assert_eq!(kernel, "wrong_type");
            assert!(
                message.contains("buffer of i32") && message.contains("f32"),
                "{message}"
            );
        }
        other => panic!("expected KernelPanicked, got {other:?}"),
    }
    s.synchronize()?;
    Ok(())
}

/// A panic of a program call's twin belongs to the call: its `wait()`
/// reports it, the stream's `synchronize()` does not.
#[test]
fn cpu_kernel_panic_in_a_call_is_the_calls() -> Result<()> {
    fn wrong_type(args: &KernelArgs<'_>) {
        let _ = args.cells::<f32>(0);
    }
    static K: [KernelEntry; 1] = [KernelEntry {
        name: "wrong_type",
        cpu: wrong_type,
    }];
    // SAFETY: a CPU device runs only the CPU twin.
    static SPEC: ProgramSpec =
        unsafe { ProgramSpec::new("panicky", "", &K, StreamSpec::Created(1)) };
    let dev = cpu();
    let program = unsafe { Program::load(&dev, &SPEC) }?;
    let x = DeviceBuffer::<i32>::zeros(&dev, 1)?;
    let call = program.context()?;
    let stream = call.stream(0).clone();
    let args = [KernelArg::read(&x), call.fault_arg()];
    // SAFETY: as above.
    unsafe { stream.launch(program.module(), 0, &common::single_thread(), &args) }?;
    stream.synchronize()?;
    match call.finish(std::marker::PhantomData).wait() {
        Err(Error::KernelPanicked { kernel, .. }) => assert_eq!(kernel, "wrong_type"),
        other => panic!("expected the call's KernelPanicked, got {other:?}"),
    }
    program.context()?.finish(std::marker::PhantomData).wait()?;
    Ok(())
}

/// Work really runs asynchronously on a CPU stream: launch returns at once.
#[test]
fn cpu_streams_are_asynchronous() -> Result<()> {
    let dev = cpu();
    let m = common::module(&dev);
    let s = dev.new_stream()?;
    let buf = DeviceBuffer::<i32>::zeros(&dev, 1)?;
    let t = std::time::Instant::now();
    common::launch_slow_fill(&s, &m, &buf, 1)?;
    assert!(t.elapsed().as_millis() < (common::SLOW_NS / 2_000_000) as u128);
    s.synchronize()?;
    assert!(t.elapsed().as_nanos() >= common::SLOW_NS as u128);
    Ok(())
}

/// Memory accounting of the CPU device.
#[test]
fn memory_in_use_counts_live_buffers() -> Result<()> {
    let dev = cpu();
    let a = DeviceBuffer::<u32>::zeros(&dev, 256)?;
    let b = DeviceBuffer::<f64>::zeros(&dev, 10)?;
    assert_eq!(dev.memory_in_use()?, 256 * 4 + 80);
    drop(a);
    assert_eq!(dev.memory_in_use()?, 80);
    drop(b);
    assert_eq!(dev.memory_in_use()?, 0);
    Ok(())
}

/// Pending and Running are Send; the devices and buffers are Send + Sync.
#[test]
fn thread_safety_of_types() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<Device>();
    send_sync::<Stream>();
    send_sync::<DeviceBuffer<f32>>();
    send_sync::<HostBuffer<bool>>();
    send_sync::<Program>();
    send_sync::<Module>();
    send::<Pending<HostBuffer<i32>>>();
    send::<Pending<&mut [i32]>>();
    send::<Running<'static>>();
}
