// `extern sdfg` of a program that is not in scope: rustc's error at the path
// (the source comes through the program's macro, which does not exist).
use sdfg::prelude::*;

sdfg! {
    sdfg Missing {
        extern sdfg Normalize;
        gpu X: f64[8];
        state s { Normalize(A = X); }
    }
}

fn main() {}
