//! A small sequential interpreter for the PTX subset this backend emits, so
//! the generated kernels can be *run* without a GPU (threads one after
//! another; map iterations are independent, atomics are trivially atomic).
//!
//! It checks the emitter's logic (registers, operand order, guards, loop
//! structure, launch geometry, call convention) against the evaluator. It
//! implements each instruction as this backend's author reads the PTX ISA,
//! so it cannot catch a misreading of the ISA itself: that needs the GPU.

mod arith;
mod exec;
mod parse;

use arith::mask;
use exec::exec;
pub use parse::Module;
use parse::{Function, Operand};
use std::collections::HashMap;

/// Global memory: buffers at fixed, far-apart base addresses.
#[derive(Default)]
pub struct Memory {
    /// (base address, length without padding, bytes).
    buffers: Vec<(u64, usize, Vec<u8>)>,
}

impl Memory {
    /// Adds a buffer; returns its device address. Like a CUDA allocation,
    /// the buffer is padded to whole 8-byte words (so an update of a byte
    /// through its aligned 32-bit word stays inside it).
    pub fn alloc(&mut self, mut bytes: Vec<u8>) -> u64 {
        let base = 0x1_0000_0000u64 * (self.buffers.len() as u64 + 1);
        let len = bytes.len();
        bytes.resize(len.div_ceil(8) * 8, 0);
        self.buffers.push((base, len, bytes));
        base
    }
    /// The bytes of the buffer at `addr` (without the padding).
    pub fn bytes(&self, addr: u64) -> &[u8] {
        let (_, len, data) = self.buffers.iter().find(|b| b.0 == addr).expect("buffer");
        &data[..*len]
    }
    fn slot(&mut self, addr: u64, len: usize) -> Result<&mut [u8], String> {
        for (base, _, data) in &mut self.buffers {
            if addr >= *base && addr + len as u64 <= *base + data.len() as u64 {
                let off = (addr - *base) as usize;
                return Ok(&mut data[off..off + len]);
            }
        }
        Err(format!("invalid global access at {addr:#x} ({len} bytes)"))
    }
    fn read(&mut self, addr: u64, len: usize) -> Result<u64, String> {
        let s = self.slot(addr, len)?;
        let mut b = [0u8; 8];
        b[..len].copy_from_slice(s);
        Ok(u64::from_le_bytes(b))
    }
    fn write(&mut self, addr: u64, len: usize, v: u64) -> Result<(), String> {
        let s = self.slot(addr, len)?;
        s.copy_from_slice(&v.to_le_bytes()[..len]);
        Ok(())
    }
}

/// Launch dimensions.
#[derive(Clone, Copy, Debug)]
pub struct Launch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
}

pub(super) struct Thread {
    pub(super) lane: u32,
    pub(super) tid: [u32; 3],
    pub(super) ntid: [u32; 3],
    pub(super) ctaid: [u32; 3],
    pub(super) nctaid: [u32; 3],
}

/// Runs `kernel` for every thread of `launch`. `params`: raw bits per
/// parameter (little-endian; 16-byte parameters use all 128).
pub fn run_kernel(
    m: &Module,
    kernel: &str,
    params: &[u128],
    launch: Launch,
    mem: &mut Memory,
) -> Result<(), String> {
    let f = m
        .functions
        .get(kernel)
        .ok_or_else(|| format!("no kernel {kernel}"))?;
    let slots: HashMap<String, u128> = f
        .params
        .iter()
        .cloned()
        .zip(params.iter().copied())
        .collect();
    let [gx, gy, gz] = launch.grid;
    let [bx, by, bz] = launch.block;
    for cz in 0..gz {
        for cy in 0..gy {
            for cx in 0..gx {
                // Threads in linear order (x fastest), one warp at a time.
                let mut threads = Vec::new();
                for tz in 0..bz {
                    for ty in 0..by {
                        for tx in 0..bx {
                            threads.push(Thread {
                                lane: (threads.len() % 32) as u32,
                                tid: [tx, ty, tz],
                                ntid: launch.block,
                                ctaid: [cx, cy, cz],
                                nctaid: launch.grid,
                            });
                        }
                    }
                }
                for warp in threads.chunks(32) {
                    run_warp(m, f, &slots, warp, mem)?;
                }
            }
        }
    }
    Ok(())
}

/// Runs the threads of one warp one after another up to the next
/// `shfl.sync`, where the whole warp meets: the exchange is done for all
/// lanes at once, then they go on.
fn run_warp(
    m: &Module,
    f: &Function,
    slots: &HashMap<String, u128>,
    warp: &[Thread],
    mem: &mut Memory,
) -> Result<(), String> {
    let mut states: Vec<State> = warp
        .iter()
        .map(|_| State {
            regs: vec![0u64; f.n_regs],
            pc: 0,
            slots: slots.clone(),
            done: false,
        })
        .collect();
    loop {
        for (st, t) in states.iter_mut().zip(warp) {
            if !st.done {
                exec(m, f, st, t, mem, 0)?;
            }
        }
        let waiting = states.iter().filter(|s| !s.done).count();
        if waiting == 0 {
            return Ok(());
        }
        if waiting != states.len() || states.len() != 32 {
            return Err("shfl.sync with exited or missing lanes".into());
        }
        let pc = states[0].pc;
        if states.iter().any(|s| s.pc != pc) {
            return Err("lanes wait at different shfl.sync instructions".into());
        }
        let inst = &f.code[pc];
        let value = |st: &State, o: &Operand| match o {
            Operand::Reg(r) => st.regs[*r],
            Operand::Imm(v) => *v,
            _ => 0,
        };
        if !inst.op.contains(".down") {
            return Err(format!("unsupported {}", inst.op));
        }
        let sources: Vec<u64> = states.iter().map(|st| value(st, &inst.args[1])).collect();
        for (lane, st) in states.iter_mut().enumerate() {
            let offset = value(st, &inst.args[2]) as usize;
            let (d, p) = match inst.args[0] {
                Operand::Pair(d, p) => (d, Some(p)),
                Operand::Reg(d) => (d, None),
                _ => return Err("bad shfl destination".into()),
            };
            let src = lane + offset;
            let in_range = src < 32;
            st.regs[d] = mask(
                if in_range {
                    sources[src]
                } else {
                    sources[lane]
                },
                32,
            );
            if let Some(p) = p {
                st.regs[p] = in_range as u64;
            }
            st.pc += 1;
        }
    }
}

/// A thread's execution state, resumable at a `shfl.sync`.
pub(super) struct State {
    pub(super) regs: Vec<u64>,
    pub(super) pc: usize,
    pub(super) slots: HashMap<String, u128>,
    pub(super) done: bool,
}
