//! The item grammar: header and attributes, symbols, containers, states with
//! their statements, and interstate edges.

use super::attributes::{item_attributes, sdfg_attribute};
use super::block::{block_spec, next_is, parse_block_body, uses_block_syntax};
use super::body::{parse_body, rewrite_multi_index};
use super::*;
use quote::ToTokens;
use syn::parse::Parse;
use syn::punctuated::Punctuated;
use syn::{Attribute, Token};

pub(super) struct Header {
    pub name: Ident,
    pub vis: TokenStream,
    pub docs: Vec<String>,
    pub streams: Option<(StreamPolicy, Span)>,
    pub sync: Option<(SyncMode, Span)>,
    pub graph: Option<(GraphPolicy, Span)>,
    pub body: TokenStream,
    pub include: Option<IncludeAst>,
    /// The sources of `extern sdfg` items, from `#[sdfg_rs_source { ... }]`
    /// attributes (the replay macros put them there), in attribute order.
    pub sources: Vec<(SdfgAst, TokenStream)>,
}

const ITEM_KINDS: &str =
    "an item is `symbol N: i64;`, a container (`host`, `pinned`, `gpu`, `transient`), `state NAME { ... }`, an edge `a -> b;` or a nested `sdfg NAME { ... }`";
const STMT_KINDS: &str =
    "a statement is `map NAME[i in a..b] on gpu { ... }`, `tasklet NAME { ... }`, `copy A -> B;`, `wait NAME;`, an array statement `B[0..N] = ...;` or a call of a nested sdfg `NAME(N = M, A = X);`";

/// `[attrs] [vis] sdfg Name { ... }`, `[attrs] [vis] sdfg Name = include "f.sdfg";`
/// or `[attrs] [vis] include "f.sdfg" as Name [, attrs]`.
pub(super) fn parse_header(input: ParseStream, diags: &mut Diagnostics) -> syn::Result<Header> {
    let mut attrs = input.call(Attribute::parse_outer)?;
    let vis: syn::Visibility = input.parse()?;
    if input.peek(syn::Ident) && input.fork().parse::<Ident>().is_ok_and(|i| i == "include") {
        let (name, include) = parse_include_as(input, &mut attrs)?;
        return header_with(name, vis, attrs, TokenStream::new(), Some(include), diags);
    }
    let kw: Ident = input.parse().map_err(|e| {
        syn::Error::new(
            e.span(),
            "expected `sdfg NAME { ... }` (optionally with `pub` and attributes before it)",
        )
    })?;
    if kw != "sdfg" {
        return Err(syn::Error::new(
            kw.span(),
            format!("expected `sdfg`, found `{kw}`: write `sdfg NAME {{ ... }}`"),
        ));
    }
    let name: Ident = input.parse()?;
    let (body, include) = if input.peek(Token![=]) {
        (TokenStream::new(), Some(parse_include(input)?))
    } else {
        (parse_sdfg_body(input)?, None)
    };
    header_with(name, vis, attrs, body, include, diags)
}

fn header_with(
    name: Ident,
    vis: syn::Visibility,
    attrs: Vec<Attribute>,
    body: TokenStream,
    include: Option<IncludeAst>,
    diags: &mut Diagnostics,
) -> syn::Result<Header> {
    let mut header = Header {
        name,
        vis: vis.into_token_stream(),
        docs: Vec::new(),
        streams: None,
        sync: None,
        graph: None,
        body,
        include,
        sources: Vec::new(),
    };
    for attr in &attrs {
        if let Err(d) = sdfg_attribute(attr, &mut header) {
            diags.push(d);
        }
    }
    Ok(header)
}

/// `{ ITEMS }`, the last tokens of the invocation.
fn parse_sdfg_body(input: ParseStream) -> syn::Result<TokenStream> {
    let group: proc_macro2::Group = input
        .parse()
        .map_err(|e| syn::Error::new(e.span(), "expected `{ ... }` with the items of the sdfg"))?;
    if group.delimiter() != proc_macro2::Delimiter::Brace {
        return Err(syn::Error::new(
            group.span(),
            "expected `{ ... }` with the items of the sdfg",
        ));
    }
    if !input.is_empty() {
        return Err(input.error("unexpected tokens after the sdfg; write one sdfg per `sdfg!`"));
    }
    Ok(group.stream())
}

