//! The sdfg-rs compiler, a normal library (unit-testable, fuzzable); the
//! `sdfg!` macro in sdfg-macros is a thin shell over [`expand`].
//!
//! The pipeline reads in one direction, one module per stage:
//! [`parse`] (tokens -> AST with spans) -> [`lower`] (AST -> [`ir`]) ->
//! [`validate`] (every check, all errors at once) -> `schedule` (streams,
//! events, sync points) -> [`codegen`] (kernel ABI, PTX, Rust, host glue) -> `export`.
//! [`eval`] is the reference meaning of the tasklet language.

pub mod codegen;
pub mod diag;
pub mod eval;
pub mod export;
pub mod ir;
pub mod lower;
pub mod parse;
pub mod schedule;
pub mod validate;

pub use diag::{Diagnostic, Diagnostics};

use proc_macro2::TokenStream;

/// Parse, lower and validate one `sdfg!` invocation's tokens into a checked IR.
pub fn frontend(tokens: TokenStream) -> Result<ir::Sdfg, Diagnostics> {
    let ast = parse::parse(tokens)?;
    let sdfg = lower::lower(&ast)?;
    validate::validate(&sdfg)?;
    Ok(sdfg)
}

/// [`frontend`] on source text (tests, tools, the fuzz target).
pub fn frontend_str(source: &str) -> Result<ir::Sdfg, Diagnostics> {
    let tokens: TokenStream = source.parse().map_err(|e: proc_macro2::LexError| {
        Diagnostics::from(Diagnostic::error(
            proc_macro2::Span::call_site(),
            e.to_string(),
        ))
    })?;
    frontend(tokens)
}

/// The whole macro: front end, then code generation; on error, every
/// diagnostic as a `compile_error!` at the user's tokens.
pub fn expand(tokens: TokenStream) -> TokenStream {
    let source = tokens.to_string();
    let sdfg = match frontend(tokens) {
        Ok(sdfg) => sdfg,
        Err(diags) => return diags.to_compile_errors(),
    };
    let schedule = schedule::schedule(&sdfg);
    let texts = codegen::glue::Texts {
        source,
        dot: export::dot::to_dot(&sdfg, Some(&schedule)),
        sdfg_json: export::dace::to_sdfg_json_string(&sdfg),
    };
    codegen::generate(&sdfg, &schedule, &texts)
}
