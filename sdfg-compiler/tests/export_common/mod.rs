//! Test SDFGs for the exporters, built directly as IR (until the front end
//! lands on main; then these become `sdfg_compiler::frontend_str(src)`).
//!
//! The builder infers memlets and the dataflow graph from statement bodies
//! the way DESIGN section 2 describes: one memlet per distinct container
//! access, dynamic when the index reads locals or data or the access is
//! conditional; each write makes a new access node, reads use the latest
//! one, and a write after a read is ordered by an empty edge.
#![allow(dead_code)]

use proc_macro2::Span;
use sdfg_compiler::export::cpp::same_expr;
use sdfg_compiler::ir::bounds::for_each_access;
use sdfg_compiler::ir::*;

pub fn sp() -> Span {
    Span::call_site()
}

pub fn name(s: &str) -> Name {
    Name::new(s, sp())
}

// ------------------------------------------------------------ expressions

pub fn lit(v: Value) -> Expr {
    Expr::lit(v, sp())
}
pub fn i32c(v: i32) -> Expr {
    lit(Value::I32(v))
}
pub fn i64c(v: i64) -> Expr {
    lit(Value::I64(v))
}
pub fn f64c(v: f64) -> Expr {
    lit(Value::F64(v))
}
pub fn boolc(v: bool) -> Expr {
    lit(Value::Bool(v))
}
pub fn var(v: VarRef, ty: ScalarType) -> Expr {
    Expr::new(ExprKind::Var(v), ty, sp())
}
pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    let ty = if op.is_comparison() || matches!(op, BinOp::And | BinOp::Or) {
        ScalarType::Bool
    } else {
        a.ty
    };
    Expr::new(
        ExprKind::Binary {
            op,
            lhs: Box::new(a),
            rhs: Box::new(b),
        },
        ty,
        sp(),
    )
}
pub fn add(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Add, a, b)
}
pub fn sub(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Sub, a, b)
}
pub fn mul(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Mul, a, b)
}
pub fn cast(a: Expr, ty: ScalarType) -> Expr {
    Expr::new(ExprKind::Cast { arg: Box::new(a) }, ty, sp())
}

/// A value of an SDFG under construction: symbols and containers by name.
pub struct B {
    pub sdfg: Sdfg,
}

impl B {
    pub fn new(n: &str) -> B {
        B {
            sdfg: Sdfg {
                name: name(n),
                vis: proc_macro2::TokenStream::new(),
                docs: vec![],
                streams: StreamPolicy::Default,
                sync: SyncMode::Auto,
                symbols: vec![],
                containers: vec![],
                states: vec![],
                start: 0,
                edges: vec![],
            },
        }
    }
    pub fn symbol(&mut self, n: &str, ty: ScalarType, declared: bool) -> &mut Self {
        self.sdfg.symbols.push(Symbol {
            name: name(n),
            ty,
            declared,
        });
        self
    }
    pub fn container(
        &mut self,
        n: &str,
        storage: Storage,
        elem: ScalarType,
        shape: Vec<Expr>,
        transient: bool,
    ) -> &mut Self {
        self.sdfg.containers.push(Container {
            name: name(n),
            elem,
            shape,
            storage,
            transient,
        });
        self
    }
    pub fn sym(&self, n: &str) -> Expr {
        let id = self.sdfg.symbol_by_name(n).expect("symbol");
        var(VarRef::Symbol(id), self.sdfg.symbols[id].ty)
    }
    pub fn c(&self, n: &str) -> ContainerId {
        self.sdfg.container_by_name(n).expect("container")
    }
    pub fn load(&self, n: &str, index: Vec<Expr>) -> Expr {
        let c = self.c(n);
        Expr::new(
            ExprKind::Load {
                container: c,
                index,
            },
            self.sdfg.containers[c].elem,
            sp(),
        )
    }
    pub fn store(&self, n: &str, index: Vec<Expr>, value: Expr) -> Stmt {
        Stmt::Store {
            container: self.c(n),
            index,
            value,
            wcr: None,
            span: sp(),
        }
    }
    pub fn reduce(&self, n: &str, index: Vec<Expr>, value: Expr, op: WcrOp) -> Stmt {
        Stmt::Store {
            container: self.c(n),
            index,
            value,
            wcr: Some(op),
            span: sp(),
        }
    }

