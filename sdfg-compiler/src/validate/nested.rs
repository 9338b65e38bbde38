//! Nested SDFGs. Each callee is checked on its own before the SDFG that
//! inlines it, so its mistakes are reported once, in its own names, however
//! often it is called; what the inlined SDFG adds (the callee in the
//! caller's context) is checked with the rest of it.

use super::*;
use crate::diag::Diagnostic;

/// Validates every callee of `sdfg` (recursively), each once.
pub(super) fn callees(sdfg: &Sdfg) -> Result<(), Diagnostics> {
    let Some(form) = &sdfg.nested_form else {
        return Ok(());
    };
    let mut diags = Diagnostics::new();
    let mut seen: Vec<&str> = Vec::new();
    for stmt in form.states.iter().flat_map(|s| &s.stmts) {
        let StatementKind::Nested(call) = &stmt.kind else {
            continue;
        };
        let name = call.callee.name.text.as_str();
        if seen.contains(&name) {
            continue;
        }
        seen.push(name);
        if let Err(d) = validate(&call.callee) {
            diags.extend(d);
        }
    }
    diags.finish(())
}

/// An SDFG the later stages read holds no call (lowering inlines them).
pub(super) fn check(sdfg: &Sdfg, diags: &mut Diagnostics) {
    for stmt in sdfg.states.iter().flat_map(|s| &s.stmts) {
        if let StatementKind::Nested(call) = &stmt.kind {
            diags.push(
                Diagnostic::error(
                    call.span,
                    format!("this call of `{}` was not inlined", call.callee.name.text),
                )
                .help("build the SDFG with `sdfg_compiler::lower::lower`, which inlines every call; `nested_form` is for the DaCe export"),
            );
        }
    }
}
