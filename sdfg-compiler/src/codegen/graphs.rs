//! What the code generators add for the device loops of the graph plan
//! (`schedule::graphs`). For each such loop state `s` the SDFG gains, after
//! the schedule (so the IR that users see, export and introspect stays as
//! written):
//! - a GPU scalar `u32` *flag* the loop's condition kernel writes;
//! - per symbol the loop edge assigns, a GPU scalar (its value while the
//!   loop runs on the GPU) and a host scalar (to read it back after);
//! - an unreachable state `__sdfg_graph_<s>` with, in order: an *init* map
//!   (the symbols' values at the loop's entry into their GPU scalars; only
//!   when there are symbols), the *condition* map (the loop's condition,
//!   with the edges before it negated, and the loop edge's assignments,
//!   evaluated on the GPU from the copies' GPU sources), the copies to the
//!   host that the loop defers, and the read-back copies of the symbols.
//!
//! These are ordinary maps and copies, so the PTX kernels, their CPU twins,
//! the launches and the copies come from the usual generators. The glue
//! (`glue/segments.rs`) launches the two maps only while recording the
//! loop's graph, and issues the copies after the graph ran.

use crate::ir::{
    Access, BinOp, Container, ContainerId, Copy, DataEdge, DataNode, Dataflow, Expr, ExprKind,
    Local, Map, MapParam, MapSchedule, Memlet, Name, ScalarType, Sdfg, State, StateId, Statement,
    StatementKind, Stmt, StmtId, Storage, SymbolId, TaskletBody, UnOp, Value, VarRef,
};
use crate::schedule::graphs::{DeviceLoop, StatePlan};
use crate::schedule::Schedule;
use proc_macro2::Span;
use std::collections::{BTreeSet, HashMap};
use std::ops::Range;

/// The SDFG and schedule the generators use when the plan has device loops.
pub struct Augmented {
    pub sdfg: Sdfg,
    pub schedule: Schedule,
    pub loops: Vec<LoopParts>,
}

/// What was added for one device loop.
#[derive(Clone, Debug)]
pub struct LoopParts {
    /// The loop state.
    pub state: StateId,
    /// The added state holding the maps and copies below.
    pub parts: StateId,
    /// The GPU flag (`u32`) the condition map writes.
    pub flag: ContainerId,
    /// Per loop symbol: its GPU scalar and its host scalar.
    pub slots: Vec<(SymbolId, ContainerId, ContainerId)>,
    /// The init map (None: the loop edge assigns no symbol).
    pub init: Option<StmtId>,
    /// The condition map.
    pub condition: StmtId,
    /// The deferred copies to the host, then the read-back copies.
    pub copies: Range<StmtId>,
}

/// The SDFG with the parts of its device loops, and its schedule; None when
/// the plan has no device loop (the generators use the SDFG as it is).
pub fn augment(sdfg: &Sdfg, schedule: &Schedule) -> Option<Augmented> {
    let loops: Vec<(StateId, &DeviceLoop)> = schedule
        .graphs
        .states
        .iter()
        .enumerate()
        .filter_map(|(s, p)| match p {
            StatePlan::DeviceLoop(l) => Some((s, l)),
            _ => None,
        })
        .collect();
    if loops.is_empty() {
        return None;
    }
    let mut out = sdfg.clone();
    let mut parts = Vec::new();
    for (s, l) in loops {
        parts.push(add_loop_parts(&mut out, s, l));
    }
    let mut aug_schedule = crate::schedule::schedule(&out);
    // The plan stays the one of the SDFG as written; the added states are
    // never entered.
    let mut plan = schedule.graphs.clone();
    plan.states.resize(
        out.states.len(),
        StatePlan::Streams {
            reason: "generated for a conditional node".into(),
        },
    );
    aug_schedule.graphs = plan;
    Some(Augmented {
        sdfg: out,
        schedule: aug_schedule,
        loops: parts,
    })
}

fn scalar(name: String, elem: ScalarType, storage: Storage) -> Container {
    Container {
        name: Name::new(name, Span::call_site()),
        elem,
        shape: Vec::new(),
        storage,
        transient: true,
    }
}

fn memlet(container: ContainerId, access: Access, dynamic: bool, connector: String) -> Memlet {
    Memlet {
        container,
        subset: Vec::new(),
        access,
        dynamic,
        connector,
        span: Span::call_site(),
    }
}

fn one_iteration_map(name: String, body: TaskletBody) -> Map {
    let span = Span::call_site();
    Map {
        name: Name::new(name, span),
        params: vec![MapParam {
            name: Name::new("__graph_i", span),
            ty: ScalarType::I64,
            start: Expr::lit(Value::I64(0), span),
            end: Expr::lit(Value::I64(1), span),
            inclusive: false,
            step: None,
        }],
        schedule: MapSchedule::Gpu,
        body,
        independent: Vec::new(),
        block: None,
        gpu_tasklet: false,
        library: None,
    }
}

