// An argument cannot be mutated while the `Running` of a launch holds it.
use sdfg::runtime::__glue::{Program, ProgramSpec, StreamSpec};
use sdfg::runtime::{Device, Error, Running};
use std::marker::PhantomData;

// SAFETY: no kernels, so nothing is ever launched.
static SPEC: ProgramSpec = unsafe { ProgramSpec::new("fake", "", &[], StreamSpec::Created(1)) };

/// What a generated `launch` looks like: the Running borrows the arguments.
fn launch<'a>(program: &'a Program, x: &'a mut Vec<i32>) -> Result<Running<'a>, Error> {
    let context = program.context()?;
    x.push(0); // (a real launch would issue copies of `x` here)
    Ok(context.finish(PhantomData))
}

fn main() -> Result<(), Error> {
    let dev = Device::cpu();
    // SAFETY: as above.
    let program = unsafe { Program::load(&dev, &SPEC) }?;
    let mut x = vec![1, 2, 3];
    let running = launch(&program, &mut x)?;
    x.push(4);
    running.wait()?;
    Ok(())
}
