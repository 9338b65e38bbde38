//! Every check of a lowered SDFG (placeholder until the front end lands).
use crate::diag::Diagnostics;
use crate::ir::Sdfg;

pub fn validate(_sdfg: &Sdfg) -> Result<(), Diagnostics> {
    Ok(())
}
