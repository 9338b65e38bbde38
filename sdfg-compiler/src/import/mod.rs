//! DaCe `.sdfg` files as SDFGs of the DSL: `sdfg NAME = include "file.sdfg";`.
//!
//! The file (JSON, as DaCe 1.x and [`crate::export::dace`] write it) is
//! translated into the items of an `sdfg!` body, which then go through the
//! same pipeline as written ones (parse, lower, validate, schedule,
//! codegen): every check, the types and the sync proof apply unchanged.
//! The translation is plain DSL text ([`translate`]), kept as the generated
//! type's `SOURCE`.
//!
//! What is read (docs/GUIDE.md, "Coming from DaCe"): symbols, `Array` and
//! `Scalar` containers, states, access nodes, maps, tasklets in Python or
//! C++ (the subset the tasklet language expresses), memlets with subsets and
//! write-conflict resolution, copies between access nodes, interstate edges,
//! `NestedSDFG` nodes in a state (a nested `sdfg` and a call) and inside
//! maps (inlined when their states form a chain), the library nodes
//! `MatMul`, `Transpose` and `Reduce`, symbols of float types (host
//! scalars). Everything else (other library nodes, nested SDFGs inside
//! maps with branches or loops, views, thread-block maps, `GPU_Shared`
//! storage, control-flow regions, code outside tasklets) is a compile error
//! naming the element; the readers are written so that such elements can be
//! added where the language grows.
//!
//! This module reads the format [`crate::export::dace`] writes, so it uses
//! that module's names for the marks DaCe ignores (`_meta_*` attributes)
//! and the C++ helper text.
//!
//! Modules: `model` (JSON -> structs), `python` and `cpp` (code
//! parsers into `code`), `typing` (C++ conversions made explicit, the
//! rules in `conversions`),
//! `tasklet` (connectors -> container accesses), `state` (a state's
//! graph -> statements), `sdfg` (the whole file -> items), `names`.

mod code;
mod conversions;
mod cpp;
mod model;
mod names;
mod python;
mod sdfg;
mod state;
mod tasklet;
mod typing;

use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{GraphPolicy, StreamPolicy, SyncMode};
use crate::parse::{IncludeAst, SdfgAst};
use proc_macro2::{Group, Span, TokenStream, TokenTree};
use std::path::{Path, PathBuf};

/// A problem with the file, reported at the include's path.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportError {
    /// Lowercase, names the element: "unsupported DaCe element `Reduce` (library node `reduce_1` ...)".
    pub message: String,
    pub help: Option<String>,
    pub notes: Vec<String>,
}

impl ImportError {
    pub fn new(message: impl Into<String>) -> ImportError {
        ImportError {
            message: message.into(),
            help: None,
            notes: Vec::new(),
        }
    }
    pub fn help(mut self, help: impl Into<String>) -> ImportError {
        self.help = Some(help.into());
        self
    }
    pub fn note(mut self, note: impl Into<String>) -> ImportError {
        self.notes.push(note.into());
        self
    }
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.message)?;
        for n in &self.notes {
            write!(f, "\n  note: {n}")?;
        }
        if let Some(h) = &self.help {
            write!(f, "\n  help: {h}")?;
        }
        Ok(())
    }
}

/// The items of an `sdfg!` body (DSL text) for the `.sdfg` file `json`;
/// every problem at once when it cannot be translated. Never panics.
pub fn translate(json: &str) -> Result<String, Vec<ImportError>> {
    let value: serde_json::Value = serde_json::from_str(json).map_err(|e| {
        vec![ImportError::new(format!("the file is not valid JSON: {e}"))
            .help("save the SDFG with DaCe: `sdfg.save(\"file.sdfg\")`")]
    })?;
    translate_value(&value)
}

/// [`translate`] on parsed JSON.
pub fn translate_value(json: &serde_json::Value) -> Result<String, Vec<ImportError>> {
    let mut errors = Vec::new();
    let Some(m) = model::read(json, &mut errors) else {
        return Err(errors);
    };
    let items = sdfg::translate_model(&m, sdfg::Role::Top, &mut errors);
    if errors.is_empty() {
        Ok(items)
    } else {
        Err(errors)
    }
}

/// An included SDFG, translated.
#[derive(Clone, Debug)]
pub struct Included {
    /// The invocation with the translated items.
    pub ast: SdfgAst,
    /// The whole `sdfg!` text of the translation (the generated `SOURCE`).
    pub source: String,
    /// The file read (absolute when the base was): cargo tracks it.
    pub path: PathBuf,
    /// The path as written (for messages).
    pub written: String,
}

