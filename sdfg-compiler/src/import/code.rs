//! The code of a DaCe SDFG as the importer reads it: one small tree for
//! the expressions and tasklet statements of both languages DaCe stores
//! (Python, including the SymPy-style text of ranges, shapes and
//! interstate edges, and C++), before names are bound and types resolved
//! (`super::typing`).
//!
//! The tree keeps only what the tasklet language can express; the parsers
//! reject everything else with an error that names the construct.

use crate::ir::{BinOp, MathFn, ScalarType, WcrOp};

/// An expression as written in the file.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum CodeExpr {
    /// An integer literal: its magnitude, whether a `-` was written right
    /// before it, and the type its suffix gives (C++ `5LL`, `5u`).
    Int {
        value: u128,
        negative: bool,
        suffix: Option<ScalarType>,
    },
    /// A float literal (its value includes a leading `-` written right before
    /// it); `suffix`: C++ `2.0f` is an `f32`.
    Float {
        value: f64,
        negative: bool,
        suffix: Option<ScalarType>,
    },
    Bool(bool),
    /// A float constant that has no literal in the tasklet language yet
    /// (NaN, infinities).
    Special {
        value: f64,
        ty: Option<ScalarType>,
    },
    Name(String),
    /// `name[i, j]`: a container or an array connector.
    Index(String, Vec<CodeExpr>),
    Unary(Unary, Box<CodeExpr>),
    Binary(BinOp, Box<CodeExpr>, Box<CodeExpr>),
    /// Python `a // b`: DaCe's `ifloor(a / b)`.
    FloorDiv(Box<CodeExpr>, Box<CodeExpr>),
    /// `a ** b` (Python) or `pow(a, b)`.
    Pow(Box<CodeExpr>, Box<CodeExpr>),
    /// `c ? a : b`, `a if c else b`.
    Cond(Box<CodeExpr>, Box<CodeExpr>, Box<CodeExpr>),
    /// A math function of the tasklet language (arguments in order).
    Call(MathFn, Vec<CodeExpr>),
    /// An explicit conversion: `static_cast<T>(x)`, `(T)x`, `dace.float64(x)`, `float(x)`.
    Cast(ScalarType, Box<CodeExpr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unary {
    /// `-x`
    Neg,
    /// `!x`, Python `not x`
    Not,
    /// `~x`
    BitNot,
}

/// The target of an assignment.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Target {
    Name(String),
    Index(String, Vec<CodeExpr>),
}

impl Target {
    pub fn name(&self) -> &str {
        match self {
            Target::Name(n) | Target::Index(n, _) => n,
        }
    }
}

/// A tasklet statement.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum CodeStmt {
    /// `target = value` or `target op= value`.
    Assign {
        target: Target,
        op: Option<BinOp>,
        value: CodeExpr,
    },
    /// A C++ declaration `[const] T name [= value];` (`ty` None: `auto`).
    Declare {
        ty: Option<ScalarType>,
        name: String,
        value: Option<CodeExpr>,
    },
    If {
        cond: CodeExpr,
        then: Vec<CodeStmt>,
        else_: Vec<CodeStmt>,
    },
    /// A counted loop `for var in start..end` (end exclusive), as Python
    /// `range` or a C++ `for` of that shape.
    For {
        var: String,
        ty: Option<ScalarType>,
        start: CodeExpr,
        end: CodeExpr,
        step: Option<CodeExpr>,
        body: Vec<CodeStmt>,
    },
    /// `while cond { body }` (Python `while cond:`, C++ `while (cond)`).
    While { cond: CodeExpr, body: Vec<CodeStmt> },
    /// `break`: leaves the innermost loop.
    Break,
    /// `continue`: the next iteration of the innermost loop.
    Continue,
    /// A C++ `{ ... }` block (its declarations end with it).
    Block(Vec<CodeStmt>),
    /// `dace::wcr_fixed<dace::ReductionType::OP, T>::reduce_atomic(conn + (offset), value);`:
    /// a reduction through an array connector.
    AtomicReduce {
        connector: String,
        offset: CodeExpr,
        op: WcrOp,
        value: CodeExpr,
    },
}

impl CodeExpr {
    pub fn int(value: u128) -> CodeExpr {
        CodeExpr::Int {
            value,
            negative: false,
            suffix: None,
        }
    }

