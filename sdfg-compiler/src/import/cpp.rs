//! C++ tasklet code: what `crate::export::cpp` writes (so every exported
//! SDFG reads back) and the plain C++ a DaCe user writes in a tasklet
//! (`__out = __in1 + __in2;`, declarations, `if`, counted `for` loops,
//! casts, `<cmath>` functions).
//!
//! The exporter's idioms are recognized and turned back into the tasklet
//! language: `sdfg_rs_div<T>(a, b)` is `a / b`, `sdfg_rs_f2i<T, F>(x)` is
//! `x as T`, `(x < 0 ? -x : x)` is `x.abs()`, and the guarded stepped loop
//! is `for k in (a..b).step_by(s)` (masked shift amounts are recognized
//! where types are known, in `super::typing`).

use super::code::{math_fn, CodeExpr, CodeStmt, Target, Unary};
use super::python::CodeError;
use crate::ir::{BinOp, MathFn, ScalarType, WcrOp};

fn construct(what: &str) -> CodeError {
    CodeError(format!("uses C++ construct `{what}`"))
}

fn syntax(what: impl Into<String>) -> CodeError {
    CodeError(format!("has a C++ syntax error: {}", what.into()))
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Name(String),
    Int(u128, Option<ScalarType>),
    Float(f64, Option<ScalarType>),
    Op(&'static str),
}

const OPS: [&str; 46] = [
    "<<=", ">>=", "::", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++", "--", "+=", "-=",
    "*=", "/=", "%=", "&=", "|=", "^=", "->", "+", "-", "*", "/", "%", "&", "|", "^", "~", "!",
    "<", ">", "(", ")", "[", "]", "{", "}", ",", ";", "?", ":", "=", ".",
];

fn tokenize(code: &str) -> Result<Vec<Tok>, CodeError> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i += 2;
        } else if c == '"' || c == '\'' {
            return Err(construct("string literal"));
        } else if c == '#' {
            return Err(construct("preprocessor directive"));
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let start = i;
            if c == '0' && matches!(chars.get(i + 1), Some('x' | 'X')) {
                i += 2;
                let s = i;
                while i < chars.len() && chars[i].is_ascii_hexdigit() {
                    i += 1;
                }
                let digits: String = chars[s..i].iter().collect();
                let v = u128::from_str_radix(&digits, 16).map_err(|_| syntax("bad hex number"))?;
                let suffix = int_suffix(&chars, &mut i)?;
                out.push(Tok::Int(v, suffix));
                continue;
            }
            let mut float = false;
            while i < chars.len() {
                let d = chars[i];
                if d.is_ascii_digit() {
                    i += 1;
                } else if d == '.' && !float {
                    float = true;
                    i += 1;
                } else if (d == 'e' || d == 'E')
                    && (chars.get(i + 1).is_some_and(|x| x.is_ascii_digit())
                        || (matches!(chars.get(i + 1), Some('+' | '-'))
                            && chars.get(i + 2).is_some_and(|x| x.is_ascii_digit())))
                {
                    float = true;
                    i += 2;
                } else {
                    break;
                }
            }
            let text: String = chars[start..i].iter().collect();
            if float {
                let suffix = match chars.get(i) {
                    Some('f' | 'F') => {
                        i += 1;
                        Some(ScalarType::F32)
                    }
                    Some('l' | 'L') => return Err(construct("long double literal")),
                    _ => None,
                };
                let v: f64 = match suffix {
                    // An f32 literal rounds once, from the decimal text.
                    Some(_) => text.parse::<f32>().map(f64::from),
                    None => text.parse::<f64>(),
                }
                .map_err(|_| syntax(format!("bad number `{text}`")))?;
                out.push(Tok::Float(v, suffix));
            } else {
                let v: u128 = text
                    .parse()
                    .map_err(|_| syntax(format!("number `{text}` is too large")))?;
                let suffix = int_suffix(&chars, &mut i)?;
                out.push(Tok::Int(v, suffix));
            }
            if i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                return Err(syntax(format!("bad number suffix `{}`", chars[i])));
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Tok::Name(chars[start..i].iter().collect()));
        } else {
            let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
            let Some(op) = OPS.iter().find(|op| rest.starts_with(**op)) else {
                return Err(syntax(format!("unexpected character `{c}`")));
            };
            i += op.chars().count();
            out.push(Tok::Op(op));
        }
    }
    Ok(out)
}

/// `u`, `l`, `ll`, `ul`, `ull` (any case): the literal's type.
fn int_suffix(chars: &[char], i: &mut usize) -> Result<Option<ScalarType>, CodeError> {
    let start = *i;
    while *i < chars.len() && matches!(chars[*i], 'u' | 'U' | 'l' | 'L') {
        *i += 1;
    }
    let s: String = chars[start..*i].iter().collect::<String>().to_lowercase();
    Ok(match s.as_str() {
        "" => None,
        "u" => Some(ScalarType::U32),
        "l" | "ll" => Some(ScalarType::I64),
        "ul" | "ull" | "lu" | "llu" => Some(ScalarType::U64),
        other => return Err(syntax(format!("bad integer suffix `{other}`"))),
    })
}

