//! Expressions: syn -> typed `ir::Expr`, bidirectionally.
//!
//! `expr(e, expected)` lowers `e` and checks it has the expected type. The
//! expected type flows down into operands, so unsuffixed literals take the
//! type their context needs (`x * 2.0` with `x: f32` makes `2.0` an `f32`).
//! Where nothing constrains a *flexible* expression (one whose type would
//! come only from unsuffixed literals), it gets Rust's default: `i32` (or
//! `i64` when a literal does not fit `i32`) for integers, `f64` for floats.
//! Binary operands are unified the same way: the side with a type of its own
//! is lowered first and the other side is checked against it.

use super::*;
use crate::ir::Stmt;
use quote::ToTokens;
use std::collections::HashMap;
use syn::spanned::Spanned;

/// Where an expression appears; decides which names it may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScopeKind {
    /// A tasklet or map body: locals, map parameters, symbols, containers.
    Body,
    /// An interstate edge: symbols and host containers.
    Edge,
    /// A map range: symbols and literals.
    MapRange,
    /// A container shape: symbols and literals.
    Shape,
    /// A copy subset: symbols and literals.
    Subset,
}

impl ScopeKind {
    fn allows_containers(self) -> bool {
        matches!(self, ScopeKind::Body | ScopeKind::Edge)
    }
    fn describe(self) -> &'static str {
        match self {
            ScopeKind::Body => "a tasklet",
            ScopeKind::Edge => "an interstate edge",
            ScopeKind::MapRange => "a map range",
            ScopeKind::Shape => "a container's shape",
            ScopeKind::Subset => "a copy subset",
        }
    }
}

/// The names visible to an expression, and the statements that a value
/// block hoists in front of the current statement.
pub(crate) struct Scope {
    pub kind: ScopeKind,
    /// Map parameters (name, type); `VarRef::Param(n)` is `params[n]`.
    pub params: Vec<(String, ScalarType)>,
    /// Every local of the body (`TaskletBody::locals`).
    pub locals: Vec<Local>,
    /// Per local: a `for` loop variable.
    pub loop_vars: Vec<bool>,
    /// Per local: its initializer had an error (uses stay silent).
    pub poisoned: Vec<bool>,
    /// Locals in scope, innermost last.
    pub visible: Vec<(String, LocalId)>,
    /// Conditions under which the expression being lowered is evaluated
    /// (right side of `&&`/`||`, branches of a value `if`).
    pub guards: Vec<Expr>,
    /// Statements to emit before the current statement.
    pub prelude: Vec<Stmt>,
    /// Per local: its type is still open (a `let` without a type whose value
    /// has only unsuffixed literals, during the probe pass of `body`), with
    /// the key of its `let` in `hints`.
    pub open: Vec<Option<LetKey>>,
    /// The type the uses of each open `let` asked for in the probe pass.
    pub hints: HashMap<LetKey, ScalarType>,
    /// This is the probe pass: open locals take the type their uses expect.
    pub probing: bool,
}

impl Scope {
    pub fn new(kind: ScopeKind) -> Scope {
        Scope {
            kind,
            params: Vec::new(),
            locals: Vec::new(),
            loop_vars: Vec::new(),
            poisoned: Vec::new(),
            visible: Vec::new(),
            guards: Vec::new(),
            prelude: Vec::new(),
            open: Vec::new(),
            hints: HashMap::new(),
            probing: false,
        }
    }

    pub fn declare_local(
        &mut self,
        local: Local,
        loop_var: bool,
        poisoned: bool,
        open: Option<LetKey>,
    ) -> LocalId {
        let id = self.locals.len();
        self.open.push(open);
        self.visible.push((local.name.clone(), id));
        self.locals.push(local);
        self.loop_vars.push(loop_var);
        self.poisoned.push(poisoned);
        id
    }
}

/// Identifies a `let` statement across the two passes of `Lowerer::body`,
/// which walk the same syn tree: its address.
pub(crate) type LetKey = usize;

/// What a name refers to.
pub(crate) enum Resolved {
    Local(LocalId),
    Param(usize),
    Symbol(SymbolId),
    Container(ContainerId),
    Unknown,
}

/// A lowered range `start..end` (end exclusive) with an optional step.
pub(crate) struct LoweredRange {
    pub ty: ScalarType,
    pub start: Expr,
    pub end: Expr,
    pub step: Option<Expr>,
}

/// `(e)` and invisible groups -> `e`.
pub(crate) fn strip_parens(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip_parens(&p.expr),
        syn::Expr::Group(g) => strip_parens(&g.expr),
        other => other,
    }
}

/// The value expression at the end of a block (`{ ...; tail }`).
pub(crate) fn block_tail(block: &syn::Block) -> Option<&syn::Expr> {
    match block.stmts.last() {
        Some(syn::Stmt::Expr(e, None)) => Some(e),
        _ => None,
    }
}

fn is_arith(op: &syn::BinOp) -> bool {
    use syn::BinOp as B;
    matches!(
        op,
        B::Add(_)
            | B::Sub(_)
            | B::Mul(_)
            | B::Div(_)
            | B::Rem(_)
            | B::BitAnd(_)
            | B::BitOr(_)
            | B::BitXor(_)
    )
}

fn is_shift(op: &syn::BinOp) -> bool {
    matches!(op, syn::BinOp::Shl(_) | syn::BinOp::Shr(_))
}

/// True when the type of `e` comes only from unsuffixed literals (or, while
/// inferring, from symbols whose type is still unknown).
pub(crate) fn is_flexible(cx: &Lowerer, sc: &Scope, e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.suffix().is_empty(),
            syn::Lit::Float(f) => f.suffix().is_empty(),
            _ => false,
        },
        syn::Expr::Paren(p) => is_flexible(cx, sc, &p.expr),
        syn::Expr::Group(g) => is_flexible(cx, sc, &g.expr),
        syn::Expr::Unary(u) => {
            matches!(u.op, syn::UnOp::Neg(_) | syn::UnOp::Not(_)) && is_flexible(cx, sc, &u.expr)
        }
        syn::Expr::Binary(b) if is_arith(&b.op) => {
            is_flexible(cx, sc, &b.left) && is_flexible(cx, sc, &b.right)
        }
        syn::Expr::Binary(b) if is_shift(&b.op) => is_flexible(cx, sc, &b.left),
        syn::Expr::If(i) => {
            let then = block_tail(&i.then_branch).is_some_and(|t| is_flexible(cx, sc, t));
            let else_ = i
                .else_branch
                .as_ref()
                .is_some_and(|(_, e)| is_flexible(cx, sc, e));
            then && else_
        }
        syn::Expr::Block(b) => block_tail(&b.block).is_some_and(|t| is_flexible(cx, sc, t)),
        syn::Expr::MethodCall(m) => {
            let receiver = is_flexible(cx, sc, &m.receiver);
            match m.method.to_string().as_str() {
                "min" | "max" | "powf" => receiver && m.args.iter().all(|a| is_flexible(cx, sc, a)),
                _ => receiver,
            }
        }
        syn::Expr::Path(p) => match p.path.get_ident() {
            Some(ident) => match cx.resolve(sc, &ident.to_string()) {
                Resolved::Symbol(s) => cx.symbol_types[s].is_none(),
                Resolved::Local(l) => sc.is_open(l),
                _ => false,
            },
            None => false,
        },
        _ => false,
    }
}