/// `= include "path/to/file.sdfg" [;]`, the last tokens of the invocation.
fn parse_include(input: ParseStream) -> syn::Result<IncludeAst> {
    const FORM: &str =
        "write `sdfg NAME = include \"path/to/file.sdfg\";` (relative to the crate's Cargo.toml)";
    input.parse::<Token![=]>()?;
    let kw: Ident = input
        .parse()
        .map_err(|e| syn::Error::new(e.span(), format!("expected `include`: {FORM}")))?;
    if kw != "include" {
        return Err(syn::Error::new(
            kw.span(),
            format!("expected `include`, found `{kw}`: {FORM}"),
        ));
    }
    let path: syn::LitStr = input.parse().map_err(|e| {
        syn::Error::new(
            e.span(),
            format!("expected the file's path as a string: {FORM}"),
        )
    })?;
    if input.peek(Token![;]) {
        input.parse::<Token![;]>()?;
    }
    if !input.is_empty() {
        return Err(
            input.error("unexpected tokens after the included file; write one sdfg per `sdfg!`")
        );
    }
    Ok(IncludeAst {
        path: path.value(),
        span: path.span(),
    })
}

/// `include "f.sdfg" as Name [, #[attr] ...]`: the spelling of
/// `sdfg Name = include "f.sdfg";` (attributes before or after).
fn parse_include_as(
    input: ParseStream,
    attrs: &mut Vec<Attribute>,
) -> syn::Result<(Ident, IncludeAst)> {
    const FORM: &str = "write `include \"path/to/file.sdfg\" as NAME` (or `sdfg NAME = include \"path/to/file.sdfg\";`)";
    input.parse::<Ident>()?;
    let path: syn::LitStr = input.parse().map_err(|e| {
        syn::Error::new(
            e.span(),
            format!("expected the file's path as a string: {FORM}"),
        )
    })?;
    input
        .parse::<Token![as]>()
        .map_err(|e| syn::Error::new(e.span(), format!("expected `as NAME`: {FORM}")))?;
    let name: Ident = input.parse()?;
    if input.peek(Token![,]) {
        input.parse::<Token![,]>()?;
        attrs.extend(input.call(Attribute::parse_outer)?);
    }
    if input.peek(Token![;]) {
        input.parse::<Token![;]>()?;
    }
    if !input.is_empty() {
        return Err(
            input.error("unexpected tokens after the included file; write one sdfg per `sdfg!`")
        );
    }
    Ok((
        name,
        IncludeAst {
            path: path.value(),
            span: path.span(),
        },
    ))
}

fn keyword(input: ParseStream) -> Option<String> {
    if input.peek(Token![extern]) {
        return Some("extern".to_string());
    }
    input.fork().parse::<Ident>().ok().map(|i| i.to_string())
}