/// C++ spellings of the element types (after `std::`/`dace::` prefixes).
fn type_name(words: &[String]) -> Option<ScalarType> {
    let joined = words.join(" ");
    Some(match joined.as_str() {
        "int" | "int32_t" | "int32" | "signed" | "signed int" => ScalarType::I32,
        "long" | "long int" | "long long" | "long long int" | "int64_t" | "int64" | "ptrdiff_t" => {
            ScalarType::I64
        }
        "unsigned" | "unsigned int" | "uint32_t" | "uint32" | "uint" => ScalarType::U32,
        "unsigned long" | "unsigned long long" | "uint64_t" | "uint64" | "size_t" => {
            ScalarType::U64
        }
        "float" | "float32" => ScalarType::F32,
        "double" | "float64" => ScalarType::F64,
        "bool" => ScalarType::Bool,
        _ => return None,
    })
}

const TYPE_WORDS: [&str; 17] = [
    "int",
    "long",
    "unsigned",
    "signed",
    "float",
    "double",
    "bool",
    "int32_t",
    "int64_t",
    "uint32_t",
    "uint64_t",
    "size_t",
    "ptrdiff_t",
    "char",
    "short",
    "auto",
    "void",
];

/// Parses C++ tasklet code.
pub(crate) fn parse_code(code: &str) -> Result<Vec<CodeStmt>, CodeError> {
    let mut p = Parser {
        toks: tokenize(code)?,
        pos: 0,
        depth: 0,
    };
    let mut out = Vec::new();
    while p.pos < p.toks.len() {
        p.statement(&mut out)?;
    }
    let out = recognize_loops(out);
    if let Some(what) = leftover_break(&out) {
        return Err(construct(what));
    }
    Ok(out)
}

/// Parses one C++ expression (an interstate condition written in C++).
pub(crate) fn parse_expr(text: &str) -> Result<CodeExpr, CodeError> {
    let mut p = Parser {
        toks: tokenize(text)?,
        pos: 0,
        depth: 0,
    };
    let e = p.expr()?;
    if p.pos < p.toks.len() {
        return Err(syntax(format!("unexpected {}", p.describe())));
    }
    Ok(e)
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    /// Nesting of expressions: deep nesting is an error, not a stack overflow.
    depth: usize,
}

/// The deepest expression nesting read.
const MAX_DEPTH: usize = 100;

