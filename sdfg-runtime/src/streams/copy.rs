//! Copies: host to device, device to device, device to host (into a
//! `HostBuffer` or a borrowed slice). The public calls validate and plan;
//! one dispatch, `Stream::issue_copy`, issues every copy on either back end.

use crate::cpu::memory::{CpuCells, HeapBlock};
use crate::cuda::graph::DeviceCopy2d;
use crate::cuda::{self, CudaEvent, CudaStream, PinnedBlock, Side};
use crate::elem::Elem;
use crate::error::{Error, Result};
use crate::lock::lock;
use crate::memory::device_buffer::{DeviceBuffer, DeviceMemory};
use crate::memory::host_access::HostRead;
use crate::memory::host_buffer::{HostBuffer, HostMemory};
use crate::order::counters::CounterCells;
use crate::order::issue::Completion;
use crate::order::recording::{self, OpWork, RecordedOp};
use crate::order::stream_state::StreamBackend;
use crate::order::tracker::{AccessKind, Tracker};
use crate::region::{CopyPlan, Region};
use crate::streams::pending::{Finish, Pending};
use crate::streams::stream::Stream;
use std::sync::Arc;

/// One side of a copy, as its back end reaches it.
enum Endpoint<T: Elem> {
    /// CPU device: memory the copy job keeps alive and accesses through cells.
    Cpu(CpuMemory<T>),
    /// CUDA device: a device address or a pinned host address.
    Cuda(Side),
}

/// Memory a CPU-device copy job reads or writes.
enum CpuMemory<T: Elem> {
    /// A device buffer's cells.
    Device(Arc<CpuCells<T>>),
    /// A host buffer's block, or a runtime-owned staging block.
    Host(Arc<HeapBlock<T>>),
    /// Source values packed densely by the caller (an upload's staging).
    Packed(Box<[T::Cell]>),
}

impl<T: Elem> CpuMemory<T> {
    fn cells(&self) -> &[T::Cell] {
        match self {
            CpuMemory::Device(memory) => &memory.cells,
            // SAFETY: host code reaches a host buffer's block only through
            // its tracker-guarded accessors (or the cells of
            // `peek_unsynchronized`), and the copy is recorded in that
            // tracker when it is issued: host writes wait for it, and so do
            // host reads when it writes; a plain `&[T]` may be live only
            // while both sides merely read. A staging block is reached only
            // through cells until its `Pending` waited for the copy.
            CpuMemory::Host(block) => unsafe { block.cells() },
            CpuMemory::Packed(cells) => cells,
        }
    }
}

fn device_endpoint<T: Elem>(memory: &DeviceMemory<T>) -> Endpoint<T> {
    match memory {
        DeviceMemory::Cpu(cells) => Endpoint::Cpu(CpuMemory::Device(Arc::clone(cells))),
        DeviceMemory::Cuda(alloc) => Endpoint::Cuda(Side::Device(alloc.ptr)),
    }
}

fn host_endpoint<T: Elem>(memory: &HostMemory<T>) -> Endpoint<T> {
    match memory {
        HostMemory::Heap(block) => Endpoint::Cpu(CpuMemory::Host(Arc::clone(block))),
        HostMemory::Pinned(block, _) => Endpoint::Cuda(Side::Host(block.ptr)),
    }
}

/// What a CUDA copy does once its driver copies were accepted.
enum CudaAfter {
    /// Nothing: later work is ordered by the stream position alone.
    Nothing,
    /// Records the event that the copy's `Pending` waits on (downloads).
    CompletionEvent,
    /// Records an event and keeps the upload's staging block until it fired.
    FreeStaging(PinnedBlock),
}

/// The plan of a copy between two regions, or `None` when it moves nothing.
fn copy_plan(
    src_region: &Region,
    src_len: usize,
    dst_region: &Region,
    dst_len: usize,
) -> Result<Option<CopyPlan>> {
    let plan = CopyPlan::new(
        src_region,
        src_len,
        "source",
        dst_region,
        dst_len,
        "destination",
    )?;
    Ok((plan.count > 0).then_some(plan))
}

