//! The typed tasklet language: one expression/statement tree that feeds the PTX
//! backend, the Rust backend and the reference evaluator, so all three compute
//! the same function.
//!
//! Every expression carries its type (fixed by the front end: literals are
//! already typed, implicit conversions do not exist) and the span of the
//! user's tokens it came from.
//!
//! Semantics shared by every backend (the evaluator in `crate::eval` is the
//! definition):
//! - integer `+ - *`, unary `-` and `abs` wrap (two's complement);
//! - integer `/` and `%` truncate toward zero; `x / 0 == 0`, `x % 0 == x`,
//!   `MIN / -1 == MIN`, `MIN % -1 == 0` (no traps on any device);
//! - `<<` and `>>` take any integer type on the right; the amount is masked to
//!   the bit width of the left operand (Rust's `wrapping_shl`/`wrapping_shr`);
//!   `>>` is arithmetic for signed, logical for unsigned types;
//! - float ops are IEEE 754 binary32/64 with round-to-nearest-even, never
//!   contracted into fused multiply-adds (`a.mul_add(b, c)` asks for one:
//!   `a * b + c` rounded once);
//! - `as` casts follow Rust: float -> int saturates, NaN -> 0; int -> float and
//!   f64 -> f32 round to nearest; int -> int truncates or extends; bool -> int
//!   is 0/1; nothing casts to bool;
//! - `&&`, `||` and `if`/`else` evaluate only what they must (a guarded load
//!   such as `if i > 0 { A[i - 1] } else { 0.0 }` never reads `A[-1]`).

use super::block::{Barrier, ThreadMap};
use super::types::{ScalarType, Value};
use super::{ContainerId, SymbolId};
use proc_macro2::Span;