    /// Adds a state; statements get their memlets and the state its graph.
    pub fn state(&mut self, n: &str, stmts: Vec<Statement>) -> &mut Self {
        let graph = build_dataflow(&stmts);
        self.sdfg.states.push(State {
            name: name(n),
            stmts,
            graph,
        });
        self
    }

    pub fn edge(
        &mut self,
        from: &str,
        to: &str,
        condition: Option<Expr>,
        assignments: Vec<(&str, Expr)>,
    ) -> &mut Self {
        let from = self.sdfg.state_by_name(from).expect("state");
        let to = self.sdfg.state_by_name(to).expect("state");
        let assignments = assignments
            .into_iter()
            .map(|(n, e)| (self.sdfg.symbol_by_name(n).expect("symbol"), e))
            .collect();
        self.sdfg.edges.push(InterstateEdge {
            from,
            to,
            condition,
            assignments,
            span: sp(),
        });
        self
    }
}

pub fn map(
    n: &str,
    params: Vec<(&str, Expr, Expr)>,
    schedule: MapSchedule,
    stmts: Vec<Stmt>,
    locals: Vec<Local>,
) -> Statement {
    stmt(StatementKind::Map(Map {
        name: name(n),
        params: params
            .into_iter()
            .map(|(p, start, end)| MapParam {
                name: name(p),
                ty: start.ty,
                start,
                end,
                step: None,
            })
            .collect(),
        schedule,
        body: TaskletBody { stmts, locals },
    }))
}

pub fn param(n: usize, ty: ScalarType) -> Expr {
    var(VarRef::Param(n), ty)
}

pub fn local(n: &str, ty: ScalarType) -> Local {
    Local {
        name: n.to_string(),
        ty,
        mutable: true,
        span: sp(),
    }
}

pub fn tasklet(n: &str, stmts: Vec<Stmt>, locals: Vec<Local>) -> Statement {
    stmt(StatementKind::Tasklet(Tasklet {
        name: name(n),
        body: TaskletBody { stmts, locals },
    }))
}

/// `copy SRC[subset] -> DST[subset]` (empty subsets: the whole container).
pub fn copy(
    src: ContainerId,
    src_subset: Subset,
    dst: ContainerId,
    dst_subset: Subset,
) -> Statement {
    let mk = |container, subset, access, connector: &str| Memlet {
        container,
        subset,
        access,
        dynamic: false,
        connector: connector.to_string(),
        span: sp(),
    };
    Statement {
        kind: StatementKind::Copy(Copy { src, dst }),
        memlets: vec![
            mk(src, src_subset, Access::Read, "__in"),
            mk(dst, dst_subset, Access::Write, "__out"),
        ],
        span: sp(),
    }
}

/// A map or tasklet statement with its memlets inferred.
pub fn stmt(kind: StatementKind) -> Statement {
    let memlets = infer_memlets(&kind);
    Statement {
        kind,
        memlets,
        span: sp(),
    }
}

fn reads_only_fixed(e: &Expr) -> bool {
    let mut ok = true;
    e.walk(&mut |x| {
        if matches!(
            x.kind,
            ExprKind::Load { .. } | ExprKind::Var(VarRef::Local(_))
        ) {
            ok = false
        }
    });
    ok
}

fn find_wcr(stmts: &[Stmt], container: ContainerId, index: &[Expr]) -> Option<WcrOp> {
    let mut found = None;
    for s in stmts {
        s.walk(&mut |st| {
            if let Stmt::Store {
                container: c,
                index: i,
                wcr: Some(op),
                ..
            } = st
            {
                if *c == container
                    && i.len() == index.len()
                    && i.iter().zip(index).all(|(a, b)| same_expr(a, b))
                {
                    found = Some(*op);
                }
            }
        });
    }
    found
}

