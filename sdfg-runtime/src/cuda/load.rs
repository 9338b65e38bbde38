//! Loading a module fast: the JIT of a PTX module costs ~100 ms, loading a
//! cubin (machine code) about a millisecond. In order:
//! 1. a cubin embedded by the build for this GPU's compute capability
//!    (`sdfg!` runs `ptxas` when the build machine has it; `SDFG_CUBIN=off`
//!    skips them);
//! 2. a cubin from the on-disk cache, made by this driver's JIT in an earlier
//!    process (`SDFG_CUBIN_CACHE`: a directory, or `off`; default
//!    `$XDG_CACHE_HOME/sdfg-rs` or `~/.cache/sdfg-rs`); a cache file holds
//!    the whole PTX it was made from and is used only for that exact text;
//! 3. the JIT, through `cuLink*` so that its cubin can be cached (a module
//!    the linker refuses, or with the cache off: `cuModuleLoadDataEx`).
//!
//! Every failure of a faster way falls back to the next one, and the JIT's
//! error is the one reported.

use crate::cuda::{driver, CudaContext, CudaModule, JitLogs};
use crate::error::{Error, Result};
use cudarc::driver::sys;
use std::ffi::{c_void, CString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// Where a loaded module's machine code came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// A cubin the build embedded.
    EmbeddedCubin,
    /// A cubin from the on-disk cache.
    CachedCubin,
    /// The driver's JIT (and its cubin is now cached, when the cache is on).
    Jit,
}

/// Loads `ptx` (with the build's `cubins`: compute capability, image, and
/// whether its kernels wait for their grid dependencies) the fastest way
/// this process can; see the module docs. The flag returned says whether
/// its kernels may be launched with programmatic dependencies: only an
/// embedded cubin's kernels wait for them (the PTX targets `sm_80`, which
/// has no `griddepcontrol`), and `SDFG_PDL=off` says no.
pub(crate) fn load_module(
    ctx: &Arc<CudaContext>,
    ptx: &str,
    cubins: &[(u32, &[u8], bool)],
    names: &[&str],
) -> Result<(CudaModule, Origin, bool)> {
    let settings = settings();
    if settings.embedded {
        let mine = cubins
            .iter()
            .find(|(cc, _, _)| *cc == ctx.compute_capability);
        if let Some((_, image, grid_waits)) = mine {
            if let Ok(module) = load_cubin(ctx, image, names) {
                let programmatic = *grid_waits && settings.programmatic;
                return Ok((module, Origin::EmbeddedCubin, programmatic));
            }
        }
    }
    // A module that calls the device runtime (the graph-condition kernel)
    // needs the JIT's own resolution: not through the linker.
    let cacheable = !ptx.contains(".extern .func");
    let cache = settings
        .cache_dir
        .as_deref()
        .filter(|_| cacheable)
        .map(|dir| CacheFile::new(dir, ctx, ptx));
    if let Some(file) = &cache {
        if let Some(image) = file.read(ptx) {
            if let Ok(module) = load_cubin(ctx, &image, names) {
                return Ok((module, Origin::CachedCubin, false));
            }
        }
        if let Ok(image) = link_ptx(ctx, ptx) {
            if let Ok(module) = load_cubin(ctx, &image, names) {
                file.write(ptx, &image);
                return Ok((module, Origin::Jit, false));
            }
        }
    }
    Ok((CudaModule::load(ctx, ptx, names)?, Origin::Jit, false))
}

struct Settings {
    embedded: bool,
    /// `SDFG_PDL` is not `off`: programmatic dependent launches allowed.
    programmatic: bool,
    cache_dir: Option<PathBuf>,
}

/// `SDFG_CUBIN`, `SDFG_CUBIN_CACHE` and `SDFG_PDL`, read once.
fn settings() -> &'static Settings {
    static SETTINGS: OnceLock<Settings> = OnceLock::new();
    SETTINGS.get_or_init(|| {
        let off = |v: &str| matches!(v.trim(), "off" | "0" | "false");
        let embedded = !std::env::var("SDFG_CUBIN").is_ok_and(|v| off(&v));
        let programmatic = !std::env::var("SDFG_PDL").is_ok_and(|v| off(&v));
        let cache_dir = match std::env::var("SDFG_CUBIN_CACHE") {
            Ok(v) if off(&v) => None,
            Ok(v) if !v.trim().is_empty() => Some(PathBuf::from(v)),
            _ => default_cache_dir(),
        };
        Settings {
            embedded,
            programmatic,
            cache_dir,
        }
    })
}

fn default_cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("sdfg-rs"))
}

/// Loads a cubin image (copied to 8-byte-aligned memory first: an embedded
/// byte string has no alignment).
fn load_cubin(ctx: &Arc<CudaContext>, image: &[u8], names: &[&str]) -> Result<CudaModule> {
    ctx.bind()?;
    let mut aligned = vec![0u64; image.len().div_ceil(8)];
    // SAFETY: `aligned` has at least `image.len()` bytes; plain bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(image.as_ptr(), aligned.as_mut_ptr() as *mut u8, image.len())
    };
    let mut raw: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: `aligned` holds a complete cubin (an ELF image the driver
    // validates; a wrong or foreign one is an error, not a crash).
    unsafe { sys::cuModuleLoadData(&mut raw, aligned.as_ptr() as *const c_void) }
        .result()
        .map_err(driver("cuModuleLoadData"))?;
    CudaModule::with_functions(ctx, raw, names)
}

