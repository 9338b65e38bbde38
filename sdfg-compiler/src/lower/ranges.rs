//! The checks of a map range that reads earlier parameters of its map
//! (`map m[i in 0..N, j in 0..i]`, see `ir::ranges`): only earlier ones,
//! in bounds interval arithmetic follows, and never in the step.

use super::count;
use crate::diag::Diagnostic;
use crate::ir::ranges::{is_interval_bound, reads_params};
use crate::ir::MapParam;
use proc_macro2::Ident;
use syn::visit::Visit;

/// An error when `range` (of parameter `name`) names a parameter declared
/// after it (`later`): ranges are computed outermost first.
pub(super) fn later_parameter(
    name: &Ident,
    range: &syn::Expr,
    later: &[&Ident],
) -> Option<Diagnostic> {
    struct Find<'a> {
        later: &'a [&'a Ident],
        found: Option<Ident>,
    }
    impl<'ast> Visit<'ast> for Find<'_> {
        fn visit_ident(&mut self, i: &'ast Ident) {
            if self.found.is_none() && self.later.contains(&i) {
                self.found = Some(i.clone());
            }
        }
    }
    let mut find = Find { later, found: None };
    find.visit_expr(range);
    let used = find.found?;
    Some(
        Diagnostic::error(
            used.span(),
            format!("the range of `{name}` uses `{used}`, a parameter declared after it"),
        )
        .help(format!(
            "a range may use the parameters before it: declare `{used}` first, as in `[{used} in ..., {name} in ...]`"
        )),
    )
}

/// A dependent range must be one the bounds checks can follow.
pub(super) fn check_dependent(param: &MapParam, earlier: &[MapParam]) -> Result<(), Diagnostic> {
    let name = &param.name.text;
    if let Some(step) = &param.step {
        if reads_params(step) {
            return Err(Diagnostic::error(
                step.span,
                format!("the step of `{name}` uses a map parameter"),
            )
            .help("a step is fixed for the whole map: use symbols and literals")
            .note("the start and the end of a range may use the parameters before it"));
        }
    }
    for (what, bound) in [("start", &param.start), ("end", &param.end)] {
        if reads_params(bound) && !is_interval_bound(bound) {
            let outer: Vec<&str> = earlier.iter().map(|p| p.name.text.as_str()).collect();
            return Err(Diagnostic::error(
                bound.span,
                format!(
                    "the {what} of `{name}` depends on {} in a form the bounds checks cannot follow",
                    if outer.len() == 1 {
                        format!("`{}`", outer[0])
                    } else {
                        format!("the {}", count(outer.len(), "earlier parameter"))
                    }
                ),
            )
            .help("write it with `+`, `-`, `*`, literals, symbols and the earlier parameters, e.g. `0..i`, `i + 1..N`, `0..2 * i + 1`")
            .note("the host bounds every iteration of the dependent range by interval arithmetic before the map runs"));
        }
    }
    Ok(())
}
