//! The per-call state of a program (streams, transients, its fault slot),
//! the guard a call holds while issuing, and the pool contexts return to.

use crate::__glue::graphs::{self, GraphStep, Graphs};
use crate::__glue::spec::{ProgramSpec, StreamSpec};
use crate::device::Device;
use crate::elem::Elem;
use crate::error::{Error, FaultSite, Result};
use crate::kernel::args::KernelArg;
use crate::lock::lock;
use crate::memory::device_buffer::DeviceBuffer;
use crate::memory::host_buffer::HostBuffer;
use crate::order::fault::{FaultSlot, Recorded};
use crate::order::recording;
use crate::streams::running::{CallResources, Running};
use crate::streams::stream::Stream;
use std::any::Any;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

/// Idle contexts of one program.
#[derive(Default)]
pub(super) struct ContextPool {
    /// Boxed: a call moves its context in and out of the pool and into
    /// its `Running` (a pointer, not the whole context, each time).
    #[allow(clippy::vec_box)]
    idle: Mutex<Vec<Box<Context>>>,
}

impl ContextPool {
    /// An idle context, if any.
    pub(super) fn take(&self) -> Option<Box<Context>> {
        lock(&self.idle).pop()
    }

    fn put(&self, mut context: Box<Context>) {
        context.restore_own_streams();
        lock(&self.idle).push(context);
    }
}

/// A context in a call, and the pool it returns to: what `Running` holds.
struct PooledCall {
    context: Box<Context>,
    pool: Arc<ContextPool>,
}

impl CallResources for PooledCall {
    fn for_each_stream(&self, f: &mut dyn FnMut(&Stream)) {
        self.context.for_each_stream(f)
    }

    fn check_fault(&self) -> Result<()> {
        self.context.check_fault()
    }

    fn recycle(self: Box<Self>) {
        self.pool.put(self.context);
    }

    fn abandon(self: Box<Self>) {
        let PooledCall { context, pool } = *self;
        // A broken stream might still touch the transients: leak them
        // rather than free them; the pool itself is fine to release.
        std::mem::forget(context);
        drop(pool);
    }
}

fn running<'a>(context: Box<Context>, pool: &Arc<ContextPool>) -> Running<'a> {
    Running::new(Box::new(PooledCall {
        context,
        pool: Arc::clone(pool),
    }))
}

/// The per-call state of a program: its streams, transients and fault slot
/// (kept across calls when the context returns to the pool; one call at a
/// time uses a context, so its slot holds only that call's faults).
pub struct Context {
    device: Device,
    spec: &'static ProgramSpec,
    program: &'static str,
    own: Vec<Stream>,
    own_uniform: bool,
    active: Vec<Stream>,
    /// Every index maps to `active[0]`.
    uniform: bool,
    /// `active` is a caller's stream (`run_everything_on`), not `own`.
    borrowed_streams: bool,
    device_transients: Vec<Option<Box<dyn Any + Send + Sync>>>,
    /// Per device transient: allocated (so zeroed) and not handed out to a
    /// call since.
    device_transient_fresh: Vec<bool>,
    host_transients: Vec<Option<Box<dyn Any + Send + Sync>>>,
    /// Where this call's kernels report skipped accesses.
    fault: FaultSlot,
    /// Graph segments seen, recorded and refused (`glue/graphs.rs`).
    graphs: Mutex<Graphs>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("program", &self.program)
            .field("streams", &self.active)
            .finish_non_exhaustive()
    }
}