fn infer_memlets(kind: &StatementKind) -> Vec<Memlet> {
    let body = match kind {
        StatementKind::Map(m) => &m.body,
        StatementKind::Tasklet(t) => &t.body,
        StatementKind::Copy(_) | StatementKind::Wait(_) => return vec![],
    };
    let mut out: Vec<Memlet> = Vec::new();
    for_each_access(&body.stmts, &mut |site| {
        let dynamic = site.conditional || !site.index.iter().all(reads_only_fixed);
        let access = if site.is_store {
            match find_wcr(&body.stmts, site.container, site.index) {
                Some(op) => Access::Reduce(op),
                None => Access::Write,
            }
        } else {
            Access::Read
        };
        let same = |m: &Memlet| {
            m.container == site.container
                && m.access.is_write() == site.is_store
                && m.subset.len() == site.index.len()
                && m.subset.iter().zip(site.index).all(|(d, i)| match d {
                    SubsetDim::Index(e) => same_expr(e, i),
                    _ => false,
                })
        };
        if let Some(m) = out.iter_mut().find(|m| same(m)) {
            m.dynamic |= dynamic;
            return;
        }
        // A dynamic access shares the container's dynamic memlet.
        if dynamic
            && out.iter().any(|m| {
                m.container == site.container && m.dynamic && m.access.is_write() == site.is_store
            })
        {
            return;
        }
        let n = out.len();
        out.push(Memlet {
            container: site.container,
            subset: site.index.iter().cloned().map(SubsetDim::Index).collect(),
            access,
            dynamic,
            connector: format!("__{}{n}", if site.is_store { "out" } else { "in" }),
            span: sp(),
        });
    });
    out
}

/// The DaCe-style dataflow graph of a list of statements.
pub fn build_dataflow(stmts: &[Statement]) -> Dataflow {
    let mut g = Dataflow::default();
    // Per container: the latest access node, its writer, and its readers.
    let mut latest: std::collections::HashMap<ContainerId, (NodeId, Option<NodeId>, Vec<NodeId>)> =
        Default::default();
    for (s, stmt) in stmts.iter().enumerate() {
        if matches!(stmt.kind, StatementKind::Wait(_)) {
            continue;
        }
        let me = g.nodes.len();
        g.nodes.push(DataNode::Stmt(s));
        let mut read_nodes: Vec<(ContainerId, NodeId)> = Vec::new();
        for (m, memlet) in stmt.memlets.iter().enumerate() {
            if memlet.access.is_write() {
                continue;
            }
            let node = match latest.get(&memlet.container) {
                Some((n, _, _)) => *n,
                None => {
                    let n = g.nodes.len();
                    g.nodes.push(DataNode::Access(memlet.container));
                    latest.insert(memlet.container, (n, None, vec![]));
                    n
                }
            };
            g.edges.push(DataEdge {
                src: node,
                dst: me,
                memlet: Some((s, m)),
            });
            read_nodes.push((memlet.container, node));
        }
        for (c, _) in &read_nodes {
            if let Some(entry) = latest.get_mut(c) {
                entry.2.push(me);
            }
        }
        let mut written: Vec<ContainerId> = Vec::new();
        for (m, memlet) in stmt.memlets.iter().enumerate() {
            if !memlet.access.is_write() {
                continue;
            }
            let node = if let Some(pos) = written.iter().position(|c| *c == memlet.container) {
                latest[&written[pos]].0
            } else {
                // Write after read / write after write: order after them.
                if let Some((_, writer, readers)) = latest.get(&memlet.container) {
                    let mut before: Vec<NodeId> = readers.clone();
                    before.extend(writer.iter().copied());
                    before.sort_unstable();
                    before.dedup();
                    for r in before {
                        let already = g.edges.iter().any(|e| e.src == r && e.dst == me)
                            || read_nodes
                                .iter()
                                .any(|(_, n)| g.edges.iter().any(|e| e.src == r && e.dst == *n));
                        if r != me && !already {
                            g.edges.push(DataEdge {
                                src: r,
                                dst: me,
                                memlet: None,
                            });
                        }
                    }
                }
                let n = g.nodes.len();
                g.nodes.push(DataNode::Access(memlet.container));
                latest.insert(memlet.container, (n, Some(me), vec![]));
                written.push(memlet.container);
                n
            };
            g.edges.push(DataEdge {
                src: me,
                dst: node,
                memlet: Some((s, m)),
            });
        }
    }
    g
}

