//! The body of a block map (`map NAME[...] on gpu block(...) { ... }`): a
//! small structured program of declarations (`shared`, `register`),
//! block-level Rust statements, `if`/`else`, `for` and thread maps
//! (`map NAME[...] on threads { ... }`), none of which syn parses by itself.
//!
//! The same parser reads any body that uses this syntax where it does not
//! belong (a thread map in a flat map, `shared` in a tasklet), so lowering
//! can say what is wrong instead of syn's "expected `;`".

use super::body::rewrite_multi_index;
use super::{type_name, MapParamAst, TypeName};
use proc_macro2::{Delimiter, Ident, Span, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::Token;

/// `block`, `block(BX)`, `block(BX, BY)`, `block(BX, BY, BZ)` after `on gpu`.
#[derive(Clone, Debug)]
pub struct BlockSpecAst {
    /// The `block` keyword.
    pub span: Span,
    /// None: `block` alone (the compiler picks).
    pub dims: Option<Vec<syn::Expr>>,
}

/// One item of a block body.
#[derive(Clone, Debug)]
pub enum BlockItemAst {
    Decl(BlockDeclAst),
    /// A `let`, a store, or any other Rust statement.
    Rust(syn::Stmt),
    If(BlockIfAst),
    For(BlockForAst),
    ThreadMap(ThreadMapAst),
}

/// `shared` or `register`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockDataKind {
    Shared,
    Register,
}

impl BlockDataKind {
    pub fn keyword(self) -> &'static str {
        match self {
            BlockDataKind::Shared => "shared",
            BlockDataKind::Register => "register",
        }
    }
}

/// `shared NAME: ELEM[SHAPE, ...];` or `register NAME: ELEM[...];`
#[derive(Clone, Debug)]
pub struct BlockDeclAst {
    pub kind: BlockDataKind,
    /// The `shared` / `register` keyword.
    pub span: Span,
    pub name: Ident,
    pub elem: TypeName,
    /// Empty for a scalar.
    pub shape: Vec<syn::Expr>,
}

/// `if COND { ITEMS } [else { ITEMS } | else if ...]` at block level.
#[derive(Clone, Debug)]
pub struct BlockIfAst {
    pub span: Span,
    pub cond: syn::Expr,
    pub then: Vec<BlockItemAst>,
    /// `else if` is an `If` item alone in the else branch.
    pub else_: Vec<BlockItemAst>,
}

/// `for VAR in RANGE { ITEMS }` at block level.
#[derive(Clone, Debug)]
pub struct BlockForAst {
    pub span: Span,
    pub pat: syn::Pat,
    pub range: syn::Expr,
    pub body: Vec<BlockItemAst>,
}

/// `map NAME[p in RANGE, ...] on threads { BODY }`.
#[derive(Clone, Debug)]
pub struct ThreadMapAst {
    pub name: Ident,
    pub params: Vec<MapParamAst>,
    /// The word after `on` (`threads`).
    pub on_span: Span,
    pub body: Vec<BlockItemAst>,
}

