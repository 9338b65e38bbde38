//! Raw identifiers (`r#type`) work as SDFG, symbol, container, state, map,
//! parameter and edge-symbol names: the generated code spells them raw where
//! the user sees them (the program type, its arguments) and builds its own
//! names (`__sym_type`, the kernel `k_if_for`) from the bare name. Runs on
//! the CPU device, where `gpu` maps run their Rust twins.

// The SDFG below is named `r#type`, so its program type is too.
#![allow(non_camel_case_types)]

use sdfg::prelude::*;

sdfg! {
    /// Doubles `r#in` into `r#loop` on the GPU, then counts with a symbol
    /// an edge assigns.
    pub sdfg r#type {
        symbol r#type: i64;
        gpu r#in: f64[r#type];
        gpu r#loop: f64[r#type];
        host r#ref: i64[1];
        transient host r#fn: f64;

        state r#if {
            tasklet r#let { r#fn = 2.0; }
            map r#for[r#i in 0..r#type] on gpu { r#loop[r#i] = r#in[r#i] * r#fn; }
        }
        state r#else {
            tasklet r#let { r#ref[0] = r#mut; }
        }
        r#if -> r#else { r#mut = r#type + 1; }
    }
}

sdfg! {
    /// A container named `r#type`, read and written by a `cpu` map.
    pub sdfg RawContainer {
        symbol N: i64;
        host r#type: i32[N];
        state r#match {
            map r#loop[i in 0..N] on cpu { r#type[i] = r#type[i] * 3; }
        }
    }
}

#[test]
fn raw_identifiers_as_sdfg_symbol_and_container_names() {
    let device = Device::cpu();
    let program = r#type::load(&device).expect("load");
    let input: Vec<f64> = (0..5).map(f64::from).collect();
    let r#in = DeviceBuffer::from_slice(&device, &input).expect("alloc");
    let mut out = DeviceBuffer::<f64>::zeros(&device, 5).expect("alloc");
    let mut count = [0i64];
    program
        .run(typeArgs {
            r#type: 5,
            r#in: &r#in,
            r#loop: &mut out,
            r#ref: &mut count,
        })
        .expect("run");
    assert_eq!(out.to_vec().expect("read"), [0.0, 2.0, 4.0, 6.0, 8.0]);
    assert_eq!(count, [6]);
    assert!(
        r#type::PTX.contains(".visible .entry k_if_for("),
        "{}",
        r#type::PTX
    );

    let program = RawContainer::load(&device).expect("load");
    let mut data = vec![1, 2, 3];
    program
        .run(RawContainerArgs {
            N: 3,
            r#type: &mut data,
        })
        .expect("run");
    assert_eq!(data, [3, 6, 9]);
}
