//! One SDFG loaded on one device: its module and its pool of contexts.

use crate::__glue::context::{Context, ContextGuard, ContextPool};
use crate::__glue::spec::{ProgramSpec, StreamSpec};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::kernel::module::Module;
use crate::lock::lock;
use crate::streams::stream::Stream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// One SDFG loaded on one device (`Send + Sync`): share it between threads;
/// each call takes its own [`Context`].
///
/// ```
/// use sdfg_runtime::Device;
/// use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
/// // SAFETY: no kernels, so nothing is ever launched.
/// static SPEC: ProgramSpec = unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Created(1)) };
/// let dev = Device::cpu();
/// let program = unsafe { Program::load(&dev, &SPEC) }?;
/// assert_eq!(program.device(), &dev);
/// assert!(program.module().kernel_names().is_empty());
/// # Ok::<(), sdfg_runtime::Error>(())
/// ```
pub struct Program {
    device: Device,
    spec: &'static ProgramSpec,
    module: Arc<Module>,
    pool: Arc<ContextPool>,
    /// Graph segments on (see [`Program::set_graphs`]).
    graphs: AtomicBool,
    /// Persistent states as one kernel (see [`Program::set_persistent`]).
    persistent: AtomicBool,
    /// Why segments ran on streams (shared with the contexts).
    notes: Arc<Mutex<Vec<String>>>,
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
    /// # Safety
    ///
    /// The program's glue launches the kernels of `spec` from safe code:
    /// the promise that [`ProgramSpec::new`] asks for must hold on
    /// `device`. It does for every spec that `sdfg!` generates.
    ///
    /// ```
    /// use sdfg_runtime::Device;
    /// use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
    /// // SAFETY: no kernels, so nothing is ever launched.
    /// static BAD: ProgramSpec = unsafe { ProgramSpec::new("bad", "", &[], StreamSpec::Created(0)) };
    /// assert!(unsafe { Program::load(&Device::cpu(), &BAD) }.is_err());
    /// ```
    pub unsafe fn load(device: &Device, spec: &'static ProgramSpec) -> Result<Program> {
        if spec.streams == StreamSpec::Created(0) {
            return Err(Error::InvalidArgument(format!(
                "program `{}` asks for 0 created streams; use at least 1",
                spec.name
            )));
        }
        // SAFETY: the spec's promise (our caller's contract) is the one
        // `Module::load` asks for.
        let module =
            unsafe { Module::load_with_cubins(device, spec.ptx, spec.cubins, spec.kernels) }?;
        Ok(Program {
            device: device.clone(),
            spec,
            module,
            pool: Arc::new(ContextPool::default()),
            graphs: AtomicBool::new(graphs_allowed_by_env()),
            persistent: AtomicBool::new(switched_on_by_env("SDFG_PERSISTENT")),
            notes: Arc::default(),
        })
    }

    /// The device it is loaded on.
    ///
    /// ```
    /// # use sdfg_runtime::Device;
    /// # use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
    /// # static SPEC: ProgramSpec = unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Default) };
    /// let dev = Device::cpu();
    /// assert!(!unsafe { Program::load(&dev, &SPEC) }?.device().is_gpu());
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Its loaded kernels.
    ///
    /// ```
    /// # use sdfg_runtime::Device;
    /// # use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
    /// # static SPEC: ProgramSpec = unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Default) };
    /// let program = unsafe { Program::load(&Device::cpu(), &SPEC) }?;
    /// assert_eq!(program.module().kernel_names().len(), 0);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn module(&self) -> &Arc<Module> {
        &self.module
    }

    /// Its spec.
    ///
    /// ```
    /// # use sdfg_runtime::Device;
    /// # use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
    /// # static SPEC: ProgramSpec = unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Default) };
    /// assert_eq!(unsafe { Program::load(&Device::cpu(), &SPEC) }?.spec().name(), "p");
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn spec(&self) -> &'static ProgramSpec {
        self.spec
    }

    /// An idle context from the pool, or a new one with its own streams
    /// (per the spec) and no transients yet.
    ///
    /// ```
    /// # use sdfg_runtime::Device;
    /// # use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
    /// # static SPEC: ProgramSpec = unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Created(2)) };
    /// let program = unsafe { Program::load(&Device::cpu(), &SPEC) }?;
    /// let a = program.context()?;
    /// let b = program.context()?; // a second, concurrent context
    /// assert_ne!(a.stream(0), b.stream(0));
    /// assert_ne!(a.stream(0), a.stream(1));
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn context(&self) -> Result<ContextGuard<'_>> {
        let context = match self.pool.take() {
            Some(c) => c,
            None => Box::new(Context::new(
                &self.device,
                self.spec,
                Arc::clone(&self.notes),
            )?),
        };
        Ok(ContextGuard::new(&self.pool, context))
    }

    /// A context whose every stream index maps to `stream` (for running the
    /// program on a caller's stream).
    ///
    /// ```
    /// # use sdfg_runtime::Device;
    /// # use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
    /// # static SPEC: ProgramSpec = unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Created(3)) };
    /// let dev = Device::cpu();
    /// let program = unsafe { Program::load(&dev, &SPEC) }?;
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
        guard.run_everything_on(stream);
        Ok(guard)
    }
}

