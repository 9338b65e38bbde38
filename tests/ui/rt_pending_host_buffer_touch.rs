// A HostBuffer that a copy is still writing cannot be touched on the host.
use sdfg::runtime::{Device, DeviceBuffer, Error, HostBuffer, Region};

fn main() -> Result<(), Error> {
    let dev = Device::cpu();
    let src = DeviceBuffer::from_slice(&dev, &[1i32, 2])?;
    let stream = dev.default_stream();

    // Borrowed destination: the Pending holds the `&mut` until `.wait()`.
    let mut host = HostBuffer::<i32>::new(&dev, 2)?;
    let pending = stream.copy_to_host_buffer(&src, &Region::whole(2), &mut host, &Region::whole(2))?;
    println!("{:?}", host.as_slice());
    pending.wait()?;

    // Owned destination: it moved into the Pending.
    let owned = HostBuffer::<i32>::new(&dev, 2)?;
    let pending = stream.copy_to_host(&src, &Region::whole(2), owned, &Region::whole(2))?;
    println!("{:?}", owned.as_slice());
    pending.wait()?;
    Ok(())
}