/// One item; Ok(None) when it was reported through `diags` instead.
pub(super) fn parse_item(input: ParseStream, diags: &mut Diagnostics) -> syn::Result<Option<Item>> {
    let attributes = item_attributes(input, diags)?;
    if let Some((span, _)) = &attributes.independent {
        diags.push(
            Diagnostic::error(*span, "`#[independent(...)]` belongs on a map")
                .help("write it before `map NAME[...] on gpu { ... }` inside a state"),
        );
    }
    let start = attributes.start;
    let persistent = attributes.persistent;
    if input.peek(syn::Ident) && input.peek2(Token![->]) {
        if let Some(span) = start {
            diags.push(
                Diagnostic::error(span, "`#[start]` belongs on a state, not on an edge")
                    .help("write `#[start] state NAME { ... }`"),
            );
        }
        if let Some(span) = persistent {
            diags.push(
                Diagnostic::error(span, "`#[persistent]` belongs on a state, not on an edge").help(
                    "write `#[persistent] state NAME { ... }` on the state that loops over itself",
                ),
            );
        }
        // Edge expressions may index containers (`A[0, 1]`): rewrite first.
        let tokens: TokenStream = input.parse()?;
        return parse_edge
            .parse2(rewrite_multi_index(tokens))
            .map(|e| Some(Item::Edge(e)));
    }
    let Some(kw) = keyword(input) else {
        return Err(input.error(format!("expected an item; {ITEM_KINDS}")));
    };
    if let Some(span) = start.filter(|_| kw != "state") {
        diags.push(
            Diagnostic::error(span, "`#[start]` belongs on a state")
                .help("write `#[start] state NAME { ... }`"),
        );
    }
    if let Some(span) = persistent.filter(|_| kw != "state") {
        diags.push(
            Diagnostic::error(span, "`#[persistent]` belongs on a state").help(
                "write `#[persistent] state NAME { ... }` on the state that loops over itself",
            ),
        );
    }
    let item = match kw.as_str() {
        "symbol" => Item::Symbol(parse_symbol(input)?),
        "transient" | "host" | "pinned" | "gpu" => Item::Container(parse_container(input)?),
        "state" => Item::State(parse_state(input, start, persistent, diags)?),
        "sdfg" => Item::Nested(Box::new(parse_nested(input, diags)?)),
        "extern" => Item::Extern(parse_extern(input)?),
        _ => {
            let ident: Ident = input.parse()?;
            return Err(syn::Error::new(
                ident.span(),
                format!("expected an item, found `{ident}`; {ITEM_KINDS}"),
            ));
        }
    };
    Ok(Some(item))
}

fn parse_type(input: ParseStream) -> syn::Result<TypeName> {
    let ident: Ident = input.parse()?;
    type_name(&ident).map_err(|d| syn::Error::new(d.span, d.text()))
}

fn expect_semi(input: ParseStream, what: &str) -> syn::Result<()> {
    if input.peek(Token![;]) {
        input.parse::<Token![;]>()?;
        if input.is_empty() {
            return Ok(());
        }
    }
    Err(input.error(format!("expected `;` after {what}")))
}

/// `symbol NAME: TYPE;`
fn parse_symbol(input: ParseStream) -> syn::Result<SymbolDecl> {
    input.parse::<Ident>()?;
    let name: Ident = input.parse()?;
    input.parse::<Token![:]>()?;
    let ty = parse_type(input)?;
    expect_semi(input, "the symbol")?;
    Ok(SymbolDecl { name, ty })
}

/// `[transient] (host|pinned|gpu) NAME: ELEM[SHAPE, ...];`
fn parse_container(input: ParseStream) -> syn::Result<ContainerDecl> {
    let mut kw: Ident = input.parse()?;
    let transient = kw == "transient";
    if transient {
        kw = input.parse()?;
    }
    let storage = match kw.to_string().as_str() {
        "host" => Storage::Host,
        "pinned" => Storage::Pinned,
        "gpu" => Storage::Gpu,
        other => {
            return Err(syn::Error::new(
                kw.span(),
                format!("expected a storage (`host`, `pinned` or `gpu`), found `{other}`"),
            ))
        }
    };
    let name: Ident = input.parse()?;
    input.parse::<Token![:]>()?;
    let elem = parse_type(input)?;
    let mut shape = Vec::new();
    if input.peek(syn::token::Bracket) {
        let content;
        let brackets = syn::bracketed!(content in input);
        let dims = Punctuated::<syn::Expr, Token![,]>::parse_terminated(&content)?;
        if dims.is_empty() {
            return Err(syn::Error::new(
                brackets.span.join(),
                "empty shape: write a scalar without brackets, or give the dimensions: `[N]`",
            ));
        }
        shape = dims.into_iter().collect();
    }
    expect_semi(input, "the container")?;
    Ok(ContainerDecl {
        transient,
        storage,
        name,
        elem,
        shape,
    })
}

