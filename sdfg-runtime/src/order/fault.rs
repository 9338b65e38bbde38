//! Fault slots: where kernels report the accesses they skipped.
//!
//! Every stream has one (kernels launched with `KernelArg::fault()` write
//! there; that stream's `synchronize()` reports it), and every context of
//! a program has one (the kernels of one call write there; that call's
//! `Running::wait()` reports it). A slot is read only after the work that
//! may write it is known finished, and reset when read, so a fault reaches
//! the one caller whose work caused it.
//!
//! Layout on a GPU (24 bytes of mapped pinned memory; the kernel ABI of
//! `sdfg_compiler::codegen::abi` spells the same offsets):
//!
//! | offset | word | written by |
//! |---|---|---|
//! | 0 | `u32` code | raw kernels: any nonzero code (the contract of `Stream::launch`) |
//! | 8 | `u64` site | generated kernels: `atom.cas` 0 -> `(kernel + 1) << 32 \| access` |
//! | 16 | `u64` index | the kernel whose `atom.cas` won: the row-major index |
//!
//! The first site wins; its index is written only by the winner. Kernels
//! touch the slot only on a fault, through its device address (the pinned
//! memory is mapped), so reading it costs no copy and no host sync beyond
//! the wait that proved the kernels finished. Atomics on mapped memory are
//! atomic among the device's threads (not for the host, which reads only
//! after the wait). The CPU device keeps the same words in atomics.

use crate::cuda::{CudaContext, PinnedBlock};
use crate::error::Result;
use crate::lock::lock;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Bytes of a GPU slot.
const SLOT_BYTES: usize = 24;

/// What a slot held when it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Recorded {
    /// A CPU twin panicked (a bug in generated code).
    Panic { kernel: String, message: String },
    /// A generated kernel skipped access `access` (1-based, in the order
    /// the compiler numbers a map body's accesses) of its kernel number
    /// `kernel` (0-based, the launch index in its module) at `index`.
    Site {
        kernel: u32,
        access: u32,
        index: i64,
    },
    /// A raw kernel wrote `code`; the CPU device knows which kernel.
    Code { kernel: Option<String>, code: u32 },
}

/// Splits a site word into (0-based kernel, access); None for 0.
fn split_site(site: u64) -> Option<(u32, u32)> {
    let kernel = (site >> 32) as u32;
    (site != 0).then(|| (kernel.saturating_sub(1), site as u32))
}

/// The slot of the CPU device: the same words, as atomics, plus the first
/// panic of a twin.
#[derive(Default)]
pub(crate) struct CpuSlot {
    code: AtomicU32,
    code_kernel: Mutex<Option<String>>,
    site: AtomicU64,
    index: AtomicI64,
    panic: Mutex<Option<(String, String)>>,
    /// Set after `panic` got its first panic (so a read of an untouched
    /// slot takes no lock).
    panicked_any: AtomicBool,
}

impl CpuSlot {
    /// A raw kernel's code (0 counts as 1); the first one is kept.
    pub(crate) fn raise_code(&self, kernel: &str, code: u32) {
        let won = self
            .code
            .compare_exchange(0, code.max(1), Ordering::SeqCst, Ordering::SeqCst)
            .is_ok();
        if won {
            *lock(&self.code_kernel) = Some(kernel.to_string());
        }
    }

    /// A generated kernel's skipped access; the first one is kept.
    pub(crate) fn raise_site(&self, kernel: usize, access: u32, index: i64) {
        let kernel_no = u32::try_from(kernel + 1).unwrap_or(u32::MAX);
        let site = (u64::from(kernel_no) << 32) | u64::from(access.max(1));
        let won = self
            .site
            .compare_exchange(0, site, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok();
        if won {
            self.index.store(index, Ordering::SeqCst);
        }
    }

    /// The first panic of a CPU kernel (reported before any fault).
    pub(crate) fn panicked(&self, kernel: &str, message: String) {
        lock(&self.panic).get_or_insert((kernel.to_string(), message));
        self.panicked_any.store(true, Ordering::SeqCst);
    }

    fn take(&self) -> Option<Recorded> {
        // Nothing raised (every call reads the slot): no locks, no swaps.
        // Raising writes the word before anything else, and the reader
        // runs after the raising jobs finished.
        if self.code.load(Ordering::SeqCst) == 0
            && self.site.load(Ordering::SeqCst) == 0
            && !self.panicked_any.load(Ordering::SeqCst)
        {
            return None;
        }
        self.panicked_any.store(false, Ordering::SeqCst);
        let panic = lock(&self.panic).take();
        let site = self.site.swap(0, Ordering::SeqCst);
        let index = self.index.swap(0, Ordering::SeqCst);
        let code = self.code.swap(0, Ordering::SeqCst);
        let code_kernel = lock(&self.code_kernel).take();
        if let Some((kernel, message)) = panic {
            return Some(Recorded::Panic { kernel, message });
        }
        if let Some((kernel, access)) = split_site(site) {
            return Some(Recorded::Site {
                kernel,
                access,
                index,
            });
        }
        (code != 0).then_some(Recorded::Code {
            kernel: code_kernel,
            code,
        })
    }
}

enum SlotMemory {
    Cpu(Arc<CpuSlot>),
    /// Mapped pinned memory: kernels write it through its device address.
    Cuda(PinnedBlock),
}

/// One fault slot (of a stream or of a program context), on one device.
pub(crate) struct FaultSlot {
    device_id: u64,
    memory: SlotMemory,
}

impl FaultSlot {
    pub(crate) fn new_cpu(device_id: u64) -> FaultSlot {
        FaultSlot {
            device_id,
            memory: SlotMemory::Cpu(Arc::default()),
        }
    }

