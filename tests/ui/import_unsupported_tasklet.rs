// A tasklet with a `lambda`, which the tasklet language does not have.
use sdfg::prelude::*;

sdfg! {
    pub sdfg Halve = include "../../../../tests/ui/dace/tasklet_lambda.sdfg";
}

fn main() {}
