//! Parsing the PTX text into functions of instructions with decoded
//! operands (registers numbered per function, labels resolved).

use std::collections::HashMap;

#[derive(Clone, Debug)]
pub(super) enum Operand {
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
pub(super) struct Inst {
    pub(super) guard: Option<(bool, usize)>,
    pub(super) op: String,
    /// `op` split at '.', precomputed.
    pub(super) parts: Vec<String>,
    pub(super) args: Vec<Operand>,
}

#[derive(Clone, Debug, Default)]
pub(super) struct Function {
    pub(super) params: Vec<String>,
    pub(super) ret: Option<String>,
    pub(super) code: Vec<Inst>,
    pub(super) labels: HashMap<String, usize>,
    pub(super) n_regs: usize,
    /// Bytes of the `.shared` variables (dynamic shared memory follows,
    /// 16-byte aligned) and of the `.local` variables.
    pub(super) shared_bytes: usize,
    pub(super) local_bytes: usize,
    /// The address of each `.shared` / `.local` variable in its state space.
    pub(super) symbols: HashMap<String, u64>,
}

/// A parsed module.
pub struct Module {
    pub(super) functions: HashMap<String, Function>,
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

/// `.shared .align A .b8 NAME[BYTES];` (or `.local`, or `.extern .shared
/// ... NAME[];`): (name, alignment, bytes).
fn variable(line: &str) -> Option<(String, usize, usize)> {
    let l = line.trim_end_matches(';');
    let mut words = l.split_whitespace();
    let mut align = 1;
    let mut last = "";
    while let Some(w) = words.next() {
        if w == ".align" {
            align = words.next()?.parse().ok()?;
        }
        last = w;
    }
    let (name, rest) = last.split_once('[')?;
    let bytes = rest.trim_end_matches(']');
    let bytes = if bytes.is_empty() {
        0
    } else {
        bytes.parse().ok()?
    };
    Some((name.to_string(), align, bytes))
}

fn align_up(x: usize, a: usize) -> usize {
    x.div_ceil(a.max(1)) * a.max(1)
}

impl Module {
    pub fn parse(text: &str) -> Result<Module, String> {
        let mut functions = HashMap::new();
        let lines: Vec<&str> = text.lines().collect();
        let mut dynamic_shared: Option<String> = None;
        let mut k = 0;
        while k < lines.len() {
            let line = lines[k].trim();
            if line.starts_with(".extern .shared") {
                dynamic_shared = variable(line).map(|v| v.0);
                k += 1;
                continue;
            }
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
                    // `.param .align 16 .b8 name[16]`: the name.
                    let n = n.split('[').next().unwrap_or(n);
                    f.params.push(n.to_string());
                }
            }
            let mut regs: HashMap<String, usize> = HashMap::new();
            while k < lines.len() && lines[k].trim_end() != "}" {
                let raw = lines[k];
                k += 1;
                let l = raw.split("//").next().unwrap_or("").trim();
                if l.starts_with(".shared") || l.starts_with(".local") {
                    let (name, align, bytes) =
                        variable(l).ok_or_else(|| format!("bad declaration `{l}`"))?;
                    let end = if l.starts_with(".shared") {
                        &mut f.shared_bytes
                    } else {
                        &mut f.local_bytes
                    };
                    let at = align_up(*end, align);
                    f.symbols.insert(name, at as u64);
                    *end = at + bytes;
                    continue;
                }
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
            // Dynamic shared memory starts after the static variables.
            f.shared_bytes = align_up(f.shared_bytes, 16);
            if let Some(d) = &dynamic_shared {
                f.symbols.insert(d.clone(), f.shared_bytes as u64);
            }
            functions.insert(name, f);
        }
        Ok(Module { functions })
    }
}
