//! Scenarios shared by the CPU and GPU runtime tests: each runs unchanged
//! on either device, with the test kernels of `kernels.rs`.
#![allow(dead_code)]

mod kernels;

pub use kernels::*;
use sdfg_runtime::__glue::Program;
use sdfg_runtime::*;
use sdfg_testkit::rng::Rng;
use std::marker::PhantomData;

// ---------------------------------------------------------------- scenarios

/// A slow kernel writes on stream A; a copy on stream B reads the same
/// buffer: the tracker orders it with exactly one event wait.
pub fn cross_stream_read_after_write(dev: &Device) -> Result<()> {
    let m = module(dev);
    let (a, b) = (dev.new_stream()?, dev.new_stream()?);
    let buf = DeviceBuffer::<i32>::zeros(dev, 1000)?;
    let before = dev.counters();
    launch_slow_fill(&a, &m, &buf, 42)?;
    let host = b
        .copy_to_host(
            &buf,
            &whole(&buf),
            HostBuffer::new(dev, 1000)?,
            &whole(&buf),
        )?
        .wait()?;
    assert!(
        host.as_slice().iter().all(|&v| v == 42),
        "the copy saw {:?}",
        &host.as_slice()[..4]
    );
    let d = dev.counters() - before;
    assert_eq!(d.event_waits, 1, "{d:?}");
    assert_eq!(d.event_records, 1, "{d:?}");
    assert_eq!(d.host_syncs, 1, "{d:?}");
    assert_eq!((d.kernel_launches, d.copies), (1, 1), "{d:?}");
    Ok(())
}

/// As above, but stream A is synchronized first: no event is needed.
pub fn cross_stream_after_host_sync(dev: &Device) -> Result<()> {
    let m = module(dev);
    let (a, b) = (dev.new_stream()?, dev.new_stream()?);
    let buf = DeviceBuffer::<i32>::zeros(dev, 1000)?;
    let before = dev.counters();
    launch_slow_fill(&a, &m, &buf, 5)?;
    a.synchronize()?;
    let mut out = vec![0; 1000];
    b.copy_to_slice(&buf, &whole(&buf), &mut out, &Region::whole(1000))?
        .wait()?;
    assert!(out.iter().all(|&v| v == 5));
    let d = dev.counters() - before;
    assert_eq!(d.event_waits, 0, "{d:?}");
    assert_eq!(d.event_records, 0, "{d:?}");
    assert_eq!(d.host_syncs, 2, "{d:?}");
    Ok(())
}

/// Write-after-read: a slow kernel on A reads `src`; B overwrites `src` at
/// once. B must wait, so the kernel copies the old contents.
pub fn cross_stream_write_after_read(dev: &Device) -> Result<()> {
    let m = module(dev);
    let (a, b) = (dev.new_stream()?, dev.new_stream()?);
    let src = DeviceBuffer::from_slice(dev, &[1i32; 64])?;
    let dst = DeviceBuffer::<i32>::zeros(dev, 64)?;
    let before = dev.counters();
    // SAFETY: the parameters of the entry in ptx.ptx, `len` within the buffers.
    unsafe {
        a.launch(
            &m,
            SLOW_COPY,
            &single_thread(),
            &[
                KernelArg::read(&src),
                KernelArg::write(&dst),
                KernelArg::value(64u64),
                KernelArg::value(SLOW_NS),
            ],
        )
    }?;
    b.copy_to_device(
        &[2i32; 64][..],
        &Region::whole(64),
        &src,
        &Region::whole(64),
    )?;
    assert_eq!(dst.to_vec()?, [1; 64]);
    assert_eq!(src.to_vec()?, [2; 64]);
    let d = dev.counters() - before;
    // b waits for a (WAR); to_vec on the default stream waits for a (dst)
    // and for b (src).
    assert_eq!(d.event_waits, 3, "{d:?}");
    Ok(())
}

/// The negative control: reading the destination of a copy before `wait`
/// sees the stale value, `wait` sees the new one.
pub fn unsynchronized_read_sees_stale_data(dev: &Device) -> Result<()> {
    let m = module(dev);
    let s = dev.new_stream()?;
    let buf = DeviceBuffer::<i32>::zeros(dev, 16)?;
    let host = HostBuffer::from_slice(dev, &[-1i32; 16])?;
    launch_slow_fill(&s, &m, &buf, 99)?;
    let pending = s.copy_to_host(&buf, &whole(&buf), host, &whole(&buf))?;
    // SAFETY: a deliberate racy read for this negative control; on the CPU
    // device it is atomic, on CUDA it is a volatile read of pinned memory.
    let early = unsafe { pending.peek_unsynchronized() };
    assert_eq!(early, [-1; 16], "the read before wait should be stale");
    let host = pending.wait()?;
    assert_eq!(host.as_slice(), [99; 16]);
    Ok(())
}

