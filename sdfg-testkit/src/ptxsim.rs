//! A small sequential interpreter for the PTX subset this backend emits, so
//! the generated kernels can be *run* without a GPU (threads one after
//! another; map iterations are independent, atomics are trivially atomic).
//!
//! It checks the emitter's logic (registers, operand order, guards, loop
//! structure, launch geometry, call convention) against the evaluator. It
//! implements each instruction as this backend's author reads the PTX ISA,
//! so it cannot catch a misreading of the ISA itself: that needs the GPU.

use sdfg_compiler::ir::semantics::{max_number, min_number};
use std::collections::HashMap;

#[derive(Clone, Debug)]
enum Operand {
    Reg(usize),
    NotReg(usize),
    Imm(u64),
    /// `[reg]` or `[param]`
    AddrReg(usize),
    AddrParam(String),
    Special(String),
    Label(String),
    Name(String),
    List(Vec<String>),
    /// `{%f1, %f2, ...}` of a vector load or store.
    Vector(Vec<usize>),
    /// `%r1|%p2`: a result and a predicate (shfl).
    Pair(usize, usize),
}

#[derive(Clone, Debug)]
struct Inst {
    guard: Option<(bool, usize)>,
    op: String,
    /// `op` split at '.', precomputed.
    parts: Vec<String>,
    args: Vec<Operand>,
}

#[derive(Clone, Debug, Default)]
struct Function {
    params: Vec<String>,
    ret: Option<String>,
    code: Vec<Inst>,
    labels: HashMap<String, usize>,
    n_regs: usize,
}

/// A parsed module.
pub struct Module {
    functions: HashMap<String, Function>,
}

/// Global memory: buffers at fixed, far-apart base addresses.
#[derive(Default)]
pub struct Memory {
    buffers: Vec<(u64, Vec<u8>)>,
}

