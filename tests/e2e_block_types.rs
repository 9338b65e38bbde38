//! Block data of every element type: `shared` and `register` data of
//! `f16`, `bf16`, `c32`, `c64`, `i16` and `bool` in a block map, stored
//! from global memory, read back by other threads, computed with and
//! stored again, on every device, bit for bit against plain Rust (16-bit
//! floats compute in f32 and round once per operation, as `half`'s
//! operators do; complex values with num-complex's formulas). On the GPU
//! the loads and stores of these types have their own forms (a 16-bit
//! float is widened to f32 in its register, a complex value is a pair of
//! registers moved with `ld.v2`/`st.v2`); before they went through the
//! block's own load and store paths, a `c32` block map did not assemble
//! and `f16` shared data computed on raw bits.

mod common;
use sdfg::prelude::*;

crate::common::fixtures::block_types!(sdfg);

#[test]
fn block_data_of_every_element_type_computes_like_plain_rust() {
    let n = 256usize;
    let f = |i: usize, k: u64| ((i as u64 * 2654435761 + k * 40503) % 2001) as f32 / 250.0 - 4.0;
    let h: Vec<f16> = (0..n).map(|i| f16::from_f32(f(i, 1))).collect();
    let b: Vec<bf16> = (0..n).map(|i| bf16::from_f32(f(i, 2))).collect();
    let z: Vec<Complex<f32>> = (0..n).map(|i| Complex::new(f(i, 3), f(i, 4))).collect();
    let w: Vec<Complex<f64>> = (0..n)
        .map(|i| Complex::new(f(i, 5) as f64 / 3.0, f(i, 6) as f64 + 0.5))
        .collect();
    let int: Vec<i16> = (0..n)
        .map(|i| (i as i16).wrapping_mul(397).wrapping_sub(3000))
        .collect();
    // The reference, in the program's operation order.
    let (mut ho, mut bo, mut zo, mut wo, mut io, mut po) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    for at in 0..n {
        let (g, t) = (at / 64 * 64, at % 64);
        let (u, v) = (g + 63 - t, g + (t + 1) % 64);
        ho.push(h[u] * h[at] + h[v]);
        bo.push(b[u] * b[at] + b[v]);
        zo.push(z[u] * z[at] + z[v]);
        wo.push((w[u] * w[at] - w[v]) / w[at]);
        io.push(int[u].wrapping_mul(int[at]).wrapping_add(int[v]));
        po.push((h[u] > f16::ZERO) != (h[at] > f16::ZERO));
    }
    let hs: Vec<f16> = (0..n / 64)
        .map(|g| f16::from_f32((0..64).map(|t| (int[g * 64 + t] % 8) as f32).sum()))
        .collect();
    let zs = Complex::new(
        0.5 + (0..n).map(|i| (int[i] % 8) as f32).sum::<f32>(),
        n as f32,
    );
    let mut devices = common::devices("block types");
    devices.push(Device::cpu_with_threads(16));
    for device in devices {
        let name = device.name();
        let program = BlockTypes::load(&device).unwrap();
        let dh = DeviceBuffer::from_slice(&device, &h).unwrap();
        let db = DeviceBuffer::from_slice(&device, &b).unwrap();
        let dz = DeviceBuffer::from_slice(&device, &z).unwrap();
        let dw = DeviceBuffer::from_slice(&device, &w).unwrap();
        let di = DeviceBuffer::from_slice(&device, &int).unwrap();
        let mut dho = DeviceBuffer::from_slice(&device, &vec![f16::NAN; n]).unwrap();
        let mut dbo = DeviceBuffer::from_slice(&device, &vec![bf16::NAN; n]).unwrap();
        let nan32 = Complex::new(f32::NAN, f32::NAN);
        let mut dzo = DeviceBuffer::from_slice(&device, &vec![nan32; n]).unwrap();
        let nan64 = Complex::new(f64::NAN, f64::NAN);
        let mut dwo = DeviceBuffer::from_slice(&device, &vec![nan64; n]).unwrap();
        let mut dio = DeviceBuffer::from_slice(&device, &vec![i16::MIN; n]).unwrap();
        let mut dpo = DeviceBuffer::<bool>::zeros(&device, n).unwrap();
        let mut dhs = DeviceBuffer::from_slice(&device, &vec![f16::NAN; n / 64]).unwrap();
        let mut dzs = DeviceBuffer::from_slice(&device, &[Complex::new(0.5f32, 0.0)]).unwrap();
        program
            .run(BlockTypesArgs {
                N: n as i64,
                H: &dh,
                B: &db,
                Z: &dz,
                W: &dw,
                I: &di,
                HO: &mut dho,
                BO: &mut dbo,
                ZO: &mut dzo,
                WO: &mut dwo,
                IO: &mut dio,
                PO: &mut dpo,
                HS: &mut dhs,
                ZS: &mut dzs,
            })
            .unwrap();
        let h16 = |x: f16| x.to_bits();
        let b16 = |x: bf16| x.to_bits();
        let z32 = |c: Complex<f32>| (c.re.to_bits(), c.im.to_bits());
        let z64 = |c: Complex<f64>| (c.re.to_bits(), c.im.to_bits());
        assert_eq!(
            bits(&dho.to_vec().unwrap(), h16),
            bits(&ho, h16),
            "f16 on {name}"
        );
        assert_eq!(
            bits(&dbo.to_vec().unwrap(), b16),
            bits(&bo, b16),
            "bf16 on {name}"
        );
        assert_eq!(
            bits(&dzo.to_vec().unwrap(), z32),
            bits(&zo, z32),
            "c32 on {name}"
        );
        assert_eq!(
            bits(&dwo.to_vec().unwrap(), z64),
            bits(&wo, z64),
            "c64 on {name}"
        );
        assert_eq!(dio.to_vec().unwrap(), io, "i16 on {name}");
        assert_eq!(dpo.to_vec().unwrap(), po, "bool on {name}");
        assert_eq!(dhs.to_vec().unwrap(), hs, "f16 block sum on {name}");
        assert_eq!(dzs.to_vec().unwrap(), [zs], "c32 sum on {name}");
    }
}

/// The kernel assembles for sm_90 (CI has ptxas and no GPU;
/// SDFG_REQUIRE_PTXAS=1 makes a missing ptxas an error).
#[test]
fn the_block_types_kernel_assembles() {
    if let Err(msg) = sdfg::compiler::codegen::ptx::ptxas::assemble_check(BlockTypes::PTX) {
        panic!("ptxas rejected the block types kernel:\n{msg}");
    }
}

/// The bit patterns of `v` (`f` of each element): NaN-proof equality.
fn bits<T: Copy, B>(v: &[T], f: impl Fn(T) -> B) -> Vec<B> {
    v.iter().map(|&x| f(x)).collect()
}
