//! One thread's execution: the instruction dispatch.

use super::arith::{
    cmp_int, cvt, div_rz_f32, div_rz_f64, f32b, f32v, f64b, f64v, int_op, mask, sext, ty_of, width,
};
use super::parse::{Function, Module, Operand};
use super::races::Touch;
use super::{Memory, State, Thread};
use sdfg_compiler::ir::semantics::{max_number, min_number};
use std::collections::HashMap;

/// Runs thread `t` of function `f` from `st.pc` until it returns (`done`)
/// or reaches a `shfl.sync`, where `run_warp` exchanges the warp's values;
/// a `call` runs the callee to its end (`depth`: nested calls).
pub(super) fn exec(
    m: &Module,
    f: &Function,
    st: &mut State,
    t: &Thread,
    mem: &mut Memory,
    shared: &mut [u8],
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
        local,
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
        if f.code[pc].op.starts_with("shfl.sync") || f.code[pc].op.starts_with("bar.sync") {
            // The warp (shfl) or the block (bar) meets here (see run_warp,
            // run_block); guarded shfls and barriers are not emitted.
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
                // A `.shared` or `.local` variable: its address.
                Operand::Name(n) => f.symbols.get(n).copied().unwrap_or(0),
                _ => 0,
            }
        };
        if base_of(&inst.op) != "call"
            && inst
                .args
                .iter()
                .any(|o| matches!(o, Operand::Name(n) if !f.symbols.contains_key(n)))
        {
            return Err(format!("unparsed operand in `{}` {:?}", inst.op, inst.args));
        }
        let space = if inst.parts.iter().any(|p| p == "shared") {
            Space::Shared
        } else if inst.parts.iter().any(|p| p == "local") {
            Space::Local
        } else {
            Space::Global
        };
        let mut spaces = Spaces {
            mem: &mut *mem,
            shared: &mut *shared,
            local: &mut *local,
        };
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
            "ld" if matches!(
                (inst.args.first(), inst.args.get(1)),
                (Some(Operand::Vector(_)), Some(Operand::AddrParam(_)))
            ) =>
            {
                // A 16-byte parameter (a complex value): its parts.
                let (Some(Operand::Vector(rs)), Some(Operand::AddrParam(p))) =
                    (inst.args.first(), inst.args.get(1))
                else {
                    return Err("bad vector ld.param".into());
                };
                let v = *slots.get(p).ok_or_else(|| format!("no param {p}"))?;
                for (k, r) in rs.iter().enumerate() {
                    regs[*r] = mask((v >> (w * k as u32)) as u64, w);
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
                    if k == 0 && !addr.is_multiple_of(bytes * rs.len() as u64) {
                        return Err(format!("misaligned vector load at {addr:#x}"));
                    }
                    regs[*r] = spaces.load(space, addr, bytes as usize, Touch::Read)?;
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
                    if k == 0 && !addr.is_multiple_of(bytes * rs.len() as u64) {
                        return Err(format!("misaligned vector store at {addr:#x}"));
                    }
                    spaces.store(space, addr, bytes as usize, regs[*r])?;
                }
            }
            "ld" => {
                let addr_op = &inst.args[1];
                let v = match addr_op {
                    Operand::AddrParam(p) => {
                        *slots.get(p).ok_or_else(|| format!("no param {p}"))? as u64
                    }
                    Operand::AddrReg(r) => {
                        // The first load of a compare-and-swap loop is
                        // part of the atomic update (the swap checks it).
                        let touch = if starts_cas_loop(f, pc, *r) {
                            Touch::Atomic
                        } else {
                            Touch::Read
                        };
                        spaces.load(space, regs[*r], (w / 8) as usize, touch)?
                    }
                    _ => return Err("bad ld".into()),
                };
                // Narrow signed loads sign-extend into the (32-bit) register.
                let v = if signed && w < 32 {
                    mask(sext(mask(v, w), w) as u64, 32)
                } else {
                    mask(v, w)
                };
                set(regs, v);
            }
            "st" => {
                let v = a(1);
                match &inst.args[0] {
                    Operand::AddrParam(p) => {
                        slots.insert(p.clone(), v as u128);
                    }
                    Operand::AddrReg(r) => spaces.store(space, regs[*r], (w / 8) as usize, v)?,
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
                        "equ" => x == y || x.is_nan() || y.is_nan(),
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
                spaces.track(space, addr_reg, bytes as usize, Touch::Atomic)?;
                let old = spaces.read(space, addr_reg, bytes as usize)?;
                if let Space::Global = space {
                    spaces.mem.count_atomic(addr_reg);
                }
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
                spaces.write(space, addr_reg, bytes as usize, mask(new, w))?;
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
                    local: vec![0u8; callee.local_bytes],
                };
                exec(
                    m,
                    callee,
                    &mut callee_state,
                    t,
                    spaces.mem,
                    spaces.shared,
                    depth + 1,
                )?;
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

/// Whether the `ld` just executed (at `pc - 1`, address register `addr`)
/// loads the expected value of a compare-and-swap loop: a `cas` on the same
/// address register follows within a few instructions.
fn starts_cas_loop(f: &Function, pc: usize, addr: usize) -> bool {
    f.code[pc..f.code.len().min(pc + 24)].iter().any(|i| {
        i.op.starts_with("atom.")
            && i.op.contains(".cas.")
            && matches!(i.args.get(1), Some(Operand::AddrReg(r)) if *r == addr)
    })
}

/// The opcode without its suffixes (`ld` of `ld.global.f64`).
fn base_of(op: &str) -> &str {
    op.split('.').next().unwrap_or(op)
}

/// A state space of `ld`, `st`, `atom`, `red`.
#[derive(Clone, Copy)]
enum Space {
    Global,
    Shared,
    Local,
}

/// The memories one thread reaches.
struct Spaces<'m> {
    mem: &'m mut Memory,
    shared: &'m mut [u8],
    local: &'m mut [u8],
}

