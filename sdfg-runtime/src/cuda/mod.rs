//! Thin, owned wrappers around the CUDA driver (through cudarc's `result` and
//! `sys` layers). cudarc's safe layer is not used: it tracks events itself,
//! and this runtime needs to decide (and count) every event and sync.
//!
//! Every object here exists only after [`CudaContext::new`] succeeded, so
//! libcuda is loaded whenever one of their methods runs (cudarc panics on a
//! call without libcuda).

pub(crate) mod cooperative;
pub(crate) mod graph;
pub(crate) mod load;

use crate::error::{Error, Result};
use crate::lock::lock;
use cudarc::driver::result::{self as cu, DriverError};
use cudarc::driver::sys;
use std::ffi::{c_void, CString};
use std::sync::{Arc, Mutex};

/// Turns a driver error into an [`Error::Driver`] naming the call.
pub(crate) fn driver(call: &'static str) -> impl Fn(DriverError) -> Error {
    move |e| Error::Driver {
        call,
        message: describe(e),
    }
}

fn describe(e: DriverError) -> String {
    let name = e
        .error_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("{:?}", e.0));
    match e.error_string() {
        Ok(s) => format!("{name}: {}", s.to_string_lossy()),
        Err(_) => name,
    }
}

/// Maps an allocation failure: out-of-memory becomes [`Error::OutOfMemory`],
/// and so does "invalid value" (the only invalid argument of these calls is a
/// size beyond what the driver can map).
fn alloc_error(call: &'static str, bytes: usize) -> impl Fn(DriverError) -> Error {
    move |e| {
        if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY
            || e.0 == sys::CUresult::CUDA_ERROR_INVALID_VALUE
        {
            Error::OutOfMemory {
                bytes: bytes as u64,
            }
        } else {
            driver(call)(e)
        }
    }
}

/// The primary context of one GPU, retained for as long as this lives.
pub(crate) struct CudaContext {
    ctx: sys::CUcontext,
    dev: sys::CUdevice,
    pub(crate) name: String,
    pub(crate) sm_count: u32,
    /// Compute capability as `major * 10 + minor` (90 on an H100/H200).
    pub(crate) compute_capability: u32,
}

// SAFETY: a CUcontext handle may be used from any thread (the driver API is
// thread-safe); we bind it to the calling thread before each use.
unsafe impl Send for CudaContext {}
// SAFETY: as above.
unsafe impl Sync for CudaContext {}

impl CudaContext {
    /// Opens GPU `ordinal`; every failure (no libcuda, no GPU, bad ordinal,
    /// even a panic inside cudarc) is an `Err`.
    pub(crate) fn new(ordinal: usize) -> Result<Arc<Self>> {
        // SAFETY: `is_culib_present` only tries to dlopen the library.
        if !unsafe { sys::is_culib_present() } {
            return Err(Error::NoCuda {
                reason: "the cuda driver library (libcuda.so) was not found".into(),
            });
        }
        // cudarc panics when a symbol is missing (a driver older than the
        // bindings); contain that as an error too.
        match std::panic::catch_unwind(|| Self::open(ordinal)) {
            Ok(result) => result,
            Err(panic) => Err(Error::NoCuda {
                reason: format!(
                    "the cuda driver could not be used: {}",
                    crate::error::panic_message(&*panic)
                ),
            }),
        }
    }

