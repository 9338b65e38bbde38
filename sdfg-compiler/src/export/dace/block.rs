//! A block map in DaCe's terms: a `GPU_Device` map whose scope holds a
//! nested SDFG with the block's program. In the nested SDFG
//! - the block map's parameters and the variables of block-level `for`
//!   loops are symbols (a loop is a guard state, its body's states and a
//!   back edge that steps the variable; an `if` is a branch of states);
//! - each thread map is a `GPU_ThreadBlock` map (MapEntry, tasklet,
//!   MapExit) in a state of its own, each run of block-level stores a
//!   tasklet in a state of its own;
//! - `shared` data are transients with storage `GPU_Shared`, `register`
//!   data transients with storage `Register`; the `gpu` containers the
//!   block map touches are its connectors (whole arrays);
//! - block-level `let`s are substituted into their uses (they are immutable
//!   values), and barriers are left to DaCe, which synchronizes the threads
//!   of a block between dependent thread-block maps by itself.
//!
//! The nested SDFG is built as an `ir::Sdfg` (memlets and dataflow graphs
//! by the front end's own functions) and written by [`super::to_sdfg_json`].

use crate::ir::*;
use crate::lower::{dataflow, memlets};
use std::collections::{BTreeSet, HashMap};

/// The nested SDFG of block map `map`, and the names of the outer
/// containers it reads and writes (its connectors).
pub(super) fn block_sdfg(
    sdfg: &Sdfg,
    map: &Map,
    stmt: &Statement,
) -> (Sdfg, Vec<String>, Vec<String>) {
    let mut b = Builder::new(sdfg, map, stmt);
    let start = b.new_state("begin");
    let end = b.stmts(&map.body.stmts, start);
    let _ = end;
    let mut inner = Sdfg {
        name: Name::new(format!("{}_block", map.name.text), map.name.span),
        vis: proc_macro2::TokenStream::new(),
        docs: Vec::new(),
        streams: sdfg.streams,
        sync: sdfg.sync,
        graph: sdfg.graph,
        symbols: b.symbols,
        containers: b.containers,
        states: Vec::new(),
        start: 0,
        edges: b.edges,
        nested_form: None,
    };
    for (name, stmts) in b.states {
        let graph = dataflow::build(&stmts);
        inner.states.push(State {
            name: Name::new(name, map.name.span),
            stmts,
            graph,
            persistent: None,
            extent_checks: Vec::new(),
        });
    }
    // Every statement's memlets, including block data.
    for st in &mut inner.states {
        for s in &mut st.stmts {
            let body = match &s.kind {
                StatementKind::Map(m) => &m.body,
                StatementKind::Tasklet(t) => &t.body,
                _ => continue,
            };
            s.memlets = memlets::body_memlets_with_block_data(&inner.containers, body);
        }
        st.graph = dataflow::build(&st.stmts);
    }
    let reads: BTreeSet<String> = stmt
        .memlets
        .iter()
        .filter(|m| !m.access.is_write())
        .map(|m| sdfg.containers[m.container].name.text.clone())
        .collect();
    let writes: BTreeSet<String> = stmt
        .memlets
        .iter()
        .filter(|m| m.access.is_write())
        .map(|m| sdfg.containers[m.container].name.text.clone())
        .collect();
    (
        inner,
        reads.into_iter().collect(),
        writes.into_iter().collect(),
    )
}

/// Python's keywords: DaCe reads symbols and conditions as Python.
const PYTHON_KEYWORDS: [&str; 35] = [
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

struct Builder<'a> {
    sdfg: &'a Sdfg,
    map: &'a Map,
    symbols: Vec<Symbol>,
    containers: Vec<Container>,
    /// Outer container id -> nested one.
    container_of: HashMap<ContainerId, ContainerId>,
    /// The block map's parameter n -> symbol.
    param_symbol: Vec<SymbolId>,
    /// Block-level locals: a `for` variable's symbol, or a `let`'s value.
    local_symbol: HashMap<LocalId, SymbolId>,
    local_value: HashMap<LocalId, Expr>,
    states: Vec<(String, Vec<Statement>)>,
    edges: Vec<InterstateEdge>,
}

