//! Inlining: every call of a nested SDFG replaced by the callee's states.
//!
//! A state `s` whose statements are `B; Inner(...); A` becomes `s` with
//! `B`, then the callee's states (named `Inner_<state>`), then a new state
//! `s_after_Inner` with `A`, which the edges that left `s` now leave. The
//! callee ends where it would have ended on its own: after any of its
//! states, when none of that state's edges is taken, an unconditional edge
//! (tried last) goes on to `s_after_Inner`.
//!
//! The callee's symbols are their values wherever the callee never assigns
//! them, and otherwise fresh symbols of the caller (set on the edge into
//! the callee when they are arguments); its transients are fresh
//! transients of the caller; its argument containers are the data they are
//! bound to, each index shifted by the binding's offsets. Names made here
//! are `<call>_<name>`, where `<call>` is the callee's name (`Inner_2`,
//! ... for later calls of one callee), made unique.
//!
//! Splitting a state only orders what it already ordered (textual order of
//! conflicting statements) and ends the state earlier, so host data settles
//! at the split (DESIGN section 9); GPU work stays in flight across it.

use super::rename::{ContainerValue, Rename, SymbolValue};
use crate::ir::*;
use crate::lower::{dataflow, memlets};
use std::collections::{HashMap, HashSet};

/// `structured` with every call inlined; `nested_form` keeps `structured`
/// (None when it calls nothing).
pub(crate) fn inline(structured: Sdfg) -> Sdfg {
    let calls = |s: &State| {
        s.stmts
            .iter()
            .any(|st| matches!(st.kind, StatementKind::Nested(_)))
    };
    if !structured.states.iter().any(calls) {
        return structured;
    }
    let mut flat = structured.clone();
    let mut names = Names::new(&flat);
    let outer_edges = flat.edges.len();
    for sid in 0..structured.states.len() {
        if !calls(&structured.states[sid]) {
            continue;
        }
        let stmts = std::mem::take(&mut flat.states[sid].stmts);
        let state_name = flat.states[sid].name.text.clone();
        let mut current = sid;
        let mut segment: Vec<Statement> = Vec::new();
        for st in stmts {
            let StatementKind::Nested(call) = st.kind else {
                segment.push(st);
                continue;
            };
            set_statements(&mut flat.states[current], std::mem::take(&mut segment));
            // Checked where the call is made, before the state's work.
            flat.states[current]
                .extent_checks
                .extend(call.extent_checks.iter().map(|c| ExtentCheck {
                    state: state_name.clone(),
                    ..c.clone()
                }));
            let label = names.call_label(&call.callee.name.text);
            let after = format!("{state_name}_after_{label}");
            let (entry, after, init) = Inliner {
                flat: &mut flat,
                names: &mut names,
                call: &call,
                label: &label,
                repeats: on_cycle(&structured, sid),
            }
            .run(&after);
            flat.edges.push(InterstateEdge {
                from: current,
                to: entry,
                condition: None,
                assignments: init,
                span: call.span,
            });
            current = after;
        }
        set_statements(&mut flat.states[current], segment);
        for e in &mut flat.edges[..outer_edges] {
            if e.from == sid {
                e.from = current;
            }
        }
    }
    flat.nested_form = Some(Box::new(structured));
    flat
}

/// Whether a run can enter state `s` more than once (it is on a cycle).
fn on_cycle(sdfg: &Sdfg, s: StateId) -> bool {
    let mut seen = vec![false; sdfg.states.len()];
    let mut todo: Vec<StateId> = sdfg.out_edges(s).map(|(_, e)| e.to).collect();
    while let Some(at) = todo.pop() {
        if at == s {
            return true;
        }
        if !std::mem::replace(&mut seen[at], true) {
            todo.extend(sdfg.out_edges(at).map(|(_, e)| e.to));
        }
    }
    false
}

fn set_statements(state: &mut State, stmts: Vec<Statement>) {
    state.graph = dataflow::build(&stmts);
    state.stmts = stmts;
}

/// The names taken in the caller, so that made ones are unique.
struct Names {
    /// Symbols and containers (one namespace).
    data: HashSet<String>,
    states: HashSet<String>,
    calls: HashMap<String, usize>,
}