/// A forgotten `Pending` of `copy_to_host_buffer`: the host buffer's tracker
/// makes the next host access wait.
pub fn forgotten_pending_host_buffer(dev: &Device) -> Result<()> {
    let m = module(dev);
    let s = dev.new_stream()?;
    let buf = DeviceBuffer::<i32>::zeros(dev, 32)?;
    let mut host = HostBuffer::<i32>::new(dev, 32)?;
    launch_slow_fill(&s, &m, &buf, 7)?;
    std::mem::forget(s.copy_to_host_buffer(&buf, &whole(&buf), &mut host, &whole(&buf))?);
    let before = dev.counters();
    assert_eq!(host.as_slice(), [7; 32]);
    assert_eq!((dev.counters() - before).host_syncs, 1);
    // Known finished now: a second read does not wait.
    assert_eq!(host.as_mut_slice()[0], 7);
    assert_eq!((dev.counters() - before).host_syncs, 1);
    Ok(())
}

/// A forgotten `Pending` of `copy_to_slice` leaves the slice untouched.
pub fn forgotten_pending_slice_untouched(dev: &Device) -> Result<()> {
    let s = dev.new_stream()?;
    let buf = DeviceBuffer::from_slice(dev, &[3i32; 8])?;
    let mut out = vec![0i32; 8];
    std::mem::forget(s.copy_to_slice(&buf, &whole(&buf), &mut out, &Region::whole(8))?);
    s.synchronize()?;
    assert_eq!(out, [0; 8]);
    Ok(())
}

/// A forgotten `Running`: later uses of its buffers are still ordered.
pub fn forgotten_running_then_reuse(dev: &Device) -> Result<()> {
    // SAFETY: the specs use the test module (see `module`).
    let program = unsafe { Program::load(dev, &SPEC_TWO_STREAMS) }?;
    let buf = DeviceBuffer::<i32>::zeros(dev, 100)?;
    let other = dev.new_stream()?;
    let before = dev.counters();
    {
        let ctx = program.context()?;
        launch_slow_fill(ctx.stream(0), program.module(), &buf, 11)?;
        std::mem::forget(ctx.finish(PhantomData));
    }
    launch_add_one(&other, program.module(), &buf)?;
    let mut out = vec![0; 100];
    other
        .copy_to_slice(&buf, &whole(&buf), &mut out, &Region::whole(100))?
        .wait()?;
    assert_eq!(out, [12; 100]);
    let d = dev.counters() - before;
    assert_eq!(d.event_waits, 1, "{d:?}");
    Ok(())
}

/// Dropping a buffer right after forgetting the `Running` that writes it.
pub fn drop_buffer_after_forgotten_running(dev: &Device) -> Result<()> {
    // SAFETY: the specs use the test module (see `module`).
    let program = unsafe { Program::load(dev, &SPEC_TWO_STREAMS) }?;
    let baseline = dev.memory_in_use()?;
    {
        let buf = DeviceBuffer::<i32>::zeros(dev, 1 << 20)?;
        let ctx = program.context()?;
        launch_slow_fill(ctx.stream(1), program.module(), &buf, 1)?;
        std::mem::forget(ctx.finish(PhantomData));
        drop(buf); // must not free memory the kernel still writes
    }
    dev.synchronize()?;
    if !dev.is_gpu() {
        assert_eq!(dev.memory_in_use()?, baseline);
    }
    // The device keeps working.
    let b = DeviceBuffer::from_slice(dev, &[1i32, 2])?;
    assert_eq!(b.to_vec()?, [1, 2]);
    Ok(())
}