impl Context {
    pub(super) fn new(
        device: &Device,
        spec: &'static ProgramSpec,
        notes: Arc<Mutex<Vec<String>>>,
    ) -> Result<Context> {
        let (own, uniform) = match spec.streams {
            StreamSpec::Default => (vec![device.default_stream()], true),
            StreamSpec::Created(n) => (
                (0..n)
                    .map(|_| device.new_stream())
                    .collect::<Result<Vec<_>>>()?,
                false,
            ),
        };
        Ok(Context {
            device: device.clone(),
            spec,
            fault: device.new_fault_slot()?,
            program: spec.name,
            active: own.clone(),
            own,
            own_uniform: uniform,
            uniform,
            borrowed_streams: false,
            device_transients: Vec::new(),
            device_transient_fresh: Vec::new(),
            host_transients: Vec::new(),
            graphs: Mutex::new(Graphs::new(notes)),
        })
    }

    fn restore_own_streams(&mut self) {
        // Only a call on a caller's stream changed them (no clone per call).
        if self.borrowed_streams {
            self.active = self.own.clone();
            self.uniform = self.own_uniform;
            self.borrowed_streams = false;
        }
    }

    /// Maps every stream index to `stream` (until the context is pooled again).
    pub(super) fn run_everything_on(&mut self, stream: &Stream) {
        self.active = vec![stream.clone()];
        self.uniform = true;
        self.borrowed_streams = true;
    }

    /// Calls `f` with each stream once (for waiting; allocates nothing).
    fn for_each_stream(&self, f: &mut dyn FnMut(&Stream)) {
        for (i, s) in self.active.iter().enumerate() {
            if !self.active[..i].contains(s) {
                f(s);
            }
        }
    }

