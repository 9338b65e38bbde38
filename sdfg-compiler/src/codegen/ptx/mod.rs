//! GPU maps -> PTX. PLACEHOLDER in main until the ptx branch lands: the
//! kernel list is real (one per gpu map), the text is an empty module.
use super::kernel_abi::{kernel_abi, KernelAbi};
use crate::ir::{MapSchedule, Sdfg, StateId, StatementKind, StmtId};

pub struct PtxModule {
    pub text: String,
    pub kernels: Vec<PtxKernel>,
}

pub struct PtxKernel {
    pub state: StateId,
    pub stmt: StmtId,
    pub abi: KernelAbi,
    pub block: [u32; 3],
    pub items_per_thread: u32,
}

pub fn generate(sdfg: &Sdfg) -> PtxModule {
    let mut kernels = Vec::new();
    for (s, state) in sdfg.states.iter().enumerate() {
        for (k, st) in state.stmts.iter().enumerate() {
            if matches!(&st.kind, StatementKind::Map(m) if m.schedule == MapSchedule::Gpu) {
                kernels.push(PtxKernel {
                    state: s,
                    stmt: k,
                    abi: kernel_abi(sdfg, s, k),
                    block: [256, 1, 1],
                    items_per_thread: 1,
                });
            }
        }
    }
    PtxModule {
        text: ".version 8.0\n.target sm_80\n.address_size 64\n".into(),
        kernels,
    }
}
