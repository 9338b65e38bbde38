//! One tasklet's code as tasklet-language statements: every connector is
//! replaced by the data its memlet names (`__out = __in1 + __in2` with
//! memlets `A[i]`, `B[i]` -> `C[i]` is `C[i] = A[i] + B[i];`), a memlet
//! with write-conflict resolution makes the store a reduction (`+=`,
//! `.min()`, `.max()`, `*=`), and a connector bound to a temporary of the
//! map's scope is a local.

use super::code::{CodeExpr, CodeStmt, Target};
use super::typing::{float_literal, int_literal, Emitter, Meaning, Ty};
use crate::ir::{BinOp, ScalarType, WcrOp};
use std::collections::{HashMap, HashSet};

/// What a connector of the tasklet is bound to.
#[derive(Clone, Debug)]
pub(crate) enum Port {
    /// An input: reading it reads this.
    In(Meaning),
    /// An output of one element (`text`), with its reduction.
    OutElement {
        text: String,
        ty: ScalarType,
        wcr: Option<WcrOp>,
    },
    /// An output covering part of a container (`Meaning::Array`) the code indexes.
    OutArray {
        meaning: Meaning,
        wcr: Option<WcrOp>,
    },
    /// An output into a temporary of the map's scope (a local of the body).
    OutLocal { name: String, ty: ScalarType },
}

/// The context one tasklet is translated in.
pub(crate) struct TaskletCx<'a> {
    /// The tasklet's connectors.
    pub ports: &'a HashMap<String, Port>,
    /// Symbols, map parameters and the scope's temporaries.
    pub outer: &'a dyn Fn(&str) -> Option<Meaning>,
    /// Names a local must not take (containers, map parameters).
    pub taken: &'a HashSet<String>,
    /// Temporaries of the enclosing body already declared.
    pub temps_declared: &'a mut HashSet<String>,
    /// Declarations the enclosing body must make at its start.
    pub predeclare: &'a mut Vec<String>,
    /// C++ code (declarations are explicit) rather than Python.
    pub cpp: bool,
}

struct Local {
    name: String,
    ty: ScalarType,
}

struct Translator<'c, 'a> {
    cx: &'c mut TaskletCx<'a>,
    scopes: Vec<HashMap<String, Local>>,
    /// Names assigned somewhere (not declared): how often, and whether
    /// under `if`/`for` (their locals are `mut`).
    assigned: HashMap<String, (usize, bool)>,
    /// Declaration names in order (C++), to undo the exporter's renaming.
    declared_order: Vec<String>,
    declared_count: usize,
    /// Python locals declared at the tasklet's start.
    hoisted: Vec<String>,
    errors: Vec<String>,
    depth: usize,
}

/// Translates a tasklet's code; the lines are indented by `indent` spaces.
/// Errors are phrased to follow the tasklet's name.
pub(crate) fn translate(
    cx: &mut TaskletCx,
    code: &[CodeStmt],
    indent: usize,
) -> Result<Vec<String>, Vec<String>> {
    let mut t = Translator {
        cx,
        scopes: vec![HashMap::new()],
        assigned: HashMap::new(),
        declared_order: Vec::new(),
        declared_count: 0,
        hoisted: Vec::new(),
        errors: Vec::new(),
        depth: 0,
    };
    for s in code {
        t.prescan(s, 0);
    }
    t.check_reduction_outputs(code);
    let mut lines = Vec::new();
    for s in code {
        t.stmt(s, indent, &mut lines);
    }
    if !t.errors.is_empty() {
        let mut errors = t.errors;
        errors.dedup();
        return Err(errors);
    }
    let pad = " ".repeat(indent);
    let mut out: Vec<String> = t.hoisted.iter().map(|h| format!("{pad}{h}")).collect();
    out.extend(lines);
    Ok(out)
}

fn zero(t: ScalarType) -> String {
    match t {
        ScalarType::Bool => "false".to_string(),
        t if t.is_float() => float_literal(0.0, t),
        t => int_literal(0, false, t).unwrap_or_default(),
    }
}

