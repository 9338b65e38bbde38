//! Program calls still running: the handle that borrows a call's arguments
//! until its streams finished.

use crate::error::{Error, Result};
use crate::streams::stream::Stream;
use std::marker::PhantomData;

/// What one program call holds while it runs: the streams to wait for, and
/// where its resources go afterwards. The glue's pooled contexts implement
/// it, so this floor needs nothing from the glue above it.
pub(crate) trait CallResources: Send + Sync {
    /// Calls `f` with each stream of the call once.
    fn for_each_stream(&self, f: &mut dyn FnMut(&Stream));
    /// Reads and resets the call's fault slot (after every stream of the
    /// call finished): the first fault of its kernels, described.
    fn check_fault(&self) -> Result<()>;
    /// Every stream finished cleanly: make the resources available again.
    fn recycle(self: Box<Self>);
    /// A stream broke: neither reuse nor free what it might still touch.
    fn abandon(self: Box<Self>);
}

/// A program call in flight: returned by a program's `launch`. It borrows
/// the call's arguments for `'a` (so they cannot be touched until it is
/// done) and holds the call's context (streams and transients).
///
/// Dropping it waits (politeness). Forgetting it is safe: the context is
/// leaked, and the buffers' trackers still order every later use.
///
/// ```
/// # use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
/// # use sdfg_runtime::{Device, Running};
/// # use std::marker::PhantomData;
/// # static SPEC: ProgramSpec = unsafe { ProgramSpec::new("empty", "", &[], StreamSpec::Created(2)) };
/// # let dev = Device::cpu();
/// # let program = unsafe { Program::load(&dev, &SPEC) }?;
/// // What the `launch` of a generated program returns:
/// let running: Running<'_> = program.context()?.finish(PhantomData);
/// running.wait()?;
/// # Ok::<(), sdfg_runtime::Error>(())
/// ```
#[must_use = "the call is still running: call `.wait()` (dropping it also waits)"]
pub struct Running<'a> {
    call: Option<Box<dyn CallResources>>,
    _borrow: PhantomData<&'a mut ()>,
}

impl std::fmt::Debug for Running<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Running").finish_non_exhaustive()
    }
}

impl Running<'_> {
    pub(crate) fn new(call: Box<dyn CallResources>) -> Self {
        Running {
            call: Some(call),
            _borrow: PhantomData,
        }
    }

    /// Synchronizes every stream of the call's context that has unfinished
    /// work (one counted host sync per such stream), reports the first
    /// fault of the call's own kernels (`Err(KernelFault)` naming the map,
    /// the state, the container, read or write, and the index; read from
    /// the call's fault slot, at no extra sync), and returns the context to
    /// its program's pool. No other call's fault, and no raw kernel's, is
    /// ever reported here.
    ///
    /// ```
    /// # use sdfg_runtime::__glue::{Program, ProgramSpec, StreamSpec};
    /// # use sdfg_runtime::Device;
    /// # use std::marker::PhantomData;
    /// # static SPEC: ProgramSpec = unsafe { ProgramSpec::new("p", "", &[], StreamSpec::Default) };
    /// let dev = Device::cpu();
    /// # let program = unsafe { Program::load(&dev, &SPEC) }?;
    /// program.context()?.finish(PhantomData).wait()?;
    /// assert_eq!(dev.counters().host_syncs, 0); // nothing was issued
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn wait(mut self) -> Result<()> {
        self.finish()
    }

    fn finish(&mut self) -> Result<()> {
        let Some(call) = self.call.take() else {
            return Ok(());
        };
        let mut first_error = None;
        let mut healthy = true;
        call.for_each_stream(&mut |stream| {
            if let Err(e) = stream.wait_issued() {
                if matches!(e, Error::Driver { .. }) {
                    healthy = false;
                }
                first_error.get_or_insert(e);
            }
        });
        if healthy {
            // Every kernel of the call finished: its slot is complete.
            if let Err(e) = call.check_fault() {
                first_error.get_or_insert(e);
            }
            call.recycle();
        } else {
            // A broken context is not reused; leak it rather than drop
            // buffers a broken stream might still touch.
            call.abandon();
        }
        first_error.map_or(Ok(()), Err)
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}
