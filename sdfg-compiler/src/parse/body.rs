//! Tasklet bodies: Rust statements parsed with syn.
//!
//! The DSL indexes multi-dimensional containers as `A[i, j]`, which is not a
//! Rust expression. Before syn sees a body, every bracket group with a
//! top-level comma gets its contents wrapped in parentheses: `A[(i, j)]` is a
//! Rust index by a tuple, and lowering reads the tuple's elements as the
//! indices. The parentheses carry the brackets' span, so errors still point
//! at the user's tokens.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use syn::parse::Parser;

/// Rewrites `[a, b]` to `[(a, b)]` in `tokens`, recursively.
pub(crate) fn rewrite_multi_index(tokens: TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => {
                let inner = rewrite_multi_index(g.stream());
                let has_comma = inner
                    .clone()
                    .into_iter()
                    .any(|t| matches!(&t, TokenTree::Punct(p) if p.as_char() == ','));
                let stream = if g.delimiter() == Delimiter::Bracket && has_comma {
                    let mut paren = Group::new(Delimiter::Parenthesis, inner);
                    paren.set_span(g.span());
                    TokenStream::from(TokenTree::Group(paren))
                } else {
                    inner
                };
                let mut out = Group::new(g.delimiter(), stream);
                out.set_span(g.span());
                TokenTree::Group(out)
            }
            other => other,
        })
        .collect()
}

/// The statements of a `{ ... }` body.
pub(super) fn parse_body(tokens: TokenStream) -> syn::Result<Vec<syn::Stmt>> {
    syn::Block::parse_within.parse2(rewrite_multi_index(tokens))
}