/// Index of a local variable (`let` binding or `for` loop variable) in
/// [`TaskletBody::locals`].
pub type LocalId = usize;

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: ScalarType,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Lit(Value),
    /// A local, a map parameter or a symbol.
    Var(VarRef),
    /// An element of a container: `A[i, j]`; a scalar container has no index.
    /// Index expressions have any integer type (a negative index is out of bounds).
    Load {
        container: ContainerId,
        index: Vec<Expr>,
    },
    Unary {
        op: UnOp,
        arg: Box<Expr>,
    },
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `arg as ty` (the expression's `ty` is the target type).
    Cast {
        arg: Box<Expr>,
    },
    /// `if cond { then } else { else_ }` in value position; lazily evaluated.
    Select {
        cond: Box<Expr>,
        then: Box<Expr>,
        else_: Box<Expr>,
    },
    /// `x.sqrt()`, `x.powi(n)`, `a.min(b)`, ...: the receiver is `args[0]`.
    Call {
        func: MathFn,
        args: Vec<Expr>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarRef {
    Local(LocalId),
    /// The n-th parameter of the enclosing map.
    Param(usize),
    Symbol(SymbolId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// Arithmetic negation (wrapping for integers).
    Neg,
    /// Logical not for bool, bitwise not for integers.
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Short-circuit `&&` (bool only).
    And,
    /// Short-circuit `||` (bool only).
    Or,
}

impl BinOp {
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }
}

/// The math methods of the tasklet language. Receiver first in `args`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    /// floats: IEEE sqrt (exact, `.rn`).
    Sqrt,
    /// floats and signed integers (wrapping: `i32::MIN.abs() == i32::MIN`).
    Abs,
    Exp,
    Ln,
    Sin,
    Cos,
    Tanh,
    /// `x.powi(n)` with `n: i32`.
    Powi,
    Powf,
    /// Numeric; for floats, NaN-ignoring like Rust's `f64::min`.
    Min,
    Max,
    Floor,
    Ceil,
    /// `y.atan2(x)`: the angle of (x, y), C99's special cases.
    Atan2,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    /// `x.hypot(y)`: sqrt(x^2 + y^2) without intermediate overflow.
    Hypot,
    Cbrt,
    /// The error function 2/sqrt(pi) * integral of e^(-t^2) over [0, x]
    /// (std has none: every backend runs `math::erf_prog`).
    Erf,
    /// `z.conj()`: the complex conjugate.
    Conj,
    /// `z.norm_sqr()`: re^2 + im^2 (a real).
    NormSqr,
    /// `z.arg()`: `im.atan2(re)` (a real).
    Arg,
    /// `z.re` (a field): the real part.
    Re,
    /// `z.im` (a field): the imaginary part.
    Im,
    /// `c64::new(re, im)`, `c32::new(re, im)`, `Complex::new(re, im)`.
    Complex,
    /// `a.mul_add(b, c)` on floats: `a * b + c` with one rounding (Rust's
    /// `f64::mul_add`, PTX `fma.rn`).
    MulAdd,
}

impl MathFn {
    pub const ALL: [MathFn; 29] = [
        MathFn::Sqrt,
        MathFn::Abs,
        MathFn::Exp,
        MathFn::Ln,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Tanh,
        MathFn::Powi,
        MathFn::Powf,
        MathFn::Min,
        MathFn::Max,
        MathFn::Floor,
        MathFn::Ceil,
        MathFn::Atan2,
        MathFn::Asin,
        MathFn::Acos,
        MathFn::Atan,
        MathFn::Sinh,
        MathFn::Cosh,
        MathFn::Hypot,
        MathFn::Cbrt,
        MathFn::Erf,
        MathFn::Conj,
        MathFn::NormSqr,
        MathFn::Arg,
        MathFn::Re,
        MathFn::Im,
        MathFn::Complex,
        MathFn::MulAdd,
    ];

    pub fn method_name(self) -> &'static str {
        match self {
            MathFn::Sqrt => "sqrt",
            MathFn::Abs => "abs",
            MathFn::Exp => "exp",
            MathFn::Ln => "ln",
            MathFn::Sin => "sin",
            MathFn::Cos => "cos",
            MathFn::Tanh => "tanh",
            MathFn::Powi => "powi",
            MathFn::Powf => "powf",
            MathFn::Min => "min",
            MathFn::Max => "max",
            MathFn::Floor => "floor",
            MathFn::Ceil => "ceil",
            MathFn::Atan2 => "atan2",
            MathFn::Asin => "asin",
            MathFn::Acos => "acos",
            MathFn::Atan => "atan",
            MathFn::Sinh => "sinh",
            MathFn::Cosh => "cosh",
            MathFn::Hypot => "hypot",
            MathFn::Cbrt => "cbrt",
            MathFn::Erf => "erf",
            MathFn::Conj => "conj",
            MathFn::NormSqr => "norm_sqr",
            MathFn::Arg => "arg",
            MathFn::Re => "re",
            MathFn::Im => "im",
            MathFn::Complex => "new",
            MathFn::MulAdd => "mul_add",
        }
    }

    /// The method called `name` (`re`, `im` and `new` are not methods).
    pub fn from_method_name(name: &str) -> Option<MathFn> {
        MathFn::ALL
            .into_iter()
            .find(|f| f.is_method() && f.method_name() == name)
    }

    /// Called as a method (`x.sqrt()`); the parts of a complex value are
    /// fields (`z.re`) and its constructor an associated function.
    pub fn is_method(self) -> bool {
        !matches!(self, MathFn::Re | MathFn::Im | MathFn::Complex)
    }

    /// A function of real numbers (every method but the complex-only
    /// `conj`, `norm_sqr` and `arg`, and not the complex parts and
    /// constructor).
    pub fn takes_reals(self) -> bool {
        !matches!(
            self,
            MathFn::Conj
                | MathFn::NormSqr
                | MathFn::Arg
                | MathFn::Re
                | MathFn::Im
                | MathFn::Complex
        )
    }

    /// Whether a call with a receiver of type `arg` is transcendental
    /// (`abs` of a complex value is a `hypot`).
    pub fn is_transcendental_for(self, arg: ScalarType) -> bool {
        self.is_transcendental() || (self == MathFn::Abs && arg.is_complex())
    }

    /// A transcendental function: backends agree with the evaluator within
    /// the function's ULP bound (`codegen::ptx::ULP_BOUNDS`), not bit for bit.
    pub fn is_transcendental(self) -> bool {
        !matches!(
            self,
            MathFn::Sqrt
                | MathFn::Abs
                | MathFn::Powi
                | MathFn::Min
                | MathFn::Max
                | MathFn::Floor
                | MathFn::Ceil
                | MathFn::Conj
                | MathFn::NormSqr
                | MathFn::Re
                | MathFn::Im
                | MathFn::Complex
                | MathFn::MulAdd
        )
    }

    /// Number of arguments including the receiver.
    pub fn arity(self) -> usize {
        match self {
            MathFn::Powi
            | MathFn::Powf
            | MathFn::Min
            | MathFn::Max
            | MathFn::Atan2
            | MathFn::Hypot
            | MathFn::Complex => 2,
            MathFn::MulAdd => 3,
            _ => 1,
        }
    }
}

/// Write-conflict resolution of a store: concurrent updates of one element
/// combine with this operator (atomics on the GPU).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WcrOp {
    /// `A[k] += e`
    Sum,
    /// `A[k] *= e`
    Product,
    /// `A[k] = A[k].min(e)`
    Min,
    /// `A[k] = A[k].max(e)`
    Max,
}

impl WcrOp {
    pub fn name(self) -> &'static str {
        match self {
            WcrOp::Sum => "sum",
            WcrOp::Product => "product",
            WcrOp::Min => "min",
            WcrOp::Max => "max",
        }
    }
}

