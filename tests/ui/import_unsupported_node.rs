// A library node (`np.sum`) and a nested SDFG (a loop inside a map), as
// DaCe's Python frontend makes them (ci/dace_fixtures.py --errors).
use sdfg::prelude::*;

sdfg! {
    pub sdfg Sum = include "../../../../tests/ui/dace/library_node.sdfg";
}

sdfg! {
    pub sdfg Nested = include "../../../../tests/ui/dace/nested_sdfg.sdfg";
}

fn main() {}