impl Translator<'_, '_> {
    fn prescan(&mut self, s: &CodeStmt, depth: usize) {
        match s {
            CodeStmt::Assign { target, .. } => {
                let entry = self
                    .assigned
                    .entry(target.name().to_string())
                    .or_insert((0, false));
                entry.0 += 1;
                entry.1 |= depth > 0;
            }
            CodeStmt::Declare { name, .. } => self.declared_order.push(name.clone()),
            CodeStmt::If { then, else_, .. } => {
                for x in then.iter().chain(else_) {
                    self.prescan(x, depth + 1);
                }
            }
            CodeStmt::For { var, body, .. } => {
                self.declared_order.push(var.clone());
                for x in body {
                    self.prescan(x, depth + 1);
                }
            }
            CodeStmt::While { body, .. } => {
                for x in body {
                    self.prescan(x, depth + 1);
                }
            }
            CodeStmt::Block(b) => b.iter().for_each(|x| self.prescan(x, depth)),
            CodeStmt::AtomicReduce { .. } | CodeStmt::Break | CodeStmt::Continue => {}
        }
    }

    /// A reduction output may be written once and never read (DaCe reduces
    /// the connector's final value once).
    fn check_reduction_outputs(&mut self, code: &[CodeStmt]) {
        let mut read = Vec::new();
        collect_reads(code, &mut read);
        for (name, port) in self.cx.ports.iter() {
            let wcr = matches!(
                port,
                Port::OutElement { wcr: Some(_), .. } | Port::OutArray { wcr: Some(_), .. }
            );
            if !wcr {
                continue;
            }
            if read.contains(name) {
                self.errors.push(format!(
                    "reads its output connector `{name}`, whose memlet reduces (write-conflict resolution)"
                ));
            }
            if matches!(port, Port::OutElement { .. })
                && self.assigned.get(name).is_some_and(|a| a.0 > 1)
            {
                self.errors.push(format!(
                    "assigns its reducing output connector `{name}` more than once (DaCe reduces the last value, sdfg-rs would reduce each)"
                ));
            }
        }
    }

    fn local(&self, name: &str) -> Option<&Local> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn lookup(&self, name: &str) -> Option<Meaning> {
        if let Some(l) = self.local(name) {
            return Some(Meaning::Value {
                text: l.name.clone(),
                ty: l.ty,
            });
        }
        match self.cx.ports.get(name) {
            Some(Port::In(m)) => Some(m.clone()),
            Some(Port::OutElement { text, ty, .. }) => Some(Meaning::Value {
                text: text.clone(),
                ty: *ty,
            }),
            Some(Port::OutArray { meaning, .. }) => Some(meaning.clone()),
            Some(Port::OutLocal { name, ty }) => Some(Meaning::Value {
                text: name.clone(),
                ty: *ty,
            }),
            None => (self.cx.outer)(name),
        }
    }

    /// Text of `e` at type `want`.
    fn emit(&mut self, e: &CodeExpr, want: Option<ScalarType>) -> (String, ScalarType) {
        let lookup = |n: &str| self.lookup(n);
        let mut em = Emitter {
            lookup: &lookup,
            adapt_floats: false,
            errors: Vec::new(),
        };
        let text = em.emit(e, want);
        let ty = match want {
            Some(t) => t,
            None => match em.infer(e) {
                Ty::Known(t) => t,
                Ty::FlexInt => ScalarType::I32,
                Ty::FlexFloat => ScalarType::F64,
            },
        };
        let errors = em.errors;
        self.errors.extend(errors);
        (text, ty)
    }

    /// The name a new local gets: free in the SDFG's namespace, without the
    /// exporter's `_N` suffix where that was added to keep C++ names unique.
    fn local_name(&mut self, name: &str) -> String {
        let position = self.declared_count;
        self.declared_count += 1;
        let mut base = super::names::identifier(name);
        if self.cx.cpp {
            if let Some((stem, n)) = name.rsplit_once('_') {
                let renamed_by_exporter =
                    n.parse::<usize>() == Ok(position)
                        && !stem.is_empty()
                        && (crate::dace_format::CPP_RESERVED.contains(&stem)
                            || self.declared_order.iter().enumerate().any(|(i, other)| {
                                i != position && *other == format!("{stem}_{i}")
                            }));
                if renamed_by_exporter {
                    base = super::names::identifier(stem);
                }
            }
        }
        let mut out = base.clone();
        let mut k = 1;
        while self.cx.taken.contains(&out) || self.cx.ports.contains_key(&out) {
            out = format!("{base}_{k}");
            k += 1;
        }
        out
    }