impl Stream {
    /// Host to device: copies `src_region` of a host container into
    /// `dst_region` of `dst`. A pageable source (slice, `Vec`) is packed into
    /// runtime-owned (pinned, on CUDA) staging memory first, so the copy is
    /// truly asynchronous and the source is free again when this returns. A
    /// `HostBuffer` of this device is copied directly (DMA from pinned
    /// memory); its tracker records the read, so host writes to it wait.
    ///
    /// ```
    /// use sdfg_runtime::{Device, DeviceBuffer, Region};
    /// let dev = Device::cpu();
    /// let buf = DeviceBuffer::<f32>::zeros(&dev, 4)?;
    /// let src = vec![1.0f32, 2.0];
    /// dev.default_stream().copy_to_device(&src, &Region::whole(2), &buf, &Region::new(2, vec![(2, 1)]))?;
    /// assert_eq!(buf.to_vec()?, [0.0, 0.0, 1.0, 2.0]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn copy_to_device<T: Elem, H: HostRead<Elem = T> + ?Sized>(
        &self,
        src: &H,
        src_region: &Region,
        dst: &DeviceBuffer<T>,
        dst_region: &Region,
    ) -> Result<()> {
        self.device
            .check_same(dst.device().id(), || "the destination buffer".to_string())?;
        if let Some(pinned) = src.as_host_buffer() {
            if pinned.device().id() == self.device.id() {
                // Direct (DMA from pinned memory on CUDA), no staging. The
                // tracker records the read, so a later host write waits, and
                // a pending device write into it is ordered before (with an
                // event, not a host wait).
                let Some(plan) = copy_plan(src_region, pinned.len(), dst_region, dst.len())? else {
                    return Ok(());
                };
                let accesses = [
                    (pinned.tracker(), AccessKind::Read),
                    (dst.tracker(), AccessKind::Write),
                ];
                let (src, dst) = (
                    host_endpoint(pinned.memory()),
                    device_endpoint(dst.memory()),
                );
                self.issue_copy(plan, src, dst, &accesses, CudaAfter::Nothing)?;
                return Ok(());
            }
        }
        let src = src.host_slice();
        let Some(plan) = copy_plan(src_region, src.len(), dst_region, dst.len())? else {
            return Ok(());
        };
        let (staged, after) = match &self.inner.backend {
            StreamBackend::Cpu(_) => (
                Endpoint::Cpu(CpuMemory::Packed(pack_cells(src, &plan))),
                CudaAfter::Nothing,
            ),
            StreamBackend::Cuda(_) => {
                let bytes = plan.count * std::mem::size_of::<T>();
                self.inner.reclaim_staging(self.device.order());
                let staging = self.device.take_staging(bytes)?;
                // SAFETY: the block holds at least `count` `T`s, is aligned
                // (page-aligned by the driver) and not in use by any stream
                // (it came from the free pool or a new allocation).
                let packed =
                    unsafe { std::slice::from_raw_parts_mut(staging.ptr as *mut T, plan.count) };
                pack_into(src, &plan, packed);
                // Freed (back to the pool) once the copy's event fired.
                (
                    Endpoint::Cuda(Side::Host(staging.ptr)),
                    CudaAfter::FreeStaging(staging),
                )
            }
        };
        let accesses = [(dst.tracker(), AccessKind::Write)];
        let dst = device_endpoint(dst.memory());
        self.issue_copy(plan.with_dense_src(), staged, dst, &accesses, after)?;
        Ok(())
    }

    /// Device to device. Copying within one buffer with overlapping regions is
    /// an `Err`. While the calling thread records a graph segment, the copy
    /// is recorded, not issued.
    ///
    /// ```
    /// use sdfg_runtime::{Device, DeviceBuffer, Region};
    /// let dev = Device::cpu();
    /// let a = DeviceBuffer::from_slice(&dev, &[1u64, 2, 3, 4])?;
    /// let b = DeviceBuffer::<u64>::zeros(&dev, 4)?;
    /// dev.default_stream().copy_device(&a, &Region::new(0, vec![(2, 1)]), &b, &Region::new(2, vec![(2, 1)]))?;
    /// assert_eq!(b.to_vec()?, [0, 0, 1, 2]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn copy_device<T: Elem>(
        &self,
        src: &DeviceBuffer<T>,
        src_region: &Region,
        dst: &DeviceBuffer<T>,
        dst_region: &Region,
    ) -> Result<()> {
        self.device
            .check_same(src.device().id(), || "the source buffer".to_string())?;
        self.device
            .check_same(dst.device().id(), || "the destination buffer".to_string())?;
        let Some(plan) = copy_plan(src_region, src.len(), dst_region, dst.len())? else {
            return Ok(());
        };
        if src.same_memory(dst) {
            let (a, b) = plan.src_span();
            let (c, d) = plan.dst_span();
            if a <= d && c <= b {
                return Err(Error::InvalidArgument(format!(
                    "copy within one buffer: the source elements {a}..={b} and destination \
                     elements {c}..={d} overlap"
                )));
            }
        }
        let accesses = [
            (src.tracker(), AccessKind::Read),
            (dst.tracker(), AccessKind::Write),
        ];
        if recording::is_recording() {
            let work = match (src.memory(), dst.memory()) {
                (DeviceMemory::Cpu(s), DeviceMemory::Cpu(d)) => {
                    let (s, d) = (Arc::clone(s), Arc::clone(d));
                    OpWork::Cpu(Arc::new(move || copy_cells::<T>(&s.cells, &d.cells, &plan)))
                }
                (DeviceMemory::Cuda(s), DeviceMemory::Cuda(d)) => OpWork::CudaCopy(
                    device_copy_nodes(&plan, s.ptr, d.ptr, std::mem::size_of::<T>()),
                ),
                _ => return Err(mixed_backends()),
            };
            recording::record(self.device.id(), RecordedOp::new(work, &accesses));
            return Ok(());
        }
        let (src, dst) = (device_endpoint(src.memory()), device_endpoint(dst.memory()));
        self.issue_copy(plan, src, dst, &accesses, CudaAfter::Nothing)?;
        Ok(())
    }

    /// Device to host into a `HostBuffer` that the returned [`Pending`] owns
    /// until `.wait()` hands it back (direct DMA on CUDA).
    ///
    /// ```
    /// use sdfg_runtime::{Device, DeviceBuffer, HostBuffer, Region};
    /// let dev = Device::cpu();
    /// let buf = DeviceBuffer::from_slice(&dev, &[5i64, 6])?;
    /// let pending = dev.default_stream().copy_to_host(&buf, &Region::whole(2), HostBuffer::new(&dev, 2)?, &Region::whole(2))?;
    /// assert_eq!(pending.wait()?.as_slice(), [5, 6]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn copy_to_host<T: Elem>(
        &self,
        src: &DeviceBuffer<T>,
        src_region: &Region,
        dst: HostBuffer<T>,
        dst_region: &Region,
    ) -> Result<Pending<HostBuffer<T>>> {
        let completion = self.download_into_host_buffer(src, src_region, &dst, dst_region)?;
        Ok(Pending::new(self.device.clone(), dst, completion, None))
    }

    /// Device to host directly into a borrowed `HostBuffer`. If the returned
    /// `Pending` is forgotten, the buffer's own tracker makes later host
    /// accesses wait for the copy.
    ///
    /// ```
    /// use sdfg_runtime::{Device, DeviceBuffer, HostBuffer, Region};
    /// let dev = Device::cpu();
    /// let buf = DeviceBuffer::from_slice(&dev, &[1u32, 2, 3])?;
    /// let mut host = HostBuffer::<u32>::new(&dev, 3)?;
    /// dev.default_stream().copy_to_host_buffer(&buf, &Region::whole(3), &mut host, &Region::whole(3))?.wait()?;
    /// assert_eq!(host.as_slice(), [1, 2, 3]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn copy_to_host_buffer<'a, T: Elem>(
        &self,
        src: &DeviceBuffer<T>,
        src_region: &Region,
        dst: &'a mut HostBuffer<T>,
        dst_region: &Region,
    ) -> Result<Pending<&'a mut HostBuffer<T>>> {
        let completion = self.download_into_host_buffer(src, src_region, dst, dst_region)?;
        Ok(Pending::new(self.device.clone(), dst, completion, None))
    }

    fn download_into_host_buffer<T: Elem>(
        &self,
        src: &DeviceBuffer<T>,
        src_region: &Region,
        dst: &HostBuffer<T>,
        dst_region: &Region,
    ) -> Result<Option<Completion>> {
        self.device
            .check_same(src.device().id(), || "the source buffer".to_string())?;
        self.device.check_same(dst.device().id(), || {
            "the destination host buffer".to_string()
        })?;
        let Some(plan) = copy_plan(src_region, src.len(), dst_region, dst.len())? else {
            return Ok(None);
        };
        let accesses = [
            (src.tracker(), AccessKind::Read),
            (dst.tracker(), AccessKind::Write),
        ];
        let (src, dst) = (device_endpoint(src.memory()), host_endpoint(dst.memory()));
        self.issue_copy(plan, src, dst, &accesses, CudaAfter::CompletionEvent)
            .map(Some)
    }

    /// Device to host into a borrowed slice, through runtime-owned staging
    /// memory: the slice is written only inside `.wait()`, so a forgotten
    /// `Pending` leaves it untouched.
    ///
    /// ```
    /// use sdfg_runtime::{Device, DeviceBuffer, Region};
    /// let dev = Device::cpu();
    /// let buf = DeviceBuffer::from_slice(&dev, &[1.5f64, 2.5])?;
    /// let mut out = [0.0; 2];
    /// dev.default_stream().copy_to_slice(&buf, &Region::whole(2), &mut out, &Region::whole(2))?.wait()?;
    /// assert_eq!(out, [1.5, 2.5]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn copy_to_slice<'a, T: Elem>(
        &self,
        src: &DeviceBuffer<T>,
        src_region: &Region,
        dst: &'a mut [T],
        dst_region: &Region,
    ) -> Result<Pending<&'a mut [T]>> {
        self.device
            .check_same(src.device().id(), || "the source buffer".to_string())?;
        let Some(plan) = copy_plan(src_region, src.len(), dst_region, dst.len())? else {
            return Ok(Pending::new(self.device.clone(), dst, None, None));
        };
        let staged_plan = plan.with_dense_dst();
        let unpack_plan = plan.with_dense_src();
        let accesses = [(src.tracker(), AccessKind::Read)];
        let src = device_endpoint(src.memory());
        let (completion, finish): (Completion, Finish<&'a mut [T]>) = match &self.inner.backend {
            StreamBackend::Cpu(_) => {
                let staging = Arc::new(HeapBlock::<T>::new(plan.count)?);
                let staged = Endpoint::Cpu(CpuMemory::Host(Arc::clone(&staging)));
                let completion =
                    self.issue_copy(staged_plan, src, staged, &accesses, CudaAfter::Nothing)?;
                let finish = Box::new(move |dst: &mut &'a mut [T]| {
                    // SAFETY: `wait` ran before this: the job finished and
                    // no one else holds the staging block's memory.
                    let staged = unsafe { block_cells_as_slice(&staging) };
                    unpack(&staged, &unpack_plan, dst);
                });
                (completion, finish)
            }
            StreamBackend::Cuda(_) => {
                let staging = self
                    .device
                    .take_staging(plan.count * std::mem::size_of::<T>())?;
                let staged = Endpoint::Cuda(Side::Host(staging.ptr));
                let issued = self.issue_copy(
                    staged_plan,
                    src,
                    staged,
                    &accesses,
                    CudaAfter::CompletionEvent,
                );
                let completion = match issued {
                    Ok(completion) => completion,
                    Err(e) => {
                        // Part of the copy may be in flight: leak the block.
                        std::mem::forget(staging);
                        return Err(e);
                    }
                };
                let device = self.device.clone();
                let count = plan.count;
                let finish = Box::new(move |dst: &mut &'a mut [T]| {
                    // SAFETY: `wait` synchronized the copy's event, so the
                    // DMA into the block finished; it holds `count` `T`s.
                    let staged =
                        unsafe { std::slice::from_raw_parts(staging.ptr as *const T, count) };
                    unpack(staged, &unpack_plan, dst);
                    device.give_back_staging(staging);
                });
                (completion, finish)
            }
        };
        Ok(Pending::new(
            self.device.clone(),
            dst,
            Some(completion),
            Some(finish),
        ))
    }

    /// Issues a validated, non-empty copy on this stream's back end, ordered
    /// by `accesses`, and counts it: the one place copies reach a back end.
    /// `after` says what a CUDA copy records once its driver copies were
    /// accepted (the CPU device needs nothing: its jobs are positions).
    fn issue_copy<T: Elem>(
        &self,
        plan: CopyPlan,
        src: Endpoint<T>,
        dst: Endpoint<T>,
        accesses: &[(&Tracker, AccessKind)],
        after: CudaAfter,
    ) -> Result<Completion> {
        let (completion, _) = match (&self.inner.backend, src, dst) {
            (StreamBackend::Cpu(_), Endpoint::Cpu(src), Endpoint::Cpu(dst)) => {
                self.issue(accesses.iter().copied(), move |op| {
                    op.push_cpu(move || copy_cells::<T>(src.cells(), dst.cells(), &plan));
                    Ok(op.completion(None))
                })?
            }
            (StreamBackend::Cuda(_), Endpoint::Cuda(src), Endpoint::Cuda(dst)) => {
                self.issue(accesses.iter().copied(), |op| {
                    let stream = op.cuda_stream();
                    let copied = cuda_copy(stream, &plan, src, dst, std::mem::size_of::<T>());
                    match after {
                        CudaAfter::Nothing => copied.map(|()| op.completion(None)),
                        CudaAfter::CompletionEvent => {
                            copied?;
                            Ok(op.completion(Some(CudaEvent::record(stream, false)?)))
                        }
                        CudaAfter::FreeStaging(staging) => {
                            match copied.and_then(|()| CudaEvent::record(stream, false)) {
                                Ok(done) => {
                                    lock(&op.stream.state)
                                        .in_flight_staging
                                        .push((done, staging));
                                    Ok(op.completion(None))
                                }
                                Err(e) => {
                                    // Part of the copy may be in flight: leak the block.
                                    std::mem::forget(staging);
                                    Err(e)
                                }
                            }
                        }
                    }
                })?
            }
            _ => return Err(mixed_backends()),
        };
        CounterCells::bump(&self.device.counters_cells().copies);
        Ok(completion)
    }
}

