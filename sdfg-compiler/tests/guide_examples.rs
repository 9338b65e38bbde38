//! docs/GUIDE.md stays true: every ```rust block with `sdfg!` in it must
//! pass the front end, and every ```rust,compile_fail block must fail it.
//! An `include` path is read relative to the repository root, the
//! directory of the facade crate (as the guide's readers' crates would).

use std::path::PathBuf;

/// The tokens inside the first `sdfg! { ... }` of `code`.
fn macro_body(code: &str) -> Option<&str> {
    let start = code.find("sdfg! {")? + "sdfg! {".len();
    let mut depth = 1usize;
    for (i, c) in code[start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&code[start..start + i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// (info string, code, line) of every fenced block.
fn blocks(markdown: &str) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    let mut current: Option<(String, String, usize)> = None;
    for (n, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        match (&mut current, trimmed.strip_prefix("```")) {
            (None, Some(info)) => current = Some((info.trim().to_string(), String::new(), n + 1)),
            (Some(_), Some(_)) => out.extend(current.take()),
            (Some((_, code, _)), None) => {
                code.push_str(line);
                code.push('\n');
            }
            (None, None) => {}
        }
    }
    out
}

#[test]
fn guide_examples_compile_as_documented() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/GUIDE.md");
    let guide = std::fs::read_to_string(&path).expect("docs/GUIDE.md exists");
    let (mut accepted, mut rejected) = (0, 0);
    for (info, code, line) in blocks(&guide) {
        let tags: Vec<&str> = info.split(',').map(str::trim).collect();
        if tags.first() != Some(&"rust") || !code.contains("sdfg!") {
            continue;
        }
        let body =
            macro_body(&code).unwrap_or_else(|| panic!("GUIDE.md:{line}: no `sdfg! {{ ... }}`"));
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let result = body
            .parse::<proc_macro2::TokenStream>()
            .map_err(|e| e.to_string())
            .and_then(|tokens| {
                sdfg_compiler::frontend_at(tokens, &root).map_err(|d| d.to_string())
            });
        if tags.contains(&"compile_fail") {
            assert!(
                result.is_err(),
                "GUIDE.md:{line}: the compile_fail example is accepted"
            );
            rejected += 1;
        } else if let Err(d) = result {
            panic!("GUIDE.md:{line}: the example is rejected:\n{d}");
        } else {
            accepted += 1;
        }
    }
    assert!(
        accepted >= 10 && rejected >= 3,
        "{accepted} accepted, {rejected} rejected examples"
    );
}
