//! Every check of a lowered SDFG (placeholder).
use crate::diag::Diagnostics;
use crate::ir::Sdfg;

pub fn validate(_sdfg: &Sdfg) -> Result<(), Diagnostics> {
    Ok(())
}