impl<T: Elem> DeviceBuffer<T> {
    /// Downloads the whole buffer, after every write issued to it on any
    /// stream (one copy on the device's default stream and one counted host
    /// sync for it, plus event waits the ordering needs).
    ///
    /// ```
    /// use sdfg_runtime::{Device, DeviceBuffer};
    /// let dev = Device::cpu();
    /// assert_eq!(DeviceBuffer::from_slice(&dev, &[1i64, -1])?.to_vec()?, [1, -1]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let mut out = vec![T::default(); self.len()];
        let whole = Region::whole(self.len());
        self.device()
            .default_stream()
            .copy_to_slice(self, &whole, &mut out, &whole)?
            .wait()?;
        Ok(out)
    }

    /// Overwrites the whole buffer with `data`, after every use issued to it
    /// on any stream, and waits for the upload (one copy on the default
    /// stream and one counted host sync).
    ///
    /// ```
    /// use sdfg_runtime::{Device, DeviceBuffer};
    /// let dev = Device::cpu();
    /// let mut buf = DeviceBuffer::<i32>::zeros(&dev, 2)?;
    /// buf.copy_from_slice(&[3, 4])?;
    /// assert_eq!(buf.to_vec()?, [3, 4]);
    /// assert!(buf.copy_from_slice(&[1]).is_err());
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn copy_from_slice(&mut self, data: &[T]) -> Result<()> {
        if data.len() != self.len() {
            return Err(Error::LengthMismatch {
                name: format!("DeviceBuffer<{}>", T::TYPE),
                expected: self.len(),
                actual: data.len(),
            });
        }
        let whole = Region::whole(self.len());
        self.device()
            .default_stream()
            .copy_to_device(data, &whole, self, &whole)?;
        self.tracker()
            .host_wait(AccessKind::Write, self.device().order())
    }
}

