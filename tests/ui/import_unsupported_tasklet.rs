// A tasklet with a `while` loop, which the tasklet language does not have.
use sdfg::prelude::*;

sdfg! {
    pub sdfg Halve = include "../../../../tests/ui/dace/tasklet_while.sdfg";
}

fn main() {}