impl<'a> Builder<'a> {
    fn new(sdfg: &'a Sdfg, map: &'a Map, stmt: &Statement) -> Self {
        let mut symbols: Vec<Symbol> = sdfg.symbols.clone();
        let mut taken: BTreeSet<String> = symbols.iter().map(|s| s.name.text.clone()).collect();
        let mut containers = Vec::new();
        let mut container_of = HashMap::new();
        let used: BTreeSet<ContainerId> = stmt
            .memlets
            .iter()
            .map(|m| m.container)
            .chain(map.block.iter().flat_map(|b| b.data.iter().copied()))
            .collect();
        for c in used {
            let mut k = sdfg.containers[c].clone();
            // Outer data arrives through the nested SDFG's connectors.
            if !k.storage.is_block_local() {
                k.transient = false;
            }
            taken.insert(k.name.text.clone());
            container_of.insert(c, containers.len());
            containers.push(k);
        }
        let fresh = |name: &str, taken: &mut BTreeSet<String>| {
            // DaCe parses symbols as Python: no keywords (`pass`, `in`).
            let name = if PYTHON_KEYWORDS.contains(&name) {
                format!("{name}_")
            } else {
                name.to_string()
            };
            let name = name.as_str();
            let mut n = name.to_string();
            let mut k = 1;
            while taken.contains(&n) {
                n = format!("{name}_{k}");
                k += 1;
            }
            taken.insert(n.clone());
            n
        };
        let mut param_symbol = Vec::new();
        for p in &map.params {
            param_symbol.push(symbols.len());
            let name = fresh(&p.name.text, &mut taken);
            symbols.push(Symbol {
                name: Name::new(name, p.name.span),
                ty: p.ty,
                declared: false,
            });
        }
        let mut local_symbol = HashMap::new();
        // Block-level `for` variables: every `for` outside thread maps.
        fn block_fors(stmts: &[Stmt], out: &mut Vec<LocalId>) {
            for s in stmts {
                match s {
                    Stmt::For { var, body, .. } => {
                        out.push(*var);
                        block_fors(body, out);
                    }
                    Stmt::If { then, else_, .. } => {
                        block_fors(then, out);
                        block_fors(else_, out);
                    }
                    _ => {}
                }
            }
        }
        let mut fors = Vec::new();
        block_fors(&map.body.stmts, &mut fors);
        for l in fors {
            let local = &map.body.locals[l];
            local_symbol.insert(l, symbols.len());
            let name = fresh(&local.name, &mut taken);
            symbols.push(Symbol {
                name: Name::new(name, local.span),
                ty: local.ty,
                declared: false,
            });
        }
        Builder {
            sdfg,
            map,
            symbols,
            containers,
            container_of,
            param_symbol,
            local_symbol,
            local_value: HashMap::new(),
            states: Vec::new(),
            edges: Vec::new(),
        }
    }

    fn new_state(&mut self, hint: &str) -> StateId {
        let id = self.states.len();
        self.states.push((format!("{hint}_{id}"), Vec::new()));
        id
    }

    fn edge(
        &mut self,
        from: StateId,
        to: StateId,
        condition: Option<Expr>,
        assignments: Vec<(SymbolId, Expr)>,
    ) {
        self.edges.push(InterstateEdge {
            from,
            to,
            condition,
            assignments,
            span: self.map.name.span,
        });
    }

    /// Block-level statements from state `at` on; returns the state the
    /// next statement follows.
    fn stmts(&mut self, stmts: &[Stmt], mut at: StateId) -> StateId {
        let mut stores: Vec<Stmt> = Vec::new();
        for s in stmts {
            match s {
                Stmt::Let { local, init, .. }
                | Stmt::AssignLocal {
                    local, value: init, ..
                } => {
                    let v = self.expr(init, &HashMap::new());
                    self.local_value.insert(*local, v);
                }
                Stmt::Store { .. } => stores.push(self.stmt(s, &HashMap::new())),
                Stmt::Barrier(_) => {}
                _ => {
                    at = self.flush(&mut stores, at);
                    at = self.control(s, at);
                }
            }
        }
        self.flush(&mut stores, at)
    }

    /// A run of block-level stores: one tasklet in a state of its own.
    fn flush(&mut self, stores: &mut Vec<Stmt>, at: StateId) -> StateId {
        if stores.is_empty() {
            return at;
        }
        let st = self.new_state("block");
        self.edge(at, st, None, Vec::new());
        let k = self.states[st].1.len();
        let tasklet = Tasklet {
            name: Name::new(format!("block_{st}_{k}"), self.map.name.span),
            body: TaskletBody {
                stmts: std::mem::take(stores),
                locals: Vec::new(),
            },
        };
        self.states[st].1.push(Statement {
            kind: StatementKind::Tasklet(tasklet),
            memlets: Vec::new(),
            span: self.map.name.span,
        });
        st
    }