/// Copies in every direction with 2-D sub-blocks.
pub fn copies_with_regions(dev: &Device) -> Result<()> {
    let s = dev.new_stream()?;
    // A 4 x 6 host matrix, values r*10 + c.
    let host: Vec<i64> = (0..24).map(|i| (i / 6) * 10 + i % 6).collect();
    // H2D: rows 1..3, cols 2..5 (2 x 3) -> a 3 x 5 device matrix at (1, 1).
    let d = DeviceBuffer::<i64>::zeros(dev, 15)?;
    s.copy_to_device(
        &host,
        &Region::new(6 + 2, vec![(2, 6), (3, 1)]),
        &d,
        &Region::new(5 + 1, vec![(2, 5), (3, 1)]),
    )?;
    let mut expect = vec![0i64; 15];
    for r in 0..2 {
        for c in 0..3 {
            expect[(r + 1) * 5 + (c + 1)] = host[(r + 1) * 6 + (c + 2)];
        }
    }
    assert_eq!(d.to_vec()?, expect);
    // D2D: column 1 of d (3 x 1, stride 5) -> contiguous e[2..5].
    let e = DeviceBuffer::<i64>::zeros(dev, 6)?;
    s.copy_device(
        &d,
        &Region::new(1, vec![(3, 5), (1, 1)]),
        &e,
        &Region::new(2, vec![(3, 1)]),
    )?;
    assert_eq!(e.to_vec()?, [0, 0, expect[1], expect[6], expect[11], 0]);
    // D2H into a HostBuffer sub-block: d's 2 x 3 block -> 2 x 3 block of a 3 x 4 buffer at (1, 1).
    let h = HostBuffer::<i64>::from_slice(dev, &[-1; 12])?;
    let h = s
        .copy_to_host(
            &d,
            &Region::new(6, vec![(2, 5), (3, 1)]),
            h,
            &Region::new(5, vec![(2, 4), (3, 1)]),
        )?
        .wait()?;
    let mut expect_h = vec![-1i64; 12];
    for r in 0..2 {
        for c in 0..3 {
            expect_h[(r + 1) * 4 + (c + 1)] = expect[(r + 1) * 5 + (c + 1)];
        }
    }
    assert_eq!(h.as_slice(), expect_h);
    // D2H into a slice sub-block (3-D: 2 x 2 x 2 of a 2 x 3 x 4 array).
    let src: Vec<i64> = (0..24).collect();
    let big = DeviceBuffer::from_slice(dev, &src)?;
    let mut out = vec![0i64; 8];
    s.copy_to_slice(
        &big,
        &Region::new(4 + 1, vec![(2, 12), (2, 4), (2, 1)]), // starts at (0, 1, 1)
        &mut out,
        &Region::whole(8),
    )?
    .wait()?;
    assert_eq!(out, [5, 6, 9, 10, 17, 18, 21, 22]);
    // And into a borrowed HostBuffer.
    let mut hb = HostBuffer::<i64>::new(dev, 4)?;
    s.copy_to_host_buffer(
        &big,
        &Region::new(20, vec![(4, 1)]),
        &mut hb,
        &Region::whole(4),
    )?
    .wait()?;
    assert_eq!(hb.as_slice(), [20, 21, 22, 23]);
    Ok(())
}

/// Bad regions, lengths and devices are errors, and nothing is issued.
pub fn bad_copies_touch_nothing(dev: &Device) -> Result<()> {
    let s = dev.new_stream()?;
    let d = DeviceBuffer::from_slice(dev, &[1i32, 2, 3, 4])?;
    let before = dev.counters();
    let e = s.copy_to_device(
        &[9i32; 4][..],
        &Region::whole(4),
        &d,
        &Region::new(1, vec![(4, 1)]),
    );
    assert!(matches!(e, Err(Error::OutOfBounds { .. })), "{e:?}");
    let e = s.copy_to_device(&[9i32; 3][..], &Region::whole(3), &d, &Region::whole(4));
    assert!(matches!(e, Err(Error::LengthMismatch { .. })), "{e:?}");
    let e = s.copy_to_device(&[9i32; 3][..], &Region::whole(4), &d, &Region::whole(4));
    assert!(matches!(e, Err(Error::OutOfBounds { .. })), "{e:?}");
    let e = s.copy_to_device(
        &[9i32; 4][..],
        &Region::new(0, vec![(2, 1), (2, 2)]),
        &d,
        &Region::whole(4),
    );
    assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
    let e = s.copy_device(
        &d,
        &Region::new(0, vec![(2, 1)]),
        &d,
        &Region::new(1, vec![(2, 1)]),
    );
    assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
    let mut small = [0i32; 2];
    let e = s.copy_to_slice(&d, &Region::whole(4), &mut small, &Region::whole(4));
    assert!(matches!(e, Err(Error::OutOfBounds { .. })), "{e:?}");
    drop(e);
    assert_eq!(small, [0, 0]);
    let h = HostBuffer::<i32>::new(dev, 2)?;
    let e = s.copy_to_host(&d, &Region::whole(4), h, &Region::whole(2));
    assert!(matches!(e, Err(Error::LengthMismatch { .. })), "{e:?}");
    // A buffer of another device.
    let other = Device::cpu();
    let foreign = DeviceBuffer::<i32>::zeros(&other, 4)?;
    let e = s.copy_device(&foreign, &Region::whole(4), &d, &Region::whole(4));
    assert!(matches!(e, Err(Error::WrongDevice { .. })), "{e:?}");
    let d2 = dev.counters() - before;
    assert_eq!(d2, Counters::default(), "nothing may be issued: {d2:?}");
    assert_eq!(d.to_vec()?, [1, 2, 3, 4]);
    // Within one buffer, disjoint regions are fine.
    s.copy_device(
        &d,
        &Region::new(0, vec![(2, 1)]),
        &d,
        &Region::new(2, vec![(2, 1)]),
    )?;
    assert_eq!(d.to_vec()?, [1, 2, 1, 2]);
    Ok(())
}

