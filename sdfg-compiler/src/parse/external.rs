//! `extern sdfg NAME;`: a nested SDFG defined by another `sdfg!`.
//!
//! A proc macro sees only its own tokens, so the source comes through
//! rustc: every program defines a `macro_rules!` under its own name (types
//! and macros live in different namespaces, so `use a::Inner;` brings both)
//! that replays the program's items into a caller's invocation:
//!
//! ```text
//! Inner! { CALLER TOKENS }  =>  ::sdfg::sdfg! { #[sdfg_rs_source { sdfg Inner { ITEMS } }] CALLER TOKENS }
//! ```
//!
//! An invocation with an `extern sdfg` whose source has not arrived yet
//! expands to nothing but that replay call ([`pending`]); each round adds
//! one source in front of the others, so the k-th `extern` (in item order)
//! takes the k-th source counted from the last attribute. The items a
//! program replays are its own, each `extern sdfg` replaced by the source it
//! received ([`replayed_items`]), so a chain of programs needs only the
//! last one in scope.

use super::{split_items, Item, SdfgAst, ITEM_KEYWORDS};
use proc_macro2::{Group, Ident, Span, TokenStream, TokenTree};

/// The attribute that carries a replayed source.
pub const SOURCE_ATTRIBUTE: &str = "sdfg_rs_source";

/// Gives each `extern sdfg` of `ast` its source, named as the extern
/// names it (`sources` in attribute order: the latest replay first).
pub(super) fn attach_sources(ast: &mut SdfgAst, sources: Vec<(SdfgAst, TokenStream)>) {
    let mut sources = sources.into_iter().rev();
    for item in &mut ast.items {
        if let Item::Extern(e) = item {
            let Some((mut source, tokens)) = sources.next() else {
                break;
            };
            source.name = e.name.clone();
            e.source = Some((Box::new(source), tokens));
        }
    }
}

/// `tokens` (a replayed source) with every span resolving names where this
/// invocation does: the tokens come out of the replay macro's definition,
/// whose hygiene would hide the generated code's bindings from the
/// callee's tokens. Their locations stay, so errors still point into the
/// callee's own `sdfg!`.
pub(super) fn resolved_here(tokens: TokenStream) -> TokenStream {
    let here = Span::call_site();
    tokens
        .into_iter()
        .map(|mut t| {
            if let TokenTree::Group(g) = &t {
                let mut inner = Group::new(g.delimiter(), resolved_here(g.stream()));
                inner.set_span(g.span().resolved_at(here));
                t = TokenTree::Group(inner);
            } else {
                t.set_span(t.span().resolved_at(here));
            }
            t
        })
        .collect()
}

/// The path of the first `extern sdfg` whose source has not arrived.
pub fn pending(ast: &SdfgAst) -> Option<&syn::Path> {
    ast.items.iter().find_map(|i| match i {
        Item::Extern(e) if e.source.is_none() => Some(&e.path),
        _ => None,
    })
}

/// `sdfg NAME { ITEMS }` for the replay macro of `ast`: its items as
/// written, each `extern sdfg` replaced by the source it received.
pub fn replayed_items(ast: &SdfgAst) -> TokenStream {
    let mut externs = ast.items.iter().filter_map(|i| match i {
        Item::Extern(e) => Some(e),
        _ => None,
    });
    let mut body = TokenStream::new();
    for chunk in split_items(ast.body.clone(), ITEM_KEYWORDS) {
        let is_extern = chunk
            .clone()
            .into_iter()
            .find(|t| !is_attribute_token(t))
            .is_some_and(|t| matches!(&t, TokenTree::Ident(i) if i == "extern"));
        if !is_extern {
            body.extend(chunk);
            continue;
        }
        if let Some(e) = externs.next() {
            if let Some((_, tokens)) = &e.source {
                body.extend(renamed(tokens.clone(), &e.name));
            }
        }
    }
    let name = &ast.name;
    quote::quote!(sdfg #name { #body })
}

/// `#` and `[...]` of an attribute before an item (a chunk may start with them).
fn is_attribute_token(t: &TokenTree) -> bool {
    match t {
        TokenTree::Punct(p) => p.as_char() == '#',
        TokenTree::Group(g) => g.delimiter() == proc_macro2::Delimiter::Bracket,
        _ => false,
    }
}

/// `sdfg OLD { ... }` as `sdfg NEW { ... }`.
fn renamed(tokens: TokenStream, name: &Ident) -> TokenStream {
    let mut out = TokenStream::new();
    let mut iter = tokens.into_iter();
    let mut seen_sdfg = false;
    for t in iter.by_ref() {
        let is_name = seen_sdfg && matches!(t, TokenTree::Ident(_));
        if is_name {
            out.extend(std::iter::once(TokenTree::Ident(name.clone())));
            break;
        }
        seen_sdfg = matches!(&t, TokenTree::Ident(i) if i == "sdfg");
        out.extend(std::iter::once(t));
    }
    out.extend(iter);
    out
}