impl Names {
    fn new(sdfg: &Sdfg) -> Names {
        Names {
            data: sdfg
                .symbols
                .iter()
                .map(|s| s.name.text.clone())
                .chain(sdfg.containers.iter().map(|c| c.name.text.clone()))
                .collect(),
            states: sdfg.states.iter().map(|s| s.name.text.clone()).collect(),
            calls: HashMap::new(),
        }
    }

    fn call_label(&mut self, callee: &str) -> String {
        let n = self.calls.entry(callee.to_string()).or_insert(0);
        *n += 1;
        if *n == 1 {
            callee.to_string()
        } else {
            format!("{callee}_{n}")
        }
    }

    fn unique(taken: &mut HashSet<String>, base: &str) -> String {
        let mut name = base.to_string();
        let mut k = 2;
        while taken.contains(&name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        taken.insert(name.clone());
        name
    }

    fn data(&mut self, base: &str) -> String {
        Names::unique(&mut self.data, base)
    }

    fn state(&mut self, base: &str) -> String {
        Names::unique(&mut self.states, base)
    }
}

/// One call's callee, copied into the caller.
struct Inliner<'a> {
    flat: &'a mut Sdfg,
    names: &'a mut Names,
    call: &'a NestedSdfg,
    label: &'a str,
    /// The call's state is on a cycle of the caller: the call may run more
    /// than once in one run of the caller.
    repeats: bool,
}

