//! Kernel launches: the CPU twin on the stream's worker, or `cuLaunchKernel`.

use crate::cuda;
use crate::error::{panic_message, Result};
use crate::kernel::args::KernelArg;
use crate::kernel::cpu_twin::{CpuArg, KernelArgs};
use crate::kernel::launch_config::LaunchConfig;
use crate::kernel::module::Module;
use crate::lock::lock;
use crate::order::counters::CounterCells;
use crate::order::fault::FaultWord;
use crate::order::stream_state::StreamBackend;
use crate::order::tracker::{AccessKind, Tracker};
use crate::streams::stream::Stream;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

impl Stream {
    /// Launches kernel number `kernel` of `module` (CUDA: `cuLaunchKernel`;
    /// CPU: the kernel's Rust twin runs on this stream's worker). An empty
    /// grid issues nothing. Argument errors (another device's module or
    /// buffer, a bad configuration, a kernel index out of range) are an
    /// `Err` before anything is issued.
    ///
    /// # Safety
    ///
    /// The runtime cannot see what PTX does: on a CUDA device the kernel
    /// runs with all of the device's memory (and the mapped fault word) in
    /// reach. The caller promises that the entry `kernel` of `module`
    /// - declares exactly the parameters `args` supplies, in order: a `u64`
    ///   device address for each buffer and for [`KernelArg::fault`], and a
    ///   by-value scalar of the value's type for each [`KernelArg::value`]
    ///   (`bool` as one byte);
    /// - reads only elements `0..len` of its buffer arguments and writes only
    ///   those of buffers passed with [`KernelArg::write`] or
    ///   [`KernelArg::read_write`] (the ordering between streams and the
    ///   freeing of memory rely on these accesses);
    /// - writes the fault word only as one `u32`, and keeps no address it was
    ///   given beyond its own completion.
    ///
    /// On the CPU device the module's CPU twin runs instead; it is safe
    /// Rust and cannot break memory safety, but should compute the same.
    ///
    /// ```
    /// use sdfg_runtime::*;
    /// use sdfg_runtime::__glue::{KernelArgs, KernelEntry};
    /// fn fill(args: &KernelArgs<'_>) {
    ///     let out = args.cells::<i32>(0);
    ///     let v: i32 = args.value(1);
    ///     for c in out { i32::store(c, v); }
    /// }
    /// static KERNELS: [KernelEntry; 1] = [KernelEntry { name: "fill", cpu: fill }];
    /// let dev = Device::cpu();
    /// // SAFETY: a CPU device runs only the CPU twin `fill`; the PTX is never loaded.
    /// let module = unsafe { Module::load(&dev, "// ptx", &KERNELS) }?;
    /// let buf = DeviceBuffer::<i32>::zeros(&dev, 8)?;
    /// let s = dev.default_stream();
    /// let config = LaunchConfig::for_counts(&dev, &[8], [128, 1, 1], 1);
    /// // SAFETY: as above; `fill` takes exactly these arguments.
    /// unsafe { s.launch(&module, 0, &config, &[KernelArg::write(&buf), KernelArg::value(7i32)]) }?;
    /// assert_eq!(buf.to_vec()?, [7; 8]);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub unsafe fn launch(
        &self,
        module: &Module,
        kernel: usize,
        config: &LaunchConfig,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        self.device
            .check_same(module.device_id, || "the module".to_string())?;
        let name: Arc<str> = Arc::clone(module.kernel_name(kernel)?);
        config.validate()?;
        for (i, arg) in args.iter().enumerate() {
            if let Some(buffer) = arg.buffer_view() {
                self.device.check_same(buffer.device_id(), || {
                    format!("buffer argument {i} of kernel `{name}`")
                })?;
            }
        }
        if config.grid.contains(&0) {
            return Ok(());
        }
        let accesses: Vec<(&Tracker, AccessKind)> = args
            .iter()
            .filter_map(|a| Some((a.buffer_view()?.tracker(), a.access_kind()?)))
            .collect();
        match &self.inner.backend {
            StreamBackend::Cpu(_) => {
                let kernel_fn = module.cpu_kernel(kernel)?;
                let cpu_args: Vec<CpuArg> = args.iter().map(KernelArg::to_cpu).collect();
                let FaultWord::Cpu(fault) = &self.inner.fault else {
                    unreachable!("a cpu stream has a cpu fault word")
                };
                let fault = Arc::clone(fault);
                let config = *config;
                self.issue(&accesses, move |op| {
                    op.push_cpu(move || {
                        let args = KernelArgs {
                            args: &cpu_args,
                            fault: &fault,
                            kernel: &name,
                            config,
                        };
                        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| kernel_fn(&args))) {
                            fault.panicked(&name, panic_message(&*panic));
                        }
                    });
                    Ok(())
                })?;
            }
            StreamBackend::Cuda(_) => {
                let function = module.cuda_function(kernel)?;
                let fault_ptr = self.inner.fault_device_ptr();
                let mut params: Vec<u128> = args.iter().map(|a| a.param_bits(fault_ptr)).collect();
                self.issue(&accesses, |op| {
                    cuda::launch(
                        op.cuda_stream(),
                        function,
                        config.grid,
                        config.block,
                        config.shared_bytes,
                        &mut params,
                    )?;
                    let mut state = lock(&op.stream.state);
                    if !state.kernels_since_check.iter().any(|k| **k == *name) {
                        state.kernels_since_check.push(name.to_string());
                    }
                    Ok(())
                })?;
            }
        }
        CounterCells::bump(&self.device.counters_cells().kernel_launches);
        Ok(())
    }
}