/// The default type of a flexible expression: from its first literal
/// (integers: `i32`, or `i64` when some integer literal of `exprs` does not
/// fit `i32`; floats: `f64`). None when it has no literal.
pub(crate) fn default_type(e: &syn::Expr) -> Option<ScalarType> {
    default_type_of(&[e])
}

pub(crate) fn default_type_of(exprs: &[&syn::Expr]) -> Option<ScalarType> {
    let first = exprs.iter().find_map(|e| first_literal_type(e))?;
    if first == ScalarType::I32 && exprs.iter().any(|e| has_wide_int_literal(e, false)) {
        return Some(ScalarType::I64);
    }
    Some(first)
}

fn first_literal_type(e: &syn::Expr) -> Option<ScalarType> {
    match e {
        syn::Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(_) => Some(ScalarType::I32),
            syn::Lit::Float(_) => Some(ScalarType::F64),
            _ => None,
        },
        syn::Expr::Paren(p) => first_literal_type(&p.expr),
        syn::Expr::Group(g) => first_literal_type(&g.expr),
        syn::Expr::Unary(u) => first_literal_type(&u.expr),
        syn::Expr::Binary(b) if is_arith(&b.op) => {
            first_literal_type(&b.left).or_else(|| first_literal_type(&b.right))
        }
        syn::Expr::Binary(b) if is_shift(&b.op) => first_literal_type(&b.left),
        syn::Expr::If(i) => block_tail(&i.then_branch)
            .and_then(first_literal_type)
            .or_else(|| {
                i.else_branch
                    .as_ref()
                    .and_then(|(_, e)| first_literal_type(e))
            }),
        syn::Expr::Block(b) => block_tail(&b.block).and_then(first_literal_type),
        syn::Expr::MethodCall(m) => {
            first_literal_type(&m.receiver).or_else(|| m.args.iter().find_map(first_literal_type))
        }
        _ => None,
    }
}

