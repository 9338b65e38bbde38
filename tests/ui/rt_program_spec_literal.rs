// A program spec cannot be built with a struct literal, which would skip the
// `unsafe` of `ProgramSpec::new`: its fields are private.
use sdfg::runtime::__glue::{ProgramSpec, StreamSpec};

static SPEC: ProgramSpec = ProgramSpec {
    name: "p",
    ptx: "",
    kernels: &[],
    streams: StreamSpec::Default,
};

fn main() {
    let _ = &SPEC;
}