impl Inliner<'_> {
    /// Adds the callee's symbols, transients, states and edges, and the
    /// (empty) state named `after` that follows the call; returns the state
    /// the call enters, that state, and the assignments of the edge into
    /// the call.
    fn run(mut self, after: &str) -> (StateId, StateId, Vec<(SymbolId, Expr)>) {
        let callee = &*self.call.callee;
        let label = self.label;
        // Symbols.
        let assigned: HashSet<SymbolId> = callee
            .edges
            .iter()
            .flat_map(|e| e.assignments.iter().map(|(s, _)| *s))
            .collect();
        let mut init = Vec::new();
        let symbols: Vec<SymbolValue> = callee
            .symbols
            .iter()
            .enumerate()
            .map(|(s, sym)| {
                let value = self.call.symbols.iter().find(|(id, _)| *id == s);
                match value {
                    Some((_, v)) if !assigned.contains(&s) => SymbolValue::Value(v.clone()),
                    _ => {
                        let id = self.flat.symbols.len();
                        let name = self.names.data(&format!("{label}_{}", sym.name.text));
                        self.flat.symbols.push(Symbol {
                            name: Name::new(name, sym.name.span),
                            ty: sym.ty,
                            declared: false,
                        });
                        if let Some((_, v)) = value {
                            init.push((id, v.clone()));
                        }
                        SymbolValue::Symbol(id)
                    }
                }
            })
            .collect();
        // Containers: transients first get ids, then their shapes (which
        // read only symbols) are renamed.
        let mut containers: Vec<ContainerValue> = Vec::new();
        for (c, container) in callee.containers.iter().enumerate() {
            match self.call.bindings.iter().find(|b| b.inner == c) {
                Some(b) => containers.push(ContainerValue::Bound {
                    outer: b.outer,
                    subset: b.subset.clone(),
                }),
                None => {
                    let id = self.flat.containers.len();
                    let name = self.names.data(&format!("{label}_{}", container.name.text));
                    self.flat.containers.push(Container {
                        name: Name::new(name, container.name.span),
                        elem: container.elem,
                        shape: Vec::new(),
                        storage: container.storage,
                        transient: true,
                    });
                    containers.push(ContainerValue::Container(id));
                }
            }
        }
        let rename = Rename {
            symbols: &symbols,
            containers: &containers,
        };
        for (c, container) in callee.containers.iter().enumerate() {
            if let ContainerValue::Container(id) = containers[c] {
                self.flat.containers[id].shape =
                    container.shape.iter().map(|d| rename.expr(d)).collect();
            }
        }
        // States.
        let first = self.flat.states.len();
        for state in &callee.states {
            let name = self.names.state(&format!("{label}_{}", state.name.text));
            let stmts: Vec<Statement> = state
                .stmts
                .iter()
                .filter_map(|st| self.statement(&rename, st))
                .collect();
            // The callee's own calls' checks, over the caller's symbols.
            let extent_checks = state
                .extent_checks
                .iter()
                .map(|c| ExtentCheck {
                    declared: rename.expr(&c.declared),
                    bound: rename.expr(&c.bound),
                    state: name.clone(),
                    ..c.clone()
                })
                .collect();
            self.flat.states.push(State {
                name: Name::new(name, state.name.span),
                graph: dataflow::build(&stmts),
                stmts,
                persistent: state.persistent,
                extent_checks,
            });
        }
        let after_name = self.names.state(after);
        let after = self.flat.states.len();
        self.flat.states.push(State {
            name: Name::new(after_name, self.call.span),
            stmts: Vec::new(),
            graph: Dataflow::default(),
            persistent: None,
            extent_checks: Vec::new(),
        });
        // The callee's edges, then the ways out of it.
        for e in &callee.edges {
            self.flat.edges.push(InterstateEdge {
                from: first + e.from,
                to: first + e.to,
                condition: e.condition.as_ref().map(|c| rename.expr(c)),
                // Every assigned symbol got a symbol of its own above.
                assignments: e
                    .assignments
                    .iter()
                    .filter_map(|(s, v)| match symbols[*s] {
                        SymbolValue::Symbol(id) => Some((id, rename.expr(v))),
                        SymbolValue::Value(_) => None,
                    })
                    .collect(),
                span: e.span,
            });
        }
        for s in 0..callee.states.len() {
            let always_leaves = callee.out_edges(s).any(|(_, e)| e.condition.is_none());
            if !always_leaves {
                self.flat.edges.push(InterstateEdge {
                    from: first + s,
                    to: after,
                    condition: None,
                    assignments: Vec::new(),
                    span: self.call.span,
                });
            }
        }
        let entry = self.zero_state(&containers, first + callee.start);
        (entry, after, init)
    }

    /// A transient holds zeros at the start of every call of its program,
    /// and so of every call of a nested SDFG: the caller clears the inlined
    /// transients before its first state, which is enough for a call that
    /// runs once. A call that may run again gets a state in front of its
    /// start that clears the callee's transients its own calls would clear
    /// (`transients::needs_zero_fill` of the callee), with one map each;
    /// returns the state the call enters.
    fn zero_state(&mut self, containers: &[ContainerValue], start: StateId) -> StateId {
        let callee = &*self.call.callee;
        // Block data lives in its kernel: the block map decides its values.
        let global = |c: usize| {
            !matches!(
                callee.containers[c].storage,
                Storage::Shared | Storage::Register
            )
        };
        let cleared: Vec<ContainerId> = (0..callee.containers.len())
            .filter(|&c| {
                self.repeats && global(c) && crate::ir::transients::needs_zero_fill(callee, c)
            })
            .filter_map(|c| match containers[c] {
                ContainerValue::Container(id) => Some(id),
                ContainerValue::Bound { .. } => None,
            })
            .collect();
        if cleared.is_empty() {
            return start;
        }
        // By name: the order of the callee's declarations is not kept by
        // every form of it (a DaCe file read back lists them otherwise).
        let mut cleared = cleared;
        cleared.sort_by(|a, b| {
            let name = |c: &ContainerId| &self.flat.containers[*c].name.text;
            name(a).cmp(name(b))
        });
        let span = self.call.span;
        let stmts: Vec<Statement> = cleared
            .into_iter()
            .map(|c| {
                let map = zero_map(&self.flat.containers[c], c, span);
                Statement {
                    memlets: memlets::body_memlets(&self.flat.containers, &map.body),
                    kind: StatementKind::Map(map),
                    span,
                }
            })
            .collect();
        let name = self.names.state(&format!("{}_zero", self.label));
        let zero = self.flat.states.len();
        self.flat.states.push(State {
            name: Name::new(name, span),
            graph: dataflow::build(&stmts),
            stmts,
            persistent: None,
            extent_checks: Vec::new(),
        });
        self.flat.edges.push(InterstateEdge {
            from: zero,
            to: start,
            condition: None,
            assignments: Vec::new(),
            span,
        });
        zero
    }

    /// One statement of the callee in the caller's names (a callee shares
    /// its caller's `#[sync(...)]`, so its waits stay).
    fn statement(&self, rename: &Rename, st: &Statement) -> Option<Statement> {
        let containers = &self.flat.containers;
        let kind = match &st.kind {
            StatementKind::Map(m) => StatementKind::Map(Map {
                name: m.name.clone(),
                params: m
                    .params
                    .iter()
                    .map(|p| MapParam {
                        name: p.name.clone(),
                        ty: p.ty,
                        start: rename.expr(&p.start),
                        end: rename.expr(&p.end),
                        inclusive: p.inclusive,
                        step: p.step.as_ref().map(|x| rename.expr(x)),
                    })
                    .collect(),
                schedule: m.schedule,
                library: m.library.clone(),
                body: TaskletBody {
                    stmts: rename.stmts(&m.body.stmts),
                    locals: m.body.locals.clone(),
                },
                independent: m
                    .independent
                    .iter()
                    .map(|(c, span)| (rename.container(*c), *span))
                    .collect(),
                block: m.block.as_ref().map(|b| Block {
                    size: match &b.size {
                        BlockSize::Auto => BlockSize::Auto,
                        BlockSize::Given(dims) => {
                            BlockSize::Given(dims.iter().map(|d| rename.expr(d)).collect())
                        }
                    },
                    // Block data is the callee's transient: a container of
                    // the caller now.
                    data: b.data.iter().map(|c| rename.container(*c)).collect(),
                    span: b.span,
                }),
                gpu_tasklet: m.gpu_tasklet,
            }),
            StatementKind::Tasklet(t) => StatementKind::Tasklet(Tasklet {
                name: t.name.clone(),
                body: TaskletBody {
                    stmts: rename.stmts(&t.body.stmts),
                    locals: t.body.locals.clone(),
                },
            }),
            StatementKind::Copy(c) => StatementKind::Copy(Copy {
                src: rename.container(c.src),
                dst: rename.container(c.dst),
            }),
            StatementKind::Wait(w) => StatementKind::Wait(Wait {
                container: rename.container(w.container),
            }),
            // The callee was inlined when it was lowered.
            StatementKind::Nested(_) => return None,
        };
        let memlets = match &kind {
            StatementKind::Map(m) => memlets::body_memlets(containers, &m.body),
            StatementKind::Tasklet(t) => memlets::body_memlets(containers, &t.body),
            _ => st
                .memlets
                .iter()
                .map(|m| {
                    let (container, subset) = rename.subset(m.container, &m.subset);
                    let name = &containers[container].name.text;
                    let connector = match m.access {
                        Access::Read => format!("__in_{name}_0"),
                        _ => format!("__out_{name}_0"),
                    };
                    Memlet {
                        container,
                        subset,
                        access: m.access,
                        dynamic: m.dynamic,
                        connector,
                        span: m.span,
                    }
                })
                .collect(),
        };
        Some(Statement {
            kind,
            memlets,
            span: st.span,
        })
    }
}