/// `break` survives only as the overflow guard of the exporter's stepped loop.
const BREAK: &str = "__sdfg_rs_break";

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }
    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k)
    }
    fn eat_op(&mut self, op: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Op(o)) if *o == op) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Some(Tok::Op(o)) if *o == op)
    }
    fn eat_name(&mut self, name: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Name(n)) if n == name) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn describe(&self) -> String {
        match self.peek() {
            None => "end of code".to_string(),
            Some(Tok::Name(n)) => format!("`{n}`"),
            Some(Tok::Int(v, _)) => format!("`{v}`"),
            Some(Tok::Float(v, _)) => format!("`{v}`"),
            Some(Tok::Op(o)) => format!("`{o}`"),
        }
    }
    fn expect_op(&mut self, op: &str) -> Result<(), CodeError> {
        if self.eat_op(op) {
            Ok(())
        } else {
            Err(syntax(format!(
                "expected `{op}`, found {}",
                self.describe()
            )))
        }
    }
    fn name(&mut self) -> Result<String, CodeError> {
        match self.peek() {
            Some(Tok::Name(n)) => {
                let n = n.clone();
                self.pos += 1;
                Ok(n)
            }
            _ => Err(syntax(format!(
                "expected a name, found {}",
                self.describe()
            ))),
        }
    }

    /// A qualified name `a::b::c` (the parts).
    fn path(&mut self) -> Result<Vec<String>, CodeError> {
        let mut parts = vec![self.name()?];
        while self.is_op("::") && matches!(self.peek_at(1), Some(Tok::Name(_))) {
            self.pos += 1;
            parts.push(self.name()?);
        }
        Ok(parts)
    }

    /// A type at the current position (`const`, multi-word and qualified
    /// names); `Ok(None)` when the tokens are not a type; `Some(None)` for `auto`.
    fn try_type(&mut self) -> Result<Option<Option<ScalarType>>, CodeError> {
        let save = self.pos;
        let mut is_const = false;
        while self.eat_name("const") || self.eat_name("constexpr") || self.eat_name("volatile") {
            is_const = true;
        }
        let mut words = Vec::new();
        loop {
            match self.peek() {
                Some(Tok::Name(n)) if TYPE_WORDS.contains(&n.as_str()) => {
                    words.push(n.clone());
                    self.pos += 1;
                }
                Some(Tok::Name(n)) if words.is_empty() && (n == "std" || n == "dace") => {
                    // `std::int64_t`, `dace::float64`
                    if matches!(self.peek_at(1), Some(Tok::Op("::"))) {
                        if let Some(Tok::Name(t)) = self.peek_at(2).cloned() {
                            if type_name(std::slice::from_ref(&t)).is_some() {
                                self.pos += 3;
                                words.push(t);
                                break;
                            }
                        }
                    }
                    break;
                }
                _ => break,
            }
        }
        if words.is_empty() {
            self.pos = save;
            if is_const {
                return Err(syntax("expected a type after `const`"));
            }
            return Ok(None);
        }
        if words == ["auto"] {
            return Ok(Some(None));
        }
        match type_name(&words) {
            Some(t) => Ok(Some(Some(t))),
            None => Err(CodeError(format!(
                "uses C++ type `{}`, which the tasklet language does not have",
                words.join(" ")
            ))),
        }
    }

    fn block(&mut self) -> Result<Vec<CodeStmt>, CodeError> {
        let mut out = Vec::new();
        while !self.eat_op("}") {
            if self.pos >= self.toks.len() {
                return Err(syntax("expected `}`"));
            }
            self.statement(&mut out)?;
        }
        Ok(out)
    }

    /// One statement as a list (a `{}` block stays a block).
    fn single(&mut self) -> Result<Vec<CodeStmt>, CodeError> {
        self.nested(|p| {
            let mut out = Vec::new();
            p.statement(&mut out)?;
            Ok(out)
        })
    }

    fn statement(&mut self, out: &mut Vec<CodeStmt>) -> Result<(), CodeError> {
        if self.eat_op(";") {
            return Ok(());
        }
        if self.eat_op("{") {
            let b = self.nested(Parser::block)?;
            out.push(CodeStmt::Block(b));
            return Ok(());
        }
        if let Some(Tok::Name(kw)) = self.peek().cloned() {
            match kw.as_str() {
                "if" => {
                    self.pos += 1;
                    self.expect_op("(")?;
                    let cond = self.expr()?;
                    self.expect_op(")")?;
                    let then = self.single()?;
                    let else_ = if self.eat_name("else") {
                        self.single()?
                    } else {
                        Vec::new()
                    };
                    out.push(CodeStmt::If { cond, then, else_ });
                    return Ok(());
                }
                "for" => {
                    self.pos += 1;
                    out.push(self.for_loop()?);
                    return Ok(());
                }
                "break" => {
                    self.pos += 1;
                    self.expect_op(";")?;
                    out.push(CodeStmt::Block(vec![CodeStmt::Assign {
                        target: Target::Name(BREAK.to_string()),
                        op: None,
                        value: CodeExpr::Bool(true),
                    }]));
                    return Ok(());
                }
                "while" | "do" | "switch" | "goto" | "return" | "continue" | "case" | "struct"
                | "class" | "template" | "using" | "typedef" | "namespace" | "new" | "delete"
                | "throw" | "try" | "static" | "printf" => return Err(construct(&kw)),
                _ => {}
            }
        }
        if let Some(ty) = self.try_type()? {
            let name = self.name()?;
            if self.is_op("[") {
                return Err(construct("local array"));
            }
            let value = if self.eat_op("=") {
                Some(self.expr()?)
            } else {
                None
            };
            if self.is_op(",") {
                return Err(construct("several declarations in one statement"));
            }
            self.expect_op(";")?;
            out.push(CodeStmt::Declare { ty, name, value });
            return Ok(());
        }
        let s = self.simple()?;
        self.expect_op(";")?;
        out.push(s);
        Ok(())
    }

    /// An assignment, `x++`, or the reduction call.
    fn simple(&mut self) -> Result<CodeStmt, CodeError> {
        if self.eat_op("++") || self.eat_op("--") {
            let add = matches!(self.toks.get(self.pos - 1), Some(Tok::Op("++")));
            let target = self.target()?;
            return Ok(increment(target, add));
        }
        if matches!(self.peek(), Some(Tok::Name(n)) if n == "dace")
            && self.toks[self.pos..]
                .iter()
                .take(12)
                .any(|t| matches!(t, Tok::Name(n) if n == "wcr_fixed"))
        {
            return self.atomic_reduce();
        }
        let target = self.target()?;
        if self.eat_op("++") {
            return Ok(increment(target, true));
        }
        if self.eat_op("--") {
            return Ok(increment(target, false));
        }
        let op = match self.peek() {
            Some(Tok::Op("=")) => None,
            Some(Tok::Op("+=")) => Some(BinOp::Add),
            Some(Tok::Op("-=")) => Some(BinOp::Sub),
            Some(Tok::Op("*=")) => Some(BinOp::Mul),
            Some(Tok::Op("/=")) => Some(BinOp::Div),
            Some(Tok::Op("%=")) => Some(BinOp::Rem),
            Some(Tok::Op("&=")) => Some(BinOp::BitAnd),
            Some(Tok::Op("|=")) => Some(BinOp::BitOr),
            Some(Tok::Op("^=")) => Some(BinOp::BitXor),
            Some(Tok::Op("<<=")) => Some(BinOp::Shl),
            Some(Tok::Op(">>=")) => Some(BinOp::Shr),
            Some(Tok::Op("(")) => return Err(construct("function call statement")),
            _ => {
                return Err(syntax(format!(
                    "expected an assignment, found {}",
                    self.describe()
                )))
            }
        };
        self.pos += 1;
        let value = self.expr()?;
        if self.is_op("=") {
            return Err(construct("chained assignment"));
        }
        Ok(CodeStmt::Assign { target, op, value })
    }

    fn target(&mut self) -> Result<Target, CodeError> {
        if self.is_op("*") {
            return Err(construct("pointer dereference"));
        }
        let name = self.name()?;
        if self.is_op("::") || self.is_op("->") || self.is_op(".") {
            return Err(construct("member access"));
        }
        let mut idx = Vec::new();
        while self.eat_op("[") {
            idx.push(self.expr()?);
            self.expect_op("]")?;
        }
        Ok(if idx.is_empty() {
            Target::Name(name)
        } else {
            Target::Index(name, idx)
        })
    }

    /// `dace::wcr_fixed<dace::ReductionType::OP, T>::reduce_atomic(conn + (offset), value)`.
    fn atomic_reduce(&mut self) -> Result<CodeStmt, CodeError> {
        let bad = || construct("a DaCe runtime call other than `wcr_fixed<...>::reduce_atomic`");
        let path = self.path()?;
        if path != ["dace", "wcr_fixed"] {
            return Err(bad());
        }
        self.expect_op("<")?;
        let kind = self.path()?;
        let op = match kind.last().map(String::as_str) {
            Some("Sum") => WcrOp::Sum,
            Some("Product") => WcrOp::Product,
            Some("Min") => WcrOp::Min,
            Some("Max") => WcrOp::Max,
            _ => return Err(construct(&format!("reduction `{}`", kind.join("::")))),
        };
        self.expect_op(",")?;
        if self.try_type()?.is_none() {
            return Err(bad());
        }
        self.expect_op(">")?;
        self.expect_op("::")?;
        if !matches!(self.name()?.as_str(), "reduce_atomic" | "reduce") {
            return Err(bad());
        }
        self.expect_op("(")?;
        let connector = self.name()?;
        let offset = if self.eat_op("+") {
            self.expr()?
        } else {
            CodeExpr::int(0)
        };
        self.expect_op(",")?;
        let value = self.expr()?;
        self.expect_op(")")?;
        Ok(CodeStmt::AtomicReduce {
            connector,
            offset,
            op,
            value,
        })
    }

    /// `for (T v = a; v < b; ++v) S`, with `v <= b`, `v++`, `v += s`.
    fn for_loop(&mut self) -> Result<CodeStmt, CodeError> {
        let shape = || construct("for loop other than `for (T v = a; v < b; v += s)`");
        self.expect_op("(")?;
        let ty = self.try_type()?.ok_or_else(shape)?;
        let var = self.name()?;
        self.expect_op("=")?;
        let start = self.expr()?;
        self.expect_op(";")?;
        if self.name()? != var {
            return Err(shape());
        }
        let inclusive = if self.eat_op("<") {
            false
        } else if self.eat_op("<=") {
            true
        } else {
            return Err(shape());
        };
        let bound = self.expr()?;
        self.expect_op(";")?;
        let step = if self.eat_op("++") {
            if self.name()? != var {
                return Err(shape());
            }
            None
        } else {
            if self.name()? != var {
                return Err(shape());
            }
            if self.eat_op("++") {
                None
            } else if self.eat_op("+=") {
                let s = self.expr()?;
                match s {
                    CodeExpr::Int {
                        value: 1,
                        negative: false,
                        ..
                    } => None,
                    other => Some(other),
                }
            } else {
                return Err(shape());
            }
        };
        self.expect_op(")")?;
        let body = self.single()?;
        let body = match body.as_slice() {
            [CodeStmt::Block(inner)] => inner.clone(),
            _ => body,
        };
        let end = if inclusive {
            CodeExpr::Binary(BinOp::Add, Box::new(bound), Box::new(CodeExpr::int(1)))
        } else {
            bound
        };
        Ok(CodeStmt::For {
            var,
            ty,
            start,
            end,
            step,
            body,
        })
    }

    pub(crate) fn expr(&mut self) -> Result<CodeExpr, CodeError> {
        self.nested(Parser::expr_inner)
    }

    /// Runs `f` one level deeper; too deep is an error.
    fn nested<T>(&mut self, f: fn(&mut Parser) -> Result<T, CodeError>) -> Result<T, CodeError> {
        if self.depth >= MAX_DEPTH {
            return Err(syntax(format!("code nested more than {MAX_DEPTH} deep")));
        }
        self.depth += 1;
        let out = f(self);
        self.depth -= 1;
        out
    }

    fn expr_inner(&mut self) -> Result<CodeExpr, CodeError> {
        let start = self.pos;
        let cond = self.binary(0)?;
        if self.eat_op("?") {
            // The exporter parenthesizes a condition it prints (`(a < b) ? a : b`
            // is an `if`), not the comparison of its integer `min`/`max`/`abs`.
            let parenthesized = self.is_group(start, self.pos - 1);
            let a = self.expr()?;
            self.expect_op(":")?;
            let b = self.expr()?;
            if parenthesized {
                return Ok(CodeExpr::Cond(Box::new(cond), Box::new(a), Box::new(b)));
            }
            return Ok(recognize_select(cond, a, b));
        }
        Ok(cond)
    }

    /// Whether the tokens `from..to` are one parenthesized group.
    fn is_group(&self, from: usize, to: usize) -> bool {
        if to <= from
            || self.toks.get(from) != Some(&Tok::Op("("))
            || self.toks.get(to - 1) != Some(&Tok::Op(")"))
        {
            return false;
        }
        let mut depth = 0i32;
        for (k, t) in self.toks[from..to].iter().enumerate() {
            match t {
                Tok::Op("(") => depth += 1,
                Tok::Op(")") => {
                    depth -= 1;
                    if depth == 0 && from + k + 1 != to {
                        return false;
                    }
                }
                _ => {}
            }
        }
        true
    }

    /// Precedence climbing over C++'s binary operators.
    fn binary(&mut self, min_level: usize) -> Result<CodeExpr, CodeError> {
        const LEVELS: [&[(&str, BinOp)]; 10] = [
            &[("||", BinOp::Or)],
            &[("&&", BinOp::And)],
            &[("|", BinOp::BitOr)],
            &[("^", BinOp::BitXor)],
            &[("&", BinOp::BitAnd)],
            &[("==", BinOp::Eq), ("!=", BinOp::Ne)],
            &[
                ("<=", BinOp::Le),
                (">=", BinOp::Ge),
                ("<", BinOp::Lt),
                (">", BinOp::Gt),
            ],
            &[("<<", BinOp::Shl), (">>", BinOp::Shr)],
            &[("+", BinOp::Add), ("-", BinOp::Sub)],
            &[("*", BinOp::Mul), ("/", BinOp::Div), ("%", BinOp::Rem)],
        ];
        if min_level >= LEVELS.len() {
            return self.unary();
        }
        let mut e = self.binary(min_level + 1)?;
        'outer: loop {
            for (sym, op) in LEVELS[min_level] {
                if self.eat_op(sym) {
                    let r = self.binary(min_level + 1)?;
                    e = make_binary(*op, e, r);
                    continue 'outer;
                }
            }
            return Ok(e);
        }
    }

    fn unary(&mut self) -> Result<CodeExpr, CodeError> {
        self.nested(Parser::unary_inner)
    }

    fn unary_inner(&mut self) -> Result<CodeExpr, CodeError> {
        if self.eat_op("-") {
            match self.peek().cloned() {
                Some(Tok::Int(v, suffix))
                    if !matches!(self.peek_at(1), Some(Tok::Op("[" | "("))) =>
                {
                    self.pos += 1;
                    return Ok(CodeExpr::Int {
                        value: v,
                        negative: true,
                        suffix,
                    });
                }
                Some(Tok::Float(v, suffix))
                    if !matches!(self.peek_at(1), Some(Tok::Op("[" | "("))) =>
                {
                    self.pos += 1;
                    return Ok(CodeExpr::Float {
                        value: -v,
                        negative: true,
                        suffix,
                    });
                }
                _ => {}
            }
            let e = self.unary()?;
            return Ok(CodeExpr::Unary(Unary::Neg, Box::new(e)));
        }
        if self.eat_op("+") {
            return self.unary();
        }
        if self.eat_op("!") {
            let e = self.unary()?;
            return Ok(CodeExpr::Unary(Unary::Not, Box::new(e)));
        }
        if self.eat_op("~") {
            let e = self.unary()?;
            return Ok(CodeExpr::Unary(Unary::BitNot, Box::new(e)));
        }
        if self.is_op("++") || self.is_op("--") || self.is_op("*") || self.is_op("&") {
            return Err(construct(&self.describe().replace('`', "")));
        }
        if self.is_op("(") {
            // `(T)x` is a cast.
            let save = self.pos;
            self.pos += 1;
            if let Some(ty) = self.try_type()? {
                if self.eat_op(")") {
                    let Some(ty) = ty else {
                        return Err(syntax("cannot cast to `auto`"));
                    };
                    let e = self.unary()?;
                    return Ok(CodeExpr::Cast(ty, Box::new(e)));
                }
            }
            self.pos = save;
        }
        self.postfix()
    }

    fn postfix(&mut self) -> Result<CodeExpr, CodeError> {
        let mut e = self.primary()?;
        while self.is_op("[") {
            let CodeExpr::Name(n) = &e else {
                if let CodeExpr::Index(n, idx) = &e {
                    // `a[i][j]`
                    let (n, mut idx) = (n.clone(), idx.clone());
                    self.pos += 1;
                    idx.push(self.expr()?);
                    self.expect_op("]")?;
                    e = CodeExpr::Index(n, idx);
                    continue;
                }
                return Err(construct("subscript of an expression"));
            };
            let n = n.clone();
            self.pos += 1;
            let i = self.expr()?;
            self.expect_op("]")?;
            e = CodeExpr::Index(n, vec![i]);
        }
        if self.is_op("++") || self.is_op("--") {
            return Err(construct("increment inside an expression"));
        }
        if self.is_op(".") || self.is_op("->") {
            return Err(construct("member access"));
        }
        Ok(e)
    }

    fn args(&mut self) -> Result<Vec<CodeExpr>, CodeError> {
        self.expect_op("(")?;
        let mut out = Vec::new();
        while !self.eat_op(")") {
            out.push(self.expr()?);
            if !self.eat_op(",") {
                self.expect_op(")")?;
                break;
            }
        }
        Ok(out)
    }

    /// `<T>` or `<T, U>` after a template name.
    fn template_types(&mut self) -> Result<Vec<ScalarType>, CodeError> {
        self.expect_op("<")?;
        let mut out = Vec::new();
        loop {
            match self.try_type()? {
                Some(Some(t)) => out.push(t),
                _ => {
                    return Err(syntax(format!(
                        "expected a type, found {}",
                        self.describe()
                    )))
                }
            }
            if self.eat_op(">") {
                return Ok(out);
            }
            self.expect_op(",")?;
        }
    }

    fn primary(&mut self) -> Result<CodeExpr, CodeError> {
        match self.peek().cloned() {
            Some(Tok::Int(v, suffix)) => {
                self.pos += 1;
                Ok(CodeExpr::Int {
                    value: v,
                    negative: false,
                    suffix,
                })
            }
            Some(Tok::Float(v, suffix)) => {
                self.pos += 1;
                Ok(CodeExpr::Float {
                    value: v,
                    negative: false,
                    suffix,
                })
            }
            Some(Tok::Op("(")) => {
                self.pos += 1;
                let e = self.expr()?;
                self.expect_op(")")?;
                Ok(recognize_min_literal(e))
            }
            Some(Tok::Name(n)) if n == "true" || n == "false" => {
                self.pos += 1;
                Ok(CodeExpr::Bool(n == "true"))
            }
            Some(Tok::Name(_)) => {
                // A functional cast `double(x)`.
                let save = self.pos;
                if let Some(Some(ty)) = self.try_type()? {
                    if self.is_op("(") {
                        let mut args = self.args()?;
                        if args.len() != 1 {
                            return Err(syntax("a conversion takes one value"));
                        }
                        return Ok(CodeExpr::Cast(ty, Box::new(args.remove(0))));
                    }
                }
                self.pos = save;
                let path = self.path()?;
                self.named(path)
            }
            _ => Err(syntax(format!(
                "expected an expression, found {}",
                self.describe()
            ))),
        }
    }

    /// A name, a call or a template call.
    fn named(&mut self, path: Vec<String>) -> Result<CodeExpr, CodeError> {
        let full = path.join("::");
        let last = path.last().cloned().unwrap_or_default();
        let qualified = path.len() > 1;
        let plain_prefix = path[..path.len() - 1]
            .iter()
            .all(|p| matches!(p.as_str(), "std" | "dace" | "math"));
        match last.as_str() {
            "static_cast" | "sdfg_rs_div" | "sdfg_rs_rem" | "sdfg_rs_f2i" | "numeric_limits" => {
                let types = self.template_types()?;
                let Some(&ty) = types.first() else {
                    return Err(syntax("missing template type"));
                };
                if last == "numeric_limits" {
                    self.expect_op("::")?;
                    let what = self.name()?;
                    let args = self.args()?;
                    if !args.is_empty() {
                        return Err(syntax("`numeric_limits` members take no arguments"));
                    }
                    return limit(ty, &what);
                }
                let mut args = self.args()?;
                match (last.as_str(), args.len()) {
                    ("static_cast" | "sdfg_rs_f2i", 1) => {
                        Ok(CodeExpr::Cast(ty, Box::new(args.remove(0))))
                    }
                    ("sdfg_rs_div", 2) => {
                        let b = args.pop().unwrap_or(CodeExpr::int(1));
                        let a = args.pop().unwrap_or(CodeExpr::int(0));
                        Ok(CodeExpr::Binary(BinOp::Div, Box::new(a), Box::new(b)))
                    }
                    ("sdfg_rs_rem", 2) => {
                        let b = args.pop().unwrap_or(CodeExpr::int(1));
                        let a = args.pop().unwrap_or(CodeExpr::int(0));
                        Ok(CodeExpr::Binary(BinOp::Rem, Box::new(a), Box::new(b)))
                    }
                    _ => Err(syntax(format!("wrong number of arguments for `{last}`"))),
                }
            }
            _ if self.is_op("(") => {
                if !plain_prefix {
                    return Err(CodeError(format!(
                        "calls `{full}`, which the tasklet language does not have"
                    )));
                }
                let mut args = self.args()?;
                let arity = |n: usize, args: &Vec<CodeExpr>| {
                    if args.len() == n {
                        Ok(())
                    } else {
                        Err(syntax(format!(
                            "`{full}` takes {n} argument(s), found {}",
                            args.len()
                        )))
                    }
                };
                match last.as_str() {
                    "pow" | "ipow" => {
                        arity(2, &args)?;
                        let b = args.pop().unwrap_or(CodeExpr::int(1));
                        let a = args.pop().unwrap_or(CodeExpr::int(0));
                        Ok(CodeExpr::Pow(Box::new(a), Box::new(b)))
                    }
                    "fmod" => {
                        arity(2, &args)?;
                        let b = args.pop().unwrap_or(CodeExpr::int(1));
                        let a = args.pop().unwrap_or(CodeExpr::int(0));
                        Ok(CodeExpr::Binary(BinOp::Rem, Box::new(a), Box::new(b)))
                    }
                    "ifloor" => {
                        arity(1, &args)?;
                        Ok(CodeExpr::Call(MathFn::Floor, args))
                    }
                    name => match math_fn(name) {
                        Some(f) => {
                            arity(f.arity(), &args)?;
                            Ok(CodeExpr::Call(f, args))
                        }
                        None => Err(CodeError(format!(
                            "calls `{full}`, which the tasklet language does not have"
                        ))),
                    },
                }
            }
            _ if qualified => Err(construct(&full)),
            "nullptr" | "this" | "sizeof" => Err(construct(&last)),
            _ => Ok(CodeExpr::Name(last)),
        }
    }
}

