// The translated SDFG goes through every check of a written one: a CPU map
// may not read GPU memory (DaCe itself lets this SDFG through).
use sdfg::prelude::*;

sdfg! {
    pub sdfg HostReadsGpu = include "../../../../tests/ui/dace/cpu_reads_gpu.sdfg";
}

fn main() {}
