// An argument cannot be mutated while the `Running` of a launch holds it.
use sdfg::runtime::__glue::{Program, ProgramSpec, StreamSpec};
use sdfg::runtime::{Device, Error, Running};
use std::marker::PhantomData;

static SPEC: ProgramSpec = ProgramSpec {
    name: "fake",
    ptx: "",
    kernels: &[],
    streams: StreamSpec::Created(1),
};

/// What a generated `launch` looks like: the Running borrows the arguments.
fn launch<'a>(program: &'a Program, x: &'a mut Vec<i32>) -> Result<Running<'a>, Error> {
    let context = program.context()?;
    x.push(0); // (a real launch would issue copies of `x` here)
    Ok(context.finish(PhantomData))
}

fn main() -> Result<(), Error> {
    let dev = Device::cpu();
    let program = Program::load(&dev, &SPEC)?;
    let mut x = vec![1, 2, 3];
    let running = launch(&program, &mut x)?;
    x.push(4);
    running.wait()?;
    Ok(())
}
