//! A nested SDFG inside a map scope, inlined into the map's body. DaCe's
//! Python frontend makes one for a map body of several statements: a chain
//! of states, each a few tasklets on scalars, with interstate edges that
//! carry intermediate values in symbols (`__tmp3 = __tmp2 % 7`). Such a
//! chain reads as straight-line code: each state's tasklets in dataflow
//! order, each edge's assignments as `let`s, the nested SDFG's scalar
//! arguments as the elements the outer memlets name (`A[i]`), its scalar
//! transients as locals. Branches and loops between the states, arguments
//! of several elements given only in part, reductions on the outer
//! memlets and renamed symbols are not read (yet): each is an error that
//! says so.

use super::super::code::{dtype, same_integer_value, CodeExpr};
use super::super::model::Model;
use super::super::names::identifier;
use super::super::python;
use super::super::sdfg::{ContainerInfo, SdfgCx};
use super::super::typing::{strip_outer_parens, Emitter, Meaning, Ty};
use super::{Param, StateConv};
use crate::ir::{ScalarType, Storage};
use std::collections::{HashMap, HashSet};

impl StateConv<'_> {
    /// The statements of nested SDFG node `n` (inside a map scope whose
    /// parameters are `params`), appended to the body being built.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn inline_nested(
        &mut self,
        n: usize,
        model: &Model,
        symbol_mapping: &[(String, String)],
        params: &[Param],
        indent: usize,
        temps_declared: &mut HashSet<String>,
        predeclare: &mut Vec<String>,
        lines: &mut Vec<String>,
    ) {
        let label = self.label(n).to_string();
        let help = "sdfg-rs inlines a nested SDFG inside a map when its states form a chain without conditions, its arguments are elements or whole containers, and its symbols keep their names; write the map body as one tasklet (`with dace.tasklet:`) otherwise";
        let Some(chain) = chain_of(model) else {
            self.error(
                format!("the nested SDFG `{label}` inside a map has branches or loops between its states"),
                help,
            );
            return;
        };
        if let Some((k, v)) = symbol_mapping.iter().find(|(k, v)| k != v.trim()) {
            self.error(
                format!("the nested SDFG `{label}` inside a map renames symbol `{k}` to `{v}`"),
                help,
            );
            return;
        }
        let Some(cx) = self.inner_cx(n, &label, model, params, help) else {
            return;
        };
        let mut cx = cx;
        let pad = " ".repeat(indent);
        for (k, &s) in chain.iter().enumerate() {
            let state = &model.states[s];
            let mut conv = StateConv::new(&cx, state);
            let members: Vec<usize> = (0..state.nodes.len()).collect();
            let what = format!("state `{}` of the nested SDFG `{label}`", state.label);
            conv.members_body(
                &members,
                None,
                &what,
                params,
                indent,
                temps_declared,
                predeclare,
                lines,
            );
            let errors = std::mem::take(&mut conv.errors);
            drop(conv);
            let failed = !errors.is_empty();
            self.errors.extend(errors);
            if failed {
                return;
            }
            let Some(&next) = chain.get(k + 1) else { break };
            // `chain_of` found this edge.
            let Some(edge) = model.edges.iter().find(|e| e.src == s && e.dst == next) else {
                return;
            };
            // The edge's values, as `let`s (DaCe forbids an edge that reads
            // what it also assigns).
            let mut assigned = Vec::new();
            for (name, value) in &edge.assignments {
                let Ok(expr) = python::parse_expr(value) else {
                    self.error(
                        format!("the assignment `{name} = {value}` in the nested SDFG `{label}` cannot be read"),
                        help,
                    );
                    return;
                };
                let lookup = |x: &str| inner_value(&cx, params, x);
                let mut em = Emitter {
                    lookup: &lookup,
                    adapt_floats: true,
                    errors: Vec::new(),
                };
                let ty = match em.infer(&expr) {
                    Ty::Known(t) => t,
                    Ty::FlexInt => ScalarType::I64,
                    Ty::FlexFloat => ScalarType::F64,
                };
                let text = strip_outer_parens(em.emit(&expr, Some(ty)));
                for err in em.errors {
                    self.error(
                        format!("the assignment to `{name}` in the nested SDFG `{label}` {err}"),
                        help,
                    );
                }
                let local = fresh(&cx, &label, name);
                lines.push(format!("{pad}let {local}: {ty} = {text};"));
                assigned.push((name.clone(), local, ty));
            }
            for (name, local, ty) in assigned {
                cx.taken.insert(local.clone());
                cx.container_names.insert(local.clone());
                cx.symbols.insert(name, (local, ty));
            }
        }
    }

    /// The nested SDFG's names: its scalar arguments as the elements the
    /// outer memlets name, whole-container arguments as the containers,
    /// its scalar transients as locals, the caller's symbols.
    fn inner_cx(
        &mut self,
        n: usize,
        label: &str,
        model: &Model,
        params: &[Param],
        help: &str,
    ) -> Option<SdfgCx> {
        let mut cx = SdfgCx {
            containers: HashMap::new(),
            refused: model.refused.iter().cloned().collect(),
            symbols: self.cx.symbols.clone(),
            data_symbols: HashSet::new(),
            taken: self.cx.taken.clone(),
            container_names: self.cx.container_names.clone(),
            nested: Default::default(),
        };
        let one = CodeExpr::int(1);
        for d in &model.arrays {
            let Some(elem) = dtype(&d.dtype) else {
                self.error(
                    format!(
                        "`{}` of the nested SDFG `{label}` has element type `{}`",
                        d.name, d.dtype
                    ),
                    help,
                );
                return None;
            };
            let single = d.scalar
                || d.boxed_scalar
                || d.shape
                    .iter()
                    .all(|s| python::parse_expr(s).is_ok_and(|e| same_integer_value(&e, &one)));
            if d.transient {
                if !single {
                    self.error(
                        format!(
                            "the nested SDFG `{label}` inside a map has the transient array `{}`",
                            d.name
                        ),
                        help,
                    );
                    return None;
                }
                let dsl = fresh(&cx, label, &d.name);
                cx.taken.insert(dsl.clone());
                cx.container_names.insert(dsl.clone());
                cx.containers
                    .insert(d.name.clone(), scalar_info(dsl, elem, true));
                continue;
            }
            let info = self.argument(n, label, &d.name, single, params, help)?;
            cx.containers.insert(d.name.clone(), info);
        }
        Some(cx)
    }

    /// What argument `name` of nested SDFG node `n` is in the caller.
    fn argument(
        &mut self,
        n: usize,
        label: &str,
        name: &str,
        single: bool,
        params: &[Param],
        help: &str,
    ) -> Option<ContainerInfo> {
        let edges = &self.state.edges;
        let outer = self.in_edges[n]
            .iter()
            .map(|&e| &edges[e])
            .filter(|e| e.dst_conn.as_deref() == Some(name))
            .chain(
                self.out_edges[n]
                    .iter()
                    .map(|&e| &edges[e])
                    .filter(|e| e.src_conn.as_deref() == Some(name)),
            )
            .find_map(|e| e.memlet.clone());
        let Some(m) = outer else {
            self.error(
                format!("argument `{name}` of the nested SDFG `{label}` has no memlet outside"),
                "check the file",
            );
            return None;
        };
        if m.wcr.is_some() {
            self.error(
                format!("the nested SDFG `{label}` inside a map reduces into `{}` through its argument `{name}`", m.data),
                help,
            );
            return None;
        }
        let outer_info = self.cx.containers.get(&m.data)?;
        if single {
            let meaning = self.in_meaning(&m, params)?;
            let Meaning::Value { text, ty } = meaning else {
                self.error(
                    format!("argument `{name}` of the nested SDFG `{label}` is one element, its memlet `{}` several", m.data),
                    "check the file",
                );
                return None;
            };
            return Some(scalar_info(text, ty, false));
        }
        // A whole container: the nested SDFG indexes it as the caller does.
        let whole = m.subset.is_none()
            || self
                .in_meaning(&m, params)
                .is_some_and(|meaning| match meaning {
                    Meaning::Array { offsets, .. } => offsets
                        .iter()
                        .all(|o| same_integer_value(o, &CodeExpr::int(0))),
                    Meaning::Value { .. } => false,
                });
        if !whole {
            self.error(
                format!(
                    "argument `{name}` of the nested SDFG `{label}` is a part of `{}`",
                    m.data
                ),
                help,
            );
            return None;
        }
        Some(ContainerInfo {
            dsl: outer_info.dsl.clone(),
            elem: outer_info.elem,
            shape: outer_info.shape.clone(),
            scalar: outer_info.scalar,
            boxed: outer_info.boxed,
            temp: false,
            storage: outer_info.storage,
            declared_storage: outer_info.declared_storage.clone(),
            transient: outer_info.transient,
        })
    }
}