    fn control(&mut self, s: &Stmt, at: StateId) -> StateId {
        match s {
            Stmt::ThreadMap(t) => {
                let st = self.new_state(&t.name.text);
                self.edge(at, st, None, Vec::new());
                let m = self.thread_map(t);
                self.states[st].1.push(m);
                st
            }
            Stmt::If {
                cond, then, else_, ..
            } => {
                let c = self.expr(cond, &HashMap::new());
                let then_start = self.new_state("then");
                self.edge(at, then_start, Some(c), Vec::new());
                let then_end = self.stmts(then, then_start);
                let else_start = self.new_state("else");
                // Edges are tried in order: the else edge is "not c".
                self.edge(at, else_start, None, Vec::new());
                let else_end = self.stmts(else_, else_start);
                let join = self.new_state("endif");
                self.edge(then_end, join, None, Vec::new());
                self.edge(else_end, join, None, Vec::new());
                join
            }
            Stmt::For {
                var,
                start,
                end,
                step,
                body,
                ..
            } => {
                let Some(&sym) = self.local_symbol.get(var) else {
                    return at;
                };
                let ty = self.symbols[sym].ty;
                let var_expr = Expr::new(ExprKind::Var(VarRef::Symbol(sym)), ty, start.span);
                let guard = self.new_state("for");
                let first = self.expr(start, &HashMap::new());
                self.edge(at, guard, None, vec![(sym, first)]);
                let end = self.expr(end, &HashMap::new());
                let cmp = |op| {
                    Expr::new(
                        ExprKind::Binary {
                            op,
                            lhs: Box::new(var_expr.clone()),
                            rhs: Box::new(end.clone()),
                        },
                        ScalarType::Bool,
                        var_expr.span,
                    )
                };
                let body_start = self.new_state("body");
                self.edge(guard, body_start, Some(cmp(BinOp::Lt)), Vec::new());
                let body_end = self.stmts(body, body_start);
                let step = match step {
                    Some(s) => self.expr(s, &HashMap::new()),
                    None => Expr::lit(Value::from_bits(ty, 1), var_expr.span),
                };
                let next = Expr::new(
                    ExprKind::Binary {
                        op: BinOp::Add,
                        lhs: Box::new(var_expr.clone()),
                        rhs: Box::new(step),
                    },
                    ty,
                    var_expr.span,
                );
                self.edge(body_end, guard, None, vec![(sym, next)]);
                let after = self.new_state("endfor");
                self.edge(guard, after, Some(cmp(BinOp::Ge)), Vec::new());
                after
            }
            _ => at,
        }
    }

