//! Catching the panics a fuzzer provokes without printing each one.
//!
//! [`catch_quietly`] runs a closure under `catch_unwind` with the panic
//! reports of *this thread, inside the closure* turned off. The process's
//! hook is wrapped once, never swapped back and forth, so fuzzers running
//! in parallel threads of one test binary cannot leave it silent for each
//! other, and a panic anywhere else (a fuzzer's own input generator, an
//! assertion after the run) is reported as usual.

use std::cell::Cell;
use std::panic::{self, UnwindSafe};
use std::sync::Once;

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// `catch_unwind(f)` without the panic message of `f` on stderr (the caller
/// reports what it caught).
///
/// ```
/// use sdfg_testkit::quiet::catch_quietly;
/// let caught = catch_quietly(|| -> u32 { panic!("not printed") });
/// assert!(caught.is_err());
/// assert_eq!(catch_quietly(|| 7).unwrap(), 7);
/// ```
pub fn catch_quietly<R>(f: impl FnOnce() -> R + UnwindSafe) -> std::thread::Result<R> {
    static WRAP: Once = Once::new();
    WRAP.call_once(|| {
        let report = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                report(info);
            }
        }));
    });
    let was = QUIET.with(|q| q.replace(true));
    let out = panic::catch_unwind(f);
    QUIET.with(|q| q.set(was));
    out
}