    fn declare(&mut self, code_name: &str, ty: ScalarType) -> String {
        let name = self.local_name(code_name);
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(
                code_name.to_string(),
                Local {
                    name: name.clone(),
                    ty,
                },
            );
        }
        name
    }

    fn stmt(&mut self, s: &CodeStmt, indent: usize, out: &mut Vec<String>) {
        let pad = " ".repeat(indent);
        match s {
            CodeStmt::Declare { ty, name, value } => {
                let (text, ty) = match (value, ty) {
                    (Some(v), t) => self.emit(v, *t),
                    (None, Some(t)) => (zero(*t), *t),
                    (None, None) => {
                        self.errors
                            .push(format!("declares `{name}` with `auto` and no value"));
                        return;
                    }
                };
                let mutable = self.assigned.contains_key(name);
                let dsl = self.declare(name, ty);
                let m = if mutable { "mut " } else { "" };
                let text = super::typing::strip_outer_parens(text);
                out.push(format!("{pad}let {m}{dsl}: {ty} = {text};"));
            }
            CodeStmt::Assign { target, op, value } => self.assign(target, *op, value, &pad, out),
            CodeStmt::AtomicReduce {
                connector,
                offset,
                op,
                value,
            } => {
                // A reduction into one element through a pointer (our
                // exporter's form of a conditional reduction into a scalar).
                if let Some(Port::OutElement { text, ty, .. }) =
                    self.cx.ports.get(connector).cloned()
                {
                    if super::typing::is_literal_zero(offset) {
                        let (v, _) = self.emit(value, Some(ty));
                        out.push(format!("{pad}{};", reduction(&text, *op, &v)));
                        return;
                    }
                }
                let Some(Port::OutArray { meaning, .. }) = self.cx.ports.get(connector).cloned()
                else {
                    self.errors.push(format!(
                        "reduces through `{connector}`, which is not an output connector of several elements"
                    ));
                    return;
                };
                let Meaning::Array { elem, .. } = &meaning else {
                    return;
                };
                let elem = *elem;
                let (target, _) = self.emit(
                    &CodeExpr::Index(connector.clone(), vec![offset.clone()]),
                    None,
                );
                let (v, _) = self.emit(value, Some(elem));
                out.push(format!("{pad}{};", reduction(&target, *op, &v)));
            }
            CodeStmt::If { cond, then, else_ } => {
                let (c, _) = self.emit(cond, Some(ScalarType::Bool));
                let c = super::typing::strip_outer_parens(c);
                out.push(format!("{pad}if {c} {{"));
                self.block(then, indent + 4, out);
                if !else_.is_empty() {
                    // `else if` stays a chain.
                    if let [inner @ CodeStmt::If { .. }] = else_.as_slice() {
                        let mut nested = Vec::new();
                        self.depth += 1;
                        self.stmt(inner, indent, &mut nested);
                        self.depth -= 1;
                        if let Some(first) = nested.first_mut() {
                            *first = format!("{pad}}} else {}", first.trim_start());
                        }
                        out.extend(nested);
                        return;
                    }
                    out.push(format!("{pad}}} else {{"));
                    self.block(else_, indent + 4, out);
                }
                out.push(format!("{pad}}}"));
            }
            CodeStmt::For {
                var,
                ty,
                start,
                end,
                step,
                body,
            } => {
                let lookup_ty = {
                    let lookup = |n: &str| self.lookup(n);
                    let mut em = Emitter {
                        lookup: &lookup,
                        adapt_floats: false,
                        errors: Vec::new(),
                    };
                    let (a, b) = (em.infer(start), em.infer(end));
                    match (a, b, ty) {
                        (_, _, Some(t)) => *t,
                        (Ty::Known(x), Ty::Known(y), None) => super::typing::promote(x, y),
                        (Ty::Known(x), _, None) | (_, Ty::Known(x), None) => x,
                        _ => ScalarType::I64,
                    }
                };
                let (s, _) = self.emit(start, Some(lookup_ty));
                let (e, _) = self.emit(end, Some(lookup_ty));
                let range = match step {
                    None => format!("{s}..{e}"),
                    Some(st) => {
                        let (st, _) = self.emit(st, Some(lookup_ty));
                        format!(
                            "({s}..{e}).step_by({})",
                            super::typing::strip_outer_parens(st)
                        )
                    }
                };
                self.scopes.push(HashMap::new());
                let dsl = self.declare(var, lookup_ty);
                out.push(format!("{pad}for {dsl} in {range} {{"));
                self.depth += 1;
                for x in body {
                    self.stmt(x, indent + 4, out);
                }
                self.depth -= 1;
                self.scopes.pop();
                out.push(format!("{pad}}}"));
            }
            CodeStmt::While { cond, body } => {
                let (c, _) = self.emit(cond, Some(ScalarType::Bool));
                let c = super::typing::strip_outer_parens(c);
                out.push(format!("{pad}while {c} {{"));
                self.block(body, indent + 4, out);
                out.push(format!("{pad}}}"));
            }
            CodeStmt::Break => out.push(format!("{pad}break;")),
            CodeStmt::Continue => out.push(format!("{pad}continue;")),
            CodeStmt::Block(b) => {
                out.push(format!("{pad}{{"));
                self.block(b, indent + 4, out);
                out.push(format!("{pad}}}"));
            }
        }
    }

    fn block(&mut self, stmts: &[CodeStmt], indent: usize, out: &mut Vec<String>) {
        self.scopes.push(HashMap::new());
        self.depth += 1;
        for s in stmts {
            self.stmt(s, indent, out);
        }
        self.depth -= 1;
        self.scopes.pop();
    }

    fn assign(
        &mut self,
        target: &Target,
        op: Option<BinOp>,
        value: &CodeExpr,
        pad: &str,
        out: &mut Vec<String>,
    ) {
        let name = target.name();
        // `x op= v` is `x = x op v` (an output connector's old value is the data's).
        let value = match op {
            Some(op) => {
                let current = match target {
                    Target::Name(n) => CodeExpr::Name(n.clone()),
                    Target::Index(n, i) => CodeExpr::Index(n.clone(), i.clone()),
                };
                CodeExpr::Binary(op, Box::new(current), Box::new(value.clone()))
            }
            None => value.clone(),
        };
        if let Some(local) = self.local(name) {
            let (dsl, ty) = (local.name.clone(), local.ty);
            if matches!(target, Target::Index(..)) {
                self.errors.push(format!("indexes the local `{name}`"));
                return;
            }
            let (v, _) = self.emit(&value, Some(ty));
            out.push(format!(
                "{pad}{dsl} = {};",
                super::typing::strip_outer_parens(v)
            ));
            return;
        }
        match (self.cx.ports.get(name).cloned(), target) {
            (Some(Port::OutElement { text, ty, wcr }), Target::Name(_)) => {
                let (v, _) = self.emit(&value, Some(ty));
                match wcr {
                    Some(op) => out.push(format!("{pad}{};", reduction(&text, op, &v))),
                    None => out.push(format!(
                        "{pad}{text} = {};",
                        super::typing::strip_outer_parens(v)
                    )),
                }
            }
            (Some(Port::OutArray { meaning, wcr }), Target::Index(_, idx)) => {
                let Meaning::Array { elem, .. } = &meaning else {
                    return;
                };
                let elem = *elem;
                let (t, _) = self.emit(&CodeExpr::Index(name.to_string(), idx.clone()), None);
                let (v, _) = self.emit(&value, Some(elem));
                match wcr {
                    Some(op) => out.push(format!("{pad}{};", reduction(&t, op, &v))),
                    None => out.push(format!(
                        "{pad}{t} = {};",
                        super::typing::strip_outer_parens(v)
                    )),
                }
            }
            (Some(Port::OutLocal { name: local, ty }), Target::Name(_)) => {
                let (v, _) = self.emit(&value, Some(ty));
                let v = super::typing::strip_outer_parens(v);
                if self.cx.temps_declared.contains(&local) {
                    out.push(format!("{pad}{local} = {v};"));
                } else if self.depth == 0 && self.assigned.get(name) == Some(&(1, false)) {
                    self.cx.temps_declared.insert(local.clone());
                    out.push(format!("{pad}let {local}: {ty} = {v};"));
                } else {
                    self.cx.temps_declared.insert(local.clone());
                    self.cx
                        .predeclare
                        .push(format!("let mut {local}: {ty} = {};", zero(ty)));
                    out.push(format!("{pad}{local} = {v};"));
                }
            }
            (Some(Port::In(_)), _) => self
                .errors
                .push(format!("assigns its input connector `{name}`")),
            (Some(_), _) => self.errors.push(format!(
                "assigns `{name}` in a form that does not match its memlet"
            )),
            (None, Target::Index(..)) => self.errors.push(format!(
                "assigns an element of `{name}`, which is not an output connector"
            )),
            (None, Target::Name(_)) if self.cx.cpp => self
                .errors
                .push(format!("assigns `{name}`, which is not declared")),
            (None, Target::Name(_)) => {
                // A Python local: `let` where it is assigned once at the top
                // level, else declared mutable at the tasklet's start.
                let (v, ty) = self.emit(&value, None);
                let v = super::typing::strip_outer_parens(v);
                let once = self.depth == 0 && self.assigned.get(name) == Some(&(1, false));
                let dsl = self.declare_function_local(name, ty);
                if once {
                    out.push(format!("{pad}let {dsl}: {ty} = {v};"));
                } else {
                    self.hoisted
                        .push(format!("let mut {dsl}: {ty} = {};", zero(ty)));
                    out.push(format!("{pad}{dsl} = {v};"));
                }
            }
        }
    }

    /// A Python local lives until the tasklet ends (Python scoping).
    fn declare_function_local(&mut self, code_name: &str, ty: ScalarType) -> String {
        let name = self.local_name(code_name);
        if let Some(scope) = self.scopes.first_mut() {
            scope.insert(
                code_name.to_string(),
                Local {
                    name: name.clone(),
                    ty,
                },
            );
        }
        name
    }
}