// ------------------------------------------------------------ the test SDFGs

use ScalarType::{Bool, F64, I32, I64};

/// DESIGN section 3: the DaCe default-stream reproducer.
pub fn repro() -> Sdfg {
    let mut b = B::new("Repro");
    b.symbol("X_size", I32, true)
        .symbol("R", I32, false)
        .symbol("S", Bool, false);
    let x_size = b.sym("X_size");
    b.container("T_GPU", Storage::Gpu, I32, vec![], false)
        .container("X", Storage::Host, I32, vec![x_size], false)
        .container("U", Storage::Host, I32, vec![i32c(1)], false)
        .container("T", Storage::Host, I32, vec![], true);
    let first = vec![
        map(
            "write",
            vec![("i", i32c(0), i32c(1))],
            MapSchedule::Gpu,
            vec![b.store("T_GPU", vec![], i32c(10))],
            vec![],
        ),
        copy(b.c("T_GPU"), vec![], b.c("T"), vec![]),
        tasklet(
            "cpu_computation",
            vec![b.store("U", vec![i32c(0)], add(b.load("T", vec![]), i32c(1)))],
            vec![],
        ),
    ];
    let second = vec![map(
        "compute",
        vec![("i", i32c(0), b.sym("R"))],
        MapSchedule::Cpu,
        vec![b.store("X", vec![param(0, I32)], i32c(1))],
        vec![],
    )];
    b.state("first", first).state("second", second);
    let t = b.load("T", vec![]);
    b.edge("first", "second", None, vec![("R", t), ("S", boolc(false))]);
    b.sdfg
}

/// DESIGN section 3: Polybench jacobi-2d with GPU maps and a host loop.
pub fn jacobi2d() -> Sdfg {
    let mut b = B::new("Jacobi2d");
    b.symbol("N", I64, true)
        .symbol("TSTEPS", I64, true)
        .symbol("t", I64, false);
    let n = b.sym("N");
    for c in ["A", "B"] {
        b.container(c, Storage::Gpu, F64, vec![n.clone(), n.clone()], false);
    }
    let stencil = |b: &B, dst: &str, src: &str| {
        let (i, j) = (param(0, I64), param(1, I64));
        let at = |di: i64, dj: i64| {
            let ii = if di == 0 {
                i.clone()
            } else if di > 0 {
                add(i.clone(), i64c(di))
            } else {
                sub(i.clone(), i64c(-di))
            };
            let jj = if dj == 0 {
                j.clone()
            } else if dj > 0 {
                add(j.clone(), i64c(dj))
            } else {
                sub(j.clone(), i64c(-dj))
            };
            b.load(src, vec![ii, jj])
        };
        let sum = add(
            add(add(add(at(0, 0), at(0, -1)), at(0, 1)), at(1, 0)),
            at(-1, 0),
        );
        map(
            &dst.to_lowercase(),
            vec![
                ("i", i64c(1), sub(b.sym("N"), i64c(1))),
                ("j", i64c(1), sub(b.sym("N"), i64c(1))),
            ],
            MapSchedule::Gpu,
            vec![b.store(dst, vec![i, j], mul(f64c(0.2), sum))],
            vec![],
        )
    };
    let step = vec![stencil(&b, "B", "A"), stencil(&b, "A", "B")];
    b.state("init", vec![])
        .state("step", step)
        .state("done", vec![]);
    let t1 = || add(b_sym(&b, "t"), i64c(1));
    let (c1, c2) = (
        bin(BinOp::Lt, t1(), b.sym("TSTEPS")),
        bin(BinOp::Ge, t1(), b.sym("TSTEPS")),
    );
    let next = t1();
    b.edge("init", "step", None, vec![("t", i64c(0))])
        .edge("step", "step", Some(c1), vec![("t", next)])
        .edge("step", "done", Some(c2), vec![]);
    b.sdfg
}

fn b_sym(b: &B, n: &str) -> Expr {
    b.sym(n)
}

