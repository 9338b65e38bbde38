//! Random array statements (NumPy's slices), written as `sdfg!` source:
//! containers of one and two dimensions (literal sizes and sizes over a
//! symbol `N`), all `gpu` or all `host`, and a chain of states, each with
//! one statement `TARGET[..] = VALUE;` or `TARGET[..] op= VALUE;` whose
//! operands are slices of the other containers (ranges `a..b`, `a..=b`,
//! `(a..b).step_by(s)`, and single indices), a scalar container, elements
//! and literals. Values are integers with wrapping arithmetic, or floats
//! under `+ - *` (each element computed once, in one order): every backend
//! must give the evaluator's bits.

use crate::rng::Rng;
use std::fmt::Write;

const TYPES: [&str; 6] = ["i32", "i64", "u8", "i16", "f32", "f64"];

/// The value of the symbol `N` the sizes assume.
pub const N: i64 = 6;

struct Array {
    name: String,
    dims: Vec<(String, i64)>,
}

/// `pub sdfg NAME { ... }` (with `doc` as its doc comment): random array
/// statements over one element type, with the symbol `N` (`i64`, [`N`]).
pub fn random_array_program(seed: u64, name: &str, doc: &str) -> String {
    let mut rng = Rng::new(seed);
    let t = TYPES[rng.below(TYPES.len())];
    let storage = ["gpu", "host"][rng.below(2)];
    let sizes = [
        ("6".to_string(), 6),
        ("8".to_string(), 8),
        ("N".to_string(), N),
        ("N + 2".to_string(), N + 2),
    ];
    let arrays: Vec<Array> = (0..4)
        .map(|k| {
            let rank = 1 + rng.below(2);
            Array {
                name: format!("A{k}"),
                dims: (0..rank)
                    .map(|_| sizes[rng.below(sizes.len())].clone())
                    .collect(),
            }
        })
        .collect();
    let mut out = format!("/// {doc}\npub sdfg {name} {{\n    symbol N: i64;\n");
    for a in &arrays {
        let dims: Vec<&str> = a.dims.iter().map(|(text, _)| text.as_str()).collect();
        let _ = writeln!(out, "    {storage} {}: {t}[{}];", a.name, dims.join(", "));
    }
    let _ = writeln!(out, "    {storage} S: {t};");
    let statements = 1 + rng.below(4);
    for k in 0..statements {
        let target = rng.below(arrays.len());
        let statement = statement(&mut rng, t, &arrays, target);
        let _ = writeln!(out, "    state s{k} {{ {statement} }}");
    }
    for k in 1..statements {
        let _ = writeln!(out, "    s{} -> s{k};", k - 1);
    }
    out + "}\n"
}

/// One sliced dimension: its entry's text and the number of elements.
fn sliced(rng: &mut Rng, size: i64, len: i64) -> String {
    // A step s > 1 needs (len - 1) s + 1 elements of room.
    let step = if rng.chance(30) { 2 } else { 1 };
    let step = if (len - 1) * step < size { step } else { 1 };
    let room = size - ((len - 1) * step + 1);
    let start = rng.below(room as usize + 1) as i64;
    let last = start + (len - 1) * step;
    if step > 1 {
        format!("({start}..{}).step_by({step})", last + 1)
    } else if rng.chance(30) {
        format!("{start}..={last}")
    } else {
        format!("{start}..{}", last + 1)
    }
}

/// `NAME[entries]` with the sliced dimensions of `lens` (in order), the
/// others single indices; `None` when `a` has too few dimensions.
fn slice_of(rng: &mut Rng, a: &Array, lens: &[i64]) -> Option<String> {
    if a.dims.len() < lens.len() {
        return None;
    }
    // Which dimensions are sliced (in order).
    let mut chosen: Vec<usize> = (0..a.dims.len()).collect();
    while chosen.len() > lens.len() {
        chosen.remove(rng.below(chosen.len()));
    }
    if chosen.iter().zip(lens).any(|(&d, &len)| a.dims[d].1 < len) {
        return None;
    }
    let entries: Vec<String> = (0..a.dims.len())
        .map(|d| match chosen.iter().position(|&c| c == d) {
            Some(m) => sliced(rng, a.dims[d].1, lens[m]),
            None => rng.below(a.dims[d].1 as usize).to_string(),
        })
        .collect();
    Some(format!("{}[{}]", a.name, entries.join(", ")))
}

fn statement(rng: &mut Rng, t: &str, arrays: &[Array], target: usize) -> String {
    let a = &arrays[target];
    let k = 1 + rng.below(a.dims.len());
    // Extents no larger than the smallest size (6): every container can
    // give them.
    let lens: Vec<i64> = (0..k).map(|_| 1 + rng.below(6) as i64).collect();
    let lhs = slice_of(rng, a, &lens).unwrap_or_else(|| a.name.clone());
    let value = value(rng, t, arrays, target, &lens, 3);
    let op = if rng.chance(25) {
        ["+=", "-=", "*="][rng.below(3)]
    } else {
        "="
    };
    format!("{lhs} {op} {value};")
}

/// A value whose slices have the extents `lens`.
fn value(
    rng: &mut Rng,
    t: &str,
    arrays: &[Array],
    target: usize,
    lens: &[i64],
    depth: u32,
) -> String {
    if depth == 0 || rng.chance(30) {
        return match rng.below(6) {
            0 => "S".to_string(),
            1 => format!("{}{t}", if t.starts_with('f') { "1.5" } else { "3" }),
            2 => {
                // One element of another container: a broadcast.
                let other = (target + 1 + rng.below(arrays.len() - 1)) % arrays.len();
                let o = &arrays[other];
                let index: Vec<String> = o
                    .dims
                    .iter()
                    .map(|d| rng.below(d.1 as usize).to_string())
                    .collect();
                format!("{}[{}]", o.name, index.join(", "))
            }
            _ => {
                // A slice of another container with the same extents.
                for _ in 0..8 {
                    let other = (target + 1 + rng.below(arrays.len() - 1)) % arrays.len();
                    if let Some(s) = slice_of(rng, &arrays[other], lens) {
                        return s;
                    }
                }
                "S".to_string()
            }
        };
    }
    let (x, y) = (
        value(rng, t, arrays, target, lens, depth - 1),
        value(rng, t, arrays, target, lens, depth - 1),
    );
    let ops: &[&str] = if t.starts_with('f') {
        &["+", "-", "*"]
    } else {
        &["+", "-", "*", "^", "&", "|"]
    };
    format!("({x} {} {y})", ops[rng.below(ops.len())])
}