/// The states of `model` when they form one chain of unconditional edges
/// from its start: each state but the last has one edge, to the next.
fn chain_of(model: &Model) -> Option<Vec<usize>> {
    let count = model.states.len();
    let start = (0..count).find(|s| !model.edges.iter().any(|e| e.dst == *s))?;
    let mut chain = vec![start];
    let mut at = start;
    loop {
        let out: Vec<_> = model.edges.iter().filter(|e| e.src == at).collect();
        match out.as_slice() {
            [] => break,
            [e] if e
                .condition
                .as_ref()
                .is_none_or(|(c, _)| c.trim() == "1" || c.trim() == "True") =>
            {
                if chain.contains(&e.dst) {
                    return None;
                }
                chain.push(e.dst);
                at = e.dst;
            }
            _ => return None,
        }
    }
    (chain.len() == count).then_some(chain)
}

/// A scalar known by its text: a local (`temp`), or an element of the
/// caller (`A[i]`, which a tasklet stores to).
fn scalar_info(dsl: String, elem: ScalarType, temp: bool) -> ContainerInfo {
    ContainerInfo {
        dsl,
        elem,
        shape: Vec::new(),
        scalar: true,
        boxed: false,
        temp,
        storage: Storage::Host,
        declared_storage: "Register".to_string(),
        transient: true,
    }
}

/// A local's name for `name` of nested SDFG `label`, taken by nothing.
fn fresh(cx: &SdfgCx, label: &str, name: &str) -> String {
    let base = identifier(&format!("{label}_{name}"));
    let mut candidate = base.clone();
    let mut k = 2;
    while cx.taken.contains(&candidate) || cx.container_names.contains(&candidate) {
        candidate = format!("{base}_{k}");
        k += 1;
    }
    candidate
}

/// What an interstate expression of the nested SDFG reads: a map
/// parameter, a symbol (or an earlier edge's value), an argument or local.
fn inner_value(cx: &SdfgCx, params: &[Param], name: &str) -> Option<Meaning> {
    if let Some(p) = params.iter().rev().find(|p| p.dace == name) {
        return Some(Meaning::Value {
            text: p.dsl.clone(),
            ty: p.ty,
        });
    }
    if let Some(c) = cx.containers.get(name).filter(|c| c.scalar) {
        return Some(Meaning::Value {
            text: c.dsl.clone(),
            ty: c.elem,
        });
    }
    cx.symbol_meaning(name)
}