    /// The argument that passes this context's fault slot to a kernel (the
    /// `Fault` parameter of a generated kernel's ABI). The call's
    /// `Running::wait` reads the slot after the call's streams finished.
    ///
    /// ```
    /// # use sdfg_runtime::Device;
    /// # use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
    /// # static SPEC: ProgramSpec = unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Default) };
    /// let program = unsafe { Program::load(&Device::cpu(), &SPEC) }?;
    /// let ctx = program.context()?;
    /// let _arg = ctx.fault_arg(); // passed last to every kernel of the call
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn fault_arg(&self) -> KernelArg<'_> {
        KernelArg::call_slot(&self.fault)
    }

    /// Reads and resets the fault slot (every kernel that wrote it
    /// finished): the first fault, described from the spec's fault sites.
    fn check_fault(&self) -> Result<()> {
        match self.fault.take() {
            None => Ok(()),
            Some(Recorded::Panic { kernel, message }) => {
                Err(Error::KernelPanicked { kernel, message })
            }
            // Only a raw kernel writes a bare code; a GPU does not say which.
            Some(Recorded::Code { kernel, code }) => Err(Error::KernelFault {
                kernel: kernel.unwrap_or_else(|| {
                    let names: Vec<&str> = self.spec.kernels.iter().map(|k| k.name).collect();
                    names.join(" or ")
                }),
                code,
                site: None,
            }),
            Some(Recorded::Site {
                kernel,
                access,
                index,
            }) => {
                let k = kernel as usize;
                let name = match self.spec.kernels.get(k) {
                    Some(entry) => entry.name.to_string(),
                    None => format!("#{k}"),
                };
                let site = self.spec.sites.get(k).and_then(|sites| {
                    let a = sites.accesses.get((access as usize).checked_sub(1)?)?;
                    Some(Box::new(FaultSite::new(
                        sites.map,
                        sites.state,
                        a.container,
                        a.write,
                        a.rank,
                        index,
                    )))
                });
                Err(Error::KernelFault {
                    kernel: name,
                    code: access,
                    site,
                })
            }
        }
    }

    /// The device.
    ///
    /// ```
    /// # use sdfg_runtime::Device;
    /// # use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
    /// # static SPEC: ProgramSpec = unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Default) };
    /// let dev = Device::cpu();
    /// let program = unsafe { Program::load(&dev, &SPEC) }?;
    /// assert_eq!(program.context()?.device(), &dev);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Stream `i` of the program's stream assignment.
    ///
    /// # Panics
    /// If the program has no stream `i` (a code-generator bug).
    ///
    /// ```
    /// # use sdfg_runtime::Device;
    /// # use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
    /// # static SPEC: ProgramSpec = unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Default) };
    /// let dev = Device::cpu();
    /// let program = unsafe { Program::load(&dev, &SPEC) }?;
    /// let ctx = program.context()?;
    /// // StreamSpec::Default: every index is the device's default stream.
    /// assert_eq!(ctx.stream(0), &dev.default_stream());
    /// assert_eq!(ctx.stream(5), &dev.default_stream());
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn stream(&self, i: usize) -> &Stream {
        if self.uniform {
            return &self.active[0];
        }
        match self.active.get(i) {
            Some(s) => s,
            None => panic!(
                "program `{}` has {} streams; stream {i} does not exist (code generator bug)",
                self.program,
                self.active.len()
            ),
        }
    }

    /// Device transient `slot` with `len` elements of `T`: allocated on first
    /// use, reallocated when the length (or type) changes, kept across calls.
    ///
    /// To hold several transients at once, use
    /// [`Context::prepare_device_transient`] for each, then
    /// [`Context::device_transient_ref`].
    ///
    /// ```
    /// # use sdfg_runtime::Device;
    /// # use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
    /// # static SPEC: ProgramSpec = unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Default) };
    /// let program = unsafe { Program::load(&Device::cpu(), &SPEC) }?;
    /// let mut ctx = program.context()?;
    /// assert_eq!(ctx.device_transient::<f32>(0, 16)?.len(), 16);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn device_transient<T: Elem>(
        &mut self,
        slot: usize,
        len: usize,
    ) -> Result<&DeviceBuffer<T>> {
        self.prepare_device_transient::<T>(slot, len)?;
        Ok(self.device_transient_ref::<T>(slot))
    }

    /// Makes sure device transient `slot` exists with `len` elements of `T`.
    ///
    /// ```
    /// # use sdfg_runtime::Device;
    /// # use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
    /// # static SPEC: ProgramSpec = unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Default) };
    /// let program = unsafe { Program::load(&Device::cpu(), &SPEC) }?;
    /// let mut ctx = program.context()?;
    /// ctx.prepare_device_transient::<f32>(0, 4)?;
    /// ctx.prepare_device_transient::<i64>(1, 2)?;
    /// let (a, b) = (ctx.device_transient_ref::<f32>(0), ctx.device_transient_ref::<i64>(1));
    /// assert_eq!((a.len(), b.len()), (4, 2));
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn prepare_device_transient<T: Elem>(&mut self, slot: usize, len: usize) -> Result<()> {
        if self.device_transients.len() <= slot {
            self.device_transients.resize_with(slot + 1, || None);
        }
        let fits = self.device_transients[slot]
            .as_ref()
            .and_then(|b| b.downcast_ref::<DeviceBuffer<T>>())
            .is_some_and(|b| b.len() == len);
        if self.device_transient_fresh.len() <= slot {
            self.device_transient_fresh.resize(slot + 1, false);
        }
        if !fits {
            // Drop the old one first (its memory is freed once unused).
            self.device_transients[slot] = None;
            self.device_transients[slot] =
                Some(Box::new(DeviceBuffer::<T>::zeros(&self.device, len)?));
            self.device_transient_fresh[slot] = true;
        }
        Ok(())
    }

    /// Device transient `slot` (prepared before) holds zeros for work
    /// issued on `stream` from now on: a fresh allocation already does; a
    /// buffer an earlier call used is filled with zeros on `stream`,
    /// ordered like a write. So a call never sees an earlier call's data.
    ///
    /// ```
    /// # use sdfg_runtime::Device;
    /// # use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
    /// # static SPEC: ProgramSpec = unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Default) };
    /// let dev = Device::cpu();
    /// let program = unsafe { Program::load(&dev, &SPEC) }?;
    /// let mut ctx = program.context()?;
    /// ctx.prepare_device_transient::<i32>(0, 2)?;
    /// ctx.zero_device_transient::<i32>(0, &dev.default_stream())?;
    /// let t = ctx.device_transient_ref::<i32>(0);
    /// let whole = sdfg_runtime::Region::whole(2);
    /// dev.default_stream().copy_to_device(&[5, 6][..], &whole, t, &whole)?;
    /// ctx.prepare_device_transient::<i32>(0, 2)?; // the next call: same buffer
    /// ctx.zero_device_transient::<i32>(0, &dev.default_stream())?;
    /// assert_eq!(ctx.device_transient_ref::<i32>(0).to_vec()?, [0, 0]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn zero_device_transient<T: Elem>(&mut self, slot: usize, stream: &Stream) -> Result<()> {
        let fresh = self
            .device_transient_fresh
            .get_mut(slot)
            .map(|f| std::mem::replace(f, false))
            .unwrap_or(false);
        if fresh {
            return Ok(());
        }
        stream.fill_zeros(self.device_transient_ref::<T>(slot))
    }

    /// Device transient `slot`, prepared before.
    ///
    /// # Panics
    /// If the slot was not prepared with element type `T` (a code-generator bug).
    ///
    /// ```
    /// # use sdfg_runtime::Device;
    /// # use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
    /// # static SPEC: ProgramSpec = unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Default) };
    /// let program = unsafe { Program::load(&Device::cpu(), &SPEC) }?;
    /// let mut ctx = program.context()?;
    /// ctx.prepare_device_transient::<u32>(3, 8)?;
    /// assert_eq!(ctx.device_transient_ref::<u32>(3).to_vec()?, [0; 8]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn device_transient_ref<T: Elem>(&self, slot: usize) -> &DeviceBuffer<T> {
        match self
            .device_transients
            .get(slot)
            .and_then(|b| b.as_ref())
            .and_then(|b| b.downcast_ref::<DeviceBuffer<T>>())
        {
            Some(b) => b,
            None => panic!(
                "program `{}`: device transient {slot} of {} was not prepared (code generator bug)",
                self.program,
                T::TYPE
            ),
        }
    }

    /// Takes host transient `slot` (`len` elements of `T`, pinned on CUDA) out
    /// of the context, e.g. to move it into a `copy_to_host`; give it back
    /// with [`Context::put_host_transient`] to keep it for the next call.
    ///
    /// ```
    /// # use sdfg_runtime::Device;
    /// # use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
    /// # static SPEC: ProgramSpec = unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Default) };
    /// let program = unsafe { Program::load(&Device::cpu(), &SPEC) }?;
    /// let mut ctx = program.context()?;
    /// let h = ctx.take_host_transient::<i32>(0, 3)?;
    /// assert_eq!(h.len(), 3);
    /// ctx.put_host_transient(0, h);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn take_host_transient<T: Elem>(
        &mut self,
        slot: usize,
        len: usize,
    ) -> Result<HostBuffer<T>> {
        let existing = self
            .host_transients
            .get_mut(slot)
            .and_then(Option::take)
            .and_then(|b| b.downcast::<HostBuffer<T>>().ok())
            .filter(|b| b.len() == len);
        match existing {
            Some(b) => Ok(*b),
            None => HostBuffer::new(&self.device, len),
        }
    }

    /// Like [`Context::take_host_transient`], with every element zero (a
    /// reused buffer is cleared), so a call never sees an earlier call's data.
    ///
    /// ```
    /// # use sdfg_runtime::Device;
    /// # use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
    /// # static SPEC: ProgramSpec = unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Default) };
    /// let program = unsafe { Program::load(&Device::cpu(), &SPEC) }?;
    /// let mut ctx = program.context()?;
    /// let mut h = ctx.take_zeroed_host_transient::<i32>(0, 2)?;
    /// h.as_mut_slice()[0] = 7;
    /// ctx.put_host_transient(0, h);
    /// assert_eq!(ctx.take_zeroed_host_transient::<i32>(0, 2)?.as_slice(), [0, 0]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn take_zeroed_host_transient<T: Elem>(
        &mut self,
        slot: usize,
        len: usize,
    ) -> Result<HostBuffer<T>> {
        let mut buffer = self.take_host_transient::<T>(slot, len)?;
        buffer.as_mut_slice().fill(T::default());
        Ok(buffer)
    }

    /// Puts a host transient back (see [`Context::take_host_transient`]).
    ///
    /// ```
    /// # use sdfg_runtime::Device;
    /// # use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
    /// # static SPEC: ProgramSpec = unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Default) };
    /// let program = unsafe { Program::load(&Device::cpu(), &SPEC) }?;
    /// let mut ctx = program.context()?;
    /// let mut h = ctx.take_host_transient::<i32>(0, 2)?;
    /// h.as_mut_slice()[0] = 7;
    /// ctx.put_host_transient(0, h);
    /// assert_eq!(ctx.take_host_transient::<i32>(0, 2)?.as_slice(), [7, 0]); // the same buffer
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn put_host_transient<T: Elem>(&mut self, slot: usize, buffer: HostBuffer<T>) {
        if self.host_transients.len() <= slot {
            self.host_transients.resize_with(slot + 1, || None);
        }
        self.host_transients[slot] = Some(Box::new(buffer));
    }
}

