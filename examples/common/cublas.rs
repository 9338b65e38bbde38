//! cuBLAS SGEMM, the ceiling of the gemm benchmark ("60% of cuBLAS on the
//! same GPU"), loaded at run time with `libloading`: nothing links against
//! cuBLAS, and a machine without it reports the baseline as unavailable.
//!
//! The library is searched at `SDFG_CUBLAS` (a path), then under the
//! loader's names (`libcublas.so`, `.so.13`, `.so.12`), then in the CUDA
//! toolkit's and Python wheels' folders (`nvidia/cu13/lib`,
//! `nvidia/cublas/lib` of a `site-packages`).

use crate::raw::{RawBuffer, RawCuda, RawResult};
use libloading::Library;
use std::ffi::c_void;
use std::path::PathBuf;

type Handle = *mut c_void;
type Status = i32;
type Create = unsafe extern "C" fn(*mut Handle) -> Status;
type Destroy = unsafe extern "C" fn(Handle) -> Status;
type SetStream = unsafe extern "C" fn(Handle, *mut c_void) -> Status;
type SetMathMode = unsafe extern "C" fn(Handle, i32) -> Status;
#[allow(clippy::type_complexity)]
type Sgemm = unsafe extern "C" fn(
    Handle,
    i32,
    i32,
    i32,
    i32,
    i32,
    *const f32,
    *const f32,
    i32,
    *const f32,
    i32,
    *const f32,
    *mut f32,
    i32,
) -> Status;

/// `CUBLAS_OP_N`.
const OP_N: i32 = 0;
/// `CUBLAS_DEFAULT_MATH`: FP32 arithmetic, no TF32 tensor cores.
const DEFAULT_MATH: i32 = 0;

/// A cuBLAS handle bound to the raw baseline stream.
pub struct Cublas {
    // Field order: the handle is destroyed (Drop) before the library goes.
    handle: Handle,
    sgemm: Sgemm,
    destroy: Destroy,
    _lib: Library,
    pub path: String,
}

fn candidates() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::env::var_os("SDFG_CUBLAS")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    for name in ["libcublas.so", "libcublas.so.13", "libcublas.so.12"] {
        out.push(PathBuf::from(name));
    }
    let mut dirs: Vec<PathBuf> = ["/usr/local/cuda/lib64", "/usr/lib/x86_64-linux-gnu"]
        .iter()
        .map(PathBuf::from)
        .collect();
    // site-packages of Python installations under /opt, /usr and /usr/local.
    for root in ["/opt", "/usr/local/lib", "/usr/lib"] {
        for site in site_packages(root) {
            dirs.push(site.join("nvidia/cu13/lib"));
            dirs.push(site.join("nvidia/cublas/lib"));
        }
    }
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("libcublas.so"))
            })
            .collect();
        found.sort();
        out.extend(found);
    }
    out
}

/// `site-packages` folders up to four levels below `root`
/// (`/opt/X/.venv/lib/python3.12/site-packages`).
fn site_packages(root: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut level = vec![PathBuf::from(root)];
    for _ in 0..5 {
        let mut next = Vec::new();
        for dir in &level {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                if !p.is_dir() {
                    continue;
                }
                if p.file_name().is_some_and(|n| n == "site-packages") {
                    out.push(p);
                } else {
                    next.push(p);
                }
            }
        }
        level = next;
    }
    out
}

fn check(call: &str, status: Status) -> RawResult<()> {
    if status == 0 {
        Ok(())
    } else {
        Err(format!("{call}: cuBLAS status {status}"))
    }
}

impl Cublas {
    /// Loads cuBLAS and creates a handle on `cuda`'s stream.
    pub fn new(cuda: &RawCuda) -> RawResult<Cublas> {
        cuda.bind()?;
        let mut tried = Vec::new();
        for path in candidates() {
            // SAFETY: loading cuBLAS runs its initializers, which only set
            // up the library's own state.
            match unsafe { Library::new(path.as_os_str()) } {
                Ok(lib) => return Cublas::with(lib, path.display().to_string(), cuda),
                Err(_) => tried.push(path.display().to_string()),
            }
        }
        Err(format!(
            "no cuBLAS library (set SDFG_CUBLAS to its path); tried {}",
            tried.len()
        ))
    }

    fn with(lib: Library, path: String, cuda: &RawCuda) -> RawResult<Cublas> {
        let symbol = |e: libloading::Error| format!("{path}: {e}");
        // SAFETY: the types are the C signatures of cuBLAS v2 (cublas_api.h):
        // handles and streams are pointers, enums and ints are `int`.
        let (create, destroy, set_stream, set_math, sgemm) = unsafe {
            (
                *lib.get::<Create>("cublasCreate_v2").map_err(symbol)?,
                *lib.get::<Destroy>("cublasDestroy_v2").map_err(symbol)?,
                *lib.get::<SetStream>("cublasSetStream_v2").map_err(symbol)?,
                *lib.get::<SetMathMode>("cublasSetMathMode")
                    .map_err(symbol)?,
                *lib.get::<Sgemm>("cublasSgemm_v2").map_err(symbol)?,
            )
        };
        let mut handle: Handle = std::ptr::null_mut();
        // SAFETY: `handle` is a valid out-pointer; the primary context is
        // current (bound above), which is the one cuBLAS attaches to.
        check("cublasCreate_v2", unsafe { create(&mut handle) })?;
        let out = Cublas {
            handle,
            sgemm,
            destroy,
            _lib: lib,
            path,
        };
        // SAFETY: a live handle and the raw stream of the same context.
        check("cublasSetStream_v2", unsafe {
            set_stream(out.handle, cuda.stream as *mut c_void)
        })?;
        // SAFETY: a live handle; DEFAULT_MATH is a valid cublasMath_t.
        check("cublasSetMathMode", unsafe {
            set_math(out.handle, DEFAULT_MATH)
        })?;
        Ok(out)
    }

    /// C = A B for row-major `A: m x k`, `B: k x n`, `C: m x n` (f32). cuBLAS
    /// is column-major: it computes `C^T = B^T A^T`, the same memory.
    pub fn sgemm(
        &self,
        m: usize,
        n: usize,
        k: usize,
        a: &RawBuffer,
        b: &RawBuffer,
        c: &RawBuffer,
    ) -> RawResult<()> {
        let dims = [m, n, k].map(|d| i32::try_from(d).unwrap_or(i32::MAX));
        let [m32, n32, k32] = dims;
        if a.bytes < 4 * m * k || b.bytes < 4 * k * n || c.bytes < 4 * m * n {
            return Err("sgemm: a buffer is smaller than its matrix".into());
        }
        let (alpha, beta) = (1.0f32, 0.0f32);
        // SAFETY: the buffers hold the matrices (checked above) in device
        // memory of the handle's context; leading dimensions are the rows
        // of the column-major views; alpha and beta live across the call
        // (host pointer mode, the default).
        check("cublasSgemm_v2", unsafe {
            (self.sgemm)(
                self.handle,
                OP_N,
                OP_N,
                n32,
                m32,
                k32,
                &alpha,
                b.ptr as *const f32,
                n32,
                a.ptr as *const f32,
                k32,
                &beta,
                c.ptr as *mut f32,
                n32,
            )
        })
    }
}

impl Drop for Cublas {
    fn drop(&mut self) {
        // SAFETY: created once in `with`, destroyed once; the library is
        // still loaded (`_lib` drops after this).
        let _ = unsafe { (self.destroy)(self.handle) };
    }
}
