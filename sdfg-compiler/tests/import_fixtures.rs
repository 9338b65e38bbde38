//! The DaCe-made fixtures (tests/fixtures/dace, written by
//! ci/dace_fixtures.py) translate and pass the front end.

use std::path::PathBuf;

/// The repository root: where this crate was built, or the working directory
/// (the packed GPU run starts the test binaries from a copy of the checkout).
fn repo_root() -> PathBuf {
    let built = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    if built.join("tests/fixtures/dace").is_dir() {
        built
    } else {
        PathBuf::from(".")
    }
}

fn fixtures() -> Vec<PathBuf> {
    let dir = repo_root().join("tests/fixtures/dace");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/fixtures/dace exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "sdfg"))
        .collect();
    out.sort();
    out
}

#[test]
fn every_fixture_translates_and_passes_the_front_end() {
    let files = fixtures();
    assert!(files.len() >= 5, "{files:?}");
    for path in files {
        let json = std::fs::read_to_string(&path).expect("read");
        let items = match sdfg_compiler::import::translate(&json) {
            Ok(items) => items,
            Err(errors) => panic!(
                "{}: {}",
                path.display(),
                errors
                    .iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("\n")
            ),
        };
        if std::env::var_os("SDFG_SHOW_TRANSLATION").is_some() {
            println!("==== {}\n{items}", path.display());
        }
        let source = format!("sdfg Imported {{\n{items}\n}}");
        if let Err(d) = sdfg_compiler::frontend_str(&source) {
            panic!(
                "{}: the front end rejects the translation:\n{d}\n{source}",
                path.display()
            );
        }
    }
}

/// The compile-fail fixtures (tests/ui/dace) give the errors their cases show.
#[test]
fn error_fixtures_name_the_unsupported_element() {
    let dir = repo_root().join("tests/ui/dace");
    for (file, expected) in [
        ("linalg_inv.sdfg", "unsupported DaCe element `Inv`"),
        (
            "nested_sdfg.sdfg",
            "the nested SDFG `nested_sdfg_139_4` inside a map has branches or loops",
        ),
        ("tasklet_lambda.sdfg", "uses Python construct `lambda`"),
        ("thread_block.sdfg", "`GPU_ThreadBlock`"),
        ("thread_block.sdfg", "`GPU_Shared`"),
    ] {
        let json = std::fs::read_to_string(dir.join(file)).expect("read");
        let errors = sdfg_compiler::import::translate(&json).expect_err(file);
        let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        if std::env::var_os("SDFG_SHOW_TRANSLATION").is_some() {
            println!("==== {file}\n{}", text.join("\n"));
        }
        assert!(
            text.iter().any(|t| t.contains(expected)),
            "{file}: {text:?}"
        );
    }
}

/// The translation docs/GUIDE.md shows ("Coming from DaCe") is the real one.
#[test]
fn the_guide_shows_the_reproducers_translation() {
    let root = repo_root();
    let guide = std::fs::read_to_string(root.join("docs/GUIDE.md")).expect("GUIDE");
    let chapter = guide
        .split("## 13. Coming from DaCe")
        .nth(1)
        .expect("the chapter");
    let shown = chapter
        .split("reads as\n\n```text\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .expect("the translation block");
    let json = std::fs::read_to_string(root.join("tests/fixtures/dace/repro.sdfg")).expect("read");
    let items = sdfg_compiler::import::translate(&json).expect("translates");
    assert_eq!(shown.trim(), items.trim());
}