/// `sdfg NAME { ITEMS }` inside an sdfg: a nested SDFG (its items are
/// parsed like the outer ones, errors collected into `diags`).
pub(super) fn parse_nested(input: ParseStream, diags: &mut Diagnostics) -> syn::Result<SdfgAst> {
    input.parse::<Ident>()?;
    let name: Ident = input.parse()?;
    if input.peek(Token![=]) {
        return Err(input.error(
            "a nested sdfg is written out: `sdfg NAME { ... }` (a DaCe file is included only as the outermost sdfg)",
        ));
    }
    let group: proc_macro2::Group = input.parse().map_err(|e| {
        syn::Error::new(
            e.span(),
            "expected `{ ... }` with the items of the nested sdfg",
        )
    })?;
    if group.delimiter() != proc_macro2::Delimiter::Brace {
        return Err(syn::Error::new(
            group.span(),
            "expected `{ ... }` with the items of the nested sdfg",
        ));
    }
    if input.peek(Token![;]) {
        input.parse::<Token![;]>()?;
    }
    if !input.is_empty() {
        return Err(input.error("unexpected tokens after the nested sdfg"));
    }
    let items = match parse_items(group.stream()) {
        Ok(items) => items,
        Err(errors) => {
            diags.extend(errors);
            Vec::new()
        }
    };
    // Sources are fetched for the outermost sdfg's `extern`s only; a nested
    // sdfg sees those by lexical scope.
    for item in &items {
        if let Item::Extern(e) = item {
            diags.push(
                Diagnostic::error(e.span, "`extern sdfg` belongs in the outermost sdfg").help(
                    format!(
                        "move `extern sdfg {}` there: the nested sdfgs inside it can call `{}` too",
                        e.path.to_token_stream().to_string().replace(' ', ""),
                        e.name
                    ),
                ),
            );
        }
    }
    Ok(SdfgAst {
        name,
        vis: TokenStream::new(),
        docs: Vec::new(),
        streams: None,
        sync: None,
        graph: None,
        items,
        include: None,
        body: group.stream(),
    })
}

/// `extern sdfg PATH [as NAME];`
fn parse_extern(input: ParseStream) -> syn::Result<ExternDecl> {
    const FORM: &str = "write `extern sdfg NAME;` (or `extern sdfg path::to::NAME as LOCAL;`) for a program defined by another `sdfg!`";
    let kw: Token![extern] = input.parse()?;
    let sdfg: Ident = input
        .parse()
        .map_err(|e| syn::Error::new(e.span(), format!("expected `sdfg`: {FORM}")))?;
    if sdfg != "sdfg" {
        return Err(syn::Error::new(
            sdfg.span(),
            format!("expected `sdfg`, found `{sdfg}`: {FORM}"),
        ));
    }
    let path = syn::Path::parse_mod_style(input)
        .map_err(|e| syn::Error::new(e.span(), format!("expected the program's path: {FORM}")))?;
    let name = if input.peek(Token![as]) {
        input.parse::<Token![as]>()?;
        input.parse::<Ident>()?
    } else {
        match path.segments.last() {
            Some(last) => last.ident.clone(),
            None => return Err(syn::Error::new(kw.span, FORM)),
        }
    };
    expect_semi(input, "the extern sdfg")?;
    Ok(ExternDecl {
        path,
        name,
        span: kw.span,
        source: None,
    })
}

/// `state NAME { statements }`
fn parse_state(
    input: ParseStream,
    start: Option<Span>,
    persistent: Option<Span>,
    diags: &mut Diagnostics,
) -> syn::Result<StateDecl> {
    input.parse::<Ident>()?;
    let name: Ident = input.parse()?;
    let group: proc_macro2::Group = input
        .parse()
        .map_err(|e| syn::Error::new(e.span(), "expected `{ ... }` with the state's statements"))?;
    if group.delimiter() != proc_macro2::Delimiter::Brace {
        return Err(syn::Error::new(
            group.span(),
            "expected `{ ... }` with the state's statements",
        ));
    }
    if input.peek(Token![;]) {
        input.parse::<Token![;]>()?;
    }
    let mut stmts = Vec::new();
    for chunk in split_items(group.stream(), STATEMENT_KEYWORDS) {
        let end = last_span(&chunk);
        match (|input: ParseStream| parse_statement(input, diags)).parse2(chunk) {
            Ok(s) => stmts.push(s),
            Err(e) => diags.extend(at_end_of_chunk(e, end).into()),
        }
    }
    Ok(StateDecl {
        start,
        persistent,
        name,
        stmts,
    })
}

