// Thread-block maps and GPU_Shared storage are not in the language yet.
use sdfg::prelude::*;

sdfg! {
    pub sdfg Block = include "../../../../tests/ui/dace/thread_block.sdfg";
}

fn main() {}
