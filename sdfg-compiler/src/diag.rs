//! Diagnostics: every compile error of one `sdfg!` invocation, collected and
//! reported together, each at the user's tokens, in rustc's style (lowercase
//! message, a `help:` with the fix).

pub mod suggest;

use proc_macro2::{Span, TokenStream};
use quote::quote_spanned;

#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub span: Span,
    /// Lowercase, no trailing period: "unknown container `Y`".
    pub message: String,
    /// How to fix it: "declare it: `host Y: f64[N];`".
    pub help: Option<String>,
    /// Extra facts ("`A` is declared here as `gpu`").
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            span,
            message: message.into(),
            help: None,
            notes: Vec::new(),
        }
    }
    pub fn help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }
    pub fn note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// The full text as one string: message, then `help: ...`, then `note: ...`
    /// lines (rustc shows the lines after the first below the span).
    pub fn text(&self) -> String {
        let mut s = self.message.clone();
        for n in &self.notes {
            s.push_str("\n\n= note: ");
            s.push_str(n);
        }
        if let Some(h) = &self.help {
            s.push_str("\n\n= help: ");
            s.push_str(h);
        }
        s
    }

    /// A `compile_error!` invocation spanned at the user's tokens.
    pub fn to_compile_error(&self) -> TokenStream {
        let text = self.text();
        quote_spanned! {self.span=> ::core::compile_error! { #text } }
    }
}

/// Collects every diagnostic of one invocation.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    pub list: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn new() -> Diagnostics {
        Diagnostics::default()
    }
    pub fn push(&mut self, d: Diagnostic) {
        self.list.push(d);
    }
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
    pub fn len(&self) -> usize {
        self.list.len()
    }
    pub fn extend(&mut self, other: Diagnostics) {
        self.list.extend(other.list);
    }
    /// Ok(value) when nothing was reported, else every diagnostic.
    pub fn finish<T>(self, value: T) -> Result<T, Diagnostics> {
        if self.list.is_empty() {
            Ok(value)
        } else {
            Err(self)
        }
    }
    pub fn to_compile_errors(&self) -> TokenStream {
        self.list.iter().map(Diagnostic::to_compile_error).collect()
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Diagnostics {
        Diagnostics { list: vec![d] }
    }
}

impl From<syn::Error> for Diagnostics {
    fn from(e: syn::Error) -> Diagnostics {
        Diagnostics {
            list: e
                .into_iter()
                .map(|e| Diagnostic::error(e.span(), e.to_string()))
                .collect(),
        }
    }
}

impl std::fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for d in &self.list {
            writeln!(f, "error: {}", d.text())?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}
