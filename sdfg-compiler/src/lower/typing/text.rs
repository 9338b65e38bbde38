//! The user's syntax as the messages see it: parentheses and block tails
//! looked through, and source text spelled the way a person writes it (for
//! the `help:` lines).

use super::*;
use quote::ToTokens;

/// `(e)` and invisible groups -> `e`.
pub(crate) fn strip_parens(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip_parens(&p.expr),
        syn::Expr::Group(g) => strip_parens(&g.expr),
        other => other,
    }
}

/// The span of the first token of `e`, which is what syn's `Spanned::span`
/// gives on stable Rust (spans do not join there), found without printing
/// `e`: printing costs the size of the expression, and lowering asks at
/// every node, which made a 2,000-term sum take seconds.
pub(crate) fn first_span(e: &syn::Expr) -> Span {
    use syn::spanned::Spanned;
    let mut e = e;
    loop {
        e = match e {
            syn::Expr::Binary(b) if b.attrs.is_empty() => &b.left,
            syn::Expr::Cast(c) if c.attrs.is_empty() => &c.expr,
            syn::Expr::MethodCall(m) if m.attrs.is_empty() => &m.receiver,
            syn::Expr::Index(i) if i.attrs.is_empty() => &i.expr,
            syn::Expr::Field(f) if f.attrs.is_empty() => &f.base,
            syn::Expr::Call(c) if c.attrs.is_empty() => &c.func,
            syn::Expr::Unary(u) if u.attrs.is_empty() => return u.op.span(),
            other => return other.span(),
        };
    }
}

/// Whether `e` names `name` anywhere (a path of that one identifier).
pub(crate) fn mentions(e: &syn::Expr, name: &str) -> bool {
    mention(e, name).is_some()
}

/// The first place `e` names `name`.
pub(crate) fn mention(e: &syn::Expr, name: &str) -> Option<Span> {
    use syn::visit::Visit;
    struct Finder<'n> {
        name: &'n str,
        found: Option<Span>,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if self.found.is_none() && p.qself.is_none() && p.path.is_ident(self.name) {
                self.found = p.path.get_ident().map(|i| i.span());
            }
        }
    }
    let mut finder = Finder { name, found: None };
    finder.visit_expr(e);
    finder.found
}

/// The value expression at the end of a block (`{ ...; tail }`).
pub(crate) fn block_tail(block: &syn::Block) -> Option<&syn::Expr> {
    match block.stmts.last() {
        Some(syn::Stmt::Expr(e, None)) => Some(e),
        _ => None,
    }
}

/// The user's tokens of `e` as text for helps, with the spacing a person
/// would write (`A[i, j - 1]`, `x.sqrt()`).
pub(crate) fn source_text(e: &impl ToTokens) -> String {
    let mut text = e.to_token_stream().to_string();
    // `[(i, j)]` was `[i, j]` in the source (see parse::body).
    text = text.replace("[(", "[").replace(")]", "]");
    // `f (x)` -> `f(x)` after a name (not after an operator).
    let mut tight = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        let call = *c == ' '
            && chars.get(i + 1) == Some(&'(')
            && i > 0
            && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if !call {
            tight.push(*c);
        }
    }
    text = tight;
    for (from, to) in [
        (" :: ", "::"),
        (" [", "["),
        ("[ ", "["),
        (" ]", "]"),
        ("( ", "("),
        (" )", ")"),
        (" ,", ","),
        (" .", "."),
        (". ", "."),
        ("! ", "!"),
    ] {
        text = text.replace(from, to);
    }
    text
}

/// `text as ty`, parenthesized unless `text` is a name, a literal or an
/// element `A[...]`.
pub(super) fn cast_hint(text: &str, ty: ScalarType) -> String {
    let mut depth = 0i32;
    let mut simple = true;
    for c in text.chars() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            c if depth == 0 && !(c.is_alphanumeric() || c == '_' || c == '.') => simple = false,
            _ => {}
        }
    }
    if simple {
        format!("`{text} as {ty}`")
    } else {
        format!("`({text}) as {ty}`")
    }
}

/// `i, j, k` for a rank.
pub(crate) fn index_example(rank: usize) -> String {
    const NAMES: [&str; 6] = ["i", "j", "k", "l", "m", "n"];
    (0..rank)
        .map(|d| {
            NAMES
                .get(d)
                .map_or_else(|| format!("i{d}"), |n| n.to_string())
        })
        .collect::<Vec<_>>()
        .join(", ")
}