impl Program {
    /// Are graph segments on for later calls? On at load unless the
    /// environment variable `SDFG_GRAPHS` is `off` (or `0`); a program
    /// generated with `#[graph(off)]` has no segments either way.
    ///
    /// ```
    /// # use sdfg_runtime::Device;
    /// # use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
    /// # static SPEC: ProgramSpec = unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Default) };
    /// let program = unsafe { Program::load(&Device::cpu(), &SPEC) }?;
    /// program.set_graphs(false);
    /// assert!(!program.graphs_enabled());
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn graphs_enabled(&self) -> bool {
        self.graphs.load(Ordering::Relaxed)
    }

    /// Turns graph segments off (or back on) for later calls: a switch for
    /// benchmarks and tests comparing the two modes. Results are the same.
    pub fn set_graphs(&self, on: bool) {
        self.graphs.store(on, Ordering::Relaxed);
    }

    /// Do `#[persistent]` states run as one kernel in later calls? On at
    /// load unless the environment variable `SDFG_PERSISTENT` is `off` (or
    /// `0`).
    ///
    /// ```
    /// # use sdfg_runtime::Device;
    /// # use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
    /// # static SPEC: ProgramSpec = unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Default) };
    /// let program = unsafe { Program::load(&Device::cpu(), &SPEC) }?;
    /// program.set_persistent(false);
    /// assert!(!program.persistent_enabled());
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn persistent_enabled(&self) -> bool {
        self.persistent.load(Ordering::Relaxed)
    }

    /// Runs `#[persistent]` states launch by launch (or again as one
    /// kernel) in later calls: a switch for benchmarks and tests comparing
    /// the two. Results are the same.
    pub fn set_persistent(&self, on: bool) {
        self.persistent.store(on, Ordering::Relaxed);
    }

    /// Why segments of this program ran on streams instead of as graphs,
    /// and why a persistent state ran launch by launch instead of as one
    /// kernel (distinct reasons, at most 32).
    ///
    /// ```
    /// # use sdfg_runtime::Device;
    /// # use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
    /// # static SPEC: ProgramSpec = unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Default) };
    /// let program = unsafe { Program::load(&Device::cpu(), &SPEC) }?;
    /// assert!(program.graph_notes().is_empty());
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn graph_notes(&self) -> Vec<String> {
        lock(&self.notes).clone()
    }
}

/// Is the switch `var` of the environment not `off` (`0`, `false`)?
fn switched_on_by_env(var: &str) -> bool {
    !matches!(
        std::env::var(var).as_deref().map(str::trim),
        Ok("off" | "0" | "false")
    )
}

/// `SDFG_GRAPHS=off` (or `0`, `false`) turns graph segments off in the
/// whole process (read once).
fn graphs_allowed_by_env() -> bool {
    static ALLOWED: OnceLock<bool> = OnceLock::new();
    *ALLOWED.get_or_init(|| switched_on_by_env("SDFG_GRAPHS"))
}