fn add_loop_parts(sdfg: &mut Sdfg, s: StateId, l: &DeviceLoop) -> LoopParts {
    let state_name = sdfg.states[s].name.text.clone();
    let span = Span::call_site();
    let add = |sdfg: &mut Sdfg, c: Container| {
        sdfg.containers.push(c);
        sdfg.containers.len() - 1
    };
    let flag = add(
        sdfg,
        scalar(
            format!("__sdfg_graph_flag_{state_name}"),
            ScalarType::U32,
            Storage::Gpu,
        ),
    );
    let mut slots = Vec::new();
    for &sym in &l.symbols {
        let (name, ty) = (sdfg.symbols[sym].name.text.clone(), sdfg.symbols[sym].ty);
        let gpu = add(
            sdfg,
            scalar(
                format!("__sdfg_graph_{state_name}_{name}"),
                ty,
                Storage::Gpu,
            ),
        );
        let host = add(
            sdfg,
            scalar(
                format!("__sdfg_graph_{state_name}_{name}_host"),
                ty,
                Storage::Host,
            ),
        );
        slots.push((sym, gpu, host));
    }
    let on_gpu: HashMap<ContainerId, ContainerId> =
        l.copies.iter().map(|&(_, g, h)| (h, g)).collect();
    let slot_of: HashMap<SymbolId, ContainerId> = slots.iter().map(|&(s, g, _)| (s, g)).collect();

    let mut stmts = Vec::new();
    // Init: the symbols' values at the loop's entry, into their GPU scalars.
    let init = if slots.is_empty() {
        None
    } else {
        let body = TaskletBody {
            stmts: slots
                .iter()
                .map(|&(sym, gpu, _)| Stmt::Store {
                    container: gpu,
                    index: Vec::new(),
                    value: Expr::new(
                        ExprKind::Var(VarRef::Symbol(sym)),
                        sdfg.symbols[sym].ty,
                        span,
                    ),
                    wcr: None,
                    span,
                })
                .collect(),
            locals: Vec::new(),
        };
        let memlets = slots
            .iter()
            .map(|&(_, gpu, _)| {
                memlet(
                    gpu,
                    Access::Write,
                    false,
                    format!("__out_{}", sdfg.containers[gpu].name.text),
                )
            })
            .collect();
        stmts.push(Statement {
            kind: StatementKind::Map(one_iteration_map("__graph_init".into(), body)),
            memlets,
            span,
        });
        Some(stmts.len() - 1)
    };

    // Condition: !E1 && ... && C, then the loop edge's assignments.
    let rewrite = |e: &Expr| rewrite(e, &on_gpu, &slot_of);
    let mut cond: Option<Expr> = None;
    let mut and = |e: Expr| {
        cond = Some(match cond.take() {
            None => e,
            Some(c) => binary(BinOp::And, c, e),
        })
    };
    for &e in &l.earlier {
        if let Some(c) = &sdfg.edges[e].condition {
            and(Expr::new(
                ExprKind::Unary {
                    op: UnOp::Not,
                    arg: Box::new(rewrite(c)),
                },
                ScalarType::Bool,
                span,
            ));
        }
    }
    if let Some(c) = &sdfg.edges[l.edge].condition {
        and(rewrite(c));
    }
    let cond = cond.unwrap_or_else(|| Expr::lit(Value::Bool(true), span));
    let taken = Expr::new(ExprKind::Var(VarRef::Local(0)), ScalarType::Bool, span);
    let mut locals = vec![Local {
        name: "__graph_taken".into(),
        ty: ScalarType::Bool,
        mutable: false,
        span,
    }];
    let mut then = Vec::new();
    let mut stores = Vec::new();
    for (k, (sym, value)) in sdfg.edges[l.edge].assignments.iter().enumerate() {
        let ty = sdfg.symbols[*sym].ty;
        locals.push(Local {
            name: format!("__graph_value_{k}"),
            ty,
            mutable: false,
            span,
        });
        let local = locals.len() - 1;
        then.push(Stmt::Let {
            local,
            init: rewrite(value),
            span,
        });
        stores.push(Stmt::Store {
            container: slot_of[sym],
            index: Vec::new(),
            value: Expr::new(ExprKind::Var(VarRef::Local(local)), ty, span),
            wcr: None,
            span,
        });
    }
    then.extend(stores);
    let mut read = BTreeSet::new();
    let mut visit = |e: &Expr| {
        e.walk(&mut |x| {
            if let ExprKind::Load { container, .. } = x.kind {
                read.insert(container);
            }
        })
    };
    visit(&cond);
    then.iter().for_each(|st| st.walk_exprs(&mut visit));
    let body = TaskletBody {
        stmts: vec![
            Stmt::Let {
                local: 0,
                init: cond,
                span,
            },
            Stmt::Store {
                container: flag,
                index: Vec::new(),
                value: Expr::new(
                    ExprKind::Select {
                        cond: Box::new(taken.clone()),
                        then: Box::new(Expr::lit(Value::U32(1), span)),
                        else_: Box::new(Expr::lit(Value::U32(0), span)),
                    },
                    ScalarType::U32,
                    span,
                ),
                wcr: None,
                span,
            },
            Stmt::If {
                cond: taken,
                then,
                else_: Vec::new(),
                span,
            },
        ],
        locals,
    };
    let mut memlets: Vec<Memlet> = read
        .iter()
        .map(|&c| {
            memlet(
                c,
                Access::Read,
                false,
                format!("__in_{}", sdfg.containers[c].name.text),
            )
        })
        .collect();
    memlets.push(memlet(flag, Access::Write, false, "__out_flag".into()));
    for (sym, _) in &sdfg.edges[l.edge].assignments {
        let gpu = slot_of[sym];
        if !memlets
            .iter()
            .any(|m| m.container == gpu && m.access.is_write())
        {
            memlets.push(memlet(
                gpu,
                Access::Write,
                true,
                format!("__out_{}", sdfg.containers[gpu].name.text),
            ));
        }
    }
    stmts.push(Statement {
        kind: StatementKind::Map(one_iteration_map("__graph_condition".into(), body)),
        memlets,
        span,
    });
    let condition = stmts.len() - 1;

    // The deferred copies, then the read-backs.
    let first_copy = stmts.len();
    for &(k, _, _) in &l.copies {
        stmts.push(sdfg.states[s].stmts[k].clone());
    }
    for &(_, gpu, host) in &slots {
        stmts.push(Statement {
            kind: StatementKind::Copy(Copy {
                src: gpu,
                dst: host,
            }),
            memlets: vec![
                memlet(gpu, Access::Read, false, "__in_0".into()),
                memlet(host, Access::Write, false, "__out_0".into()),
            ],
            span,
        });
    }
    let copies = first_copy..stmts.len();
    let graph = ordering_graph(&stmts);
    sdfg.states.push(State {
        name: Name::new(format!("__sdfg_graph_{state_name}"), span),
        stmts,
        graph,
        persistent: None,
        extent_checks: Vec::new(),
    });
    LoopParts {
        state: s,
        parts: sdfg.states.len() - 1,
        flag,
        slots,
        init,
        condition,
        copies,
    }
}