fn limit(ty: ScalarType, what: &str) -> Result<CodeExpr, CodeError> {
    let value = match what {
        "infinity" => f64::INFINITY,
        "quiet_NaN" | "signaling_NaN" => f64::NAN,
        other => return Err(construct(&format!("numeric_limits::{other}"))),
    };
    if !ty.is_float() {
        return Err(construct(&format!("numeric_limits<{ty}>::{what}")));
    }
    Ok(CodeExpr::Special {
        value,
        ty: Some(ty),
    })
}

fn increment(target: Target, add: bool) -> CodeStmt {
    CodeStmt::Assign {
        target,
        op: Some(if add { BinOp::Add } else { BinOp::Sub }),
        value: CodeExpr::int(1),
    }
}

/// A binary operation (the exporter's masked shift amounts are recognized
/// when types are known, in `super::typing`).
fn make_binary(op: BinOp, a: CodeExpr, b: CodeExpr) -> CodeExpr {
    CodeExpr::Binary(op, Box::new(a), Box::new(b))
}

/// `(-2147483647 - 1)` and `(-9223372036854775807LL - 1)`: the exporter's
/// spelling of the most negative literals.
fn recognize_min_literal(e: CodeExpr) -> CodeExpr {
    if let CodeExpr::Binary(BinOp::Sub, a, b) = &e {
        if let (
            CodeExpr::Int {
                value,
                negative: true,
                suffix,
            },
            CodeExpr::Int {
                value: 1,
                negative: false,
                suffix: None,
            },
        ) = (&**a, &**b)
        {
            let min_magnitude = match suffix {
                None if *value == i32::MAX as u128 => Some(*value + 1),
                Some(ScalarType::I64) if *value == i64::MAX as u128 => Some(*value + 1),
                _ => None,
            };
            if let Some(v) = min_magnitude {
                return CodeExpr::Int {
                    value: v,
                    negative: true,
                    suffix: *suffix,
                };
            }
        }
    }
    e
}

