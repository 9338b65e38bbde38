//! Cooperative launches (`cuLaunchCooperativeKernel`): every block of the
//! grid is resident at once, which a grid-wide barrier inside the kernel
//! needs (a block spinning at the barrier must not keep a block that has
//! yet to arrive from being scheduled). The grid is therefore at most the
//! blocks that fit on the device at once: occupancy per SM times SMs.

use super::{driver, CudaContext, CudaStream};
use crate::error::Result;
use cudarc::driver::result as cu;
use cudarc::driver::sys;
use std::ffi::c_void;

/// Does the device run cooperative launches (`CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH`)?
pub(crate) fn supported(ctx: &CudaContext) -> Result<bool> {
    ctx.bind()?;
    // SAFETY: `dev` is the valid device of a retained context.
    let value = unsafe {
        cu::device::get_attribute(
            ctx.dev,
            sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH,
        )
    }
    .map_err(driver("cuDeviceGetAttribute"))?;
    Ok(value != 0)
}

/// The blocks of `threads` threads (and `shared_bytes` of dynamic shared
/// memory) of `f` that can be resident on one SM at once. The caller has
/// bound `f`'s context.
pub(crate) fn resident_blocks_per_sm(
    f: sys::CUfunction,
    threads: u32,
    shared_bytes: u32,
) -> Result<u32> {
    let mut blocks: std::ffi::c_int = 0;
    // SAFETY: `f` is a function of a module loaded in the bound context and
    // `blocks` is a live c_int the driver writes.
    let status = unsafe {
        sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &mut blocks,
            f,
            threads as std::ffi::c_int,
            shared_bytes as usize,
        )
    };
    status
        .result()
        .map_err(driver("cuOccupancyMaxActiveBlocksPerMultiprocessor"))?;
    Ok(blocks.max(0) as u32)
}

/// Launches `f` cooperatively with the given parameter storage (one
/// 16-byte slot per parameter, as `cuda::launch`). The grid must not
/// exceed what [`resident_blocks_per_sm`] allows on every SM.
pub(crate) fn launch(
    stream: &CudaStream,
    f: sys::CUfunction,
    grid: [u32; 3],
    block: [u32; 3],
    shared_bytes: u32,
    params: &mut [u128],
) -> Result<()> {
    stream.ctx.bind()?;
    let mut pointers: Vec<*mut c_void> = params
        .iter_mut()
        .map(|slot| slot as *mut u128 as *mut c_void)
        .collect();
    // SAFETY: as `cuda::launch`: `f` comes from a loaded module of this
    // context; every pointer points to a live, 16-byte aligned u128 that
    // the driver copies during the call; buffer parameters are device
    // pointers whose memory outlives the kernel (the buffer trackers order
    // their frees after this launch).
    let status = unsafe {
        sys::cuLaunchCooperativeKernel(
            f,
            grid[0],
            grid[1],
            grid[2],
            block[0],
            block[1],
            block[2],
            shared_bytes,
            stream.raw,
            pointers.as_mut_ptr(),
        )
    };
    status.result().map_err(driver("cuLaunchCooperativeKernel"))
}
