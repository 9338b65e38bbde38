//! C++ expressions: precedence climbing over C++'s operators, casts,
//! calls and the exporter's template helpers.

use super::super::code::{math_fn, CodeExpr, Unary};
use super::idioms::{recognize_min_literal, recognize_select};
use super::lex::Tok;
use super::{construct, limit, syntax, CodeError, Parser, MAX_DEPTH};
use crate::ir::{BinOp, MathFn, ScalarType};

impl Parser {
    pub(crate) fn expr(&mut self) -> Result<CodeExpr, CodeError> {
        self.nested(Parser::expr_inner)
    }

    /// Runs `f` one level deeper; too deep is an error.
    pub(super) fn nested<T>(
        &mut self,
        f: fn(&mut Parser) -> Result<T, CodeError>,
    ) -> Result<T, CodeError> {
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
                    e = CodeExpr::Binary(*op, Box::new(e), Box::new(r));
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
        // The parts of a complex value: `z.real()`, `z.imag()`.
        while self.is_op(".") {
            let part = match self.peek_at(1) {
                Some(Tok::Name(n)) if n == "real" => MathFn::Re,
                Some(Tok::Name(n)) if n == "imag" => MathFn::Im,
                _ => return Err(construct("member access")),
            };
            self.pos += 2;
            if !self.args()?.is_empty() {
                return Err(syntax("`real()` and `imag()` take no arguments"));
            }
            e = CodeExpr::Call(part, vec![e]);
        }
        if self.is_op("->") {
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
                        if ty.is_complex() && args.len() == 2 {
                            // `dace::complex128(re, im)`.
                            let z = CodeExpr::Call(MathFn::Complex, args);
                            return Ok(CodeExpr::Cast(ty, Box::new(z)));
                        }
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
                    // The exporter's complex helpers (num-complex's formulas).
                    "sdfg_rs_cmul" | "sdfg_rs_cdiv" => {
                        arity(2, &args)?;
                        let op = if last == "sdfg_rs_cmul" {
                            BinOp::Mul
                        } else {
                            BinOp::Div
                        };
                        let b = args.pop().unwrap_or(CodeExpr::int(1));
                        let a = args.pop().unwrap_or(CodeExpr::int(0));
                        Ok(CodeExpr::Binary(op, Box::new(a), Box::new(b)))
                    }
                    "sdfg_rs_cexp" | "sdfg_rs_cnorm_sqr" => {
                        arity(1, &args)?;
                        let f = if last == "sdfg_rs_cexp" {
                            MathFn::Exp
                        } else {
                            MathFn::NormSqr
                        };
                        Ok(CodeExpr::Call(f, args))
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
