//! DaCe from the tests: where its python is, and one run of
//! `ci/dace_check.py`. Shared by the facade's tests and the compiler's
//! (`sdfg-compiler/tests/common/mod.rs` includes this file by path).
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The python of a DaCe 1.0.2 install, from `SDFG_DACE_PYTHON`. Without
/// it: `None` and a printed line, or a failure when `SDFG_REQUIRE_DACE=1`
/// (CI).
pub fn python_or_skip() -> Option<String> {
    match std::env::var("SDFG_DACE_PYTHON") {
        Ok(p) if !p.is_empty() => Some(p),
        _ => {
            if std::env::var("SDFG_REQUIRE_DACE").as_deref() == Ok("1") {
                panic!("SDFG_REQUIRE_DACE=1 but SDFG_DACE_PYTHON is not set");
            }
            println!("skipped: no DaCe (set SDFG_DACE_PYTHON to a python with dace==1.0.2)");
            None
        }
    }
}

/// `ci/dace_check.py`, found above the crate being tested (the facade is
/// the workspace root, the compiler one level below).
fn check_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|dir| dir.join("ci/dace_check.py"))
        .find(|script| script.exists())
        .expect("ci/dace_check.py above CARGO_MANIFEST_DIR")
}

/// Runs `ci/dace_check.py ARGS` under `python`; prints its output and
/// returns it with whether the script succeeded.
pub fn check(python: &str, args: &[&OsStr]) -> (bool, String) {
    let out = std::process::Command::new(python)
        .arg(check_script())
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{text}");
    (out.status.success(), text)
}