    pub(crate) fn new_cuda(device_id: u64, ctx: &Arc<CudaContext>) -> Result<FaultSlot> {
        Ok(FaultSlot {
            device_id,
            memory: SlotMemory::Cuda(PinnedBlock::new(ctx, SLOT_BYTES, true)?),
        })
    }

    /// The device it was made for.
    pub(crate) fn device_id(&self) -> u64 {
        self.device_id
    }

    /// The CPU device's slot (None on a GPU).
    pub(crate) fn cpu(&self) -> Option<&Arc<CpuSlot>> {
        match &self.memory {
            SlotMemory::Cpu(slot) => Some(slot),
            SlotMemory::Cuda(_) => None,
        }
    }

    /// What the slot is while it lives: its device address (CUDA) or the
    /// address of its atomics (CPU device). Graph keys use it: a recorded
    /// kernel writes the slot it was given.
    pub(crate) fn identity(&self) -> u64 {
        match &self.memory {
            SlotMemory::Cpu(slot) => Arc::as_ptr(slot) as usize as u64,
            SlotMemory::Cuda(block) => block.device_ptr,
        }
    }

    /// The address kernels write to (0 on the CPU device).
    pub(crate) fn device_ptr(&self) -> u64 {
        match &self.memory {
            SlotMemory::Cpu(_) => 0,
            SlotMemory::Cuda(block) => block.device_ptr,
        }
    }

    /// Reads and resets the slot: the panic, else the site, else the code.
    /// The caller knows every kernel that may have written it finished (a
    /// host wait covered it), so the read sees their writes.
    pub(crate) fn take(&self) -> Option<Recorded> {
        match &self.memory {
            SlotMemory::Cpu(slot) => slot.take(),
            SlotMemory::Cuda(block) => {
                // SAFETY: the block holds SLOT_BYTES bytes of pinned memory,
                // page aligned by the driver (so the words are aligned) and
                // alive while `self` is. Kernels write it only with single
                // stores and atomics of these widths; the host wait before
                // this call ordered every write of finished kernels before
                // these reads. Atomics have the layout of the plain integers.
                let (code, site, index) = unsafe {
                    let base = block.ptr as *const u8;
                    (
                        &*(base as *const AtomicU32),
                        &*(base.add(8) as *const AtomicU64),
                        &*(base.add(16) as *const AtomicI64),
                    )
                };
                // Kernels touch the slot only on a fault: plain loads say
                // whether there is anything to reset (every call reads it).
                if site.load(Ordering::Acquire) == 0 && code.load(Ordering::Acquire) == 0 {
                    return None;
                }
                let site = site.swap(0, Ordering::SeqCst);
                let index = index.swap(0, Ordering::SeqCst);
                let code = code.swap(0, Ordering::SeqCst);
                if let Some((kernel, access)) = split_site(site) {
                    return Some(Recorded::Site {
                        kernel,
                        access,
                        index,
                    });
                }
                (code != 0).then_some(Recorded::Code { kernel: None, code })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_site_wins_and_a_read_resets() {
        let slot = FaultSlot::new_cpu(1);
        let cpu = slot.cpu().unwrap();
        cpu.raise_site(2, 5, -1);
        cpu.raise_site(0, 1, 99);
        cpu.raise_code("raw", 7);
        assert_eq!(
            slot.take(),
            Some(Recorded::Site {
                kernel: 2,
                access: 5,
                index: -1
            })
        );
        assert_eq!(slot.take(), None);
        cpu.raise_code("raw", 0);
        assert_eq!(
            slot.take(),
            Some(Recorded::Code {
                kernel: Some("raw".into()),
                code: 1
            })
        );
        cpu.raise_site(0, 1, 3);
        cpu.panicked("k", "boom".into());
        assert_eq!(
            slot.take(),
            Some(Recorded::Panic {
                kernel: "k".into(),
                message: "boom".into()
            })
        );
        assert_eq!(slot.take(), None, "a panic resets the other words too");
    }
}
