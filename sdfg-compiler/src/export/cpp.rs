//! Tasklet bodies as C++ code for DaCe (`language: CPP`).
//!
//! DaCe hands a tasklet its data through connectors: a memlet of one element
//! arrives as a scalar variable named after the connector (an output
//! connector is assigned), a memlet of a whole array as a pointer that the
//! code indexes. Every container access of the body is therefore rewritten
//! to its memlet's connector: a fixed access (`A[i, j - 1]`, non-dynamic
//! memlet) becomes the bare connector, a dynamic one (index depends on
//! locals or data) indexes the whole-array connector with the row-major
//! flattened index.
//!
//! Semantics that differ between Rust and C++ and are cheap to keep are
//! kept: integer division and remainder by zero (and `MIN / -1`) and
//! saturating float-to-int casts use the helpers in
//! [`crate::dace_format::HELPERS`] (installed
//! through the tasklet's `code_global`); shift amounts are masked to the
//! operand width; float `min`/`max` ignore NaN (`fmin`/`fmax`, as Rust);
//! `for` loops follow `step_by`. Not kept (undefined in C++, wrapping in
//! Rust): signed overflow of `+ - *`, `<<` of negative values; nor the
//! bounds checks (an out-of-bounds access is skipped and reported by us).

use super::print::{container_name, BodyNames};
use crate::dace_format::CPP_RESERVED;
use crate::ir::{
    same_expr, BinOp, ContainerId, Expr, ExprKind, Local, MathFn, Memlet, ScalarType, Sdfg, Stmt,
    SubsetDim, UnOp, Value, VarRef, WcrOp,
};

/// A tasklet body translated to C++.
pub struct CppTasklet {
    pub code: String,
    /// The code calls the functions of [`HELPERS`](crate::dace_format::HELPERS).
    pub needs_helpers: bool,
}

/// Translate `stmts` (the body of a map or host tasklet with `memlets`).
pub fn tasklet_to_cpp(
    stmts: &[Stmt],
    names: &BodyNames,
    memlets: &[Memlet],
    sdfg: &Sdfg,
) -> CppTasklet {
    let mut p = CppPrinter {
        sdfg,
        names,
        memlets,
        local_names: unique_local_names(names.locals),
        needs_helpers: false,
        loop_guards: Vec::new(),
    };
    let mut code = String::new();
    for s in stmts {
        p.stmt(s, 0, &mut code);
    }
    CppTasklet {
        code,
        needs_helpers: p.needs_helpers,
    }
}

/// C++ forbids redeclaring a name in one scope, Rust allows shadowing: a
/// local whose name is taken by another local (or is reserved in C++) gets
/// its id appended.
fn unique_local_names(locals: &[Local]) -> Vec<String> {
    locals
        .iter()
        .enumerate()
        .map(|(id, l)| {
            let shared = locals.iter().filter(|o| o.name == l.name).count() > 1;
            if shared || CPP_RESERVED.contains(&l.name.as_str()) {
                format!("{}_{id}", l.name)
            } else {
                l.name.clone()
            }
        })
        .collect()
}

pub fn cpp_type(t: ScalarType) -> &'static str {
    match t {
        ScalarType::I8 => "int8_t",
        ScalarType::I16 => "int16_t",
        ScalarType::U8 => "uint8_t",
        ScalarType::U16 => "uint16_t",
        ScalarType::I32 => "int32_t",
        ScalarType::I64 => "int64_t",
        ScalarType::U32 => "uint32_t",
        ScalarType::U64 => "uint64_t",
        ScalarType::F32 => "float",
        ScalarType::F64 => "double",
        ScalarType::F16 => "dace::float16",
        // DaCe has no bfloat16 (the export reports such a container).
        ScalarType::BF16 => "float",
        ScalarType::Bool => "bool",
        ScalarType::C32 => "dace::complex64",
        ScalarType::C64 => "dace::complex128",
    }
}

