// A DaCe SDFG has no `wait` statements to place by hand.
use sdfg::prelude::*;

sdfg! {
    #[sync(manual)]
    pub sdfg Manual = include "../../../../tests/fixtures/dace/repro.sdfg";
}

fn main() {}
