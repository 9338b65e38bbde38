//! The runtime part of one loaded SDFG: its module, and a pool of contexts
//! (streams + transients) so several threads can run it at once.

use crate::buffer::{DeviceBuffer, HostBuffer};
use crate::lock::lock;
use crate::device::Device;
use crate::elem::Elem;
use crate::error::{Error, Result};
use crate::kernel::{KernelEntry, Module};
use crate::pending::Running;
use crate::stream::Stream;
use std::any::Any;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

/// How a program uses streams.
///
/// ```
/// use sdfg_runtime::StreamSpec;
/// assert_ne!(StreamSpec::Default, StreamSpec::Created(1));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamSpec {
    /// Everything on the device's default stream (CUDA: the legacy default
    /// stream); every stream index maps to it.
    Default,
    /// This many created streams per context (indices `0..n`).
    Created(usize),
}

/// What the `sdfg!` macro emits for one SDFG: name, PTX, kernels, streams.
///
/// ```
/// use sdfg_runtime::{ProgramSpec, StreamSpec};
/// static SPEC: ProgramSpec = ProgramSpec { name: "axpy", ptx: "", kernels: &[], streams: StreamSpec::Created(1) };
/// assert_eq!(SPEC.name, "axpy");
/// ```
#[derive(Debug)]
pub struct ProgramSpec {
    /// The SDFG's name (for messages).
    pub name: &'static str,
    /// The PTX module of its `gpu` maps.
    pub ptx: &'static str,
    /// Its kernels, in launch-index order.
    pub kernels: &'static [KernelEntry],
    /// Its stream policy.
    pub streams: StreamSpec,
}

/// Idle contexts of one program.
pub(crate) struct ContextPool {
    idle: Mutex<Vec<Context>>,
}

impl ContextPool {
    pub(crate) fn put(&self, mut context: Context) {
        context.restore_own_streams();
        lock(&self.idle).push(context);
    }
}

/// One SDFG loaded on one device (`Send + Sync`): share it between threads;
/// each call takes its own [`Context`].
///
/// ```
/// use sdfg_runtime::*;
/// static SPEC: ProgramSpec = ProgramSpec { name: "p", ptx: "", kernels: &[], streams: StreamSpec::Created(1) };
/// let dev = Device::cpu();
/// let program = Program::load(&dev, &SPEC)?;
/// assert_eq!(program.device(), &dev);
/// assert!(program.module().kernel_names().is_empty());
/// # Ok::<(), sdfg_runtime::Error>(())
/// ```
pub struct Program {
    device: Device,
    spec: &'static ProgramSpec,
    module: Arc<Module>,
    pool: Arc<ContextPool>,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program")
            .field("name", &self.spec.name)
            .finish()
    }
}

impl Program {
    /// Loads the module (cached per device) and prepares an empty pool.
    ///
    /// ```
    /// use sdfg_runtime::*;
    /// static BAD: ProgramSpec = ProgramSpec { name: "bad", ptx: "", kernels: &[], streams: StreamSpec::Created(0) };
    /// assert!(Program::load(&Device::cpu(), &BAD).is_err());
    /// ```
    pub fn load(device: &Device, spec: &'static ProgramSpec) -> Result<Program> {
        if spec.streams == StreamSpec::Created(0) {
            return Err(Error::InvalidArgument(format!(
                "program `{}` asks for 0 created streams; use at least 1",
                spec.name
            )));
        }
        let module = Module::load(device, spec.ptx, spec.kernels)?;
        Ok(Program {
            device: device.clone(),
            spec,
            module,
            pool: Arc::new(ContextPool {
                idle: Mutex::new(Vec::new()),
            }),
        })
    }