/// The unsigned type of the same width (itself for unsigned and non-integers).
fn unsigned_of(t: ScalarType) -> ScalarType {
    if t.is_signed_integer() {
        t.flip_sign()
    } else {
        t
    }
}

pub fn value_to_cpp(v: Value) -> String {
    match v {
        // C++ promotes narrow integers to int: a cast keeps the type.
        Value::I8(x) => format!("int8_t({x})"),
        Value::I16(x) => format!("int16_t({x})"),
        Value::U8(x) => format!("uint8_t({x})"),
        Value::U16(x) => format!("uint16_t({x})"),
        Value::I32(i32::MIN) => "(-2147483647 - 1)".to_string(),
        Value::I32(x) => x.to_string(),
        Value::I64(i64::MIN) => "(-9223372036854775807LL - 1)".to_string(),
        Value::I64(x) => format!("{x}LL"),
        Value::U32(x) => format!("{x}u"),
        Value::U64(x) => format!("{x}ull"),
        Value::Bool(b) => b.to_string(),
        Value::F32(x) => float_to_cpp(x as f64, "float", "f"),
        Value::F64(x) => float_to_cpp(x, "double", ""),
        Value::F16(x) => format!("dace::float16({})", float_to_cpp(x.to_f64(), "float", "f")),
        Value::BF16(x) => float_to_cpp(x.to_f64(), "float", "f"),
        Value::C32(z) => format!(
            "dace::complex64({}, {})",
            float_to_cpp(z.re as f64, "float", "f"),
            float_to_cpp(z.im as f64, "float", "f")
        ),
        Value::C64(z) => format!(
            "dace::complex128({}, {})",
            float_to_cpp(z.re, "double", ""),
            float_to_cpp(z.im, "double", "")
        ),
    }
}

fn float_to_cpp(x: f64, ty: &str, suffix: &str) -> String {
    if x.is_nan() {
        format!("std::numeric_limits<{ty}>::quiet_NaN()")
    } else if x.is_infinite() {
        let sign = if x < 0.0 { "-" } else { "" };
        format!("{sign}std::numeric_limits<{ty}>::infinity()")
    } else {
        // `{:?}` keeps a `.0` or an exponent, so the literal stays a float.
        // f32 prints through f64 exactly; 9 significant digits round-trip.
        let text = if suffix == "f" {
            format!("{:?}", x as f32)
        } else {
            format!("{x:?}")
        };
        format!("{text}{suffix}")
    }
}

/// A fixed memlet (one element, given by `index`) of `container`.
fn subset_is_index(m: &Memlet, index: &[Expr]) -> bool {
    !m.dynamic
        && m.subset.len() == index.len()
        && m.subset.iter().zip(index).all(|(d, i)| match d {
            SubsetDim::Index(e) => same_expr(e, i),
            SubsetDim::Range { .. } => false,
        })
}

/// How a body access reaches its data.
enum Port<'m> {
    /// The connector holds the element itself.
    Element(&'m Memlet),
    /// The connector points at the whole container.
    Whole(&'m Memlet),
}

/// The memlet of one access: the exact fixed memlet, else a dynamic one of
/// the container. Reads look at reading memlets, stores at writing ones.
pub(crate) fn find_port<'m>(
    memlets: &'m [Memlet],
    container: ContainerId,
    index: &[Expr],
    is_store: bool,
) -> Option<(&'m Memlet, bool)> {
    let candidates = || {
        memlets
            .iter()
            .filter(move |m| m.container == container && m.access.is_write() == is_store)
    };
    if let Some(m) = candidates().find(|m| subset_is_index(m, index)) {
        return Some((m, false));
    }
    candidates().find(|m| m.dynamic).map(|m| (m, true))
}

fn port<'m>(
    memlets: &'m [Memlet],
    container: ContainerId,
    index: &[Expr],
    is_store: bool,
) -> Option<Port<'m>> {
    find_port(memlets, container, index, is_store).map(|(m, whole)| {
        if whole {
            Port::Whole(m)
        } else {
            Port::Element(m)
        }
    })
}

