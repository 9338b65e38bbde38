//! Printers for the tasklet language: Rust syntax (pictures, messages) and
//! Python/SymPy syntax (DaCe's symbolic expressions: ranges, subsets, shapes,
//! interstate conditions and assignments).
//!
//! Both printers put parentheses only where the target language's precedence
//! needs them, so `0.2 * (A[i, j] + B[i, j])` prints as written. They never
//! panic: a reference to a missing local, parameter, symbol or container
//! prints as `?name` placeholders instead.

use crate::ir::{
    range_end, BinOp, ContainerId, Expr, ExprKind, Local, Map, MapParam, MathFn, RangeEnd,
    ScalarType, Sdfg, Stmt, Tasklet, UnOp, Value, VarRef, WcrOp,
};

/// The names of the variables an expression may refer to besides symbols:
/// the locals of the enclosing tasklet body and the parameters of the
/// enclosing map. Interstate edges, shapes and map ranges have neither.
#[derive(Clone, Copy, Debug, Default)]
pub struct BodyNames<'a> {
    pub locals: &'a [Local],
    pub params: &'a [MapParam],
}

impl<'a> BodyNames<'a> {
    /// No locals, no parameters: for expressions outside tasklet bodies.
    pub fn none() -> BodyNames<'static> {
        BodyNames {
            locals: &[],
            params: &[],
        }
    }
    pub fn for_map(map: &'a Map) -> BodyNames<'a> {
        BodyNames {
            locals: &map.body.locals,
            params: &map.params,
        }
    }
    pub fn for_tasklet(tasklet: &'a Tasklet) -> BodyNames<'a> {
        BodyNames {
            locals: &tasklet.body.locals,
            params: &[],
        }
    }

    /// The name of a local, a parameter or a symbol as the user wrote it.
    pub fn var_name(&self, var: VarRef, sdfg: &Sdfg) -> String {
        let found = match var {
            VarRef::Local(l) => self.locals.get(l).map(|l| l.name.clone()),
            VarRef::Param(p) => self.params.get(p).map(|p| p.name.text.clone()),
            VarRef::Symbol(s) => sdfg.symbols.get(s).map(|s| s.name.text.clone()),
        };
        found.unwrap_or_else(|| match var {
            VarRef::Local(l) => format!("?local{l}"),
            VarRef::Param(p) => format!("?param{p}"),
            VarRef::Symbol(s) => format!("?symbol{s}"),
        })
    }
}

/// A container's name (a placeholder for a dangling id).
pub fn container_name(sdfg: &Sdfg, container: ContainerId) -> String {
    sdfg.containers
        .get(container)
        .map(|c| c.name.text.clone())
        .unwrap_or_else(|| format!("?container{container}"))
}

// ---------------------------------------------------------------- Rust

/// `e` in Rust syntax, as the user would write it in a tasklet body.
pub fn expr_to_rust(e: &Expr, sdfg: &Sdfg, names: &BodyNames) -> String {
    RustPrinter::new(sdfg, names, Literals::AsWritten).expr(e)
}

/// `e` as source text that `sdfg!` parses back to the same values in any
/// context: every literal carries its type (`5u8`, `-1.5f32`, `i64::MIN`,
/// `(0.5f32 as f16)`), so none depends on the type its context expects;
/// an ordering of bools, which the language does not have, prints as the
/// bit operation with its value (`a < b` as `!a & b`).
pub fn expr_to_source(e: &Expr, sdfg: &Sdfg, names: &BodyNames) -> String {
    RustPrinter::new(sdfg, names, Literals::Typed).expr(e)
}

/// `A[i, j]`, or `A` for a scalar container.
pub fn access_to_rust(
    container: ContainerId,
    index: &[Expr],
    sdfg: &Sdfg,
    names: &BodyNames,
) -> String {
    RustPrinter::new(sdfg, names, Literals::AsWritten).access(container, index)
}

/// A map parameter and its range as written: `i in a..b`, `i in a..=last`
/// or `i in (a..b).step_by(s)` (a dependent range reads the parameters
/// before it, through `names`).
pub fn map_param_to_rust(p: &MapParam, sdfg: &Sdfg, names: &BodyNames) -> String {
    let (dots, end) = match p.run_end() {
        RangeEnd::Exclusive(e) => ("..", e),
        RangeEnd::Inclusive(last) => ("..=", last),
    };
    let range = format!(
        "{}{dots}{}",
        expr_to_rust(&p.start, sdfg, names),
        expr_to_rust(end, sdfg, names)
    );
    match &p.step {
        Some(step) => format!(
            "{} in ({range}).step_by({})",
            p.name.text,
            expr_to_rust(step, sdfg, names)
        ),
        None => format!("{} in {range}", p.name.text),
    }
}

/// A tasklet body in Rust syntax, one statement per line, indented by `indent` spaces.
pub fn stmts_to_rust(stmts: &[Stmt], sdfg: &Sdfg, names: &BodyNames, indent: usize) -> String {
    RustPrinter::new(sdfg, names, Literals::AsWritten).stmts(stmts, indent)
}

/// A tasklet body as source text with typed literals ([`expr_to_source`]).
pub fn stmts_to_source(stmts: &[Stmt], sdfg: &Sdfg, names: &BodyNames, indent: usize) -> String {
    RustPrinter::new(sdfg, names, Literals::Typed).stmts(stmts, indent)
}

/// How literals print.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Literals {
    /// As a user would write them: `5`, `1.5` (pictures, messages).
    AsWritten,
    /// With their types ([`value_to_source`]).
    Typed,
}