    /// Visits this expression and every subexpression, parents first.
    pub fn walk(&self, f: &mut dyn FnMut(&CodeExpr)) {
        f(self);
        match self {
            CodeExpr::Int { .. }
            | CodeExpr::Float { .. }
            | CodeExpr::Bool(_)
            | CodeExpr::Special { .. }
            | CodeExpr::Name(_) => {}
            CodeExpr::Index(_, idx) | CodeExpr::Call(_, idx) => idx.iter().for_each(|e| e.walk(f)),
            CodeExpr::Unary(_, a) | CodeExpr::Cast(_, a) => a.walk(f),
            CodeExpr::Binary(_, a, b) | CodeExpr::FloorDiv(a, b) | CodeExpr::Pow(a, b) => {
                a.walk(f);
                b.walk(f);
            }
            CodeExpr::Cond(c, a, b) => {
                c.walk(f);
                a.walk(f);
                b.walk(f);
            }
        }
    }

    /// The names this expression reads (containers and connectors by their
    /// indexed name too).
    pub fn names(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.walk(&mut |e| match e {
            CodeExpr::Name(n) | CodeExpr::Index(n, _) => out.push(n.clone()),
            _ => {}
        });
        out
    }

    /// The value of an integer expression over literals and the names `env`
    /// knows (wrapping i128 arithmetic; None for anything else). Used to
    /// compare symbolic expressions by evaluating them at sample points.
    pub fn eval_int(&self, env: &dyn Fn(&str) -> Option<i128>) -> Option<i128> {
        Some(match self {
            CodeExpr::Int {
                value, negative, ..
            } => {
                let v = i128::try_from(*value).ok()?;
                if *negative {
                    -v
                } else {
                    v
                }
            }
            CodeExpr::Bool(b) => *b as i128,
            CodeExpr::Name(n) => env(n)?,
            CodeExpr::Unary(Unary::Neg, a) => a.eval_int(env)?.checked_neg()?,
            CodeExpr::Cast(t, a) if t.is_integer() => a.eval_int(env)?,
            CodeExpr::Binary(op, a, b) => {
                let (x, y) = (a.eval_int(env)?, b.eval_int(env)?);
                match op {
                    BinOp::Add => x.checked_add(y)?,
                    BinOp::Sub => x.checked_sub(y)?,
                    BinOp::Mul => x.checked_mul(y)?,
                    BinOp::Div => x.checked_div(y)?,
                    BinOp::Rem => x.checked_rem(y)?,
                    _ => return None,
                }
            }
            CodeExpr::FloorDiv(a, b) => a.eval_int(env)?.checked_div_euclid(b.eval_int(env)?)?,
            // DaCe writes `N**2` in strides and shapes.
            CodeExpr::Pow(a, b) => {
                let exponent = u32::try_from(b.eval_int(env)?).ok()?;
                a.eval_int(env)?.checked_pow(exponent)?
            }
            CodeExpr::Call(MathFn::Min, args) if args.len() == 2 => {
                args[0].eval_int(env)?.min(args[1].eval_int(env)?)
            }
            CodeExpr::Call(MathFn::Max, args) if args.len() == 2 => {
                args[0].eval_int(env)?.max(args[1].eval_int(env)?)
            }
            _ => return None,
        })
    }
}

/// Every name tasklet code mentions.
pub(crate) fn code_names(stmts: &[CodeStmt], out: &mut Vec<String>) {
    for s in stmts {
        match s {
            CodeStmt::Assign { target, value, .. } => {
                out.push(target.name().to_string());
                if let Target::Index(_, idx) = target {
                    idx.iter().for_each(|e| out.extend(e.names()));
                }
                out.extend(value.names());
            }
            CodeStmt::Declare { value, .. } => out.extend(value.iter().flat_map(|v| v.names())),
            CodeStmt::If { cond, then, else_ } => {
                out.extend(cond.names());
                code_names(then, out);
                code_names(else_, out);
            }
            CodeStmt::For {
                start,
                end,
                step,
                body,
                ..
            } => {
                out.extend(start.names());
                out.extend(end.names());
                out.extend(step.iter().flat_map(|s| s.names()));
                code_names(body, out);
            }
            CodeStmt::While { cond, body } => {
                out.extend(cond.names());
                code_names(body, out);
            }
            CodeStmt::Block(b) => code_names(b, out),
            CodeStmt::AtomicReduce { offset, value, .. } => {
                out.extend(offset.names());
                out.extend(value.names());
            }
            CodeStmt::Break | CodeStmt::Continue => {}
        }
    }
}