struct CppPrinter<'a> {
    sdfg: &'a Sdfg,
    names: &'a BodyNames<'a>,
    memlets: &'a [Memlet],
    local_names: Vec<String>,
    needs_helpers: bool,
    /// Per enclosing loop, innermost last: the overflow guard a `continue`
    /// must run first (a stepped `for`, whose guard ends its body), or None.
    loop_guards: Vec<Option<String>>,
}

impl CppPrinter<'_> {
    fn var(&self, v: VarRef) -> String {
        match v {
            VarRef::Local(l) => self
                .local_names
                .get(l)
                .cloned()
                .unwrap_or_else(|| format!("__unknown_local{l}")),
            other => self.names.var_name(other, self.sdfg),
        }
    }

    /// `conn`, `conn[flat]`, or an unresolvable name that makes the C++
    /// compile fail loudly (never happens for IR from the front end).
    fn access(&mut self, container: ContainerId, index: &[Expr], is_store: bool) -> String {
        match port(self.memlets, container, index, is_store) {
            Some(Port::Element(m)) => m.connector.clone(),
            Some(Port::Whole(m)) => {
                let flat = self.flat_index(container, index);
                format!("{}[{flat}]", m.connector)
            }
            None => format!("__no_memlet_for_{}", container_name(self.sdfg, container)),
        }
    }

    /// Row-major offset `((i0) * S1 + i1) * S2 + i2` over the container's shape.
    fn flat_index(&mut self, container: ContainerId, index: &[Expr]) -> String {
        let shape = self
            .sdfg
            .containers
            .get(container)
            .map(|c| c.shape.clone())
            .unwrap_or_default();
        let mut flat = String::new();
        for (d, i) in index.iter().enumerate() {
            let i = format!("({})", self.expr(i));
            if d == 0 {
                flat = i;
            } else {
                let extent = shape
                    .get(d)
                    .map(|s| format!("({})", self.expr(s)))
                    .unwrap_or_else(|| "1".to_string());
                flat = format!("({flat}) * {extent} + {i}");
            }
        }
        if flat.is_empty() {
            "0".to_string()
        } else {
            flat
        }
    }

    /// Always parenthesized where it is an operand: C++ precedence (bit
    /// operators below comparisons) differs from Rust's, so the printer does
    /// not try to be clever.
    fn expr(&mut self, e: &Expr) -> String {
        let text = self.expr_promoted(e);
        // C++ computes narrow integers in `int`: wrap the result back to the
        // type after each operation, as Rust does.
        let computes = match &e.kind {
            ExprKind::Unary { .. } | ExprKind::Call { .. } => true,
            ExprKind::Binary { op, .. } => !op.is_comparison(),
            _ => false,
        };
        if computes && e.ty.is_narrow_integer() {
            format!("static_cast<{}>({text})", cpp_type(e.ty))
        } else {
            text
        }
    }

    fn expr_promoted(&mut self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Lit(v) => value_to_cpp(*v),
            ExprKind::Var(v) => self.var(*v),
            ExprKind::Load { container, index } => self.access(*container, index, false),
            ExprKind::Unary { op, arg } => {
                let a = self.expr(arg);
                match op {
                    UnOp::Neg => format!("(-({a}))"),
                    UnOp::Not if arg.ty == ScalarType::Bool => format!("(!{a})"),
                    UnOp::Not => format!("(~{a})"),
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (l, r) = (self.expr(lhs), self.expr(rhs));
                let ty = lhs.ty;
                match op {
                    BinOp::Mul | BinOp::Div if ty.is_complex() => {
                        self.needs_helpers = true;
                        let f = if *op == BinOp::Mul { "cmul" } else { "cdiv" };
                        format!("sdfg_rs_{f}({l}, {r})")
                    }
                    BinOp::Div if ty.is_integer() => {
                        self.needs_helpers = true;
                        format!("sdfg_rs_div<{}>({l}, {r})", cpp_type(ty))
                    }
                    BinOp::Rem if ty.is_integer() => {
                        self.needs_helpers = true;
                        format!("sdfg_rs_rem<{}>({l}, {r})", cpp_type(ty))
                    }
                    BinOp::Rem => format!("fmod({l}, {r})"),
                    BinOp::Shl | BinOp::Shr => {
                        // Rust masks the amount to the width (wrapping_shl).
                        let mask = ty.bits() - 1;
                        format!("({l} {} (({r}) & {mask}))", op.symbol())
                    }
                    // Narrower integers are promoted to int: `expr` casts
                    // the result back.
                    _ => format!("({l} {} {r})", op.symbol()),
                }
            }
            ExprKind::Cast { arg } if arg.ty.is_float() && e.ty.is_integer() => {
                self.needs_helpers = true;
                let a = self.expr(arg);
                format!("sdfg_rs_f2i<{}, {}>({a})", cpp_type(e.ty), cpp_type(arg.ty))
            }
            ExprKind::Cast { arg } => {
                format!("static_cast<{}>({})", cpp_type(e.ty), self.expr(arg))
            }
            ExprKind::Select { cond, then, else_ } => format!(
                "({} ? {} : {})",
                self.expr(cond),
                self.expr(then),
                self.expr(else_)
            ),
            ExprKind::Call { func, args } => {
                let a: Vec<String> = args.iter().map(|x| self.expr(x)).collect();
                let first = a.first().cloned().unwrap_or_default();
                let second = a.get(1).cloned().unwrap_or_default();
                let float = e.ty.is_float();
                if args.first().is_some_and(|a| a.ty.is_complex()) || *func == MathFn::Complex {
                    return match func {
                        MathFn::Abs => format!("std::abs({first})"),
                        MathFn::Conj => format!("std::conj({first})"),
                        MathFn::Arg => format!("std::arg({first})"),
                        MathFn::Re => format!("({first}).real()"),
                        MathFn::Im => format!("({first}).imag()"),
                        MathFn::Complex => format!("{}({first}, {second})", cpp_type(e.ty)),
                        MathFn::NormSqr | MathFn::Exp => {
                            self.needs_helpers = true;
                            let f = if *func == MathFn::Exp {
                                "cexp"
                            } else {
                                "cnorm_sqr"
                            };
                            format!("sdfg_rs_{f}({first})")
                        }
                        _ => first,
                    };
                }
                match func {
                    MathFn::Sqrt => format!("sqrt({first})"),
                    MathFn::Abs if float => format!("fabs({first})"),
                    MathFn::Abs => format!("({first} < 0 ? -{first} : {first})"),
                    MathFn::Exp => format!("exp({first})"),
                    MathFn::Ln => format!("log({first})"),
                    MathFn::Sin => format!("sin({first})"),
                    MathFn::Cos => format!("cos({first})"),
                    MathFn::Tanh => format!("tanh({first})"),
                    MathFn::Powi | MathFn::Powf => {
                        format!("static_cast<{}>(pow({first}, {second}))", cpp_type(e.ty))
                    }
                    MathFn::Min if float => format!("fmin({first}, {second})"),
                    MathFn::Max if float => format!("fmax({first}, {second})"),
                    MathFn::Min => format!("({first} < {second} ? {first} : {second})"),
                    MathFn::Max => format!("({first} > {second} ? {first} : {second})"),
                    MathFn::Floor => format!("floor({first})"),
                    MathFn::Ceil => format!("ceil({first})"),
                    MathFn::Atan2 => format!("atan2({first}, {second})"),
                    MathFn::Hypot => format!("hypot({first}, {second})"),
                    MathFn::Asin => format!("asin({first})"),
                    MathFn::Acos => format!("acos({first})"),
                    MathFn::Atan => format!("atan({first})"),
                    MathFn::Sinh => format!("sinh({first})"),
                    MathFn::Cosh => format!("cosh({first})"),
                    MathFn::Cbrt => format!("cbrt({first})"),
                    MathFn::Erf => format!("erf({first})"),
                    // Only of complex values (above).
                    MathFn::Conj
                    | MathFn::NormSqr
                    | MathFn::Arg
                    | MathFn::Re
                    | MathFn::Im
                    | MathFn::Complex => first,
                    MathFn::MulAdd => {
                        let third = a.get(2).cloned().unwrap_or_default();
                        format!("fma({first}, {second}, {third})")
                    }
                }
            }
        }
    }

    fn stmt(&mut self, s: &Stmt, indent: usize, out: &mut String) {
        let pad = " ".repeat(indent);
        match s {
            Stmt::Let { local, init, .. } => {
                let ty = self
                    .names
                    .locals
                    .get(*local)
                    .map(|l| l.ty)
                    .unwrap_or(init.ty);
                let v = self.expr(init);
                out.push_str(&format!(
                    "{pad}{} {} = {v};\n",
                    cpp_type(ty),
                    self.var(VarRef::Local(*local))
                ));
            }
            Stmt::AssignLocal { local, value, .. } => {
                let v = self.expr(value);
                out.push_str(&format!(
                    "{pad}{} = {v};\n",
                    self.var(VarRef::Local(*local))
                ));
            }
            Stmt::Store {
                container,
                index,
                value,
                wcr,
                ..
            } => {
                let v = self.expr(value);
                let found = find_port(self.memlets, *container, index, true);
                match (found, wcr) {
                    // A dynamic reduction: the memlet is a plain pointer, so
                    // the code reduces (atomically, maps run in parallel).
                    (Some((m, true)), Some(op)) => {
                        let flat = self.flat_index(*container, index);
                        let elem = self
                            .sdfg
                            .containers
                            .get(*container)
                            .map(|c| c.elem)
                            .unwrap_or(value.ty);
                        out.push_str(&format!(
                            "{pad}dace::wcr_fixed<dace::ReductionType::{}, {}>::reduce_atomic({} + ({flat}), {v});\n",
                            reduction_type(*op),
                            cpp_type(elem),
                            m.connector
                        ));
                    }
                    // A fixed reduction: the memlet's WCR combines the value.
                    _ => {
                        let target = self.access(*container, index, true);
                        out.push_str(&format!("{pad}{target} = {v};\n"));
                    }
                }
            }
            Stmt::If {
                cond, then, else_, ..
            } => {
                let c = self.expr(cond);
                out.push_str(&format!("{pad}if ({c}) {{\n"));
                for s in then {
                    self.stmt(s, indent + 4, out);
                }
                if !else_.is_empty() {
                    out.push_str(&format!("{pad}}} else {{\n"));
                    for s in else_ {
                        self.stmt(s, indent + 4, out);
                    }
                }
                out.push_str(&format!("{pad}}}\n"));
            }
            Stmt::For {
                var,
                start,
                end,
                step,
                body,
                ..
            } => {
                // Rust's `(a..b).step_by(s)`: bounds evaluated once; a step
                // <= 0 runs nothing (ir::expr); the loop ends before `v + s`
                // would overflow, so the break tests the distance left,
                // computed unsigned (it is positive and may not fit signed).
                let name = self.var(VarRef::Local(*var));
                let ty = cpp_type(start.ty);
                let unsigned = cpp_type(unsigned_of(start.ty));
                let (s, e) = (self.expr(start), self.expr(end));
                out.push_str(&format!("{pad}{{\n"));
                out.push_str(&format!("{pad}    const {ty} {name}_end = {e};\n"));
                let inner = match step {
                    None => {
                        // `v + 1` cannot overflow while `v < end`.
                        out.push_str(&format!(
                            "{pad}    for ({ty} {name} = {s}; {name} < {name}_end; ++{name}) {{\n"
                        ));
                        self.loop_guards.push(None);
                        for s in body {
                            self.stmt(s, indent + 8, out);
                        }
                        self.loop_guards.pop();
                        format!("{pad}    }}\n")
                    }
                    Some(x) => {
                        let st = self.expr(x);
                        out.push_str(&format!("{pad}    const {ty} {name}_step = {st};\n"));
                        out.push_str(&format!(
                            "{pad}    if ({name}_step > 0) for ({ty} {name} = {s}; {name} < {name}_end; {name} += {name}_step) {{\n"
                        ));
                        let guard = format!(
                            "if (({unsigned}){name}_end - ({unsigned}){name} <= ({unsigned}){name}_step) break;"
                        );
                        self.loop_guards.push(Some(guard.clone()));
                        for s in body {
                            self.stmt(s, indent + 8, out);
                        }
                        self.loop_guards.pop();
                        out.push_str(&format!("{pad}        {guard}\n"));
                        format!("{pad}    }}\n")
                    }
                };
                out.push_str(&inner);
                out.push_str(&format!("{pad}}}\n"));
            }
            Stmt::While { cond, body, .. } => {
                let c = self.expr(cond);
                out.push_str(&format!("{pad}while ({c}) {{\n"));
                self.loop_guards.push(None);
                for s in body {
                    self.stmt(s, indent + 4, out);
                }
                self.loop_guards.pop();
                out.push_str(&format!("{pad}}}\n"));
            }
            Stmt::Break { .. } => out.push_str(&format!("{pad}break;\n")),
            Stmt::Continue { .. } => match self.loop_guards.last() {
                // The guard that ends a stepped loop's body runs before its
                // step, so a `continue` runs it first: `{ GUARD continue; }`.
                Some(Some(guard)) => out.push_str(&format!("{pad}{{ {guard} continue; }}\n")),
                _ => out.push_str(&format!("{pad}continue;\n")),
            },
            // The DaCe export draws thread maps as `GPU_ThreadBlock` maps with
            // tasklets of their own; in one C++ body they run in order.
            Stmt::ThreadMap(t) => {
                out.push_str(&format!("{pad}{{ // thread map {}\n", t.name.text));
                let mut depth = indent + 4;
                for p in &t.params {
                    let name = self.var(VarRef::Local(p.local));
                    let ty = cpp_type(p.start.ty);
                    let (s, e) = (self.expr(&p.start), self.expr(&p.end));
                    let st = p
                        .step
                        .as_ref()
                        .map_or_else(|| "1".to_string(), |x| self.expr(x));
                    let pad = " ".repeat(depth);
                    out.push_str(&format!(
                        "{pad}for ({ty} {name} = {s}; {name} < {e}; {name} += {st}) {{\n"
                    ));
                    depth += 4;
                }
                for s in &t.body {
                    self.stmt(s, depth, out);
                }
                for _ in &t.params {
                    depth -= 4;
                    out.push_str(&format!("{}}}\n", " ".repeat(depth)));
                }
                out.push_str(&format!("{pad}}}\n"));
            }
            Stmt::Barrier(_) => out.push_str(&format!("{pad}__syncthreads();\n")),
        }
    }
}

fn reduction_type(op: WcrOp) -> &'static str {
    match op {
        WcrOp::Sum => "Sum",
        WcrOp::Product => "Product",
        WcrOp::Min => "Min",
        WcrOp::Max => "Max",
    }
}

/// DaCe's WCR lambda for an operator.
pub fn wcr_lambda(op: WcrOp) -> &'static str {
    match op {
        WcrOp::Sum => "lambda a, b: a + b",
        WcrOp::Product => "lambda a, b: a * b",
        WcrOp::Min => "lambda a, b: min(a, b)",
        WcrOp::Max => "lambda a, b: max(a, b)",
    }
}