/// The dataflow graph of the added state, as the schedule reads it: each
/// statement after the earlier ones it conflicts with (read after write,
/// write after read or write), through direct ordering edges. (The state
/// is never exported or validated; the schedule places its streams.)
fn ordering_graph(stmts: &[Statement]) -> Dataflow {
    let mut graph = Dataflow::default();
    for (k, _) in stmts.iter().enumerate() {
        graph.nodes.push(DataNode::Stmt(k));
    }
    for (k, st) in stmts.iter().enumerate() {
        for (j, earlier) in stmts[..k].iter().enumerate() {
            let conflict = st.memlets.iter().any(|m| {
                earlier.memlets.iter().any(|e| {
                    e.container == m.container && (e.access.is_write() || m.access.is_write())
                })
            });
            if conflict {
                graph.edges.push(DataEdge {
                    src: j,
                    dst: k,
                    memlet: None,
                });
            }
        }
    }
    graph
}

fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
    let span = lhs.span;
    Expr::new(
        ExprKind::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
        ScalarType::Bool,
        span,
    )
}

/// `e` evaluated on the GPU: a host destination of a copy becomes its GPU
/// source, a loop symbol becomes its GPU scalar.
fn rewrite(
    e: &Expr,
    on_gpu: &HashMap<ContainerId, ContainerId>,
    slots: &HashMap<SymbolId, ContainerId>,
) -> Expr {
    let rw = |x: &Expr| Box::new(rewrite(x, on_gpu, slots));
    let kind = match &e.kind {
        ExprKind::Var(VarRef::Symbol(s)) if slots.contains_key(s) => ExprKind::Load {
            container: slots[s],
            index: Vec::new(),
        },
        ExprKind::Lit(_) | ExprKind::Var(_) => e.kind.clone(),
        ExprKind::Load { container, index } => ExprKind::Load {
            container: *on_gpu.get(container).unwrap_or(container),
            index: index.iter().map(|i| rewrite(i, on_gpu, slots)).collect(),
        },
        ExprKind::Unary { op, arg } => ExprKind::Unary {
            op: *op,
            arg: rw(arg),
        },
        ExprKind::Binary { op, lhs, rhs } => ExprKind::Binary {
            op: *op,
            lhs: rw(lhs),
            rhs: rw(rhs),
        },
        ExprKind::Cast { arg } => ExprKind::Cast { arg: rw(arg) },
        ExprKind::Select { cond, then, else_ } => ExprKind::Select {
            cond: rw(cond),
            then: rw(then),
            else_: rw(else_),
        },
        ExprKind::Call { func, args } => ExprKind::Call {
            func: *func,
            args: args.iter().map(|a| rewrite(a, on_gpu, slots)).collect(),
        },
    };
    Expr::new(kind, e.ty, e.span)
}
