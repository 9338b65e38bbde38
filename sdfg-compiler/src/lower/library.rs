//! Library statements and their expansion, in one place:
//! `C = matmul(A, B);`, `B = transpose(A);`, `S = reduce sum(A, axis 1);`.
//!
//! Each expands to one map over the result's elements (`on gpu` when the
//! result is a `gpu` container, `on cpu` otherwise) whose body loops over
//! the reduced dimensions into a local; the map carries the call
//! (`ir::library`), so the DaCe export writes the library node. A full
//! reduction or a dot product is a map of one iteration. (Block-cooperative
//! forms on the GPU, tiles and shared memory, would replace [`expand`].)

use super::*;
use crate::ir::library::{reduction_identity, LibraryCall, LibraryKind};
use crate::ir::linear::{Leaf, Linear};
use crate::parse::{AssignAst, LibraryAst, LibraryOp};

impl Lowerer<'_> {
    pub(super) fn lower_library(
        &mut self,
        a: &AssignAst,
        call: &LibraryAst,
        name: &str,
    ) -> Option<Statement> {
        let fname = call.name.to_string();
        if a.op.is_some() {
            self.error(
                Diagnostic::error(a.span, format!("`{fname}` assigns its whole result"))
                    .help(format!("write `= {fname}(...)` into a transient, then update with an array statement: `C = C + T;`")),
            );
            return None;
        }
        let out_ident = match crate::lower::typing::strip_parens(&a.target) {
            syn::Expr::Path(p) if p.path.get_ident().is_some() => p.path.get_ident()?.clone(),
            other => {
                self.error(
                    Diagnostic::error(
                        syn::spanned::Spanned::span(other),
                        format!("the result of `{fname}` is a whole container"),
                    )
                    .help("assign to a container by name (`C = matmul(A, B);`); copy the part you need afterwards"),
                );
                return None;
            }
        };
        let output = self.container_name(&out_ident);
        let inputs: Vec<Option<ContainerId>> = call
            .operands
            .iter()
            .map(|o| self.container_name(o))
            .collect();
        let output = output?;
        let inputs: Vec<ContainerId> = inputs.into_iter().collect::<Option<_>>()?;
        let wanted = match call.op {
            LibraryOp::MatMul => 2,
            _ => 1,
        };
        if inputs.len() != wanted {
            self.error(
                Diagnostic::error(
                    call.name.span(),
                    format!(
                        "`{fname}` takes {}, found {}",
                        count(wanted, "operand"),
                        inputs.len()
                    ),
                )
                .help(match call.op {
                    LibraryOp::MatMul => "write `C = matmul(A, B);`",
                    LibraryOp::Transpose => "write `B = transpose(A);`",
                    LibraryOp::Reduce { .. } => {
                        "write `S = reduce sum(A);` or `S = reduce sum(A, axis 1);`"
                    }
                }),
            );
            return None;
        }
        // One element type, numeric.
        let elem = self.containers[output].elem;
        for (&c, ident) in inputs.iter().zip(&call.operands) {
            let t = self.containers[c].elem;
            if t != elem || !t.is_numeric() {
                let out = &self.containers[output].name.text;
                self.error(
                    Diagnostic::error(
                        ident.span(),
                        format!("`{fname}` needs numbers of one type: `{ident}` holds `{t}`, `{out}` holds `{elem}`"),
                    )
                    .help(format!("convert first, with an array statement into a container of type `{elem}`: `{ident}2 = {ident} as {elem};`"))
                    .note("library statements do not convert element types"),
                );
                return None;
            }
        }
        // NumPy computes the call into a new array before it assigns; the
        // expansion writes the result while other iterations still read.
        if let Some(ident) = call
            .operands
            .iter()
            .zip(&inputs)
            .find_map(|(i, &c)| (c == output).then_some(i))
        {
            self.error(
                Diagnostic::error(
                    ident.span(),
                    format!("`{fname}` reads `{ident}`, which it writes"),
                )
                .help(format!("write the result into a transient (`transient ... T: ...;`, `T = {fname}(...);`), then `{out_ident} = T;`"))
                .note("NumPy computes the call into a new array before it assigns; the statement's elements are computed in parallel, so some would read values already overwritten"),
            );
            return None;
        }
        let kind = match call.op {
            LibraryOp::MatMul => LibraryKind::MatMul,
            LibraryOp::Transpose => LibraryKind::Transpose,
            LibraryOp::Reduce { wcr, .. } => {
                let rank = self.containers[inputs[0]].shape.len();
                let axes = self.reduce_axes(call, rank)?;
                LibraryKind::Reduce { op: wcr, axes }
            }
        };
        let libcall = LibraryCall {
            op: kind,
            inputs,
            output,
        };
        self.check_library_shapes(&libcall, call, &out_ident)?;
        let (params, body) = expand(&self.containers, &libcall, call.name.span());
        let memlets = memlets::body_memlets(&self.containers, &body);
        let schedule = match self.containers[output].storage {
            Storage::Gpu => MapSchedule::Gpu,
            _ => MapSchedule::Cpu,
        };
        Some(Statement {
            kind: StatementKind::Map(Map {
                name: Name::new(name, out_ident.span()),
                params,
                schedule,
                body,
                independent: Vec::new(),
                library: Some(libcall),
                block: None,
                gpu_tasklet: false,
            }),
            memlets,
            span: out_ident.span(),
        })
    }

    /// `axis K` / `axes [K, ...]`: distinct, in range, ascending; all the
    /// axes when none are written.
    fn reduce_axes(&mut self, call: &LibraryAst, rank: usize) -> Option<Vec<usize>> {
        let Some((list, span)) = &call.axes else {
            return Some((0..rank).collect());
        };
        let mut axes = Vec::new();
        for lit in list {
            match lit.base10_parse::<usize>() {
                Ok(k) if k < rank && !axes.contains(&k) => axes.push(k),
                Ok(k) if k < rank => {
                    self.error(
                        Diagnostic::error(lit.span(), format!("axis {k} is named twice"))
                            .help("name each axis once"),
                    );
                    return None;
                }
                _ => {
                    let operand = &call.operands[0];
                    self.error(
                        Diagnostic::error(
                            lit.span(),
                            format!(
                                "`{operand}` has no axis {lit}: it has {}",
                                count(rank, "dimension")
                            ),
                        )
                        .help(format!(
                            "the axes of `{operand}` are 0 to {}",
                            rank.saturating_sub(1)
                        )),
                    );
                    return None;
                }
            }
        }
        if axes.is_empty() {
            self.error(
                Diagnostic::error(*span, "no axis to reduce over")
                    .help("name at least one axis, or leave `axis` out to reduce over all of them"),
            );
            return None;
        }
        axes.sort_unstable();
        Some(axes)
    }

    /// The operands' and the result's shapes agree, provably.
    fn check_library_shapes(
        &mut self,
        call: &LibraryCall,
        ast: &LibraryAst,
        out: &proc_macro2::Ident,
    ) -> Option<()> {
        let shape = |c: ContainerId| -> Vec<Option<Linear<String>>> {
            self.containers[c]
                .shape
                .iter()
                .map(|d| dim_form(d, &self.symbols))
                .collect()
        };
        let text = |s: &[Option<Linear<String>>]| -> String {
            let parts: Vec<String> = s
                .iter()
                .map(|d| {
                    d.as_ref()
                        .map_or("?".into(), |f| f.render(|v| v.clone(), " * "))
                })
                .collect();
            format!("[{}]", parts.join(", "))
        };
        let same = |a: &Option<Linear<String>>, b: &Option<Linear<String>>| a.is_some() && a == b;
        let one = Some(Linear::constant(1));
        let ins: Vec<Vec<Option<Linear<String>>>> = call.inputs.iter().map(|&c| shape(c)).collect();
        let result = shape(call.output);
        let fname = ast.name.to_string();
        let (want, problem): (Vec<Option<Linear<String>>>, Option<String>) = match &call.op {
            LibraryKind::MatMul => {
                let (a, b) = (&ins[0], &ins[1]);
                if a.is_empty() || b.is_empty() || a.len() > 2 || b.len() > 2 {
                    let d = Diagnostic::error(
                        ast.name.span(),
                        format!(
                            "`matmul` multiplies vectors and matrices: `{}` has {}, `{}` has {}",
                            ast.operands[0],
                            count(a.len(), "dimension"),
                            ast.operands[1],
                            count(b.len(), "dimension")
                        ),
                    )
                    .help("pass 1-d or 2-d containers");
                    self.error(d);
                    return None;
                }
                let inner_a = a.last().cloned().flatten();
                let inner_b = b.first().cloned().flatten();
                let problem = (!same(&inner_a, &inner_b)).then(|| {
                    let dim = |d: &Option<Linear<String>>| {
                        d.as_ref()
                            .map_or("?".into(), |f| f.render(|v| v.clone(), " * "))
                    };
                    format!(
                        "the inner dimensions differ: `{}` is {}, `{}` is {} (`{}` against `{}`)",
                        ast.operands[0],
                        text(a),
                        ast.operands[1],
                        text(b),
                        dim(&inner_a),
                        dim(&inner_b)
                    )
                });
                let mut want = Vec::new();
                if a.len() == 2 {
                    want.push(a[0].clone());
                }
                if b.len() == 2 {
                    want.push(b[1].clone());
                }
                (want, problem)
            }
            LibraryKind::Transpose => {
                let a = &ins[0];
                if a.len() != 2 {
                    self.error(
                        Diagnostic::error(
                            ast.name.span(),
                            format!(
                                "`transpose` takes a 2-d container, `{}` has {}",
                                ast.operands[0],
                                count(a.len(), "dimension")
                            ),
                        )
                        .help("transpose a matrix; for other permutations write a map"),
                    );
                    return None;
                }
                (vec![a[1].clone(), a[0].clone()], None)
            }
            LibraryKind::Reduce { axes, .. } => {
                let kept: Vec<Option<Linear<String>>> = ins[0]
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| !axes.contains(k))
                    .map(|(_, d)| d.clone())
                    .collect();
                (kept, None)
            }
        };
        // A result of every axis may be a scalar or one element (`S: T[1]`).
        let fits = problem.is_none()
            && (result.len() == want.len() && result.iter().zip(&want).all(|(r, w)| same(r, w))
                || want.is_empty() && result.len() == 1 && same(&result[0], &one));
        if fits {
            return Some(());
        }
        let at = if problem.is_some() {
            ast.name.span()
        } else {
            out.span()
        };
        let message = problem.unwrap_or_else(|| {
            format!(
                "`{fname}` gives shape {}, `{out}` has shape {}",
                if want.is_empty() {
                    "[] (a scalar)".to_string()
                } else {
                    text(&want)
                },
                text(&result)
            )
        });
        self.error(
            Diagnostic::error(at, message)
                .help("declare the containers with matching shapes (the dimensions must be equal for every value of the symbols)"),
        );
        None
    }
}

