//! Library statements as DaCe's library nodes: `matmul` is
//! `dace.libraries.blas.MatMul` (connectors `_a`, `_b` -> `_c`),
//! `transpose` is `dace.libraries.standard.Transpose` (`_inp` -> `_out`),
//! `reduce` is `dace.libraries.standard.Reduce` (no connector names, the
//! operator as its WCR lambda, the axes, and the identity). Their memlets
//! are the whole containers. DaCe expands them itself when it compiles.

use super::data::memlet_json;
use super::{dtype_name, Cx};
use crate::export::cpp::wcr_lambda;
use crate::ir::library::{reduction_identity, LibraryCall, LibraryKind};
use crate::ir::{ContainerId, ScalarType, Value as IrValue, WcrOp};
use serde_json::{json, Value};

/// The connector of input `position` (None: DaCe's Reduce has none).
pub(super) fn input_connector(call: &LibraryCall, position: usize) -> Option<&'static str> {
    match call.op {
        LibraryKind::MatMul => Some(if position == 0 { "_a" } else { "_b" }),
        LibraryKind::Transpose => Some("_inp"),
        LibraryKind::Reduce { .. } => None,
    }
}

/// The connector of the result.
pub(super) fn output_connector(call: &LibraryCall) -> Option<&'static str> {
    match call.op {
        LibraryKind::MatMul => Some("_c"),
        LibraryKind::Transpose => Some("_out"),
        LibraryKind::Reduce { .. } => None,
    }
}

impl Cx<'_> {
    /// The library node of `call`, labelled `label`.
    pub(super) fn library_node_json(&self, label: &str, call: &LibraryCall) -> Value {
        let connectors = |names: Vec<Option<&str>>| -> Value {
            let map: serde_json::Map<String, Value> = names
                .into_iter()
                .flatten()
                .map(|n| (n.to_string(), Value::Null))
                .collect();
            Value::Object(map)
        };
        let ins = connectors(
            (0..call.inputs.len())
                .map(|p| input_connector(call, p))
                .collect(),
        );
        let outs = connectors(vec![output_connector(call)]);
        let elem = self.sdfg.containers[call.output].elem;
        let (classpath, mut attributes) = match &call.op {
            LibraryKind::MatMul => (
                "dace.libraries.blas.nodes.matmul.MatMul",
                json!({"alpha": 1, "beta": 0}),
            ),
            LibraryKind::Transpose => (
                "dace.libraries.standard.nodes.transpose.Transpose",
                json!({"dtype": dtype_name(elem)}),
            ),
            LibraryKind::Reduce { op, axes } => (
                "dace.libraries.standard.nodes.reduce.Reduce",
                json!({
                    "axes": axes,
                    "wcr": wcr_lambda(*op),
                    "identity": dace_identity(*op, elem),
                }),
            ),
        };
        attributes["name"] = json!(label);
        attributes["label"] = json!(label);
        attributes["in_connectors"] = ins;
        attributes["out_connectors"] = outs;
        json!({
            "type": "LibraryNode",
            "label": label,
            "attributes": attributes,
            "classpath": classpath,
        })
    }

    /// The memlet of a library node's operand or result: all of it.
    pub(super) fn whole_memlet_json(&self, c: ContainerId) -> Value {
        let name = crate::export::print::container_name(self.sdfg, c);
        memlet_json(
            &name,
            self.whole_subset(c),
            Value::Null,
            &self.elements(c),
            false,
            None,
        )
    }
}

/// The identity DaCe starts a reduction from, as its NumPy frontend
/// writes it: 0 for sums, the type's lowest and highest finite values for
/// maximum and minimum (ours are `-inf` and `inf` for floats: the results
/// differ only when every reduced value is infinite that way).
fn dace_identity(op: WcrOp, ty: ScalarType) -> Value {
    match reduction_identity(op, ty) {
        IrValue::F32(x) if x.is_infinite() => json!(if x > 0.0 { f32::MAX } else { f32::MIN }),
        IrValue::F64(x) if x.is_infinite() => json!(if x > 0.0 { f64::MAX } else { f64::MIN }),
        IrValue::F16(x) if x.is_infinite() => {
            json!(if x.is_sign_positive() {
                f32::from(half::f16::MAX)
            } else {
                f32::from(half::f16::MIN)
            })
        }
        IrValue::BF16(x) if x.is_infinite() => {
            json!(if x.is_sign_positive() {
                f32::from(half::bf16::MAX)
            } else {
                f32::from(half::bf16::MIN)
            })
        }
        IrValue::F32(x) => json!(x),
        IrValue::F64(x) => json!(x),
        IrValue::F16(x) => json!(f32::from(x)),
        IrValue::BF16(x) => json!(f32::from(x)),
        IrValue::I8(x) => json!(x),
        IrValue::I16(x) => json!(x),
        IrValue::I32(x) => json!(x),
        IrValue::I64(x) => json!(x),
        IrValue::U8(x) => json!(x),
        IrValue::U16(x) => json!(x),
        IrValue::U32(x) => json!(x),
        IrValue::U64(x) => json!(x),
        IrValue::Bool(b) => json!(b),
        // DaCe writes a complex identity as its real part (a sum starts at 0).
        IrValue::C32(z) => json!(z.re),
        IrValue::C64(z) => json!(z.re),
    }
}