/// Whether an unsuffixed integer literal in `e` does not fit `i32`.
fn has_wide_int_literal(e: &syn::Expr, negative: bool) -> bool {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => match i.base10_parse::<u128>() {
            Ok(v) => {
                let limit = if negative {
                    1u128 << 31
                } else {
                    (1u128 << 31) - 1
                };
                i.suffix().is_empty() && v > limit
            }
            Err(_) => false,
        },
        syn::Expr::Paren(p) => has_wide_int_literal(&p.expr, negative),
        syn::Expr::Group(g) => has_wide_int_literal(&g.expr, negative),
        syn::Expr::Unary(u) => {
            has_wide_int_literal(&u.expr, matches!(u.op, syn::UnOp::Neg(_)) && !negative)
        }
        syn::Expr::Binary(b) => {
            has_wide_int_literal(&b.left, false) || has_wide_int_literal(&b.right, false)
        }
        syn::Expr::Range(r) => {
            r.start
                .as_ref()
                .is_some_and(|s| has_wide_int_literal(s, false))
                || r.end
                    .as_ref()
                    .is_some_and(|s| has_wide_int_literal(s, false))
        }
        syn::Expr::MethodCall(m) => {
            has_wide_int_literal(&m.receiver, false)
                || m.args.iter().any(|a| has_wide_int_literal(a, false))
        }
        _ => false,
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
fn cast_hint(text: &str, ty: ScalarType) -> String {
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

pub(crate) fn zero(ty: ScalarType) -> Value {
    Value::from_bits(ty, 0)
}

fn and_all(guards: &[Expr]) -> Option<Expr> {
    let mut iter = guards.iter().cloned();
    let first = iter.next()?;
    Some(iter.fold(first, |acc, g| {
        let span = g.span;
        Expr::new(
            ExprKind::Binary {
                op: BinOp::And,
                lhs: Box::new(acc),
                rhs: Box::new(g),
            },
            ScalarType::Bool,
            span,
        )
    }))
}

fn not(e: Expr) -> Expr {
    let span = e.span;
    Expr::new(
        ExprKind::Unary {
            op: UnOp::Not,
            arg: Box::new(e),
        },
        ScalarType::Bool,
        span,
    )
}

impl Scope {
    /// Records the type a use of the open local `id` asks for (first wins).
    pub fn hint(&mut self, id: LocalId, ty: ScalarType) {
        if let Some(Some(key)) = self.open.get(id) {
            self.hints.entry(*key).or_insert(ty);
        }
    }

    /// Whether `id` is a local whose type is still open.
    pub fn is_open(&self, id: LocalId) -> bool {
        matches!(self.open.get(id), Some(Some(_)))
    }
}

impl<'a> Lowerer<'a> {
    /// The default type of a flexible group. While inferring, a group that
    /// mentions a symbol of unknown type has none yet: defaulting it would
    /// fix the symbol's type before its real uses are seen.
    fn default_for(&self, sc: &Scope, exprs: &[&syn::Expr]) -> Option<ScalarType> {
        if (self.inferring || sc.probing)
            && exprs.iter().any(|e| self.mentions_unknown_symbol(sc, e))
        {
            return None;
        }
        default_type_of(exprs)
    }

    fn mentions_unknown_symbol(&self, sc: &Scope, e: &syn::Expr) -> bool {
        struct Finder<'c, 'a> {
            cx: &'c Lowerer<'a>,
            sc: &'c Scope,
            found: bool,
        }
        impl<'ast> syn::visit::Visit<'ast> for Finder<'_, '_> {
            fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
                if let Some(ident) = p.path.get_ident() {
                    match self.cx.resolve(self.sc, &ident.to_string()) {
                        Resolved::Symbol(s) => self.found |= self.cx.symbol_types[s].is_none(),
                        Resolved::Local(l) => self.found |= self.sc.is_open(l),
                        _ => {}
                    }
                }
            }
        }
        let mut finder = Finder {
            cx: self,
            sc,
            found: false,
        };
        syn::visit::Visit::visit_expr(&mut finder, e);
        finder.found
    }

    /// What `name` refers to: a local (innermost first), a map parameter, a
    /// symbol or a container.
    pub(crate) fn resolve(&self, sc: &Scope, name: &str) -> Resolved {
        if let Some((_, id)) = sc.visible.iter().rev().find(|(n, _)| n == name) {
            return Resolved::Local(*id);
        }
        if let Some(n) = sc.params.iter().position(|(p, _)| p == name) {
            return Resolved::Param(n);
        }
        if let Some(s) = self.symbols.iter().position(|s| s.name.text == name) {
            return Resolved::Symbol(s);
        }
        if let Some(c) = self.containers.iter().position(|c| c.name.text == name) {
            return Resolved::Container(c);
        }
        Resolved::Unknown
    }

    /// Every name `sc` can see, for suggestions.
    fn visible_names(&self, sc: &Scope) -> Vec<String> {
        let mut names: Vec<String> = sc.visible.iter().map(|(n, _)| n.clone()).collect();
        names.extend(sc.params.iter().map(|(n, _)| n.clone()));
        names.extend(self.symbols.iter().map(|s| s.name.text.clone()));
        if sc.kind.allows_containers() {
            names.extend(self.containers.iter().map(|c| c.name.text.clone()));
        }
        names
    }

    pub(crate) fn unknown_name(&mut self, sc: &Scope, ident: &proc_macro2::Ident) {
        let text = ident.to_string();
        let names = self.visible_names(sc);
        let mut d = Diagnostic::error(ident.span(), format!("cannot find `{text}` in this sdfg"));
        d = match closest_name(&text, names.iter().map(String::as_str)) {
            Some(c) => d.help(format!("did you mean `{c}`?")),
            None => match sc.kind {
                ScopeKind::Body => d.help(format!(
                    "declare it: `let {text} = ...;` in the body, or `symbol {text}: i64;` / a container in the sdfg"
                )),
                _ => d.help(format!("declare it: `symbol {text}: i64;`")),
            },
        };
        self.error(d);
    }

    /// Lowers `e` and checks that it has type `expected` (when given).
    pub(crate) fn expr(
        &mut self,
        sc: &mut Scope,
        e: &syn::Expr,
        expected: Option<ScalarType>,
    ) -> Option<Expr> {
        let expected = match expected {
            Some(t) => Some(t),
            None if is_flexible(self, sc, e) => self.default_for(sc, &[e]),
            None => None,
        };
        let out = self.synth(sc, e, expected)?;
        if let Some(t) = expected {
            if out.ty != t {
                self.mismatch(e, t, out.ty);
                return None;
            }
        }
        Some(out)
    }

    /// `e` must be an integer (shapes, indices, subsets).
    pub(crate) fn integer_expr(
        &mut self,
        sc: &mut Scope,
        e: &syn::Expr,
        what: &str,
    ) -> Option<Expr> {
        let out = self.expr(sc, e, None)?;
        if !out.ty.is_integer() {
            let text = source_text(e);
            self.error(
                Diagnostic::error(
                    e.span(),
                    format!("{what} must be an integer, found `{}`", out.ty),
                )
                .help(format!("convert it: {}", cast_hint(&text, ScalarType::I64))),
            );
            return None;
        }
        Some(out)
    }

    pub(crate) fn mismatch(&mut self, e: &syn::Expr, expected: ScalarType, found: ScalarType) {
        let text = source_text(e);
        let mut d = Diagnostic::error(
            e.span(),
            format!("mismatched types: expected `{expected}`, found `{found}`"),
        );
        d = if expected.is_numeric() && found.is_numeric() {
            d.help(format!("convert it: {}", cast_hint(&text, expected)))
                .note("the tasklet language has no implicit conversions")
        } else if expected == ScalarType::Bool && found.is_numeric() {
            d.help(format!("compare it to get a `bool`, e.g. `{text} != 0`"))
        } else if found == ScalarType::Bool && expected.is_integer() {
            d.help(format!(
                "convert it: {} (a bool converts to 0 or 1)",
                cast_hint(&text, expected)
            ))
        } else {
            d.note("the tasklet language has no implicit conversions")
        };
        self.error(d);
    }

    fn unsupported(&mut self, e: &syn::Expr, help: &str) -> Option<Expr> {
        self.error(
            Diagnostic::error(
                e.span(),
                format!(
                    "`{}` is not supported in the tasklet language",
                    source_text(e)
                ),
            )
            .help(help.to_string()),
        );
        None
    }

    /// Lowers `e`; `expected` guides literals and operands, but the result
    /// may still have another type (checked by `expr`).
    fn synth(
        &mut self,
        sc: &mut Scope,
        e: &syn::Expr,
        expected: Option<ScalarType>,
    ) -> Option<Expr> {
        match e {
            syn::Expr::Lit(l) => self.literal(&l.lit, false, expected, e.span()),
            syn::Expr::Paren(p) => self.synth(sc, &p.expr, expected),
            syn::Expr::Group(g) => self.synth(sc, &g.expr, expected),
            syn::Expr::Path(p) => self.path_expr(sc, p, expected),
            syn::Expr::Index(ix) => {
                let (container, index) = self.element(sc, ix)?;
                let ty = self.containers[container].elem;
                Some(Expr::new(ExprKind::Load { container, index }, ty, e.span()))
            }
            syn::Expr::Unary(u) => self.unary(sc, u, expected),
            syn::Expr::Binary(b) => self.binary(sc, b, expected),
            syn::Expr::Cast(c) => self.cast(sc, c),
            syn::Expr::If(i) => self.select(sc, i, expected),
            syn::Expr::Block(b) => {
                if b.label.is_some() {
                    return self.unsupported(e, "remove the label");
                }
                self.value_block(sc, &b.block, expected)
            }
            syn::Expr::MethodCall(m) => self.math_call(sc, m, expected),
            syn::Expr::Range(_) => self.unsupported(
                e,
                "a range is only allowed in a `for` loop or a map's header: `for k in 0..N { ... }`",
            ),
            syn::Expr::Assign(_) => self.unsupported(
                e,
                "an assignment is a statement: end it with `;` and use the value after it",
            ),
            syn::Expr::Call(c) => {
                let name = match &*c.func {
                    syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                    _ => None,
                };
                match name.as_deref().and_then(MathFn::from_method_name) {
                    Some(f) => {
                        let args: Vec<String> = c.args.iter().map(source_text).collect();
                        let receiver = args.first().map_or("x".to_string(), |a| {
                            if a.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.') {
                                a.clone()
                            } else {
                                format!("({a})")
                            }
                        });
                        let rest = args.get(1..).unwrap_or_default().join(", ");
                        self.unsupported(
                            e,
                            &format!("call it as a method: `{receiver}.{}({rest})`", f.method_name()),
                        )
                    }
                    None => self.unsupported(
                        e,
                        "functions cannot be called; the math methods are `x.sqrt()`, `x.abs()`, `x.exp()`, `x.ln()`, `x.sin()`, `x.cos()`, `x.tanh()`, `x.powi(n)`, `x.powf(y)`, `x.min(y)`, `x.max(y)`, `x.floor()`, `x.ceil()`",
                    ),
                }
            }
            _ => self.unsupported(
                e,
                "use literals, names, `A[i, j]`, arithmetic, comparisons, `&&`/`||`/`!`, `if`/`else`, `as` casts and the math methods",
            ),
        }
    }

    /// A literal; `negative` folds a leading `-` into it (so `-2147483648` is an `i32`).
    pub(crate) fn literal(
        &mut self,
        lit: &syn::Lit,
        negative: bool,
        expected: Option<ScalarType>,
        span: Span,
    ) -> Option<Expr> {
        let sign = if negative { "-" } else { "" };
        match lit {
            syn::Lit::Int(i) => {
                let digits = i.base10_digits();
                let suffix = i.suffix();
                let ty = if suffix.is_empty() {
                    match expected {
                        Some(t) if t.is_integer() => t,
                        Some(t) if t.is_float() => {
                            self.error(
                                Diagnostic::error(
                                    span,
                                    format!("mismatched types: expected `{t}`, found integer literal `{sign}{digits}`"),
                                )
                                .help(format!("write a float literal: `{sign}{digits}.0`")),
                            );
                            return None;
                        }
                        Some(t) => {
                            self.error(Diagnostic::error(
                                span,
                                format!("mismatched types: expected `{t}`, found integer literal `{sign}{digits}`"),
                            ).help("write `true` or `false`"));
                            return None;
                        }
                        None => match i.base10_parse::<u128>() {
                            Ok(v) if v <= i32::MAX as u128 + u128::from(negative) => {
                                ScalarType::I32
                            }
                            _ => ScalarType::I64,
                        },
                    }
                } else {
                    match ScalarType::from_rust_name(suffix) {
                        Some(ScalarType::Bool) | None => {
                            self.error(
                                Diagnostic::error(
                                    span,
                                    format!("invalid suffix `{suffix}` for a number literal"),
                                )
                                .help(
                                    "the suffixes are `i32`, `i64`, `u32`, `u64`, `f32` and `f64`",
                                ),
                            );
                            return None;
                        }
                        Some(t) => t,
                    }
                };
                if ty.is_float() {
                    let value: f64 = digits.parse().ok()?;
                    let value = if negative { -value } else { value };
                    let v = if ty == ScalarType::F32 {
                        Value::F32(value as f32)
                    } else {
                        Value::F64(value)
                    };
                    return Some(Expr::lit(v, span));
                }
                let Ok(magnitude) = i.base10_parse::<u128>() else {
                    self.error(
                        Diagnostic::error(span, "integer literal is too large")
                            .help("the largest integer type is `u64`"),
                    );
                    return None;
                };
                let value = if negative {
                    -i128::try_from(magnitude).unwrap_or(i128::MAX)
                } else {
                    i128::try_from(magnitude).unwrap_or(i128::MAX)
                };
                let v = match ty {
                    ScalarType::I32 => i32::try_from(value).ok().map(Value::I32),
                    ScalarType::I64 => i64::try_from(value).ok().map(Value::I64),
                    ScalarType::U32 if !negative => u32::try_from(value).ok().map(Value::U32),
                    ScalarType::U64 if !negative => u64::try_from(value).ok().map(Value::U64),
                    _ => None,
                };
                match v {
                    Some(v) => Some(Expr::lit(v, span)),
                    None if negative && !ty.is_signed_integer() => {
                        self.error(
                            Diagnostic::error(span, format!("cannot negate a `{ty}` literal"))
                                .help(
                                    "unsigned integers have no negative values; use `i32` or `i64`",
                                ),
                        );
                        None
                    }
                    None => {
                        let (min, max) = match ty {
                            ScalarType::I32 => (i32::MIN as i128, i32::MAX as i128),
                            ScalarType::I64 => (i64::MIN as i128, i64::MAX as i128),
                            ScalarType::U32 => (0, u32::MAX as i128),
                            _ => (0, u64::MAX as i128),
                        };
                        self.error(
                            Diagnostic::error(span, format!("literal out of range for `{ty}`"))
                                .note(format!("`{ty}` holds {min}..={max}"))
                                .help(
                                    "use a wider type, e.g. `i64` or a suffix like `5000000000i64`",
                                ),
                        );
                        None
                    }
                }
            }
            syn::Lit::Float(f) => {
                let suffix = f.suffix();
                let ty = match (suffix, expected) {
                    ("", Some(t)) if t.is_float() => t,
                    ("", Some(t)) => {
                        self.error(
                            Diagnostic::error(
                                span,
                                format!("mismatched types: expected `{t}`, found float literal `{sign}{}`", f.base10_digits()),
                            )
                            .help(if t.is_integer() {
                                format!("write an integer literal (without `.`), or convert: `{sign}{} as {t}`", f.base10_digits())
                            } else {
                                "write `true` or `false`".to_string()
                            }),
                        );
                        return None;
                    }
                    ("", None) => ScalarType::F64,
                    ("f32", _) => ScalarType::F32,
                    ("f64", _) => ScalarType::F64,
                    (other, _) => {
                        self.error(
                            Diagnostic::error(
                                span,
                                format!("invalid suffix `{other}` for a float literal"),
                            )
                            .help("the float suffixes are `f32` and `f64`"),
                        );
                        return None;
                    }
                };
                let text = format!("{sign}{}", f.base10_digits());
                let v = if ty == ScalarType::F32 {
                    Value::F32(text.parse().ok()?)
                } else {
                    Value::F64(text.parse().ok()?)
                };
                Some(Expr::lit(v, span))
            }
            syn::Lit::Bool(b) => Some(Expr::lit(Value::Bool(b.value), span)),
            _ => {
                self.error(Diagnostic::error(span, "unsupported literal").help(
                    "the tasklet language has numbers (`1`, `2.5`, `3u64`) and `true`/`false`",
                ));
                None
            }
        }
    }

    fn path_expr(
        &mut self,
        sc: &mut Scope,
        p: &syn::ExprPath,
        expected: Option<ScalarType>,
    ) -> Option<Expr> {
        let span = p.span();
        let Some(ident) = p.path.get_ident().filter(|_| p.qself.is_none()) else {
            self.error(
                Diagnostic::error(span, format!("paths like `{}` are not supported", source_text(p)))
                    .help("use a local, a map parameter, a symbol or a container by its plain name; write constants as literals"),
            );
            return None;
        };
        let name = ident.to_string();
        match self.resolve(sc, &name) {
            Resolved::Local(id) => {
                if sc.poisoned.get(id).copied().unwrap_or(false) {
                    return None;
                }
                let mut ty = sc.locals[id].ty;
                if sc.is_open(id) {
                    // Probe pass: the use decides the local's type.
                    ty = expected?;
                    sc.hint(id, ty);
                }
                Some(Expr::new(ExprKind::Var(VarRef::Local(id)), ty, span))
            }
            Resolved::Param(n) => {
                let ty = sc.params[n].1;
                Some(Expr::new(ExprKind::Var(VarRef::Param(n)), ty, span))
            }
            Resolved::Symbol(s) => {
                let ty = match (self.symbol_types[s], expected) {
                    (Some(t), _) => t,
                    (None, Some(t)) => {
                        // Inference: the context fixes the unknown symbol's type.
                        self.symbol_types[s] = Some(t);
                        self.changed = true;
                        t
                    }
                    (None, None) => return None,
                };
                Some(Expr::new(ExprKind::Var(VarRef::Symbol(s)), ty, span))
            }
            Resolved::Container(c) => {
                if !self.container_allowed(sc, ident) {
                    return None;
                }
                let container = &self.containers[c];
                if container.is_scalar() {
                    let ty = container.elem;
                    return Some(Expr::new(
                        ExprKind::Load {
                            container: c,
                            index: Vec::new(),
                        },
                        ty,
                        span,
                    ));
                }
                let rank = container.shape.len();
                self.error(
                    Diagnostic::error(span, format!("`{name}` is an array, not a value")).help(
                        format!("use one element: `{name}[{}]`", index_example(rank)),
                    ),
                );
                None
            }
            Resolved::Unknown => {
                self.unknown_name(sc, ident);
                None
            }
        }
    }

    fn container_allowed(&mut self, sc: &Scope, ident: &proc_macro2::Ident) -> bool {
        if sc.kind.allows_containers() {
            return true;
        }
        self.error(
            Diagnostic::error(
                ident.span(),
                format!(
                    "`{ident}` is a container; {} may only use symbols and literals",
                    sc.kind.describe()
                ),
            )
            .help("copy the value into a symbol on an interstate edge: `a -> b { n = A[0]; }`"),
        );
        false
    }

    /// `A[i, j]`: the container and its lowered indices.
    pub(crate) fn element(
        &mut self,
        sc: &mut Scope,
        ix: &syn::ExprIndex,
    ) -> Option<(ContainerId, Vec<Expr>)> {
        let base = strip_parens(&ix.expr);
        if let syn::Expr::Index(inner) = base {
            let name = source_text(&inner.expr);
            let first = source_text(&inner.index);
            let second = source_text(&ix.index);
            self.error(
                Diagnostic::error(ix.span(), "index a container with one pair of brackets")
                    .help(format!("write `{name}[{first}, {second}]`")),
            );
            return None;
        }
        let syn::Expr::Path(p) = base else {
            self.error(
                Diagnostic::error(base.span(), "only containers can be indexed")
                    .help("index a container by its name: `A[i]`"),
            );
            return None;
        };
        let Some(ident) = p.path.get_ident() else {
            self.error(
                Diagnostic::error(p.span(), "only containers can be indexed")
                    .help("index a container by its name: `A[i]`"),
            );
            return None;
        };
        let name = ident.to_string();
        let indices: Vec<&syn::Expr> = match strip_parens(&ix.index) {
            syn::Expr::Tuple(t) => t.elems.iter().collect(),
            other => vec![other],
        };
        let container = match self.resolve(sc, &name) {
            Resolved::Container(c) => c,
            Resolved::Unknown => {
                let candidates: Vec<String> = self
                    .containers
                    .iter()
                    .map(|c| c.name.text.clone())
                    .collect();
                let mut d = Diagnostic::error(ident.span(), format!("unknown container `{name}`"));
                d = match closest_name(&name, candidates.iter().map(String::as_str)) {
                    Some(c) => d.help(format!("did you mean `{c}`?")),
                    None => d.help(format!("declare it, e.g. `host {name}: f64[N];`")),
                };
                self.error(d);
                return None;
            }
            Resolved::Local(_) | Resolved::Param(_) | Resolved::Symbol(_) => {
                let kind = match self.resolve(sc, &name) {
                    Resolved::Local(_) => "local",
                    Resolved::Param(_) => "map parameter",
                    _ => "symbol",
                };
                self.error(
                    Diagnostic::error(
                        ident.span(),
                        format!("`{name}` is a {kind}, it cannot be indexed"),
                    )
                    .help("only containers are indexed: `A[i]`"),
                );
                return None;
            }
        };
        if !self.container_allowed(sc, ident) {
            return None;
        }
        let rank = self.containers[container].shape.len();
        if rank == 0 {
            self.error(
                Diagnostic::error(ix.span(), format!("`{name}` is a scalar, it has no index"))
                    .help(format!("use it without brackets: `{name}`")),
            );
            return None;
        }
        if indices.len() != rank {
            self.error(
                Diagnostic::error(
                    ix.index.span(),
                    format!(
                        "`{name}` has {} but {} given",
                        count(rank, "dimension"),
                        if indices.len() == 1 {
                            "1 index was".to_string()
                        } else {
                            format!("{} indices were", indices.len())
                        }
                    ),
                )
                .help(format!(
                    "give one index per dimension: `{name}[{}]`",
                    index_example(rank)
                )),
            );
            return None;
        }
        let mut out = Vec::new();
        for idx in indices {
            if let Some(e) = self.integer_expr(sc, idx, "an index") {
                out.push(e);
            }
        }
        (out.len() == rank).then_some((container, out))
    }

    fn unary(
        &mut self,
        sc: &mut Scope,
        u: &syn::ExprUnary,
        expected: Option<ScalarType>,
    ) -> Option<Expr> {
        let span = u.span();
        match u.op {
            syn::UnOp::Neg(_) => {
                if let syn::Expr::Lit(l) = &*u.expr {
                    if matches!(l.lit, syn::Lit::Int(_) | syn::Lit::Float(_)) {
                        return self.literal(&l.lit, true, expected, span);
                    }
                }
                let arg_expected = self.only_if_flexible(sc, &[&u.expr], expected);
                let arg = self.expr(sc, &u.expr, arg_expected)?;
                if !arg.ty.is_numeric() || (arg.ty.is_integer() && !arg.ty.is_signed_integer()) {
                    self.error(
                        Diagnostic::error(span, format!("cannot negate a `{}`", arg.ty))
                            .help(if arg.ty == ScalarType::Bool {
                                "use `!` for a bool"
                            } else {
                                "unsigned integers have no negative values; subtract instead, or use a signed type"
                            }),
                    );
                    return None;
                }
                let ty = arg.ty;
                Some(Expr::new(
                    ExprKind::Unary {
                        op: UnOp::Neg,
                        arg: Box::new(arg),
                    },
                    ty,
                    span,
                ))
            }
            syn::UnOp::Not(_) => {
                let arg_expected = self.only_if_flexible(sc, &[&u.expr], expected);
                let arg = self.expr(sc, &u.expr, arg_expected)?;
                if arg.ty.is_float() {
                    self.error(
                        Diagnostic::error(span, format!("cannot apply `!` to `{}`", arg.ty))
                            .help("`!` is logical not for bool and bitwise not for integers"),
                    );
                    return None;
                }
                let ty = arg.ty;
                Some(Expr::new(
                    ExprKind::Unary {
                        op: UnOp::Not,
                        arg: Box::new(arg),
                    },
                    ty,
                    span,
                ))
            }
            _ => self.unsupported(
                &syn::Expr::Unary(u.clone()),
                "there are no references or pointers in the tasklet language",
            ),
        }
    }

    /// `expected` when every one of `exprs` is flexible (it then decides
    /// their type), else None (they have a type of their own, and the
    /// caller's check reports a mismatch once, for the whole expression).
    fn only_if_flexible(
        &self,
        sc: &Scope,
        exprs: &[&syn::Expr],
        expected: Option<ScalarType>,
    ) -> Option<ScalarType> {
        expected.filter(|_| exprs.iter().all(|e| is_flexible(self, sc, e)))
    }

    /// Lowers two operands to one type: the side with a type of its own
    /// first, the other checked against it.
    fn unify(
        &mut self,
        sc: &mut Scope,
        lhs: &syn::Expr,
        rhs: &syn::Expr,
    ) -> (Option<Expr>, Option<Expr>) {
        if !is_flexible(self, sc, lhs) {
            let l = self.expr(sc, lhs, None);
            let r = self.expr(sc, rhs, l.as_ref().map(|l| l.ty));
            (l, r)
        } else if !is_flexible(self, sc, rhs) {
            let r = self.expr(sc, rhs, None);
            let l = self.expr(sc, lhs, r.as_ref().map(|r| r.ty));
            (l, r)
        } else {
            let ty = self.default_for(sc, &[lhs, rhs]);
            let l = self.expr(sc, lhs, ty);
            let r = self.expr(sc, rhs, l.as_ref().map(|l| l.ty).or(ty));
            (l, r)
        }
    }

    /// Whether `op` applies to operands of type `ty`; reports when not.
    pub(crate) fn check_operands(&mut self, op: BinOp, ty: ScalarType, span: Span) -> bool {
        let ok = match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem => ty.is_numeric(),
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                ty.is_integer() || ty == ScalarType::Bool
            }
            BinOp::Shl | BinOp::Shr => ty.is_integer(),
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => ty.is_numeric(),
            BinOp::Eq | BinOp::Ne => true,
            BinOp::And | BinOp::Or => ty == ScalarType::Bool,
        };
        if !ok {
            let help = match op {
                _ if ty == ScalarType::Bool => "for bools use `&&`, `||`, `!`, `==` and `!=`",
                BinOp::And | BinOp::Or => {
                    "`&&` and `||` take bools; compare numbers first, e.g. `x != 0`"
                }
                _ => "bit operations and shifts take integers; convert with `as`",
            };
            self.error(
                Diagnostic::error(span, format!("cannot apply `{}` to `{ty}`", op.symbol()))
                    .help(help),
            );
        }
        ok
    }

    fn binary(
        &mut self,
        sc: &mut Scope,
        b: &syn::ExprBinary,
        expected: Option<ScalarType>,
    ) -> Option<Expr> {
        use syn::BinOp as S;
        let span = b.span();
        let op_span = b.op.span();
        let op = match b.op {
            S::Add(_) => BinOp::Add,
            S::Sub(_) => BinOp::Sub,
            S::Mul(_) => BinOp::Mul,
            S::Div(_) => BinOp::Div,
            S::Rem(_) => BinOp::Rem,
            S::BitAnd(_) => BinOp::BitAnd,
            S::BitOr(_) => BinOp::BitOr,
            S::BitXor(_) => BinOp::BitXor,
            S::Shl(_) => BinOp::Shl,
            S::Shr(_) => BinOp::Shr,
            S::Eq(_) => BinOp::Eq,
            S::Ne(_) => BinOp::Ne,
            S::Lt(_) => BinOp::Lt,
            S::Le(_) => BinOp::Le,
            S::Gt(_) => BinOp::Gt,
            S::Ge(_) => BinOp::Ge,
            S::And(_) => BinOp::And,
            S::Or(_) => BinOp::Or,
            _ => {
                return self.unsupported(
                    &syn::Expr::Binary(b.clone()),
                    "a compound assignment is a statement: end it with `;`",
                )
            }
        };
        let (lhs, rhs, ty) = match op {
            BinOp::And | BinOp::Or => {
                let lhs = self.expr(sc, &b.left, Some(ScalarType::Bool));
                // The right side runs only when the left side allows it.
                let guard = lhs
                    .clone()
                    .map(|l| if op == BinOp::And { l } else { not(l) });
                let pushed = guard.map(|g| sc.guards.push(g)).is_some();
                let rhs = self.expr(sc, &b.right, Some(ScalarType::Bool));
                if pushed {
                    sc.guards.pop();
                }
                (lhs?, rhs?, ScalarType::Bool)
            }
            BinOp::Shl | BinOp::Shr => {
                let lhs_expected = self.only_if_flexible(sc, &[&b.left], expected);
                let lhs = self.expr(sc, &b.left, lhs_expected);
                let rhs = self.expr(sc, &b.right, None);
                let (lhs, rhs) = (lhs?, rhs?);
                if !self.check_operands(op, lhs.ty, op_span)
                    || !self.check_operands(op, rhs.ty, op_span)
                {
                    return None;
                }
                let ty = lhs.ty;
                (lhs, rhs, ty)
            }
            _ if op.is_comparison() => {
                let (lhs, rhs) = self.unify(sc, &b.left, &b.right);
                let (lhs, rhs) = (lhs?, rhs?);
                if !self.check_operands(op, lhs.ty, op_span) {
                    return None;
                }
                (lhs, rhs, ScalarType::Bool)
            }
            _ => {
                // The context's type reaches the operands only when they have
                // none of their own (`2 * 3` in an `f64` context is an
                // error; `I[0] + 2` in an `f64` context is one error for the
                // whole sum, whose help casts the sum).
                let (lhs, rhs) = match self.only_if_flexible(sc, &[&b.left, &b.right], expected) {
                    Some(t) => (
                        self.expr(sc, &b.left, Some(t)),
                        self.expr(sc, &b.right, Some(t)),
                    ),
                    None => self.unify(sc, &b.left, &b.right),
                };
                let (lhs, rhs) = (lhs?, rhs?);
                if !self.check_operands(op, lhs.ty, op_span) {
                    return None;
                }
                let ty = lhs.ty;
                (lhs, rhs, ty)
            }
        };
        Some(Expr::new(
            ExprKind::Binary {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            ty,
            span,
        ))
    }

    fn cast(&mut self, sc: &mut Scope, c: &syn::ExprCast) -> Option<Expr> {
        let span = c.span();
        let target = match &*c.ty {
            syn::Type::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                let ident = p.path.get_ident()?;
                match crate::parse::type_name(ident) {
                    Ok(t) => t.ty,
                    Err(d) => {
                        self.error(d);
                        return None;
                    }
                }
            }
            other => {
                self.error(
                    Diagnostic::error(other.span(), "cannot cast to this type")
                        .help("cast to one of `i32`, `i64`, `u32`, `u64`, `f32`, `f64`"),
                );
                return None;
            }
        };
        let arg = self.expr(sc, &c.expr, None)?;
        if target == ScalarType::Bool && arg.ty != ScalarType::Bool {
            self.error(
                Diagnostic::error(span, format!("cannot cast `{}` to `bool`", arg.ty))
                    .help(format!("compare instead: `{} != 0`", source_text(&c.expr))),
            );
            return None;
        }
        if arg.ty == ScalarType::Bool && target.is_float() {
            self.error(
                Diagnostic::error(span, format!("cannot cast `bool` to `{target}`")).help(format!(
                    "cast to an integer first: `{} as i32 as {target}`",
                    source_text(&c.expr)
                )),
            );
            return None;
        }
        Some(Expr::new(
            ExprKind::Cast { arg: Box::new(arg) },
            target,
            span,
        ))
    }

    /// `if c { a } else { b }` in value position.
    fn select(
        &mut self,
        sc: &mut Scope,
        i: &syn::ExprIf,
        expected: Option<ScalarType>,
    ) -> Option<Expr> {
        let span = i.span();
        let Some((_, else_branch)) = &i.else_branch else {
            self.error(
                Diagnostic::error(span, "`if` without `else` has no value")
                    .help("add an `else { ... }` branch with a value of the same type"),
            );
            return None;
        };
        let cond = self.expr(sc, &i.cond, Some(ScalarType::Bool));
        // The then branch is lowered from the AST itself (not a copy): the
        // probe pass of `body` identifies `let`s by their address.
        let then_block = &i.then_branch;
        let then_tail = block_tail(then_block);
        let then_flexible = then_tail.is_some_and(|t| is_flexible(self, sc, t));
        // The branch with a type of its own is lowered first; each branch
        // runs under its condition (for hoisted blocks).
        let else_first = expected.is_none() && then_flexible && !is_flexible(self, sc, else_branch);
        let (then, else_) = if else_first {
            let else_ = self.guarded(sc, cond.clone().map(not), else_branch, None);
            let ty = else_.as_ref().map(|e| e.ty);
            let then = self.guarded_block(sc, cond.clone(), then_block, ty);
            (then, else_)
        } else {
            let ty = match (expected, then_tail) {
                (Some(t), _) => Some(t),
                (None, Some(tail)) if then_flexible => self.default_for(sc, &[tail, else_branch]),
                _ => None,
            };
            let then = self.guarded_block(sc, cond.clone(), then_block, ty);
            let ty = ty.or(then.as_ref().map(|t| t.ty));
            let else_ = self.guarded(sc, cond.clone().map(not), else_branch, ty);
            (then, else_)
        };
        let (cond, then, else_) = (cond?, then?, else_?);
        let ty = then.ty;
        Some(Expr::new(
            ExprKind::Select {
                cond: Box::new(cond),
                then: Box::new(then),
                else_: Box::new(else_),
            },
            ty,
            span,
        ))
    }

    /// The value of `block` (see `value_block`), evaluated only when `guard` holds.
    fn guarded_block(
        &mut self,
        sc: &mut Scope,
        guard: Option<Expr>,
        block: &syn::Block,
        expected: Option<ScalarType>,
    ) -> Option<Expr> {
        let pushed = guard.map(|g| sc.guards.push(g)).is_some();
        let out = self.value_block(sc, block, expected);
        if pushed {
            sc.guards.pop();
        }
        out
    }

    /// `expr(e, expected)` evaluated only when `guard` holds.
    fn guarded(
        &mut self,
        sc: &mut Scope,
        guard: Option<Expr>,
        e: &syn::Expr,
        expected: Option<ScalarType>,
    ) -> Option<Expr> {
        let pushed = guard.map(|g| sc.guards.push(g)).is_some();
        let out = self.expr(sc, e, expected);
        if pushed {
            sc.guards.pop();
        }
        out
    }

    /// `{ stmts; tail }` in value position. With statements, they are
    /// hoisted in front of the current statement (under the current guards)
    /// and assign a fresh local, which becomes the value.
    fn value_block(
        &mut self,
        sc: &mut Scope,
        block: &syn::Block,
        expected: Option<ScalarType>,
    ) -> Option<Expr> {
        let span = block.brace_token.span.join();
        let Some(tail) = block_tail(block) else {
            self.error(Diagnostic::error(span, "this block has no value").help(
                "end it with an expression without `;`, e.g. `{ let y = x * 2.0; y + 1.0 }`",
            ));
            return None;
        };
        let stmts = &block.stmts[..block.stmts.len() - 1];
        if stmts.is_empty() {
            return self.expr(sc, tail, expected);
        }
        if !matches!(sc.kind, ScopeKind::Body) {
            self.error(
                Diagnostic::error(
                    span,
                    format!(
                        "a block with statements is not allowed in {}",
                        sc.kind.describe()
                    ),
                )
                .help("compute the value in a tasklet"),
            );
            return None;
        }
        let saved_guards = std::mem::take(&mut sc.guards);
        let saved_prelude = std::mem::take(&mut sc.prelude);
        let mark = sc.visible.len();
        let mut list = Vec::new();
        for s in stmts {
            self.stmt(sc, s, &mut list);
        }
        let value = self.expr(sc, tail, expected);
        list.append(&mut sc.prelude);
        sc.visible.truncate(mark);
        sc.guards = saved_guards;
        sc.prelude = saved_prelude;
        let value = value?;
        let ty = value.ty;
        let tmp = sc.locals.len();
        sc.locals.push(Local {
            name: format!("__value_{tmp}"),
            ty,
            mutable: true,
            span,
        });
        sc.loop_vars.push(false);
        sc.poisoned.push(false);
        sc.open.push(None);
        list.push(Stmt::AssignLocal {
            local: tmp,
            value,
            span,
        });
        sc.prelude.push(Stmt::Let {
            local: tmp,
            init: Expr::lit(zero(ty), span),
            span,
        });
        match and_all(&sc.guards) {
            Some(cond) => sc.prelude.push(Stmt::If {
                cond,
                then: list,
                else_: Vec::new(),
                span,
            }),
            None => sc.prelude.extend(list),
        }
        Some(Expr::new(ExprKind::Var(VarRef::Local(tmp)), ty, span))
    }

    fn math_call(
        &mut self,
        sc: &mut Scope,
        m: &syn::ExprMethodCall,
        expected: Option<ScalarType>,
    ) -> Option<Expr> {
        let span = m.span();
        let name = m.method.to_string();
        if name == "step_by" {
            self.error(
                Diagnostic::error(
                    m.method.span(),
                    "`step_by` is only allowed on the range of a `for` loop or a map",
                )
                .help("write `for k in (a..b).step_by(s) { ... }`"),
            );
            return None;
        }
        let Some(func) = MathFn::from_method_name(&name) else {
            let names: Vec<&str> = MathFn::ALL.iter().map(|f| f.method_name()).collect();
            let mut d = Diagnostic::error(m.method.span(), format!("unknown method `{name}`"));
            d = match closest_name(&name, names.iter().copied()) {
                Some(c) => d.help(format!("did you mean `{c}`?")),
                None => d.help(format!(
                    "the math methods are {}",
                    crate::diag::suggest::backticked(&names)
                )),
            };
            self.error(d);
            return None;
        };
        if m.turbofish.is_some() {
            self.error(
                Diagnostic::error(m.method.span(), format!("`{name}` takes no type arguments"))
                    .help("remove the `::<...>`"),
            );
            return None;
        }
        if m.args.len() + 1 != func.arity() {
            let example = match func.arity() {
                1 => format!("x.{name}()"),
                _ if func == MathFn::Powi => "x.powi(2)".to_string(),
                _ => format!("x.{name}(y)"),
            };
            self.error(
                Diagnostic::error(
                    m.method.span(),
                    format!(
                        "`{name}` takes {} but {} given",
                        count(func.arity() - 1, "argument"),
                        if m.args.len() == 1 {
                            "1 was".to_string()
                        } else {
                            format!("{} were", m.args.len())
                        }
                    ),
                )
                .help(format!("write `{example}`")),
            );
            return None;
        }
        let mut args = Vec::new();
        match func {
            MathFn::Powi => {
                let recv_expected = self.only_if_flexible(sc, &[&m.receiver], expected);
                let recv = self.expr(sc, &m.receiver, recv_expected);
                let n = self.expr(sc, &m.args[0], Some(ScalarType::I32));
                args.push(recv?);
                args.push(n?);
            }
            MathFn::Min | MathFn::Max | MathFn::Powf => {
                let (recv, arg) =
                    match self.only_if_flexible(sc, &[&m.receiver, &m.args[0]], expected) {
                        Some(t) => (
                            self.expr(sc, &m.receiver, Some(t)),
                            self.expr(sc, &m.args[0], Some(t)),
                        ),
                        None => self.unify(sc, &m.receiver, &m.args[0]),
                    };
                args.push(recv?);
                args.push(arg?);
            }
            _ => {
                let recv_expected = self.only_if_flexible(sc, &[&m.receiver], expected);
                args.push(self.expr(sc, &m.receiver, recv_expected)?)
            }
        }
        let ty = args[0].ty;
        let ok = match func {
            MathFn::Abs => ty.is_float() || ty.is_signed_integer(),
            MathFn::Min | MathFn::Max => ty.is_numeric(),
            _ => ty.is_float(),
        };
        if !ok {
            let needs = match func {
                MathFn::Abs => "a float or a signed integer",
                MathFn::Min | MathFn::Max => "numbers",
                _ => "a float",
            };
            let text = source_text(&m.receiver);
            let help =
                if ty.is_integer() && !matches!(func, MathFn::Abs | MathFn::Min | MathFn::Max) {
                    format!("convert it first: `({text} as f64).{name}(...)`")
                } else {
                    format!("`{name}` is defined for {needs}")
                };
            self.error(
                Diagnostic::error(
                    m.method.span(),
                    format!("`{name}` needs {needs}, found `{ty}`"),
                )
                .help(help),
            );
            return None;
        }
        Some(Expr::new(ExprKind::Call { func, args }, ty, span))
    }

    /// `a..b`, `a..=b` or `(a..b).step_by(s)`: bounds unified to one integer type.
    pub(crate) fn range(&mut self, sc: &mut Scope, e: &syn::Expr) -> Option<LoweredRange> {
        let stripped = strip_parens(e);
        let (range, step) = match stripped {
            syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                (strip_parens(&m.receiver), Some(&m.args[0]))
            }
            other => (other, None),
        };
        let syn::Expr::Range(r) = range else {
            self.error(
                Diagnostic::error(
                    e.span(),
                    format!("expected a range, found `{}`", source_text(e)),
                )
                .help("write `a..b`, `a..=b` or `(a..b).step_by(s)`"),
            );
            return None;
        };
        let (Some(start), Some(end)) = (&r.start, &r.end) else {
            self.error(
                Diagnostic::error(r.span(), "a range needs both bounds").help("write `0..N`"),
            );
            return None;
        };
        let mut parts: Vec<&syn::Expr> = vec![start, end];
        parts.extend(step);
        // The first part with a type of its own sets the type.
        let mut lowered: Vec<Option<Expr>> = vec![None; parts.len()];
        let mut ok = true;
        let fixed = parts.iter().position(|p| !is_flexible(self, sc, p));
        let ty = match fixed {
            Some(k) => {
                lowered[k] = self.expr(sc, parts[k], None);
                // On an error, the other parts are still lowered (for their errors).
                ok &= lowered[k].is_some();
                lowered[k].as_ref().map(|e| e.ty)
            }
            None => self.default_for(sc, &parts),
        };
        for (k, part) in parts.iter().enumerate() {
            if lowered[k].is_none() && Some(k) != fixed {
                lowered[k] = self.expr(sc, part, ty);
                ok &= lowered[k].is_some();
            }
        }
        if !ok {
            return None;
        }
        let mut lowered = lowered.into_iter().flatten();
        let (start_e, end_e) = (lowered.next()?, lowered.next()?);
        let step_e = lowered.next();
        let ty = start_e.ty;
        if !ty.is_integer() {
            self.error(
                Diagnostic::error(
                    start.span(),
                    format!("range bounds must be integers, found `{ty}`"),
                )
                .help(format!(
                    "convert them: {}",
                    cast_hint(&source_text(start), ScalarType::I64)
                )),
            );
            return None;
        }
        let end_e = match r.limits {
            syn::RangeLimits::HalfOpen(_) => end_e,
            syn::RangeLimits::Closed(_) => self.plus_one(end_e)?,
        };
        if let Some(s) = &step_e {
            if let ExprKind::Lit(v) = s.kind {
                if v.as_i128().is_some_and(|v| v <= 0) {
                    self.error(
                        Diagnostic::error(s.span, "the step of a range must be positive")
                            .help("write `(a..b).step_by(1)` or a larger step"),
                    );
                    return None;
                }
            }
        }
        Some(LoweredRange {
            ty,
            start: start_e,
            end: end_e,
            step: step_e,
        })
    }

    /// `e + 1` for an inclusive range end (folded for a literal).
    fn plus_one(&mut self, e: Expr) -> Option<Expr> {
        let ty = e.ty;
        if let ExprKind::Lit(v) = e.kind {
            let next = v.as_i128()? + 1;
            let folded = match ty {
                ScalarType::I32 => i32::try_from(next).ok().map(Value::I32),
                ScalarType::I64 => i64::try_from(next).ok().map(Value::I64),
                ScalarType::U32 => u32::try_from(next).ok().map(Value::U32),
                _ => u64::try_from(next).ok().map(Value::U64),
            };
            return match folded {
                Some(v) => Some(Expr::lit(v, e.span)),
                None => {
                    self.error(
                        Diagnostic::error(
                            e.span,
                            format!("the end of this inclusive range overflows `{ty}`"),
                        )
                        .help("use a wider type"),
                    );
                    None
                }
            };
        }
        let span = e.span;
        let one = Expr::lit(Value::from_bits(ty, 1), span);
        Some(Expr::new(
            ExprKind::Binary {
                op: BinOp::Add,
                lhs: Box::new(e),
                rhs: Box::new(one),
            },
            ty,
            span,
        ))
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
