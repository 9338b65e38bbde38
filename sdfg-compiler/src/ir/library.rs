//! Library statements (`C = matmul(A, B);`, `B = transpose(A);`,
//! `S = reduce sum(A, axis 1);`): what was asked for, kept on the map that
//! expands it (`crate::lower::library`), so the DaCe exporter writes the
//! library node (`MatMul`, `Transpose`, `Reduce`) instead of the map.

use super::{ContainerId, WcrOp};

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
