//! Addresses along a run of rows: in a full tile, a thread's rows are
//! consecutive iterations (step 1) of one map dimension, so an access
//! whose index cores are plain map parameters lies one row stride after
//! the same access of the previous row. Its core address is then one
//! 64-bit add instead of the row-major products (`((i*E1 + j)*E2 + k)*8 +
//! base`, three 64-bit multiply-adds), which saves instructions and the
//! registers they hold: heat3d's sweep needs far fewer of both.

use super::regs::{Class, Reg};
use super::KernelEmitter;
use crate::ir::{ContainerId, Expr, ExprKind, VarRef};
use std::collections::HashMap;

/// An access up to the row: its container, the map parameter of each index
/// dimension, and the registers of the parameters other than the row's
/// (which name the item in x).
type RowKey = (ContainerId, Vec<usize>, Vec<Reg>);

/// The state of a full tile's run of rows (see the module doc).
pub(super) struct RowRun {
    /// The map dimension the rows run along.
    dim: usize,
    /// The row whose code is being emitted.
    pub(super) row: u32,
    /// Per access: the row it was last computed for and its core address.
    cores: HashMap<RowKey, (u32, Reg)>,
    /// Bytes between two rows, per (container, index dimension).
    strides: HashMap<(ContainerId, usize), Reg>,
}

impl RowRun {
    pub(super) fn new(dim: usize) -> Self {
        RowRun {
            dim,
            row: 0,
            cores: HashMap::new(),
            strides: HashMap::new(),
        }
    }
}

impl<'a> KernelEmitter<'a> {
    /// The key of an access with index cores `cores` in the current run of
    /// rows, and the index dimension the row's parameter appears in: None
    /// when there is no run, a core is not a bare 64-bit map parameter, or
    /// the row's parameter is not used exactly once.
    pub(super) fn row_key(
        &self,
        container: ContainerId,
        cores: &[&Expr],
    ) -> Option<(RowKey, usize)> {
        let run = self.row_run.as_ref()?;
        let mut params = Vec::with_capacity(cores.len());
        for e in cores {
            match e.kind {
                // 64-bit parameters only: a narrower one is truncated, so
                // consecutive rows need not be consecutive indices.
                ExprKind::Var(VarRef::Param(p)) if self.map.params[p].ty.bits() == 64 => {
                    params.push(p)
                }
                _ => return None,
            }
        }
        let mut at = params.iter().enumerate().filter(|(_, &p)| p == run.dim);
        let (d, _) = at.next()?;
        if at.next().is_some() {
            return None;
        }
        let others = (0..self.params.len())
            .filter(|&p| p != run.dim)
            .map(|p| self.params[p])
            .collect();
        Some(((container, params, others), d))
    }

    /// The core address of an access in a run of rows: the one computed for
    /// this row already, or one row stride after the previous row's; None:
    /// compute it in full (and then [`Self::remember_row_core`]).
    pub(super) fn next_row_core(
        &mut self,
        container: ContainerId,
        cores: &[&Expr],
        extents: &[Reg],
        size: usize,
    ) -> Option<Reg> {
        self.next_core(container, cores, extents, Some(size))
    }

    /// [`Self::next_row_core`] in a byte address (`size`: the element's
    /// bytes, 64-bit registers) or, with `None`, in a 32-bit element offset
    /// (`extents` then 32-bit too: a narrow walk's, `walk.rs`).
    pub(super) fn next_core(
        &mut self,
        container: ContainerId,
        cores: &[&Expr],
        extents: &[Reg],
        size: Option<usize>,
    ) -> Option<Reg> {
        let (key, d) = self.row_key(container, cores)?;
        let row = self.row_run.as_ref()?.row;
        let &(last, prev) = self.row_run.as_ref()?.cores.get(&key)?;
        if last == row {
            // Another access of this row with the same core.
            return Some(prev);
        }
        if last + 1 != row {
            return None;
        }
        let (class, unit, width) = match size {
            Some(size) => (Class::B64, size, "u64"),
            None => (Class::B32, 1, "u32"),
        };
        let stride = match self.row_run.as_ref()?.strides.get(&(container, d)) {
            Some(&s) => s,
            None => {
                let s = self.reg(class);
                self.ins(format!("mov.{width} {s}, {unit}"));
                for e in &extents[d + 1..] {
                    self.ins(format!("mul.lo.{width} {s}, {s}, {e}"));
                }
                // Kept for later rows only when set unconditionally.
                if !self.conditional {
                    self.row_run.as_mut()?.strides.insert((container, d), s);
                }
                s
            }
        };
        let core = self.reg(class);
        self.ins(format!("add.{width} {core}, {prev}, {stride}"));
        self.remember_row_core(container, cores, core);
        Some(core)
    }

    /// Records the core address of an access of the current row, for the
    /// next row. Only unconditional code records: a register set inside a
    /// branch may be unset where the next row reads it.
    pub(super) fn remember_row_core(&mut self, container: ContainerId, cores: &[&Expr], core: Reg) {
        if self.conditional {
            return;
        }
        if let Some((key, _)) = self.row_key(container, cores) {
            if let Some(run) = self.row_run.as_mut() {
                let row = run.row;
                run.cores.insert(key, (row, core));
            }
        }
    }
}
