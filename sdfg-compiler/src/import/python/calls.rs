//! Calls and dotted names: math functions (`math.sqrt`, `np.exp`),
//! conversions (`float(x)`, `dace.float64(x)`), constants (`math.pi`) and
//! SymPy's functions (`Min`, `Mod`, `int_floor`, `Eq`).

use super::super::code::{dtype, math_fn, CodeExpr, Unary};
use super::{construct, syntax, CodeError};
use crate::ir::{BinOp, MathFn, ScalarType};

/// Module prefixes whose functions are the plain math functions.
fn strip_module(path: &str) -> &str {
    for prefix in [
        "dace.math.",
        "numpy.",
        "np.",
        "math.",
        "cmath.",
        "dace.",
        "sympy.",
    ] {
        if let Some(rest) = path.strip_prefix(prefix) {
            return rest;
        }
    }
    path
}

/// A dotted name used as a value (`math.pi`, SymPy's `oo`), or a plain name.
pub(super) fn constant(path: &str) -> Result<CodeExpr, CodeError> {
    if !path.contains('.') {
        return Ok(match path {
            "oo" => CodeExpr::Special {
                value: f64::INFINITY,
                ty: None,
            },
            "nan" | "NaN" => CodeExpr::Special {
                value: f64::NAN,
                ty: None,
            },
            "pi" => float(std::f64::consts::PI),
            _ => CodeExpr::Name(path.to_string()),
        });
    }
    match strip_module(path) {
        "pi" => Ok(float(std::f64::consts::PI)),
        "e" => Ok(float(std::f64::consts::E)),
        "inf" | "infty" | "Inf" => Ok(CodeExpr::Special {
            value: f64::INFINITY,
            ty: None,
        }),
        "nan" | "NaN" => Ok(CodeExpr::Special {
            value: f64::NAN,
            ty: None,
        }),
        "True" | "true" => Ok(CodeExpr::Bool(true)),
        "False" | "false" => Ok(CodeExpr::Bool(false)),
        _ => Err(construct(path)),
    }
}

fn float(value: f64) -> CodeExpr {
    CodeExpr::Float {
        value,
        negative: false,
        suffix: None,
    }
}

/// A call: a math function, a conversion or one of SymPy's functions.
pub(super) fn call(path: &str, mut args: Vec<CodeExpr>) -> Result<CodeExpr, CodeError> {
    let name = strip_module(path);
    let arity = |n: usize| -> Result<(), CodeError> {
        if args.len() == n {
            Ok(())
        } else {
            Err(syntax(format!(
                "`{path}` takes {n} argument(s), found {}",
                args.len()
            )))
        }
    };
    let cast_to = match name {
        "float" => Some(ScalarType::F64),
        "int" => Some(ScalarType::I64),
        "bool" => Some(ScalarType::Bool),
        "float_" => Some(ScalarType::F64),
        "int_" => Some(ScalarType::I64),
        other => dtype(other),
    };
    if let Some(ty) = cast_to {
        arity(1)?;
        return Ok(CodeExpr::Cast(ty, Box::new(args.remove(0))));
    }
    let two = |args: &mut Vec<CodeExpr>| -> (Box<CodeExpr>, Box<CodeExpr>) {
        let b = args.pop().unwrap_or(CodeExpr::int(0));
        let a = args.pop().unwrap_or(CodeExpr::int(0));
        (Box::new(a), Box::new(b))
    };
    let compare = |op: BinOp, args: &mut Vec<CodeExpr>| {
        let (a, b) = two(args);
        CodeExpr::Binary(op, a, b)
    };
    match name {
        "pow" | "Pow" => {
            arity(2)?;
            let (a, b) = two(&mut args);
            Ok(CodeExpr::Pow(a, b))
        }
        "Mod" => {
            arity(2)?;
            Ok(compare(BinOp::Rem, &mut args))
        }
        "int_floor" | "floordiv" => {
            arity(2)?;
            let (a, b) = two(&mut args);
            Ok(CodeExpr::FloorDiv(a, b))
        }
        "int_ceil" => {
            // ceil(a / b) = (a + b - 1) // b for positive b.
            arity(2)?;
            let (a, b) = two(&mut args);
            let num = CodeExpr::Binary(
                BinOp::Sub,
                Box::new(CodeExpr::Binary(BinOp::Add, a, b.clone())),
                Box::new(CodeExpr::int(1)),
            );
            Ok(CodeExpr::FloorDiv(Box::new(num), b))
        }
        "Eq" | "Ne" | "Lt" | "Le" | "Gt" | "Ge" | "LessThan" | "StrictLessThan" | "GreaterThan"
        | "StrictGreaterThan" => {
            arity(2)?;
            let op = match name {
                "Eq" => BinOp::Eq,
                "Ne" => BinOp::Ne,
                "Lt" | "StrictLessThan" => BinOp::Lt,
                "Le" | "LessThan" => BinOp::Le,
                "Gt" | "StrictGreaterThan" => BinOp::Gt,
                _ => BinOp::Ge,
            };
            Ok(compare(op, &mut args))
        }
        "And" | "Or" => {
            if args.is_empty() {
                return Err(syntax(format!("`{name}` needs arguments")));
            }
            let op = if name == "And" { BinOp::And } else { BinOp::Or };
            let mut it = args.into_iter();
            let first = it.next().unwrap_or(CodeExpr::Bool(true));
            Ok(it.fold(first, |acc, x| {
                CodeExpr::Binary(op, Box::new(acc), Box::new(x))
            }))
        }
        "Not" => {
            arity(1)?;
            Ok(CodeExpr::Unary(Unary::Not, Box::new(args.remove(0))))
        }
        "Abs" => {
            arity(1)?;
            Ok(CodeExpr::Call(MathFn::Abs, args))
        }
        _ => match math_fn(name) {
            Some(f) => {
                if matches!(f, MathFn::Min | MathFn::Max) && args.len() > 2 {
                    // min(a, b, c) = min(min(a, b), c)
                    let mut it = args.into_iter();
                    let first = it.next().unwrap_or(CodeExpr::int(0));
                    return Ok(it.fold(first, |acc, x| CodeExpr::Call(f, vec![acc, x])));
                }
                arity(f.arity())?;
                Ok(CodeExpr::Call(f, args))
            }
            None => Err(CodeError(format!(
                "calls `{path}`, which the tasklet language does not have"
            ))),
        },
    }
}