/// The two syntaxes printed here.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Syntax {
    Rust,
    Python,
}

/// Binary operator precedence, higher binds tighter. Rust and Python rank
/// the arithmetic, shift and bit operators alike; below them they differ:
/// Python's `not` (3, see `py_prec`) binds looser than its comparisons and
/// tighter than `and` and `or`.
fn binop_prec(op: BinOp, syntax: Syntax) -> u8 {
    let python = syntax == Syntax::Python;
    match op {
        BinOp::Mul | BinOp::Div | BinOp::Rem => 11,
        BinOp::Add | BinOp::Sub => 10,
        BinOp::Shl | BinOp::Shr => 9,
        BinOp::BitAnd => 8,
        BinOp::BitXor => 7,
        BinOp::BitOr => 6,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge if python => 4,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 5,
        BinOp::And if python => 2,
        BinOp::And => 4,
        BinOp::Or if python => 1,
        BinOp::Or => 3,
    }
}

fn is_negative(v: Value) -> bool {
    match v {
        Value::I8(x) => x < 0,
        Value::I16(x) => x < 0,
        Value::I32(x) => x < 0,
        Value::I64(x) => x < 0,
        Value::F32(x) => x.is_sign_negative(),
        Value::F64(x) => x.is_sign_negative(),
        _ => false,
    }
}

/// A literal in Rust syntax; non-finite floats as their associated constants.
pub fn value_to_rust(v: Value) -> String {
    match v {
        Value::F32(x) if !x.is_finite() => float_constant_name("f32", x as f64),
        Value::F64(x) if !x.is_finite() => float_constant_name("f64", x),
        other => other.to_string(),
    }
}

fn float_constant_name(ty: &str, x: f64) -> String {
    if x.is_nan() {
        format!("{ty}::NAN")
    } else if x > 0.0 {
        format!("{ty}::INFINITY")
    } else {
        format!("{ty}::NEG_INFINITY")
    }
}