#[derive(Clone, Debug)]
pub enum Stmt {
    /// `let [mut] x = init;`
    Let {
        local: LocalId,
        init: Expr,
        span: Span,
    },
    /// `x = value;` or `x += value;` (desugared to `x = x + value`) on a `let mut` local.
    AssignLocal {
        local: LocalId,
        value: Expr,
        span: Span,
    },
    /// `A[i] = value;` (wcr: None) or a reduction `A[i] += value;` etc.
    Store {
        container: ContainerId,
        index: Vec<Expr>,
        value: Expr,
        wcr: Option<WcrOp>,
        span: Span,
    },
    /// `if cond { .. } else { .. }` as a statement.
    If {
        cond: Expr,
        then: Vec<Stmt>,
        else_: Vec<Stmt>,
        span: Span,
    },
    /// `for var in start..end { body }` (`(a..b).step_by(s)` sets `step`).
    /// `var` has the bounds' integer type. `end` and `inclusive` are as in
    /// [`super::MapParam`]: run-time code reads [`super::range_end`].
    For {
        var: LocalId,
        start: Expr,
        end: Expr,
        inclusive: bool,
        step: Option<Expr>,
        body: Vec<Stmt>,
        span: Span,
    },
    /// `while cond { body }`: `cond` is evaluated before every iteration.
    While {
        cond: Expr,
        body: Vec<Stmt>,
        span: Span,
    },
    /// `break;`: leaves the innermost `for` or `while` loop.
    Break { span: Span },
    /// `continue;`: goes on with the next iteration of the innermost loop
    /// (a `for` loop steps its variable first, a `while` loop tests again).
    Continue { span: Span },
    /// `map NAME[p in a..b, ...] on threads { BODY }`: only in the body of a
    /// block map, at block level (see [`super::block`]).
    ThreadMap(ThreadMap),
    /// A barrier of the block (`bar.sync`), placed by the compiler
    /// ([`super::barriers`](mod@super::barriers)), never written by the user.
    Barrier(Barrier),
}

#[derive(Clone, Debug)]
pub struct Local {
    pub name: String,
    pub ty: ScalarType,
    pub mutable: bool,
    pub span: Span,
}

/// The code of a tasklet or map body.
#[derive(Clone, Debug, Default)]
pub struct TaskletBody {
    pub stmts: Vec<Stmt>,
    pub locals: Vec<Local>,
}

impl Expr {
    pub fn new(kind: ExprKind, ty: ScalarType, span: Span) -> Expr {
        Expr { kind, ty, span }
    }

    pub fn lit(v: Value, span: Span) -> Expr {
        Expr {
            kind: ExprKind::Lit(v),
            ty: v.ty(),
            span,
        }
    }

    /// A canonical text of the expression without spans: equal keys mean
    /// the same computation (used to tell accesses apart).
    pub fn key(&self) -> String {
        let keys = |v: &[Expr]| v.iter().map(Expr::key).collect::<Vec<_>>().join(",");
        match &self.kind {
            ExprKind::Lit(v) => format!("{v}{}", v.ty()),
            ExprKind::Var(VarRef::Local(l)) => format!("l{l}"),
            ExprKind::Var(VarRef::Param(p)) => format!("p{p}"),
            ExprKind::Var(VarRef::Symbol(s)) => format!("s{s}"),
            ExprKind::Load { container, index } => format!("c{container}[{}]", keys(index)),
            ExprKind::Unary { op, arg } => format!("({op:?} {})", arg.key()),
            ExprKind::Binary { op, lhs, rhs } => {
                format!("({} {} {})", lhs.key(), op.symbol(), rhs.key())
            }
            ExprKind::Cast { arg } => format!("({} as {})", arg.key(), self.ty),
            ExprKind::Select { cond, then, else_ } => {
                format!("(if {} {} {})", cond.key(), then.key(), else_.key())
            }
            ExprKind::Call { func, args } => format!("{}({})", func.method_name(), keys(args)),
        }
    }

    /// Visits this expression and every subexpression, parents first.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        f(self);
        match &self.kind {
            ExprKind::Lit(_) | ExprKind::Var(_) => {}
            ExprKind::Load { index, .. } => index.iter().for_each(|e| e.walk(f)),
            ExprKind::Unary { arg, .. } | ExprKind::Cast { arg } => arg.walk(f),
            ExprKind::Binary { lhs, rhs, .. } => {
                lhs.walk(f);
                rhs.walk(f);
            }
            ExprKind::Select { cond, then, else_ } => {
                cond.walk(f);
                then.walk(f);
                else_.walk(f);
            }
            ExprKind::Call { args, .. } => args.iter().for_each(|e| e.walk(f)),
        }
    }
}

