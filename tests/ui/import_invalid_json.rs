// trybuild builds this case in target/tests/trybuild/sdfg: the path goes
// back to the repository's tests/ui/dace.
use sdfg::prelude::*;

sdfg! {
    pub sdfg NotJson = include "../../../../tests/ui/dace/invalid_json.sdfg";
}

fn main() {}
