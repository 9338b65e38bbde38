//! Random nested SDFG calls, written as `sdfg!` source: a nested SDFG `F`
//! (a map, sometimes a loop of states over a symbol of its own) called in a
//! chain of states with its vectors bound to columns, row pieces and
//! pieces of the caller's containers (`F(U = X[1..4, 2], V = Z[3..6], c =
//! 2)`), its size `M` passed or taken from the bound extents. Integers with
//! wrapping arithmetic, all `gpu` (maps `on gpu`) or all `host` (`on cpu`).

use crate::rng::Rng;
use std::fmt::Write;

const TYPES: [&str; 4] = ["i32", "i64", "u32", "u8"];

/// The value of the symbol `N` the programs are called with.
pub const N: i64 = 6;

/// `pub sdfg NAME { ... }` (with `doc` as its doc comment).
pub fn random_nested_program(seed: u64, name: &str, doc: &str) -> String {
    let mut rng = Rng::new(seed);
    let t = TYPES[rng.below(TYPES.len())];
    let (storage, schedule) = [("gpu", "gpu"), ("host", "cpu")][rng.below(2)];
    let mut out = format!("/// {doc}\npub sdfg {name} {{\n    symbol N: i64;\n");
    for (c, shape) in [("X", "N, 4"), ("Y", "N, 4"), ("Z", "8")] {
        let _ = writeln!(out, "    {storage} {c}: {t}[{shape}];");
    }
    // The nested SDFG: V[i] from U around i, the symbol c, i and M.
    let reads = ["U[i]", "U[(i + 1) % M]", "U[M - 1 - i]", "V[i]"];
    let mut value = format!("{} * 3{t}", reads[rng.below(reads.len())]);
    for _ in 0..1 + rng.below(3) {
        let leaf = match rng.below(4) {
            0 => format!("(c as {t})"),
            1 => format!("(i as {t})"),
            2 => format!("(M as {t})"),
            _ => reads[rng.below(reads.len())].to_string(),
        };
        value = format!("({value} {} {leaf})", ["+", "-", "^", "*"][rng.below(4)]);
    }
    let looped = rng.chance(40);
    let _ = writeln!(
        out,
        "    sdfg F {{\n        symbol M: i64;\n        symbol c: i64;\n        \
         {storage} U: {t}[M];\n        {storage} V: {t}[M];\n        \
         state s {{ map f[i in 0..M] on {schedule} {{ V[i] = {value}; }} }}"
    );
    if looped {
        // The map again, `k` more times (a loop of the callee's own).
        let _ = writeln!(
            out,
            "        state again {{ map g[i in 0..M] on {schedule} {{ V[i] = V[i] + (k as {t}); }} }}\n        \
             s -> again {{ k = 0 }}\n        again -> again if k + 1 < c {{ k = k + 1 }}"
        );
    }
    out += "    }\n";
    let calls = 1 + rng.below(3);
    for k in 0..calls {
        // At least two elements: DaCe writes a one-element range as an
        // index, and the importer cannot tell which one the callee's vector
        // ranges over (the DaCe round trip of the random programs).
        let len = 2 + rng.below(3) as i64;
        let from = rng.below(3);
        let to = (from + 1 + rng.below(2)) % 3;
        let (u, v) = (view(&mut rng, from, len), view(&mut rng, to, len));
        let size = if rng.chance(50) {
            format!("M = {len}, ")
        } else {
            String::new()
        };
        let c = rng.below(4);
        let _ = writeln!(
            out,
            "    state s{k} {{ F({size}c = {c}, U = {u}, V = {v}); }}"
        );
    }
    for k in 1..calls {
        let _ = writeln!(out, "    s{} -> s{k};", k - 1);
    }
    out + "}\n"
}

/// A vector of `len` elements of container `which` (X, Y: N x 4; Z: 8).
fn view(rng: &mut Rng, which: usize, len: i64) -> String {
    let start = |rng: &mut Rng, size: i64| rng.below((size - len + 1) as usize) as i64;
    match which {
        2 => {
            let a = start(rng, 8);
            format!("Z[{a}..{}]", a + len)
        }
        _ => {
            let name = ["X", "Y"][which];
            if rng.chance(50) {
                // A column piece.
                let a = start(rng, N);
                format!("{name}[{a}..{}, {}]", a + len, rng.below(4))
            } else {
                // A row piece.
                let a = start(rng, 4);
                format!("{name}[{}, {a}..={}]", rng.below(N as usize), a + len - 1)
            }
        }
    }
}