/// Whether `tokens` (a body, before any rewriting) uses block syntax
/// anywhere: `map NAME[`, `shared NAME:` or `register NAME:`.
pub(crate) fn uses_block_syntax(tokens: &TokenStream) -> bool {
    let tts: Vec<TokenTree> = tokens.clone().into_iter().collect();
    for (k, tt) in tts.iter().enumerate() {
        match tt {
            TokenTree::Group(g) if uses_block_syntax(&g.stream()) => return true,
            TokenTree::Ident(w) => {
                let next_ident = matches!(tts.get(k + 1), Some(TokenTree::Ident(_)));
                let third = tts.get(k + 2);
                let is_map = w == "map"
                    && next_ident
                    && matches!(third, Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket);
                let is_decl = (w == "shared" || w == "register")
                    && next_ident
                    && matches!(third, Some(TokenTree::Punct(p)) if p.as_char() == ':');
                if is_map || is_decl {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// `[a, b]` to `[(a, b)]` as for tasklet bodies, except the brackets of a
/// thread map's ranges (`map t[i in 0..N, j in 0..M]`) and of a
/// declaration's shape (`shared T: f32[32, 33]`).
fn rewrite(tokens: TokenStream) -> TokenStream {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(tts.len());
    for (k, tt) in tts.iter().enumerate() {
        let word = |back: usize| -> Option<String> {
            k.checked_sub(back).and_then(|i| match &tts[i] {
                TokenTree::Ident(w) => Some(w.to_string()),
                _ => None,
            })
        };
        let header = matches!(tt, TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket)
            && (word(2).as_deref() == Some("map")
                || (matches!(word(4).as_deref(), Some("shared" | "register"))
                    && matches!(k.checked_sub(2).map(|i| &tts[i]), Some(TokenTree::Punct(p)) if p.as_char() == ':')));
        match tt {
            TokenTree::Group(g) if header => {
                // Keep the header's own brackets; rewrite inside its expressions.
                let mut inner =
                    proc_macro2::Group::new(g.delimiter(), rewrite_inner_exprs(g.stream()));
                inner.set_span(g.span());
                out.push(TokenTree::Group(inner));
            }
            TokenTree::Group(g) => {
                let stream = if g.delimiter() == Delimiter::Brace {
                    rewrite(g.stream())
                } else {
                    // Rust expressions: the tasklet rewrite.
                    let rewritten =
                        rewrite_multi_index(TokenStream::from(TokenTree::Group(g.clone())));
                    out.extend(rewritten);
                    continue;
                };
                let mut group = proc_macro2::Group::new(g.delimiter(), stream);
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            other => out.push(other.clone()),
        }
    }
    out.into_iter().collect()
}

/// The groups nested inside a header's entries (`A[i, j]` in a range bound)
/// get the tasklet rewrite; the header's top-level commas stay.
fn rewrite_inner_exprs(tokens: TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .flat_map(|tt| match tt {
            TokenTree::Group(g) => rewrite_multi_index(TokenStream::from(TokenTree::Group(g))),
            other => TokenStream::from(other),
        })
        .collect()
}

/// Parses a block body (the contents of its braces).
pub(crate) fn parse_block_body(tokens: TokenStream) -> syn::Result<Vec<BlockItemAst>> {
    items.parse2(rewrite(tokens))
}

fn peek_word(input: ParseStream, w: &str) -> bool {
    input.fork().parse::<Ident>().is_ok_and(|i| i == w)
}

fn items(input: ParseStream) -> syn::Result<Vec<BlockItemAst>> {
    let mut out = Vec::new();
    while !input.is_empty() {
        if input.peek(Token![;]) {
            input.parse::<Token![;]>()?;
            continue;
        }
        out.push(item(input)?);
    }
    Ok(out)
}

fn braced_items(input: ParseStream) -> syn::Result<Vec<BlockItemAst>> {
    let content;
    syn::braced!(content in input);
    items(&content)
}

fn item(input: ParseStream) -> syn::Result<BlockItemAst> {
    let ahead = input.fork();
    let first: Option<Ident> = ahead.parse().ok();
    let second_ident = ahead.peek(syn::Ident);
    if let Some(w) = &first {
        if (w == "shared" || w == "register") && second_ident && ahead.peek2(Token![:]) {
            return decl(input).map(BlockItemAst::Decl);
        }
        if w == "map" && second_ident && ahead.peek2(syn::token::Bracket) {
            return thread_map(input).map(BlockItemAst::ThreadMap);
        }
    }
    if input.peek(Token![if]) {
        return block_if(input).map(BlockItemAst::If);
    }
    if input.peek(Token![for]) {
        let kw: Token![for] = input.parse()?;
        let pat = syn::Pat::parse_single(input)?;
        input.parse::<Token![in]>().map_err(|e| {
            syn::Error::new(e.span(), "expected `in`: write `for k in 0..N { ... }`")
        })?;
        let range = syn::Expr::parse_without_eager_brace(input)?;
        let body = braced_items(input)?;
        return Ok(BlockItemAst::For(BlockForAst {
            span: kw.span,
            pat,
            range,
            body,
        }));
    }
    let stmt: syn::Stmt = input.parse()?;
    Ok(BlockItemAst::Rust(stmt))
}

fn block_if(input: ParseStream) -> syn::Result<BlockIfAst> {
    let kw: Token![if] = input.parse()?;
    let cond = syn::Expr::parse_without_eager_brace(input)?;
    let then = braced_items(input)?;
    let mut else_ = Vec::new();
    if input.peek(Token![else]) {
        input.parse::<Token![else]>()?;
        if input.peek(Token![if]) {
            else_.push(BlockItemAst::If(block_if(input)?));
        } else {
            else_ = braced_items(input)?;
        }
    }
    Ok(BlockIfAst {
        span: kw.span,
        cond,
        then,
        else_,
    })
}

fn decl(input: ParseStream) -> syn::Result<BlockDeclAst> {
    let kw: Ident = input.parse()?;
    let kind = if kw == "shared" {
        BlockDataKind::Shared
    } else {
        BlockDataKind::Register
    };
    let name: Ident = input.parse()?;
    input.parse::<Token![:]>()?;
    let ty: Ident = input.parse()?;
    let elem = type_name(&ty).map_err(|d| syn::Error::new(d.span, d.text()))?;
    let mut shape = Vec::new();
    if input.peek(syn::token::Bracket) {
        let content;
        let brackets = syn::bracketed!(content in input);
        let dims = Punctuated::<syn::Expr, Token![,]>::parse_terminated(&content)?;
        if dims.is_empty() {
            return Err(syn::Error::new(
                brackets.span.join(),
                "empty shape: write a scalar without brackets, or give the dimensions: `[32]`",
            ));
        }
        shape = dims.into_iter().collect();
    }
    if !input.peek(Token![;]) {
        return Err(input.error(format!(
            "expected `;` after the `{}` declaration",
            kind.keyword()
        )));
    }
    input.parse::<Token![;]>()?;
    Ok(BlockDeclAst {
        kind,
        span: kw.span(),
        name,
        elem,
        shape,
    })
}

fn thread_map(input: ParseStream) -> syn::Result<ThreadMapAst> {
    input.parse::<Ident>()?;
    let name: Ident = input.parse()?;
    let content;
    let brackets = syn::bracketed!(content in input);
    let params = Punctuated::<MapParamAst, Token![,]>::parse_terminated(&content)?;
    if params.is_empty() {
        return Err(syn::Error::new(
            brackets.span.join(),
            "a thread map needs at least one range: `[i in 0..N]`",
        ));
    }
    let on: Ident = input.parse().map_err(|e| {
        syn::Error::new(
            e.span(),
            "expected `on threads` after the thread map's ranges",
        )
    })?;
    if on != "on" {
        return Err(syn::Error::new(
            on.span(),
            "expected `on threads` after the thread map's ranges",
        ));
    }
    let sched: Ident = input.parse()?;
    if sched != "threads" {
        return Err(syn::Error::new(
            sched.span(),
            format!("a map inside a block map runs `on threads`, not `on {sched}`"),
        ));
    }
    let body = braced_items(input)?;
    if input.peek(Token![;]) {
        input.parse::<Token![;]>()?;
    }
    Ok(ThreadMapAst {
        name,
        params: params.into_iter().collect(),
        on_span: sched.span(),
        body,
    })
}

/// `block` or `block(e, ...)` (the keyword is next in `input`).
pub(crate) fn block_spec(input: ParseStream) -> syn::Result<BlockSpecAst> {
    let kw: Ident = input.parse()?;
    if !input.peek(syn::token::Paren) {
        return Ok(BlockSpecAst {
            span: kw.span(),
            dims: None,
        });
    }
    let content;
    let parens = syn::parenthesized!(content in input);
    let dims = Punctuated::<syn::Expr, Token![,]>::parse_terminated(&content)?;
    if dims.is_empty() || dims.len() > 3 {
        return Err(syn::Error::new(
            parens.span.join(),
            "a block has 1 to 3 dimensions: `block(256)`, `block(16, 16)` or `block(8, 8, 4)`",
        ));
    }
    Ok(BlockSpecAst {
        span: kw.span(),
        dims: Some(dims.into_iter().collect()),
    })
}

/// Whether the next token is the word `w` (used by the map header).
pub(crate) fn next_is(input: ParseStream, w: &str) -> bool {
    peek_word(input, w)
}
