//! The Python DaCe stores: tasklet code of its Python frontend
//! (`__out = (__in1 + __in2)`, `if`/`elif`/`else`, `for k in range(...)`)
//! and the SymPy-style text of ranges, shapes, subsets and interstate edges
//! (`N - 1`, `(not (t < T))`, `Min(a, b)`, `int_floor(a, b)`).
//!
//! Not a Python parser: the subset the tasklet language can express, and an
//! error naming anything else (`lambda`, `while`, strings, ...).

mod calls;
mod lex;

use super::code::{CodeExpr, CodeStmt, Target, Unary};
use crate::ir::BinOp;
use calls::{call, constant};
use lex::{dedent, is_keyword, tokenize, Tok, UNSUPPORTED_KEYWORDS};

/// What went wrong, phrased to follow the element's name: "uses Python
/// construct `lambda`", "has a syntax error: expected `)`".
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CodeError(pub String);

fn construct(what: &str) -> CodeError {
    CodeError(format!("uses Python construct `{what}`"))
}

fn syntax(what: impl Into<String>) -> CodeError {
    CodeError(format!("has a Python syntax error: {}", what.into()))
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    /// Nesting of expressions: deep nesting is an error, not a stack overflow.
    depth: usize,
}

/// The deepest expression nesting read.
const MAX_DEPTH: usize = 100;

/// Parses tasklet code.
pub(crate) fn parse_code(code: &str) -> Result<Vec<CodeStmt>, CodeError> {
    let mut p = Parser {
        toks: tokenize(&dedent(code))?,
        pos: 0,
        depth: 0,
    };
    let mut out = Vec::new();
    while p.pos < p.toks.len() {
        if p.eat_tok(&Tok::Newline) {
            continue;
        }
        if p.peek() == Some(&Tok::Indent) {
            return Err(syntax("unexpected indentation"));
        }
        p.statement(&mut out)?;
    }
    Ok(out)
}

/// Parses one expression (a range bound, a condition, an assignment's value).
pub(crate) fn parse_expr(text: &str) -> Result<CodeExpr, CodeError> {
    let mut p = Parser {
        toks: tokenize(text)?,
        pos: 0,
        depth: 0,
    };
    p.skip_newlines();
    let e = p.expr()?;
    p.skip_newlines();
    while p.eat_tok(&Tok::Dedent) {}
    if p.pos < p.toks.len() {
        return Err(syntax(format!("unexpected {}", p.describe())));
    }
    Ok(e)
}