/// Kernel faults are reported once at the next sync; launch errors issue nothing.
pub fn faults_and_launch_errors(dev: &Device) -> Result<()> {
    let m = module(dev);
    let s = dev.new_stream()?;
    let x = DeviceBuffer::<i32>::zeros(dev, 4)?;
    let store = |index: u64| {
        // SAFETY: the parameters of the entry in ptx.ptx, `len` within the buffers.
        unsafe {
            s.launch(
                &m,
                CHECKED_STORE,
                &single_thread(),
                &[
                    KernelArg::write(&x),
                    KernelArg::value(4u64),
                    KernelArg::value(index),
                    KernelArg::value(5u32),
                    KernelArg::fault(),
                ],
            )
        }
    };
    store(2)?;
    s.synchronize()?;
    store(9)?;
    match s.synchronize() {
        Err(Error::KernelFault { kernel, code, site }) => {
            assert_eq!((code, site), (7, None));
            assert!(kernel.contains("checked_store"), "{kernel}");
        }
        other => panic!("expected a kernel fault, got {other:?}"),
    }
    s.synchronize()?; // reported once
    assert_eq!(x.to_vec()?, [0, 0, 5, 0]);

    let before = dev.counters();
    let bad_block = LaunchConfig {
        grid: [1, 1, 1],
        block: [2048, 1, 1],
        shared_bytes: 0,
    };
    assert!(matches!(
        // SAFETY: refused before anything is issued.
        unsafe { s.launch(&m, ADD_ONE, &bad_block, &[]) },
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        // SAFETY: refused before anything is issued.
        unsafe { s.launch(&m, 99, &single_thread(), &[]) },
        Err(Error::InvalidArgument(_))
    ));
    let empty = LaunchConfig::for_counts(dev, &[0], [128, 1, 1], 1);
    // SAFETY: the parameters of the entry in ptx.ptx, `len` within the buffers.
    unsafe {
        s.launch(
            &m,
            ADD_ONE,
            &empty,
            &[KernelArg::read_write(&x), KernelArg::value(0u64)],
        )
    }?;
    assert_eq!(dev.counters() - before, Counters::default());
    Ok(())
}

/// A raw kernel's fault waits for its stream's `synchronize()`: a
/// download, a pending copy, an event and a program call on the same
/// stream in between all return `Ok` and leave it there.
pub fn raw_faults_wait_for_their_stream(dev: &Device) -> Result<()> {
    let m = module(dev);
    let s = dev.default_stream();
    let x = DeviceBuffer::<i32>::zeros(dev, 4)?;
    // SAFETY: the parameters of the entry in ptx.ptx, `len` within the buffers.
    unsafe {
        s.launch(
            &m,
            CHECKED_STORE,
            &single_thread(),
            &[
                KernelArg::write(&x),
                KernelArg::value(4u64),
                KernelArg::value(9u64),
                KernelArg::value(5u32),
                KernelArg::fault(),
            ],
        )
    }?;
    assert_eq!(
        x.to_vec()?,
        [0; 4],
        "an unrelated download is not the fault's caller"
    );
    let mut out = [0i32; 4];
    s.copy_to_slice(&x, &whole(&x), &mut out[..], &Region::whole(4))?
        .wait()?;
    s.record_event()?.synchronize()?;
    let program = unsafe { Program::load(dev, &SPEC_SITES_DEFAULT) }?;
    let call = program.context()?;
    launch_site_store(call.stream(0), program.module(), &x, 1, 3, call.fault_arg())?;
    call.finish(PhantomData).wait()?;
    match s.synchronize() {
        Err(Error::KernelFault {
            kernel,
            code: 7,
            site: None,
        }) => {
            assert!(kernel.contains("checked_store"), "{kernel}")
        }
        other => panic!("expected the raw fault at the stream sync, got {other:?}"),
    }
    s.synchronize()?;
    assert_eq!(x.to_vec()?, [0, 3, 0, 0]);
    Ok(())
}

