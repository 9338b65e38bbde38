//! The sdfg-rs compiler, a normal library (unit-testable, fuzzable); the
//! `sdfg!` macro in sdfg-macros is a thin shell over [`expand`].
//!
//! The pipeline reads in one direction, one module per stage:
//! [`parse`] (tokens -> AST with spans) -> [`lower`] (AST -> [`ir`]) ->
//! [`validate`] (every check, all errors at once) -> `schedule` (streams,
//! events, sync points) -> [`codegen`] (kernel ABI, PTX, Rust, host glue) -> `export`.
//! [`eval`] is the reference meaning of the tasklet language.
//! [`import`] reads a DaCe `.sdfg` file (`sdfg NAME = include "file.sdfg";`)
//! into the items of an invocation, before lowering.
//!
//! # Floors
//!
//! A file imports only from its own floor or below, names the module that
//! defines what it uses (never this root), and no two rooms (the modules
//! below) import each other around a circle (inside a room, a folder's
//! `mod.rs` and its files work together); `tests/architecture.rs` checks all
//! three against this table. The floors follow the pipeline, with what several stages share
//! (diagnostics, the IR and its numeric semantics, the DaCe format's marks)
//! at the bottom. This file, the driver ([`frontend`], [`expand`]), sits on
//! top.
//!
//! | floor | folders and files | what they own | imported by |
//! |---|---|---|---|
//! | 0, diagnostics | `diag/` | rustc-style errors collected per invocation; "did you mean" | every floor |
//! | 1, vocabulary | `ir/`, `math/`, `dace_format.rs` | the SDFG, its expressions, types, linear forms, bounds decisions and numeric semantics; the math functions as straight-line programs (run in Rust, emitted as PTX and as Rust); the marks and C++ helpers our `.sdfg` files carry | floors 1 to 6 |
//! | 2, reading | `parse/`, `eval.rs` | tokens -> AST with spans; the reference meaning of the tasklet language | floors 3 to 6 |
//! | 3, lowering | `lower/`, `import/` | AST -> IR (names, types, memlets, dataflow; calls of nested SDFGs inlined); a DaCe `.sdfg` file -> AST items | the driver |
//! | 4, checking | `validate/` | every check of a lowered SDFG, all errors at once | the driver |
//! | 5, scheduling | `schedule.rs`, `schedule/` | streams, events and sync points; what calls may run as graphs | floor 6 |
//! | 6, output | `codegen/`, `export/` | kernel ABI, PTX, Rust for the CPU side, host glue; DOT and DaCe JSON | the driver |

pub mod codegen;
pub mod dace_format;
pub mod diag;
pub mod eval;
pub mod export;
pub mod import;
pub mod ir;
pub mod lower;
pub mod math;
pub mod parse;
pub mod schedule;
pub mod validate;

pub use diag::{Diagnostic, Diagnostics};

use proc_macro2::TokenStream;

/// Parse, lower and validate one `sdfg!` invocation's tokens into a checked IR.
/// An included `.sdfg` file is read relative to `CARGO_MANIFEST_DIR` (the
/// crate being compiled), else the current directory.
pub fn frontend(tokens: TokenStream) -> Result<ir::Sdfg, Diagnostics> {
    frontend_at(tokens, &manifest_dir()).map(|f| f.sdfg)
}

/// What the front end made of one invocation.
pub struct Frontend {
    pub sdfg: ir::Sdfg,
    /// The DaCe file of `sdfg NAME = include "...";`, translated.
    pub included: Option<import::Included>,
    /// `sdfg NAME { ITEMS }` for the program's replay macro (`extern sdfg`
    /// in another `sdfg!`, `parse::external`).
    pub replay: TokenStream,
}

/// [`frontend`], with included files read relative to `base`.
pub fn frontend_at(tokens: TokenStream, base: &std::path::Path) -> Result<Frontend, Diagnostics> {
    frontend_parsed(parse::parse(tokens)?, base)
}

/// [`frontend_at`] after parsing.
fn frontend_parsed(
    mut ast: parse::SdfgAst,
    base: &std::path::Path,
) -> Result<Frontend, Diagnostics> {
    let included = match ast.include.take() {
        Some(include) => {
            let inc = import::resolve(&ast, &include, base)?;
            ast = inc.ast.clone();
            Some(inc)
        }
        None => None,
    };
    let in_file = |d: Diagnostics| match &included {
        Some(inc) => import::in_translation(d, &inc.written),
        None => d,
    };
    let sdfg = lower::lower(&ast).map_err(in_file)?;
    validate::validate(&sdfg).map_err(in_file)?;
    Ok(Frontend {
        sdfg,
        replay: parse::external::replayed_items(&ast),
        included,
    })
}

fn manifest_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_default()
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
    let written = tokens.to_string();
    let ast = match parse::parse(tokens.clone()) {
        Ok(ast) => ast,
        Err(diags) => return diags.to_compile_errors(),
    };
    // An `extern sdfg` whose source has not arrived: its program's replay
    // macro brings it and expands this invocation again.
    if let Some(path) = parse::external::pending(&ast) {
        return codegen::replay::fetch(path, tokens);
    }
    let Frontend {
        sdfg,
        included,
        replay,
    } = match frontend_parsed(ast, &manifest_dir()) {
        Ok(f) => f,
        Err(diags) => return diags.to_compile_errors(),
    };
    let schedule = schedule::schedule(&sdfg);
    let texts = codegen::glue::Texts {
        // An included SDFG's source is its translation (what `ir()` parses).
        source: included.as_ref().map_or(written, |inc| inc.source.clone()),
        dot: export::dot::to_dot(&sdfg, Some(&schedule)),
        sdfg_json: match export::dace::unexportable(&sdfg) {
            Some(why) => Err(why),
            None => Ok(export::dace::to_sdfg_json_string(&sdfg)),
        },
    };
    let mut tokens = codegen::generate(&sdfg, &schedule, &texts);
    tokens.extend(codegen::replay::replay_macro(&sdfg, replay));
    if let Some(inc) = included {
        // Cargo rebuilds the crate when the file changes.
        let path = inc.path.to_string_lossy().into_owned();
        tokens.extend(quote::quote! { const _: &[u8] = include_bytes!(#path); });
    }
    tokens
}