/// A literal that parses back to `v` in any context: integers and floats
/// with their suffix (`5u8`, `-3i16`, `1.5f32`, `-0.0f64`), the minimum of a
/// signed type as its constant (`i8::MIN`: `128i8` does not exist to
/// negate), non-finite floats as constants, `f16`/`bf16` as an exact `f32`
/// cast (they have no suffix), complex values as `c64::new(re, im)`.
pub fn value_to_source(v: Value) -> String {
    let ty = v.ty();
    match v {
        Value::Bool(b) => b.to_string(),
        Value::F32(x) if !x.is_finite() => float_constant_name("f32", x as f64),
        Value::F64(x) if !x.is_finite() => float_constant_name("f64", x),
        Value::F32(x) => format!("{x:?}f32"),
        Value::F64(x) => format!("{x:?}f64"),
        // Every f16/bf16 value is an f32 exactly.
        Value::F16(h) => half_source(h.to_f32(), ty),
        Value::BF16(h) => half_source(h.to_f32(), ty),
        Value::C32(z) => format!(
            "c32::new({}, {})",
            value_to_source(Value::F32(z.re)),
            value_to_source(Value::F32(z.im))
        ),
        Value::C64(z) => format!(
            "c64::new({}, {})",
            value_to_source(Value::F64(z.re)),
            value_to_source(Value::F64(z.im))
        ),
        int => match (int.as_i128(), ty.int_range()) {
            (Some(x), Some((min, _))) if x == min && min < 0 => format!("{ty}::MIN"),
            _ => format!("{int}{ty}"),
        },
    }
}

fn half_source(x: f32, ty: ScalarType) -> String {
    if x.is_finite() {
        format!("({x:?}f32 as {ty})")
    } else {
        float_constant_name(&ty.to_string(), x as f64)
    }
}

/// `a < b` on bools, which the language does not order, as the bit
/// operation with the same value (`!a & b`); `None` for other operators.
fn bool_ordering(op: BinOp, lhs: &Expr, rhs: &Expr) -> Option<Expr> {
    let not = |e: &Expr| {
        Expr::new(
            ExprKind::Unary {
                op: UnOp::Not,
                arg: Box::new(e.clone()),
            },
            ScalarType::Bool,
            e.span,
        )
    };
    let (op, a, b) = match op {
        BinOp::Lt => (BinOp::BitAnd, not(lhs), rhs.clone()),
        BinOp::Le => (BinOp::BitOr, not(lhs), rhs.clone()),
        BinOp::Gt => (BinOp::BitAnd, lhs.clone(), not(rhs)),
        BinOp::Ge => (BinOp::BitOr, lhs.clone(), not(rhs)),
        _ => return None,
    };
    let span = a.span;
    Some(Expr::new(
        ExprKind::Binary {
            op,
            lhs: Box::new(a),
            rhs: Box::new(b),
        },
        ScalarType::Bool,
        span,
    ))
}

/// Whether printed Rust ends with a cast (`a + b as i32`).
fn ends_with_cast(text: &str) -> bool {
    text.rsplit_once(" as ")
        .is_some_and(|(_, ty)| ScalarType::ALL.iter().any(|t| t.to_string() == ty))
}

/// The Rust printer: names from `names`, literals as `literals` says.
struct RustPrinter<'a> {
    sdfg: &'a Sdfg,
    names: &'a BodyNames<'a>,
    literals: Literals,
}

impl<'a> RustPrinter<'a> {
    fn new(sdfg: &'a Sdfg, names: &'a BodyNames<'a>, literals: Literals) -> Self {
        RustPrinter {
            sdfg,
            names,
            literals,
        }
    }

    fn literal(&self, v: Value) -> String {
        match self.literals {
            Literals::AsWritten => value_to_rust(v),
            Literals::Typed => value_to_source(v),
        }
    }

    /// Rust operator precedence, higher binds tighter (the Reference's table).
    fn prec(&self, e: &Expr) -> u8 {
        match &e.kind {
            // A negative literal prints as a negation (`-5`, `-5i8`);
            // `i8::MIN` and the parenthesized `(-0.5f32 as f16)` are atoms.
            ExprKind::Lit(v) if self.literal(*v).starts_with('-') => 13,
            ExprKind::Lit(_) | ExprKind::Var(_) | ExprKind::Load { .. } | ExprKind::Call { .. } => {
                15
            }
            ExprKind::Unary { .. } => 13,
            ExprKind::Cast { .. } => 12,
            ExprKind::Binary { op, .. } => binop_prec(*op, Syntax::Rust),
            // `if c { a } else { b }` needs parentheses inside any operator.
            ExprKind::Select { .. } => 0,
        }
    }

