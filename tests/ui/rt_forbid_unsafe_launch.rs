// Launching a kernel trusts its PTX with unchecked parameters, so
// `Stream::launch` is `unsafe`: safe code cannot call it.
#![forbid(unsafe_code)]

use sdfg::runtime::{DeviceBuffer, Error, KernelArg, LaunchConfig, Module, Stream};

fn scribble(stream: &Stream, module: &Module, x: &DeviceBuffer<u64>) -> Result<(), Error> {
    let config = LaunchConfig::for_counts(stream.device(), &[1], [1, 1, 1], 1);
    stream.launch(module, 0, &config, &[KernelArg::read(x), KernelArg::value(u64::MAX)])
}

fn main() {
    let _ = scribble;
}
