//! Tokens -> AST: the `sdfg!` grammar (DESIGN section 3, docs/GUIDE.md).
//!
//! The AST keeps syn types for the Rust-like parts (expressions, tasklet
//! bodies) and a span for every name; `crate::lower` resolves names and types
//! and is the last stage that sees syn.
//!
//! Errors are collected per item: the body of the SDFG is first split into
//! items at the token-tree level (an item ends at a top-level `;` or after a
//! `{ ... }` group), and each item is parsed on its own, so one syntax error
//! does not hide the others.

mod assign;
mod attributes;
mod block;
mod body;
pub mod external;
mod items;
pub mod limits;
mod raw;

pub use block::{
    BlockDataKind, BlockDeclAst, BlockForAst, BlockIfAst, BlockItemAst, BlockSpecAst, ThreadMapAst,
};

use crate::diag::suggest::{backticked, closest_name};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{
    BinOp, GraphPolicy, MapSchedule, ScalarType, Storage, StreamPolicy, SyncMode, WcrOp,
};
use proc_macro2::{Ident, Span, TokenStream};
use syn::parse::{ParseStream, Parser};

/// One `sdfg!` invocation.
#[derive(Clone, Debug)]
pub struct SdfgAst {
    pub name: Ident,
    /// The visibility tokens as written (`pub`, `pub(crate)`, or empty).
    pub vis: TokenStream,
    /// `///` lines, without the `///` (and without one leading space).
    pub docs: Vec<String>,
    /// `#[streams(...)]` and where it was written.
    pub streams: Option<(StreamPolicy, Span)>,
    /// `#[sync(...)]` and where it was written.
    pub sync: Option<(SyncMode, Span)>,
    /// `#[graph(...)]` and where it was written.
    pub graph: Option<(GraphPolicy, Span)>,
    pub items: Vec<Item>,
    /// `sdfg NAME = include "file.sdfg";`: the items come from a DaCe file
    /// (read by `crate::import`); `items` is empty until then.
    pub include: Option<IncludeAst>,
    /// The tokens inside the sdfg's braces, as written.
    pub body: TokenStream,
}