    fn expr(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Lit(v) => self.literal(*v),
            ExprKind::Var(v) => self.names.var_name(*v, self.sdfg),
            ExprKind::Load { container, index } => self.access(*container, index),
            ExprKind::Unary { op, arg } => {
                let sym = match op {
                    UnOp::Neg => "-",
                    UnOp::Not => "!",
                };
                format!("{sym}{}", self.operand(arg, 13))
            }
            ExprKind::Binary { op, lhs, rhs }
                if self.literals == Literals::Typed && lhs.ty == ScalarType::Bool =>
            {
                match bool_ordering(*op, lhs, rhs) {
                    Some(same) => self.expr(&same),
                    None => self.binary(*op, lhs, rhs),
                }
            }
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs),
            ExprKind::Cast { arg } => format!("{} as {}", self.operand(arg, 12), e.ty),
            ExprKind::Select { cond, then, else_ } => format!(
                "if {} {{ {} }} else {{ {} }}",
                self.expr(cond),
                self.expr(then),
                self.expr(else_)
            ),
            ExprKind::Call {
                func: MathFn::Complex,
                args,
            } => {
                let parts: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                format!("{}::new({})", e.ty, parts.join(", "))
            }
            ExprKind::Call {
                func: func @ (MathFn::Re | MathFn::Im),
                args,
            } => match args.first() {
                Some(a) => format!("{}.{}", self.operand(a, 15), func.method_name()),
                None => "?".to_string(),
            },
            ExprKind::Call { func, args } => {
                let receiver = match args.first() {
                    Some(Expr {
                        kind: ExprKind::Lit(v),
                        ..
                    }) => self.receiver_literal(*v),
                    Some(a) => self.operand(a, 15),
                    None => "?".to_string(),
                };
                let rest: Vec<String> = args.iter().skip(1).map(|a| self.expr(a)).collect();
                format!("{receiver}.{}({})", func.method_name(), rest.join(", "))
            }
        }
    }

    fn binary(&self, op: BinOp, lhs: &Expr, rhs: &Expr) -> String {
        let p = binop_prec(op, Syntax::Rust);
        // Left-associative operators; comparisons do not chain at all.
        let lhs_min = if op.is_comparison() { p + 1 } else { p };
        let mut left = self.operand(lhs, lhs_min);
        // `x as i32 < y` and `x as u8 << 2` do not parse: `<` would
        // open the type's generic arguments.
        if matches!(op, BinOp::Lt | BinOp::Shl) && ends_with_cast(&left) {
            left = format!("({left})");
        }
        format!("{left} {} {}", op.symbol(), self.operand(rhs, p + 1))
    }

    /// A literal before `.method()`: `2.0.sqrt()` does not parse and
    /// `-2i32.abs()` negates the call, so a float literal, and in typed
    /// form every literal, goes in parentheses: `(2.0f64).sqrt()`.
    fn receiver_literal(&self, v: Value) -> String {
        match self.literals {
            Literals::AsWritten if v.ty().is_float() => format!("({}{})", value_to_rust(v), v.ty()),
            Literals::AsWritten => value_to_rust(v),
            Literals::Typed => {
                let text = value_to_source(v);
                if text.starts_with('(') {
                    text
                } else {
                    format!("({text})")
                }
            }
        }
    }

    fn operand(&self, e: &Expr, min_prec: u8) -> String {
        let s = self.expr(e);
        if self.prec(e) < min_prec {
            format!("({s})")
        } else {
            s
        }
    }

    fn access(&self, container: ContainerId, index: &[Expr]) -> String {
        let name = container_name(self.sdfg, container);
        if index.is_empty() {
            return name;
        }
        let idx: Vec<String> = index.iter().map(|i| self.expr(i)).collect();
        format!("{name}[{}]", idx.join(", "))
    }

    fn stmts(&self, stmts: &[Stmt], indent: usize) -> String {
        let mut out = String::new();
        for s in stmts {
            self.stmt(s, indent, &mut out);
        }
        out
    }

    fn stmt(&self, s: &Stmt, indent: usize, out: &mut String) {
        let (sdfg, names) = (self.sdfg, self.names);
        let pad = " ".repeat(indent);
        let local = |l: usize| names.var_name(VarRef::Local(l), sdfg);
        match s {
            Stmt::Let { local: l, init, .. } => {
                let mutable = names.locals.get(*l).is_some_and(|l| l.mutable);
                // `let s = 0;` would be an i32: a literal that alone fixes a
                // local's type keeps its suffix when the type is not the default.
                let value = match &init.kind {
                    ExprKind::Lit(v)
                        if self.literals == Literals::AsWritten
                            && !matches!(v, Value::I32(_) | Value::F64(_) | Value::Bool(_))
                            && value_to_rust(*v) == v.to_string() =>
                    {
                        format!("{v}{}", v.ty())
                    }
                    _ => self.expr(init),
                };
                out.push_str(&format!(
                    "{pad}let {}{} = {value};\n",
                    if mutable { "mut " } else { "" },
                    local(*l),
                ));
            }
            Stmt::AssignLocal {
                local: l, value, ..
            } => {
                out.push_str(&format!("{pad}{} = {};\n", local(*l), self.expr(value)));
            }
            Stmt::Store {
                container,
                index,
                value,
                wcr,
                ..
            } => {
                let target = self.access(*container, index);
                let value = self.expr(value);
                let line = match wcr {
                    None => format!("{target} = {value}"),
                    Some(WcrOp::Sum) => format!("{target} += {value}"),
                    Some(WcrOp::Product) => format!("{target} *= {value}"),
                    Some(WcrOp::Min) => format!("{target} = {target}.min({value})"),
                    Some(WcrOp::Max) => format!("{target} = {target}.max({value})"),
                };
                out.push_str(&format!("{pad}{line};\n"));
            }
            Stmt::If {
                cond, then, else_, ..
            } => {
                out.push_str(&format!("{pad}if {} {{\n", self.expr(cond)));
                out.push_str(&self.stmts(then, indent + 4));
                if !else_.is_empty() {
                    out.push_str(&format!("{pad}}} else {{\n"));
                    out.push_str(&self.stmts(else_, indent + 4));
                }
                out.push_str(&format!("{pad}}}\n"));
            }
            Stmt::For {
                var,
                start,
                end,
                inclusive,
                step,
                body,
                ..
            } => {
                let (dots, end) = match range_end(end, *inclusive) {
                    RangeEnd::Exclusive(e) => ("..", e),
                    RangeEnd::Inclusive(last) => ("..=", last),
                };
                let range = format!("{}{dots}{}", self.operand(start, 10), self.operand(end, 10));
                let range = match step {
                    Some(st) => format!("({range}).step_by({})", self.expr(st)),
                    None => range,
                };
                out.push_str(&format!("{pad}for {} in {range} {{\n", local(*var)));
                out.push_str(&self.stmts(body, indent + 4));
                out.push_str(&format!("{pad}}}\n"));
            }
            Stmt::While { cond, body, .. } => {
                out.push_str(&format!("{pad}while {} {{\n", self.expr(cond)));
                out.push_str(&self.stmts(body, indent + 4));
                out.push_str(&format!("{pad}}}\n"));
            }
            Stmt::Break { .. } => out.push_str(&format!("{pad}break;\n")),
            Stmt::Continue { .. } => out.push_str(&format!("{pad}continue;\n")),
            Stmt::ThreadMap(t) => {
                let params: Vec<String> = t
                    .params
                    .iter()
                    .map(|p| {
                        let range = format!(
                            "{}..{}",
                            self.operand(&p.start, 10),
                            self.operand(&p.end, 10)
                        );
                        let range = match &p.step {
                            Some(st) => format!("({range}).step_by({})", self.expr(st)),
                            None => range,
                        };
                        format!("{} in {range}", local(p.local))
                    })
                    .collect();
                out.push_str(&format!(
                    "{pad}map {}[{}] on threads {{\n",
                    t.name.text,
                    params.join(", ")
                ));
                out.push_str(&self.stmts(&t.body, indent + 4));
                out.push_str(&format!("{pad}}}\n"));
                for r in crate::ir::uniform_reductions(t, &sdfg.containers) {
                    out.push_str(&format!(
                        "{pad}// block reduction ({}) into `{}`: warp shuffles, per-warp slots and a barrier (blocks of more than one warp), one update by thread 0\n",
                        r.op.name(),
                        container_name(sdfg, r.container)
                    ));
                }
            }
            // The user cannot write a barrier: it prints as a comment with its reason.
            Stmt::Barrier(b) => out.push_str(&format!("{pad}// barrier: {}\n", b.reason)),
        }
    }
}