impl Context {
    /// At the entry of a capturable segment (state `entry`, every symbol's
    /// bits in `symbols`, every device buffer of the program in `buffers`
    /// with how the program uses it): launch its cached graph (`Ran`),
    /// record it (`Record`), or run it on streams (`Streams`). The policy,
    /// the key and the cache: `glue/graphs.rs`.
    ///
    /// # Safety
    ///
    /// The generated glue promises that the stream operations of the
    /// segment, from `entry` until it calls [`Context::graph_leave`], are
    /// fully determined by `entry`, `symbols`, the memory of `buffers` and
    /// this context (its transients and the fault words of its streams), so
    /// that a recording made for the same key is the segment; that they
    /// touch only memory of `buffers`; and that it lists the buffers in the
    /// same order every call.
    ///
    /// ```
    /// # use sdfg_runtime::Device;
    /// # use sdfg_runtime::__glue::{GraphStep, Program, ProgramSpec, StreamSpec};
    /// # static SPEC: ProgramSpec = unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Created(1)) };
    /// let program = unsafe { Program::load(&Device::cpu(), &SPEC) }?;
    /// let ctx = program.context()?;
    /// // SAFETY: a segment without operations.
    /// let first = unsafe { ctx.graph_enter(0, &[7], &[]) }?;
    /// assert!(matches!(first, GraphStep::Streams)); // seen once: streams
    /// let second = unsafe { ctx.graph_enter(0, &[7], &[]) }?;
    /// assert!(matches!(second, GraphStep::Record)); // seen twice: record it
    /// // Nothing recorded: too small for a graph, run it on streams.
    /// let left = unsafe { ctx.graph_leave(usize::MAX, &[7], &[]) }?;
    /// assert!(matches!(left, GraphStep::Restart));
    /// assert!(matches!(unsafe { ctx.graph_enter(0, &[7], &[]) }?, GraphStep::Streams));
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub unsafe fn graph_enter(
        &self,
        entry: usize,
        symbols: &[u64],
        buffers: &[KernelArg<'_>],
    ) -> Result<GraphStep> {
        // Generated kernels write the call's slot; raw ones a stream's.
        let faults = std::iter::once(self.fault.identity())
            .chain(self.active.iter().map(|s| s.inner.fault.identity()));
        let key = graphs::key(entry, symbols, buffers, faults);
        lock(&self.graphs).enter(&self.device, self.stream(0), key, buffers)
    }

    /// At the exit of a recorded segment (the next state `exit`, the symbols
    /// there, the same `buffers` as at the entry): builds and launches the
    /// graph (`Ran`), or asks for the segment to run again on streams from
    /// its entry (`Restart`: nothing of it was issued).
    ///
    /// # Safety
    ///
    /// As for [`Context::graph_enter`], whose segment this ends.
    pub unsafe fn graph_leave(
        &self,
        exit: usize,
        symbols: &[u64],
        buffers: &[KernelArg<'_>],
    ) -> Result<GraphStep> {
        lock(&self.graphs).leave(&self.device, self.stream(0), exit, symbols, buffers)
    }

    /// Opens the body of a loop decided on the device (while recording).
    pub fn graph_loop_begin(&self) {
        recording::loop_begin();
    }

    /// Closes the loop body: the body runs again while the `u32` in `flag`
    /// (written by the body) is nonzero.
    pub fn graph_loop_end(&self, flag: &DeviceBuffer<u32>) {
        graphs::loop_end(flag);
    }

    /// Has the segment being recorded failed (the glue leaves it early)?
    pub fn graph_recording_failed(&self) -> bool {
        recording::failed()
    }

    /// How many segment keys this context remembers (at most
    /// [`CACHE_ENTRIES`](crate::__glue::CACHE_ENTRIES)).
    pub fn graph_keys(&self) -> usize {
        lock(&self.graphs).keys()
    }

    /// Keeps `why` among the program's notes (`Program::graph_notes`):
    /// a persistent state ran launch by launch (the device has no
    /// cooperative launch, or none of its blocks fits).
    pub fn note(&self, why: String) {
        lock(&self.graphs).note(why);
    }
}

/// A context taken from a program's pool for one call. Derefs to [`Context`].
/// [`ContextGuard::finish`] turns it into the call's [`Running`]; dropping
/// it unfinished waits for its streams and returns it to the pool.
pub struct ContextGuard<'p> {
    pool: &'p Arc<ContextPool>,
    context: Option<Box<Context>>,
}

impl std::fmt::Debug for ContextGuard<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContextGuard")
            .field("context", &self.context)
            .finish()
    }
}