fn mixed_backends() -> Error {
    Error::WrongDevice {
        what: "the operation mixes memory of a cpu device and a cuda device".into(),
    }
}

/// The source region packed densely into cells (the CPU device's staging
/// of an upload from pageable memory).
fn pack_cells<T: Elem>(src: &[T], plan: &CopyPlan) -> Box<[T::Cell]> {
    let len = plan.run_len();
    let mut out = Vec::with_capacity(plan.count);
    for (s, _) in plan.runs() {
        out.extend(src[s..s + len].iter().map(|&v| {
            let cell = T::Cell::default();
            T::store(&cell, v);
            cell
        }));
    }
    out.into_boxed_slice()
}

/// The source region packed densely, in row-major order, into `out`.
fn pack_into<T: Elem>(src: &[T], plan: &CopyPlan, out: &mut [T]) {
    let len = plan.run_len();
    for (i, (s, _)) in plan.runs().enumerate() {
        out[i * len..(i + 1) * len].copy_from_slice(&src[s..s + len]);
    }
}

/// Scatters densely packed `staged` elements into `dst` (plan with dense source).
fn unpack<T: Elem>(staged: &[T], plan: &CopyPlan, dst: &mut [T]) {
    let len = plan.run_len();
    for (s, d) in plan.runs() {
        dst[d..d + len].copy_from_slice(&staged[s..s + len]);
    }
}

