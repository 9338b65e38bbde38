//! Assembling generated PTX with `ptxas` (CI has no GPU: this is how a
//! module is known to be valid). Found through `SDFG_PTXAS` or `PATH`.

use std::path::PathBuf;
use std::process::Command;

/// The ptxas binary: `$SDFG_PTXAS`, else `ptxas` on `PATH`; None if neither
/// runs. Looked up once per process (a macro expansion asks for every SDFG).
pub fn find_ptxas() -> Option<PathBuf> {
    static FOUND: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    FOUND.get_or_init(look_for_ptxas).clone()
}

fn look_for_ptxas() -> Option<PathBuf> {
    let candidate = std::env::var_os("SDFG_PTXAS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("ptxas"));
    let ok = Command::new(&candidate)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    ok.then_some(candidate)
}

/// `ptxas --version`'s last line, if ptxas is available.
pub fn ptxas_version() -> Option<String> {
    let p = find_ptxas()?;
    let out = Command::new(p).arg("--version").output().ok()?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .map(str::to_string)
}

/// Assembles `ptx` with `ptxas -arch=sm_90 -v`. `Ok(None)`: no ptxas here;
/// `Ok(Some(log))`: assembled, `log` is ptxas's `-v` report (registers,
/// spills per kernel, see [`resource_usage`]); `Err(message)`: rejected.
pub fn assemble_check(ptx: &str) -> Result<Option<String>, String> {
    let Some(ptxas) = find_ptxas() else {
        return Ok(None);
    };
    let dir = std::env::temp_dir().join(format!(
        "sdfg-ptxas-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let src = dir.join("module.ptx");
    let out = dir.join("module.cubin");
    std::fs::write(&src, ptx).map_err(|e| format!("cannot write {}: {e}", src.display()))?;
    let result = Command::new(&ptxas)
        .arg("-arch=sm_90")
        .arg("-v")
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .output();
    let _ = std::fs::remove_dir_all(&dir);
    let output = result.map_err(|e| format!("cannot run {}: {e}", ptxas.display()))?;
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    if output.status.success() {
        Ok(Some(log))
    } else {
        Err(log)
    }
}

static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The compute capabilities (`major * 10 + minor`) that `sdfg!` embeds
/// cubins for: `SDFG_CUBIN_ARCHS`, a comma-separated list of `sm_XY` (or
/// `none`), by default `sm_90` (H100, H200). A GPU of another capability
/// loads the PTX (the driver's JIT, or its on-disk cubin cache).
pub fn cubin_archs() -> Vec<u32> {
    parse_archs(&std::env::var("SDFG_CUBIN_ARCHS").unwrap_or_else(|_| "sm_90".into()))
}

/// `sm_80, sm_90` -> `[80, 90]`; anything else (`none`) names no GPU.
///
/// ```
/// use sdfg_compiler::codegen::ptx::ptxas::parse_archs;
/// assert_eq!(parse_archs("sm_80, sm_90"), [80, 90]);
/// assert!(parse_archs("none").is_empty());
/// ```
pub fn parse_archs(list: &str) -> Vec<u32> {
    list.split(',')
        .filter_map(|a| a.trim().strip_prefix("sm_")?.parse().ok())
        .collect()
}

/// `ptx` assembled into a cubin for compute capability `cc`
/// (`ptxas -arch=sm_<cc>`); None without ptxas or when it fails (the program
/// then loads its PTX).
pub fn cubin(ptx: &str, cc: u32) -> Option<Vec<u8>> {
    let ptxas = find_ptxas()?;
    let dir = std::env::temp_dir().join(format!(
        "sdfg-cubin-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).ok()?;
    let (src, out) = (dir.join("module.ptx"), dir.join("module.cubin"));
    let result = std::fs::write(&src, ptx).ok().and_then(|()| {
        let status = Command::new(&ptxas)
            .arg(format!("-arch=sm_{cc}"))
            .arg(&src)
            .arg("-o")
            .arg(&out)
            .output()
            .ok()?;
        if status.status.success() {
            std::fs::read(&out).ok()
        } else {
            None
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// A module assembled for one compute capability, as `sdfg!` embeds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmbeddedCubin {
    /// `major * 10 + minor`.
    pub cc: u32,
    pub image: Vec<u8>,
    /// Its kernels start with `griddepcontrol.wait` ([`super::for_arch`]),
    /// so the runtime may launch them with programmatic dependencies.
    pub grid_waits: bool,
}

/// The cubins `sdfg!` embeds for a module: one per [`cubin_archs`] entry
/// that ptxas assembles (none for a module without kernels), each from the
/// module's text for its target ([`super::for_arch`]).
pub fn embedded_cubins(ptx: &str, has_kernels: bool) -> Vec<EmbeddedCubin> {
    if !has_kernels {
        return Vec::new();
    }
    cubin_archs()
        .into_iter()
        .filter_map(|cc| {
            let (text, grid_waits) = super::for_arch(ptx, cc);
            Some(EmbeddedCubin {
                cc,
                image: cubin(&text, cc)?,
                grid_waits,
            })
        })
        .collect()
}

/// Registers and spills of one function, from `ptxas -v`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourceUsage {
    pub function: String,
    pub registers: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
    pub stack_frame: u32,
}

/// Parses a `ptxas -v` log into per-function resource usage.
pub fn resource_usage(log: &str) -> Vec<ResourceUsage> {
    let mut out: Vec<ResourceUsage> = Vec::new();
    let number_before = |line: &str, word: &str| -> Option<u32> {
        let pos = line.find(word)?;
        line[..pos].split_whitespace().last()?.parse().ok()
    };
    for line in log.lines() {
        if let Some(rest) = line.split("Function properties for ").nth(1) {
            out.push(ResourceUsage {
                function: rest.trim().to_string(),
                ..Default::default()
            });
        } else if let Some(cur) = out.last_mut() {
            if line.contains("bytes stack frame") {
                cur.stack_frame = number_before(line, "bytes stack frame").unwrap_or(0);
                cur.spill_stores = number_before(line, "bytes spill stores").unwrap_or(0);
                cur.spill_loads = number_before(line, "bytes spill loads").unwrap_or(0);
            } else if line.contains("Used") && line.contains("registers") {
                let after = line.split("Used").nth(1).unwrap_or("");
                cur.registers = after
                    .split_whitespace()
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0);
            }
        }
    }
    out
}
