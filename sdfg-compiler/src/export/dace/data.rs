//! DaCe's data descriptors (`Scalar`, `Array` with strides) and memlets:
//! subsets as inclusive `Range`s, volumes, and symbolic sizes kept as
//! readable text (`N*M`, `N - 1`).

use super::{dtype_name, storage_name, Cx};
use crate::dace_format::SCALAR_MARK;
use crate::export::print::BodyNames;
use crate::ir::{ContainerId, Subset, SubsetDim};
use serde_json::{json, Value};

impl Cx<'_> {
    /// The container's extents as DaCe sees them (a scalar has one of 1).
    fn shape(&self, id: ContainerId) -> Vec<String> {
        match self.sdfg.containers.get(id) {
            Some(c) if !c.is_scalar() => c.shape.iter().map(|e| self.py(e)).collect(),
            _ => vec!["1".to_string()],
        }
    }

    /// Row-major strides: the product of the later extents.
    pub(super) fn strides(&self, id: ContainerId) -> Vec<String> {
        let shape = self.shape(id);
        let mut strides = vec!["1".to_string(); shape.len()];
        for d in (0..shape.len().saturating_sub(1)).rev() {
            strides[d] = product(&[strides[d + 1].clone(), shape[d + 1].clone()]);
        }
        strides
    }

    pub(super) fn array_json(&self, id: ContainerId) -> Value {
        let c = &self.sdfg.containers[id];
        let shape = self.shape(id);
        let common = json!({
            "dtype": dtype_name(c.elem),
            "shape": shape,
            "transient": c.transient,
            "storage": storage_name(c.storage),
            "lifetime": "Scope",
            "allow_conflicts": false,
            "debuginfo": null,
        });
        if c.is_scalar() && !self.boxed_scalars.contains(&id) {
            return json!({"type": "Scalar", "attributes": common});
        }
        let strides = self.strides(id);
        let mut attrs = common;
        let extra = json!({
            "strides": strides,
            "total_size": product(&shape),
            "offset": vec!["0"; shape.len()],
            "optional": false,
            "may_alias": false,
            "alignment": 0,
            "start_offset": 0,
        });
        if c.is_scalar() {
            attrs[SCALAR_MARK] = json!(true);
        }
        if let (Some(a), Some(e)) = (attrs.as_object_mut(), extra.as_object()) {
            a.extend(e.clone());
        }
        json!({"type": "Array", "attributes": attrs})
    }

    /// A subset in DaCe's `Range` form: inclusive ends.
    pub(super) fn subset_json(
        &self,
        container: ContainerId,
        subset: &Subset,
        names: &BodyNames,
    ) -> Value {
        let ranges: Vec<Value> = if subset.is_empty() {
            self.whole_ranges(container)
        } else {
            subset
                .iter()
                .map(|d| match d {
                    SubsetDim::Index(e) => {
                        let i = self.py_in(e, names);
                        range_json(&i, &i)
                    }
                    SubsetDim::Range { start, end } => {
                        // Simplified when it is symbolic; with map parameters
                        // in it, spelled out (the simplifier knows symbols only).
                        let last = if crate::ir::bounds::reads_only_symbols(end) {
                            self.inclusive_end(end)
                        } else {
                            format!("({}) - 1", self.py_in(end, names))
                        };
                        range_json(&self.py_in(start, names), &last)
                    }
                })
                .collect()
        };
        json!({"type": "Range", "ranges": ranges})
    }

    fn whole_ranges(&self, container: ContainerId) -> Vec<Value> {
        self.shape(container)
            .iter()
            .map(|n| range_json("0", &minus_one_text(n)))
            .collect()
    }

    pub(super) fn whole_subset(&self, container: ContainerId) -> Value {
        json!({"type": "Range", "ranges": self.whole_ranges(container)})
    }

    pub(super) fn elements(&self, container: ContainerId) -> String {
        product(&self.shape(container))
    }

    /// The number of elements of a subset (for a copy's volume).
    pub(super) fn subset_volume(&self, container: ContainerId, subset: &Subset) -> String {
        if subset.is_empty() {
            return self.elements(container);
        }
        let extents: Vec<String> = subset
            .iter()
            .map(|d| match d {
                SubsetDim::Index(_) => "1".to_string(),
                SubsetDim::Range { start, end } => self.extent(start, end),
            })
            .collect();
        product(&extents)
    }
}

pub(super) fn range_json(start: &str, end_inclusive: &str) -> Value {
    json!({"start": start, "end": end_inclusive, "step": "1", "tile": "1"})
}

fn minus_one_text(n: &str) -> String {
    match n.parse::<i128>() {
        Ok(v) => (v - 1).to_string(),
        Err(_) => format!("({n}) - 1"),
    }
}

pub(super) fn product(factors: &[String]) -> String {
    let mut literal: i128 = 1;
    let mut symbolic: Vec<String> = Vec::new();
    for f in factors {
        match f.parse::<i128>() {
            Ok(v) => literal = literal.saturating_mul(v),
            // A bare name or call needs no parentheses in a product.
            Err(_) if f.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                symbolic.push(f.clone())
            }
            Err(_) => symbolic.push(format!("({f})")),
        }
    }
    if symbolic.is_empty() {
        return literal.to_string();
    }
    if literal != 1 {
        symbolic.insert(0, literal.to_string());
    }
    symbolic.join("*")
}

pub(super) fn memlet_json(
    data: &str,
    subset: Value,
    other_subset: Value,
    volume: &str,
    dynamic: bool,
    wcr: Option<&str>,
) -> Value {
    json!({
        "type": "Memlet",
        "attributes": {
            "volume": volume,
            "dynamic": dynamic,
            "subset": subset,
            "other_subset": other_subset,
            "data": data,
            "wcr": wcr,
            "wcr_nonatomic": false,
            "allow_oob": false,
            "debuginfo": null,
        }
    })
}

pub(super) fn empty_memlet_json() -> Value {
    json!({
        "type": "Memlet",
        "attributes": {
            "volume": "0", "dynamic": false, "subset": null, "other_subset": null,
            "data": null, "wcr": null, "debuginfo": null,
        }
    })
}
