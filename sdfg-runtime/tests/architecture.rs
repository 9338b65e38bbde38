//! The runtime reads in floors (see the table in `src/lib.rs`): every file
//! references only modules of its own floor or below, never the crate root's
//! re-exports, and no two files reference each other, directly or around a
//! circle. This test reads the floor table from the crate docs, every
//! `crate::` / `super::` / `self::` / child-module path of every file under
//! `src/`, and fails on the first rule broken, naming the files.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module: its path below the crate root (`["order", "tracker"]`).
type ModPath = Vec<String>;

#[test]
fn modules_import_only_their_floor_or_below_and_form_no_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("src/lib.rs");
    let mounts = mounts(&lib);
    let floors = floor_table(&lib, &mounts);
    let mut files = Vec::new();
    collect(&src, &src, &mounts, &mut files);
    files.retain(|(module, _)| !module.is_empty()); // lib.rs: declarations and re-exports
    let top: BTreeSet<&String> = files.iter().map(|(m, _)| &m[0]).collect();
    let mut problems = Vec::new();
    for t in &top {
        if !floors.contains_key(*t) {
            problems.push(format!(
                "module `{t}` has no row in the floor table of src/lib.rs"
            ));
        }
    }
    for name in floors.keys() {
        if !top.contains(name) {
            problems.push(format!(
                "the floor table names `{name}`, which is not a module"
            ));
        }
    }
    let report = check(&files, &floors);
    assert!(
        report.edges >= 40,
        "only {} references found: the scanner is broken",
        report.edges
    );
    problems.extend(report.problems);
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

/// The checker fails where it should: an upward reference, a reference
/// through the crate root, and a circle between files of one floor.
#[test]
fn the_checker_finds_upward_root_and_circular_references() {
    let floors: BTreeMap<String, u32> = [("low", 0), ("high", 1)]
        .into_iter()
        .map(|(n, f)| (n.to_string(), f))
        .collect();
    let file = |path: &[&str], text: &str| -> (ModPath, String) {
        (path.iter().map(|s| s.to_string()).collect(), text.into())
    };
    let ok = vec![
        file(&["low"], "pub mod a; pub mod b;"),
        file(
            &["low", "a"],
            "use crate::low::b::B; // crate::high::X in a comment\n",
        ),
        file(
            &["low", "b"],
            "pub struct B; const S: &str = \"crate::high::X\";",
        ),
        file(
            &["high"],
            "use crate::low::{a, b::B}; mod tests { use super::*; }",
        ),
    ];
    let report = check(&ok, &floors);
    assert_eq!(report.problems, Vec::<String>::new());
    assert_eq!(report.edges, 3);

    let upward = vec![
        file(&["low"], "use crate::high::H;"),
        file(&["high"], "pub struct H;"),
    ];
    let p = check(&upward, &floors).problems;
    assert!(
        p.len() == 1 && p[0].contains("floor 0") && p[0].contains("floor 1"),
        "{p:?}"
    );

    let root = vec![file(&["high"], "fn f() -> crate::Thing { todo!() }")];
    let p = check(&root, &floors).problems;
    assert!(p.len() == 1 && p[0].contains("crate root"), "{p:?}");

    let circle = vec![
        file(&["low"], "mod a; mod b;"),
        file(&["low", "a"], "use super::b::B; pub struct A;"),
        file(&["low", "b"], "pub struct B(crate::low::a::A);"),
    ];
    let p = check(&circle, &floors).problems;
    assert!(p.len() == 1 && p[0].contains("circle"), "{p:?}");
    assert!(
        p[0].contains("low/a.rs") && p[0].contains("low/b.rs"),
        "{p:?}"
    );

    let child = vec![
        file(&["low"], "mod a; pub use a::A; pub struct L;"),
        file(&["low", "a"], "pub struct A(super::L);"),
    ];
    let p = check(&child, &floors).problems;
    assert!(p.len() == 1 && p[0].contains("circle"), "{p:?}");
}

/// Folders mounted under another module name (`#[path = "glue/mod.rs"]
/// pub mod __glue;`): folder -> module.
fn mounts(lib: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let lines: Vec<&str> = lib.lines().map(str::trim).collect();
    for (i, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix("#[path = \"") else {
            continue;
        };
        let folder = rest.split('/').next().unwrap_or_default();
        let module = lines[i + 1..]
            .iter()
            .find(|l| !l.starts_with("#["))
            .and_then(|l| l.trim_end_matches(';').split_whitespace().last())
            .unwrap_or_default();
        out.insert(folder.to_string(), module.to_string());
    }
    out
}