    fn open(ordinal: usize) -> Result<Arc<Self>> {
        cu::init().map_err(|e| Error::NoCuda {
            reason: format!("cuInit failed: {}", describe(e)),
        })?;
        let count = cu::device::get_count().map_err(driver("cuDeviceGetCount"))?;
        if count <= 0 {
            return Err(Error::NoCuda {
                reason: "the cuda driver reports no gpu".into(),
            });
        }
        if ordinal >= count as usize {
            return Err(Error::NoCuda {
                reason: format!("there is no gpu {ordinal}: the driver reports {count} gpu(s)"),
            });
        }
        let dev = cu::device::get(ordinal as i32).map_err(driver("cuDeviceGet"))?;
        // SAFETY: `dev` was returned by cuDeviceGet.
        let ctx =
            unsafe { cu::primary_ctx::retain(dev) }.map_err(driver("cuDevicePrimaryCtxRetain"))?;
        let mut this = CudaContext {
            ctx,
            dev,
            name: String::new(),
            sm_count: 1,
            compute_capability: 0,
        };
        this.bind()?;
        this.name = cu::device::get_name(dev).map_err(driver("cuDeviceGetName"))?;
        // SAFETY: `dev` is a valid device.
        let sms = unsafe {
            cu::device::get_attribute(
                dev,
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            )
        }
        .map_err(driver("cuDeviceGetAttribute"))?;
        this.sm_count = sms.max(1) as u32;
        let attribute = |a| {
            // SAFETY: `dev` is a valid device.
            unsafe { cu::device::get_attribute(dev, a) }.map_err(driver("cuDeviceGetAttribute"))
        };
        let major =
            attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
        let minor =
            attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
        this.compute_capability = (major.max(0) * 10 + minor.max(0)) as u32;
        Ok(Arc::new(this))
    }

    /// Makes this context current on the calling thread (cheap when it is).
    pub(crate) fn bind(&self) -> Result<()> {
        let current = cu::ctx::get_current().map_err(driver("cuCtxGetCurrent"))?;
        if current != Some(self.ctx) {
            // SAFETY: `ctx` is a retained primary context, alive while `self` is.
            unsafe { cu::ctx::set_current(self.ctx) }.map_err(driver("cuCtxSetCurrent"))?;
        }
        Ok(())
    }

    /// `(free, total)` bytes of device memory.
    pub(crate) fn mem_info(&self) -> Result<(usize, usize)> {
        self.bind()?;
        cu::mem_get_info().map_err(driver("cuMemGetInfo"))
    }
}

impl Drop for CudaContext {
    fn drop(&mut self) {
        // SAFETY: `dev` is the device whose primary context we retained once.
        let _ = unsafe { cu::primary_ctx::release(self.dev) };
    }
}

/// A CUDA stream: a created non-blocking stream, the legacy default stream,
/// or a caller's stream (kept alive by `_keep_alive`, never destroyed here).
pub(crate) struct CudaStream {
    pub(crate) raw: sys::CUstream,
    owned: bool,
    pub(crate) ctx: Arc<CudaContext>,
    _keep_alive: Option<Arc<dyn std::any::Any + Send + Sync>>,
}

// SAFETY: stream handles may be used from any thread.
unsafe impl Send for CudaStream {}
// SAFETY: as above.
unsafe impl Sync for CudaStream {}

impl CudaStream {
    /// A new stream with `CU_STREAM_NON_BLOCKING`: it never synchronizes
    /// implicitly with the legacy default stream; the runtime orders it
    /// explicitly with events.
    pub(crate) fn create(ctx: &Arc<CudaContext>) -> Result<Self> {
        ctx.bind()?;
        let raw = cu::stream::create(cu::stream::StreamKind::NonBlocking)
            .map_err(driver("cuStreamCreate"))?;
        Ok(CudaStream {
            raw,
            owned: true,
            ctx: Arc::clone(ctx),
            _keep_alive: None,
        })
    }

    /// The legacy default stream (the NULL handle: cudarc calls the non-`_ptsz`
    /// driver entry points, for which NULL means the legacy stream).
    pub(crate) fn legacy_default(ctx: &Arc<CudaContext>) -> Self {
        CudaStream {
            raw: cu::stream::null(),
            owned: false,
            ctx: Arc::clone(ctx),
            _keep_alive: None,
        }
    }