    /// The device it is loaded on.
    ///
    /// ```
    /// # use sdfg_runtime::*;
    /// # static SPEC: ProgramSpec = ProgramSpec { name: "p", ptx: "", kernels: &[], streams: StreamSpec::Default };
    /// let dev = Device::cpu();
    /// assert!(!Program::load(&dev, &SPEC)?.device().is_gpu());
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Its loaded kernels.
    ///
    /// ```
    /// # use sdfg_runtime::*;
    /// # static SPEC: ProgramSpec = ProgramSpec { name: "p", ptx: "", kernels: &[], streams: StreamSpec::Default };
    /// let program = Program::load(&Device::cpu(), &SPEC)?;
    /// assert_eq!(program.module().kernel_names().len(), 0);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn module(&self) -> &Arc<Module> {
        &self.module
    }

    /// Its spec.
    ///
    /// ```
    /// # use sdfg_runtime::*;
    /// # static SPEC: ProgramSpec = ProgramSpec { name: "p", ptx: "", kernels: &[], streams: StreamSpec::Default };
    /// assert_eq!(Program::load(&Device::cpu(), &SPEC)?.spec().name, "p");
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn spec(&self) -> &'static ProgramSpec {
        self.spec
    }

    /// An idle context from the pool, or a new one with its own streams
    /// (per the spec) and no transients yet.
    ///
    /// ```
    /// # use sdfg_runtime::*;
    /// # static SPEC: ProgramSpec = ProgramSpec { name: "p", ptx: "", kernels: &[], streams: StreamSpec::Created(2) };
    /// let program = Program::load(&Device::cpu(), &SPEC)?;
    /// let a = program.context()?;
    /// let b = program.context()?; // a second, concurrent context
    /// assert_ne!(a.stream(0), b.stream(0));
    /// assert_ne!(a.stream(0), a.stream(1));
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn context(&self) -> Result<ContextGuard<'_>> {
        let pooled = lock(&self.pool.idle).pop();
        let context = match pooled {
            Some(c) => c,
            None => Context::new(&self.device, self.spec)?,
        };
        Ok(ContextGuard {
            program: self,
            context: Some(context),
        })
    }

    /// A context whose every stream index maps to `stream` (for running the
    /// program on a caller's stream).
    ///
    /// ```
    /// # use sdfg_runtime::*;
    /// # static SPEC: ProgramSpec = ProgramSpec { name: "p", ptx: "", kernels: &[], streams: StreamSpec::Created(3) };
    /// let dev = Device::cpu();
    /// let program = Program::load(&dev, &SPEC)?;
    /// let mine = dev.new_stream()?;
    /// let ctx = program.context_on(&mine)?;
    /// assert_eq!(ctx.stream(2), &mine);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn context_on(&self, stream: &Stream) -> Result<ContextGuard<'_>> {
        self.device.check_same(stream.device().id(), || {
            "the stream passed to context_on".into()
        })?;
        let mut guard = self.context()?;
        let context = guard
            .context
            .as_mut()
            .expect("a fresh guard holds its context");
        context.active = vec![stream.clone()];
        context.uniform = true;
        Ok(guard)
    }
}