/// A dimension as a form over symbol names (atoms for the rest).
fn dim_form(e: &Expr, symbols: &[Symbol]) -> Option<Linear<String>> {
    Linear::from_expr(e, &mut |x: &Expr| match &x.kind {
        ExprKind::Var(VarRef::Symbol(s)) => Leaf::Form(Linear::var(
            symbols
                .get(*s)
                .map_or("?".to_string(), |s| s.name.text.clone()),
        )),
        ExprKind::Lit(_)
        | ExprKind::Unary { .. }
        | ExprKind::Binary {
            op: BinOp::Add | BinOp::Sub | BinOp::Mul,
            ..
        }
        | ExprKind::Cast { .. } => Leaf::Descend,
        _ => Leaf::Form(Linear::var(format!("({})", memlets::expr_key(x)))),
    })
}

/// The map of a library call: its parameters (one per result dimension,
/// or one of a single iteration for a scalar result) and its body.
pub(crate) fn expand(
    containers: &[Container],
    call: &LibraryCall,
    span: Span,
) -> (Vec<MapParam>, TaskletBody) {
    let shape = |c: ContainerId| containers[c].shape.clone();
    let elem = containers[call.output].elem;
    let mut b = BodyBuilder {
        span,
        locals: Vec::new(),
    };
    let out_shape = shape(call.output);
    let (params, stmts) = match &call.op {
        LibraryKind::MatMul => {
            let (a, bm) = (call.inputs[0], call.inputs[1]);
            let (sa, sb) = (shape(a), shape(bm));
            let mut params = Vec::new();
            if sa.len() == 2 {
                params.push(b.param("__i", params.len(), &sa[0]));
            }
            if sb.len() == 2 {
                params.push(b.param("__j", params.len(), &sb[1]));
            }
            let inner = &sb[0];
            let acc = b.local("__acc", elem, true);
            let k = b.local("__k", inner.ty, false);
            let row = if sa.len() == 2 {
                vec![b.var_param(0, &params), b.var_local(k, inner.ty)]
            } else {
                vec![b.var_local(k, inner.ty)]
            };
            let col = if sb.len() == 2 {
                vec![
                    b.var_local(k, inner.ty),
                    b.var_param(params.len() - 1, &params),
                ]
            } else {
                vec![b.var_local(k, inner.ty)]
            };
            let product = b.bin(
                BinOp::Mul,
                b.load(a, row, elem),
                b.load(bm, col, elem),
                elem,
            );
            let update = b.bin(BinOp::Add, b.var_local(acc, elem), product, elem);
            let stmts = vec![
                Stmt::Let {
                    local: acc,
                    init: b.zero(elem),
                    span,
                },
                b.for_(
                    k,
                    inner,
                    vec![Stmt::AssignLocal {
                        local: acc,
                        value: update,
                        span,
                    }],
                ),
            ];
            let (params, index) = b.result_index(params, &out_shape);
            let mut stmts = stmts;
            stmts.push(b.store(call.output, index, b.var_local(acc, elem)));
            (params, stmts)
        }
        LibraryKind::Transpose => {
            let a = call.inputs[0];
            let sa = shape(a);
            let params = vec![b.param("__i", 0, &sa[1]), b.param("__j", 1, &sa[0])];
            let value = b.load(
                a,
                vec![b.var_param(1, &params), b.var_param(0, &params)],
                elem,
            );
            let stmt = b.store(
                call.output,
                vec![b.var_param(0, &params), b.var_param(1, &params)],
                value,
            );
            (params, vec![stmt])
        }
        LibraryKind::Reduce { op, axes } => {
            let a = call.inputs[0];
            let sa = shape(a);
            let mut params = Vec::new();
            let mut loops = Vec::new();
            let mut index = Vec::new();
            for (d, dim) in sa.iter().enumerate() {
                if axes.contains(&d) {
                    let k = b.local(&format!("__k{d}"), dim.ty, false);
                    loops.push((k, dim.clone()));
                    index.push(b.var_local(k, dim.ty));
                } else {
                    params.push(b.param("__i", params.len(), dim));
                    index.push(b.var_param(params.len() - 1, &params));
                }
            }
            let acc = b.local("__acc", elem, true);
            let x = b.load(a, index, elem);
            let acc_e = b.var_local(acc, elem);
            let update = match op {
                WcrOp::Max => b.call(MathFn::Max, acc_e, x, elem),
                WcrOp::Min => b.call(MathFn::Min, acc_e, x, elem),
                WcrOp::Product => b.bin(BinOp::Mul, acc_e, x, elem),
                WcrOp::Sum => b.bin(BinOp::Add, acc_e, x, elem),
            };
            let mut body = vec![Stmt::AssignLocal {
                local: acc,
                value: update,
                span,
            }];
            for (k, dim) in loops.iter().rev() {
                body = vec![b.for_(*k, dim, body)];
            }
            let mut stmts = vec![Stmt::Let {
                local: acc,
                init: Expr::lit(reduction_identity(*op, elem), span),
                span,
            }];
            stmts.extend(body);
            let (params, index) = b.result_index(params, &out_shape);
            stmts.push(b.store(call.output, index, b.var_local(acc, elem)));
            (params, stmts)
        }
    };
    (
        params,
        TaskletBody {
            stmts,
            locals: b.locals,
        },
    )
}

