//! Shapes are fixed for a whole run: the glue evaluates every container's
//! shape once, when a call starts, so a shape may not use a symbol that an
//! interstate edge assigns.

use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{ExprKind, Sdfg, SymbolId, VarRef};

pub(super) fn check(sdfg: &Sdfg, diags: &mut Diagnostics) {
    let assigned: Vec<SymbolId> = sdfg
        .edges
        .iter()
        .flat_map(|e| e.assignments.iter().map(|a| a.0))
        .collect();
    for c in &sdfg.containers {
        for dim in &c.shape {
            dim.walk(&mut |e| {
                if let ExprKind::Var(VarRef::Symbol(s)) = e.kind {
                    if assigned.contains(&s) {
                        let sym = &sdfg.symbols[s].name.text;
                        diags.push(
                            Diagnostic::error(
                                e.span,
                                format!(
                                    "the shape of `{}` uses `{sym}`, which an interstate edge assigns",
                                    c.name.text
                                ),
                            )
                            .help("shapes are fixed for a whole run: use a declared symbol that no edge assigns"),
                        );
                    }
                }
            });
        }
    }
}