fn copy_cells<T: Elem>(src: &[T::Cell], dst: &[T::Cell], plan: &CopyPlan) {
    let len = plan.run_len();
    for (s, d) in plan.runs() {
        for k in 0..len {
            T::store(&dst[d + k], T::load(&src[s + k]));
        }
    }
}

/// # Safety
/// No stream job may still write the block.
unsafe fn block_cells_as_slice<T: Elem>(block: &HeapBlock<T>) -> Vec<T> {
    // SAFETY: reading through the cells is always sound; the caller's
    // contract makes the values final.
    let cells = unsafe { block.cells() };
    cells.iter().map(T::load).collect()
}

/// One piece of a copy plan in bytes: offsets from each side's start,
/// pitches, and `height` rows of `width` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Piece {
    src_offset: usize,
    src_pitch: usize,
    dst_offset: usize,
    dst_pitch: usize,
    width: usize,
    height: usize,
}

/// The driver copies of a plan: one 1-D copy, one 2-D copy, or one 2-D
/// copy per index of the outer dimensions.
fn pieces(plan: &CopyPlan, elem: usize) -> Vec<Piece> {
    let n = plan.dims.len();
    if n == 1 {
        return vec![Piece {
            src_offset: plan.src_offset * elem,
            src_pitch: 0,
            dst_offset: plan.dst_offset * elem,
            dst_pitch: 0,
            width: plan.count * elem,
            height: 1,
        }];
    }
    let (height, src_pitch, dst_pitch) = plan.dims[n - 2];
    let width = plan.dims[n - 1].0;
    let outer = &plan.dims[..n - 2];
    let blocks: usize = outer.iter().map(|d| d.0).product();
    (0..blocks)
        .map(|mut b| {
            let (mut s, mut d) = (plan.src_offset, plan.dst_offset);
            for &(extent, ss, ds) in outer.iter().rev() {
                let i = b % extent;
                b /= extent;
                s += i * ss;
                d += i * ds;
            }
            Piece {
                src_offset: s * elem,
                src_pitch: src_pitch * elem,
                dst_offset: d * elem,
                dst_pitch: dst_pitch * elem,
                width: width * elem,
                height,
            }
        })
        .collect()
}