/// Reads and translates the file of `sdfg NAME = include "path";`, relative
/// to `base` (the crate's manifest directory).
pub fn resolve(ast: &SdfgAst, include: &IncludeAst, base: &Path) -> Result<Included, Diagnostics> {
    let span = include.span;
    let written = include.path.clone();
    let path = base.join(&written);
    let at = |message: String| Diagnostic::error(span, message);
    let bytes = std::fs::read(&path).map_err(|e| {
        Diagnostics::from(
            at(format!("cannot read the SDFG file `{written}`: {e}"))
                .note(format!("looked for `{}`", path.display()))
                .help("the path is relative to the crate's directory (where its Cargo.toml is)"),
        )
    })?;
    if bytes.starts_with(&[0x1f, 0x8b]) {
        return Err(at(format!("`{written}` is compressed (gzip)"))
            .help("save it uncompressed in DaCe: `sdfg.save(\"file.sdfg\", compress=False)`, or `gunzip` it")
            .into());
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut diags = Diagnostics::new();
    if let Some((mode, sync_span)) = ast.sync {
        if mode == SyncMode::Manual {
            diags.push(
                Diagnostic::error(sync_span, "`#[sync(manual)]` does not fit an included SDFG")
                    .note("a DaCe SDFG has no `wait` statements; the host waits where the compiler proves it must")
                    .help("remove `#[sync(manual)]`"),
            );
        }
    }
    let items = match translate(&text) {
        Ok(items) => items,
        Err(errors) => {
            for e in errors {
                let mut d = at(e.message);
                for n in e.notes {
                    d = d.note(n);
                }
                d = d.note(format!("in `{written}`"));
                if let Some(h) = e.help {
                    d = d.help(h);
                }
                diags.push(d);
            }
            return Err(diags);
        }
    };
    let source = format!("{} {{\n{items}\n}}\n", header_text(ast));
    let tokens: TokenStream = items.parse().map_err(|e: proc_macro2::LexError| {
        Diagnostics::from(at(format!(
            "internal error: the translation of `{written}` does not lex: {e}"
        )))
    })?;
    let body = respan(tokens, span);
    let parsed = crate::parse::parse_items(body.clone()).map_err(|d| in_translation(d, &written));
    let items = match parsed {
        Ok(items) => items,
        Err(d) => {
            diags.extend(d);
            return Err(diags);
        }
    };
    diags.finish(Included {
        ast: SdfgAst {
            items,
            include: None,
            body,
            ..ast.clone()
        },
        source,
        path,
        written,
    })
}

/// Notes that a diagnostic about generated tokens comes from the file.
pub fn in_translation(mut diags: Diagnostics, written: &str) -> Diagnostics {
    for d in &mut diags.list {
        d.notes.push(format!(
            "in the SDFG of `{written}`, translated to the sdfg! language (`sdfg::compiler::import::translate` shows the translation)"
        ));
    }
    diags
}

/// `[/// docs] [#[streams(..)]] [#[sync(..)]] [#[graph(off)]] VIS sdfg NAME` of the invocation.
fn header_text(ast: &SdfgAst) -> String {
    let mut out = String::new();
    for d in &ast.docs {
        out.push_str(&format!("/// {d}\n"));
    }
    if let Some((policy, _)) = ast.streams {
        let p = match policy {
            StreamPolicy::Default => "default".to_string(),
            StreamPolicy::Single => "single".to_string(),
            StreamPolicy::Max(n) => format!("max({n})"),
            StreamPolicy::Auto => "auto".to_string(),
        };
        out.push_str(&format!("#[streams({p})]\n"));
    }
    if let Some((SyncMode::Manual, _)) = ast.sync {
        out.push_str("#[sync(manual)]\n");
    }
    if let Some((GraphPolicy::Off, _)) = ast.graph {
        out.push_str("#[graph(off)]\n");
    }
    let vis = ast.vis.to_string();
    if !vis.is_empty() {
        out.push_str(&vis);
        out.push(' ');
    }
    // The parser stripped a raw prefix (`r#type` is `type`): restore it.
    out.push_str(&format!(
        "sdfg {}",
        names::identifier(&ast.name.to_string())
    ));
    out
}

/// Every token at `span` (the include's path): errors point there.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => {
                let mut out = Group::new(g.delimiter(), respan(g.stream(), span));
                out.set_span(span);
                TokenTree::Group(out)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}
