//! The body of a map scope: its tasklets in dataflow order with their
//! connectors bound to data, temporaries of the scope as locals, nested
//! maps as `for` loops; and host tasklets.

use super::super::code::{same_integer_value, wcr_of_lambda, CodeExpr};
use super::super::model::{DataflowEdge, MemletModel, NodeKind};
use super::super::tasklet::{translate, Port, TaskletCx};
use super::super::typing::Meaning;
use super::super::{cpp, python};
use super::{minus_one, topological, Param, StateConv};
use crate::ir::WcrOp;
use std::collections::{BTreeSet, HashMap, HashSet};

impl StateConv<'_> {
    /// The body of a map scope: its tasklets in dataflow order, nested maps as loops.
    pub(super) fn scope_body(
        &mut self,
        entry: usize,
        params: &[Param],
        indent: usize,
    ) -> Vec<String> {
        let exit = self.exit_of(entry);
        let members: Vec<usize> = (0..self.state.nodes.len())
            .filter(|&n| self.state.nodes[n].scope == Some(entry) && Some(n) != exit)
            .collect();
        let mut temps_declared = HashSet::new();
        let mut predeclare = Vec::new();
        let mut lines = Vec::new();
        let what = format!("the scope of map `{}`", self.label(entry));
        self.members_body(
            &members,
            Some(entry),
            &what,
            params,
            indent,
            &mut temps_declared,
            &mut predeclare,
            &mut lines,
        );
        let pad = " ".repeat(indent);
        let mut out: Vec<String> = predeclare
            .into_iter()
            .map(|d| format!("{pad}{d}"))
            .collect();
        out.extend(lines);
        out
    }

    /// The statements of `members` (the nodes of one scope, `entry`'s or
    /// a whole state's), in dataflow order.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn members_body(
        &mut self,
        members: &[usize],
        entry: Option<usize>,
        what: &str,
        params: &[Param],
        indent: usize,
        temps_declared: &mut HashSet<String>,
        predeclare: &mut Vec<String>,
        lines: &mut Vec<String>,
    ) {
        let inner_owner = |n: usize| -> usize {
            // A nested exit joins its entry.
            match (&self.state.nodes[n].kind, self.state.nodes[n].scope) {
                (NodeKind::MapExit, Some(e))
                    if self.state.nodes.get(e).is_some_and(|x| x.scope == entry) =>
                {
                    e
                }
                _ => n,
            }
        };
        let index: HashMap<usize, usize> =
            members.iter().enumerate().map(|(i, &n)| (n, i)).collect();
        let mut adjacency = vec![BTreeSet::new(); members.len()];
        for e in &self.state.edges {
            let (a, b) = (inner_owner(e.src), inner_owner(e.dst));
            if let (Some(&va), Some(&vb)) = (index.get(&a), index.get(&b)) {
                if va != vb {
                    adjacency[va].insert(vb);
                }
            }
        }
        let keys: Vec<usize> = members.to_vec();
        let Some(order) = topological(&adjacency, &keys) else {
            self.error(format!("{what} has a cycle"), "check the file");
            return;
        };
        for v in order {
            let n = members[v];
            match self.kind(n) {
                NodeKind::Tasklet { .. } => {
                    self.tasklet_lines(n, params, indent, temps_declared, predeclare, lines)
                }
                NodeKind::MapEntry { schedule, .. } => {
                    if schedule.starts_with("GPU_ThreadBlock") {
                        let label = self.label(n).to_string();
                        self.error(
                            format!("unsupported DaCe element: map `{label}` has schedule `{schedule}`"),
                            "thread-block maps (and `GPU_Shared` storage) are not supported yet; use `GPU_Device` maps",
                        );
                        continue;
                    }
                    self.check_dynamic_inputs(n);
                    let Some((scope, ranges)) = self.params_of(n, params) else {
                        continue;
                    };
                    for (k, r) in ranges.iter().enumerate() {
                        lines.push(format!("{}for {r} {{", " ".repeat(indent + 4 * k)));
                    }
                    let body = self.scope_body(n, &scope, indent + 4 * ranges.len());
                    lines.extend(body);
                    for k in (0..ranges.len()).rev() {
                        lines.push(format!("{}}}", " ".repeat(indent + 4 * k)));
                    }
                }
                NodeKind::Access { data } => {
                    self.inner_access(n, data, params, indent, temps_declared, lines)
                }
                NodeKind::Library { class, .. } => {
                    let label = self.label(n).to_string();
                    self.error(
                        format!("unsupported DaCe element: library node `{label}` (`{class}`) inside a map"),
                        "sdfg-rs reads library nodes at the top level of a state; expand this one in DaCe: `sdfg.expand_library_nodes()`",
                    );
                }
                NodeKind::Nested {
                    model,
                    symbol_mapping,
                } => self.inline_nested(
                    n,
                    model,
                    symbol_mapping,
                    params,
                    indent,
                    temps_declared,
                    predeclare,
                    lines,
                ),
                NodeKind::MapExit | NodeKind::Reported => {}
            }
        }
    }

    /// An access node inside a map scope: a temporary loaded from or stored
    /// to data by memlets that do not pass through a tasklet.
    fn inner_access(
        &mut self,
        n: usize,
        data: &str,
        params: &[Param],
        indent: usize,
        temps_declared: &mut HashSet<String>,
        lines: &mut Vec<String>,
    ) {
        let pad = " ".repeat(indent);
        let is_temp = self.cx.is_temp(data);
        for &e in &self.in_edges[n].clone() {
            let edge = &self.state.edges[e];
            let Some(m) = &edge.memlet else { continue };
            if matches!(
                self.kind(edge.src),
                NodeKind::Tasklet { .. } | NodeKind::MapExit
            ) {
                continue;
            }
            if !is_temp {
                self.error(
                    format!("a copy into `{data}` inside the scope of a map"),
                    "copies inside maps are not supported; assign in a tasklet",
                );
                continue;
            }
            let Some(value) = self.element_read(m, params) else {
                continue;
            };
            let Some(info) = self.cx.containers.get(data) else {
                continue;
            };
            let local = info.dsl.clone();
            let ty = info.elem;
            if temps_declared.insert(local.clone()) {
                lines.push(format!("{pad}let mut {local}: {ty} = {value};"));
            } else {
                lines.push(format!("{pad}{local} = {value};"));
            }
        }
        if !is_temp {
            return;
        }
        for &e in &self.out_edges[n].clone() {
            let edge = &self.state.edges[e];
            let Some(m) = &edge.memlet else { continue };
            if matches!(self.kind(edge.dst), NodeKind::Tasklet { .. }) {
                continue;
            }
            let Some(local) = self.cx.containers.get(data).map(|i| i.dsl.clone()) else {
                continue;
            };
            // The memlet names the destination when it is not the temporary.
            let target_memlet = if m.data == data {
                match (self.access_data(edge.dst), &m.other_subset) {
                    (Some(d), other) => MemletModel {
                        data: d.to_string(),
                        subset: other.clone(),
                        other_subset: None,
                        wcr: m.wcr.clone(),
                    },
                    (None, _) => continue,
                }
            } else {
                m.clone()
            };
            match self.out_port(&target_memlet, params) {
                Some(Port::OutElement {
                    text, wcr: None, ..
                }) => lines.push(format!("{pad}{text} = {local};")),
                Some(Port::OutElement {
                    text,
                    wcr: Some(op),
                    ..
                }) => lines.push(format!("{pad}{};", reduction_line(&text, op, &local))),
                _ => self.error(
                    format!(
                        "a temporary `{data}` is stored to several elements of `{}`",
                        target_memlet.data
                    ),
                    "store one element per temporary",
                ),
            }
        }
    }

    /// The text of one element a memlet reads.
    fn element_read(&mut self, m: &MemletModel, params: &[Param]) -> Option<String> {
        match self.in_meaning(m, params)? {
            Meaning::Value { text, .. } => Some(text),
            Meaning::Array {
                container,
                scalar: true,
                ..
            } => Some(container),
            Meaning::Array { .. } => {
                self.error(
                    format!(
                        "a memlet of several elements of `{}` feeds a temporary",
                        m.data
                    ),
                    "read one element",
                );
                None
            }
        }
    }

    /// What a memlet gives a tasklet to read: one element or part of an array.
    pub(super) fn in_meaning(&mut self, m: &MemletModel, params: &[Param]) -> Option<Meaning> {
        let Some(info) = self.cx.containers.get(&m.data) else {
            if !self.cx.refused.contains(&m.data) {
                self.error(
                    format!(
                        "a memlet refers to `{}`, which is not a container of the SDFG",
                        m.data
                    ),
                    "check the file",
                );
            }
            return None;
        };
        if info.temp {
            return Some(Meaning::Value {
                text: info.dsl.clone(),
                ty: info.elem,
            });
        }
        if info.scalar {
            return Some(Meaning::Value {
                text: info.dsl.clone(),
                ty: info.elem,
            });
        }
        let ranges: Vec<(CodeExpr, CodeExpr, CodeExpr)> = match &m.subset {
            Some(r) => self.parse_ranges(r, &format!("a memlet of `{}`", m.data))?,
            None => info
                .shape
                .iter()
                .map(|d| (CodeExpr::int(0), minus_one(d.clone()), CodeExpr::int(1)))
                .collect(),
        };
        if ranges.len() != info.shape.len() {
            self.error(
                format!(
                    "a memlet of `{}` has {} dimensions; `{}` has {}",
                    m.data,
                    ranges.len(),
                    m.data,
                    info.shape.len()
                ),
                "check the file",
            );
            return None;
        }
        let single = ranges
            .iter()
            .all(|(s, e, _)| s == e || same_integer_value(s, e));
        if single {
            let idx: Vec<String> = ranges
                .iter()
                .map(|(s, _, _)| self.symbolic(s, params, None))
                .collect();
            return Some(Meaning::Value {
                text: format!("{}[{}]", info.dsl, idx.join(", ")),
                ty: info.elem,
            });
        }
        // The code indexes relative to the subset's start; our own exports
        // always give the whole container (offsets 0).
        let offsets = ranges.into_iter().map(|(s, _, _)| s).collect();
        Some(Meaning::Array {
            container: info.dsl.clone(),
            elem: info.elem,
            offsets,
            shape: info.shape.clone(),
            scalar: false,
        })
    }

    fn out_port(&mut self, m: &MemletModel, params: &[Param]) -> Option<Port> {
        let wcr = match &m.wcr {
            None => None,
            Some(text) => match python::parse_lambda(text)
                .ok()
                .and_then(|(a, b, body)| wcr_of_lambda((&a, &b), &body))
            {
                Some(op) => Some(op),
                None => {
                    self.error(
                        format!("the memlet of `{}` reduces with `{text}`, which sdfg-rs cannot express", m.data),
                        "the reductions are `lambda a, b: a + b`, `a * b`, `min(a, b)` and `max(a, b)`",
                    );
                    return None;
                }
            },
        };
        let info = self.cx.containers.get(&m.data)?;
        if info.temp {
            if wcr.is_some() {
                self.error(
                    format!("a reduction into the temporary `{}`", m.data),
                    "reduce into a container",
                );
            }
            return Some(Port::OutLocal {
                name: info.dsl.clone(),
                ty: info.elem,
            });
        }
        Some(match self.in_meaning(m, params)? {
            Meaning::Value { text, ty } => Port::OutElement { text, ty, wcr },
            meaning => Port::OutArray { meaning, wcr },
        })
    }

    pub(super) fn host_tasklet(&mut self, n: usize, indent: usize, out: &mut Vec<String>) {
        let name = self.statement_names.fresh(self.label(n));
        let mut temps = HashSet::new();
        let mut predeclare = Vec::new();
        let mut lines = Vec::new();
        self.tasklet_lines(n, &[], indent + 4, &mut temps, &mut predeclare, &mut lines);
        let pad = " ".repeat(indent);
        out.push(format!("{pad}tasklet {name} {{"));
        out.extend(predeclare.into_iter().map(|d| format!("{pad}    {d}")));
        out.extend(lines);
        out.push(format!("{pad}}}"));
    }

    fn tasklet_lines(
        &mut self,
        n: usize,
        params: &[Param],
        indent: usize,
        temps_declared: &mut HashSet<String>,
        predeclare: &mut Vec<String>,
        lines: &mut Vec<String>,
    ) {
        let NodeKind::Tasklet {
            code,
            language,
            extra_code,
        } = self.kind(n)
        else {
            return;
        };
        let label = self.label(n).to_string();
        for (field, text) in extra_code {
            if field == "code_global" && text.trim() == crate::dace_format::HELPERS.trim() {
                continue;
            }
            self.error(
                format!("unsupported DaCe element: tasklet `{label}` has `{field}`"),
                "sdfg-rs translates the tasklet's `code` only; move the rest into it",
            );
        }
        let parsed = match language.as_str() {
            "Python" => python::parse_code(code),
            "CPP" => cpp::parse_code(code),
            other => {
                self.error(
                    format!("tasklet `{label}` is written in `{other}`"),
                    "sdfg-rs reads tasklets in Python and C++",
                );
                return;
            }
        };
        let stmts = match parsed {
            Ok(s) => s,
            Err(e) => {
                self.error(format!("tasklet `{label}` {}", e.0), tasklet_help(&e.0));
                return;
            }
        };
        let mut ports: HashMap<String, Port> = HashMap::new();
        for &e in &self.in_edges[n].clone() {
            let edge: &DataflowEdge = &self.state.edges[e];
            let (Some(conn), Some(m)) = (&edge.dst_conn, &edge.memlet) else {
                continue;
            };
            if let Some(meaning) = self.in_meaning(m, params) {
                ports.insert(conn.clone(), Port::In(meaning));
            }
        }
        for &e in &self.out_edges[n].clone() {
            let edge: &DataflowEdge = &self.state.edges[e];
            let (Some(conn), Some(m)) = (&edge.src_conn, &edge.memlet) else {
                if let (Some(_), NodeKind::Tasklet { .. }) = (&edge.src_conn, self.kind(edge.dst)) {
                    let other = self.label(edge.dst).to_string();
                    self.error(
                        format!("tasklet `{label}` is connected to tasklet `{other}` without data in between"),
                        "connect tasklets through an access node",
                    );
                }
                continue;
            };
            if let Some(port) = self.out_port(m, params) {
                ports.insert(conn.clone(), port);
            }
        }
        let outer = |name: &str| -> Option<Meaning> {
            if let Some(p) = params.iter().rev().find(|p| p.dace == name) {
                return Some(Meaning::Value {
                    text: p.dsl.clone(),
                    ty: p.ty,
                });
            }
            self.cx.symbol_only(name)
        };
        let mut taken = self.cx.container_names.clone();
        taken.extend(params.iter().map(|p| p.dsl.clone()));
        let mut tcx = TaskletCx {
            ports: &ports,
            outer: &outer,
            taken: &taken,
            temps_declared,
            predeclare,
            cpp: language == "CPP",
        };
        match translate(&mut tcx, &stmts, indent) {
            Ok(l) => lines.extend(l),
            Err(errors) => {
                for e in errors {
                    self.error(format!("tasklet `{label}` {e}"), tasklet_help(&e));
                }
            }
        }
    }
}

/// How to fix a tasklet the translation rejects.
fn tasklet_help(problem: &str) -> &'static str {
    if problem.contains("does not have") {
        "the math functions are `sqrt exp log sin cos tanh abs min max floor ceil pow fma`"
    } else if problem.contains("syntax error") {
        "check the tasklet's code in DaCe"
    } else {
        "write the tasklet in the subset the tasklet language expresses: assignments, arithmetic, comparisons, `and`/`or`/`not`, conditional expressions, `if`, `for` and `while` loops with `break` and `continue`, casts and math functions"
    }
}

fn reduction_line(target: &str, op: WcrOp, value: &str) -> String {
    match op {
        WcrOp::Sum => format!("{target} += {value}"),
        WcrOp::Product => format!("{target} *= {value}"),
        WcrOp::Min => format!("{target} = {target}.min({value})"),
        WcrOp::Max => format!("{target} = {target}.max({value})"),
    }
}