impl Stmt {
    pub fn span(&self) -> Span {
        match self {
            Stmt::Let { span, .. }
            | Stmt::AssignLocal { span, .. }
            | Stmt::Store { span, .. }
            | Stmt::If { span, .. }
            | Stmt::For { span, .. }
            | Stmt::While { span, .. }
            | Stmt::Break { span }
            | Stmt::Continue { span } => *span,
            Stmt::ThreadMap(t) => t.span,
            Stmt::Barrier(b) => b.span,
        }
    }

    /// Visits every expression of this statement (and nested statements).
    pub fn walk_exprs<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        match self {
            Stmt::Let { init, .. } => init.walk(f),
            Stmt::AssignLocal { value, .. } => value.walk(f),
            Stmt::Store { index, value, .. } => {
                index.iter().for_each(|e| e.walk(f));
                value.walk(f);
            }
            Stmt::If {
                cond, then, else_, ..
            } => {
                cond.walk(f);
                then.iter().chain(else_).for_each(|s| s.walk_exprs(f));
            }
            Stmt::For {
                start,
                end,
                step,
                body,
                ..
            } => {
                start.walk(f);
                end.walk(f);
                if let Some(s) = step {
                    s.walk(f);
                }
                body.iter().for_each(|s| s.walk_exprs(f));
            }
            Stmt::While { cond, body, .. } => {
                cond.walk(f);
                body.iter().for_each(|s| s.walk_exprs(f));
            }
            Stmt::Break { .. } | Stmt::Continue { .. } => {}
            Stmt::ThreadMap(t) => {
                for p in &t.params {
                    p.start.walk(f);
                    p.end.walk(f);
                    if let Some(s) = &p.step {
                        s.walk(f);
                    }
                }
                t.body.iter().for_each(|s| s.walk_exprs(f));
            }
            Stmt::Barrier(_) => {}
        }
    }

    /// Whether running this statement may leave the innermost enclosing
    /// loop's body early: it is, or contains outside a nested loop, a
    /// `break` or `continue`. The statements after it in that body then run
    /// only on some iterations.
    pub fn may_leave_loop(&self) -> bool {
        match self {
            Stmt::Break { .. } | Stmt::Continue { .. } => true,
            Stmt::If { then, else_, .. } => then.iter().chain(else_).any(Stmt::may_leave_loop),
            _ => false,
        }
    }

    /// Whether this statement can `break` out of the loop it is in (a
    /// `break` of a nested loop leaves only that one).
    pub fn may_break(&self) -> bool {
        match self {
            Stmt::Break { .. } => true,
            Stmt::If { then, else_, .. } => then.iter().chain(else_).any(Stmt::may_break),
            _ => false,
        }
    }

    /// Visits this statement and nested statements, parents first.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a Stmt)) {
        f(self);
        match self {
            Stmt::If { then, else_, .. } => then.iter().chain(else_).for_each(|s| s.walk(f)),
            Stmt::For { body, .. } | Stmt::While { body, .. } => {
                body.iter().for_each(|s| s.walk(f))
            }
            Stmt::ThreadMap(t) => t.body.iter().for_each(|s| s.walk(f)),
            _ => {}
        }
    }
}

/// Structural equality of two expressions: the same computation on the same
/// data, node for node (types compared, spans ignored). One definition for
/// every pass that asks whether two accesses name the same element.
pub fn same_expr(a: &Expr, b: &Expr) -> bool {
    let all = |x: &[Expr], y: &[Expr]| {
        x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_expr(x, y))
    };
    a.ty == b.ty
        && match (&a.kind, &b.kind) {
            (ExprKind::Lit(x), ExprKind::Lit(y)) => x == y,
            (ExprKind::Var(x), ExprKind::Var(y)) => x == y,
            (
                ExprKind::Load {
                    container: c,
                    index: i,
                },
                ExprKind::Load {
                    container: d,
                    index: j,
                },
            ) => c == d && all(i, j),
            (ExprKind::Unary { op: o, arg: x }, ExprKind::Unary { op: p, arg: y }) => {
                o == p && same_expr(x, y)
            }
            (
                ExprKind::Binary {
                    op: o,
                    lhs: l1,
                    rhs: r1,
                },
                ExprKind::Binary {
                    op: p,
                    lhs: l2,
                    rhs: r2,
                },
            ) => o == p && same_expr(l1, l2) && same_expr(r1, r2),
            (ExprKind::Cast { arg: x }, ExprKind::Cast { arg: y }) => same_expr(x, y),
            (
                ExprKind::Select {
                    cond: c1,
                    then: t1,
                    else_: e1,
                },
                ExprKind::Select {
                    cond: c2,
                    then: t2,
                    else_: e2,
                },
            ) => same_expr(c1, c2) && same_expr(t1, t2) && same_expr(e1, e2),
            (ExprKind::Call { func: f, args: x }, ExprKind::Call { func: g, args: y }) => {
                f == g && all(x, y)
            }
            _ => false,
        }
}
