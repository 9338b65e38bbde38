//! How deep an `sdfg!` invocation may nest (GUIDE section 11).
//!
//! The compiler's passes recurse over expressions, and so do syn's parser
//! and rustc on the generated code. The macro runs on a large stack
//! (sdfg-macros grows it), and these limits keep every input within it,
//! with an error at the user's token instead of a crash:
//! - an invocation has at most [`MAX_TOKENS`] tokens, and brackets,
//!   parentheses and braces nest at most [`MAX_GROUP_DEPTH`] deep, counted
//!   from the `sdfg`'s own braces (checked on the tokens, before anything
//!   recursive runs: syn's parser recurses at most once per token, so this
//!   bounds it too);
//! - an expression nests at most [`MAX_NESTING`] levels deep, where a chain
//!   `a + b + c + ...` or `x.f().g()` is one level (its operands and
//!   arguments one more): the generated Rust keeps such chains flat, and
//!   rustc parses them in a loop but recurses into every nested operand;
//! - an expression is at most [`MAX_EXPR_DEPTH`] operations deep, chains
//!   counted in full (the compiler's own passes recurse along them): a
//!   4,000-term sum is fine.
//!
//! The nesting checks run on the parsed expressions, before lowering.

use crate::diag::Diagnostic;
use proc_macro2::{Span, TokenStream, TokenTree};

/// Tokens of one invocation (a group counts as one, plus its contents).
pub const MAX_TOKENS: usize = 200_000;
/// Brackets, parentheses and braces, counted from the `sdfg`'s braces.
pub const MAX_GROUP_DEPTH: usize = 256;
/// Nesting of one expression, chains counted once.
pub const MAX_NESTING: usize = 256;
/// Operations on the deepest path of one expression's tree.
pub const MAX_EXPR_DEPTH: usize = 4096;

/// The first group deeper than [`MAX_GROUP_DEPTH`], as an error at its
/// opening delimiter, or the token past [`MAX_TOKENS`]. Iterative: any
/// input is safe here.
pub(crate) fn check_tokens(tokens: &TokenStream) -> Result<(), Diagnostic> {
    let mut stack = vec![tokens.clone().into_iter()];
    let mut count = 0usize;
    while let Some(top) = stack.last_mut() {
        let next = top.next();
        if let Some(t) = &next {
            count += 1;
            if count > MAX_TOKENS {
                return Err(Diagnostic::error(
                    t.span(),
                    format!("this `sdfg!` has more than {MAX_TOKENS} tokens"),
                )
                .help("split the program, or compute long expressions in parts with `let`")
                .note("the limit keeps the macro within its stack (GUIDE section 11)"));
            }
        }
        match next {
            Some(TokenTree::Group(g)) => {
                if stack.len() > MAX_GROUP_DEPTH {
                    return Err(too_deep(
                        g.span_open(),
                        "brackets, parentheses and braces nest",
                        MAX_GROUP_DEPTH,
                    ));
                }
                stack.push(g.stream().into_iter());
            }
            Some(_) => {}
            None => {
                stack.pop();
            }
        }
    }
    Ok(())
}

/// The first expression deeper than [`MAX_NESTING`] or [`MAX_EXPR_DEPTH`]
/// among `exprs` and the expressions of `stmts`, as an error at the operand
/// that passes the limit.
pub(crate) fn check_expr_depth<'a>(
    exprs: impl IntoIterator<Item = &'a syn::Expr>,
    stmts: impl IntoIterator<Item = &'a syn::Stmt>,
) -> Result<(), Diagnostic> {
    use syn::visit::Visit;
    let mut depth = Depth::default();
    for e in exprs {
        depth.visit_expr(e);
    }
    for s in stmts {
        depth.visit_stmt(s);
    }
    match depth.failed {
        Some(d) => Err(d),
        None => Ok(()),
    }
}

#[derive(Default)]
struct Depth {
    /// Operations on the path to the current expression.
    total: usize,
    /// Nesting levels on that path (a chain's continuation adds none).
    nesting: usize,
    /// The next expression continues a chain (a left operand, a receiver).
    chained: bool,
    failed: Option<Diagnostic>,
}

impl Depth {
    fn chain(&mut self, e: &syn::Expr) {
        self.chained = true;
        syn::visit::Visit::visit_expr(self, e);
    }
}

impl<'ast> syn::visit::Visit<'ast> for Depth {
    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        let nests = !std::mem::take(&mut self.chained);
        if self.failed.is_some() {
            return;
        }
        self.total += 1;
        self.nesting += usize::from(nests);
        let span = || syn::spanned::Spanned::span(e);
        if self.nesting > MAX_NESTING {
            self.failed = Some(too_deep(span(), "this expression nests", MAX_NESTING));
        } else if self.total > MAX_EXPR_DEPTH {
            self.failed = Some(too_deep(
                span(),
                "this expression has operations nested",
                MAX_EXPR_DEPTH,
            ));
        } else {
            match e {
                syn::Expr::Binary(b) => {
                    self.chain(&b.left);
                    self.visit_expr(&b.right);
                }
                syn::Expr::MethodCall(m) => {
                    self.chain(&m.receiver);
                    m.args.iter().for_each(|a| self.visit_expr(a));
                }
                _ => syn::visit::visit_expr(self, e),
            }
        }
        self.total -= 1;
        self.nesting -= usize::from(nests);
    }
}

fn too_deep(span: Span, what: &str, limit: usize) -> Diagnostic {
    Diagnostic::error(span, format!("{what} deeper than {limit} levels here"))
        .help("split the expression: bind parts of it to locals with `let`")
        .note("the limit keeps the macro and rustc within their stack (GUIDE section 11)")
}