/// Builds a typed body at one span.
struct BodyBuilder {
    span: Span,
    locals: Vec<Local>,
}

impl BodyBuilder {
    fn local(&mut self, name: &str, ty: ScalarType, mutable: bool) -> LocalId {
        self.locals.push(Local {
            name: name.to_string(),
            ty,
            mutable,
            span: self.span,
        });
        self.locals.len() - 1
    }

    /// `NAME<k> in 0..extent`.
    fn param(&self, stem: &str, k: usize, extent: &Expr) -> MapParam {
        MapParam {
            name: Name::new(format!("{stem}{k}"), self.span),
            ty: extent.ty,
            start: Expr::lit(Value::from_bits(extent.ty, 0), self.span),
            end: extent.clone(),
            inclusive: false,
            step: None,
        }
    }

    fn var_param(&self, k: usize, params: &[MapParam]) -> Expr {
        Expr::new(ExprKind::Var(VarRef::Param(k)), params[k].ty, self.span)
    }

    fn var_local(&self, l: LocalId, ty: ScalarType) -> Expr {
        Expr::new(ExprKind::Var(VarRef::Local(l)), ty, self.span)
    }

    fn zero(&self, ty: ScalarType) -> Expr {
        Expr::lit(Value::from_bits(ty, 0), self.span)
    }