/// Whether two integer expressions over symbols are equal, tested at a few
/// sample values of their names (both must evaluate everywhere).
pub(crate) fn same_integer_value(a: &CodeExpr, b: &CodeExpr) -> bool {
    const SAMPLES: [[i128; 3]; 3] = [[7, 1, 3], [13, 29, 5], [101, 17, 64]];
    let names: Vec<String> = {
        let mut n = a.names();
        n.extend(b.names());
        n.sort();
        n.dedup();
        n
    };
    SAMPLES.iter().all(|sample| {
        let env = |name: &str| -> Option<i128> {
            let k = names.iter().position(|n| n == name)?;
            Some(sample[k % 3] + 31 * (k / 3) as i128)
        };
        matches!((a.eval_int(&env), b.eval_int(&env)), (Some(x), Some(y)) if x == y)
    })
}

/// `e` with the spellings our DaCe export gives a cast that wraps (Python
/// has none: `x as i32` is `((((x) + 2147483648) & 4294967295) -
/// 2147483648)`, `x as u32` is `((x) & 4294967295)`) read back as casts,
/// at every depth. Each rewrite keeps the value (the low bits of `x`, as
/// two's complement for a signed type); it gives back the type, so that a
/// nested SDFG's symbol `M: i32 = N as i32` compares with its binding's
/// extent `N` as the program did before its export.
pub(crate) fn read_wrapping_casts(e: CodeExpr) -> CodeExpr {
    match wrapping_cast(&e) {
        Some((ty, x)) => CodeExpr::Cast(ty, Box::new(read_wrapping_casts(x.clone()))),
        None => match e {
            CodeExpr::Binary(op, a, b) => CodeExpr::Binary(
                op,
                Box::new(read_wrapping_casts(*a)),
                Box::new(read_wrapping_casts(*b)),
            ),
            other => other,
        },
    }
}

/// The type and operand of `((x + 2^(b-1)) & (2^b - 1)) - 2^(b-1)` (signed)
/// or `x & (2^b - 1)` (unsigned), for a width `b` of 8, 16 or 32 bits.
fn wrapping_cast(e: &CodeExpr) -> Option<(ScalarType, &CodeExpr)> {
    use CodeExpr::{Binary, Int};
    let int = |e: &CodeExpr| match e {
        Int {
            value,
            negative: false,
            ..
        } => Some(*value),
        _ => None,
    };
    let width = |mask: u128| {
        [8u32, 16, 32]
            .into_iter()
            .find(|&b| mask == (1u128 << b) - 1)
    };
    let Binary(op, a, b) = e else { return None };
    match (op, &**a) {
        (BinOp::Sub, Binary(BinOp::BitAnd, sum, mask)) => {
            let Binary(BinOp::Add, x, h) = &**sum else {
                return None;
            };
            let bits = width(int(mask)?)?;
            let half = 1u128 << (bits - 1);
            if int(h)? != half || int(b)? != half {
                return None;
            }
            let ty = match bits {
                8 => ScalarType::I8,
                16 => ScalarType::I16,
                _ => ScalarType::I32,
            };
            Some((ty, x))
        }
        (BinOp::BitAnd, x) => {
            let ty = match width(int(b)?)? {
                8 => ScalarType::U8,
                16 => ScalarType::U16,
                _ => ScalarType::U32,
            };
            Some((ty, x))
        }
        _ => None,
    }
}

/// A write-conflict resolution lambda (`lambda a, b: a + b`, ...).
pub(crate) fn wcr_of_lambda(params: (&str, &str), body: &CodeExpr) -> Option<WcrOp> {
    let is = |e: &CodeExpr, n: &str| matches!(e, CodeExpr::Name(x) if x == n);
    let pair = |x: &CodeExpr, y: &CodeExpr| {
        (is(x, params.0) && is(y, params.1)) || (is(x, params.1) && is(y, params.0))
    };
    match body {
        CodeExpr::Binary(BinOp::Add, x, y) if pair(x, y) => Some(WcrOp::Sum),
        CodeExpr::Binary(BinOp::Mul, x, y) if pair(x, y) => Some(WcrOp::Product),
        CodeExpr::Call(MathFn::Min, args) if args.len() == 2 && pair(&args[0], &args[1]) => {
            Some(WcrOp::Min)
        }
        CodeExpr::Call(MathFn::Max, args) if args.len() == 2 && pair(&args[0], &args[1]) => {
            Some(WcrOp::Max)
        }
        _ => None,
    }
}

