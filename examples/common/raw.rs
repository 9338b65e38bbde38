//! Raw CUDA driver calls through cudarc's `result` layer, for the baselines:
//! module loading, allocation, launches, events. Nothing here goes through
//! the sdfg runtime, so a baseline measures the driver and the hand-written
//! PTX only. Used only when the device is a GPU (cudarc panics without
//! libcuda).

use cudarc::driver::result::{self as cu, DriverError};
use cudarc::driver::sys;
use std::ffi::{c_void, CString};

pub type RawResult<T> = Result<T, String>;

fn err(call: &'static str) -> impl Fn(DriverError) -> String {
    move |e| format!("{call}: {e:?}")
}

/// GPU 0's primary context (the one the sdfg runtime uses too: buffers of
/// either side are valid in both), made current, and a stream of our own.
pub struct RawCuda {
    dev: sys::CUdevice,
    ctx: sys::CUcontext,
    pub stream: sys::CUstream,
    pub sm_count: u32,
}

impl RawCuda {
    pub fn new() -> RawResult<RawCuda> {
        cu::init().map_err(err("cuInit"))?;
        let dev = cu::device::get(0).map_err(err("cuDeviceGet"))?;
        // SAFETY: `dev` came from cuDeviceGet; the context is released in Drop.
        let ctx =
            unsafe { cu::primary_ctx::retain(dev) }.map_err(err("cuDevicePrimaryCtxRetain"))?;
        // SAFETY: a retained context.
        unsafe { cu::ctx::set_current(ctx) }.map_err(err("cuCtxSetCurrent"))?;
        // SAFETY: a valid device and attribute.
        let sm_count = unsafe {
            cu::device::get_attribute(
                dev,
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            )
        }
        .map_err(err("cuDeviceGetAttribute"))? as u32;
        let stream = cu::stream::create(cu::stream::StreamKind::NonBlocking)
            .map_err(err("cuStreamCreate"))?;
        Ok(RawCuda {
            dev,
            ctx,
            stream,
            sm_count,
        })
    }

    /// Makes the context current on this thread again (the sdfg runtime
    /// binds the same primary context, so this is normally a no-op).
    pub fn bind(&self) -> RawResult<()> {
        // SAFETY: the context is retained while `self` lives.
        unsafe { cu::ctx::set_current(self.ctx) }.map_err(err("cuCtxSetCurrent"))
    }

    /// `cuModuleLoadData` of PTX text.
    pub fn load_module(&self, ptx: &str) -> RawResult<RawModule> {
        self.bind()?;
        let image = CString::new(ptx).map_err(|_| "PTX with a NUL byte".to_string())?;
        // SAFETY: a NUL-terminated PTX image.
        let raw = unsafe { cu::module::load_data(image.as_ptr() as *const c_void) }
            .map_err(err("cuModuleLoadData"))?;
        Ok(RawModule { raw })
    }

    /// `cuLaunchKernel` on our stream; checks the launch's return code.
    ///
    /// # Safety
    /// `params` must match the kernel's parameter list, pointing at values
    /// that live until the call returns, and the buffers must be large enough
    /// for the kernel's accesses.
    pub unsafe fn launch(
        &self,
        f: sys::CUfunction,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        params: &mut [*mut c_void],
    ) -> RawResult<()> {
        // SAFETY: per the caller's contract.
        unsafe { cu::launch_kernel(f, grid, block, 0, self.stream, params) }
            .map_err(err("cuLaunchKernel"))
    }

    pub fn synchronize(&self) -> RawResult<()> {
        // SAFETY: our stream.
        unsafe { cu::stream::synchronize(self.stream) }.map_err(err("cuStreamSynchronize"))
    }

    /// Milliseconds of the work `issue` puts on our stream, between two
    /// events (the check of every call inside `issue` is the caller's).
    pub fn time_ms(&self, issue: impl FnOnce() -> RawResult<()>) -> RawResult<f64> {
        let start = cu::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)
            .map_err(err("cuEventCreate"))?;
        let end = cu::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)
            .map_err(err("cuEventCreate"))?;
        // SAFETY: live events on our live stream; destroyed below.
        unsafe {
            let result = (|| {
                cu::event::record(start, self.stream).map_err(err("cuEventRecord"))?;
                issue()?;
                cu::event::record(end, self.stream).map_err(err("cuEventRecord"))?;
                cu::event::synchronize(end).map_err(err("cuEventSynchronize"))?;
                cu::event::elapsed(start, end).map_err(err("cuEventElapsedTime"))
            })();
            let _ = cu::event::destroy(start);
            let _ = cu::event::destroy(end);
            result.map(|ms| ms as f64)
        }
    }

    /// A device allocation holding `data`.
    pub fn upload<T: Copy>(&self, data: &[T]) -> RawResult<RawBuffer> {
        let buf = self.alloc(std::mem::size_of_val(data))?;
        // SAFETY: `buf` holds exactly these bytes.
        unsafe { cu::memcpy_htod_sync(buf.ptr, data) }.map_err(err("cuMemcpyHtoD"))?;
        Ok(buf)
    }

    pub fn alloc(&self, bytes: usize) -> RawResult<RawBuffer> {
        self.bind()?;
        // SAFETY: a plain allocation, freed in RawBuffer's Drop.
        let ptr = unsafe { cu::malloc_sync(bytes.max(4)) }.map_err(err("cuMemAlloc"))?;
        Ok(RawBuffer { ptr, bytes })
    }

    /// The buffer's contents as `T`s (after a stream synchronization).
    pub fn download<T: Copy + Default>(&self, buf: &RawBuffer) -> RawResult<Vec<T>> {
        self.synchronize()?;
        let mut out = vec![T::default(); buf.bytes / std::mem::size_of::<T>()];
        // SAFETY: `out` has at most `buf.bytes` bytes.
        unsafe { cu::memcpy_dtoh_sync(&mut out, buf.ptr) }.map_err(err("cuMemcpyDtoH"))?;
        Ok(out)
    }
}

impl Drop for RawCuda {
    fn drop(&mut self) {
        // SAFETY: our stream and our retain of the primary context.
        unsafe {
            let _ = cu::stream::synchronize(self.stream);
            let _ = cu::stream::destroy(self.stream);
            let _ = cu::primary_ctx::release(self.dev);
        }
    }
}

pub struct RawModule {
    raw: sys::CUmodule,
}

impl RawModule {
    pub fn function(&self, name: &str) -> RawResult<sys::CUfunction> {
        let c = CString::new(name).map_err(|_| "kernel name with a NUL byte".to_string())?;
        // SAFETY: a loaded module.
        unsafe { cu::module::get_function(self.raw, c) }
            .map_err(|e| format!("cuModuleGetFunction({name}): {e:?}"))
    }
}

impl Drop for RawModule {
    fn drop(&mut self) {
        // SAFETY: loaded once, unloaded once (after the work using it: every
        // user synchronizes before dropping).
        let _ = unsafe { cu::module::unload(self.raw) };
    }
}

/// Device memory from `cuMemAlloc`.
pub struct RawBuffer {
    pub ptr: sys::CUdeviceptr,
    pub bytes: usize,
}

impl Drop for RawBuffer {
    fn drop(&mut self) {
        // SAFETY: allocated once; synchronous free waits for the device.
        let _ = unsafe { cu::free_sync(self.ptr) };
    }
}

/// A kernel parameter slot: `cuLaunchKernel` takes pointers to the values.
pub fn arg<T>(value: &mut T) -> *mut c_void {
    value as *mut T as *mut c_void
}