impl Memory {
    /// Adds a buffer; returns its device address.
    pub fn alloc(&mut self, bytes: Vec<u8>) -> u64 {
        let base = 0x1_0000_0000u64 * (self.buffers.len() as u64 + 1);
        self.buffers.push((base, bytes));
        base
    }
    pub fn bytes(&self, addr: u64) -> &[u8] {
        &self.buffers.iter().find(|b| b.0 == addr).expect("buffer").1
    }
    fn slot(&mut self, addr: u64, len: usize) -> Result<&mut [u8], String> {
        for (base, data) in &mut self.buffers {
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

fn parse_imm(t: &str) -> Option<u64> {
    if let Some(h) = t.strip_prefix("0f").or_else(|| t.strip_prefix("0d")) {
        return u64::from_str_radix(h, 16).ok();
    }
    if let Some(h) = t.strip_prefix("0x") {
        return u64::from_str_radix(h, 16).ok();
    }
    t.parse::<i64>()
        .map(|v| v as u64)
        .or_else(|_| t.parse::<u64>())
        .ok()
}

fn split_args(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for ch in s.chars() {
        match ch {
            '(' | '{' => {
                depth += 1;
                cur.push(ch)
            }
            ')' | '}' => {
                depth -= 1;
                cur.push(ch)
            }
            ',' if depth == 0 => out.push(std::mem::take(&mut cur).trim().to_string()),
            _ => cur.push(ch),
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

impl Module {
    pub fn parse(text: &str) -> Result<Module, String> {
        let mut functions = HashMap::new();
        let lines: Vec<&str> = text.lines().collect();
        let mut k = 0;
        while k < lines.len() {
            let line = lines[k].trim();
            let is_entry = line.starts_with(".visible .entry");
            let is_func = line.starts_with(".func");
            if !is_entry && !is_func {
                k += 1;
                continue;
            }
            // Header (possibly over several lines, up to the lone "{").
            let mut header = String::new();
            while lines[k].trim() != "{" {
                header.push_str(lines[k].trim());
                header.push(' ');
                k += 1;
            }
            k += 1;
            let mut f = Function::default();
            let (name, params_text) = if is_func {
                let after = header.trim_start_matches(".func").trim();
                let (ret_part, rest) = if after.starts_with('(') {
                    let close = after.find(')').unwrap_or(0);
                    (Some(&after[1..close]), after[close + 1..].trim())
                } else {
                    (None, after)
                };
                if let Some(r) = ret_part {
                    f.ret = r.split_whitespace().last().map(str::to_string);
                }
                let open = rest.find('(').unwrap_or(rest.len());
                (rest[..open].trim().to_string(), rest[open..].to_string())
            } else {
                let after = header.trim_start_matches(".visible .entry").trim();
                let open = after.find('(').unwrap_or(after.len());
                (after[..open].trim().to_string(), after[open..].to_string())
            };
            let inner = params_text.trim().trim_start_matches('(');
            let inner = inner.rsplit_once(')').map(|x| x.0).unwrap_or(inner);
            for p in inner.split(',') {
                if let Some(n) = p.split_whitespace().last() {
                    f.params.push(n.to_string());
                }
            }
            let mut regs: HashMap<String, usize> = HashMap::new();
            while k < lines.len() && lines[k].trim_end() != "}" {
                let raw = lines[k];
                k += 1;
                let l = raw.split("//").next().unwrap_or("").trim();
                if l.is_empty()
                    || l == "{"
                    || l == "}"
                    || l.starts_with(".reg")
                    || l.starts_with(".param")
                {
                    continue;
                }
                if let Some(label) = l.strip_suffix(':') {
                    f.labels.insert(label.to_string(), f.code.len());
                    continue;
                }
                let l = l.trim_end_matches(';');
                let (guard, rest) = if let Some(g) = l.strip_prefix('@') {
                    let (p, rest) = g.split_once(char::is_whitespace).ok_or("bad guard")?;
                    let neg = p.starts_with('!');
                    let p = p.trim_start_matches('!');
                    let n = regs.len();
                    let id = *regs.entry(p.to_string()).or_insert(n);
                    (Some((neg, id)), rest.trim())
                } else {
                    (None, l)
                };
                let (op, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                let mut operands = Vec::new();
                for a in split_args(args) {
                    let mut reg_id = |name: &str| {
                        let n = regs.len();
                        *regs.entry(name.to_string()).or_insert(n)
                    };
                    let o = if let Some(inner) = a.strip_prefix('{') {
                        Operand::Vector(
                            inner
                                .trim_end_matches('}')
                                .split(',')
                                .map(|r| reg_id(r.trim()))
                                .collect(),
                        )
                    } else if a.starts_with('(') {
                        Operand::List(
                            a.trim_matches(|c| c == '(' || c == ')')
                                .split(',')
                                .map(|s| s.trim().to_string())
                                .filter(|s| !s.is_empty())
                                .collect(),
                        )
                    } else if let Some(inner) = a.strip_prefix('[') {
                        let inner = inner.trim_end_matches(']');
                        if inner.starts_with('%') {
                            Operand::AddrReg(reg_id(inner))
                        } else {
                            Operand::AddrParam(inner.to_string())
                        }
                    } else if let Some((d, p)) = a.split_once('|') {
                        Operand::Pair(reg_id(d), reg_id(p))
                    } else if let Some(r) = a.strip_prefix('!') {
                        Operand::NotReg(reg_id(r))
                    } else if a.starts_with("%tid")
                        || a.starts_with("%laneid")
                        || a.starts_with("%ntid")
                        || a.starts_with("%ctaid")
                        || a.starts_with("%nctaid")
                    {
                        Operand::Special(a.clone())
                    } else if a.starts_with('%') {
                        Operand::Reg(reg_id(&a))
                    } else if a.starts_with('$') {
                        Operand::Label(a.clone())
                    } else if let Some(v) = parse_imm(&a) {
                        Operand::Imm(v)
                    } else {
                        Operand::Name(a.clone())
                    };
                    operands.push(o);
                }
                f.code.push(Inst {
                    guard,
                    parts: op.split('.').map(str::to_string).collect(),
                    op: op.to_string(),
                    args: operands,
                });
            }
            k += 1;
            f.n_regs = regs.len();
            functions.insert(name, f);
        }
        Ok(Module { functions })
    }
}

/// Launch dimensions.
#[derive(Clone, Copy, Debug)]
pub struct Launch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
}

struct Thread {
    lane: u32,
    tid: [u32; 3],
    ntid: [u32; 3],
    ctaid: [u32; 3],
    nctaid: [u32; 3],
}

/// Runs `kernel` for every thread of `launch`. `params`: raw bits per parameter.
pub fn run_kernel(
    m: &Module,
    kernel: &str,
    params: &[u64],
    launch: Launch,
    mem: &mut Memory,
) -> Result<(), String> {
    let f = m
        .functions
        .get(kernel)
        .ok_or_else(|| format!("no kernel {kernel}"))?;
    let slots: HashMap<String, u64> = f
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
    slots: &HashMap<String, u64>,
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
struct State {
    regs: Vec<u64>,
    pc: usize,
    slots: HashMap<String, u64>,
    done: bool,
}

fn ty_of(op: &str) -> &str {
    op.rsplit('.').next().unwrap_or("")
}

fn width(t: &str) -> u32 {
    match t {
        "u8" | "s8" | "b8" => 8,
        "u16" | "s16" | "b16" => 16,
        "u32" | "s32" | "b32" | "f32" => 32,
        "pred" => 1,
        _ => 64,
    }
}

fn mask(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

fn f32v(v: u64) -> f32 {
    f32::from_bits(v as u32)
}
fn f64v(v: u64) -> f64 {
    f64::from_bits(v)
}
fn f32b(x: f32) -> u64 {
    x.to_bits() as u64
}
fn f64b(x: f64) -> u64 {
    x.to_bits()
}

/// Division rounded toward zero (f64).
fn div_rz_f64(a: f64, b: f64) -> f64 {
    let q = a / b;
    if !q.is_finite() || q == 0.0 {
        return q;
    }
    // a - q b has the sign opposite to a exactly when |q| overshoots |a / b|.
    let r = (-q).mul_add(b, a);
    if r != 0.0 && (r < 0.0) != (a < 0.0) {
        f64::from_bits(q.to_bits() - 1)
    } else {
        q
    }
}

/// Division rounded toward zero (f32), via the exact-enough f64 quotient.
fn div_rz_f32(a: f32, b: f32) -> f32 {
    let q = div_rz_f64(a as f64, b as f64);
    let r = q as f32;
    if r.is_finite() && (r as f64).abs() > q.abs() {
        f32::from_bits(r.to_bits() - 1)
    } else {
        r
    }
}

fn exec(
    m: &Module,
    f: &Function,
    st: &mut State,
    t: &Thread,
    mem: &mut Memory,
    depth: u32,
) -> Result<(), String> {
    if depth > 8 {
        return Err("call depth".into());
    }
    let State {
        regs,
        pc: pc_slot,
        slots,
        done,
    } = st;
    let mut pc = *pc_slot;
    let mut steps = 0u64;
    loop {
        if pc >= f.code.len() {
            *done = true;
            *pc_slot = pc;
            return Ok(());
        }
        steps += 1;
        if steps > 50_000_000 {
            return Err("step limit (infinite loop?)".into());
        }
        if f.code[pc].op.starts_with("shfl.sync") {
            // The warp meets here (see run_warp); guarded shfls are not emitted.
            *pc_slot = pc;
            return Ok(());
        }
        let inst = &f.code[pc];
        pc += 1;
        if let Some((neg, p)) = inst.guard {
            if (regs[p] != 0) == neg {
                continue;
            }
        }
        let val = |regs: &Vec<u64>, o: &Operand| -> u64 {
            match o {
                Operand::Reg(r) => regs[*r],
                Operand::NotReg(r) => (regs[*r] == 0) as u64,
                Operand::Imm(v) => *v,
                Operand::Special(s) => {
                    if s == "%laneid" {
                        return t.lane as u64;
                    }
                    let (name, axis) = s.split_once('.').unwrap_or((s, "x"));
                    let i = match axis {
                        "x" => 0,
                        "y" => 1,
                        _ => 2,
                    };
                    (match name {
                        "%tid" => t.tid[i],
                        "%ntid" => t.ntid[i],
                        "%ctaid" => t.ctaid[i],
                        _ => t.nctaid[i],
                    }) as u64
                }
                _ => 0,
            }
        };
        if base_of(&inst.op) != "call" && inst.args.iter().any(|o| matches!(o, Operand::Name(_))) {
            return Err(format!("unparsed operand in `{}` {:?}", inst.op, inst.args));
        }
        let dst = match inst.args.first() {
            Some(Operand::Reg(r)) => Some(*r),
            _ => None,
        };
        let mut vals = [0u64; 4];
        for (k, o) in inst.args.iter().take(4).enumerate() {
            vals[k] = val(regs, o);
        }
        let a = |k: usize| vals.get(k).copied().unwrap_or(0);
        let parts: Vec<&str> = inst.parts.iter().map(String::as_str).collect();
        let base = parts[0];
        let ty = ty_of(&inst.op);
        let w = width(ty);
        let is_f32 = ty == "f32";
        let is_f64 = ty == "f64";
        let signed = ty.starts_with('s');
        let set = |regs: &mut Vec<u64>, v: u64| {
            if let Some(d) = dst {
                regs[d] = v;
            }
        };
        macro_rules! fbin {
            ($e32:expr, $e64:expr) => {{
                let r = if is_f32 {
                    let (x, y) = (f32v(a(1)), f32v(a(2)));
                    f32b($e32(x, y))
                } else {
                    let (x, y) = (f64v(a(1)), f64v(a(2)));
                    f64b($e64(x, y))
                };
                set(regs, r);
            }};
        }
        match base {
            "ret" => {
                *done = true;
                return Ok(());
            }
            "bra" => {
                if let Some(Operand::Label(l)) = inst.args.first() {
                    pc = *f.labels.get(l).ok_or_else(|| format!("no label {l}"))?;
                }
            }
            "ld" if matches!(inst.args.first(), Some(Operand::Vector(_))) => {
                let (Some(Operand::Vector(rs)), Some(Operand::AddrReg(ar))) =
                    (inst.args.first(), inst.args.get(1))
                else {
                    return Err("bad vector ld".into());
                };
                let bytes = (w / 8) as u64;
                for (k, r) in rs.iter().enumerate() {
                    let addr = regs[*ar] + k as u64 * bytes;
                    if k == 0 && addr % (bytes * rs.len() as u64) != 0 {
                        return Err(format!("misaligned vector load at {addr:#x}"));
                    }
                    regs[*r] = mem.read(addr, bytes as usize)?;
                }
            }
            "st" if matches!(inst.args.get(1), Some(Operand::Vector(_))) => {
                let (Some(Operand::AddrReg(ar)), Some(Operand::Vector(rs))) =
                    (inst.args.first(), inst.args.get(1))
                else {
                    return Err("bad vector st".into());
                };
                let bytes = (w / 8) as u64;
                for (k, r) in rs.iter().enumerate() {
                    let addr = regs[*ar] + k as u64 * bytes;
                    if k == 0 && addr % (bytes * rs.len() as u64) != 0 {
                        return Err(format!("misaligned vector store at {addr:#x}"));
                    }
                    mem.write(addr, bytes as usize, regs[*r])?;
                }
            }
            "ld" => {
                let addr_op = &inst.args[1];
                let v = match addr_op {
                    Operand::AddrParam(p) => {
                        *slots.get(p).ok_or_else(|| format!("no param {p}"))?
                    }
                    Operand::AddrReg(r) => mem.read(regs[*r], (w / 8) as usize)?,
                    _ => return Err("bad ld".into()),
                };
                set(regs, mask(v, w));
            }
            "st" => {
                let v = a(1);
                match &inst.args[0] {
                    Operand::AddrParam(p) => {
                        slots.insert(p.clone(), v);
                    }
                    Operand::AddrReg(r) => mem.write(regs[*r], (w / 8) as usize, v)?,
                    _ => return Err("bad st".into()),
                }
            }
            "mov" if matches!(inst.args.first(), Some(Operand::Vector(_))) => {
                // mov.b64 {lo, hi}, x: unpack
                if let Some(Operand::Vector(rs)) = inst.args.first() {
                    let x = a(1);
                    let half = 64 / rs.len() as u32;
                    for (k, r) in rs.iter().enumerate() {
                        regs[*r] = mask(x >> (half * k as u32), half);
                    }
                }
            }
            "mov" if matches!(inst.args.get(1), Some(Operand::Vector(_))) => {
                // mov.b64 x, {lo, hi}: pack
                if let Some(Operand::Vector(rs)) = inst.args.get(1) {
                    let half = 64 / rs.len() as u32;
                    let mut x = 0u64;
                    for (k, r) in rs.iter().enumerate() {
                        x |= mask(regs[*r], half) << (half * k as u32);
                    }
                    set(regs, x);
                }
            }
            "cvta" | "mov" => set(regs, a(1)),
            "add" | "sub" if is_f32 || is_f64 => {
                if base == "add" {
                    fbin!(|x: f32, y: f32| x + y, |x: f64, y: f64| x + y)
                } else {
                    fbin!(|x: f32, y: f32| x - y, |x: f64, y: f64| x - y)
                }
            }
            "mul" if is_f32 || is_f64 => fbin!(|x: f32, y: f32| x * y, |x: f64, y: f64| x * y),
            "div" if is_f32 || is_f64 => {
                if parts.get(1) == Some(&"rz") {
                    fbin!(|x: f32, y: f32| div_rz_f32(x, y), |x: f64, y: f64| {
                        div_rz_f64(x, y)
                    })
                } else {
                    fbin!(|x: f32, y: f32| x / y, |x: f64, y: f64| x / y)
                }
            }
            "min" if is_f32 || is_f64 => {
                // PTX orders -0.0 below +0.0 and ignores a NaN operand.
                fbin!(
                    |x: f32, y: f32| min_number(x as f64, y as f64) as f32,
                    min_number
                )
            }
            "max" if is_f32 || is_f64 => {
                fbin!(
                    |x: f32, y: f32| max_number(x as f64, y as f64) as f32,
                    max_number
                )
            }
            "copysign" => fbin!(|x: f32, y: f32| y.copysign(x), |x: f64, y: f64| y
                .copysign(x)),
            "fma" => {
                let r = if is_f32 {
                    f32b(f32v(a(1)).mul_add(f32v(a(2)), f32v(a(3))))
                } else {
                    f64b(f64v(a(1)).mul_add(f64v(a(2)), f64v(a(3))))
                };
                set(regs, r);
            }
            "neg" | "abs" | "sqrt" | "rcp" if is_f32 || is_f64 => {
                let r = if is_f32 {
                    let x = f32v(a(1));
                    f32b(match base {
                        "neg" => -x,
                        "abs" => x.abs(),
                        "sqrt" => x.sqrt(),
                        _ => 1.0 / x,
                    })
                } else {
                    let x = f64v(a(1));
                    f64b(match base {
                        "neg" => -x,
                        "abs" => x.abs(),
                        "sqrt" => x.sqrt(),
                        _ => 1.0 / x,
                    })
                };
                set(regs, r);
            }
            "testp" => {
                let x = if is_f32 {
                    f32v(a(1)) as f64
                } else {
                    f64v(a(1))
                };
                let r = match parts[1] {
                    "notanumber" => x.is_nan(),
                    "infinite" => x.is_infinite(),
                    "finite" => x.is_finite(),
                    _ => false,
                };
                set(regs, r as u64);
            }
            "clz" => {
                let v = mask(a(1), w);
                set(regs, (v.leading_zeros() - (64 - w)) as u64);
            }
            "add" | "sub" | "mul" | "mad" | "div" | "rem" | "neg" | "not" | "and" | "or"
            | "xor" | "shl" | "shr" | "min" | "max" | "abs" => {
                let r = int_op(base, &parts, ty, a(1), a(2), a(3));
                set(regs, r);
            }
            "selp" => {
                let v = if a(3) != 0 { a(1) } else { a(2) };
                set(regs, v);
            }
            "setp" => {
                let cmp = parts[1];
                let r = if is_f32 || is_f64 {
                    let (x, y) = if is_f32 {
                        (f32v(a(1)) as f64, f32v(a(2)) as f64)
                    } else {
                        (f64v(a(1)), f64v(a(2)))
                    };
                    match cmp {
                        "eq" => x == y,
                        // Ordered: false when either is NaN (not `x != y`).
                        "ne" => !x.is_nan() && !y.is_nan() && x != y,
                        "neu" => x != y,
                        "lt" => x < y,
                        "le" => x <= y,
                        "gt" => x > y,
                        "ge" => x >= y,
                        "nan" => x.is_nan() || y.is_nan(),
                        _ => return Err(format!("setp {cmp}")),
                    }
                } else {
                    let (x, y) = (mask(a(1), w), mask(a(2), w));
                    if signed {
                        let (x, y) = (sext(x, w), sext(y, w));
                        cmp_int(cmp, x.cmp(&y))
                    } else {
                        cmp_int(cmp, x.cmp(&y))
                    }
                };
                // setp.cmp.boolop.type d, a, b, c: d = (a cmp b) boolop c.
                let r = match parts.get(2).copied() {
                    Some("and") if parts.len() == 4 => r && a(3) != 0,
                    Some("or") if parts.len() == 4 => r || a(3) != 0,
                    Some("xor") if parts.len() == 4 => r ^ (a(3) != 0),
                    _ => r,
                };
                set(regs, r as u64);
            }
            "cvt" => {
                let r = cvt(&parts, a(1));
                set(regs, r);
            }
            "red" | "atom" => {
                let addr_reg = inst
                    .args
                    .iter()
                    .find_map(|o| match o {
                        Operand::AddrReg(r) => Some(regs[*r]),
                        _ => None,
                    })
                    .ok_or("atomic without address")?;
                let (first_val, bytes) = if base == "red" {
                    (1, w / 8)
                } else {
                    (2, w / 8)
                };
                let old = mem.read(addr_reg, bytes as usize)?;
                let v = a(first_val);
                let op = parts[parts.len() - 2];
                let new = match op {
                    "cas" => {
                        if mask(old, w) == mask(a(2), w) {
                            a(3)
                        } else {
                            old
                        }
                    }
                    "add" if is_f32 => f32b(f32v(old) + f32v(v)),
                    "add" if is_f64 => f64b(f64v(old) + f64v(v)),
                    _ => int_op(op, &parts, ty, old, v, 0),
                };
                mem.write(addr_reg, bytes as usize, mask(new, w))?;
                if base == "atom" {
                    set(regs, old);
                }
            }
            "call" => {
                let ret_slot = match &inst.args[0] {
                    Operand::List(l) => l.first().cloned(),
                    _ => None,
                };
                let name = match &inst.args[1] {
                    Operand::Name(n) => n.clone(),
                    _ => return Err("bad call".into()),
                };
                let args = match inst.args.get(2) {
                    Some(Operand::List(l)) => l.clone(),
                    _ => vec![],
                };
                let callee = m
                    .functions
                    .get(&name)
                    .ok_or_else(|| format!("no func {name}"))?;
                let mut callee_slots = HashMap::new();
                for (p, arg) in callee.params.iter().zip(&args) {
                    callee_slots.insert(p.clone(), *slots.get(arg).unwrap_or(&0));
                }
                let mut callee_state = State {
                    regs: vec![0u64; callee.n_regs],
                    pc: 0,
                    slots: callee_slots,
                    done: false,
                };
                exec(m, callee, &mut callee_state, t, mem, depth + 1)?;
                if !callee_state.done {
                    return Err(format!("shfl.sync inside {name}"));
                }
                if let (Some(rs), Some(cr)) = (ret_slot, &callee.ret) {
                    slots.insert(rs, *callee_state.slots.get(cr).unwrap_or(&0));
                }
            }
            _ => return Err(format!("unsupported instruction {}", inst.op)),
        }
    }
}

fn cmp_int(cmp: &str, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match cmp {
        "eq" => o == Equal,
        "ne" => o != Equal,
        "lt" => o == Less,
        "le" => o != Greater,
        "gt" => o == Greater,
        _ => o != Less,
    }
}

fn int_op(base: &str, parts: &[&str], ty: &str, x: u64, y: u64, z: u64) -> u64 {
    if ty == "pred" {
        let (x, y) = (x != 0, y != 0);
        return (match base {
            "and" => x && y,
            "or" => x || y,
            "xor" => x ^ y,
            "not" => !x,
            _ => x,
        }) as u64;
    }
    let w = width(ty);
    let signed = ty.starts_with('s');
    // mul.wide: source width is the type's, result twice as wide.
    if base == "mul" && parts.get(1) == Some(&"wide") {
        return if signed {
            (sext(x, w) * sext(y, w)) as u64
        } else {
            mask(x, w) * mask(y, w)
        };
    }
    if base == "mul" && parts.get(1) == Some(&"hi") {
        return if signed {
            mask(((sext(x, w) as i128 * sext(y, w) as i128) >> w) as u64, w)
        } else {
            mask(((mask(x, w) as u128 * mask(y, w) as u128) >> w) as u64, w)
        };
    }
    let (xs, ys) = (sext(x, w), sext(y, w));
    let (xu, yu) = (mask(x, w), mask(y, w));
    let r = match base {
        "add" => xu.wrapping_add(yu),
        "sub" => xu.wrapping_sub(yu),
        "mul" => xu.wrapping_mul(yu),
        "mad" => xu.wrapping_mul(yu).wrapping_add(mask(z, w)),
        "div" if signed => {
            if ys == 0 {
                0xDEAD
            } else {
                xs.wrapping_div(ys) as u64
            }
        }
        "div" => xu.checked_div(yu).unwrap_or(0xDEAD),
        "rem" if signed => {
            if ys == 0 {
                0xDEAD
            } else {
                xs.wrapping_rem(ys) as u64
            }
        }
        "rem" => {
            if yu == 0 {
                0xDEAD
            } else {
                xu % yu
            }
        }
        "neg" => (xs.wrapping_neg()) as u64,
        "not" => !xu,
        "and" => xu & yu,
        "or" => xu | yu,
        "xor" => xu ^ yu,
        "shl" => {
            if yu >= w as u64 {
                0
            } else {
                xu << yu
            }
        }
        "shr" if signed => (xs >> yu.min(w as u64 - 1)) as u64,
        "shr" => {
            if yu >= w as u64 {
                0
            } else {
                xu >> yu
            }
        }
        "min" if signed => xs.min(ys) as u64,
        "max" if signed => xs.max(ys) as u64,
        "min" => xu.min(yu),
        "max" => xu.max(yu),
        "abs" => xs.wrapping_abs() as u64,
        _ => 0,
    };
    mask(r, w)
}

fn cvt(parts: &[&str], v: u64) -> u64 {
    // cvt[.rnd].dst.src
    let n = parts.len();
    let (dst, src) = (parts[n - 2], parts[n - 1]);
    let rnd = if n == 4 { parts[1] } else { "" };
    let ws = width(src);
    let wd = width(dst);
    let src_float = src.starts_with('f');
    let dst_float = dst.starts_with('f');
    let x: f64 = if src == "f32" {
        f32v(v) as f64
    } else {
        f64v(v)
    };
    if src_float && dst_float {
        let r = match rnd {
            "rni" => x.round_ties_even(),
            "rmi" => x.floor(),
            "rpi" => x.ceil(),
            "rzi" => x.trunc(),
            _ => x,
        };
        return if dst == "f32" {
            if src == "f64" && rnd == "rn" {
                f32b(f64v(v) as f32)
            } else {
                f32b(r as f32)
            }
        } else {
            f64b(r)
        };
    }
    if src_float {
        let t = x.trunc();
        let r: u64 = match dst {
            "s32" => (t as i32) as u32 as u64,
            "u32" => (t as u32) as u64,
            "s64" => (t as i64) as u64,
            _ => t as u64,
        };
        // f32 sources: converting f32 -> f64 first is exact, so `as` matches.
        return r;
    }
    if dst_float {
        let signed = src.starts_with('s');
        let val = mask(v, ws);
        return match (dst, signed) {
            ("f32", true) => f32b(sext(val, ws) as f32),
            ("f32", false) => f32b(val as f32),
            ("f64", true) => f64b(sext(val, ws) as f64),
            _ => f64b(val as f64),
        };
    }
    // Integer <-> integer: extend by the source's signedness, then truncate.
    let ext = if src.starts_with('s') {
        sext(mask(v, ws), ws) as u64
    } else {
        mask(v, ws)
    };
    mask(ext, wd)
}

fn base_of(op: &str) -> &str {
    op.split('.').next().unwrap_or(op)
}