    /// A caller's cudarc stream: used, never destroyed; `owner` (the
    /// caller's `Arc<cudarc::driver::CudaStream>`) keeps the handle alive for
    /// as long as this runtime may touch it. `Err` when it belongs to another
    /// context than `ctx` (cudarc's `CudaContext::new(ordinal)` retains the
    /// same primary context as [`CudaContext::new`]).
    pub(crate) fn borrowed(
        ctx: &Arc<CudaContext>,
        owner: &Arc<cudarc::driver::CudaStream>,
    ) -> Result<Self> {
        if owner.context().cu_ctx() != ctx.ctx {
            return Err(Error::WrongDevice {
                what: format!(
                    "the cudarc stream belongs to another cuda context than {} (use \
                     `cudarc::driver::CudaContext::new(ordinal)`, the device's primary context)",
                    ctx.name
                ),
            });
        }
        Ok(CudaStream {
            raw: owner.cu_stream(),
            owned: false,
            ctx: Arc::clone(ctx),
            _keep_alive: Some(Arc::clone(owner) as Arc<dyn std::any::Any + Send + Sync>),
        })
    }

    pub(crate) fn synchronize(&self) -> Result<()> {
        self.ctx.bind()?;
        // SAFETY: the stream is alive (owned by self) or the legacy stream.
        unsafe { cu::stream::synchronize(self.raw) }.map_err(driver("cuStreamSynchronize"))
    }

    pub(crate) fn wait_event(&self, event: &CudaEvent) -> Result<()> {
        self.ctx.bind()?;
        // SAFETY: both handles are alive.
        unsafe {
            cu::stream::wait_event(
                self.raw,
                event.raw,
                sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
            )
        }
        .map_err(driver("cuStreamWaitEvent"))
    }
}

impl Drop for CudaStream {
    fn drop(&mut self) {
        if self.owned && self.ctx.bind().is_ok() {
            // Work still queued must finish before the runtime frees the
            // staging memory that this stream's owner drops next.
            // SAFETY: the stream is alive and destroyed only here.
            unsafe {
                let _ = cu::stream::synchronize(self.raw);
                let _ = cu::stream::destroy(self.raw);
            }
        }
    }
}

/// A CUDA event.
pub(crate) struct CudaEvent {
    pub(crate) raw: sys::CUevent,
    ctx: Arc<CudaContext>,
}

// SAFETY: event handles may be used from any thread.
unsafe impl Send for CudaEvent {}
// SAFETY: as above.
unsafe impl Sync for CudaEvent {}

impl CudaEvent {
    /// Records a new event on `stream`; `timing` keeps timing enabled.
    pub(crate) fn record(stream: &CudaStream, timing: bool) -> Result<Self> {
        stream.ctx.bind()?;
        let flags = if timing {
            sys::CUevent_flags::CU_EVENT_DEFAULT
        } else {
            sys::CUevent_flags::CU_EVENT_DISABLE_TIMING
        };
        let raw = cu::event::create(flags).map_err(driver("cuEventCreate"))?;
        let event = CudaEvent {
            raw,
            ctx: Arc::clone(&stream.ctx),
        };
        // SAFETY: both handles are alive.
        unsafe { cu::event::record(event.raw, stream.raw) }.map_err(driver("cuEventRecord"))?;
        Ok(event)
    }

    pub(crate) fn synchronize(&self) -> Result<()> {
        self.ctx.bind()?;
        // SAFETY: the event is alive.
        unsafe { cu::event::synchronize(self.raw) }.map_err(driver("cuEventSynchronize"))
    }

    /// Non-blocking: has the work before the event finished?
    pub(crate) fn is_complete(&self) -> bool {
        self.ctx.bind().is_ok()
            // SAFETY: the event is alive.
            && unsafe { cu::event::query(self.raw) }.is_ok()
    }

    pub(crate) fn elapsed_ms(start: &CudaEvent, end: &CudaEvent) -> Result<f32> {
        start.ctx.bind()?;
        // SAFETY: both events are alive and were created with timing enabled
        // (the caller checked); the driver reports an error if they are not
        // complete.
        unsafe { cu::event::elapsed(start.raw, end.raw) }.map_err(driver("cuEventElapsedTime"))
    }
}