/// `target op= value` in the tasklet language's reduction forms.
fn reduction(target: &str, op: WcrOp, value: &str) -> String {
    let v = super::typing::strip_outer_parens(value.to_string());
    match op {
        WcrOp::Sum => format!("{target} += {v}"),
        WcrOp::Product => format!("{target} *= {v}"),
        WcrOp::Min => format!("{target} = {target}.min({v})"),
        WcrOp::Max => format!("{target} = {target}.max({v})"),
    }
}

fn collect_reads(code: &[CodeStmt], out: &mut Vec<String>) {
    for s in code {
        match s {
            CodeStmt::Assign { target, value, op } => {
                out.extend(value.names());
                if let Target::Index(_, idx) = target {
                    idx.iter().for_each(|e| out.extend(e.names()));
                }
                if op.is_some() {
                    out.push(target.name().to_string());
                }
            }
            CodeStmt::Declare { value, .. } => {
                if let Some(v) = value {
                    out.extend(v.names());
                }
            }
            CodeStmt::If { cond, then, else_ } => {
                out.extend(cond.names());
                collect_reads(then, out);
                collect_reads(else_, out);
            }
            CodeStmt::For {
                start,
                end,
                step,
                body,
                ..
            } => {
                out.extend(start.names());
                out.extend(end.names());
                if let Some(s) = step {
                    out.extend(s.names());
                }
                collect_reads(body, out);
            }
            CodeStmt::While { cond, body } => {
                out.extend(cond.names());
                collect_reads(body, out);
            }
            CodeStmt::Block(b) => collect_reads(b, out),
            CodeStmt::AtomicReduce { offset, value, .. } => {
                out.extend(offset.names());
                out.extend(value.names());
            }
            CodeStmt::Break | CodeStmt::Continue => {}
        }
    }
}