/// A WCR sum over a CPU map: `S[0] += A[i]`.
pub fn wcr_sum() -> Sdfg {
    let mut b = B::new("WcrSum");
    b.symbol("N", I64, true);
    let n = b.sym("N");
    b.container("A", Storage::Host, I64, vec![n], false)
        .container("S", Storage::Host, I64, vec![i64c(1)], false);
    let body = vec![b.reduce(
        "S",
        vec![i64c(0)],
        b.load("A", vec![param(0, I64)]),
        WcrOp::Sum,
    )];
    let s = vec![map(
        "sum",
        vec![("i", i64c(0), b.sym("N"))],
        MapSchedule::Cpu,
        body,
        vec![],
    )];
    b.state("s", s);
    b.sdfg
}

/// Copies with subsets: a window of a 1-D array, a row piece of a 2-D one.
pub fn copy_subsets() -> Sdfg {
    let mut b = B::new("CopySubsets");
    b.container("A", Storage::Host, I32, vec![i32c(20)], false)
        .container("B", Storage::Host, I32, vec![i32c(10)], false)
        .container("M", Storage::Host, I32, vec![i32c(4), i32c(5)], false)
        .container("V", Storage::Host, I32, vec![i32c(3)], false);
    let r = |a: i32, e: i32| SubsetDim::Range {
        start: i32c(a),
        end: i32c(e),
    };
    let s = vec![
        copy(b.c("A"), vec![r(2, 12)], b.c("B"), vec![r(0, 10)]),
        copy(
            b.c("M"),
            vec![SubsetDim::Index(i32c(2)), r(1, 4)],
            b.c("V"),
            vec![r(0, 3)],
        ),
    ];
    b.state("s", s);
    b.sdfg
}

/// Host-only: a CPU map with a local and a select, then a host tasklet with
/// a loop over dynamic accesses and an integer division.
pub fn cpu_only() -> Sdfg {
    let mut b = B::new("CpuOnly");
    b.symbol("N", I64, true);
    let n = b.sym("N");
    b.container("X", Storage::Host, I64, vec![n.clone()], false)
        .container("Y", Storage::Host, I64, vec![n], false)
        .container("total", Storage::Host, I64, vec![i64c(1)], false);
    let v = var(VarRef::Local(0), I64);
    let select = Expr::new(
        ExprKind::Select {
            cond: Box::new(bin(BinOp::Gt, v.clone(), i64c(10))),
            then: Box::new(sub(v.clone(), i64c(10))),
            else_: Box::new(v.clone()),
        },
        I64,
        sp(),
    );
    let scale = map(
        "scale",
        vec![("i", i64c(0), b.sym("N"))],
        MapSchedule::Cpu,
        vec![
            Stmt::Let {
                local: 0,
                init: mul(b.load("X", vec![param(0, I64)]), i64c(3)),
                span: sp(),
            },
            b.store("Y", vec![param(0, I64)], select),
        ],
        vec![local("v", I64)],
    );
    let (acc, k) = (var(VarRef::Local(0), I64), var(VarRef::Local(1), I64));
    let summarize = tasklet(
        "summarize",
        vec![
            Stmt::Let {
                local: 0,
                init: i64c(0),
                span: sp(),
            },
            Stmt::For {
                var: 1,
                start: i64c(0),
                end: b.sym("N"),
                step: None,
                body: vec![Stmt::AssignLocal {
                    local: 0,
                    value: add(acc.clone(), b.load("Y", vec![k])),
                    span: sp(),
                }],
                span: sp(),
            },
            b.store("total", vec![i64c(0)], bin(BinOp::Div, acc, i64c(2))),
        ],
        vec![local("acc", I64), local("k", I64)],
    );
    b.state("s", vec![scale, summarize]);
    b.sdfg
}