/// Each program call has its own fault slot: of two concurrent calls (on
/// created streams, and both on the one default stream), only the faulty
/// one reports, with the site its program describes; nothing else sees it,
/// and the context's next call starts clean.
pub fn call_faults_stay_with_their_call(dev: &Device) -> Result<()> {
    for spec in [&SPEC_SITES, &SPEC_SITES_DEFAULT] {
        let program = unsafe { Program::load(dev, spec) }?;
        let other = unsafe { Program::load(dev, &SPEC_OTHER) }?;
        let x = DeviceBuffer::<i32>::zeros(dev, 4)?;
        let y = DeviceBuffer::<i32>::zeros(dev, 4)?;
        let faulty = program.context()?;
        let fine = program.context()?;
        launch_slow_fill(faulty.stream(0), program.module(), &x, 1)?;
        launch_site_store(
            faulty.stream(0),
            program.module(),
            &x,
            9,
            5,
            faulty.fault_arg(),
        )?;
        launch_site_store(
            faulty.stream(0),
            program.module(),
            &x,
            10,
            5,
            faulty.fault_arg(),
        )?;
        launch_site_store(fine.stream(0), program.module(), &y, 2, 6, fine.fault_arg())?;
        let (faulty, fine) = (faulty.finish(PhantomData), fine.finish(PhantomData));
        fine.wait()?;
        let third = other.context()?;
        launch_add_one(third.stream(0), other.module(), &y)?;
        third.finish(PhantomData).wait()?;
        assert_eq!(y.to_vec()?, [1, 1, 7, 1]);
        dev.synchronize()?;
        match faulty.wait() {
            Err(e @ Error::KernelFault { .. }) => {
                let Error::KernelFault { kernel, code, site } = &e else {
                    unreachable!()
                };
                assert_eq!((kernel.as_str(), *code), ("site_store", 1));
                let site = site.as_deref().expect("the program describes its sites");
                assert_eq!(
                    *site,
                    FaultSite::new("scatter", "s", "A", true, 1, 9),
                    "the first fault wins"
                );
                assert_eq!(
                    e.to_string(),
                    "map `scatter` in state `s`: the write to `A` at index 9 was out of \
                     bounds and skipped (kernel `site_store`)"
                );
            }
            other => panic!("expected the call's fault, got {other:?}"),
        }
        assert_eq!(x.to_vec()?, [1; 4]);
        // The pooled context starts its next call with an empty slot.
        let again = program.context()?;
        launch_site_store(
            again.stream(0),
            program.module(),
            &x,
            0,
            8,
            again.fault_arg(),
        )?;
        again.finish(PhantomData).wait()?;
        dev.synchronize()?;
        assert_eq!(x.to_vec()?, [8, 1, 1, 1]);
    }
    Ok(())
}

/// f64 and bool scalar parameters.
pub fn scalar_parameters(dev: &Device) -> Result<()> {
    let m = module(dev);
    let s = dev.default_stream();
    let x = DeviceBuffer::from_slice(dev, &[1.0f64, 2.0, 3.0])?;
    let y = DeviceBuffer::from_slice(dev, &[10.0f64, 20.0, 30.0])?;
    let config = LaunchConfig::for_counts(dev, &[3], [64, 1, 1], 1);
    for flag in [false, true] {
        // SAFETY: the parameters of the entry in ptx.ptx, `len` within the buffers.
        unsafe {
            s.launch(
                &m,
                AXPY_IF,
                &config,
                &[
                    KernelArg::read_write(&y),
                    KernelArg::read(&x),
                    KernelArg::value(3u64),
                    KernelArg::value(2.0f64),
                    KernelArg::value(flag),
                ],
            )
        }?;
    }
    assert_eq!(y.to_vec()?, [12.0, 24.0, 36.0]);
    Ok(())
}