// ---------------------------------------------------------------- Python / SymPy

fn py_prec(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Lit(v) if is_negative(*v) => 12,
        ExprKind::Lit(_) | ExprKind::Var(_) | ExprKind::Load { .. } | ExprKind::Call { .. } => 15,
        // Casts print as calls (`int(x)`), vanish (integer widenings) or
        // wrap in parentheses (other integer casts).
        ExprKind::Cast { arg } => {
            if e.ty.holds_every_value_of(arg.ty) {
                py_prec(arg)
            } else {
                15
            }
        }
        ExprKind::Unary { op: UnOp::Neg, .. } => 12,
        ExprKind::Unary { op: UnOp::Not, arg } => {
            if arg.ty == crate::ir::ScalarType::Bool {
                3
            } else {
                12
            }
        }
        ExprKind::Binary { op, .. } => binop_prec(*op, Syntax::Python),
        ExprKind::Select { .. } => 0,
    }
}

/// `x` (printed) cast to the integer type `ty` from a type with values
/// `ty` lacks: the low bits, as two's complement when `ty` is signed. A mask
/// with `&` means the same in Python and in the C++ DaCe generates from it
/// (where `%` of a negative value would not); a 64-bit `ty` keeps the
/// expression, since DaCe's C++ symbols are 64-bit and hold the same bits.
fn wrapped(x: &str, ty: crate::ir::ScalarType) -> String {
    let bits = ty.bits();
    if bits >= 64 {
        return format!("({x})");
    }
    let mask = (1u64 << bits) - 1;
    if ty.is_signed_integer() {
        let half = 1u64 << (bits - 1);
        format!("(((({x}) + {half}) & {mask}) - {half})")
    } else {
        format!("(({x}) & {mask})")
    }
}