/// `(x < 0 ? -x : x)` is `x.abs()`; `(a < b ? a : b)` is `a.min(b)` and
/// `(a > b ? a : b)` is `a.max(b)` (the exporter's integer forms).
fn recognize_select(cond: CodeExpr, a: CodeExpr, b: CodeExpr) -> CodeExpr {
    if let CodeExpr::Binary(op, l, r) = &cond {
        let zero = matches!(**r, CodeExpr::Int { value: 0, .. });
        if *op == BinOp::Lt && zero && **l == b {
            let negated = match &a {
                CodeExpr::Unary(Unary::Neg, x) => **x == b,
                _ => false,
            };
            if negated {
                return CodeExpr::Call(MathFn::Abs, vec![b]);
            }
        }
        if **l == a && **r == b {
            match op {
                BinOp::Lt => return CodeExpr::Call(MathFn::Min, vec![a, b]),
                BinOp::Gt => return CodeExpr::Call(MathFn::Max, vec![a, b]),
                _ => {}
            }
        }
    }
    CodeExpr::Cond(Box::new(cond), Box::new(a), Box::new(b))
}

/// The exporter's loop blocks, back to counted loops:
/// `{ const T v_end = E; for (T v = S; v < v_end; ++v) { ... } }` and
/// `{ const T v_end = E; const T v_step = P; if (v_step > 0) for (T v = S;
/// v < v_end; v += v_step) { ...; if (...) break; } }`.
fn recognize_loops(stmts: Vec<CodeStmt>) -> Vec<CodeStmt> {
    stmts.into_iter().map(recognize_loop).collect()
}