/// One program, eight threads, each with its own arguments and context.
pub fn program_from_eight_threads(dev: &Device) -> Result<()> {
    // SAFETY: the specs use the test module (see `module`).
    let program = unsafe { Program::load(dev, &SPEC_TWO_STREAMS) }?;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let program = &program;
                scope.spawn(move || -> Result<()> {
                    for round in 0..5 {
                        let data = DeviceBuffer::from_slice(
                            program.device(),
                            &vec![t * 100 + round; 1000],
                        )?;
                        let mut out = vec![0i32; 1000];
                        let ctx = program.context()?;
                        launch_add_one(ctx.stream(0), program.module(), &data)?;
                        // stream 1 reads what stream 0 wrote: ordered by an event.
                        let pending = ctx.stream(1).copy_to_slice(
                            &data,
                            &whole(&data),
                            &mut out,
                            &Region::whole(1000),
                        )?;
                        let running = ctx.finish(PhantomData);
                        running.wait()?;
                        pending.wait()?;
                        assert!(out.iter().all(|&v| v == t * 100 + round + 1));
                    }
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .try_for_each(|h| h.join().expect("worker thread panicked"))
    })?;
    // Contexts are pooled: a sequential call reuses one.
    let first = program.context()?.stream(0).clone();
    let again = program.context()?.stream(0).clone();
    assert_eq!(first, again);
    Ok(())
}

/// Running::wait counts one host sync per stream with outstanding work.
pub fn running_counts(dev: &Device) -> Result<()> {
    // SAFETY: the specs use the test module (see `module`).
    let program = unsafe { Program::load(dev, &SPEC_TWO_STREAMS) }?;
    let buf = DeviceBuffer::<i32>::zeros(dev, 10)?;
    {
        // Warm the pool so the counts below do not include setup.
        program.context()?.finish(PhantomData).wait()?;
    }
    let before = dev.counters();
    let ctx = program.context()?;
    launch_add_one(ctx.stream(0), program.module(), &buf)?;
    ctx.finish(PhantomData).wait()?;
    let d = dev.counters() - before;
    assert_eq!((d.host_syncs, d.kernel_launches), (1, 1), "{d:?}");
    let before = dev.counters();
    let ctx = program.context()?;
    launch_add_one(ctx.stream(0), program.module(), &buf)?;
    launch_add_one(ctx.stream(1), program.module(), &buf)?;
    ctx.finish(PhantomData).wait()?;
    let d = dev.counters() - before;
    assert_eq!(
        (d.host_syncs, d.event_waits, d.event_records),
        (2, 1, 1),
        "{d:?}"
    );
    assert_eq!(buf.to_vec()?, [3; 10]);
    // On a caller's stream.
    let mine = dev.new_stream()?;
    let before = dev.counters();
    let ctx = program.context_on(&mine)?;
    launch_add_one(ctx.stream(0), program.module(), &buf)?;
    launch_add_one(ctx.stream(1), program.module(), &buf)?;
    ctx.finish(PhantomData).wait()?;
    let d = dev.counters() - before;
    // One stream: the buffer's last use was on the default stream (to_vec),
    // which the host knows finished, so no event.
    assert_eq!((d.host_syncs, d.event_waits), (1, 0), "{d:?}");
    assert_eq!(buf.to_vec()?, [5; 10]);
    Ok(())
}

/// Out of memory is an error and the device keeps working.
pub fn out_of_memory_is_an_error(dev: &Device) -> Result<()> {
    let huge = DeviceBuffer::<f64>::zeros(dev, 1 << 50);
    assert!(matches!(huge, Err(Error::OutOfMemory { .. })), "{huge:?}");
    let overflow = DeviceBuffer::<f64>::zeros(dev, usize::MAX);
    assert!(
        matches!(overflow, Err(Error::OutOfMemory { .. })),
        "{overflow:?}"
    );
    let host = HostBuffer::<f64>::new(dev, 1 << 50);
    assert!(matches!(host, Err(Error::OutOfMemory { .. })), "{host:?}");
    let b = DeviceBuffer::from_slice(dev, &[1.0f64])?;
    assert_eq!(b.to_vec()?, [1.0]);
    Ok(())
}

/// Timing events measure the slow kernel.
pub fn timing_events(dev: &Device) -> Result<()> {
    let m = module(dev);
    let s = dev.new_stream()?;
    let buf = DeviceBuffer::<i32>::zeros(dev, 1)?;
    let start = s.record_timing_event()?;
    launch_slow_fill(&s, &m, &buf, 1)?;
    let end = s.record_timing_event()?;
    end.synchronize()?;
    let ms = Event::elapsed_ms(&start, &end)?;
    assert!(ms >= (SLOW_NS / 1_000_000) as f32 * 0.9, "{ms} ms");
    Ok(())
}

