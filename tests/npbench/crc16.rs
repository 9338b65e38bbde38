//! NPBench `crc16` (CRC-16-CCITT, from a gist NPBench adapted):
//!
//! ```text
//! def crc16(data, poly=0x8408):
//!     crc = 0xFFFF
//!     for b in data:
//!         cur_byte = 0xFF & b
//!         for _ in range(0, 8):
//!             if (crc & 0x0001) ^ (cur_byte & 0x0001):
//!                 crc = (crc >> 1) ^ poly
//!             else:
//!                 crc >>= 1
//!             cur_byte >>= 1
//!     crc = (~crc & 0xFFFF)
//!     crc = (crc << 8) | ((crc >> 8) & 0xFF)
//!     return crc & 0xFFFF
//! ```
//!
//! One host tasklet. The bytes are `i32` here: `u8` data (issue 17, item 2)
//! would take NPBench's `uint8` array as it is.

use super::common;
use sdfg::prelude::*;

sdfg! {
    pub sdfg Crc16 {
        symbol N: i64; host poly: i32;
        host data: i32[N]; host out: i32[1];
        state s {
            tasklet crc16 {
                let mut crc = 0xFFFF;
                for b in 0..N {
                    let mut cur_byte = 0xFF & data[b];
                    for _k in 0..8 {
                        if ((crc & 0x0001) ^ (cur_byte & 0x0001)) != 0 {
                            crc = (crc >> 1) ^ poly;
                        } else {
                            crc = crc >> 1;
                        }
                        cur_byte = cur_byte >> 1;
                    }
                }
                crc = !crc & 0xFFFF;
                crc = (crc << 8) | ((crc >> 8) & 0xFF);
                out[0] = crc & 0xFFFF;
            }
        }
    }
}

fn reference(data: &[u8], poly: u32) -> u32 {
    let mut crc: u32 = 0xFFFF;
    for &b in data {
        let mut cur_byte = 0xFF & b as u32;
        for _ in 0..8 {
            if (crc & 1) ^ (cur_byte & 1) != 0 {
                crc = (crc >> 1) ^ poly;
            } else {
                crc >>= 1;
            }
            cur_byte >>= 1;
        }
    }
    crc = !crc & 0xFFFF;
    crc = (crc << 8) | ((crc >> 8) & 0xFF);
    crc & 0xFFFF
}

#[test]
fn crc16() {
    let mut rng = sdfg_testkit::rng::Rng::new(12);
    let bytes: Vec<u8> = (0..300).map(|_| rng.below(256) as u8).collect();
    let want = reference(&bytes, 0x8408);
    // The CRC-16/X-25 check value (this CRC's parameters): "123456789" -> 0x906E, byte-swapped.
    assert_eq!(reference(b"123456789", 0x8408), 0x6E90);
    let data: Vec<i32> = bytes.iter().map(|&b| b as i32).collect();
    for device in common::devices("npbench crc16") {
        let mut out = vec![0i32];
        Crc16::load(&device)
            .unwrap()
            .run(Crc16Args {
                N: data.len() as i64,
                poly: 0x8408,
                data: &data,
                out: &mut out,
            })
            .unwrap();
        assert_eq!(out[0] as u32, want, "crc on {}", device.name());
    }
}
