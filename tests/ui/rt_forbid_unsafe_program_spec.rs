// A program spec promises that its PTX is sound to launch from the glue's
// safe code, so building one needs `unsafe`: `ProgramSpec::new` is an
// `unsafe fn` (and its fields are private: see rt_program_spec_literal.rs).
#![forbid(unsafe_code)]

use sdfg::runtime::__glue::{ProgramSpec, StreamSpec};

static SPEC: ProgramSpec = ProgramSpec::new("p", "", &[], StreamSpec::Default);

fn main() {
    let _ = &SPEC;
}
