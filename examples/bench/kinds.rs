//! The benchmarked computations, in table order: how each loads its
//! workload, which baseline it is compared with, and its target share of
//! its ceiling (the copy bandwidth; for gemm, cuBLAS's FLOP rate).

use crate::baselines::{BaselineResult, Baselines, Reps};
use crate::common::{AnyResult, Options, Workload};
use crate::report::Ceiling;
use crate::{axpy, dot, gemm, heat3d, jacobi2d, raw, softmax};
use sdfg::prelude::*;

/// The benchmarked computations, in table order.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Axpy,
    Stencil2d,
    Jacobi2d,
    Heat3d,
    DotBlocks,
    DotPartials,
    DotDirect,
    SoftmaxBlocks,
    SoftmaxTwoPass,
    SoftmaxOnline,
    SoftmaxRows,
    Gemm,
}

pub(crate) const KINDS: [Kind; 12] = [
    Kind::Axpy,
    Kind::Stencil2d,
    Kind::Jacobi2d,
    Kind::Heat3d,
    Kind::DotBlocks,
    Kind::DotPartials,
    Kind::DotDirect,
    Kind::SoftmaxBlocks,
    Kind::SoftmaxTwoPass,
    Kind::SoftmaxOnline,
    Kind::SoftmaxRows,
    Kind::Gemm,
];

