//! The attributes of an sdfg and of its items: `#[streams]`, `#[sync]`,
//! `#[graph]`, docs, and `#[independent(...)]`.

use super::items::{parse_nested, Header};
use super::*;
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::{Attribute, Token};

pub(super) fn sdfg_attribute(attr: &Attribute, header: &mut Header) -> Result<(), Diagnostic> {
    let span = attr
        .path()
        .segments
        .first()
        .map_or(attr.pound_token.span, |s| s.ident.span());
    let name = attr.path().to_token_stream().to_string();
    match name.as_str() {
        "doc" => {
            if let Some(text) = doc_text(attr) {
                header.docs.push(text);
            }
            Ok(())
        }
        "streams" => set_once(
            &mut header.streams,
            attr,
            span,
            parse_streams,
            "write `#[streams(default)]`, `#[streams(single)]`, `#[streams(max(4))]` or `#[streams(auto)]`",
        ),
        "sync" => set_once(
            &mut header.sync,
            attr,
            span,
            parse_sync,
            "write `#[sync(auto)]` or `#[sync(manual)]`",
        ),
        "graph" => set_once(
            &mut header.graph,
            attr,
            span,
            parse_graph,
            "write `#[graph(auto)]` (the default) or `#[graph(off)]`",
        ),
        super::external::SOURCE_ATTRIBUTE => {
            let tokens = match &attr.meta {
                syn::Meta::List(list) => super::external::resolved_here(list.tokens.clone()),
                _ => TokenStream::new(),
            };
            let mut inner = Diagnostics::new();
            let parsed =
                (|input: ParseStream| parse_nested(input, &mut inner)).parse2(tokens.clone());
            match parsed {
                Ok(ast) if inner.is_empty() => {
                    header.sources.push((ast, tokens));
                    Ok(())
                }
                Ok(_) => Err(inner.list.remove(0)),
                Err(e) => Err(Diagnostic::error(e.span(), e.to_string())),
            }
        }
        "start" => Err(Diagnostic::error(span, "`#[start]` belongs on a state")
            .help("write it before `state NAME { ... }` inside the sdfg")),
        "persistent" => Err(Diagnostic::error(span, "`#[persistent]` belongs on a state")
            .help("write it before the `state NAME { ... }` that loops over itself, inside the sdfg")),
        _ => {
            let d = Diagnostic::error(span, format!("unknown attribute `#[{name}]`"));
            Err(match closest_name(&name, ["streams", "sync", "graph", "start"]) {
                Some("start") => {
                    d.help("`#[start]` belongs on a state: `#[start] state NAME { ... }`")
                }
                Some(close) => d.help(format!("did you mean `#[{close}(...)]`?")),
                None => {
                    d.help("an sdfg takes `#[streams(...)]`, `#[sync(...)]`, `#[graph(...)]` and `///` doc comments")
                }
            })
        }
    }
}

/// A `#[NAME(...)]` attribute of the sdfg that may appear once: its
/// argument parsed into `slot` (`help` says how to write it when it does
/// not parse).
pub(super) fn set_once<T>(
    slot: &mut Option<(T, Span)>,
    attr: &Attribute,
    span: Span,
    parse: fn(ParseStream) -> syn::Result<T>,
    help: &str,
) -> Result<(), Diagnostic> {
    let name = attr.path().to_token_stream().to_string();
    let value = attr
        .parse_args_with(parse)
        .map_err(|e| Diagnostic::error(e.span(), e.to_string()).help(help))?;
    if slot.is_some() {
        return Err(
            Diagnostic::error(span, format!("duplicate `#[{name}]` attribute"))
                .help(format!("keep one `#[{name}(...)]`")),
        );
    }
    *slot = Some((value, span));
    Ok(())
}

pub(super) fn doc_text(attr: &Attribute) -> Option<String> {
    let syn::Meta::NameValue(nv) = &attr.meta else {
        return None;
    };
    let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Str(s),
        ..
    }) = &nv.value
    else {
        return None;
    };
    let text = s.value();
    Some(text.strip_prefix(' ').map(str::to_string).unwrap_or(text))
}

pub(super) fn parse_streams(input: ParseStream) -> syn::Result<StreamPolicy> {
    let kw: Ident = input.parse()?;
    let policy = match kw.to_string().as_str() {
        "default" => StreamPolicy::Default,
        "single" => StreamPolicy::Single,
        "auto" => StreamPolicy::Auto,
        "max" => {
            let content;
            syn::parenthesized!(content in input);
            let n: syn::LitInt = content.parse()?;
            let value: u32 = n.base10_parse()?;
            if value == 0 {
                return Err(syn::Error::new(
                    n.span(),
                    "`max(0)` allows no stream; the count must be at least 1",
                ));
            }
            if !content.is_empty() {
                return Err(content.error("expected one number: `max(N)`"));
            }
            StreamPolicy::Max(value)
        }
        other => {
            return Err(syn::Error::new(
                kw.span(),
                format!("unknown stream policy `{other}`"),
            ))
        }
    };
    if !input.is_empty() {
        return Err(input.error("unexpected tokens after the stream policy"));
    }
    Ok(policy)
}

