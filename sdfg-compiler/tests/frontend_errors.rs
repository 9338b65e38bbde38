//! Every trybuild case `tests/ui/fe_*.rs` (compile-fail cases of the front
//! end) must fail in the front end itself, quickly and without trybuild:
//! this test runs `frontend_str` on the tokens inside each case's `sdfg!`.
//! Set `SDFG_SHOW_ERRORS=1` to print every diagnostic.

use std::path::PathBuf;

/// The tokens inside the first `sdfg! { ... }` of `source`.
pub fn macro_body(source: &str) -> Option<&str> {
    let start = source.find("sdfg! {")? + "sdfg! {".len();
    let mut depth = 1usize;
    for (i, c) in source[start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&source[start..start + i]);
                }
            }
            _ => {}
        }
    }
    None
}

#[test]
fn every_frontend_ui_case_fails_in_the_frontend() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/ui");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/ui exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("fe_") && name.ends_with(".rs")
        })
        .collect();
    cases.sort();
    assert!(
        cases.len() >= 30,
        "expected the front-end ui cases in {dir:?}"
    );
    let show = std::env::var_os("SDFG_SHOW_ERRORS").is_some();
    for case in cases {
        let source = std::fs::read_to_string(&case).unwrap();
        let body = macro_body(&source).unwrap_or_else(|| panic!("no sdfg! in {case:?}"));
        match sdfg_compiler::frontend_str(body) {
            Ok(_) => panic!("{case:?} lowers without a diagnostic"),
            Err(d) => {
                if show {
                    println!("==== {}\n{d}", case.file_name().unwrap().to_string_lossy());
                }
            }
        }
    }
}