/// The amount of a shift of a `ty` value, masked to the width as ours is
/// (`x << 65` of an `i64` shifts by 1; Python's `<<` would shift by 65): a
/// literal below the width as it is, anything else `& (width - 1)`.
fn shift_amount(
    amount: &Expr,
    ty: crate::ir::ScalarType,
    sdfg: &Sdfg,
    names: &BodyNames,
    boxed: &[ContainerId],
) -> String {
    let bits = i128::from(ty.bits());
    let in_range = matches!(&amount.kind, ExprKind::Lit(v) if v.as_i128().is_some_and(|a| (0..bits).contains(&a)));
    let text = expr_to_python_boxed(amount, sdfg, names, boxed);
    if in_range {
        text
    } else {
        format!("(({text}) & {})", bits - 1)
    }
}

/// `e` in the Python syntax DaCe parses into SymPy (map ranges, memlet
/// subsets, shapes, interstate conditions and assignments).
///
/// Integer `/` prints as `//` (DaCe's integer division): SymPy and Python
/// round it toward negative infinity where ours truncates, which differs
/// only for negative operands; the C++ DaCe generates truncates as ours
/// does (docs/EXPORT.md). Integer casts that keep every value vanish (DaCe
/// symbols are unbounded integers); the others wrap as ours do (`x as u8`
/// is `((x) & 255)`, `x as i8` is `((((x) + 128) & 255) - 128)`; see
/// `wrapped`), and shift amounts are masked to the width (`shift_amount`).
pub fn expr_to_python(e: &Expr, sdfg: &Sdfg, names: &BodyNames) -> String {
    expr_to_python_boxed(e, sdfg, names, &[])
}