/// DaCe's names of element types.
pub(crate) fn dtype(name: &str) -> Option<ScalarType> {
    crate::dace_format::dtype_of(name)
}

/// A math function by its Python/C++ name (after any `math.`/`std::` prefix).
pub(crate) fn math_fn(name: &str) -> Option<MathFn> {
    Some(match name {
        "sqrt" => MathFn::Sqrt,
        "abs" | "fabs" => MathFn::Abs,
        "exp" => MathFn::Exp,
        "log" => MathFn::Ln,
        "sin" => MathFn::Sin,
        "cos" => MathFn::Cos,
        "tanh" => MathFn::Tanh,
        "min" | "fmin" | "Min" => MathFn::Min,
        "max" | "fmax" | "Max" => MathFn::Max,
        "floor" => MathFn::Floor,
        "ceil" | "ceiling" => MathFn::Ceil,
        "atan2" | "arctan2" => MathFn::Atan2,
        "asin" | "arcsin" => MathFn::Asin,
        "acos" | "arccos" => MathFn::Acos,
        "atan" | "arctan" => MathFn::Atan,
        "sinh" => MathFn::Sinh,
        "cosh" => MathFn::Cosh,
        "hypot" => MathFn::Hypot,
        "cbrt" => MathFn::Cbrt,
        "erf" => MathFn::Erf,
        "conj" => MathFn::Conj,
        "arg" => MathFn::Arg,
        "fma" => MathFn::MulAdd,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::{read_wrapping_casts, same_integer_value, CodeExpr};
    use crate::import::python::parse_expr;
    use crate::ir::ScalarType;

    /// The export's spellings of wrapping casts read back as casts; other
    /// masks and offsets stay what they are.
    #[test]
    fn wrapping_casts_are_read_back_as_casts() {
        let read = |t: &str| read_wrapping_casts(parse_expr(t).unwrap());
        let cast_of_n = |ty| CodeExpr::Cast(ty, Box::new(CodeExpr::Name("N".into())));
        assert_eq!(
            read("((((N) + 2147483648) & 4294967295) - 2147483648)"),
            cast_of_n(ScalarType::I32)
        );
        assert_eq!(read("(((N) + 128) & 255) - 128"), cast_of_n(ScalarType::I8));
        assert_eq!(read("((N) & 4294967295)"), cast_of_n(ScalarType::U32));
        assert_eq!(read("N & 65535"), cast_of_n(ScalarType::U16));
        // Inside other arithmetic too.
        let CodeExpr::Binary(_, _, inner) = read("2 * ((N - 5) & 4294967295)") else {
            panic!("a product");
        };
        assert!(
            matches!(*inner, CodeExpr::Cast(ScalarType::U32, _)),
            "{inner:?}"
        );
        // Not the signed spelling: its mask alone is read (the same value).
        let CodeExpr::Binary(_, masked, _) = read("((N + 127) & 255) - 127") else {
            panic!("a difference");
        };
        assert!(
            matches!(*masked, CodeExpr::Cast(ScalarType::U8, _)),
            "{masked:?}"
        );
        for kept in ["N & 4095", "N & 256", "(N + 128) - 128", "N - 255"] {
            assert_eq!(read(kept), parse_expr(kept).unwrap(), "{kept}");
        }
    }

    /// DaCe writes the strides of a 3-D array as `[N**2, N, 1]`.
    #[test]
    fn powers_have_integer_values() {
        let same =
            |a: &str, b: &str| same_integer_value(&parse_expr(a).unwrap(), &parse_expr(b).unwrap());
        assert!(same("N**2", "N * N"));
        assert!(same("(N - 2)**2", "(N - 2) * (N - 2)"));
        assert!(same("N**0", "1"));
        assert!(!same("N**2", "N * 2"));
        // A negative exponent is no integer.
        assert!(!same("N**(-1)", "N**(-1)"));
    }
}