impl Drop for CudaEvent {
    fn drop(&mut self) {
        if self.ctx.bind().is_ok() {
            // SAFETY: destroyed once; the driver releases it after completion.
            let _ = unsafe { cu::event::destroy(self.raw) };
        }
    }
}

/// Device memory from `cuMemAlloc`.
pub(crate) struct DeviceAlloc {
    pub(crate) ptr: sys::CUdeviceptr,
    ctx: Arc<CudaContext>,
}

impl DeviceAlloc {
    /// Allocates and zero-fills `bytes` (at least 1, so the pointer is valid).
    /// The fill runs on the legacy default stream and is waited for here.
    pub(crate) fn zeroed(ctx: &Arc<CudaContext>, bytes: usize) -> Result<Self> {
        ctx.bind()?;
        let size = bytes.max(1);
        // SAFETY: a plain allocation; the memory is initialized just below.
        let ptr = unsafe { cu::malloc_sync(size) }.map_err(alloc_error("cuMemAlloc", bytes))?;
        let alloc = DeviceAlloc {
            ptr,
            ctx: Arc::clone(ctx),
        };
        let legacy = cu::stream::null();
        // SAFETY: `ptr` is a fresh allocation of `size` bytes, no one else
        // uses it; the legacy stream exists in every context.
        unsafe {
            cu::memset_d8_async(ptr, 0, size, legacy).map_err(driver("cuMemsetD8Async"))?;
            cu::stream::synchronize(legacy).map_err(driver("cuStreamSynchronize"))?;
        }
        Ok(alloc)
    }
}

impl Drop for DeviceAlloc {
    fn drop(&mut self) {
        if self.ctx.bind().is_ok() {
            // SAFETY: the owner (DeviceBuffer) waited for every stream use of
            // this memory before dropping it; freed once.
            let _ = unsafe { cu::memory_free(self.ptr) };
        }
    }
}

/// Page-locked host memory from `cuMemHostAlloc` (never write-combined, so
/// host reads of downloaded data are fast). Optionally mapped into the device
/// address space (`device_ptr`).
pub(crate) struct PinnedBlock {
    pub(crate) ptr: *mut c_void,
    pub(crate) bytes: usize,
    pub(crate) device_ptr: u64,
    ctx: Arc<CudaContext>,
}

// SAFETY: the block owns its allocation; access is ordered by the trackers.
unsafe impl Send for PinnedBlock {}
// SAFETY: as above.
unsafe impl Sync for PinnedBlock {}

impl PinnedBlock {
    /// Allocates `bytes` (at least 1) of zeroed pinned memory.
    pub(crate) fn new(ctx: &Arc<CudaContext>, bytes: usize, mapped: bool) -> Result<Self> {
        ctx.bind()?;
        let size = bytes.max(1);
        let flags = if mapped {
            sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE
        } else {
            sys::CU_MEMHOSTALLOC_PORTABLE
        };
        // SAFETY: a plain allocation, zeroed right below.
        let ptr = unsafe { cu::malloc_host(size, flags) }
            .map_err(alloc_error("cuMemHostAlloc", bytes))?;
        let mut block = PinnedBlock {
            ptr,
            bytes,
            device_ptr: 0,
            ctx: Arc::clone(ctx),
        };
        // SAFETY: `ptr` is valid for `size` bytes and not shared yet.
        unsafe { std::ptr::write_bytes(ptr as *mut u8, 0, size) };
        if mapped {
            let mut dptr: sys::CUdeviceptr = 0;
            // SAFETY: `ptr` was allocated with CU_MEMHOSTALLOC_DEVICEMAP.
            unsafe { sys::cuMemHostGetDevicePointer_v2(&mut dptr, ptr, 0) }
                .result()
                .map_err(driver("cuMemHostGetDevicePointer"))?;
            block.device_ptr = dptr;
        }
        Ok(block)
    }
}