fn recognize_loop(s: CodeStmt) -> CodeStmt {
    match s {
        CodeStmt::Block(inner) => {
            let inner = recognize_loops(inner);
            match exporter_loop(&inner) {
                Some(f) => f,
                None => CodeStmt::Block(inner),
            }
        }
        CodeStmt::If { cond, then, else_ } => CodeStmt::If {
            cond,
            then: recognize_loops(then),
            else_: recognize_loops(else_),
        },
        CodeStmt::For {
            var,
            ty,
            start,
            end,
            step,
            body,
        } => CodeStmt::For {
            var,
            ty,
            start,
            end,
            step,
            body: recognize_loops(body),
        },
        other => other,
    }
}

fn exporter_loop(block: &[CodeStmt]) -> Option<CodeStmt> {
    let (end_name, end_value, rest) = match block {
        [CodeStmt::Declare {
            name,
            value: Some(v),
            ..
        }, rest @ ..]
            if name.ends_with("_end") =>
        {
            (name.as_str(), v, rest)
        }
        _ => return None,
    };
    let var = &end_name[..end_name.len() - "_end".len()];
    let (step, rest) = match rest {
        [CodeStmt::Declare {
            name,
            value: Some(v),
            ..
        }, rest @ ..]
            if *name == format!("{var}_step") =>
        {
            (Some(v.clone()), rest)
        }
        _ => (None, rest),
    };
    let for_stmt = match (rest, &step) {
        ([f @ CodeStmt::For { .. }], None) => f,
        ([CodeStmt::If { cond, then, else_ }], Some(_)) if else_.is_empty() => {
            let step_positive = matches!(cond, CodeExpr::Binary(BinOp::Gt, l, r)
                if matches!(&**l, CodeExpr::Name(n) if *n == format!("{var}_step"))
                && matches!(&**r, CodeExpr::Int { value: 0, .. }));
            match then.as_slice() {
                [f @ CodeStmt::For { .. }] if step_positive => f,
                _ => return None,
            }
        }
        _ => return None,
    };
    let CodeStmt::For {
        var: v,
        ty,
        start,
        end,
        step: for_step,
        body,
    } = for_stmt
    else {
        return None;
    };
    let end_is_name = matches!(end, CodeExpr::Name(n) if n == end_name);
    let step_matches = match (&step, for_step) {
        (None, None) => true,
        (Some(_), Some(CodeExpr::Name(n))) => *n == format!("{var}_step"),
        _ => false,
    };
    if v != var || !end_is_name || !step_matches {
        return None;
    }
    let mut body = body.clone();
    if step.is_some() {
        // The last statement is the overflow guard, part of `step_by`'s meaning.
        match body.last() {
            Some(CodeStmt::If { then, else_, .. }) if else_.is_empty() && is_break(then) => {
                body.pop();
            }
            _ => return None,
        }
    }
    Some(CodeStmt::For {
        var: v.clone(),
        ty: *ty,
        start: start.clone(),
        end: end_value.clone(),
        step,
        body,
    })
}

