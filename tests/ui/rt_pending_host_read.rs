// Reading a device-to-host copy before `.wait()` does not compile.
use sdfg::runtime::{host_read, Device, DeviceBuffer, Error, HostBuffer, Region};

fn main() -> Result<(), Error> {
    let dev = Device::cpu();
    let t_gpu = DeviceBuffer::from_slice(&dev, &[10i32])?;
    let t = dev.default_stream().copy_to_host(
        &t_gpu,
        &Region::whole(1),
        HostBuffer::new(&dev, 1)?,
        &Region::whole(1),
    )?;
    let u = host_read(&t)[0] + 1;
    println!("{u}");
    Ok(())
}