fn parse_statement(input: ParseStream, diags: &mut Diagnostics) -> syn::Result<StmtAst> {
    let attributes = item_attributes(input, diags)?;
    if let Some(span) = attributes.start {
        diags.push(
            Diagnostic::error(span, "`#[start]` belongs on a state, not on a statement")
                .help("write `#[start] state NAME { ... }`"),
        );
    }
    if let Some(span) = attributes.persistent {
        diags.push(
            Diagnostic::error(
                span,
                "`#[persistent]` belongs on a state, not on a statement",
            )
            .help("write `#[persistent] state NAME { ... }` on the state that loops over itself"),
        );
    }
    let Some(kw) = keyword(input) else {
        return Err(input.error(format!("expected a statement; {STMT_KINDS}")));
    };
    let statement_keyword = matches!(kw.as_str(), "map" | "tasklet" | "copy" | "wait");
    if !statement_keyword && super::assign::starts_assignment(input) {
        if let Some((span, _)) = attributes.independent.as_ref() {
            diags.push(
                Diagnostic::error(*span, "`#[independent(...)]` belongs on a map").help(
                    "an array statement never needs it: each iteration writes its own element",
                ),
            );
        }
        return super::assign::parse_assignment(input).map(|a| StmtAst::Assign(Box::new(a)));
    }
    if let Some((span, _)) = attributes.independent.as_ref().filter(|_| kw != "map") {
        diags.push(
            Diagnostic::error(*span, "`#[independent(...)]` belongs on a map")
                .help("write it before `map NAME[...] on gpu { ... }`"),
        );
    }
    match kw.as_str() {
        "map" => parse_map(input).map(|mut m| {
            m.independent = attributes
                .independent
                .map_or_else(Vec::new, |(_, names)| names);
            StmtAst::Map(m)
        }),
        "tasklet" => {
            input.parse::<Ident>()?;
            let name: Ident = input.parse()?;
            if next_is(input, "on") {
                return parse_gpu_tasklet(input, name).map(StmtAst::Map);
            }
            let (body, block_body) = parse_any_body(input, "the tasklet's body", false)?;
            Ok(StmtAst::Tasklet(TaskletAst {
                name,
                body,
                block_body,
            }))
        }
        "copy" => parse_copy(input).map(StmtAst::Copy),
        "wait" => {
            let kw: Ident = input.parse()?;
            let name: Ident = input.parse()?;
            expect_semi(input, "`wait NAME`")?;
            Ok(StmtAst::Wait(WaitAst {
                span: kw.span(),
                name,
            }))
        }
        "state" | "symbol" | "host" | "gpu" | "pinned" | "transient" => {
            let ident: Ident = input.parse()?;
            Err(syn::Error::new(
                ident.span(),
                format!("`{ident}` is not allowed inside a state; declare it at the top level of the sdfg"),
            ))
        }
        _ if input.peek(syn::Ident) && input.peek2(syn::token::Paren) => {
            parse_call(input).map(StmtAst::Call)
        }
        _ => {
            let ident: Ident = input.parse()?;
            Err(syn::Error::new(
                ident.span(),
                format!("expected a statement, found `{ident}`; {STMT_KINDS}"),
            ))
        }
    }
}

/// `NAME(arg = value, ...);`: a call of a nested sdfg.
fn parse_call(input: ParseStream) -> syn::Result<CallAst> {
    let name: Ident = input.parse()?;
    let group: proc_macro2::Group = input.parse()?;
    expect_semi(input, "the call")?;
    let args = (|content: ParseStream| Punctuated::<CallArg, Token![,]>::parse_terminated(content))
        .parse2(rewrite_multi_index(group.stream()))?;
    Ok(CallAst {
        name,
        args: args.into_iter().collect(),
        span: group.span(),
    })
}

