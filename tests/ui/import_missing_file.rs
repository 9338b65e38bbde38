// The path is relative to the crate's directory (where its Cargo.toml is).
use sdfg::prelude::*;

sdfg! {
    pub sdfg Missing = include "fixtures/no_such_file.sdfg";
}

fn main() {}