/// Issues the driver copies of a plan.
fn cuda_copy(
    stream: &CudaStream,
    plan: &CopyPlan,
    src: Side,
    dst: Side,
    elem: usize,
) -> Result<()> {
    let offset = |side: Side, bytes: usize| match side {
        Side::Device(p) => Side::Device(p + bytes as u64),
        // `wrapping_add` keeps this safe code; the copy stays inside the
        // validated region.
        Side::Host(p) => Side::Host((p as *mut u8).wrapping_add(bytes) as *mut _),
    };
    for piece in pieces(plan, elem) {
        cuda::copy_2d(
            stream,
            offset(src, piece.src_offset),
            piece.src_pitch,
            offset(dst, piece.dst_offset),
            piece.dst_pitch,
            piece.width,
            piece.height,
        )?;
    }
    Ok(())
}

/// A device-to-device copy as graph nodes (the same pieces `cuda_copy`
/// issues on a stream).
fn device_copy_nodes(plan: &CopyPlan, src: u64, dst: u64, elem: usize) -> Vec<DeviceCopy2d> {
    pieces(plan, elem)
        .into_iter()
        .map(|p| DeviceCopy2d {
            src: src + p.src_offset as u64,
            src_pitch: p.src_pitch,
            dst: dst + p.dst_offset as u64,
            dst_pitch: p.dst_pitch,
            width_bytes: p.width,
            height: p.height,
        })
        .collect()
}
