//! Statements that assign a whole array or a slice of one, written as in
//! NumPy: array statements (`B[1..N-1] = 0.5 * (A[0..N-2] + A[2..N]);`,
//! `B = A * 2.0;`, `B += A;`) and library statements (`C = matmul(A, B);`,
//! `B = transpose(A);`, `S = reduce sum(A, axis 1);`).
//!
//! ```text
//! TARGET = VALUE;          TARGET: NAME or NAME[d0, d1, ...] (each an index or a range)
//! TARGET op= VALUE;        op: + - * /  (TARGET = TARGET op (VALUE))
//! TARGET = matmul(A, B);
//! TARGET = transpose(A);
//! TARGET = reduce (sum | max | min)(A [, axis K | , axes [K, ...]]);
//! ```
//!
//! The target and the value are kept as syn expressions (a multi-index as
//! a tuple, see `body`); `crate::lower` checks shapes and builds the maps.

use super::body::rewrite_multi_index;
use super::{AssignAst, AssignValue, LibraryAst, LibraryOp};
use crate::ir::{BinOp, WcrOp};
use proc_macro2::{Delimiter, Ident, Span, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};

/// The library operations, by the name they are called with.
pub(crate) const LIBRARY_NAMES: [&str; 3] = ["matmul", "transpose", "reduce"];

/// Whether the statement starting at `input` is an assignment (a name,
/// maybe indexed, then `=` or an update operator).
pub(super) fn starts_assignment(input: ParseStream) -> bool {
    let fork = input.fork();
    if fork.parse::<Ident>().is_err() {
        return false;
    }
    if fork.peek(syn::token::Bracket) {
        let _ = fork.parse::<proc_macro2::Group>();
    }
    fork.peek(syn::Token![=]) && !fork.peek(syn::Token![==])
        || fork.peek(syn::Token![+=])
        || fork.peek(syn::Token![-=])
        || fork.peek(syn::Token![*=])
        || fork.peek(syn::Token![/=])
}

/// `TARGET (=|op=) VALUE;` (see the module doc).
pub(super) fn parse_assignment(input: ParseStream) -> syn::Result<AssignAst> {
    let name: Ident = input.parse()?;
    let mut target_tokens: TokenStream = TokenTree::Ident(name.clone()).into();
    if input.peek(syn::token::Bracket) {
        let group: proc_macro2::Group = input.parse()?;
        target_tokens.extend([TokenTree::Group(group)]);
    }
    let target: syn::Expr = syn::parse2(rewrite_multi_index(target_tokens))?;
    let (op, span) = if input.peek(syn::Token![=]) {
        let eq: syn::Token![=] = input.parse()?;
        (None, eq.span)
    } else {
        let (op, span) = if let Ok(t) = input.parse::<syn::Token![+=]>() {
            (BinOp::Add, t.spans[0])
        } else if let Ok(t) = input.parse::<syn::Token![-=]>() {
            (BinOp::Sub, t.spans[0])
        } else if let Ok(t) = input.parse::<syn::Token![*=]>() {
            (BinOp::Mul, t.spans[0])
        } else {
            let t: syn::Token![/=] = input.parse()?;
            (BinOp::Div, t.spans[0])
        };
        (Some(op), span)
    };
    let mut rest: Vec<TokenTree> = Vec::new();
    while !input.is_empty() && !input.peek(syn::Token![;]) {
        rest.push(input.parse()?);
    }
    if !input.peek(syn::Token![;]) {
        return Err(input.error("expected `;` after the assigned value"));
    }
    input.parse::<syn::Token![;]>()?;
    if rest.is_empty() {
        return Err(syn::Error::new(span, "expected a value after `=`"));
    }
    let value = match library_call(&rest)? {
        Some(call) => AssignValue::Library(call),
        None => {
            let tokens: TokenStream = rest.into_iter().collect();
            AssignValue::Expr(syn::parse2(rewrite_multi_index(tokens))?)
        }
    };
    Ok(AssignAst {
        target,
        op,
        value,
        span,
    })
}

