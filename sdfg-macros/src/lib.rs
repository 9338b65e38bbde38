//! The `sdfg!` macro: tokens -> sdfg-compiler -> tokens.
use proc_macro::TokenStream;

/// The stack the expansion runs on (address space; only the pages used are
/// ever touched). The compiler's passes recurse over expressions (a
/// 2,000-term sum is a tree 2,000 deep, about 16 MiB of stack in a debug
/// build), and syn's parser at most once per token; the limits of
/// `sdfg_compiler::parse::limits` (tokens, nesting, expression depth) keep
/// every input within this.
const EXPANSION_STACK: usize = 1 << 30;

/// Describes an SDFG; see the crate `sdfg` and docs/GUIDE.md for the language.
#[proc_macro]
pub fn sdfg(input: TokenStream) -> TokenStream {
    // `stacker::grow` switches stacks on this thread, so the proc-macro
    // bridge's thread-locals stay valid (a new thread would lose them).
    stacker::grow(EXPANSION_STACK, || {
        sdfg_compiler::expand(input.into()).into()
    })
}
