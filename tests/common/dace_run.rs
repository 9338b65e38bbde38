//! Recording runs for DaCe: an SDFG's export, the inputs it ran on and
//! the outputs our CPU device computed, for `ci/dace_check.py` to compile,
//! run and compare (tests/export_dace_run.rs, tests/export_dace_lang.rs).
#![allow(dead_code)]

use sdfg::compiler::export::dace::{dtype_name, to_sdfg_json_string};
use sdfg::compiler::ir::Sdfg;
use std::path::{Path, PathBuf};

/// Writes NAME.sdfg and NAME.run.json (format: ci/dace_check.py). Values
/// are JSON text (see [`ints`], [`floats`], [`complexes`]); every output
/// must match exactly.
pub fn record(
    dir: &Path,
    ir: &Sdfg,
    symbols: &[(&str, i64)],
    inputs: &[(&str, String)],
    outputs: &[(&str, String)],
) {
    record_within_ulps(dir, ir, symbols, inputs, outputs, &[]);
}

/// [`record`], with the float outputs named in `ulp` allowed that many
/// ulps from ours (transcendental functions).
pub fn record_within_ulps(
    dir: &Path,
    ir: &Sdfg,
    symbols: &[(&str, i64)],
    inputs: &[(&str, String)],
    outputs: &[(&str, String)],
    ulp: &[(&str, u32)],
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
            // Complex values are written as two numbers each.
            let per = if c.elem.is_complex() { 2 } else { 1 };
            let shape = if c.is_scalar() {
                String::new()
            } else {
                ((data.matches(',').count() + 1) / per).to_string()
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
    // "ulp" is optional in the format: written only when some output has one.
    let ulp = if ulp.is_empty() {
        String::new()
    } else {
        let ulp: Vec<String> = ulp.iter().map(|(n, u)| format!("\"{n}\": {u}")).collect();
        format!(",\n \"ulp\": {{{}}}", ulp.join(", "))
    };
    let spec = format!(
        "{{\"symbols\": {{{}}},\n \"arrays\": {{{}}},\n \"expected\": {{{}}}{ulp}}}\n",
        symbols.join(", "),
        arrays.join(",\n  "),
        expected.join(",\n  ")
    );
    std::fs::write(dir.join(format!("{name}.sdfg")), to_sdfg_json_string(ir)).unwrap();
    std::fs::write(dir.join(format!("{name}.run.json")), spec).unwrap();
}

/// Integers as a JSON array.
pub fn ints<T: std::fmt::Display>(v: &[T]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("[{}]", items.join(", "))
}

/// Floats as a JSON array: shortest round-trip decimals, and `"nan"`,
/// `"inf"`, `"-inf"` (JSON has none).
pub fn floats(v: &[f64]) -> String {
    let items: Vec<String> = v
        .iter()
        .map(|x| match x {
            x if x.is_nan() => "\"nan\"".to_string(),
            x if x.is_infinite() => if *x > 0.0 { "\"inf\"" } else { "\"-inf\"" }.to_string(),
            x => format!("{x:?}"),
        })
        .collect();
    format!("[{}]", items.join(", "))
}

/// Complex numbers as a JSON array of interleaved parts.
pub fn complexes(v: &[sdfg::runtime::c64]) -> String {
    let parts: Vec<f64> = v.iter().flat_map(|z| [z.re, z.im]).collect();
    floats(&parts)
}

/// A fresh folder for one test's recordings: `$SDFG_EXPORT_DIR/dace_run_TAG`,
/// or one under the temporary folder.
pub fn out_dir(tag: &str) -> PathBuf {
    let dir = match std::env::var_os("SDFG_EXPORT_DIR") {
        Some(d) => PathBuf::from(d).join(format!("dace_run_{tag}")),
        None => {
            std::env::temp_dir().join(format!("sdfg_export_dace_run_{}_{tag}", std::process::id()))
        }
    };
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