impl Kind {
    /// `--only` matches these (a prefix of the example's name).
    pub(crate) fn family(self) -> &'static str {
        match self {
            Kind::Axpy => "axpy",
            Kind::Stencil2d => "stencil2d",
            Kind::Jacobi2d => "jacobi2d",
            Kind::Heat3d => "heat3d",
            Kind::DotBlocks | Kind::DotPartials | Kind::DotDirect => "dot",
            Kind::SoftmaxBlocks
            | Kind::SoftmaxTwoPass
            | Kind::SoftmaxOnline
            | Kind::SoftmaxRows => "softmax",
            Kind::Gemm => "gemm",
        }
    }

    /// The target: % of the ceiling (DESIGN.md 8; the block-map forms:
    /// issue 14).
    pub(crate) fn target_pct(self) -> f64 {
        match self {
            Kind::Axpy | Kind::Stencil2d | Kind::Jacobi2d | Kind::Heat3d => 90.0,
            Kind::DotBlocks => 95.0,
            Kind::DotPartials | Kind::DotDirect => 80.0,
            Kind::SoftmaxBlocks => 85.0,
            Kind::SoftmaxTwoPass | Kind::SoftmaxOnline | Kind::SoftmaxRows => 70.0,
            Kind::Gemm => 60.0,
        }
    }

    /// What the target is a share of.
    pub(crate) fn ceiling(self) -> Ceiling {
        match self {
            Kind::Gemm => Ceiling::BaselineFlops,
            _ => Ceiling::Copy,
        }
    }

    /// The reductions (dot, softmax), whose CPU target is looser.
    pub(crate) fn is_reduction(self) -> bool {
        matches!(self.family(), "dot" | "softmax")
    }

    pub(crate) fn load(self, device: &Device, small: bool) -> AnyResult<Box<dyn Workload>> {
        self.load_with(device, small, &Options::none())
    }

    /// The workload at its `--small` sizes with `scale` times the elements
    /// (rounded: a grid's side grows by the square or cube root; the time
    /// steps stay), for the CPU device section.
    pub(crate) fn load_scaled(self, device: &Device, scale: usize) -> AnyResult<Box<dyn Workload>> {
        let f = scale.max(1) as f64;
        let side = |n: usize, dims: i32| ((n as f64) * f.powf(1.0 / dims as f64)).round() as usize;
        let opts = |pairs: &[(&str, usize)]| {
            let pairs: Vec<(&str, String)> =
                pairs.iter().map(|(k, v)| (*k, v.to_string())).collect();
            Options::from_pairs(&pairs)
        };
        let opts = match self {
            Kind::Axpy => opts(&[("n", axpy::SMALL_N * scale)]),
            Kind::DotBlocks | Kind::DotPartials | Kind::DotDirect => {
                opts(&[("n", dot::SMALL_N * scale)])
            }
            Kind::Jacobi2d => opts(&[("n", side(jacobi2d::SMALL.0, 2))]),
            Kind::Heat3d => opts(&[("n", side(heat3d::SMALL.0, 3))]),
            Kind::SoftmaxBlocks
            | Kind::SoftmaxTwoPass
            | Kind::SoftmaxOnline
            | Kind::SoftmaxRows => opts(&[("n", softmax::SMALL[0] * scale)]),
            // C (m x n) grows by `scale` (sides in multiples of 128); k stays.
            Kind::Gemm => {
                let s = (side(gemm::SMALL, 2) / 128).max(1) * 128;
                opts(&[("m", s), ("n", s), ("k", gemm::SMALL)])
            }
            Kind::Stencil2d => {
                let (n, t) = stencil2d_sizes(true);
                return Ok(Box::new(jacobi2d::Jacobi2dWorkload::with_sizes(
                    device,
                    "stencil2d",
                    side(n, 2),
                    t,
                )?));
            }
        };
        self.load_with(device, true, &opts)
    }

    fn load_with(
        self,
        device: &Device,
        small: bool,
        opts: &Options,
    ) -> AnyResult<Box<dyn Workload>> {
        Ok(match self {
            Kind::Axpy => Box::new(axpy::AxpyWorkload::new(device, opts, small)?),
            Kind::Stencil2d => {
                let (n, t) = stencil2d_sizes(small);
                Box::new(jacobi2d::Jacobi2dWorkload::with_sizes(
                    device,
                    "stencil2d",
                    n,
                    t,
                )?)
            }
            Kind::Jacobi2d => Box::new(jacobi2d::Jacobi2dWorkload::new(device, opts, small)?),
            Kind::Heat3d => Box::new(heat3d::Heat3dWorkload::new(device, opts, small)?),
            Kind::DotBlocks => Box::new(dot::DotWorkload::new(
                device,
                opts,
                small,
                dot::DotForm::Blocks,
            )?),
            Kind::DotPartials => Box::new(dot::DotWorkload::new(
                device,
                opts,
                small,
                dot::DotForm::Partials,
            )?),
            Kind::DotDirect => Box::new(dot::DotWorkload::new(
                device,
                opts,
                small,
                dot::DotForm::Direct,
            )?),
            Kind::SoftmaxBlocks => Box::new(softmax::SoftmaxWorkload::new(
                device,
                opts,
                small,
                softmax::SoftmaxForm::Blocks,
            )?),
            Kind::SoftmaxTwoPass => Box::new(softmax::SoftmaxWorkload::new(
                device,
                opts,
                small,
                softmax::SoftmaxForm::TwoPass,
            )?),
            Kind::SoftmaxOnline => Box::new(softmax::SoftmaxWorkload::new(
                device,
                opts,
                small,
                softmax::SoftmaxForm::Online,
            )?),
            Kind::SoftmaxRows => Box::new(softmax::SoftmaxWorkload::new(
                device,
                opts,
                small,
                softmax::SoftmaxForm::Rows,
            )?),
            Kind::Gemm => Box::new(gemm::GemmWorkload::new(device, opts, small)?),
        })
    }

    /// The baseline of this computation (one per family: the dot forms and
    /// the softmax forms compare with the same hand-written kernel; gemm
    /// with cuBLAS).
    pub(crate) fn baseline(
        self,
        b: &Baselines<'_>,
        small: bool,
        reps: Reps,
    ) -> raw::RawResult<BaselineResult> {
        // The sizes the workloads take by default.
        match self {
            Kind::Axpy => b.axpy(if small { axpy::SMALL_N } else { axpy::FULL_N }, reps),
            Kind::Stencil2d => {
                let (n, t) = stencil2d_sizes(small);
                b.jacobi2d(n, t, reps)
            }
            Kind::Jacobi2d => {
                let (n, t) = if small {
                    jacobi2d::SMALL
                } else {
                    jacobi2d::FULL
                };
                b.jacobi2d(n, t, reps)
            }
            Kind::Heat3d => {
                let (n, t) = if small { heat3d::SMALL } else { heat3d::FULL };
                b.heat3d(n, t, reps)
            }
            Kind::DotBlocks | Kind::DotPartials | Kind::DotDirect => {
                b.dot(if small { dot::SMALL_N } else { dot::FULL_N }, reps)
            }
            Kind::SoftmaxBlocks
            | Kind::SoftmaxTwoPass
            | Kind::SoftmaxOnline
            | Kind::SoftmaxRows => {
                b.softmax(if small { softmax::SMALL } else { softmax::FULL }, reps)
            }
            Kind::Gemm => {
                let side = if small { gemm::SMALL } else { gemm::FULL };
                b.gemm([side; 3], reps)
            }
        }
    }
}

/// (N, TSTEPS) of the 8192^2 stencil row (its `--small` form otherwise).
pub(crate) fn stencil2d_sizes(small: bool) -> (usize, usize) {
    if small {
        jacobi2d::WIDE_SMALL
    } else {
        jacobi2d::WIDE
    }
}