/// The floor table of the crate docs: rows `//! | N, name | `entry`, ... | ...`.
fn floor_table(lib: &str, mounts: &BTreeMap<String, String>) -> BTreeMap<String, u32> {
    let mut floors = BTreeMap::new();
    for line in lib.lines() {
        let Some(row) = line.trim().strip_prefix("//! |") else {
            continue;
        };
        let cells: Vec<&str> = row.split('|').collect();
        let Some(floor) = cells[0]
            .trim()
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|d| d.parse::<u32>().ok())
        else {
            continue;
        };
        for entry in cells[1].split('`').skip(1).step_by(2) {
            let name = entry.trim_end_matches('/').trim_end_matches(".rs");
            let name = mounts.get(name).cloned().unwrap_or(name.to_string());
            floors.insert(name, floor);
        }
    }
    assert!(floors.len() >= 5, "no floor table found in src/lib.rs");
    floors
}

/// Every `.rs` file below `dir` with its module path.
fn collect(
    root: &Path,
    dir: &Path,
    mounts: &BTreeMap<String, String>,
    out: &mut Vec<(ModPath, String)>,
) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("readable src")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(root, &path, mounts, out);
            continue;
        }
        if path.extension() != Some(std::ffi::OsStr::new("rs")) {
            continue;
        }
        let rel = path.strip_prefix(root).expect("below src");
        let mut module: ModPath = rel
            .iter()
            .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
            .collect();
        if module.last().is_some_and(|l| l == "mod" || l == "lib") {
            module.pop();
        }
        if let Some(first) = module.first_mut() {
            if let Some(mounted) = mounts.get(first.as_str()) {
                *first = mounted.clone();
            }
        }
        out.push((
            module,
            std::fs::read_to_string(&path).expect("readable file"),
        ));
    }
}

struct Report {
    problems: Vec<String>,
    edges: usize,
}

/// Checks floors, root references and circles among `files`.
fn check(files: &[(ModPath, String)], floors: &BTreeMap<String, u32>) -> Report {
    let modules: BTreeSet<&ModPath> = files.iter().map(|(m, _)| m).collect();
    let name = |m: &ModPath| format!("{}.rs", m.join("/"));
    let mut problems = Vec::new();
    let mut graph: BTreeMap<&ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    let mut edges = 0;
    for (module, text) in files {
        let floor = floors.get(&module[0]).copied().unwrap_or(u32::MAX);
        let children: BTreeSet<&str> = modules
            .iter()
            .filter(|m| m.len() == module.len() + 1 && m.starts_with(module))
            .map(|m| m[module.len()].as_str())
            .collect();
        for (inline, path) in references(&strip(text), &children) {
            let mut base: ModPath = module.iter().chain(&inline).cloned().collect();
            let mut tail: &[String] = &path;
            match tail[0].as_str() {
                "crate" => {
                    base.clear();
                    tail = &tail[1..];
                }
                "self" => tail = &tail[1..],
                "super" => {
                    while tail.first().is_some_and(|s| s == "super") {
                        base.pop();
                        tail = &tail[1..];
                    }
                }
                _ => {} // a child module of this one
            }
            let mut target = base;
            for seg in tail {
                let mut next = target.clone();
                next.push(seg.clone());
                if modules.contains(&next) {
                    target = next;
                } else {
                    break;
                }
            }
            if target.is_empty() {
                problems.push(format!(
                    "{} reaches `{}` through the crate root: name the module that defines it",
                    name(module),
                    path.join("::")
                ));
                continue;
            }
            if target == *module || !modules.contains(&target) {
                continue; // the file itself, or its own inline modules
            }
            edges += 1;
            let target_floor = floors.get(&target[0]).copied().unwrap_or(u32::MAX);
            if target_floor > floor {
                problems.push(format!(
                    "{} (floor {floor}) references `{}` in {} (floor {target_floor}): a higher floor",
                    name(module),
                    path.join("::"),
                    name(&target)
                ));
            }
            graph.entry(module).or_default().insert(target);
        }
    }
    if let Some(circle) = find_circle(&graph) {
        let names: Vec<String> = circle.iter().map(name).collect();
        problems.push(format!("import circle: {}", names.join(" -> ")));
    }
    Report { problems, edges }
}

