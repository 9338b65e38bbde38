//! Library statements (`C = matmul(A, B);`, `B = transpose(A);`,
//! `S = reduce sum(A, axis 1);`): what was asked for, kept on the map that
//! expands it (`crate::lower::library`), so the DaCe exporter writes the
//! library node (`MatMul`, `Transpose`, `Reduce`) instead of the map.

use super::{ContainerId, ScalarType, Value, WcrOp};

/// One library call: the operation, its operands and its result, each a
/// whole container.
#[derive(Clone, Debug, PartialEq)]
pub struct LibraryCall {
    pub op: LibraryKind,
    pub inputs: Vec<ContainerId>,
    pub output: ContainerId,
}

#[derive(Clone, Debug, PartialEq)]
pub enum LibraryKind {
    /// `matmul(A, B)`: matrix-matrix, matrix-vector, vector-matrix or dot
    /// product, as NumPy's `@`.
    MatMul,
    /// `transpose(A)` of a 2-d array.
    Transpose,
    /// `reduce OP(A, axes [..])`: the sum, maximum or minimum over `axes`
    /// (ascending, all of them when none are written). An empty range
    /// gives the operator's identity: 0, the type's lowest value
    /// (`-inf` for floats), its highest (`inf`).
    Reduce { op: WcrOp, axes: Vec<usize> },
}

impl LibraryKind {
    /// The name the statement calls it by.
    pub fn name(&self) -> &'static str {
        match self {
            LibraryKind::MatMul => "matmul",
            LibraryKind::Transpose => "transpose",
            LibraryKind::Reduce { .. } => "reduce",
        }
    }
}

/// The value a reduction starts from: what an empty range gives.
pub fn reduction_identity(op: WcrOp, ty: ScalarType) -> Value {
    use super::semantics::cast;
    let float_like = ty.is_float() || ty.is_complex();
    match op {
        WcrOp::Sum => Value::from_bits(ty, 0),
        WcrOp::Product if float_like => cast(Value::F64(1.0), ty),
        WcrOp::Product => Value::from_bits(ty, 1),
        WcrOp::Max if ty.is_float() => cast(Value::F64(f64::NEG_INFINITY), ty),
        WcrOp::Min if ty.is_float() => cast(Value::F64(f64::INFINITY), ty),
        WcrOp::Max | WcrOp::Min => match (ty.int_range(), ty) {
            (Some((lo, hi)), _) => {
                Value::from_bits(ty, if op == WcrOp::Min { hi } else { lo } as u128)
            }
            (None, ScalarType::Bool) => Value::Bool(op == WcrOp::Min),
            // Complex values have no order (validation rejects them).
            (None, _) => Value::from_bits(ty, 0),
        },
    }
}