impl Drop for PinnedBlock {
    fn drop(&mut self) {
        if self.ctx.bind().is_ok() {
            // SAFETY: the owner ordered every stream use before dropping; freed once.
            let _ = unsafe { cu::free_host(self.ptr) };
        }
    }
}

/// Pinned staging blocks free for reuse (one pool per CUDA device): uploads
/// from pageable memory and downloads into slices go through them.
#[derive(Default)]
pub(crate) struct StagingPool {
    free: Mutex<Vec<PinnedBlock>>,
}

impl StagingPool {
    /// The smallest free block of at least `bytes`, or a new one.
    pub(crate) fn take(&self, ctx: &Arc<CudaContext>, bytes: usize) -> Result<PinnedBlock> {
        let mut pool = lock(&self.free);
        let best = pool
            .iter()
            .enumerate()
            .filter(|(_, b)| b.bytes >= bytes)
            .min_by_key(|(_, b)| b.bytes)
            .map(|(i, _)| i);
        if let Some(i) = best {
            return Ok(pool.swap_remove(i));
        }
        drop(pool);
        PinnedBlock::new(ctx, bytes, false)
    }

    /// Returns a block to the pool (bounded; the rest is freed).
    pub(crate) fn give_back(&self, block: PinnedBlock) {
        const MAX_POOLED: usize = 16;
        let mut pool = lock(&self.free);
        if pool.len() < MAX_POOLED {
            pool.push(block);
        }
    }

    /// Frees every pooled block (while the context is still retained).
    pub(crate) fn clear(&self) {
        lock(&self.free).clear();
    }
}

/// A loaded module and its kernels.
pub(crate) struct CudaModule {
    raw: sys::CUmodule,
    pub(crate) functions: Vec<sys::CUfunction>,
    ctx: Arc<CudaContext>,
}

// SAFETY: module and function handles may be used from any thread.
unsafe impl Send for CudaModule {}
// SAFETY: as above.
unsafe impl Sync for CudaModule {}

impl CudaModule {
    /// JIT-compiles `ptx` with info and error logs; a failure carries the logs.
    pub(crate) fn load(ctx: &Arc<CudaContext>, ptx: &str, names: &[&str]) -> Result<Self> {
        ctx.bind()?;
        let image = CString::new(ptx)
            .map_err(|_| Error::InvalidArgument("the ptx text contains a nul byte".into()))?;
        let mut logs = JitLogs::new();
        let mut raw: sys::CUmodule = std::ptr::null_mut();
        // SAFETY: `image` is a nul-terminated PTX text; the option arrays
        // have 4 entries each and the log buffers outlive the call.
        let status = unsafe {
            sys::cuModuleLoadDataEx(
                &mut raw,
                image.as_ptr() as *const c_void,
                logs.options.len() as u32,
                logs.options.as_mut_ptr(),
                logs.values.as_mut_ptr(),
            )
        };
        if let Err(e) = status.result() {
            return Err(Error::JitFailed {
                log: logs.failure(e),
            });
        }
        Self::with_functions(ctx, raw, names)
    }

    /// Takes ownership of a loaded module and looks up each entry.
    pub(crate) fn with_functions(
        ctx: &Arc<CudaContext>,
        raw: sys::CUmodule,
        names: &[&str],
    ) -> Result<Self> {
        let mut module = CudaModule {
            raw,
            functions: Vec::with_capacity(names.len()),
            ctx: Arc::clone(ctx),
        };
        for name in names {
            let c_name = CString::new(*name).map_err(|_| {
                Error::InvalidArgument(format!("kernel name {name:?} contains a nul byte"))
            })?;
            // SAFETY: the module is loaded and alive.
            let f = unsafe { cu::module::get_function(module.raw, c_name) }.map_err(|e| {
                Error::InvalidArgument(format!(
                    "the ptx module has no kernel `{name}` ({})",
                    describe(e)
                ))
            })?;
            module.functions.push(f);
        }
        Ok(module)
    }
}

