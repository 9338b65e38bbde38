//! The fault word of a stream: where kernels report out-of-bounds accesses
//! (and, on the CPU device, panics) until the next host synchronization.

use crate::cuda::PinnedBlock;
use crate::error::{Error, Result};
use crate::lock::lock;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// The fault word of a CPU stream (kernels report out-of-bounds accesses here).
#[derive(Default)]
pub(crate) struct CpuFault {
    code: AtomicU32,
    kernel: Mutex<Option<String>>,
    panic: Mutex<Option<(String, String)>>,
}

impl CpuFault {
    /// Records the first fault (later ones are dropped until the next check).
    pub(crate) fn raise(&self, kernel: &str, code: u32) {
        let code = code.max(1);
        if self
            .code
            .compare_exchange(0, code, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            *lock(&self.kernel) = Some(kernel.to_string());
        }
    }

    /// Records the first panic of a CPU kernel (it is reported before faults).
    pub(crate) fn panicked(&self, kernel: &str, message: String) {
        lock(&self.panic).get_or_insert((kernel.to_string(), message));
    }

    /// Reports and resets what was recorded: a panic first, then a fault.
    pub(crate) fn check(&self) -> Result<()> {
        if let Some((kernel, message)) = lock(&self.panic).take() {
            return Err(Error::KernelPanicked { kernel, message });
        }
        let code = self.code.swap(0, Ordering::SeqCst);
        if code != 0 {
            let kernel = lock(&self.kernel).take().unwrap_or_default();
            return Err(Error::KernelFault { kernel, code });
        }
        Ok(())
    }
}

pub(crate) enum FaultWord {
    Cpu(Arc<CpuFault>),
    /// Mapped pinned memory: kernels write it through its device address.
    Cuda(PinnedBlock),
}
