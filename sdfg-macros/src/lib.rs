//! The `sdfg!` macro: tokens -> sdfg-compiler -> tokens.
use proc_macro::TokenStream;

/// Describes an SDFG; see the crate `sdfg` and docs/GUIDE.md for the language.
#[proc_macro]
pub fn sdfg(input: TokenStream) -> TokenStream {
    sdfg_compiler::expand(input.into()).into()
}