/// A circle in the reference graph, as the list of its files (first repeated last).
fn find_circle(graph: &BTreeMap<&ModPath, BTreeSet<ModPath>>) -> Option<Vec<ModPath>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        node: &ModPath,
        graph: &BTreeMap<&ModPath, BTreeSet<ModPath>>,
        marks: &mut BTreeMap<ModPath, Mark>,
        stack: &mut Vec<ModPath>,
    ) -> Option<Vec<ModPath>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let start = stack.iter().position(|m| m == node).expect("on the stack");
                let mut circle = stack[start..].to_vec();
                circle.push(node.clone());
                return Some(circle);
            }
            None => {}
        }
        marks.insert(node.clone(), Mark::Open);
        stack.push(node.clone());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(circle) = visit(next, graph, marks, stack) {
                return Some(circle);
            }
        }
        stack.pop();
        marks.insert(node.clone(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for node in graph.keys() {
        if let Some(circle) = visit(node, graph, &mut marks, &mut Vec::new()) {
            return Some(circle);
        }
    }
    None
}

/// The text with comments, string and char literals blanked out (so paths
/// in docs, messages and doc tests do not count), lifetimes kept.
fn strip(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c[i] == 'r' && (next == Some('"') || next == Some('#')) && raw_string_at(&c, i) {
            let hashes = c[i + 1..].iter().take_while(|&&h| h == '#').count();
            i += 2 + hashes;
            while i < c.len() && !(c[i] == '"' && c[i + 1..].iter().take(hashes).all(|&h| h == '#'))
            {
                i += 1;
            }
            i += 1 + hashes;
            out.push_str("\"\"");
        } else if c[i] == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c[i] == '\'' && (next == Some('\\') || c.get(i + 2) == Some(&'\'')) {
            i += 1;
            while i < c.len() && c[i] != '\'' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

fn raw_string_at(c: &[char], i: usize) -> bool {
    let before_is_ident = i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_');
    let hashes = c[i + 1..].iter().take_while(|&&h| h == '#').count();
    !before_is_ident && c.get(i + 1 + hashes) == Some(&'"')
}

/// Every module path in (stripped) code that starts with `crate`, `super`,
/// `self` or the name of a child module, expanded over `{...}` groups, with
/// the inline modules (`mod tests { ... }`) it sits in.
fn references(code: &str, children: &BTreeSet<&str>) -> Vec<(Vec<String>, Vec<String>)> {
    let tokens = tokenize(code);
    let mut out = Vec::new();
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i].as_str();
        match t {
            "{" => depth += 1,
            "}" => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            "mod" if tokens.get(i + 2).is_some_and(|t| t == "{") => {
                inline.push((tokens[i + 1].clone(), depth + 1));
            }
            _ => {}
        }
        let starts_path = (t == "crate" || t == "super" || t == "self" || children.contains(t))
            && tokens.get(i + 1).is_some_and(|n| n == "::")
            && (i == 0 || tokens[i - 1] != "::");
        if starts_path {
            let (paths, end) = path_tree(&tokens, i, Vec::new());
            let inline_names: Vec<String> = inline.iter().map(|(n, _)| n.clone()).collect();
            out.extend(paths.into_iter().map(|p| (inline_names.clone(), p)));
            i = end;
            continue;
        }
        i += 1;
    }
    out
}

/// Parses `a::b::{c, d::e}` from `tokens[i]` into full paths; returns them
/// and the index after the path.
fn path_tree(tokens: &[String], mut i: usize, prefix: Vec<String>) -> (Vec<Vec<String>>, usize) {
    let mut path = prefix;
    loop {
        match tokens.get(i).map(String::as_str) {
            Some("{") => {
                let mut out = Vec::new();
                i += 1;
                while i < tokens.len() && tokens[i] != "}" {
                    if tokens[i] == "," {
                        i += 1;
                        continue;
                    }
                    let (paths, end) = path_tree(tokens, i, path.clone());
                    out.extend(paths);
                    i = end;
                    // Skip `as alias` and anything else up to the next item.
                    while i < tokens.len() && tokens[i] != "," && tokens[i] != "}" {
                        i += 1;
                    }
                }
                return (out, i + 1);
            }
            Some(seg) if is_ident(seg) || seg == "*" => {
                if seg != "self" || path.is_empty() {
                    path.push(seg.to_string());
                }
                i += 1;
                if tokens.get(i).is_some_and(|t| t == "::") {
                    i += 1;
                    continue;
                }
                return (vec![path], i);
            }
            _ => return (vec![path], i),
        }
    }
}

fn is_ident(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Identifiers, `::`, and single punctuation characters.
fn tokenize(code: &str) -> Vec<String> {
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        if c[i].is_alphanumeric() || c[i] == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push(c[start..i].iter().collect());
        } else if c[i] == ':' && c.get(i + 1) == Some(&':') {
            out.push("::".into());
            i += 2;
        } else {
            if !c[i].is_whitespace() {
                out.push(c[i].to_string());
            }
            i += 1;
        }
    }
    out
}