    fn load(&self, c: ContainerId, index: Vec<Expr>, ty: ScalarType) -> Expr {
        Expr::new(
            ExprKind::Load {
                container: c,
                index,
            },
            ty,
            self.span,
        )
    }

    fn bin(&self, op: BinOp, a: Expr, b: Expr, ty: ScalarType) -> Expr {
        Expr::new(
            ExprKind::Binary {
                op,
                lhs: Box::new(a),
                rhs: Box::new(b),
            },
            ty,
            self.span,
        )
    }

    fn call(&self, func: MathFn, a: Expr, b: Expr, ty: ScalarType) -> Expr {
        Expr::new(
            ExprKind::Call {
                func,
                args: vec![a, b],
            },
            ty,
            self.span,
        )
    }

    fn for_(&self, var: LocalId, end: &Expr, body: Vec<Stmt>) -> Stmt {
        Stmt::For {
            var,
            start: Expr::lit(Value::from_bits(end.ty, 0), self.span),
            end: end.clone(),
            inclusive: false,
            step: None,
            body,
            span: self.span,
        }
    }

    fn store(&self, c: ContainerId, index: Vec<Expr>, value: Expr) -> Stmt {
        Stmt::Store {
            container: c,
            index,
            value,
            wcr: None,
            span: self.span,
        }
    }

    /// The result's index for `params`: one per dimension; a scalar result
    /// (or one of shape `[1]`) is written by a map of one iteration.
    fn result_index(
        &self,
        mut params: Vec<MapParam>,
        out_shape: &[Expr],
    ) -> (Vec<MapParam>, Vec<Expr>) {
        if params.is_empty() {
            let one = out_shape.first().map_or(ScalarType::I64, |d| d.ty);
            params.push(MapParam {
                name: Name::new("__i0", self.span),
                ty: one,
                start: Expr::lit(Value::from_bits(one, 0), self.span),
                end: Expr::lit(Value::from_bits(one, 1), self.span),
                inclusive: false,
                step: None,
            });
            let index = out_shape
                .iter()
                .map(|d| Expr::lit(Value::from_bits(d.ty, 0), self.span))
                .collect();
            return (params, index);
        }
        let index = (0..params.len())
            .map(|k| self.var_param(k, &params))
            .collect();
        (params, index)
    }
}
