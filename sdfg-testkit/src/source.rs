//! `sdfg!` source text of the random programs of [`crate::randexpr`]
//! (symbols, `gpu` or `host` containers and one state of flat maps), so that a
//! test suite can compile them through the macro and run what the CPU
//! device's twins and the glue make of them against the evaluator.
//!
//! Literals print with their types (`export::print::stmts_to_source`): the
//! text parses back to the values the generator chose, whatever the context
//! would have inferred for an unsuffixed literal.

use sdfg_compiler::export::print::{expr_to_rust, map_param_to_rust, stmts_to_source, BodyNames};
use sdfg_compiler::ir::{Sdfg, StatementKind, Storage};
use std::fmt::Write;

/// Why an SDFG has no source text here: a construct this printer does not
/// write (the random programs never have one).
#[derive(Debug, PartialEq, Eq)]
pub struct Unprintable(pub String);

/// `sdfg::sdfg! { pub sdfg NAME { ... } }` for `sdfg`, named `name`, with
/// `doc` as its doc comment.
pub fn program_source(sdfg: &Sdfg, name: &str, doc: &str) -> Result<String, Unprintable> {
    if sdfg.states.len() > 1 {
        return Err(Unprintable(
            "more than one state (no edges are printed)".into(),
        ));
    }
    let none = BodyNames::none();
    let mut out = String::new();
    let _ = writeln!(out, "sdfg::sdfg! {{\n    /// {doc}\n    pub sdfg {name} {{");
    for s in &sdfg.symbols {
        let _ = writeln!(out, "        symbol {}: {};", s.name.text, s.ty);
    }
    for c in &sdfg.containers {
        if !matches!(c.storage, Storage::Gpu | Storage::Host) || c.transient {
            return Err(Unprintable(format!(
                "container `{}` is not a gpu or host argument",
                c.name.text
            )));
        }
        let shape: Vec<String> = c
            .shape
            .iter()
            .map(|d| expr_to_rust(d, sdfg, &none))
            .collect();
        let shape = if shape.is_empty() {
            String::new()
        } else {
            format!("[{}]", shape.join(", "))
        };
        let storage = c.storage.keyword();
        let _ = writeln!(out, "        {storage} {}: {}{shape};", c.name.text, c.elem);
    }
    for state in &sdfg.states {
        let _ = writeln!(out, "        state {} {{", state.name.text);
        for stmt in &state.stmts {
            let StatementKind::Map(map) = &stmt.kind else {
                return Err(Unprintable(format!(
                    "state `{}` holds a statement other than a map",
                    state.name.text
                )));
            };
            if map.block.is_some() {
                return Err(Unprintable(format!(
                    "map `{}` is a block map",
                    map.name.text
                )));
            }
            let names = BodyNames::for_map(map);
            let ranges: Vec<String> = map
                .params
                .iter()
                .map(|p| map_param_to_rust(p, sdfg, &names))
                .collect();
            let _ = writeln!(
                out,
                "            map {}[{}] on {} {{\n{}            }}",
                map.name.text,
                ranges.join(", "),
                map.schedule.keyword(),
                stmts_to_source(&map.body.stmts, sdfg, &names, 16)
            );
        }
        let _ = writeln!(out, "        }}");
    }
    out.push_str("    }\n}\n");
    Ok(out)
}