    /// A thread map as a map of the nested SDFG over the block's threads
    /// (`__t in 0..B`, exported with schedule `GPU_ThreadBlock`) whose
    /// tasklet runs the thread's iterations `q = __t, __t + B, ...` in a
    /// loop, as our kernels do: DaCe's thread-block maps may not have more
    /// iterations than the block has threads. A 1-D thread map loops over
    /// its parameter directly; more dimensions over `q`, decomposed
    /// row-major into the parameters.
    fn thread_map(&mut self, t: &ThreadMap) -> Statement {
        let span = t.span;
        let i64_of = |e: Expr| -> Expr {
            if e.ty == ScalarType::I64 {
                e
            } else {
                let span = e.span;
                Expr::new(ExprKind::Cast { arg: Box::new(e) }, ScalarType::I64, span)
            }
        };
        let bin = |op: BinOp, a: Expr, b: Expr| -> Expr {
            let ty = if op.is_comparison() {
                ScalarType::Bool
            } else {
                a.ty
            };
            let span = a.span;
            Expr::new(
                ExprKind::Binary {
                    op,
                    lhs: Box::new(a),
                    rhs: Box::new(b),
                },
                ty,
                span,
            )
        };
        let lit = |v: i64| Expr::lit(Value::I64(v), span);
        let threads = self
            .map
            .block
            .as_ref()
            .map(|b| b.dims())
            .unwrap_or_default()
            .into_iter()
            .map(|d| i64_of(self.expr(&d, &HashMap::new())))
            .reduce(|a, b| bin(BinOp::Mul, a, b))
            .unwrap_or_else(|| lit(crate::ir::DEFAULT_BLOCK_THREADS as i64));
        let tid = Expr::new(ExprKind::Var(VarRef::Param(0)), ScalarType::I64, span);
        let mut inner: HashMap<LocalId, VarRef> = HashMap::new();
        let mut locals: Vec<Local> = Vec::new();
        let new_local = |locals: &mut Vec<Local>, name: &str, ty: ScalarType| {
            locals.push(Local {
                name: name.to_string(),
                ty,
                mutable: false,
                span,
            });
            locals.len() - 1
        };
        for l in thread_map_locals(t) {
            let local = self.map.body.locals[l].clone();
            inner.insert(l, VarRef::Local(locals.len()));
            locals.push(local);
        }
        let body: Vec<Stmt> = t.body.iter().map(|s| self.stmt(s, &inner)).collect();
        let range = |p: &ThreadParam| {
            (
                self.expr(&p.start, &HashMap::new()),
                self.expr(&p.end, &HashMap::new()),
                p.step.as_ref().map(|s| self.expr(s, &HashMap::new())),
            )
        };
        let stmts = if let [p] = t.params.as_slice() {
            // c = start + __t * step, ... while c < end, by B * step.
            let (start, end, step) = range(p);
            let ty = start.ty;
            let to_ty = |e: Expr| -> Expr {
                if e.ty == ty {
                    e
                } else {
                    let span = e.span;
                    Expr::new(ExprKind::Cast { arg: Box::new(e) }, ty, span)
                }
            };
            let step = step.unwrap_or_else(|| Expr::lit(Value::from_bits(ty, 1), span));
            let var = match inner.get(&p.local) {
                Some(VarRef::Local(n)) => *n,
                _ => new_local(&mut locals, "__c", ty),
            };
            vec![Stmt::For {
                var,
                start: bin(
                    BinOp::Add,
                    start,
                    to_ty(bin(BinOp::Mul, tid.clone(), i64_of(step.clone()))),
                ),
                end,
                // DaCe's integers do not wrap: `last + 1` is exact.
                inclusive: false,
                step: Some(to_ty(bin(BinOp::Mul, threads.clone(), i64_of(step)))),
                body,
                span,
            }]
        } else {
            // q over the linearized space; each parameter from q.
            let mut counts = Vec::new();
            for p in &t.params {
                let (start, end, step) = range(p);
                let step = step.map_or_else(|| lit(1), i64_of);
                let (start, end) = (i64_of(start), i64_of(end));
                let span_ = bin(BinOp::Sub, end, start.clone());
                let count = bin(
                    BinOp::Div,
                    bin(BinOp::Add, span_, bin(BinOp::Sub, step.clone(), lit(1))),
                    step.clone(),
                );
                counts.push((start, step, count));
            }
            let total = counts
                .iter()
                .map(|c| c.2.clone())
                .reduce(|a, b| bin(BinOp::Mul, a, b))
                .unwrap_or_else(|| lit(0));
            let q = new_local(&mut locals, "__q", ScalarType::I64);
            let q_expr = Expr::new(ExprKind::Var(VarRef::Local(q)), ScalarType::I64, span);
            let mut prelude = Vec::new();
            let mut stride = lit(1);
            for (d, p) in t.params.iter().enumerate().rev() {
                let (start, step, count) = &counts[d];
                let index = bin(
                    BinOp::Rem,
                    bin(BinOp::Div, q_expr.clone(), stride.clone()),
                    count.clone(),
                );
                let value = bin(
                    BinOp::Add,
                    start.clone(),
                    bin(BinOp::Mul, index, step.clone()),
                );
                let ty = self.map.body.locals[p.local].ty;
                let value = if ty == ScalarType::I64 {
                    value
                } else {
                    Expr::new(
                        ExprKind::Cast {
                            arg: Box::new(value),
                        },
                        ty,
                        span,
                    )
                };
                if let Some(VarRef::Local(n)) = inner.get(&p.local) {
                    prelude.push(Stmt::Let {
                        local: *n,
                        init: value,
                        span,
                    });
                }
                stride = bin(BinOp::Mul, stride, count.clone());
            }
            prelude.reverse();
            prelude.extend(body);
            vec![Stmt::For {
                var: q,
                start: tid.clone(),
                end: total,
                inclusive: false,
                step: Some(threads.clone()),
                body: prelude,
                span,
            }]
        };
        let param = MapParam {
            name: Name::new("__t", span),
            ty: ScalarType::I64,
            start: lit(0),
            end: threads,
            inclusive: false,
            step: None,
        };
        Statement {
            kind: StatementKind::Map(Map {
                name: t.name.clone(),
                params: vec![param],
                schedule: MapSchedule::Gpu,
                body: TaskletBody { stmts, locals },
                block: None,
                gpu_tasklet: false,
                library: None,
                independent: Vec::new(),
            }),
            memlets: Vec::new(),
            span,
        }
    }