/// A state machine with a loop: `body` runs 4 times, adding `k` each time.
pub fn loop_cond() -> Sdfg {
    let mut b = B::new("LoopCond");
    b.symbol("N", I64, true).symbol("k", I64, false);
    let n = b.sym("N");
    b.container("A", Storage::Host, I64, vec![n], false);
    let i = param(0, I64);
    let body = vec![map(
        "inc",
        vec![("i", i64c(0), b.sym("N"))],
        MapSchedule::Seq,
        vec![b.store("A", vec![i.clone()], add(b.load("A", vec![i]), b.sym("k")))],
        vec![],
    )];
    b.state("init", vec![])
        .state("body", body)
        .state("done", vec![]);
    let cond = bin(BinOp::Lt, add(b.sym("k"), i64c(1)), i64c(4));
    let next = add(b.sym("k"), i64c(1));
    b.edge("init", "body", None, vec![("k", i64c(0))])
        .edge("body", "body", Some(cond), vec![("k", next)])
        .edge("body", "done", None, vec![]);
    b.sdfg
}

pub fn all() -> Vec<Sdfg> {
    vec![
        repro(),
        jacobi2d(),
        wcr_sum(),
        copy_subsets(),
        cpu_only(),
        loop_cond(),
        streams_demo(),
    ]
}

/// Two independent kernels on two streams, a kernel that needs both (an
/// event), and a copy back read on the host (a sync): every schedule mark.
pub fn streams_demo() -> Sdfg {
    let mut b = B::new("Streams");
    b.sdfg.streams = StreamPolicy::Auto;
    b.symbol("N", I64, true);
    let n = b.sym("N");
    for c in ["A", "B", "C"] {
        b.container(c, Storage::Gpu, F64, vec![n.clone()], false);
    }
    b.container("H", Storage::Pinned, F64, vec![n.clone()], false)
        .container("total", Storage::Host, F64, vec![i64c(1)], false);
    let i = || param(0, I64);
    let range = || vec![("i", i64c(0), b_sym(&b, "N"))];
    let s = vec![
        map(
            "fill_a",
            range(),
            MapSchedule::Gpu,
            vec![b.store("A", vec![i()], cast(i(), F64))],
            vec![],
        ),
        map(
            "fill_b",
            range(),
            MapSchedule::Gpu,
            vec![b.store("B", vec![i()], f64c(2.0))],
            vec![],
        ),
        map(
            "combine",
            range(),
            MapSchedule::Gpu,
            vec![b.store(
                "C",
                vec![i()],
                mul(b.load("A", vec![i()]), b.load("B", vec![i()])),
            )],
            vec![],
        ),
        copy(b.c("C"), vec![], b.c("H"), vec![]),
        map(
            "sum",
            range(),
            MapSchedule::Cpu,
            vec![b.reduce("total", vec![i64c(0)], b.load("H", vec![i()]), WcrOp::Sum)],
            vec![],
        ),
    ];
    b.state("compute", s);
    b.sdfg
}

pub fn un(op: UnOp, a: Expr) -> Expr {
    let ty = a.ty;
    Expr::new(
        ExprKind::Unary {
            op,
            arg: Box::new(a),
        },
        ty,
        sp(),
    )
}
pub fn call(func: MathFn, args: Vec<Expr>) -> Expr {
    let ty = args[0].ty;
    Expr::new(ExprKind::Call { func, args }, ty, sp())
}
pub fn select(c: Expr, t: Expr, e: Expr) -> Expr {
    let ty = t.ty;
    Expr::new(
        ExprKind::Select {
            cond: Box::new(c),
            then: Box::new(t),
            else_: Box::new(e),
        },
        ty,
        sp(),
    )
}
pub fn let_(local: usize, init: Expr) -> Stmt {
    Stmt::Let {
        local,
        init,
        span: sp(),
    }
}