/// The module cache: one load per device and PTX.
pub fn module_cache(dev: &Device) -> Result<()> {
    // SAFETY: as in `module`.
    let a = unsafe { Module::load(dev, PTX, &KERNELS) }?;
    // SAFETY: the specs use the test module (see `module`).
    let b = unsafe { Program::load(dev, &SPEC_DEFAULT) }?;
    assert!(std::sync::Arc::ptr_eq(&a, b.module()));
    Ok(())
}

/// Two different programs share a buffer: the second one's use is ordered
/// after the first one's (still running) write by one event.
pub fn two_programs_share_a_buffer(dev: &Device) -> Result<()> {
    // SAFETY: the specs use the test module (see `module`).
    let first = unsafe { Program::load(dev, &SPEC_TWO_STREAMS) }?;
    // SAFETY: the specs use the test module (see `module`).
    let second = unsafe { Program::load(dev, &SPEC_OTHER) }?;
    let shared = DeviceBuffer::<i32>::zeros(dev, 256)?;
    let before = dev.counters();
    let ctx = first.context()?;
    launch_slow_fill(ctx.stream(1), first.module(), &shared, 20)?;
    let running_first = ctx.finish(PhantomData);
    let ctx = second.context()?;
    launch_add_one(ctx.stream(0), second.module(), &shared)?;
    let running_second = ctx.finish(PhantomData);
    running_second.wait()?;
    running_first.wait()?;
    let d = dev.counters() - before;
    assert_eq!((d.event_waits, d.event_records), (1, 1), "{d:?}");
    assert_eq!(shared.to_vec()?, [21; 256]);
    Ok(())
}

/// Explicit events order two streams without the host.
pub fn explicit_events(dev: &Device) -> Result<()> {
    let m = module(dev);
    let (a, b) = (dev.new_stream()?, dev.new_stream()?);
    let buf = DeviceBuffer::<i32>::zeros(dev, 8)?;
    let out = DeviceBuffer::<i32>::zeros(dev, 8)?;
    launch_slow_fill(&a, &m, &buf, 3)?;
    let done = a.record_event()?;
    b.wait_event(&done)?;
    // Same-stream waits are free.
    a.wait_event(&done)?;
    let before = dev.counters();
    // The tracker sees that b already waits for a's work: no second event.
    b.copy_device(&buf, &whole(&buf), &out, &whole(&out))?;
    let d = dev.counters() - before;
    assert_eq!((d.event_waits, d.event_records), (0, 0), "{d:?}");
    assert_eq!(out.to_vec()?, [3; 8]);
    // An event of another device is rejected.
    let other = Device::cpu();
    let foreign = other.default_stream().record_event()?;
    assert!(matches!(
        b.wait_event(&foreign),
        Err(Error::WrongDevice { .. })
    ));
    Ok(())
}

/// `Device::synchronize` waits for every stream with outstanding work.
pub fn device_synchronize(dev: &Device) -> Result<()> {
    let m = module(dev);
    let (a, b) = (dev.new_stream()?, dev.new_stream()?);
    let x = DeviceBuffer::<i32>::zeros(dev, 4)?;
    let y = DeviceBuffer::<i32>::zeros(dev, 4)?;
    launch_slow_fill(&a, &m, &x, 1)?;
    launch_slow_fill(&b, &m, &y, 2)?;
    let before = dev.counters();
    dev.synchronize()?;
    assert_eq!((dev.counters() - before).host_syncs, 2);
    dev.synchronize()?;
    assert_eq!((dev.counters() - before).host_syncs, 2);
    Ok(())
}

/// A host buffer still written by a forgotten copy is waited for before it
/// is read as the source of an upload.
pub fn host_buffer_source_waits(dev: &Device) -> Result<()> {
    let m = module(dev);
    let s = dev.new_stream()?;
    let src = DeviceBuffer::<i32>::zeros(dev, 16)?;
    let dst = DeviceBuffer::<i32>::zeros(dev, 16)?;
    let mut host = HostBuffer::<i32>::new(dev, 16)?;
    launch_slow_fill(&s, &m, &src, 8)?;
    std::mem::forget(s.copy_to_host_buffer(&src, &whole(&src), &mut host, &Region::whole(16))?);
    let t = dev.new_stream()?;
    let before = dev.counters();
    // Direct upload from the host buffer: ordered after the pending copy into
    // it by an event, not by a host wait.
    t.copy_to_device(&host, &Region::whole(16), &dst, &whole(&dst))?;
    assert_eq!(dst.to_vec()?, [8; 16]);
    let d = dev.counters() - before;
    assert_eq!((d.host_syncs, d.event_waits), (1, 2), "{d:?}");
    // The host may write the buffer again only after the upload read it.
    host.as_mut_slice()[0] = -1;
    assert_eq!(host.as_slice()[..2], [-1, 8]);
    Ok(())
}