fn is_break(stmts: &[CodeStmt]) -> bool {
    matches!(stmts, [CodeStmt::Block(b)] if matches!(b.as_slice(),
        [CodeStmt::Assign { target: Target::Name(n), .. }] if n == BREAK))
}

/// A `break` outside the recognized loop shape.
fn leftover_break(stmts: &[CodeStmt]) -> Option<&'static str> {
    for s in stmts {
        let found = match s {
            CodeStmt::Assign {
                target: Target::Name(n),
                ..
            } if n == BREAK => true,
            CodeStmt::Block(b) => leftover_break(b).is_some(),
            CodeStmt::If { then, else_, .. } => {
                leftover_break(then).is_some() || leftover_break(else_).is_some()
            }
            CodeStmt::For { body, .. } => leftover_break(body).is_some(),
            _ => false,
        };
        if found {
            return Some("break");
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exporter_forms() {
        let code = "int64_t acc = 0LL;\n{\n    const int64_t k_end = N;\n    for (int64_t k = 0LL; k < k_end; ++k) {\n        acc = (acc + __in_Y_0[(k)]);\n    }\n}\n__out = sdfg_rs_div<int64_t>(acc, 2LL);\n";
        let s = parse_code(code).unwrap();
        assert_eq!(s.len(), 3);
        assert!(matches!(&s[1], CodeStmt::For { var, step: None, .. } if var == "k"));
        let code = "{\n    const int64_t k_end = 10LL;\n    const int64_t k_step = 3LL;\n    if (k_step > 0) for (int64_t k = 1LL; k < k_end; k += k_step) {\n        s = (s + k);\n        if ((uint64_t)k_end - (uint64_t)k <= (uint64_t)k_step) break;\n    }\n}\n";
        let s = parse_code(code).unwrap();
        assert!(matches!(&s[0], CodeStmt::For { step: Some(_), body, .. } if body.len() == 1));
        let e = parse_expr("(-2147483647 - 1)").unwrap();
        assert!(matches!(
            e,
            CodeExpr::Int {
                value: 2147483648,
                negative: true,
                suffix: None
            }
        ));
        let e = parse_expr("(c < 0 ? -c : c)").unwrap();
        assert!(matches!(e, CodeExpr::Call(MathFn::Abs, _)));
        let s = parse_code("dace::wcr_fixed<dace::ReductionType::Sum, int32_t>::reduce_atomic(__out_A + ((i)), v);").unwrap();
        assert!(matches!(
            &s[0],
            CodeStmt::AtomicReduce { op: WcrOp::Sum, .. }
        ));
        assert!(matches!(
            parse_expr("std::numeric_limits<float>::infinity()").unwrap(),
            CodeExpr::Special { .. }
        ));
    }

    #[test]
    fn rejects() {
        assert!(parse_code("while (x) { }")
            .unwrap_err()
            .0
            .contains("`while`"));
        assert!(parse_code("x = atan2(a, b);")
            .unwrap_err()
            .0
            .contains("`atan2`"));
        assert!(parse_code("for (;;) {}").is_err());
        assert!(parse_code("break;").unwrap_err().0.contains("`break`"));
        assert!(parse_code("short s = 1;")
            .unwrap_err()
            .0
            .contains("`short`"));
    }
}
