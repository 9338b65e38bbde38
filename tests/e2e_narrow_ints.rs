//! `i8 u8 i16 u16` end to end: wrapping arithmetic, masked shifts, casts
//! and reductions of 1- and 2-byte elements in a `gpu` map (PTX on a GPU,
//! its Rust twin on the CPU device), and NPBench's crc16 as a host tasklet,
//! each against plain Rust.

mod common;
use sdfg::prelude::*;

sdfg! {
    pub sdfg NarrowInts {
        symbol N: i64;
        gpu A: u8[N];
        gpu B: i16[N];
        gpu W: i8[N];
        gpu S: u16[N];
        gpu COUNT: u16[4];
        gpu LOW: i8[4];
        gpu HIGH: u8[4];
        host DATA: u8[N];
        host CRC: u16;
        state s {
            map m[i in 0..N] on gpu {
                let x = A[i];
                W[i] = (x as i8) * 3 - 100 + (x >> 3) as i8;
                B[i] = (B[i] << 3) / -7 + (B[i] as u16 % 1000) as i16;
                S[i] = (x as u16 * 300) ^ (!(B[i] as u16) << (x % 20));
                COUNT[i % 4] += (x >> 5) as u16 + 1000;
                LOW[i % 4] = LOW[i % 4].min(x as i8);
                HIGH[i % 4] = HIGH[i % 4].max(x * 7);
            }
            // NPBench crc16 (poly 0x8408), written as in its NumPy version.
            tasklet crc16 {
                let mut crc: u16 = 0xFFFF;
                for k in 0..N {
                    let mut cur = DATA[k];
                    for _bit in 0..8 {
                        if (crc & 1) ^ (cur as u16 & 1) != 0 {
                            crc = (crc >> 1) ^ 0x8408;
                        } else {
                            crc = crc >> 1;
                        }
                        cur = cur >> 1;
                    }
                }
                crc = !crc;
                CRC = (crc << 8) | ((crc >> 8) & 0xFF);
            }
        }
    }
}

fn crc16(data: &[u8]) -> u16 {
    let mut crc: u16 = 0xFFFF;
    for &b in data {
        let mut cur = b;
        for _ in 0..8 {
            if (crc & 1) ^ (cur as u16 & 1) != 0 {
                crc = (crc >> 1) ^ 0x8408;
            } else {
                crc >>= 1;
            }
            cur >>= 1;
        }
    }
    crc = !crc;
    (crc << 8) | ((crc >> 8) & 0xFF)
}

#[test]
fn narrow_integers_wrap_like_rust_on_every_device() {
    for device in common::devices("narrow_ints") {
        let n = 10_000usize;
        let mut rng = sdfg_testkit::rng::Rng::new(5);
        let a: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
        let b: Vec<i16> = (0..n).map(|_| rng.next_u64() as i16).collect();
        let program = NarrowInts::load(&device).unwrap();
        let da = DeviceBuffer::from_slice(&device, &a).unwrap();
        let mut db = DeviceBuffer::from_slice(&device, &b).unwrap();
        let mut dw = DeviceBuffer::<i8>::zeros(&device, n).unwrap();
        let mut ds = DeviceBuffer::<u16>::zeros(&device, n).unwrap();
        let mut count = DeviceBuffer::from_slice(&device, &[1u16, 2, 3, 4]).unwrap();
        let mut low = DeviceBuffer::from_slice(&device, &[i8::MAX; 4]).unwrap();
        let mut high = DeviceBuffer::from_slice(&device, &[0u8; 4]).unwrap();
        let mut crc = 0u16;
        program
            .run(NarrowIntsArgs {
                N: n as i64,
                A: &da,
                B: &mut db,
                W: &mut dw,
                S: &mut ds,
                COUNT: &mut count,
                LOW: &mut low,
                HIGH: &mut high,
                DATA: &a,
                CRC: &mut crc,
            })
            .unwrap();
        let (mut w, mut b2, mut s) = (vec![0i8; n], vec![0i16; n], vec![0u16; n]);
        let mut want_count = [1u16, 2, 3, 4];
        let mut want_low = [i8::MAX; 4];
        let mut want_high = [0u8; 4];
        for i in 0..n {
            let x = a[i];
            w[i] = (x as i8)
                .wrapping_mul(3)
                .wrapping_sub(100)
                .wrapping_add((x >> 3) as i8);
            let old_b = b[i];
            b2[i] = (old_b << 3)
                .wrapping_div(-7)
                .wrapping_add((old_b as u16 % 1000) as i16);
            s[i] = (x as u16).wrapping_mul(300) ^ (!(b2[i] as u16)).wrapping_shl((x % 20) as u32);
            want_count[i % 4] = want_count[i % 4].wrapping_add((x >> 5) as u16 + 1000);
            want_low[i % 4] = want_low[i % 4].min(x as i8);
            want_high[i % 4] = want_high[i % 4].max(x.wrapping_mul(7));
        }
        let on = device.name();
        assert_eq!(dw.to_vec().unwrap(), w, "W on {on}");
        assert_eq!(db.to_vec().unwrap(), b2, "B on {on}");
        assert_eq!(ds.to_vec().unwrap(), s, "S on {on}");
        assert_eq!(count.to_vec().unwrap(), want_count, "COUNT on {on}");
        assert_eq!(low.to_vec().unwrap(), want_low, "LOW on {on}");
        assert_eq!(high.to_vec().unwrap(), want_high, "HIGH on {on}");
        assert_eq!(crc, crc16(&a), "crc16 on {on}");
    }
}