/// The info and error log buffers of a JIT call, as driver options.
pub(crate) struct JitLogs {
    info: Vec<u8>,
    error: Vec<u8>,
    pub(crate) options: [sys::CUjit_option; 4],
    pub(crate) values: [*mut c_void; 4],
}

impl JitLogs {
    const BYTES: usize = 64 * 1024;

    pub(crate) fn new() -> Box<Self> {
        let mut logs = Box::new(JitLogs {
            info: vec![0u8; Self::BYTES],
            error: vec![0u8; Self::BYTES],
            options: [
                sys::CUjit_option::CU_JIT_INFO_LOG_BUFFER,
                sys::CUjit_option::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
                sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            ],
            values: [std::ptr::null_mut(); 4],
        });
        // Size options are passed by value in the pointer slot (the driver
        // API's convention) and overwritten with the log lengths.
        logs.values = [
            logs.info.as_mut_ptr() as *mut c_void,
            Self::BYTES as *mut c_void,
            logs.error.as_mut_ptr() as *mut c_void,
            Self::BYTES as *mut c_void,
        ];
        logs
    }

    /// The error log, the driver's message and the info log.
    pub(crate) fn failure(&self, e: DriverError) -> String {
        let text = |buf: &[u8], len: *mut c_void| {
            let len = (len as usize).min(buf.len());
            let end = buf[..len].iter().position(|&b| b == 0).unwrap_or(len);
            String::from_utf8_lossy(&buf[..end]).trim().to_string()
        };
        let error_text = text(&self.error, self.values[3]);
        let info_text = text(&self.info, self.values[1]);
        let mut log = format!("{} ({})", error_text, describe(e));
        if !info_text.is_empty() {
            log.push_str("\ninfo: ");
            log.push_str(&info_text);
        }
        log
    }
}

impl Drop for CudaModule {
    fn drop(&mut self) {
        if self.ctx.bind().is_ok() {
            // SAFETY: unloaded once; modules live in the device's cache, which
            // is dropped only with the device (after its streams).
            let _ = unsafe { cu::module::unload(self.raw) };
        }
    }
}

/// The shared memory (static plus dynamic) a block may use without the
/// function opting in (48 KiB).
const SHARED_WITHOUT_OPT_IN: u32 = 48 * 1024;