/// `lambda a, b: BODY` (the WCR of a memlet): the two parameter names and the body.
pub(crate) fn parse_lambda(text: &str) -> Result<(String, String, CodeExpr), CodeError> {
    let mut p = Parser {
        toks: tokenize(text)?,
        pos: 0,
        depth: 0,
    };
    p.skip_newlines();
    let mut parens = 0;
    while p.eat_op("(") {
        parens += 1;
    }
    if !p.eat_name("lambda") {
        return Err(syntax("expected `lambda a, b: ...`"));
    }
    let a = p.name()?;
    p.expect_op(",")?;
    let b = p.name()?;
    p.expect_op(":")?;
    let body = p.expr()?;
    for _ in 0..parens {
        p.expect_op(")")?;
    }
    p.skip_newlines();
    if p.pos < p.toks.len() {
        return Err(syntax(format!("unexpected {}", p.describe())));
    }
    Ok((a, b, body))
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }
    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k)
    }
    fn bump(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += 1;
        t
    }
    fn eat_tok(&mut self, t: &Tok) -> bool {
        if self.peek() == Some(t) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn eat_op(&mut self, op: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Op(o)) if *o == op) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn eat_name(&mut self, name: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Name(n)) if n == name) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Some(Tok::Op(o)) if *o == op)
    }
    fn is_name(&self, name: &str) -> bool {
        matches!(self.peek(), Some(Tok::Name(n)) if n == name)
    }
    fn skip_newlines(&mut self) {
        while self.eat_tok(&Tok::Newline) {}
    }
    fn describe(&self) -> String {
        match self.peek() {
            None => "end of code".to_string(),
            Some(Tok::Name(n)) => format!("`{n}`"),
            Some(Tok::Int(v)) => format!("`{v}`"),
            Some(Tok::Float(v)) => format!("`{v}`"),
            Some(Tok::Op(o)) => format!("`{o}`"),
            Some(Tok::Newline) => "end of line".to_string(),
            Some(Tok::Indent) => "indentation".to_string(),
            Some(Tok::Dedent) => "end of block".to_string(),
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
            Some(Tok::Name(n)) if !is_keyword(n) => {
                let n = n.clone();
                self.pos += 1;
                Ok(n)
            }
            Some(Tok::Name(n)) if UNSUPPORTED_KEYWORDS.contains(&n.as_str()) => Err(construct(n)),
            _ => Err(syntax(format!(
                "expected a name, found {}",
                self.describe()
            ))),
        }
    }

    fn statement(&mut self, out: &mut Vec<CodeStmt>) -> Result<(), CodeError> {
        if let Some(Tok::Name(kw)) = self.peek() {
            match kw.as_str() {
                "if" => {
                    self.pos += 1;
                    let s = self.if_rest()?;
                    out.push(s);
                    return Ok(());
                }
                "for" => {
                    self.pos += 1;
                    let s = self.for_rest()?;
                    out.push(s);
                    return Ok(());
                }
                "pass" => {
                    self.pos += 1;
                    return self.end_of_simple();
                }
                "while" => {
                    self.pos += 1;
                    let cond = self.expr()?;
                    let body = self.suite()?;
                    out.push(CodeStmt::While { cond, body });
                    return Ok(());
                }
                "break" | "continue" => {
                    let stmt = if kw == "break" {
                        CodeStmt::Break
                    } else {
                        CodeStmt::Continue
                    };
                    self.pos += 1;
                    out.push(stmt);
                    return self.end_of_simple();
                }
                k if UNSUPPORTED_KEYWORDS.contains(&k) => return Err(construct(k)),
                "else" | "elif" => return Err(syntax(format!("`{kw}` without `if`"))),
                _ => {}
            }
        }
        let target = self.expr()?;
        let op = match self.bump() {
            Some(Tok::Op("=")) => None,
            Some(Tok::Op(aug))
                if aug.len() >= 2
                    && aug.ends_with('=')
                    && !matches!(aug, "==" | "<=" | ">=" | "!=") =>
            {
                Some(match aug {
                    "+=" => BinOp::Add,
                    "-=" => BinOp::Sub,
                    "*=" => BinOp::Mul,
                    "/=" => BinOp::Div,
                    "%=" => BinOp::Rem,
                    "&=" => BinOp::BitAnd,
                    "|=" => BinOp::BitOr,
                    "^=" => BinOp::BitXor,
                    "<<=" => BinOp::Shl,
                    ">>=" => BinOp::Shr,
                    other => return Err(construct(other)),
                })
            }
            Some(Tok::Op(",")) => return Err(construct("tuple assignment")),
            Some(Tok::Newline) | None => {
                return Err(construct("expression statement (its value is unused)"))
            }
            _ => {
                self.pos -= 1;
                return Err(syntax(format!("expected `=`, found {}", self.describe())));
            }
        };
        let target = match target {
            CodeExpr::Name(n) => Target::Name(n),
            CodeExpr::Index(n, i) => Target::Index(n, i),
            _ => return Err(syntax("can only assign to a name or an element")),
        };
        let value = self.expr()?;
        if self.is_op("=") {
            return Err(construct("chained assignment"));
        }
        out.push(CodeStmt::Assign { target, op, value });
        self.end_of_simple()
    }

    fn end_of_simple(&mut self) -> Result<(), CodeError> {
        if self.eat_tok(&Tok::Newline)
            || self.pos >= self.toks.len()
            || self.peek() == Some(&Tok::Dedent)
        {
            Ok(())
        } else {
            Err(syntax(format!(
                "expected the end of the statement, found {}",
                self.describe()
            )))
        }
    }

    /// `: NEWLINE INDENT stmts DEDENT` or `: simple_stmt`.
    fn suite(&mut self) -> Result<Vec<CodeStmt>, CodeError> {
        self.nested(Parser::suite_inner)
    }

    fn suite_inner(&mut self) -> Result<Vec<CodeStmt>, CodeError> {
        self.expect_op(":")?;
        let mut out = Vec::new();
        if self.eat_tok(&Tok::Newline) {
            if !self.eat_tok(&Tok::Indent) {
                return Err(syntax("expected an indented block"));
            }
            while !self.eat_tok(&Tok::Dedent) {
                if self.pos >= self.toks.len() {
                    break;
                }
                if self.eat_tok(&Tok::Newline) {
                    continue;
                }
                self.statement(&mut out)?;
            }
        } else {
            self.statement(&mut out)?;
        }
        Ok(out)
    }

    fn if_rest(&mut self) -> Result<CodeStmt, CodeError> {
        let cond = self.expr()?;
        let then = self.suite()?;
        let else_ = if self.eat_name("elif") {
            vec![self.if_rest()?]
        } else if self.eat_name("else") {
            self.suite()?
        } else {
            Vec::new()
        };
        Ok(CodeStmt::If { cond, then, else_ })
    }

    fn for_rest(&mut self) -> Result<CodeStmt, CodeError> {
        let var = self.name()?;
        if !self.eat_name("in") {
            return Err(syntax("expected `in`"));
        }
        if !self.eat_name("range") {
            return Err(construct("for loop over something else than `range(...)`"));
        }
        self.expect_op("(")?;
        let args = self.args(")")?;
        let (start, end, step) = match args.len() {
            1 => (CodeExpr::int(0), args[0].clone(), None),
            2 => (args[0].clone(), args[1].clone(), None),
            3 => (args[0].clone(), args[1].clone(), Some(args[2].clone())),
            _ => return Err(syntax("`range` takes 1 to 3 arguments")),
        };
        let body = self.suite()?;
        Ok(CodeStmt::For {
            var,
            ty: None,
            start,
            end,
            step,
            body,
        })
    }

    /// Comma-separated expressions up to `close` (consumed).
    fn args(&mut self, close: &str) -> Result<Vec<CodeExpr>, CodeError> {
        let mut out = Vec::new();
        while !self.eat_op(close) {
            if matches!(self.peek(), Some(Tok::Name(_)))
                && matches!(self.peek_at(1), Some(Tok::Op("=")))
            {
                return Err(construct("keyword argument"));
            }
            if self.is_op("*") || self.is_op("**") {
                return Err(construct("starred argument"));
            }
            out.push(self.expr()?);
            if self.is_op(":") {
                return Err(construct("slice"));
            }
            if !self.eat_op(",") {
                self.expect_op(close)?;
                break;
            }
        }
        Ok(out)
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
        if self.is_name("lambda") {
            return Err(construct("lambda"));
        }
        let body = self.or_expr()?;
        if self.eat_name("if") {
            let cond = self.or_expr()?;
            if !self.eat_name("else") {
                return Err(syntax("expected `else` in a conditional expression"));
            }
            let other = self.expr()?;
            return Ok(CodeExpr::Cond(
                Box::new(cond),
                Box::new(body),
                Box::new(other),
            ));
        }
        Ok(body)
    }

    fn or_expr(&mut self) -> Result<CodeExpr, CodeError> {
        let mut e = self.and_expr()?;
        while self.eat_name("or") {
            let r = self.and_expr()?;
            e = CodeExpr::Binary(BinOp::Or, Box::new(e), Box::new(r));
        }
        Ok(e)
    }

    fn and_expr(&mut self) -> Result<CodeExpr, CodeError> {
        let mut e = self.not_expr()?;
        while self.eat_name("and") {
            let r = self.not_expr()?;
            e = CodeExpr::Binary(BinOp::And, Box::new(e), Box::new(r));
        }
        Ok(e)
    }

    fn not_expr(&mut self) -> Result<CodeExpr, CodeError> {
        if self.eat_name("not") {
            let e = self.nested(Parser::not_expr)?;
            return Ok(CodeExpr::Unary(Unary::Not, Box::new(e)));
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Result<CodeExpr, CodeError> {
        let first = self.bitor()?;
        let mut parts: Vec<(BinOp, CodeExpr)> = Vec::new();
        loop {
            let op = match self.peek() {
                Some(Tok::Op("<")) => BinOp::Lt,
                Some(Tok::Op("<=")) => BinOp::Le,
                Some(Tok::Op(">")) => BinOp::Gt,
                Some(Tok::Op(">=")) => BinOp::Ge,
                Some(Tok::Op("==")) => BinOp::Eq,
                Some(Tok::Op("!=")) => BinOp::Ne,
                Some(Tok::Name(n)) if n == "is" => return Err(construct("is")),
                Some(Tok::Name(n)) if n == "in" => return Err(construct("in")),
                _ => break,
            };
            self.pos += 1;
            parts.push((op, self.bitor()?));
        }
        // `a < b < c` is `a < b and b < c`.
        let mut left = first;
        let mut out: Option<CodeExpr> = None;
        for (op, right) in parts {
            let cmp = CodeExpr::Binary(op, Box::new(left), Box::new(right.clone()));
            out = Some(match out {
                None => cmp,
                Some(prev) => CodeExpr::Binary(BinOp::And, Box::new(prev), Box::new(cmp)),
            });
            left = right;
        }
        Ok(out.unwrap_or(left))
    }

    fn binary_level(
        &mut self,
        ops: &[(&str, BinOp)],
        next: fn(&mut Parser) -> Result<CodeExpr, CodeError>,
    ) -> Result<CodeExpr, CodeError> {
        let mut e = next(self)?;
        'outer: loop {
            for (sym, op) in ops {
                if self.eat_op(sym) {
                    let r = next(self)?;
                    e = CodeExpr::Binary(*op, Box::new(e), Box::new(r));
                    continue 'outer;
                }
            }
            return Ok(e);
        }
    }

    fn bitor(&mut self) -> Result<CodeExpr, CodeError> {
        self.binary_level(&[("|", BinOp::BitOr)], Parser::bitxor)
    }
    fn bitxor(&mut self) -> Result<CodeExpr, CodeError> {
        self.binary_level(&[("^", BinOp::BitXor)], Parser::bitand)
    }
    fn bitand(&mut self) -> Result<CodeExpr, CodeError> {
        self.binary_level(&[("&", BinOp::BitAnd)], Parser::shift)
    }
    fn shift(&mut self) -> Result<CodeExpr, CodeError> {
        self.binary_level(&[("<<", BinOp::Shl), (">>", BinOp::Shr)], Parser::arith)
    }
    fn arith(&mut self) -> Result<CodeExpr, CodeError> {
        self.binary_level(&[("+", BinOp::Add), ("-", BinOp::Sub)], Parser::term)
    }

    fn term(&mut self) -> Result<CodeExpr, CodeError> {
        let mut e = self.factor()?;
        loop {
            if self.eat_op("*") {
                let r = self.factor()?;
                e = CodeExpr::Binary(BinOp::Mul, Box::new(e), Box::new(r));
            } else if self.eat_op("//") {
                let r = self.factor()?;
                e = CodeExpr::FloorDiv(Box::new(e), Box::new(r));
            } else if self.eat_op("/") {
                let r = self.factor()?;
                e = CodeExpr::Binary(BinOp::Div, Box::new(e), Box::new(r));
            } else if self.eat_op("%") {
                let r = self.factor()?;
                e = CodeExpr::Binary(BinOp::Rem, Box::new(e), Box::new(r));
            } else if self.is_op("@") {
                return Err(construct("@"));
            } else {
                return Ok(e);
            }
        }
    }

    fn factor(&mut self) -> Result<CodeExpr, CodeError> {
        if self.eat_op("-") {
            // `-5` is a negative literal; `-(5)` and `-x` negate.
            match self.peek().cloned() {
                Some(Tok::Int(v))
                    if !matches!(self.peek_at(1), Some(Tok::Op("**" | "[" | "(" | "."))) =>
                {
                    self.pos += 1;
                    return Ok(CodeExpr::Int {
                        value: v,
                        negative: true,
                        suffix: None,
                    });
                }
                Some(Tok::Float(v))
                    if !matches!(self.peek_at(1), Some(Tok::Op("**" | "[" | "(" | "."))) =>
                {
                    self.pos += 1;
                    return Ok(CodeExpr::Float {
                        value: -v,
                        negative: true,
                        suffix: None,
                    });
                }
                _ => {}
            }
            let e = self.nested(Parser::factor)?;
            return Ok(CodeExpr::Unary(Unary::Neg, Box::new(e)));
        }
        if self.eat_op("+") {
            return self.nested(Parser::factor);
        }
        if self.eat_op("~") {
            let e = self.nested(Parser::factor)?;
            return Ok(CodeExpr::Unary(Unary::BitNot, Box::new(e)));
        }
        self.power()
    }

    fn power(&mut self) -> Result<CodeExpr, CodeError> {
        let base = self.postfix()?;
        if self.eat_op("**") {
            let exp = self.factor()?;
            return Ok(CodeExpr::Pow(Box::new(base), Box::new(exp)));
        }
        Ok(base)
    }

    fn postfix(&mut self) -> Result<CodeExpr, CodeError> {
        let (mut e, mut dotted) = self.atom()?;
        loop {
            if self.eat_op(".") {
                let attr = match self.bump() {
                    Some(Tok::Name(n)) => n,
                    _ => return Err(syntax("expected a name after `.`")),
                };
                match dotted {
                    Some(path) => dotted = Some(format!("{path}.{attr}")),
                    None => return Err(construct(&format!(".{attr}"))),
                }
                e = CodeExpr::Name(String::new());
                continue;
            }
            if self.eat_op("(") {
                let args = self.args(")")?;
                let Some(path) = dotted.take() else {
                    return Err(construct("call of an expression"));
                };
                e = call(&path, args)?;
                continue;
            }
            if self.eat_op("[") {
                let mut idx = self.args("]")?;
                if idx.is_empty() {
                    return Err(syntax("empty subscript"));
                }
                e = match e {
                    CodeExpr::Name(n) if dotted.is_some() && !n.is_empty() => {
                        dotted = None;
                        CodeExpr::Index(n, idx)
                    }
                    // `A[i][j]` is `A[i, j]`.
                    CodeExpr::Index(n, mut first) if dotted.is_none() => {
                        first.append(&mut idx);
                        CodeExpr::Index(n, first)
                    }
                    _ => return Err(construct("subscript of an expression")),
                };
                continue;
            }
            break;
        }
        if let Some(path) = dotted {
            return constant(&path);
        }
        Ok(e)
    }

    /// An atom, and its dotted name when it is a name (for calls, attributes).
    fn atom(&mut self) -> Result<(CodeExpr, Option<String>), CodeError> {
        match self.bump() {
            Some(Tok::Int(v)) => Ok((CodeExpr::int(v), None)),
            Some(Tok::Float(v)) => Ok((
                CodeExpr::Float {
                    value: v,
                    negative: false,
                    suffix: None,
                },
                None,
            )),
            Some(Tok::Name(n)) => match n.as_str() {
                "True" => Ok((CodeExpr::Bool(true), None)),
                "False" => Ok((CodeExpr::Bool(false), None)),
                k if UNSUPPORTED_KEYWORDS.contains(&k) => Err(construct(k)),
                k if is_keyword(k) => Err(syntax(format!("unexpected `{k}`"))),
                _ => Ok((CodeExpr::Name(n.clone()), Some(n))),
            },
            Some(Tok::Op("(")) => {
                let e = self.expr()?;
                if self.is_op(",") {
                    return Err(construct("tuple"));
                }
                self.expect_op(")")?;
                Ok((e, None))
            }
            Some(Tok::Op("[")) => Err(construct("list")),
            Some(Tok::Op("{")) => Err(construct("dict or set")),
            _ => {
                self.pos = self.pos.saturating_sub(1);
                Err(syntax(format!(
                    "expected an expression, found {}",
                    self.describe()
                )))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::ScalarType;

    #[test]
    fn tasklet_code() {
        let s = parse_code("__out = (__in1 * __in2)").unwrap();
        assert_eq!(s.len(), 1);
        let s =
            parse_code("if a > 0:\n    b = 1\nelif a < 0:\n    b = -1\nelse:\n    b = 0\nc = b")
                .unwrap();
        assert_eq!(s.len(), 2);
        assert!(parse_code("f = lambda x: x")
            .unwrap_err()
            .0
            .contains("`lambda`"));
        let s = parse_code(
            "while x > 1:\n    x = x / 2\n    if x == 3:\n        break\n    continue\nb = x",
        )
        .unwrap();
        assert!(matches!(&s[0], CodeStmt::While { body, .. } if body.len() == 3));
        assert!(parse_code("while x:\n  pass\nelse:\n  pass").is_err());
        assert!(parse_code("x = 'a'").unwrap_err().0.contains("string"));
        assert!(parse_code("x = erfc(y)").unwrap_err().0.contains("`erfc`"));
        assert!(parse_code("x = atan(y)").is_ok());
        let deep = format!("x = {}1{}", "(".repeat(5000), ")".repeat(5000));
        assert!(parse_code(&deep).unwrap_err().0.contains("nested"));
        let negated = format!("x = {}1", "-".repeat(5000));
        assert!(parse_code(&negated).unwrap_err().0.contains("nested"));
    }

    #[test]
    fn expressions() {
        assert_eq!(
            parse_expr("N - 1").unwrap(),
            CodeExpr::Binary(
                BinOp::Sub,
                Box::new(CodeExpr::Name("N".into())),
                Box::new(CodeExpr::int(1))
            )
        );
        assert!(matches!(
            parse_expr("(not (t < T))").unwrap(),
            CodeExpr::Unary(Unary::Not, _)
        ));
        assert!(matches!(
            parse_expr("-5").unwrap(),
            CodeExpr::Int { negative: true, .. }
        ));
        assert!(matches!(
            parse_expr("-(5)").unwrap(),
            CodeExpr::Unary(Unary::Neg, _)
        ));
        assert!(matches!(
            parse_expr("dace.float64(t)").unwrap(),
            CodeExpr::Cast(ScalarType::F64, _)
        ));
        let (a, b, body) = parse_lambda("(lambda x, y: (x + y))").unwrap();
        assert_eq!((a.as_str(), b.as_str()), ("x", "y"));
        assert!(matches!(body, CodeExpr::Binary(BinOp::Add, _, _)));
    }
}