impl Spaces<'_> {
    fn bytes(&mut self, space: Space, addr: u64, len: usize) -> Result<&mut [u8], String> {
        let (data, name) = match space {
            Space::Shared => (&mut *self.shared, "shared"),
            Space::Local => (&mut *self.local, "local"),
            Space::Global => unreachable!("global memory is `Memory`"),
        };
        let at = usize::try_from(addr)
            .ok()
            .filter(|a| a.checked_add(len).is_some_and(|e| e <= data.len()));
        match at {
            Some(a) => Ok(&mut data[a..a + len]),
            None => Err(format!(
                "invalid {name} access at {addr:#x} ({len} bytes of {})",
                data.len()
            )),
        }
    }

    /// Logs an access for the block's race check (`.local` memory is the
    /// thread's own).
    fn track(&mut self, space: Space, addr: u64, len: usize, touch: Touch) -> Result<(), String> {
        match space {
            Space::Local => Ok(()),
            Space::Shared => self.mem.races.access(true, addr, len, touch),
            Space::Global => self.mem.races.access(false, addr, len, touch),
        }
    }

    /// A plain load (`touch`: how the race check sees it).
    fn load(&mut self, space: Space, addr: u64, len: usize, touch: Touch) -> Result<u64, String> {
        let v = self.read(space, addr, len)?;
        self.track(space, addr, len, touch)?;
        Ok(v)
    }

    /// A plain store.
    fn store(&mut self, space: Space, addr: u64, len: usize, v: u64) -> Result<(), String> {
        self.write(space, addr, len, v)?;
        self.track(space, addr, len, Touch::Write)
    }

    fn read(&mut self, space: Space, addr: u64, len: usize) -> Result<u64, String> {
        if let Space::Global = space {
            return self.mem.read(addr, len);
        }
        let s = self.bytes(space, addr, len)?;
        let mut b = [0u8; 8];
        b[..len].copy_from_slice(s);
        Ok(u64::from_le_bytes(b))
    }

    fn write(&mut self, space: Space, addr: u64, len: usize, v: u64) -> Result<(), String> {
        if let Space::Global = space {
            return self.mem.write(addr, len, v);
        }
        let s = self.bytes(space, addr, len)?;
        s.copy_from_slice(&v.to_le_bytes()[..len]);
        Ok(())
    }
}