pub(super) fn parse_sync(input: ParseStream) -> syn::Result<SyncMode> {
    let kw: Ident = input.parse()?;
    let mode = match kw.to_string().as_str() {
        "auto" => SyncMode::Auto,
        "manual" => SyncMode::Manual,
        other => {
            return Err(syn::Error::new(
                kw.span(),
                format!("unknown sync mode `{other}`"),
            ))
        }
    };
    if !input.is_empty() {
        return Err(input.error("unexpected tokens after the sync mode"));
    }
    Ok(mode)
}

pub(super) fn parse_graph(input: ParseStream) -> syn::Result<GraphPolicy> {
    let kw: Ident = input.parse()?;
    let policy = match kw.to_string().as_str() {
        "auto" => GraphPolicy::Auto,
        "off" => GraphPolicy::Off,
        other => {
            return Err(syn::Error::new(
                kw.span(),
                format!("unknown graph policy `{other}`"),
            ))
        }
    };
    if !input.is_empty() {
        return Err(input.error("unexpected tokens after the graph policy"));
    }
    Ok(policy)
}

/// The attributes of an item or a statement: `///` docs are accepted and
/// ignored; `#[start]` and `#[independent(...)]` are returned (the caller
/// decides whether they fit).
#[derive(Default)]
pub(super) struct ItemAttributes {
    pub(super) start: Option<Span>,
    /// `#[persistent]` (a state's loop as one kernel).
    pub(super) persistent: Option<Span>,
    /// `#[independent(A, B)]`: where it was written and the names.
    pub(super) independent: Option<(Span, Vec<Ident>)>,
}

pub(super) fn item_attributes(
    input: ParseStream,
    diags: &mut Diagnostics,
) -> syn::Result<ItemAttributes> {
    let attrs = input.call(Attribute::parse_outer)?;
    let mut out = ItemAttributes::default();
    for attr in &attrs {
        let name = attr.path().to_token_stream().to_string();
        let span = attr
            .path()
            .segments
            .first()
            .map_or(attr.pound_token.span, |s| s.ident.span());
        match name.as_str() {
            "doc" => {}
            "start" if matches!(attr.meta, syn::Meta::Path(_)) => {
                if out.start.is_some() {
                    diags.push(
                        Diagnostic::error(span, "duplicate `#[start]`").help("write it once"),
                    );
                }
                out.start = Some(span);
            }
            "persistent" if matches!(attr.meta, syn::Meta::Path(_)) => {
                if out.persistent.is_some() {
                    diags.push(
                        Diagnostic::error(span, "duplicate `#[persistent]`").help("write it once"),
                    );
                }
                out.persistent = Some(span);
            }
            "independent" => match independent_names(attr) {
                Ok(names) => match &mut out.independent {
                    Some((_, all)) => all.extend(names),
                    None => out.independent = Some((span, names)),
                },
                Err(d) => diags.push(d),
            },
            "streams" | "sync" | "graph" => diags.push(
                Diagnostic::error(span, format!("`#[{name}(...)]` belongs on the outermost sdfg"))
                    .help("a nested sdfg runs under the attributes of the `sdfg!` it is declared in; move the attribute there"),
            ),
            _ => diags.push(
                Diagnostic::error(span, format!("unknown attribute `#[{name}]` here"))
                    .help("a state takes `#[start]` and `#[persistent]`, a map `#[independent(CONTAINER, ...)]`"),
            ),
        }
    }
    Ok(out)
}

/// The containers of `#[independent(A, B)]` (at least one).
pub(super) fn independent_names(attr: &Attribute) -> Result<Vec<Ident>, Diagnostic> {
    const FORM: &str =
        "name the containers whose elements no two iterations share: `#[independent(A, B)]`";
    let syn::Meta::List(list) = &attr.meta else {
        let span = attr
            .path()
            .segments
            .first()
            .map_or(attr.pound_token.span, |s| s.ident.span());
        return Err(Diagnostic::error(
            span,
            "`#[independent]` needs the containers it vouches for",
        )
        .help(FORM));
    };
    let names = list
        .parse_args_with(Punctuated::<Ident, Token![,]>::parse_terminated)
        .map_err(|e| Diagnostic::error(e.span(), e.to_string()).help(FORM))?;
    if names.is_empty() {
        return Err(Diagnostic::error(
            list.delimiter.span().join(),
            "`#[independent()]` names no container",
        )
        .help(FORM));
    }
    Ok(names.into_iter().collect())
}