/// `map zero_T[i0 in 0..D0, ...] { T[i0, ...] = 0; }` (`T` as the caller names it) on the device that
/// holds `T` (a scalar: one iteration storing `T`).
fn zero_map(container: &Container, id: ContainerId, span: proc_macro2::Span) -> Map {
    let params: Vec<MapParam> = if container.is_scalar() {
        vec![zero_param(
            0,
            Expr::lit(Value::from_bits(ScalarType::I64, 1), span),
        )]
    } else {
        (0..container.shape.len())
            .map(|d| zero_param(d, container.shape[d].clone()))
            .collect()
    };
    let index = if container.is_scalar() {
        Vec::new()
    } else {
        params
            .iter()
            .enumerate()
            .map(|(k, p)| Expr::new(ExprKind::Var(VarRef::Param(k)), p.ty, span))
            .collect()
    };
    Map {
        name: Name::new(format!("zero_{}", container.name.text), span),
        params,
        library: None,
        schedule: match container.storage {
            Storage::Gpu => MapSchedule::Gpu,
            // (Block data is not cleared by a map: `zero_state` skips it.)
            Storage::Host | Storage::Pinned | Storage::Shared | Storage::Register => {
                MapSchedule::Cpu
            }
        },
        body: TaskletBody {
            stmts: vec![Stmt::Store {
                container: id,
                index,
                value: Expr::lit(Value::from_bits(container.elem, 0), span),
                wcr: None,
                span,
            }],
            locals: Vec::new(),
        },
        independent: Vec::new(),
        block: None,
        gpu_tasklet: false,
    }
}

/// `i<d> in 0..end`, in the type of `end`.
fn zero_param(d: usize, end: Expr) -> MapParam {
    let span = end.span;
    MapParam {
        name: Name::new(format!("i{d}"), span),
        ty: end.ty,
        start: Expr::lit(Value::from_bits(end.ty, 0), span),
        end,
        inclusive: false,
        step: None,
    }
}