/// `include "path/to/file.sdfg"`: the path as written and the literal's span.
#[derive(Clone, Debug)]
pub struct IncludeAst {
    pub path: String,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Item {
    Symbol(SymbolDecl),
    Container(ContainerDecl),
    State(StateDecl),
    Edge(EdgeDecl),
    /// `sdfg NAME { ... }` inside an sdfg: a nested SDFG that the states of
    /// this sdfg (and of the sdfgs nested in it) may call.
    Nested(Box<SdfgAst>),
    /// `extern sdfg PATH [as NAME];`: a nested SDFG defined by another
    /// `sdfg!` (its source arrives through that program's replay macro,
    /// DESIGN section 9).
    Extern(ExternDecl),
}

/// `extern sdfg PATH [as NAME];`
#[derive(Clone, Debug)]
pub struct ExternDecl {
    /// The program's path (its replay macro has the same path).
    pub path: syn::Path,
    /// The name calls use: `NAME`, else the path's last segment.
    pub name: Ident,
    /// The `extern` keyword.
    pub span: Span,
    /// The program's items as a nested SDFG named `name`, and the tokens
    /// they came from, once its replay macro delivered them.
    pub source: Option<(Box<SdfgAst>, TokenStream)>,
}

/// A type name as written (`i32`, `f64`, ...).
#[derive(Clone, Copy, Debug)]
pub struct TypeName {
    pub ty: ScalarType,
    pub span: Span,
}

/// `symbol NAME: TYPE;`
#[derive(Clone, Debug)]
pub struct SymbolDecl {
    pub name: Ident,
    pub ty: TypeName,
}

/// `[transient] (host|pinned|gpu) NAME: ELEM[SHAPE, ...];`
#[derive(Clone, Debug)]
pub struct ContainerDecl {
    pub transient: bool,
    pub storage: Storage,
    pub name: Ident,
    pub elem: TypeName,
    /// Empty for a scalar.
    pub shape: Vec<syn::Expr>,
}

/// `[#[start]] [#[persistent]] state NAME { statements }`
#[derive(Clone, Debug)]
pub struct StateDecl {
    /// The span of `#[start]` when present.
    pub start: Option<Span>,
    /// The span of `#[persistent]` when present: the state's loop over
    /// itself runs as one kernel (`validate::persistent` checks the state).
    pub persistent: Option<Span>,
    pub name: Ident,
    pub stmts: Vec<StmtAst>,
}

#[derive(Clone, Debug)]
pub enum StmtAst {
    Map(MapAst),
    Tasklet(TaskletAst),
    Copy(CopyAst),
    Wait(WaitAst),
    Call(CallAst),
    /// An array or library statement: `B[1..N] = A[0..N-1] * 2.0;`,
    /// `C = matmul(A, B);` (`assign.rs`).
    Assign(Box<AssignAst>),
}

/// `TARGET = VALUE;` or `TARGET op= VALUE;` on whole arrays or slices.
#[derive(Clone, Debug)]
pub struct AssignAst {
    /// `B` or `B[d0, d1, ...]` (a multi-index as a tuple, see `body`).
    pub target: syn::Expr,
    /// `+=`, `-=`, `*=`, `/=`: `TARGET = TARGET op (VALUE)`.
    pub op: Option<BinOp>,
    pub value: AssignValue,
    /// The `=` (or `op=`) token.
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum AssignValue {
    /// An element-wise expression over arrays, slices and scalars.
    Expr(syn::Expr),
    /// `matmul(A, B)`, `transpose(A)`, `reduce sum(A, axis 1)`.
    Library(LibraryAst),
}

/// A library call: the operation, its name token, its operands (whole
/// containers) and a reduction's axes as written.
#[derive(Clone, Debug)]
pub struct LibraryAst {
    pub op: LibraryOp,
    pub name: Ident,
    pub operands: Vec<Ident>,
    /// `axis K` / `axes [K, ...]` and the span of the keyword.
    pub axes: Option<(Vec<syn::LitInt>, Span)>,
}

#[derive(Clone, Copy, Debug)]
pub enum LibraryOp {
    MatMul,
    Transpose,
    /// `reduce sum|max|min`, with the span of the operator's name.
    Reduce {
        wcr: WcrOp,
        span: Span,
    },
}

/// `map NAME[p in a..b, ...] on gpu|cpu|seq [block(...)] { BODY }`, or a
/// GPU tasklet `tasklet NAME on gpu { BODY }` (no parameters).
#[derive(Clone, Debug)]
pub struct MapAst {
    pub name: Ident,
    pub params: Vec<MapParamAst>,
    pub schedule: MapSchedule,
    pub schedule_span: Span,
    /// The body of a flat map (empty when `block_body` is set).
    pub body: Vec<syn::Stmt>,
    /// `block(...)` after `on gpu`: a block map.
    pub block: Option<BlockSpecAst>,
    /// The body as block items: for a block map, and for any body that uses
    /// block syntax (thread maps, `shared`, `register`) where it does not
    /// belong, so lowering can say so.
    pub block_body: Option<Vec<BlockItemAst>>,
    /// `tasklet NAME on gpu { ... }`.
    pub gpu_tasklet: bool,
    /// `#[independent(A, B)]`: containers the user vouches no two
    /// iterations share an element of (the race test then trusts them).
    pub independent: Vec<Ident>,
}

/// `p in RANGE`: RANGE is `a..b`, `a..=b` or `(a..b).step_by(s)` (checked when lowering).
#[derive(Clone, Debug)]
pub struct MapParamAst {
    pub name: Ident,
    pub range: syn::Expr,
}

/// `tasklet NAME { BODY }`
#[derive(Clone, Debug)]
pub struct TaskletAst {
    pub name: Ident,
    pub body: Vec<syn::Stmt>,
    /// The body as block items when it uses block syntax (an error: lowering
    /// reports where it belongs).
    pub block_body: Option<Vec<BlockItemAst>>,
}

/// `copy SRC[subset] -> DST[subset];`
#[derive(Clone, Debug)]
pub struct CopyAst {
    /// The `copy` keyword.
    pub span: Span,
    pub src: Ident,
    /// None: the whole container.
    pub src_subset: Option<SubsetAst>,
    pub dst: Ident,
    pub dst_subset: Option<SubsetAst>,
}

/// `[d0, d1, ...]`: each entry an index or a range `a..b` / `a..=b`.
#[derive(Clone, Debug)]
pub struct SubsetAst {
    pub dims: Vec<syn::Expr>,
    /// The brackets.
    pub span: Span,
}

/// `wait NAME;`
#[derive(Clone, Debug)]
pub struct WaitAst {
    /// The `wait` keyword.
    pub span: Span,
    pub name: Ident,
}

/// `NAME(arg = value, ...);`: a call of the nested SDFG `NAME`. Each
/// argument names a symbol of the callee (the value is an expression over
/// the caller's symbols) or one of its argument containers (the value is a
/// container of the caller, `X`, or a subset of one, `X[0..N, 2]`).
#[derive(Clone, Debug)]
pub struct CallAst {
    pub name: Ident,
    pub args: Vec<CallArg>,
    /// The parentheses.
    pub span: Span,
}

/// `name = value` in a call (the value's tokens were rewritten by
/// `rewrite_multi_index`, so `X[0..N, 2]` is an index by a tuple).
#[derive(Clone, Debug)]
pub struct CallArg {
    pub name: Ident,
    pub value: syn::Expr,
}

/// `from -> to [if COND] [{ x = e; ... }]`
#[derive(Clone, Debug)]
pub struct EdgeDecl {
    pub from: Ident,
    pub to: Ident,
    /// The `->` token.
    pub arrow: Span,
    pub condition: Option<syn::Expr>,
    pub assignments: Vec<EdgeAssign>,
}

/// `x = e` on an edge.
#[derive(Clone, Debug)]
pub struct EdgeAssign {
    pub target: Ident,
    pub value: syn::Expr,
}

/// Parses one `sdfg!` invocation; every syntax error of every item at once.
pub fn parse(tokens: TokenStream) -> Result<SdfgAst, Diagnostics> {
    limits::check_tokens(&tokens)?;
    let mut diags = Diagnostics::new();
    let header = (|input: ParseStream| items::parse_header(input, &mut diags)).parse2(tokens);
    let header = match header {
        Ok(h) => h,
        Err(e) => {
            diags.extend(e.into());
            return Err(diags);
        }
    };
    let items = match parse_items(header.body.clone()) {
        Ok(items) => items,
        Err(errors) => {
            diags.extend(errors);
            Vec::new()
        }
    };
    let mut ast = SdfgAst {
        name: header.name,
        vis: header.vis,
        docs: header.docs,
        streams: header.streams,
        sync: header.sync,
        graph: header.graph,
        items,
        include: header.include,
        body: header.body,
    };
    raw::unraw_ast(&mut ast);
    external::attach_sources(&mut ast, header.sources);
    diags.finish(ast)
}

/// The items of an sdfg body (what is inside `sdfg NAME { ... }`).
pub fn parse_items(body: TokenStream) -> Result<Vec<Item>, Diagnostics> {
    let mut diags = Diagnostics::new();
    let mut items = Vec::new();
    for chunk in split_items(body, ITEM_KEYWORDS) {
        let end = last_span(&chunk);
        match (|input: ParseStream| items::parse_item(input, &mut diags)).parse2(chunk) {
            Ok(Some(item)) => items.push(item),
            Ok(None) => {}
            Err(e) => diags.extend(at_end_of_chunk(e, end).into()),
        }
    }
    if let Err(d) = expression_depth(&items) {
        diags.push(d);
    }
    diags.finish(items)
}

/// [`limits::check_expr_depth`] over every expression of the items.
fn expression_depth(items: &[Item]) -> Result<(), Diagnostic> {
    let mut exprs: Vec<&syn::Expr> = Vec::new();
    let mut stmts: Vec<&syn::Stmt> = Vec::new();
    for item in items {
        match item {
            Item::Symbol(_) => {}
            Item::Container(c) => exprs.extend(&c.shape),
            Item::State(s) => {
                for st in &s.stmts {
                    match st {
                        StmtAst::Map(m) => {
                            exprs.extend(m.params.iter().map(|p| &p.range));
                            stmts.extend(&m.body);
                        }
                        StmtAst::Tasklet(t) => stmts.extend(&t.body),
                        StmtAst::Copy(c) => {
                            for subset in [&c.src_subset, &c.dst_subset].into_iter().flatten() {
                                exprs.extend(&subset.dims);
                            }
                        }
                        StmtAst::Wait(_) => {}
                        StmtAst::Call(c) => exprs.extend(c.args.iter().map(|a| &a.value)),
                        StmtAst::Assign(a) => {
                            exprs.push(&a.target);
                            if let AssignValue::Expr(e) = &a.value {
                                exprs.push(e);
                            }
                        }
                    }
                }
            }
            Item::Edge(e) => {
                exprs.extend(&e.condition);
                exprs.extend(e.assignments.iter().map(|a| &a.value));
            }
            // Checked when its own items were parsed.
            Item::Nested(_) | Item::Extern(_) => {}
        }
    }
    limits::check_expr_depth(exprs, stmts)
}

/// Keywords that start a top-level item.
pub(crate) const ITEM_KEYWORDS: &[&str] = &[
    "symbol",
    "transient",
    "host",
    "pinned",
    "gpu",
    "state",
    "sdfg",
    "extern",
];
/// Keywords that start a statement in a state.
pub(crate) const STATEMENT_KEYWORDS: &[&str] = &["map", "tasklet", "copy", "wait"];

/// Splits a list of items (or of statements) at the token-tree level: an item
/// ends after a top-level `;`, or after a `{ ... }` group (and a `;` right
/// after that group belongs to it). To recover from a missing `;`, a chunk
/// also ends before one of `keywords` when that word cannot continue the
/// chunk (it does not follow another word, `->`, `:` or an attribute).
/// Trailing tokens form a last chunk, whose parser then reports what is
/// missing.
pub(crate) fn split_items(tokens: TokenStream, keywords: &[&str]) -> Vec<TokenStream> {
    use proc_macro2::{Delimiter, TokenTree};
    let mut chunks = Vec::new();
    let mut current: Vec<TokenTree> = Vec::new();
    let mut iter = tokens.into_iter().peekable();
    while let Some(tt) = iter.next() {
        if let TokenTree::Ident(word) = &tt {
            let continues = match current.last() {
                None => true,
                Some(TokenTree::Ident(_)) => true,
                Some(TokenTree::Punct(p)) => matches!(p.as_char(), '>' | ':' | '-' | '#'),
                Some(TokenTree::Group(g)) => {
                    g.delimiter() == Delimiter::Bracket
                        && matches!(current.iter().rev().nth(1), Some(TokenTree::Punct(p)) if p.as_char() == '#')
                }
                Some(TokenTree::Literal(_)) => false,
            };
            if !continues && keywords.iter().any(|k| word == k) {
                chunks.push(current.drain(..).collect());
            }
        }
        let ends = match &tt {
            TokenTree::Punct(p) => p.as_char() == ';',
            TokenTree::Group(g) => g.delimiter() == Delimiter::Brace,
            _ => false,
        };
        let is_brace = matches!(&tt, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace);
        current.push(tt);
        if ends {
            if is_brace {
                if let Some(TokenTree::Punct(p)) = iter.peek() {
                    if p.as_char() == ';' {
                        current.extend(iter.next());
                    }
                }
            }
            chunks.push(current.drain(..).collect());
        }
    }
    if !current.is_empty() {
        chunks.push(current.into_iter().collect());
    }
    chunks
}

/// The span of the last token of `tokens`.
pub(crate) fn last_span(tokens: &TokenStream) -> Span {
    tokens
        .clone()
        .into_iter()
        .last()
        .map_or_else(Span::call_site, |t| t.span())
}

/// syn reports a missing token at the end of a chunk at the macro call
/// site; point at the chunk's last token instead.
pub(crate) fn at_end_of_chunk(e: syn::Error, end: Span) -> syn::Error {
    let mut out: Option<syn::Error> = None;
    for err in e {
        let text = err.to_string();
        let fixed = match text.strip_prefix("unexpected end of input, ") {
            Some(rest) => syn::Error::new(end, rest),
            None if text == "unexpected end of input" => syn::Error::new(end, "this is incomplete"),
            None => err,
        };
        match &mut out {
            Some(o) => o.combine(fixed),
            None => out = Some(fixed),
        }
    }
    out.unwrap_or_else(|| syn::Error::new(end, "syntax error"))
}

/// A syn error whose text carries a `help:` the way [`Diagnostic::text`]
/// renders one.
pub(crate) fn error_with_help(span: Span, message: String, help: String) -> syn::Error {
    syn::Error::new(span, Diagnostic::error(span, message).help(help).text())
}

/// Resolves a type name; unknown names get a help listing the element types.
pub(crate) fn type_name(ident: &Ident) -> Result<TypeName, Diagnostic> {
    let text = ident.to_string();
    match ScalarType::from_rust_name(&text) {
        Some(ty) => Ok(TypeName {
            ty,
            span: ident.span(),
        }),
        None => {
            let names: Vec<&str> = ScalarType::ALL.iter().map(|t| t.rust_name()).collect();
            let mut d = Diagnostic::error(ident.span(), format!("unknown type `{text}`"));
            d = match closest_name(&text, names.iter().copied()) {
                Some(c) => d.help(format!("did you mean `{c}`?")),
                None => d.help(format!("the element types are {}", backticked(&names))),
            };
            Err(d)
        }
    }
}
