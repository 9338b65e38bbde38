//! The library nodes sdfg-rs has statements for: DaCe's `MatMul`
//! (`C = matmul(A, B);`), `Transpose` (`B = transpose(A);`) and `Reduce`
//! with a sum, maximum or minimum (`S = reduce sum(A, axes [..]);`), each
//! reading and writing whole containers, as our exporter writes them and
//! DaCe's NumPy frontend makes them (`A @ B`, `np.sum(A, axis=1)`).

use super::super::code::{same_integer_value, wcr_of_lambda, CodeExpr};
use super::super::model::{NodeKind, RangeText};
use super::super::python;
use super::{plus_one, StateConv};
use crate::ir::WcrOp;

impl StateConv<'_> {
    pub(super) fn library(&mut self, n: usize, indent: usize, out: &mut Vec<String>) {
        let NodeKind::Library {
            class,
            wcr,
            axes,
            identity,
        } = self.kind(n)
        else {
            return;
        };
        let label = self.label(n).to_string();
        let what = format!("library node `{label}` (`{class}`)");
        // (connector, DSL name) of each operand, and the result.
        let mut inputs: Vec<(Option<String>, String)> = Vec::new();
        for &e in &self.in_edges[n].clone() {
            let edge = &self.state.edges[e];
            let Some(m) = &edge.memlet else { continue };
            let Some(name) = self.whole(&m.data, m.subset.as_deref(), &what) else {
                return;
            };
            inputs.push((edge.dst_conn.clone(), name));
        }
        let mut outputs = Vec::new();
        for &e in &self.out_edges[n].clone() {
            let edge = &self.state.edges[e];
            let Some(m) = &edge.memlet else { continue };
            if m.wcr.is_some() {
                self.error(
                    format!("{what} writes its result with a write-conflict resolution"),
                    "sdfg-rs assigns a library node's result; accumulate with an array statement after it",
                );
                return;
            }
            let Some(name) = self.whole(&m.data, m.subset.as_deref(), &what) else {
                return;
            };
            outputs.push(name);
        }
        let [target] = outputs.as_slice() else {
            self.error(
                format!("{what} has {} results", outputs.len()),
                "a library node writes one container",
            );
            return;
        };
        let operand = |conn: &str| {
            inputs
                .iter()
                .find(|(c, _)| c.as_deref() == Some(conn))
                .map(|(_, name)| name.clone())
        };
        let value = match class.as_str() {
            "MatMul" => match (operand("_a"), operand("_b")) {
                (Some(a), Some(b)) => format!("matmul({a}, {b})"),
                _ => {
                    self.error(format!("{what} lacks `_a` or `_b`"), "check the file");
                    return;
                }
            },
            "Transpose" => match operand("_inp") {
                Some(a) => format!("transpose({a})"),
                None => {
                    self.error(format!("{what} lacks `_inp`"), "check the file");
                    return;
                }
            },
            _ => {
                let [(_, a)] = inputs.as_slice() else {
                    self.error(
                        format!("{what} has {} operands", inputs.len()),
                        "a reduction reads one container",
                    );
                    return;
                };
                let op = wcr
                    .as_deref()
                    .and_then(|t| python::parse_lambda(t).ok())
                    .and_then(|(x, y, body)| wcr_of_lambda((&x, &y), &body));
                let op = match op {
                    Some(WcrOp::Sum) => "sum",
                    Some(WcrOp::Max) => "max",
                    Some(WcrOp::Min) => "min",
                    _ => {
                        self.error(
                            format!("{what} reduces with `{}`", wcr.as_deref().unwrap_or("?")),
                            "sdfg-rs reduces with `lambda a, b: a + b`, `max(a, b)` and `min(a, b)`",
                        );
                        return;
                    }
                };
                // Without an identity DaCe accumulates into the result; a
                // sum starts from 0 (other starts are not a reduction of
                // ours), a maximum or minimum from its identity.
                let starts_fresh = match op {
                    "sum" => identity.as_f64() == Some(0.0),
                    _ => !identity.is_null(),
                };
                if !starts_fresh {
                    self.error(
                        format!("{what} starts from `{identity}`"),
                        "sdfg-rs reduces into a fresh value: a sum from 0, a maximum or minimum from its identity; add the rest with an array statement",
                    );
                    return;
                }
                match axes {
                    None => format!("reduce {op}({a})"),
                    Some(axes) => {
                        let list: Vec<String> = axes.iter().map(|k| k.to_string()).collect();
                        format!("reduce {op}({a}, axes [{}])", list.join(", "))
                    }
                }
            }
        };
        out.push(format!("{}{target} = {value};", " ".repeat(indent)));
    }

    /// The DSL name of `data` when `subset` covers all of it.
    fn whole(&mut self, data: &str, subset: Option<&[RangeText]>, what: &str) -> Option<String> {
        let Some(info) = self.cx.containers.get(data) else {
            if !self.cx.refused.contains(data) {
                self.error(
                    format!("{what} reads or writes `{data}`, which is not a container"),
                    "check the file",
                );
            }
            return None;
        };
        let (name, shape, scalar) = (info.dsl.clone(), info.shape.clone(), info.scalar);
        let Some(ranges) = subset.filter(|_| !scalar) else {
            return Some(name);
        };
        let parsed = self.parse_ranges(ranges, &format!("the memlet of `{data}`"))?;
        let zero = |e: &CodeExpr| {
            matches!(
                e,
                CodeExpr::Int {
                    value: 0,
                    negative: false,
                    ..
                }
            )
        };
        let whole = parsed.len() == shape.len()
            && parsed.iter().zip(&shape).all(|((s, e, _), extent)| {
                zero(s) && same_integer_value(&plus_one(e.clone()), extent)
            });
        if whole {
            Some(name)
        } else {
            self.error(
                format!("{what} reads or writes a part of `{data}`"),
                "sdfg-rs library statements take whole containers; copy the part into a transient in DaCe first",
            );
            None
        }
    }
}
