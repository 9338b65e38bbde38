// A library node sdfg-rs has no statement for (`np.linalg.inv`) and a
// nested SDFG (a loop inside a map), as
// DaCe's Python frontend makes them (ci/dace_fixtures.py --errors).
use sdfg::prelude::*;

sdfg! {
    pub sdfg Inverse = include "../../../../tests/ui/dace/linalg_inv.sdfg";
}

sdfg! {
    pub sdfg Nested = include "../../../../tests/ui/dace/nested_sdfg.sdfg";
}

fn main() {}