/// A program on the default stream and on a caller's stream.
pub fn default_stream_program(dev: &Device) -> Result<()> {
    // SAFETY: the specs use the test module (see `module`).
    let program = unsafe { Program::load(dev, &SPEC_DEFAULT) }?;
    let buf = DeviceBuffer::<i32>::zeros(dev, 32)?;
    let ctx = program.context()?;
    assert_eq!(ctx.stream(0), &dev.default_stream());
    launch_add_one(ctx.stream(0), program.module(), &buf)?;
    launch_add_one(ctx.stream(1), program.module(), &buf)?;
    let before = dev.counters();
    ctx.finish(PhantomData).wait()?;
    let d = dev.counters() - before;
    assert_eq!((d.host_syncs, d.event_waits), (1, 0), "{d:?}");
    // to_vec runs on the default stream too: no event needed.
    assert_eq!(buf.to_vec()?, [2; 32]);
    assert_eq!((dev.counters() - before).event_waits, 0);
    Ok(())
}

/// Random operations on random streams give the same results as running
/// them one after another: the trackers order every conflict.
pub fn random_ops_match_sequential_model(dev: &Device, seed: u64) -> Result<()> {
    const N: usize = 64;
    const BUFFERS: usize = 3;
    let m = module(dev);
    let streams: Vec<Stream> = (0..4).map(|_| dev.new_stream()).collect::<Result<_>>()?;
    let buffers: Vec<DeviceBuffer<i32>> = (0..BUFFERS)
        .map(|_| DeviceBuffer::zeros(dev, N))
        .collect::<Result<_>>()?;
    let mut model = vec![vec![0i32; N]; BUFFERS];
    let mut downloads: Vec<(Pending<HostBuffer<i32>>, Vec<i32>)> = Vec::new();
    let mut rng = Rng::new(seed);
    let mut next = |n: u64| rng.below(n as usize) as u64;
    for step in 0..150 {
        let s = &streams[next(4) as usize];
        let b = next(BUFFERS as u64) as usize;
        match next(6) {
            0 => {
                launch_add_one(s, &m, &buffers[b])?;
                model[b].iter_mut().for_each(|v| *v += 1);
            }
            1 => {
                let value = step;
                // SAFETY: the parameters of the entry in ptx.ptx, `len` within the buffers.
                unsafe {
                    s.launch(
                        &m,
                        SLOW_FILL,
                        &single_thread(),
                        &[
                            KernelArg::write(&buffers[b]),
                            KernelArg::value(N as u64),
                            KernelArg::value(value as u32),
                            KernelArg::value(1_000_000u64 + next(3) * 1_000_000),
                        ],
                    )
                }?;
                model[b] = vec![value; N];
            }
            2 => {
                let from = (b + 1 + next(BUFFERS as u64 - 1) as usize) % BUFFERS;
                s.copy_device(
                    &buffers[from],
                    &Region::whole(N),
                    &buffers[b],
                    &Region::whole(N),
                )?;
                model[b] = model[from].clone();
            }
            3 => {
                let data: Vec<i32> = (0..N as i32).map(|i| i * step).collect();
                s.copy_to_device(&data, &Region::whole(N), &buffers[b], &Region::whole(N))?;
                model[b] = data;
            }
            4 => {
                let pending = s.copy_to_host(
                    &buffers[b],
                    &Region::whole(N),
                    HostBuffer::new(dev, N)?,
                    &Region::whole(N),
                )?;
                downloads.push((pending, model[b].clone()));
            }
            _ => {
                // Half-row shuffle inside one buffer: copy the first half onto the second.
                let half = N / 2;
                s.copy_device(
                    &buffers[b],
                    &Region::new(0, vec![(half, 1)]),
                    &buffers[b],
                    &Region::new(half, vec![(half, 1)]),
                )?;
                let first: Vec<i32> = model[b][..half].to_vec();
                model[b][half..].copy_from_slice(&first);
            }
        }
    }
    for (i, (pending, expected)) in downloads.into_iter().enumerate() {
        assert_eq!(
            pending.wait()?.as_slice(),
            expected,
            "download {i} (seed {seed})"
        );
    }
    for (b, expected) in model.iter().enumerate() {
        assert_eq!(&buffers[b].to_vec()?, expected, "buffer {b} (seed {seed})");
    }
    Ok(())
}
