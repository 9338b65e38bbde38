//! The element types beyond `i32 i64 u32 u64 f32 f64 bool` in DaCe: host
//! programs over `i8 u8 i16 u16` run on our CPU device, then their exports
//! (with DaCe's dtypes `int8 uint8 int16 uint16`) go to ci/dace_check.py
//! with the same inputs and *our* outputs: DaCe loads, validates, compiles
//! and runs each on the CPU and compares every output exactly.
//!
//! DaCe comes from `SDFG_DACE_PYTHON`; without it the comparison is skipped
//! with a printed line, unless `SDFG_REQUIRE_DACE=1` (CI).

mod common;

use sdfg::compiler::export::dace::{dtype_name, to_sdfg_json_string};
use sdfg::compiler::ir::Sdfg;
use sdfg::prelude::*;
use std::path::{Path, PathBuf};

sdfg! {
    /// Wrapping arithmetic, masked shifts, casts and reductions of narrow
    /// integers (C++ computes them in `int`: the export casts back).
    pub sdfg NarrowTypes {
        symbol N: i64;
        host A: u8[N];
        host B: i16[N];
        host W: i8[N];
        host S: u16[N];
        host COUNT: u16[4];
        host LOW: i8[4];
        state s {
            map m[i in 0..N] on cpu {
                let x = A[i];
                W[i] = (x as i8) * 3 - 100 + (x >> 3) as i8;
                S[i] = (x as u16 * 300) ^ (!(B[i] as u16) << (x % 20)) + (B[i] / -7) as u16;
                COUNT[i % 4] += (x >> 5) as u16 + 1000;
                LOW[i % 4] = LOW[i % 4].min(-(x as i8));
            }
            tasklet t {
                let mut crc: u16 = 0xFFFF;
                for k in 0..N {
                    crc = (crc << 3) ^ (A[k] as u16 * 77) ^ (crc >> 13);
                }
                B[0] = crc as i16;
                let m: i16 = -32768;
                B[1] = m;
                B[2] = m - 1;
            }
        }
    }
}

/// Writes NAME.sdfg and NAME.run.json (format: ci/dace_check.py).
fn record(
    dir: &Path,
    ir: &Sdfg,
    symbols: &[(&str, i64)],
    inputs: &[(&str, String)],
    outputs: &[(&str, String)],
) {
    let name = &ir.name.text;
    let symbols: Vec<String> = symbols
        .iter()
        .map(|(n, v)| format!("\"{n}\": {v}"))
        .collect();
    let arrays: Vec<String> = inputs
        .iter()
        .map(|(container, data)| {
            let c = &ir.containers[ir.container_by_name(container).expect("a container")];
            let shape = if c.is_scalar() {
                String::new()
            } else {
                (data.matches(',').count() + 1).to_string()
            };
            format!(
                "\"{container}\": {{\"dtype\": \"{}\", \"shape\": [{shape}], \"data\": {data}}}",
                dtype_name(c.elem)
            )
        })
        .collect();
    let expected: Vec<String> = outputs
        .iter()
        .map(|(n, v)| format!("\"{n}\": {v}"))
        .collect();
    let spec = format!(
        "{{\"symbols\": {{{}}},\n \"arrays\": {{{}}},\n \"expected\": {{{}}}}}\n",
        symbols.join(", "),
        arrays.join(",\n  "),
        expected.join(",\n  ")
    );
    std::fs::write(dir.join(format!("{name}.sdfg")), to_sdfg_json_string(ir)).unwrap();
    std::fs::write(dir.join(format!("{name}.run.json")), spec).unwrap();
}

/// Integers as a JSON array.
fn ints<T: std::fmt::Display>(v: &[T]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("[{}]", items.join(", "))
}

fn out_dir() -> PathBuf {
    let dir = match std::env::var_os("SDFG_EXPORT_DIR") {
        Some(d) => PathBuf::from(d).join("dace_types"),
        None => std::env::temp_dir().join(format!("sdfg_export_dace_types_{}", std::process::id())),
    };
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn narrow_types(device: &Device, dir: &Path) {
    let n = 64usize;
    let a: Vec<u8> = (0..n).map(|i| (i * 37 + 11) as u8).collect();
    let b: Vec<i16> = (0..n).map(|i| (i as i16 - 30).wrapping_mul(1111)).collect();
    let (mut b_out, mut w, mut s) = (b.clone(), vec![0i8; n], vec![0u16; n]);
    let (mut count, mut low) = ([1u16, 2, 3, 4], [i8::MAX; 4]);
    NarrowTypes::load(device)
        .unwrap()
        .run(NarrowTypesArgs {
            N: n as i64,
            A: &a,
            B: &mut b_out,
            W: &mut w,
            S: &mut s,
            COUNT: &mut count,
            LOW: &mut low,
        })
        .unwrap();
    record(
        dir,
        &NarrowTypes::ir().unwrap(),
        &[("N", n as i64)],
        &[
            ("A", ints(&a)),
            ("B", ints(&b)),
            ("W", ints(&[0; 64])),
            ("S", ints(&[0; 64])),
            ("COUNT", ints(&[1, 2, 3, 4])),
            ("LOW", ints(&[i8::MAX; 4])),
        ],
        &[
            ("B", ints(&b_out)),
            ("W", ints(&w)),
            ("S", ints(&s)),
            ("COUNT", ints(&count)),
            ("LOW", ints(&low)),
        ],
    );
}

#[test]
fn dace_computes_what_we_compute_for_every_type() {
    let device = Device::cpu();
    let dir = out_dir();
    narrow_types(&device, &dir);
    let Some(python) = common::dace::python_or_skip() else {
        return;
    };
    let (ok, text) = common::dace::check(&python, &[dir.as_os_str()]);
    assert!(ok, "DaCe disagrees with our CPU device:\n{text}");
}
