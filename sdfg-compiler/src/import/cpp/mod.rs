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

mod expr;
mod idioms;
mod lex;

use super::code::{CodeExpr, CodeStmt, Target};
use super::python::CodeError;
use crate::ir::{BinOp, ScalarType, WcrOp};
use idioms::{real_breaks, recognize_loops, BREAK};
use lex::{tokenize, type_name, Tok, TYPE_WORDS};

fn construct(what: &str) -> CodeError {
    CodeError(format!("uses C++ construct `{what}`"))
}

fn syntax(what: impl Into<String>) -> CodeError {
    CodeError(format!("has a C++ syntax error: {}", what.into()))
}

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
    // The exporter's stepped loops end with a guard `if (...) break;`
    // (and run it before each `continue`): those go with the loop; every
    // other `break` is a `break`.
    Ok(real_breaks(recognize_loops(out)))
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
                "while" => {
                    self.pos += 1;
                    self.expect_op("(")?;
                    let cond = self.expr()?;
                    self.expect_op(")")?;
                    let body = self.single()?;
                    out.push(CodeStmt::While { cond, body });
                    return Ok(());
                }
                "continue" => {
                    self.pos += 1;
                    self.expect_op(";")?;
                    out.push(CodeStmt::Continue);
                    return Ok(());
                }
                "do" | "switch" | "goto" | "return" | "case" | "struct" | "class" | "template"
                | "using" | "typedef" | "namespace" | "new" | "delete" | "throw" | "try"
                | "static" | "printf" => return Err(construct(&kw)),
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

/// `(-2147483647 - 1)` and `(-9223372036854775807LL - 1)`: the exporter's
/// spelling of the most negative literals.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::MathFn;

    #[test]
    fn exporter_forms() {
        let code = "int64_t acc = 0LL;\n{\n    const int64_t k_end = N;\n    for (int64_t k = 0LL; k < k_end; ++k) {\n        acc = (acc + __in_Y_0[(k)]);\n    }\n}\n__out = sdfg_rs_div<int64_t>(acc, 2LL);\n";
        let s = parse_code(code).unwrap();
        assert_eq!(s.len(), 3);
        assert!(matches!(&s[1], CodeStmt::For { var, step: None, .. } if var == "k"));
        let code = "{\n    const int64_t k_end = 10LL;\n    const int64_t k_step = 3LL;\n    if (k_step > 0) for (int64_t k = 1LL; k < k_end; k += k_step) {\n        s = (s + k);\n        if ((uint64_t)k_end - (uint64_t)k <= (uint64_t)k_step) break;\n    }\n}\n";
        let s = parse_code(code).unwrap();
        assert!(matches!(&s[0], CodeStmt::For { step: Some(_), body, .. } if body.len() == 1));
        // A `continue` runs the guard first; a `break` of the user's stays.
        let guard = "if ((uint64_t)k_end - (uint64_t)k <= (uint64_t)k_step) break;";
        let code = format!("{{\n    const int64_t k_end = 10LL;\n    const int64_t k_step = 3LL;\n    if (k_step > 0) for (int64_t k = 1LL; k < k_end; k += k_step) {{\n        if (k == 4) {{ {guard} continue; }}\n        if (k == 7) {{\n            break;\n        }}\n        s = (s + k);\n        {guard}\n    }}\n}}\n");
        let s = parse_code(&code).unwrap();
        let CodeStmt::For { body, .. } = &s[0] else {
            panic!("{s:?}")
        };
        let (first, second) = (format!("{:?}", body[0]), format!("{:?}", body[1]));
        assert!(
            first.contains("Continue") && !first.contains(BREAK),
            "{first}"
        );
        assert!(
            second.contains("Break") && !second.contains(BREAK),
            "{second}"
        );
        assert_eq!(body.len(), 3, "the trailing guard goes with the loop");
        let s = parse_code("while (x > 1) { x = x / 2; if (x == 3) break; }").unwrap();
        assert!(
            matches!(&s[0], CodeStmt::While { body, .. } if matches!(body.as_slice(), [CodeStmt::Block(b)] if b.len() == 2))
        );
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
        assert!(parse_code("do { } while (x);")
            .unwrap_err()
            .0
            .contains("`do`"));
        assert!(parse_code("x = erfc(a);").unwrap_err().0.contains("`erfc`"));
        assert!(parse_code("x = atan2(a, b);").is_ok());
        assert!(parse_code("for (;;) {}").is_err());
        assert!(parse_code("char c = 1;").unwrap_err().0.contains("`char`"));
        assert!(parse_code("short s = 1;").is_ok());
    }
}
