//! A convergence loop decided on the GPU: halve X until its squared norm
//! (a residual the GPU computes) is small. The loop edge reads the residual
//! after a copy to the host; with graphs the loop is one conditional WHILE
//! node and the host waits once after it, not once per iteration.

use crate::common::{AnyResult, Check};
use sdfg::prelude::*;

sdfg! {
    /// Halves X until `sum(X^2) <= 1e-57` (or MAXIT steps); ITERS counts them.
    #[streams(auto)]
    pub sdfg Converge {
        symbol N: i64; symbol MAXIT: i64;
        gpu X: f64[N];
        gpu RES: f64;
        gpu ITERS: i64;
        transient pinned R: f64;
        state init {
            map zero[i in 0..1] on gpu { RES = 0.0; }
        }
        state step {
            map halve[i in 0..N] on gpu { X[i] = 0.5 * X[i]; }
            map clear[i in 0..1] on gpu { RES = 0.0; }
            map norm[i in 0..N] on gpu { RES += X[i] * X[i]; }
            copy RES -> R;
        }
        state done {
            map count[i in 0..1] on gpu { ITERS = it + 1; }
        }
        init -> step { it = 0 }
        step -> step if R > 1.0e-57 && it + 1 < MAXIT { it = it + 1 }
        step -> done;
    }
}

/// 1024 ones: the squared norm is 2^(10 - 2k) after k halvings, above
/// 1e-57 for k <= 99, so the loop runs exactly 100 iterations (exact in
/// f64, whatever the order of the sum).
pub const N: usize = 1024;
pub const ITERATIONS: i64 = 100;

pub struct ConvergeWorkload {
    pub program: Converge,
    x: DeviceBuffer<f64>,
    res: DeviceBuffer<f64>,
    iters: DeviceBuffer<i64>,
}

impl ConvergeWorkload {
    pub fn new(device: &Device) -> AnyResult<Self> {
        Ok(ConvergeWorkload {
            program: Converge::load(device)?,
            x: DeviceBuffer::from_slice(device, &[1.0; N])?,
            res: DeviceBuffer::zeros(device, 1)?,
            iters: DeviceBuffer::zeros(device, 1)?,
        })
    }

    /// Resets X (not part of a call's cost), then one `run()`.
    pub fn reset(&mut self) -> AnyResult<()> {
        self.x.copy_from_slice(&[1.0; N])?;
        Ok(())
    }

    pub fn run(&mut self) -> AnyResult<()> {
        self.program.run(ConvergeArgs {
            N: N as i64,
            MAXIT: 1000,
            X: &mut self.x,
            RES: &mut self.res,
            ITERS: &mut self.iters,
        })?;
        Ok(())
    }

    /// X is 2^-100 everywhere after exactly 100 iterations.
    pub fn check(&self) -> AnyResult<Check> {
        let x = self.x.to_vec()?;
        let iters = self.iters.to_vec()?[0];
        let want = 0.5f64.powi(ITERATIONS as i32);
        let passed = iters == ITERATIONS && x.iter().all(|v| v.to_bits() == want.to_bits());
        Ok(Check {
            passed,
            detail: format!(
                "{iters} iterations (want {ITERATIONS}); X {} 2^-100",
                if passed { "==" } else { "!=" }
            ),
        })
    }
}