/// [`expr_to_python`] where the scalar containers in `boxed` are exported
/// as one-element arrays (so a read of one prints as `name[0]`).
pub fn expr_to_python_boxed(
    e: &Expr,
    sdfg: &Sdfg,
    names: &BodyNames,
    boxed: &[ContainerId],
) -> String {
    match &e.kind {
        ExprKind::Lit(Value::Bool(b)) => if *b { "True" } else { "False" }.to_string(),
        ExprKind::Lit(v @ (Value::F32(_) | Value::F64(_))) => {
            let x = match v {
                Value::F32(x) => *x as f64,
                Value::F64(x) => *x,
                _ => 0.0,
            };
            if x.is_nan() {
                "nan".to_string()
            } else if x.is_infinite() {
                if x > 0.0 { "oo" } else { "-oo" }.to_string()
            } else {
                v.to_string()
            }
        }
        ExprKind::Lit(v) => v.to_string(),
        ExprKind::Var(v) => names.var_name(*v, sdfg),
        ExprKind::Load { container, index } => {
            let name = container_name(sdfg, *container);
            if index.is_empty() {
                if boxed.contains(container) {
                    format!("{name}[0]")
                } else {
                    name
                }
            } else {
                let idx: Vec<String> = index
                    .iter()
                    .map(|i| expr_to_python_boxed(i, sdfg, names, boxed))
                    .collect();
                format!("{name}[{}]", idx.join(", "))
            }
        }
        ExprKind::Unary { op, arg } => match op {
            UnOp::Neg => format!("-{}", py_operand(arg, 12, sdfg, names, boxed)),
            UnOp::Not if arg.ty == crate::ir::ScalarType::Bool => {
                format!("not {}", py_operand(arg, 3, sdfg, names, boxed))
            }
            UnOp::Not => format!("~{}", py_operand(arg, 12, sdfg, names, boxed)),
        },
        ExprKind::Binary { op, lhs, rhs } => {
            let p = binop_prec(*op, Syntax::Python);
            let sym = match op {
                BinOp::And => "and",
                BinOp::Or => "or",
                BinOp::Div if e.ty.is_integer() => "//",
                other => other.symbol(),
            };
            let lhs_min = if op.is_comparison() { p + 1 } else { p };
            let rhs_text = if matches!(op, BinOp::Shl | BinOp::Shr) {
                shift_amount(rhs, e.ty, sdfg, names, boxed)
            } else {
                py_operand(rhs, p + 1, sdfg, names, boxed)
            };
            format!(
                "{} {sym} {rhs_text}",
                py_operand(lhs, lhs_min, sdfg, names, boxed)
            )
        }
        ExprKind::Cast { arg } => {
            if e.ty.holds_every_value_of(arg.ty) {
                expr_to_python_boxed(arg, sdfg, names, boxed)
            } else if e.ty.is_integer() && arg.ty.is_integer() {
                let x = expr_to_python_boxed(arg, sdfg, names, boxed);
                wrapped(&x, e.ty)
            } else if e.ty.is_integer() {
                format!("int({})", expr_to_python_boxed(arg, sdfg, names, boxed))
            } else {
                format!("float({})", expr_to_python_boxed(arg, sdfg, names, boxed))
            }
        }
        ExprKind::Select { cond, then, else_ } => format!(
            "{} if {} else {}",
            py_operand(then, 1, sdfg, names, boxed),
            py_operand(cond, 1, sdfg, names, boxed),
            py_operand(else_, 1, sdfg, names, boxed)
        ),
        ExprKind::Call { func, args } => {
            let a: Vec<String> = args
                .iter()
                .map(|x| expr_to_python_boxed(x, sdfg, names, boxed))
                .collect();
            let first = a.first().cloned().unwrap_or_default();
            match func {
                MathFn::Complex => return format!("complex({})", a.join(", ")),
                MathFn::Re => return format!("({first}).real"),
                MathFn::Im => return format!("({first}).imag"),
                MathFn::Conj => return format!("({first}).conjugate()"),
                _ => {}
            }
            let name = match func {
                MathFn::Ln => "log",
                MathFn::Powi | MathFn::Powf => "pow",
                other => other.method_name(),
            };
            format!("{name}({})", a.join(", "))
        }
    }
}

fn py_operand(
    e: &Expr,
    min_prec: u8,
    sdfg: &Sdfg,
    names: &BodyNames,
    boxed: &[ContainerId],
) -> String {
    let s = expr_to_python_boxed(e, sdfg, names, boxed);
    if py_prec(e) < min_prec {
        format!("({s})")
    } else {
        s
    }
}