impl Parse for CallArg {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        const FORM: &str = "an argument is `SYMBOL = expression` or `CONTAINER = X[subset]`";
        let name: Ident = input
            .parse()
            .map_err(|e| syn::Error::new(e.span(), format!("expected an argument name: {FORM}")))?;
        input
            .parse::<Token![=]>()
            .map_err(|e| syn::Error::new(e.span(), format!("expected `=`: {FORM}")))?;
        let value: syn::Expr = input.parse()?;
        Ok(CallArg { name, value })
    }
}

/// `{ BODY }` followed by an optional `;` and nothing else: the body as
/// Rust statements, or (for a block map, `block`, or any body using block
/// syntax) as block items.
#[allow(clippy::type_complexity)]
fn parse_any_body(
    input: ParseStream,
    what: &str,
    block: bool,
) -> syn::Result<(Vec<syn::Stmt>, Option<Vec<super::BlockItemAst>>)> {
    let group: proc_macro2::Group = input
        .parse()
        .map_err(|e| syn::Error::new(e.span(), format!("expected `{{ ... }}` with {what}")))?;
    if group.delimiter() != proc_macro2::Delimiter::Brace {
        return Err(syn::Error::new(
            group.span(),
            format!("expected `{{ ... }}` with {what}"),
        ));
    }
    if input.peek(Token![;]) {
        input.parse::<Token![;]>()?;
    }
    if block || uses_block_syntax(&group.stream()) {
        return Ok((Vec::new(), Some(parse_block_body(group.stream())?)));
    }
    Ok((parse_body(group.stream())?, None))
}

/// `tasklet NAME on gpu { BODY }` (after the name): a `gpu` map without
/// parameters that runs once, on one GPU thread.
fn parse_gpu_tasklet(input: ParseStream, name: Ident) -> syn::Result<MapAst> {
    input.parse::<Ident>()?;
    let sched: Ident = input.parse()?;
    if sched != "gpu" {
        return Err(syn::Error::new(
            sched.span(),
            format!("a tasklet runs on the host (`tasklet {name} {{ ... }}`) or on one GPU thread (`tasklet {name} on gpu {{ ... }}`), not `on {sched}`"),
        ));
    }
    let (body, block_body) = parse_any_body(input, "the tasklet's body", false)?;
    Ok(MapAst {
        name,
        params: Vec::new(),
        schedule: MapSchedule::Gpu,
        schedule_span: sched.span(),
        body,
        block: None,
        block_body,
        gpu_tasklet: true,
        independent: Vec::new(),
    })
}

/// `map NAME[p in a..b, ...] on gpu|cpu|seq { BODY }`
fn parse_map(input: ParseStream) -> syn::Result<MapAst> {
    input.parse::<Ident>()?;
    let name: Ident = input.parse()?;
    if !input.peek(syn::token::Bracket) {
        return Err(input.error("expected the map's ranges: `[i in 0..N, ...]`"));
    }
    let content;
    let brackets = syn::bracketed!(content in input);
    let params = Punctuated::<MapParamAst, Token![,]>::parse_terminated(&content)?;
    if params.is_empty() {
        return Err(syn::Error::new(
            brackets.span.join(),
            "a map needs at least one range: `[i in 0..N]`",
        ));
    }
    let on: Ident = input
        .parse()
        .map_err(|e| syn::Error::new(e.span(), "expected `on gpu`, `on cpu` or `on seq`"))?;
    if on != "on" {
        return Err(syn::Error::new(
            on.span(),
            "expected `on gpu`, `on cpu` or `on seq` after the map's ranges",
        ));
    }
    let sched: Ident = input.parse()?;
    let schedule = match sched.to_string().as_str() {
        "gpu" => MapSchedule::Gpu,
        "cpu" => MapSchedule::Cpu,
        "seq" => MapSchedule::Seq,
        "threads" => {
            return Err(error_with_help(
                sched.span(),
                format!("thread map `{name}` is outside a block map"),
                format!(
                    "put it in a block map: `map rows[r in 0..R] on gpu block(256) {{ map {name}[...] on threads {{ ... }} }}`"
                ),
            ))
        }
        other => {
            return Err(syn::Error::new(
                sched.span(),
                format!("unknown map schedule `{other}`; write `gpu`, `cpu` or `seq`"),
            ))
        }
    };
    let block = if next_is(input, "block") {
        Some(block_spec(input)?)
    } else {
        None
    };
    let (body, block_body) = parse_any_body(input, "the map's body", block.is_some())?;
    Ok(MapAst {
        name,
        params: params.into_iter().collect(),
        schedule,
        schedule_span: sched.span(),
        body,
        block,
        block_body,
        gpu_tasklet: false,
        independent: Vec::new(),
    })
}

