//! A small sequential interpreter for the PTX subset this backend emits, so
//! the generated kernels can be *run* without a GPU (threads one after
//! another up to the next warp exchange or block barrier; map iterations
//! are independent, atomics are trivially atomic). Global memory is
//! [`Memory`]; each block has its shared memory (the kernel's `.shared`
//! variables, then the launch's dynamic shared memory) and each thread its
//! `.local` memory.
//!
//! It checks the emitter's logic (registers, operand order, guards, loop
//! structure, launch geometry, call convention) against the evaluator. It
//! implements each instruction as this backend's author reads the PTX ISA,
//! so it cannot catch a misreading of the ISA itself: that needs the GPU.
//!
//! Since it runs threads in one order, where a GPU runs them in none, it
//! also reports two threads that touch one byte, one of them writing, with
//! nothing ordering them (`races`: threads of one block between two
//! barriers, threads of different blocks in one launch): a missing barrier
//! or a race the front end let through is an error here, not a lucky
//! result.

mod arith;
mod exec;
mod parse;
mod races;

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
    /// Executed `atom`/`red` instructions into global memory, per buffer
    /// (by base address): tests count how often a kernel updates a result.
    atomics: HashMap<u64, u64>,
    /// The running block's accesses, for its races.
    races: races::Tracker,
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
    /// Turns off the race check of blocks (`races`): for kernels whose
    /// iterations may meet by construction (SDFGs built without the front
    /// end's race test).
    pub fn allow_races(&mut self) {
        self.races.off = true;
    }
    /// The bytes of the buffer at `addr` (without the padding).
    pub fn bytes(&self, addr: u64) -> &[u8] {
        let (_, len, data) = self.buffers.iter().find(|b| b.0 == addr).expect("buffer");
        &data[..*len]
    }
    /// How many global atomics (`atom`, `red`) the kernels run so far
    /// executed on the buffer at `addr`.
    pub fn atomics(&self, addr: u64) -> u64 {
        self.atomics.get(&addr).copied().unwrap_or(0)
    }
    fn count_atomic(&mut self, addr: u64) {
        if let Some(&(base, _, _)) = self
            .buffers
            .iter()
            .find(|(b, _, d)| addr >= *b && addr < *b + d.len() as u64)
        {
            *self.atomics.entry(base).or_insert(0) += 1;
        }
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
    /// Dynamic shared memory per block, in bytes (after the static `.shared`
    /// variables of the kernel).
    pub shared_bytes: u32,
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
///
/// The threads of a block run warp by warp; a warp's threads run one after
/// another up to the next `shfl.sync` (where the whole warp meets and
/// exchanges) or `bar.sync` (where the whole block meets). Every thread of
/// the block must reach the same `bar.sync`: a barrier that some threads
/// skip, or that threads reach at different instructions, is an error
/// (on a GPU it hangs or is undefined).
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
    let shared_len = f.shared_bytes + launch.shared_bytes as usize;
    mem.races.start_launch();
    for cz in 0..gz {
        for cy in 0..gy {
            for cx in 0..gx {
                // Threads in linear order (x fastest), grouped in warps.
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
                let mut shared = vec![0u8; shared_len];
                mem.races.start_block();
                run_block(m, f, &slots, &threads, mem, &mut shared)?;
            }
        }
    }
    Ok(())
}

/// Runs one block: its warps up to the next barrier, the barrier, again.
fn run_block(
    m: &Module,
    f: &Function,
    slots: &HashMap<String, u128>,
    threads: &[Thread],
    mem: &mut Memory,
    shared: &mut [u8],
) -> Result<(), String> {
    let mut states: Vec<State> = threads
        .iter()
        .map(|_| State {
            regs: vec![0u64; f.n_regs],
            pc: 0,
            slots: slots.clone(),
            done: false,
            local: vec![0u8; f.local_bytes],
        })
        .collect();
    loop {
        for (warp, states) in threads.chunks(32).zip(states.chunks_mut(32)) {
            run_warp(m, f, warp, states, mem, shared)?;
        }
        let waiting: Vec<usize> = states.iter().filter(|s| !s.done).map(|s| s.pc).collect();
        if waiting.is_empty() {
            return Ok(());
        }
        if waiting.len() != states.len() {
            return Err(format!(
                "bar.sync reached by {} of {} threads (the others exited)",
                waiting.len(),
                states.len()
            ));
        }
        if waiting.iter().any(|&pc| pc != waiting[0]) {
            return Err("threads of a block wait at different bar.sync instructions".into());
        }
        for st in &mut states {
            st.pc += 1;
        }
        mem.races.barrier();
    }
}

/// Runs the threads of one warp one after another up to the next
/// `shfl.sync`, where the whole warp meets: the exchange is done for all
/// lanes at once, then they go on; returns when every thread is done or
/// waits at a `bar.sync`.
fn run_warp(
    m: &Module,
    f: &Function,
    warp: &[Thread],
    states: &mut [State],
    mem: &mut Memory,
    shared: &mut [u8],
) -> Result<(), String> {
    loop {
        for (st, t) in states.iter_mut().zip(warp) {
            if !st.done && !at_barrier(f, st) {
                mem.races.thread = t.tid[0] + t.ntid[0] * (t.tid[1] + t.ntid[1] * t.tid[2]);
                exec(m, f, st, t, mem, shared, 0)?;
            }
        }
        let live: Vec<&State> = states.iter().filter(|s| !s.done).collect();
        if live.is_empty() || live.iter().all(|s| at_barrier(f, s)) {
            return Ok(());
        }
        if live.len() != states.len() || states.len() != 32 {
            return Err("shfl.sync with exited or missing lanes".into());
        }
        let pc = states[0].pc;
        if states.iter().any(|s| s.pc != pc) {
            return Err("lanes wait at different shfl.sync (or bar.sync) instructions".into());
        }
        let inst = &f.code[pc];
        let value = |st: &State, o: &Operand| match o {
            Operand::Reg(r) => st.regs[*r],
            Operand::Imm(v) => *v,
            _ => 0,
        };
        let down = inst.op.contains(".down");
        if !down && !inst.op.contains(".bfly") {
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
            // down: lane + offset while in the warp; bfly: lane ^ offset
            // (with the clamp 31 always in the warp).
            let src = if down {
                lane + offset
            } else {
                lane ^ (offset & 31)
            };
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

fn at_barrier(f: &Function, st: &State) -> bool {
    f.code
        .get(st.pc)
        .is_some_and(|i| i.op.starts_with("bar.sync") || i.op.starts_with("barrier.sync"))
}

/// A thread's execution state, resumable at a `shfl.sync` or `bar.sync`.
pub(super) struct State {
    pub(super) regs: Vec<u64>,
    pub(super) pc: usize,
    pub(super) slots: HashMap<String, u128>,
    pub(super) done: bool,
    /// The thread's `.local` memory.
    pub(super) local: Vec<u8>,
}
