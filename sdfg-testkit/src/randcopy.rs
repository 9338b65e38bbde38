//! Random copy programs, written as `sdfg!` source: containers of one to
//! three dimensions (literal sizes and sizes over a symbol `N`) in `gpu`,
//! `host` and `pinned` storage, and a chain of states, each with one copy
//! between two of them: a whole container, or a box of one to three
//! dimensions whose other dimensions keep one index (`copy A[2, 1..4, 0..=2]
//! -> B[0..3, 3, 1..4]`). Element `k` of the source box (row-major) lands on
//! element `k` of the destination box.

use crate::rng::Rng;
use std::fmt::Write;

const TYPES: [&str; 15] = [
    "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32", "f64", "bool",
    "c32", "c64",
];

/// The value of the symbol `N` the sizes assume.
pub const N: i64 = 5;

/// A container: name, storage and sizes (source text and value).
struct Array {
    name: String,
    storage: &'static str,
    dims: Vec<(String, i64)>,
}

/// `pub sdfg NAME { ... }` (with `doc` as its doc comment): a random copy
/// program over one element type, with the symbol `N` (`i64`, [`N`]).
pub fn random_copy_program(seed: u64, name: &str, doc: &str) -> String {
    let mut rng = Rng::new(seed);
    let t = TYPES[rng.below(TYPES.len())];
    let sizes = [
        ("3".to_string(), 3),
        ("4".to_string(), 4),
        ("7".to_string(), 7),
        ("N".to_string(), N),
        ("N + 2".to_string(), N + 2),
        ("2 * N".to_string(), 2 * N),
    ];
    let storages = ["gpu", "host", "pinned"];
    let mut arrays: Vec<Array> = (0..4)
        .map(|k| {
            let rank = 1 + rng.below(3);
            Array {
                name: format!("C{k}"),
                storage: storages[rng.below(3)],
                dims: (0..rank)
                    .map(|_| sizes[rng.below(sizes.len())].clone())
                    .collect(),
            }
        })
        .collect();
    // A twin of the first container, so that whole copies have a partner.
    arrays.push(Array {
        name: "C4".into(),
        storage: storages[rng.below(3)],
        dims: arrays[0].dims.clone(),
    });
    let mut out = format!("/// {doc}\npub sdfg {name} {{\n    symbol N: i64;\n");
    for a in &arrays {
        let dims: Vec<&str> = a.dims.iter().map(|(text, _)| text.as_str()).collect();
        let _ = writeln!(
            out,
            "    {} {}: {t}[{}];",
            a.storage,
            a.name,
            dims.join(", ")
        );
    }
    let copies = 1 + rng.below(4);
    for k in 0..copies {
        let copy = if rng.chance(20) {
            if rng.chance(50) {
                "copy C0 -> C4;".to_string()
            } else {
                "copy C4 -> C0;".to_string()
            }
        } else {
            let src = rng.below(arrays.len());
            let dst = (src + 1 + rng.below(arrays.len() - 1)) % arrays.len();
            boxed_copy(&mut rng, &arrays[src], &arrays[dst])
        };
        let _ = writeln!(out, "    state s{k} {{ {copy} }}");
    }
    for k in 1..copies {
        let _ = writeln!(out, "    s{} -> s{k};", k - 1);
    }
    out + "}\n"
}

/// A copy of a random box of `src` into a box of the same extents in `dst`.
fn boxed_copy(rng: &mut Rng, src: &Array, dst: &Array) -> String {
    let most = src.dims.len().min(dst.dims.len());
    let ranged = 1 + rng.below(most);
    // Which dimensions of each side are ranges (in order), the others
    // single indices.
    let pick = |rng: &mut Rng, rank: usize| -> Vec<usize> {
        let mut dims: Vec<usize> = (0..rank).collect();
        while dims.len() > ranged {
            dims.remove(rng.below(dims.len()));
        }
        dims
    };
    let (src_ranges, dst_ranges) = (pick(rng, src.dims.len()), pick(rng, dst.dims.len()));
    let extents: Vec<i64> = (0..ranged)
        .map(|m| {
            let room = src.dims[src_ranges[m]].1.min(dst.dims[dst_ranges[m]].1);
            1 + rng.below(room as usize) as i64
        })
        .collect();
    let side = |rng: &mut Rng, a: &Array, ranges: &[usize]| -> String {
        let entries: Vec<String> = (0..a.dims.len())
            .map(|d| {
                let size = a.dims[d].1;
                match ranges.iter().position(|&r| r == d) {
                    Some(m) => {
                        let e = extents[m];
                        let start = rng.below((size - e + 1) as usize) as i64;
                        if rng.chance(30) {
                            format!("{start}..={}", start + e - 1)
                        } else {
                            format!("{start}..{}", start + e)
                        }
                    }
                    None => rng.below(size as usize).to_string(),
                }
            })
            .collect();
        format!("{}[{}]", a.name, entries.join(", "))
    };
    let from = side(rng, src, &src_ranges);
    let to = side(rng, dst, &dst_ranges);
    format!("copy {from} -> {to};")
}