impl Parse for MapParamAst {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name: Ident = input.parse()?;
        input
            .parse::<Token![in]>()
            .map_err(|e| syn::Error::new(e.span(), "expected `in`: write `i in 0..N`"))?;
        let range: syn::Expr = input.parse()?;
        Ok(MapParamAst { name, range })
    }
}

/// `copy SRC[subset] -> DST[subset];`
fn parse_copy(input: ParseStream) -> syn::Result<CopyAst> {
    let kw: Ident = input.parse()?;
    let src: Ident = input.parse()?;
    let src_subset = parse_subset(input)?;
    input
        .parse::<Token![->]>()
        .map_err(|e| syn::Error::new(e.span(), "expected `->`: write `copy SRC -> DST;`"))?;
    let dst: Ident = input.parse()?;
    let dst_subset = parse_subset(input)?;
    expect_semi(input, "the copy")?;
    Ok(CopyAst {
        span: kw.span(),
        src,
        src_subset,
        dst,
        dst_subset,
    })
}

fn parse_subset(input: ParseStream) -> syn::Result<Option<SubsetAst>> {
    if !input.peek(syn::token::Bracket) {
        return Ok(None);
    }
    let content;
    let brackets = syn::bracketed!(content in input);
    let dims = Punctuated::<syn::Expr, Token![,]>::parse_terminated(&content)?;
    if dims.is_empty() {
        return Err(syn::Error::new(
            brackets.span.join(),
            "empty subset: leave out the brackets to copy the whole container",
        ));
    }
    Ok(Some(SubsetAst {
        dims: dims.into_iter().collect(),
        span: brackets.span.join(),
    }))
}

/// `from -> to [if COND] [{ x = e; ... }]` (the tokens were rewritten by
/// `rewrite_multi_index`).
fn parse_edge(input: ParseStream) -> syn::Result<EdgeDecl> {
    let from: Ident = input.parse()?;
    let arrow: Token![->] = input.parse()?;
    let to: Ident = input.parse()?;
    let condition = if input.peek(Token![if]) {
        input.parse::<Token![if]>()?;
        Some(syn::Expr::parse_without_eager_brace(input)?)
    } else {
        None
    };
    let mut assignments = Vec::new();
    if input.peek(syn::token::Brace) {
        let content;
        syn::braced!(content in input);
        while !content.is_empty() {
            let target: Ident = content.parse()?;
            content.parse::<Token![=]>().map_err(|e| {
                syn::Error::new(e.span(), "expected `=`: an edge assigns symbols, `x = e;`")
            })?;
            let value: syn::Expr = content.parse()?;
            assignments.push(EdgeAssign { target, value });
            if !content.is_empty() {
                content.parse::<Token![;]>()?;
            }
        }
        if input.peek(Token![;]) {
            input.parse::<Token![;]>()?;
        }
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after the edge's assignments"));
        }
    } else {
        expect_semi(input, "the edge (or `{ x = e; }` with assignments)")?;
    }
    Ok(EdgeDecl {
        from,
        to,
        arrow: arrow.spans[0],
        condition,
        assignments,
    })
}