sdfg! {
    /// Inclusive loops over literal bounds of every narrow type: their end
    /// stays in the loop's type (`1u16..=3u16` once ended at a `u64`, and
    /// the generated Rust did not compile), up to the type's maximum.
    pub sdfg NarrowLoops {
        symbol N: i64;
        gpu OUT: i64[N];
        host H: i64[N];
        state s {
            map g[i in 0..N] on gpu {
                let mut sum = 0i64;
                for a in 1u8..=3u8 { sum = sum + a as i64; }
                for b in -3i8..=2i8 { sum = sum + b as i64 * 10; }
                for c in 65534u16..=65535u16 { sum = sum + c as i64 * 100; }
                for d in (-5i16..=5i16).step_by(5i16) { sum = sum + d as i64 * 1000; }
                for e in 126i8..=127i8 { sum = sum + e as i64 * 10000; }
                OUT[i] = sum + i;
            }
            map h[i in 0..N] on cpu {
                let mut sum = 0i64;
                for a in 1u8..=3u8 { sum = sum + a as i64; }
                for b in -3i8..=2i8 { sum = sum + b as i64 * 10; }
                for c in 65534u16..=65535u16 { sum = sum + c as i64 * 100; }
                for d in (-5i16..=5i16).step_by(5i16) { sum = sum + d as i64 * 1000; }
                for e in 126i8..=127i8 { sum = sum + e as i64 * 10000; }
                H[i] = sum + i;
            }
        }
    }
}

#[test]
fn inclusive_loops_over_narrow_literals_run_to_their_last_value() {
    let want_sum: i64 = (1..=3).sum::<i64>()
        + (-3..=2).map(|b| b * 10).sum::<i64>()
        + (65534..=65535).map(|c| c * 100).sum::<i64>()
        + [-5, 0, 5].iter().map(|d| d * 1000).sum::<i64>()
        + (126..=127).map(|e| e * 10000).sum::<i64>();
    for device in common::devices("narrow_loops") {
        let n = 5usize;
        let program = NarrowLoops::load(&device).unwrap();
        let mut out = DeviceBuffer::<i64>::zeros(&device, n).unwrap();
        let mut h = vec![0i64; n];
        program
            .run(NarrowLoopsArgs {
                N: n as i64,
                OUT: &mut out,
                H: &mut h,
            })
            .unwrap();
        let want: Vec<i64> = (0..n as i64).map(|i| want_sum + i).collect();
        assert_eq!(out.to_vec().unwrap(), want, "gpu map on {}", device.name());
        assert_eq!(h, want, "cpu map on {}", device.name());
    }
}

/// What the GPU would run: ptxas accepts the module (CI requires ptxas:
/// SDFG_REQUIRE_PTXAS=1), which loads and stores `.s8/.u8/.s16/.u16`.
#[test]
fn the_kernel_assembles() {
    for ty in [".s8", ".u8", ".s16", ".u16", "atom.global.cas.b32"] {
        assert!(NarrowInts::PTX.contains(ty), "{ty} in\n{}", NarrowInts::PTX);
    }
    match sdfg::compiler::codegen::ptx::ptxas::assemble_check(NarrowInts::PTX) {
        Ok(Some(_)) => {}
        Ok(None) if std::env::var("SDFG_REQUIRE_PTXAS").as_deref() != Ok("1") => {
            println!("ptxas not found: the PTX was not assembled");
        }
        other => panic!("ptxas: {other:?}"),
    }
}