/// Lets `f` run with `shared_bytes` of dynamic shared memory: more than
/// 48 KiB in all (the kernel's static `.shared` data, e.g. a block map's
/// constant-size data and reduction slots, plus the dynamic bytes) must be
/// allowed per function. The allowance only grows: a kernel node of a CUDA
/// graph built earlier with more bytes keeps what it was built with when a
/// later stream launch needs fewer. The caller has bound `f`'s context.
pub(crate) fn allow_shared_bytes(f: sys::CUfunction, shared_bytes: u32) -> Result<()> {
    if shared_bytes == 0 {
        return Ok(());
    }
    use sys::CUfunction_attribute_enum as Attr;
    let attribute = |a| {
        // SAFETY: `f` is a function of a module loaded in the bound context.
        unsafe { cu::function::get_function_attribute(f, a) }.map_err(driver("cuFuncGetAttribute"))
    };
    let fixed = attribute(Attr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?;
    if (fixed.max(0) as u64) + u64::from(shared_bytes) <= u64::from(SHARED_WITHOUT_OPT_IN) {
        return Ok(());
    }
    // Read and raise under one lock, so that two threads never lower what
    // the other just allowed.
    static RAISING: Mutex<()> = Mutex::new(());
    let _raising = lock(&RAISING);
    let allowed = attribute(Attr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)?;
    if allowed.max(0) as u64 >= u64::from(shared_bytes) {
        return Ok(());
    }
    // SAFETY: as above.
    unsafe {
        cu::function::set_function_attribute(
            f,
            Attr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            shared_bytes as i32,
        )
    }
    .map_err(driver("cuFuncSetAttribute"))
}

/// Launches `f` with the given parameter storage (one 16-byte slot per
/// parameter, little-endian, so 1-, 2-, 4- and 8-byte parameters read their
/// low bytes). `programmatic`: `f` waits for its grid dependencies before
/// it touches memory (`Module::programmatic_launches`), so it is launched
/// with programmatic stream serialization: it may be scheduled while the
/// kernel before it on the stream finishes (only that kernel's dependency
/// is relaxed, and the wait restores it; copies and event waits keep
/// theirs).
pub(crate) fn launch(
    stream: &CudaStream,
    f: sys::CUfunction,
    shape: LaunchShape,
    params: &mut [u128],
    programmatic: bool,
) -> Result<()> {
    stream.ctx.bind()?;
    allow_shared_bytes(f, shape.shared_bytes)?;
    // One 16-byte slot per parameter (a complex value fills it; the driver
    // reads as many low bytes as the kernel's parameter has). The pointer
    // array is on the stack for up to `INLINE` parameters: a launch
    // allocates nothing.
    const INLINE: usize = 32;
    let mut inline = [std::ptr::null_mut::<c_void>(); INLINE];
    let mut spilled: Vec<*mut c_void> = Vec::new();
    let pointers: &mut [*mut c_void] = if params.len() <= INLINE {
        let slots = &mut inline[..params.len()];
        for (pointer, slot) in slots.iter_mut().zip(params.iter_mut()) {
            *pointer = slot as *mut u128 as *mut c_void;
        }
        slots
    } else {
        spilled.extend(
            params
                .iter_mut()
                .map(|slot| slot as *mut u128 as *mut c_void),
        );
        &mut spilled
    };
    let (grid, block) = (shape.grid, shape.block);
    if programmatic {
        // SAFETY: the value is a union of plain integers and structs of
        // them, for which all-zero bytes are valid.
        let mut value: sys::CUlaunchAttributeValue = unsafe { std::mem::zeroed() };
        // The member the attribute's id names.
        value.programmaticStreamSerializationAllowed = 1;
        let mut attribute = sys::CUlaunchAttribute {
            id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
            pad: [0; 4],
            value,
        };
        let config = sys::CUlaunchConfig {
            gridDimX: grid[0],
            gridDimY: grid[1],
            gridDimZ: grid[2],
            blockDimX: block[0],
            blockDimY: block[1],
            blockDimZ: block[2],
            sharedMemBytes: shape.shared_bytes,
            hStream: stream.raw,
            attrs: &mut attribute,
            numAttrs: 1,
        };
        // SAFETY: as for `cuLaunchKernel` below; `config` and its one
        // attribute live across the call; the kernel's first instruction
        // waits for the kernels it depends on (the caller's promise), so
        // the relaxed serialization cannot let it see or clobber data they
        // still use.
        return unsafe {
            sys::cuLaunchKernelEx(&config, f, pointers.as_mut_ptr(), std::ptr::null_mut())
        }
        .result()
        .map_err(driver("cuLaunchKernelEx"));
    }
    // SAFETY: `f` comes from a loaded module of this context; every pointer
    // points to a live, 16-byte aligned u128 that the driver copies during
    // the call (it reads the parameter's size from the kernel); buffer
    // parameters are device pointers whose memory outlives the kernel (the
    // buffer tracker orders the free after this launch).
    unsafe {
        cu::launch_kernel(
            f,
            (grid[0], grid[1], grid[2]),
            (block[0], block[1], block[2]),
            shape.shared_bytes,
            stream.raw,
            pointers,
        )
    }
    .map_err(driver("cuLaunchKernel"))
}

/// A launch's grid, block and dynamic shared memory.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LaunchShape {
    pub(crate) grid: [u32; 3],
    pub(crate) block: [u32; 3],
    pub(crate) shared_bytes: u32,
}

