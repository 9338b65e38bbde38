//! Launch configurations: grid, block and dynamic shared memory.

use crate::error::{Error, Result};

/// The shared memory one block may use (227 KiB on sm_90).
pub(crate) const MAX_SHARED_BYTES: u32 = 227 * 1024;

/// Grid and block dimensions of a launch, and dynamic shared memory.
///
/// ```
/// use sdfg_runtime::{Device, LaunchConfig};
/// let dev = Device::cpu();
/// let c = LaunchConfig::for_counts(&dev, &[3, 100, 1000], [256, 1, 1], 1);
/// assert_eq!(c.grid[0], 4.min(dev.sm_count() * 32));
/// assert_eq!((c.grid[1], c.grid[2]), (100, 3));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks per grid (x, y, z).
    pub grid: [u32; 3],
    /// Threads per block (x, y, z).
    pub block: [u32; 3],
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
}

impl LaunchConfig {
    /// Checks the limits every CUDA GPU has (and the CPU device mirrors).
    pub(crate) fn validate(&self) -> Result<()> {
        let [bx, by, bz] = self.block;
        if bx == 0 || by == 0 || bz == 0 {
            return Err(Error::InvalidArgument(format!(
                "block dimensions {:?} contain a zero",
                self.block
            )));
        }
        if bx > 1024 || by > 1024 || bz > 64 || (bx as u64) * (by as u64) * (bz as u64) > 1024 {
            return Err(Error::InvalidArgument(format!(
                "block dimensions {:?} exceed the limits (x, y <= 1024, z <= 64, at most 1024 threads)",
                self.block
            )));
        }
        if self.shared_bytes > MAX_SHARED_BYTES {
            return Err(Error::InvalidArgument(format!(
                "{} bytes of dynamic shared memory per block; a block has at most {MAX_SHARED_BYTES} (227 KiB)",
                self.shared_bytes
            )));
        }
        if self.grid[0] > i32::MAX as u32 || self.grid[1] > 65535 || self.grid[2] > 65535 {
            return Err(Error::InvalidArgument(format!(
                "grid dimensions {:?} exceed the limits (x < 2^31, y and z <= 65535)",
                self.grid
            )));
        }
        Ok(())
    }
}
