//! Random state machines, written as `sdfg!` source: a loop over a symbol
//! `t` (one or two states in its body, sometimes a second loop after it,
//! sometimes a branch on `t` inside), whose maps read `t` and each other's
//! containers, over integers with wrapping arithmetic or floats under
//! `+ *`, all `gpu` (maps `on gpu`) or all `host` (maps `on cpu`). The
//! symbols `N` and `T` are given at the call; the edges assign `t` and `u`
//! (sometimes `u` from the old `t`, at once).

use crate::rng::Rng;
use std::fmt::Write;

const TYPES: [&str; 5] = ["i32", "i64", "u16", "f64", "u64"];

/// The values of the symbols `N` and `T` the programs are called with.
pub const SYMBOLS: [(&str, i64); 2] = [("N", 7), ("T", 4)];

struct Gen {
    rng: Rng,
    t: &'static str,
    schedule: &'static str,
    maps: usize,
    /// `t` and `u` have values (not in `init`, before the first edge).
    assigned: bool,
}

/// `pub sdfg NAME { ... }` (with `doc` as its doc comment).
pub fn random_loop_program(seed: u64, name: &str, doc: &str) -> String {
    let mut rng = Rng::new(seed);
    let t = TYPES[rng.below(TYPES.len())];
    let (storage, schedule) = [("gpu", "gpu"), ("host", "cpu")][rng.below(2)];
    let mut g = Gen {
        rng,
        t,
        schedule,
        maps: 0,
        assigned: false,
    };
    let mut out =
        format!("/// {doc}\npub sdfg {name} {{\n    symbol N: i64;\n    symbol T: i64;\n");
    for c in ["A", "B", "C"] {
        let _ = writeln!(out, "    {storage} {c}: {t}[N];");
    }
    let mut states = String::new();
    let mut edges = String::new();
    let _ = writeln!(states, "    state init {{ {} }}", g.maps_of(1));
    g.assigned = true;
    let body = 1 + g.rng.below(2);
    for k in 0..body {
        let maps = 1 + g.rng.below(3);
        let _ = writeln!(states, "    state a{k} {{ {} }}", g.maps_of(maps));
    }
    let _ = writeln!(edges, "    init -> a0 {{ t = 0; u = 1 }}");
    let last = format!("a{}", body - 1);
    if body == 2 {
        if g.rng.chance(50) {
            // A branch inside the loop: `a1` only on odd steps.
            let _ = writeln!(edges, "    a0 -> a1 if t % 2 == 1;");
            let u = g.next_u();
            let _ = writeln!(edges, "    a0 -> a0 if t + 1 < T {{ t = t + 1; {u} }}");
            let _ = writeln!(edges, "    a0 -> after;");
        } else {
            let _ = writeln!(edges, "    a0 -> a1;");
        }
    }
    let u = g.next_u();
    let _ = writeln!(edges, "    {last} -> a0 if t + 1 < T {{ t = t + 1; {u} }}");
    let _ = writeln!(edges, "    {last} -> after;");
    if g.rng.chance(40) {
        // A second loop, counting down from what the first left in `t`.
        let _ = writeln!(states, "    state after {{ {} }}", g.maps_of(1));
        let maps = 1 + g.rng.below(2);
        let _ = writeln!(states, "    state b {{ {} }}", g.maps_of(maps));
        let _ = writeln!(edges, "    after -> b if t > 0 {{ t = t - 1 }}");
        let _ = writeln!(edges, "    b -> b if t > 0 {{ t = t - 1 }}");
    } else {
        let _ = writeln!(states, "    state after {{ {} }}", g.maps_of(1));
    }
    out + &states + &edges + "}\n"
}

impl Gen {
    /// The loop edge's update of `u`: from the old `t` (computed at once
    /// with `t = t + 1`; DaCe has no such edge, so such a program has no
    /// export), or from `u` alone.
    fn next_u(&mut self) -> &'static str {
        if self.rng.chance(50) {
            "u = u * 3 + t"
        } else {
            "u = u * 3 + 1"
        }
    }

    /// `count` maps, each writing its own container.
    fn maps_of(&mut self, count: usize) -> String {
        let mut targets = vec!["A", "B", "C"];
        let mut out = String::new();
        for _ in 0..count {
            let target = targets.remove(self.rng.below(targets.len()));
            let value = self.expr(target, 3);
            let name = format!("m{}", self.maps);
            self.maps += 1;
            let _ = write!(
                out,
                "map {name}[i in 0..N] on {} {{ {target}[i] = {value}; }} ",
                self.schedule
            );
        }
        out
    }

    /// A value for `target[i]`: reads of the other containers at any
    /// element, of `target` at `i` only, the symbols, literals.
    fn expr(&mut self, target: &str, depth: u32) -> String {
        let t = self.t;
        let float = t.starts_with('f');
        if depth == 0 || self.rng.chance(25) {
            let others: Vec<&str> = ["A", "B", "C"]
                .into_iter()
                .filter(|c| *c != target)
                .collect();
            let other = others[self.rng.below(2)];
            return match self.rng.below(8) {
                0 => format!("{target}[i]"),
                1 => format!("{other}[i]"),
                2 => format!("{other}[(i + 1) % N]"),
                3 => format!("{other}[N - 1 - i]"),
                4 if self.assigned => format!("(t as {t})"),
                5 if self.assigned => format!("(u as {t})"),
                6 => format!("(i as {t})"),
                _ => format!("{}{t}", if float { "0.5" } else { "3" }),
            };
        }
        let (a, b) = (self.expr(target, depth - 1), self.expr(target, depth - 1));
        let ops: &[&str] = if float {
            &["+", "*"]
        } else {
            &["+", "-", "*", "^"]
        };
        format!("({a} {} {b})", ops[self.rng.below(ops.len())])
    }
}
