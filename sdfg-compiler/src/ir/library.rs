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
    use ScalarType::*;
    match (op, ty) {
        (WcrOp::Sum, _) => Value::from_bits(ty, 0),
        (WcrOp::Product, F32) => Value::F32(1.0),
        (WcrOp::Product, F64) => Value::F64(1.0),
        (WcrOp::Product, _) => Value::from_bits(ty, 1),
        (WcrOp::Max, F32) => Value::F32(f32::NEG_INFINITY),
        (WcrOp::Max, F64) => Value::F64(f64::NEG_INFINITY),
        (WcrOp::Max, I32) => Value::I32(i32::MIN),
        (WcrOp::Max, I64) => Value::I64(i64::MIN),
        (WcrOp::Max, _) => Value::from_bits(ty, 0),
        (WcrOp::Min, F32) => Value::F32(f32::INFINITY),
        (WcrOp::Min, F64) => Value::F64(f64::INFINITY),
        (WcrOp::Min, I32) => Value::I32(i32::MAX),
        (WcrOp::Min, I64) => Value::I64(i64::MAX),
        (WcrOp::Min, U32) => Value::U32(u32::MAX),
        (WcrOp::Min, _) => Value::from_bits(ty, u64::MAX),
    }
}
