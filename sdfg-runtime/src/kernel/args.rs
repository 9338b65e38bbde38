//! Kernel arguments: buffers with their access (for ordering), scalars by
//! value, and a fault slot (the stream's, or a program call's).

use crate::elem::{Elem, ElemType};
use crate::kernel::cpu_twin::CpuArg;
use crate::memory::device_buffer::{DeviceBuffer, DeviceMemory};
use crate::order::fault::FaultSlot;
use crate::order::tracker::{AccessKind, Tracker};
use std::any::Any;
use std::sync::Arc;

/// Type-erased view of a `DeviceBuffer<T>` for kernel arguments.
pub(crate) trait BufferView: Sync {
    fn device_id(&self) -> u64;
    fn tracker(&self) -> &Tracker;
    fn elem_type(&self) -> ElemType;
    fn cpu_memory(&self) -> Option<Arc<dyn Any + Send + Sync>>;
    fn device_ptr(&self) -> u64;
}

impl<T: Elem> BufferView for DeviceBuffer<T> {
    fn device_id(&self) -> u64 {
        self.device().id()
    }
    fn tracker(&self) -> &Tracker {
        DeviceBuffer::tracker(self)
    }
    fn elem_type(&self) -> ElemType {
        T::TYPE
    }
    fn cpu_memory(&self) -> Option<Arc<dyn Any + Send + Sync>> {
        match self.memory() {
            DeviceMemory::Cpu(cells) => Some(Arc::clone(cells) as Arc<dyn Any + Send + Sync>),
            DeviceMemory::Cuda(_) => None,
        }
    }
    fn device_ptr(&self) -> u64 {
        match self.memory() {
            DeviceMemory::Cpu(_) => 0,
            DeviceMemory::Cuda(alloc) => alloc.ptr,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    Read,
    Write,
    ReadWrite,
}

enum ArgRepr<'a> {
    Buffer {
        buffer: &'a dyn BufferView,
        access: Access,
    },
    Value {
        ty: ElemType,
        bits: u128,
    },
    /// The launching stream's fault slot.
    Fault,
    /// A program call's fault slot (generated code only).
    CallSlot(&'a FaultSlot),
}

/// One kernel argument: a buffer with its access (for ordering), a scalar
/// passed by value (`bool` as one byte), or a fault slot's address.
///
/// ```
/// use sdfg_runtime::{Device, DeviceBuffer, KernelArg};
/// let dev = Device::cpu();
/// let x = DeviceBuffer::<f32>::zeros(&dev, 4)?;
/// let args = [KernelArg::read(&x), KernelArg::value(2.0f32), KernelArg::fault()];
/// assert_eq!(args.len(), 3);
/// # Ok::<(), sdfg_runtime::Error>(())
/// ```
pub struct KernelArg<'a> {
    repr: ArgRepr<'a>,
}

impl<'a> KernelArg<'a> {
    /// A buffer the kernel only reads.
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// let x = sdfg_runtime::DeviceBuffer::<i32>::zeros(&dev, 1)?;
    /// let _ = sdfg_runtime::KernelArg::read(&x);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn read<T: Elem>(buffer: &'a DeviceBuffer<T>) -> Self {
        Self::buffer(buffer, Access::Read)
    }

