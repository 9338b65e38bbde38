//! Any `.sdfg` file gives a translation or errors, never a panic: random
//! mutations of the DaCe-made fixtures and of our own exports (values
//! replaced, keys removed, texts of code and ranges spliced) go through
//! `import::translate` and, when that succeeds, the front end.

use serde_json::Value;
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

/// xorshift64*: deterministic, so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Pieces spliced into texts: operators, keywords, numbers, names.
const PIECES: [&str; 28] = [
    "(",
    ")",
    "[",
    "]",
    ":",
    ",",
    "-",
    "*",
    "/",
    "//",
    "**",
    " and ",
    " not ",
    "lambda x: x",
    "1e999",
    "-0",
    "99999999999999999999999",
    "N",
    "__out",
    "__in1",
    "if",
    "else",
    "\n    ",
    ";",
    "{",
    "}",
    "static_cast<int>(",
    "0x",
];

/// Every value of the tree, as paths of keys/indices.
fn paths(v: &Value, here: &mut Vec<PathStep>, out: &mut Vec<Vec<PathStep>>) {
    out.push(here.clone());
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                here.push(PathStep::Key(k.clone()));
                paths(x, here, out);
                here.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                here.push(PathStep::Index(i));
                paths(x, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn at<'a>(v: &'a mut Value, path: &[PathStep]) -> Option<&'a mut Value> {
    let mut cur = v;
    for step in path {
        cur = match step {
            PathStep::Key(k) => cur.as_object_mut()?.get_mut(k)?,
            PathStep::Index(i) => cur.as_array_mut()?.get_mut(*i)?,
        };
    }
    Some(cur)
}

fn mutate(v: &mut Value, rng: &mut Rng) {
    let mut all = Vec::new();
    paths(v, &mut Vec::new(), &mut all);
    let path = all[rng.below(all.len())].clone();
    let Some(target) = at(v, &path) else { return };
    match rng.below(7) {
        0 => *target = Value::Null,
        1 => *target = Value::from(rng.below(5) as i64 - 1),
        2 => *target = Value::from(PIECES[rng.below(PIECES.len())]),
        3 => {
            if let Value::String(s) = target {
                let mut chars: Vec<char> = s.chars().collect();
                let at = rng.below(chars.len() + 1);
                let piece = PIECES[rng.below(PIECES.len())];
                for (k, c) in piece.chars().enumerate() {
                    chars.insert(at + k, c);
                }
                *s = chars.into_iter().collect();
            }
        }
        4 => {
            if let Value::Object(m) = target {
                let keys: Vec<String> = m.keys().cloned().collect();
                if !keys.is_empty() {
                    m.remove(&keys[rng.below(keys.len())]);
                }
            }
        }
        5 => {
            if let Value::Array(a) = target {
                if !a.is_empty() {
                    let x = a[rng.below(a.len())].clone();
                    a.push(x);
                    let i = rng.below(a.len());
                    a.swap(0, i);
                }
            }
        }
        _ => {
            if let Value::String(s) = target {
                let n = s.chars().count();
                if n > 0 {
                    let cut = rng.below(n);
                    *s = s.chars().take(cut).collect();
                }
            }
        }
    }
}

fn seeds() -> Vec<(String, Value)> {
    let root = repo_root();
    let mut out = Vec::new();
    for dir in ["tests/fixtures/dace", "tests/ui/dace"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        files.sort();
        for f in files
            .into_iter()
            .filter(|f| f.extension().is_some_and(|e| e == "sdfg"))
        {
            let text = std::fs::read_to_string(&f).expect("read");
            if let Ok(v) = serde_json::from_str(&text) {
                out.push((f.display().to_string(), v));
            }
        }
    }
    // Our own exports: C++ tasklets and the exporter's marks.
    let ours = r#"
        #[streams(auto)]
        sdfg Ours {
            symbol N: i64;
            gpu A: f64[N];
            host H: f64[N];
            host S: i64[4];
            host T: f64;
            state s {
                map m[i in 0..N] on gpu { A[i] = if i > 2 { (i as f64).sqrt() } else { A[i].powi(2) }; }
                copy A -> H;
                tasklet t {
                    let mut acc = 0i64;
                    for k in (0..N).step_by(2) { acc += k % 3; }
                    S[0] = acc.min(7);
                    S[1] = S[2] << 3;
                }
                map r[i in 0..N] on cpu { S[3] += (H[i] as i64) / 2; }
            }
            state e {}
            s -> e if S[0] > 1 { k = N - 1; }
            s -> s;
        }
    "#;
    let sdfg = sdfg_compiler::frontend_str(ours).expect("the seed program is valid");
    out.push((
        "ours".to_string(),
        sdfg_compiler::export::dace::to_sdfg_json(&sdfg),
    ));
    out
}

#[test]
fn mutated_files_give_errors_or_programs_never_panics() {
    let seeds = seeds();
    assert!(seeds.len() >= 10, "{} seed files", seeds.len());
    let rounds: usize = std::env::var("SDFG_IMPORT_FUZZ")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let mut rng = Rng(0x5DF6_2024_0001);
    let (mut translated, mut rejected) = (0, 0);
    for (name, seed) in &seeds {
        for round in 0..rounds {
            let mut v = seed.clone();
            for _ in 0..=rng.below(3) {
                mutate(&mut v, &mut rng);
            }
            let text = serde_json::to_string(&v).expect("json");
            let result =
                std::panic::catch_unwind(|| match sdfg_compiler::import::translate(&text) {
                    Ok(items) => {
                        let _ =
                            sdfg_compiler::frontend_str(&format!("sdfg Fuzzed {{\n{items}\n}}"));
                        true
                    }
                    Err(errors) => {
                        assert!(!errors.is_empty(), "an error result without errors");
                        false
                    }
                });
            match result {
                Ok(true) => translated += 1,
                Ok(false) => rejected += 1,
                Err(_) => panic!("{name}, round {round}: the importer panicked on:\n{text}"),
            }
        }
    }
    println!("{translated} mutations translated, {rejected} rejected");
    assert!(translated > 0 && rejected > 0);
}