impl<'p> ContextGuard<'p> {
    pub(super) fn new(pool: &'p Arc<ContextPool>, context: Box<Context>) -> Self {
        ContextGuard {
            pool,
            context: Some(context),
        }
    }

    /// Ends issuing: the returned `Running<'a>` borrows the call's arguments
    /// for `'a` (pass `PhantomData` typed with their lifetime) and returns
    /// the context to the pool after waiting.
    ///
    /// ```
    /// # use sdfg_runtime::Device;
    /// # use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
    /// # use std::marker::PhantomData;
    /// # static SPEC: ProgramSpec = unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Default) };
    /// let program = unsafe { Program::load(&Device::cpu(), &SPEC) }?;
    /// let mut arg = vec![1, 2, 3];
    /// fn borrow_of<'a>(_: &'a mut Vec<i32>) -> PhantomData<&'a mut ()> { PhantomData }
    /// let running = program.context()?.finish(borrow_of(&mut arg));
    /// running.wait()?;
    /// arg.push(4); // allowed again after the wait
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn finish<'a>(mut self, _borrow: PhantomData<&'a mut ()>) -> Running<'a> {
        let context = self
            .context
            .take()
            .expect("a guard holds its context until finished");
        running(context, self.pool)
    }
}

impl std::ops::Deref for ContextGuard<'_> {
    type Target = Context;
    fn deref(&self) -> &Context {
        self.context
            .as_ref()
            .expect("a guard holds its context until finished")
    }
}

impl std::ops::DerefMut for ContextGuard<'_> {
    fn deref_mut(&mut self) -> &mut Context {
        self.context
            .as_mut()
            .expect("a guard holds its context until finished")
    }
}

impl Drop for ContextGuard<'_> {
    fn drop(&mut self) {
        if let Some(context) = self.context.take() {
            drop(running(context, self.pool));
        }
    }
}