/// Issues a fill of `bytes` bytes at device address `ptr` with zeros on
/// `stream` (ordered like any other work of the stream).
pub(crate) fn zero_async(stream: &CudaStream, ptr: sys::CUdeviceptr, bytes: usize) -> Result<()> {
    stream.ctx.bind()?;
    // SAFETY: the caller passes an allocation of at least `bytes` bytes and
    // keeps it alive until the stream's work completes (its tracker records
    // the write); `stream.raw` belongs to this context.
    unsafe { cu::memset_d8_async(ptr, 0, bytes, stream.raw) }.map_err(driver("cuMemsetD8Async"))
}

/// One side of a strided copy.
#[derive(Clone, Copy)]
pub(crate) enum Side {
    Device(u64),
    Host(*mut c_void),
}

/// Issues a 2-D copy (`height` rows of `width_bytes`, with pitches) on `stream`.
pub(crate) fn copy_2d(
    stream: &CudaStream,
    src: Side,
    src_pitch: usize,
    dst: Side,
    dst_pitch: usize,
    width_bytes: usize,
    height: usize,
) -> Result<()> {
    stream.ctx.bind()?;
    if height == 1 {
        // SAFETY (all arms): the caller validated both regions against their
        // allocations and keeps the memory alive until the copy completes.
        let status = unsafe {
            match (src, dst) {
                (Side::Host(s), Side::Device(d)) => {
                    sys::cuMemcpyHtoDAsync_v2(d, s, width_bytes, stream.raw)
                }
                (Side::Device(s), Side::Host(d)) => {
                    sys::cuMemcpyDtoHAsync_v2(d, s, width_bytes, stream.raw)
                }
                (Side::Device(s), Side::Device(d)) => {
                    sys::cuMemcpyDtoDAsync_v2(d, s, width_bytes, stream.raw)
                }
                (Side::Host(_), Side::Host(_)) => {
                    return Err(Error::InvalidArgument(
                        "host-to-host copy on a stream".into(),
                    ))
                }
            }
        };
        return status.result().map_err(driver("cuMemcpyAsync"));
    }
    let mut p: sys::CUDA_MEMCPY2D = sys::CUDA_MEMCPY2D {
        srcXInBytes: 0,
        srcY: 0,
        srcMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_HOST,
        srcHost: std::ptr::null(),
        srcDevice: 0,
        srcArray: std::ptr::null_mut(),
        srcPitch: src_pitch,
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_HOST,
        dstHost: std::ptr::null_mut(),
        dstDevice: 0,
        dstArray: std::ptr::null_mut(),
        dstPitch: dst_pitch,
        WidthInBytes: width_bytes,
        Height: height,
    };
    match src {
        Side::Host(h) => p.srcHost = h,
        Side::Device(d) => {
            p.srcMemoryType = sys::CUmemorytype::CU_MEMORYTYPE_DEVICE;
            p.srcDevice = d;
        }
    }
    match dst {
        Side::Host(h) => p.dstHost = h,
        Side::Device(d) => {
            p.dstMemoryType = sys::CUmemorytype::CU_MEMORYTYPE_DEVICE;
            p.dstDevice = d;
        }
    }
    // SAFETY: as above; `p` describes memory inside validated regions.
    unsafe { sys::cuMemcpy2DAsync_v2(&p, stream.raw) }
        .result()
        .map_err(driver("cuMemcpy2DAsync"))
}

/// Uploads `data` into the start of `alloc` and waits for it (legacy default
/// stream: the allocation is fresh, no stream of the runtime knows it yet).
pub(crate) fn upload_sync<T: Copy>(alloc: &DeviceAlloc, data: &[T]) -> Result<()> {
    if data.is_empty() {
        return Ok(());
    }
    alloc.ctx.bind()?;
    let legacy = cu::stream::null();
    // SAFETY: `alloc` holds at least `size_of_val(data)` bytes (allocated for
    // exactly this length); `data` stays borrowed until the synchronize
    // below returns, so the (pageable) source outlives the copy.
    unsafe {
        cu::memcpy_htod_async(alloc.ptr, data, legacy).map_err(driver("cuMemcpyHtoDAsync"))?;
        cu::stream::synchronize(legacy).map_err(driver("cuStreamSynchronize"))
    }
}