/// The corners of the tasklet language where C++ and Rust differ: integer
/// division by zero and `MIN / -1`, masked shifts, NaN-ignoring `min`,
/// shadowed locals, stepped loops, conditional stores, guarded loads.
/// Inputs: `inp = [7, 0, -7, i64::MIN, -1, 65]`, `fin = [0.0, 2.0]`.
pub fn semantics() -> Sdfg {
    let mut b = B::new("Semantics");
    b.container("inp", Storage::Host, I64, vec![i64c(6)], false)
        .container("fin", Storage::Host, F64, vec![i64c(2)], false)
        .container("out", Storage::Host, I64, vec![i64c(17)], false)
        .container("fout", Storage::Host, F64, vec![i64c(7)], false)
        .container(
            "f32out",
            Storage::Host,
            ScalarType::F32,
            vec![i64c(1)],
            false,
        );
    let l = |id: usize, ty: ScalarType| var(VarRef::Local(id), ty);
    let (a, bz, c, m, neg1, sh) = (
        l(0, I64),
        l(1, I64),
        l(2, I64),
        l(3, I64),
        l(4, I64),
        l(5, I64),
    );
    let fin = |k: i64| b.load("fin", vec![i64c(k)]);
    let out = |k: i64, v: Expr| b.store("out", vec![i64c(k)], v);
    let fout = |k: i64, v: Expr| b.store("fout", vec![i64c(k)], v);
    let nan = bin(BinOp::Div, fin(0), fin(0));
    let mut body: Vec<Stmt> = (0..6)
        .map(|k| let_(k as usize, b.load("inp", vec![i64c(k)])))
        .collect();
    body.extend([
        out(0, bin(BinOp::Div, a.clone(), bz.clone())),
        out(1, bin(BinOp::Rem, a.clone(), bz.clone())),
        out(2, bin(BinOp::Div, c.clone(), i64c(2))),
        out(3, bin(BinOp::Rem, c.clone(), i64c(2))),
        out(4, bin(BinOp::Div, m.clone(), neg1.clone())),
        out(5, bin(BinOp::Rem, m.clone(), neg1.clone())),
        out(6, bin(BinOp::Shl, a.clone(), sh.clone())),
        out(7, bin(BinOp::Shr, c.clone(), sh.clone())),
        out(
            8,
            select(bin(BinOp::Gt, a.clone(), i64c(0)), i64c(1), i64c(2)),
        ),
        out(9, cast(mul(cast(a.clone(), F64), f64c(2.5)), I64)),
        out(10, un(UnOp::Not, a.clone())),
        out(11, call(MathFn::Abs, vec![c.clone()])),
        out(12, call(MathFn::Min, vec![a.clone(), c.clone()])),
        // let mut s = 0; for k in (1..10).step_by(3) { s = s + k; }
        let_(6, i64c(0)),
        Stmt::For {
            var: 7,
            start: i64c(1),
            end: i64c(10),
            step: Some(i64c(3)),
            body: vec![Stmt::AssignLocal {
                local: 6,
                value: add(l(6, I64), l(7, I64)),
                span: sp(),
            }],
            span: sp(),
        },
        out(13, l(6, I64)),
        // let x = 1; let x = x + 10;
        let_(8, i64c(1)),
        let_(9, add(l(8, I64), i64c(10))),
        out(14, l(9, I64)),
        Stmt::If {
            cond: bin(BinOp::Lt, c.clone(), i64c(0)),
            then: vec![out(15, i64c(100))],
            else_: vec![out(15, i64c(200))],
            span: sp(),
        },
        // A guarded load whose index is data: never evaluated out of bounds.
        out(
            16,
            select(
                bin(BinOp::Gt, a.clone(), i64c(100)),
                b.load("inp", vec![a.clone()]),
                i64c(5),
            ),
        ),
        fout(0, call(MathFn::Min, vec![nan.clone(), f64c(1.5)])),
        fout(1, call(MathFn::Sqrt, vec![fin(1)])),
        fout(2, call(MathFn::Max, vec![f64c(-0.5), nan.clone()])),
        fout(3, bin(BinOp::Div, f64c(1.0), fin(0))),
        fout(4, nan),
        fout(5, call(MathFn::Powi, vec![fin(1), i32c(3)])),
        fout(6, call(MathFn::Floor, vec![mul(fin(1), f64c(-1.25))])),
        b.store(
            "f32out",
            vec![i64c(0)],
            mul(cast(fin(1), ScalarType::F32), lit(Value::F32(0.1))),
        ),
    ]);
    let mut locals: Vec<Local> = ["a", "b", "c", "m", "neg1", "sh", "s", "k", "x", "x"]
        .iter()
        .map(|n| local(n, I64))
        .collect();
    locals[8].mutable = false;
    b.state("s", vec![tasklet("sem", body, locals)]);
    b.sdfg
}
