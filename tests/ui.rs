/// Compile-fail cases (`tests/ui/*.rs` with the expected `.stderr`) and
/// cases that must compile and run (`tests/ui/pass/*.rs`).
#[test]
fn ui_fail() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