    fn stmt(&self, s: &Stmt, inner: &HashMap<LocalId, VarRef>) -> Stmt {
        let local = |l: &LocalId| match inner.get(l) {
            Some(VarRef::Local(n)) => *n,
            _ => *l,
        };
        match s {
            Stmt::Let {
                local: l,
                init,
                span,
            } => Stmt::Let {
                local: local(l),
                init: self.expr(init, inner),
                span: *span,
            },
            Stmt::AssignLocal {
                local: l,
                value,
                span,
            } => Stmt::AssignLocal {
                local: local(l),
                value: self.expr(value, inner),
                span: *span,
            },
            Stmt::Store {
                container,
                index,
                value,
                wcr,
                span,
            } => Stmt::Store {
                container: self.container(*container),
                index: index.iter().map(|e| self.expr(e, inner)).collect(),
                value: self.expr(value, inner),
                wcr: *wcr,
                span: *span,
            },
            Stmt::If {
                cond,
                then,
                else_,
                span,
            } => Stmt::If {
                cond: self.expr(cond, inner),
                then: then.iter().map(|s| self.stmt(s, inner)).collect(),
                else_: else_.iter().map(|s| self.stmt(s, inner)).collect(),
                span: *span,
            },
            Stmt::For {
                var,
                start,
                end,
                inclusive,
                step,
                body,
                span,
            } => Stmt::For {
                var: local(var),
                start: self.expr(start, inner),
                end: self.expr(end, inner),
                inclusive: *inclusive,
                step: step.as_ref().map(|e| self.expr(e, inner)),
                body: body.iter().map(|s| self.stmt(s, inner)).collect(),
                span: *span,
            },
            Stmt::While { cond, body, span } => Stmt::While {
                cond: self.expr(cond, inner),
                body: body.iter().map(|s| self.stmt(s, inner)).collect(),
                span: *span,
            },
            Stmt::Break { .. } | Stmt::Continue { .. } => s.clone(),
            // Not inside thread maps or block-level stores.
            Stmt::ThreadMap(_) | Stmt::Barrier(_) => s.clone(),
        }
    }

    fn container(&self, c: ContainerId) -> ContainerId {
        self.container_of.get(&c).copied().unwrap_or(c)
    }

    /// `e` in the nested SDFG's names.
    fn expr(&self, e: &Expr, inner: &HashMap<LocalId, VarRef>) -> Expr {
        let kind = match &e.kind {
            ExprKind::Var(VarRef::Local(l)) => {
                if let Some(v) = inner.get(l) {
                    ExprKind::Var(*v)
                } else if let Some(s) = self.local_symbol.get(l) {
                    ExprKind::Var(VarRef::Symbol(*s))
                } else if let Some(v) = self.local_value.get(l) {
                    return v.clone();
                } else {
                    ExprKind::Var(VarRef::Local(*l))
                }
            }
            ExprKind::Var(VarRef::Param(p)) => match self.param_symbol.get(*p) {
                Some(s) => ExprKind::Var(VarRef::Symbol(*s)),
                None => ExprKind::Var(VarRef::Param(*p)),
            },
            ExprKind::Var(v) => ExprKind::Var(*v),
            ExprKind::Lit(v) => ExprKind::Lit(*v),
            ExprKind::Load { container, index } => ExprKind::Load {
                container: self.container(*container),
                index: index.iter().map(|i| self.expr(i, inner)).collect(),
            },
            ExprKind::Unary { op, arg } => ExprKind::Unary {
                op: *op,
                arg: Box::new(self.expr(arg, inner)),
            },
            ExprKind::Binary { op, lhs, rhs } => ExprKind::Binary {
                op: *op,
                lhs: Box::new(self.expr(lhs, inner)),
                rhs: Box::new(self.expr(rhs, inner)),
            },
            ExprKind::Cast { arg } => ExprKind::Cast {
                arg: Box::new(self.expr(arg, inner)),
            },
            ExprKind::Select { cond, then, else_ } => ExprKind::Select {
                cond: Box::new(self.expr(cond, inner)),
                then: Box::new(self.expr(then, inner)),
                else_: Box::new(self.expr(else_, inner)),
            },
            ExprKind::Call { func, args } => ExprKind::Call {
                func: *func,
                args: args.iter().map(|a| self.expr(a, inner)).collect(),
            },
        };
        let _ = self.sdfg;
        Expr::new(kind, e.ty, e.span)
    }
}
