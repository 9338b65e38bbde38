//! Compile-fail cases (`tests/ui/*.rs` with the expected `.stderr`) and
//! cases that must compile and run (`tests/ui/pass/*.rs`).
//!
//! trybuild builds the cases as a crate in `target/tests/trybuild/sdfg/`, so
//! a case that includes a DaCe file (`sdfg NAME = include "...";`, relative
//! to the crate's manifest directory) reaches the repository through
//! `../../../../` (the default target directory).

#[test]
fn ui_fail() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