/// The driver's JIT of `ptx` through the linker, which hands back the cubin.
fn link_ptx(ctx: &Arc<CudaContext>, ptx: &str) -> Result<Vec<u8>> {
    ctx.bind()?;
    let image = CString::new(ptx)
        .map_err(|_| Error::InvalidArgument("the ptx text contains a nul byte".into()))?;
    let mut logs = JitLogs::new();
    let mut state: sys::CUlinkState = std::ptr::null_mut();
    // SAFETY: 4 options with their values; the log buffers outlive the
    // link state (destroyed below).
    unsafe {
        sys::cuLinkCreate_v2(
            logs.options.len() as u32,
            logs.options.as_mut_ptr(),
            logs.values.as_mut_ptr(),
            &mut state,
        )
    }
    .result()
    .map_err(driver("cuLinkCreate"))?;
    let name = c"module.ptx";
    // SAFETY: `image` is nul-terminated PTX of the given size (with its
    // nul); `state` is alive.
    let linked = unsafe {
        sys::cuLinkAddData_v2(
            state,
            sys::CUjitInputType::CU_JIT_INPUT_PTX,
            image.as_ptr() as *mut c_void,
            image.as_bytes_with_nul().len(),
            name.as_ptr(),
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    }
    .result()
    .and_then(|()| {
        let mut cubin: *mut c_void = std::ptr::null_mut();
        let mut size: usize = 0;
        // SAFETY: `state` is alive; the cubin belongs to it until destroyed,
        // so it is copied out right here.
        unsafe { sys::cuLinkComplete(state, &mut cubin, &mut size) }
            .result()
            .map(|()| {
                // SAFETY: the driver returned `size` readable bytes at `cubin`.
                unsafe { std::slice::from_raw_parts(cubin as *const u8, size) }.to_vec()
            })
    });
    // SAFETY: destroyed once, after its cubin was copied.
    unsafe {
        let _ = sys::cuLinkDestroy(state);
    }
    linked.map_err(|e| Error::JitFailed {
        log: logs.failure(e),
    })
}

/// One cubin of the on-disk cache: named by a hash of the PTX, the compute
/// capability and the driver version; it holds the PTX itself, compared in
/// full before the cubin is used.
struct CacheFile {
    path: PathBuf,
}

const MAGIC: &[u8; 12] = b"sdfg-cubin1\n";

impl CacheFile {
    fn new(dir: &Path, ctx: &CudaContext, ptx: &str) -> CacheFile {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        ptx.hash(&mut hasher);
        let mut driver_version = 0i32;
        // SAFETY: writes one int.
        let _ = unsafe { sys::cuDriverGetVersion(&mut driver_version) };
        CacheFile {
            path: dir.join(format!(
                "{:016x}-sm{}-cuda{}.cubin",
                hasher.finish(),
                ctx.compute_capability,
                driver_version
            )),
        }
    }

    /// The cached cubin of exactly `ptx`, if any.
    fn read(&self, ptx: &str) -> Option<Vec<u8>> {
        let bytes = std::fs::read(&self.path).ok()?;
        decode(&bytes, ptx).map(<[u8]>::to_vec)
    }

    /// Stores `cubin` (best effort: a cache that cannot be written is skipped).
    fn write(&self, ptx: &str, cubin: &[u8]) {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let Some(dir) = self.path.parent() else {
            return;
        };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let tmp = self.path.with_extension(format!(
            "tmp{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        // Written aside, then renamed: readers never see half a file.
        if std::fs::write(&tmp, encode(ptx, cubin)).is_ok()
            && std::fs::rename(&tmp, &self.path).is_err()
        {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

/// A cache file: the magic, the PTX's length and text, then the cubin.
fn encode(ptx: &str, cubin: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(MAGIC.len() + 8 + ptx.len() + cubin.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(ptx.len() as u64).to_le_bytes());
    out.extend_from_slice(ptx.as_bytes());
    out.extend_from_slice(cubin);
    out
}

/// The cubin of a cache file made from exactly `ptx`.
fn decode<'a>(bytes: &'a [u8], ptx: &str) -> Option<&'a [u8]> {
    let rest = bytes.strip_prefix(MAGIC.as_slice())?;
    let (len, rest) = rest.split_at_checked(8)?;
    let len = u64::from_le_bytes(len.try_into().ok()?) as usize;
    let (text, cubin) = rest.split_at_checked(len)?;
    (text == ptx.as_bytes() && !cubin.is_empty()).then_some(cubin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cache_file_is_used_only_for_its_own_ptx() {
        let file = encode("ptx text", b"\x7fELF cubin");
        assert_eq!(decode(&file, "ptx text"), Some(&b"\x7fELF cubin"[..]));
        assert_eq!(decode(&file, "ptx tex"), None);
        assert_eq!(decode(&file, "other text"), None);
        assert_eq!(decode(&file[..20], "ptx text"), None);
        assert_eq!(decode(b"not a cache file", "ptx text"), None);
        assert_eq!(decode(&encode("p", b""), "p"), None, "no cubin");
    }
}
