//! Tokens -> AST (placeholder until the front end lands).
use crate::diag::Diagnostics;
use proc_macro2::TokenStream;

pub struct SdfgAst;

pub fn parse(_tokens: TokenStream) -> Result<SdfgAst, Diagnostics> {
    unimplemented!("front end in progress")
}