    /// A buffer the kernel writes (and may read).
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// let x = sdfg_runtime::DeviceBuffer::<i32>::zeros(&dev, 1)?;
    /// let _ = sdfg_runtime::KernelArg::write(&x);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn write<T: Elem>(buffer: &'a DeviceBuffer<T>) -> Self {
        Self::buffer(buffer, Access::Write)
    }

    /// A buffer the kernel reads and writes (ordered like a write).
    ///
    /// ```
    /// let dev = sdfg_runtime::Device::cpu();
    /// let x = sdfg_runtime::DeviceBuffer::<i32>::zeros(&dev, 1)?;
    /// let _ = sdfg_runtime::KernelArg::read_write(&x);
    /// # Ok::<(), sdfg_runtime::Error>(())
    /// ```
    pub fn read_write<T: Elem>(buffer: &'a DeviceBuffer<T>) -> Self {
        Self::buffer(buffer, Access::ReadWrite)
    }

    fn buffer<T: Elem>(buffer: &'a DeviceBuffer<T>, access: Access) -> Self {
        KernelArg {
            repr: ArgRepr::Buffer { buffer, access },
        }
    }

    /// A scalar passed by value, with `T`'s size (`bool`: one byte, 0 or 1;
    /// declare it `.u8` in PTX).
    ///
    /// ```
    /// let _ = sdfg_runtime::KernelArg::value(3u64);
    /// let _ = sdfg_runtime::KernelArg::value(true);
    /// ```
    pub fn value<T: Elem>(v: T) -> Self {
        KernelArg {
            repr: ArgRepr::Value {
                ty: T::TYPE,
                bits: v.to_bits(),
            },
        }
    }

    /// The `u64` device address of the launching stream's fault slot: a
    /// kernel writes a nonzero `u32` code there (at the address itself) on
    /// an out-of-bounds access; the stream's next
    /// [`synchronize()`](crate::Stream::synchronize) (or the device's)
    /// returns the first code as `Err(KernelFault)` and resets it. Nothing
    /// else reports it: not a `Pending` or `Event` of the stream, not a
    /// program call running on it. (Kernels of `sdfg!` programs report to
    /// their call's own slot instead.)
    ///
    /// ```
    /// let _ = sdfg_runtime::KernelArg::fault();
    /// ```
    pub fn fault() -> Self {
        KernelArg {
            repr: ArgRepr::Fault,
        }
    }

    /// A program call's fault slot: kernels of that call report there, and
    /// the call's `Running::wait` reads it.
    pub(crate) fn call_slot(slot: &'a FaultSlot) -> Self {
        KernelArg {
            repr: ArgRepr::CallSlot(slot),
        }
    }

    /// The call's slot, for a [`KernelArg::call_slot`] argument.
    pub(crate) fn slot(&self) -> Option<&'a FaultSlot> {
        match self.repr {
            ArgRepr::CallSlot(slot) => Some(slot),
            _ => None,
        }
    }

    pub(crate) fn buffer_view(&self) -> Option<&'a dyn BufferView> {
        match self.repr {
            ArgRepr::Buffer { buffer, .. } => Some(buffer),
            _ => None,
        }
    }

    pub(crate) fn access_kind(&self) -> Option<AccessKind> {
        match self.repr {
            ArgRepr::Buffer {
                access: Access::Read,
                ..
            } => Some(AccessKind::Read),
            ArgRepr::Buffer { .. } => Some(AccessKind::Write),
            _ => None,
        }
    }

    pub(crate) fn to_cpu(&self) -> CpuArg {
        match &self.repr {
            ArgRepr::Buffer { buffer, access } => CpuArg::Buffer {
                memory: buffer.cpu_memory(),
                elem: buffer.elem_type(),
                writes: *access != Access::Read,
            },
            ArgRepr::Value { ty, bits } => CpuArg::Value {
                ty: *ty,
                bits: *bits,
            },
            ArgRepr::Fault | ArgRepr::CallSlot(_) => CpuArg::Fault,
        }
    }

    /// The parameter's bits for `cuLaunchKernel` (little-endian low bytes;
    /// complex values use 8 or 16 of them).
    pub(crate) fn param_bits(&self, fault_ptr: u64) -> u128 {
        match &self.repr {
            ArgRepr::Buffer { buffer, .. } => buffer.device_ptr() as u128,
            ArgRepr::Value { bits, .. } => *bits,
            ArgRepr::Fault => fault_ptr as u128,
            ArgRepr::CallSlot(slot) => slot.device_ptr() as u128,
        }
    }
}