/// `matmul(A, B)`, `transpose(A)` or `reduce OP(A, ...)`; None for any
/// other value (an array expression).
fn library_call(tokens: &[TokenTree]) -> syn::Result<Option<LibraryAst>> {
    let (name, rest) = match tokens {
        [TokenTree::Ident(name), rest @ ..] if LIBRARY_NAMES.iter().any(|n| name == n) => {
            (name.clone(), rest)
        }
        _ => return Ok(None),
    };
    let (reduction, rest) = if name == "reduce" {
        match rest {
            [TokenTree::Ident(op), rest @ ..] => {
                let wcr = match op.to_string().as_str() {
                    "sum" => WcrOp::Sum,
                    "max" => WcrOp::Max,
                    "min" => WcrOp::Min,
                    other => {
                        return Err(syn::Error::new(
                            op.span(),
                            format!("`{other}` is not a reduction; write `reduce sum(...)`, `reduce max(...)` or `reduce min(...)`"),
                        ))
                    }
                };
                (Some((wcr, op.span())), rest)
            }
            _ => return Err(syn::Error::new(
                name.span(),
                "expected the reduction after `reduce`: `reduce sum(A)`, `reduce max(A, axis 1)`",
            )),
        }
    } else {
        (None, rest)
    };
    let args = match rest {
        [TokenTree::Group(g)] if g.delimiter() == Delimiter::Parenthesis => g.stream(),
        // `matmul(A, B) * 2.0` and the like: an array expression, which
        // lowering reports (a library call is a whole statement).
        [TokenTree::Group(g), ..]
            if g.delimiter() == Delimiter::Parenthesis && reduction.is_none() =>
        {
            return Ok(None)
        }
        _ => {
            return Err(syn::Error::new(
                name.span(),
                format!("expected `{name}(...)` as the whole value of the statement"),
            ))
        }
    };
    let (operands, axes) =
        (|input: ParseStream| arguments(input, reduction.is_some())).parse2(args)?;
    let op = match (name.to_string().as_str(), reduction) {
        ("matmul", _) => LibraryOp::MatMul,
        ("transpose", _) => LibraryOp::Transpose,
        (_, Some((wcr, span))) => LibraryOp::Reduce { wcr, span },
        _ => unreachable!("LIBRARY_NAMES"),
    };
    Ok(Some(LibraryAst {
        op,
        name,
        operands,
        axes,
    }))
}

/// The operands (container names) and, for a reduction, `axis K` or
/// `axes [K, ...]`.
#[allow(clippy::type_complexity)]
fn arguments(
    input: ParseStream,
    reduction: bool,
) -> syn::Result<(Vec<Ident>, Option<(Vec<syn::LitInt>, Span)>)> {
    let mut operands = Vec::new();
    let mut axes = None;
    while !input.is_empty() {
        let word: Ident = input.parse().map_err(|e| {
            syn::Error::new(e.span(), "expected a container name (the operands of a library statement are whole containers)")
        })?;
        if reduction && (word == "axis" || word == "axes") {
            let mut list = Vec::new();
            if input.peek(syn::token::Bracket) {
                let content;
                syn::bracketed!(content in input);
                let items = content
                    .parse_terminated(|p: ParseStream| p.parse::<syn::LitInt>(), syn::Token![,])?;
                list.extend(items);
            } else {
                list.push(input.parse::<syn::LitInt>()?);
            }
            axes = Some((list, word.span()));
        } else {
            if input.peek(syn::token::Bracket)
                || input.peek(syn::token::Paren)
                || input.peek(syn::Token![.])
            {
                return Err(input.error(format!(
                    "pass `{word}` whole: the operands of a library statement are containers; copy a slice into a transient first"
                )));
            }
            operands.push(word);
        }
        if input.is_empty() {
            break;
        }
        input.parse::<syn::Token![,]>()?;
    }
    Ok((operands, axes))
}
