// Raw PTX runs with the whole device memory in reach, so loading it is
// `unsafe`: a crate that forbids unsafe code can neither call `Module::load`
// (nor `load_dynamic`) as if it were safe, nor wrap it in `unsafe`.
#![forbid(unsafe_code)]

use sdfg::runtime::{Device, Error, Module};

fn main() -> Result<(), Error> {
    let device = Device::cpu();
    let _module = Module::load(&device, ".entry anything() { ret; }", &[])?;
    let _dynamic = Module::load_dynamic(&device, String::new(), Vec::new())?;
    let _wrapped = unsafe { Module::load(&device, "", &[]) }?;
    Ok(())
}