/// The per-call state of a program: its streams and transients (kept across
/// calls when the context returns to the pool).
pub struct Context {
    device: Device,
    program: &'static str,
    own: Vec<Stream>,
    own_uniform: bool,
    active: Vec<Stream>,
    /// Every index maps to `active[0]`.
    uniform: bool,
    device_transients: Vec<Option<Box<dyn Any + Send + Sync>>>,
    host_transients: Vec<Option<Box<dyn Any + Send + Sync>>>,
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
    fn new(device: &Device, spec: &ProgramSpec) -> Result<Context> {
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
            program: spec.name,
            active: own.clone(),
            own,
            own_uniform: uniform,
            uniform,
            device_transients: Vec::new(),
            host_transients: Vec::new(),
        })
    }

    fn restore_own_streams(&mut self) {
        self.active = self.own.clone();
        self.uniform = self.own_uniform;
    }

    /// Each stream once (for waiting).
    pub(crate) fn distinct_streams(&self) -> Vec<Stream> {
        let mut out: Vec<Stream> = Vec::new();
        for s in &self.active {
            if !out.contains(s) {
                out.push(s.clone());
            }
        }
        out
    }

    /// The device.
    ///
    /// ```
    /// # use sdfg_runtime::*;
    /// # static SPEC: ProgramSpec = ProgramSpec { name: "p", ptx: "", kernels: &[], streams: StreamSpec::Default };
    /// let dev = Device::cpu();
    /// let program = Program::load(&dev, &SPEC)?;
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
    /// # use sdfg_runtime::*;
    /// # static SPEC: ProgramSpec = ProgramSpec { name: "p", ptx: "", kernels: &[], streams: StreamSpec::Default };
    /// let dev = Device::cpu();
    /// let program = Program::load(&dev, &SPEC)?;
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
    /// # use sdfg_runtime::*;
    /// # static SPEC: ProgramSpec = ProgramSpec { name: "p", ptx: "", kernels: &[], streams: StreamSpec::Default };
    /// let program = Program::load(&Device::cpu(), &SPEC)?;
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
    /// # use sdfg_runtime::*;
    /// # static SPEC: ProgramSpec = ProgramSpec { name: "p", ptx: "", kernels: &[], streams: StreamSpec::Default };
    /// let program = Program::load(&Device::cpu(), &SPEC)?;
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
        if !fits {
            // Drop the old one first (its memory is freed once unused).
            self.device_transients[slot] = None;
            self.device_transients[slot] =
                Some(Box::new(DeviceBuffer::<T>::zeros(&self.device, len)?));
        }
        Ok(())
    }

    /// Device transient `slot`, prepared before.
    ///
    /// # Panics
    /// If the slot was not prepared with element type `T` (a code-generator bug).
    ///
    /// ```
    /// # use sdfg_runtime::*;
    /// # static SPEC: ProgramSpec = ProgramSpec { name: "p", ptx: "", kernels: &[], streams: StreamSpec::Default };
    /// let program = Program::load(&Device::cpu(), &SPEC)?;
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
    /// # use sdfg_runtime::*;
    /// # static SPEC: ProgramSpec = ProgramSpec { name: "p", ptx: "", kernels: &[], streams: StreamSpec::Default };
    /// let program = Program::load(&Device::cpu(), &SPEC)?;
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

    /// Puts a host transient back (see [`Context::take_host_transient`]).
    ///
    /// ```
    /// # use sdfg_runtime::*;
    /// # static SPEC: ProgramSpec = ProgramSpec { name: "p", ptx: "", kernels: &[], streams: StreamSpec::Default };
    /// let program = Program::load(&Device::cpu(), &SPEC)?;
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

/// A context taken from a program's pool for one call. Derefs to [`Context`].
/// [`ContextGuard::finish`] turns it into the call's [`Running`]; dropping
/// it unfinished waits for its streams and returns it to the pool.
pub struct ContextGuard<'p> {
    program: &'p Program,
    context: Option<Context>,
}

impl std::fmt::Debug for ContextGuard<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContextGuard")
            .field("context", &self.context)
            .finish()
    }
}

impl ContextGuard<'_> {
    /// Ends issuing: the returned `Running<'a>` borrows the call's arguments
    /// for `'a` (pass `PhantomData` typed with their lifetime) and returns
    /// the context to the pool after waiting.
    ///
    /// ```
    /// # use sdfg_runtime::*;
    /// # use std::marker::PhantomData;
    /// # static SPEC: ProgramSpec = ProgramSpec { name: "p", ptx: "", kernels: &[], streams: StreamSpec::Default };
    /// let program = Program::load(&Device::cpu(), &SPEC)?;
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
        Running::new(context, Arc::clone(&self.program.pool))
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
            drop(Running::new(context, Arc::clone(&self.program.pool)));
        }
    }
}
