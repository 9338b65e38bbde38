//! AST -> IR (placeholder until the front end lands).
use crate::diag::Diagnostics;
use crate::ir::Sdfg;
use crate::parse::SdfgAst;

pub fn lower(_ast: &SdfgAst) -> Result<Sdfg, Diagnostics> {
    unimplemented!("front end in progress")
}
