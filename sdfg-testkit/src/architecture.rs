//! Floors: a crate's modules import only from their own floor or below,
//! never through the crate root's re-exports, and no files import each other
//! around a circle. The floors are a table in the crate's `src/lib.rs` docs,
//! rows `//! | N, name | `folder/`, `file.rs` | ... |`; [`check_crate`] reads
//! it, every `crate::` / `super::` / `self::` / child-module path of every
//! file under `src/` (comments, strings and `#[cfg(test)]` modules left out:
//! tests may use the whole crate), and reports every rule broken.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module: its path below the crate root (`["order", "tracker"]`).
pub type ModPath = Vec<String>;

/// Which references may not form a circle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Circles {
    /// No two files reference each other, directly or around a circle.
    BetweenFiles,
    /// No two rooms (top-level modules) do; inside a room, a folder's
    /// `mod.rs` and its files may work together.
    BetweenRooms,
}

/// Checks the crate whose manifest directory is `manifest_dir` against the
/// floor table of its `src/lib.rs`.
pub fn check_crate(manifest_dir: &Path, circles: Circles) -> Report {
    let src = manifest_dir.join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("src/lib.rs");
    let mounts = mounts(&lib);
    let floors = floor_table(&lib, &mounts);
    let mut files = Vec::new();
    collect(&src, &src, &mounts, &mut files);
    files.retain(|(module, _)| !module.is_empty()); // lib.rs: declarations, re-exports, the driver
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
    let mut report = check(&files, &floors, circles);
    problems.append(&mut report.problems);
    report.problems = problems;
    report
}

/// Folders mounted under another module name (`#[path = "glue/mod.rs"]
/// pub mod __glue;`): folder -> module.
pub fn mounts(lib: &str) -> BTreeMap<String, String> {
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
pub fn floor_table(lib: &str, mounts: &BTreeMap<String, String>) -> BTreeMap<String, u32> {
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
pub fn collect(
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

/// What [`check`] found.
pub struct Report {
    /// One line per broken rule, naming the files.
    pub problems: Vec<String>,
    /// How many references between files were found (a sanity check of the scanner).
    pub edges: usize,
}

/// Checks floors, root references and circles among `files`.
pub fn check(
    files: &[(ModPath, String)],
    floors: &BTreeMap<String, u32>,
    circles: Circles,
) -> Report {
    let modules: BTreeSet<&ModPath> = files.iter().map(|(m, _)| m).collect();
    let name = |m: &ModPath| format!("{}.rs", m.join("/"));
    let mut problems = Vec::new();
    let mut graph: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    // The node a file counts as for circles: itself, or its room.
    let node = |m: &ModPath| match circles {
        Circles::BetweenFiles => m.clone(),
        Circles::BetweenRooms => m[..1].to_vec(),
    };
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
            let (from, to) = (node(module), node(&target));
            if from != to {
                graph.entry(from).or_default().insert(to);
            }
        }
    }
    let graph: BTreeMap<&ModPath, BTreeSet<ModPath>> =
        graph.iter().map(|(k, v)| (k, v.clone())).collect();
    if let Some(circle) = find_circle(&graph) {
        let names: Vec<String> = circle
            .iter()
            .map(|m| match circles {
                Circles::BetweenFiles => name(m),
                Circles::BetweenRooms => format!("{}/", m.join("/")),
            })
            .collect();
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
        if let Some(end) = cfg_test_module_end(&tokens, i) {
            i = end; // tests may use the whole crate
            continue;
        }
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

/// When `tokens[i..]` starts `#[cfg(test)] mod NAME {`, the index after
/// that module's closing brace.
fn cfg_test_module_end(tokens: &[String], i: usize) -> Option<usize> {
    const HEAD: [&str; 8] = ["#", "[", "cfg", "(", "test", ")", "]", "mod"];
    let matches = HEAD
        .iter()
        .enumerate()
        .all(|(k, h)| tokens.get(i + k).is_some_and(|t| t == h));
    if !matches || tokens.get(i + HEAD.len() + 1).is_none_or(|t| t != "{") {
        return None;
    }
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(i + HEAD.len() + 1) {
        match t.as_str() {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if depth == 0 {
                    return Some(k + 1);
                }
            }
            _ => {}
        }
    }
    Some(tokens.len())
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
