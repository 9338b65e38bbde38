//! The whole SDFG: symbols, containers, states and interstate edges as the
//! items of an `sdfg!` body.
//!
//! - A symbol assigned on an interstate edge is an inferred symbol of the
//!   DSL (DaCe does not count it among the free symbols); the others are
//!   declared (`symbol N: i32;`, arguments).
//! - Containers keep their storage (`Default`/`CPU_Heap` -> `host`,
//!   `CPU_Pinned` -> `pinned`, `GPU_Global` -> `gpu`) and transient flag. A
//!   transient scalar that DaCe's frontend uses only inside map scopes
//!   (`__tmp1` between two tasklets of one map) is a local of the map body.
//! - Interstate conditions that our exporter made mutually exclusive
//!   (`c and not (earlier)`) read back as the original `c`; the DSL tries
//!   edges in order.

use super::code::{dtype, same_integer_value, CodeExpr, Unary};
use super::model::{Model, NodeKind};
use super::names::Namer;
use super::state::StateConv;
use super::typing::{strip_outer_parens, Emitter, Meaning, Ty};
use super::{cpp, python, ImportError};
use crate::ir::{BinOp, ScalarType, Storage};
use std::collections::{HashMap, HashSet};

pub(crate) struct ContainerInfo {
    /// Its name in the DSL.
    pub dsl: String,
    pub elem: ScalarType,
    /// Dimensions in DaCe's names (empty for a scalar).
    pub shape: Vec<CodeExpr>,
    /// A scalar of the DSL (DaCe `Scalar`, or our exporter's boxed scalar).
    pub scalar: bool,
    /// Our exporter's scalar written as a one-element array (`X[0]` is `X`).
    pub boxed: bool,
    /// A temporary of map bodies (a local there, not a container).
    pub temp: bool,
    pub storage: Storage,
    /// DaCe's storage name (`Default` stays `Default` here).
    pub declared_storage: String,
    pub transient: bool,
}

pub(crate) struct SdfgCx {
    pub containers: HashMap<String, ContainerInfo>,
    /// Data the model refused with an error (`Model::refused`): uses of it
    /// are not errors again.
    pub refused: HashSet<String>,
    /// DaCe name -> (DSL name, type).
    pub symbols: HashMap<String, (String, ScalarType)>,
    /// The symbols of a floating-point type (DaCe's Python frontend keeps
    /// a value read on an interstate edge in one: `__tmp1 = A[i]`, then
    /// `__tmp1 > 0.5`): host scalar containers here, which a state on the
    /// edge assigns (DSL symbols are integers). Also in `symbols`, for
    /// reading.
    pub data_symbols: HashSet<String>,
    /// DSL names of symbols and containers (a map parameter must not take one).
    pub taken: HashSet<String>,
    /// DSL names of containers (a local must not take one; it may shadow a symbol).
    pub container_names: HashSet<String>,
    /// The nested sdfgs the states call: DSL name and items, in order.
    pub nested: std::cell::RefCell<Vec<(String, String)>>,
}

impl SdfgCx {
    /// Symbols only (what tasklet code may name besides its connectors).
    pub fn symbol_only(&self, name: &str) -> Option<Meaning> {
        self.symbols.get(name).map(|(dsl, ty)| Meaning::Value {
            text: dsl.clone(),
            ty: *ty,
        })
    }

    /// Symbols and containers (interstate edges may read host data).
    pub fn symbol_meaning(&self, name: &str) -> Option<Meaning> {
        if let Some(m) = self.symbol_only(name) {
            return Some(m);
        }
        let c = self.containers.get(name).filter(|c| !c.temp)?;
        Some(if c.scalar && !c.boxed {
            Meaning::Value {
                text: c.dsl.clone(),
                ty: c.elem,
            }
        } else {
            Meaning::Array {
                container: c.dsl.clone(),
                elem: c.elem,
                offsets: vec![CodeExpr::int(0); c.shape.len()],
                shape: c.shape.clone(),
                scalar: c.boxed,
            }
        })
    }

    pub fn is_temp(&self, data: &str) -> bool {
        self.containers.get(data).is_some_and(|c| c.temp)
    }

    /// The name of the nested sdfg `label` with these items: one declaration
    /// per distinct callee (`label_2` when another one took the name).
    pub fn declare_nested(&self, label: &str, items: String) -> String {
        let base = super::names::identifier(label);
        let mut nested = self.nested.borrow_mut();
        let mut name = base.clone();
        let mut k = 2;
        loop {
            match nested.iter().find(|(n, _)| *n == name) {
                Some((_, same)) if *same == items => return name,
                Some(_) => {
                    name = format!("{base}_{k}");
                    k += 1;
                }
                None => break,
            }
        }
        nested.push((name.clone(), items));
        name
    }
}

fn parse_symbolic(text: &str, what: &str, errors: &mut Vec<ImportError>) -> Option<CodeExpr> {
    match python::parse_expr(text) {
        Ok(e) => Some(e),
        Err(e) => {
            errors.push(
                ImportError::new(format!("{what} `{text}` {}", e.0))
                    .help("symbolic expressions are integer arithmetic over symbols"),
            );
            None
        }
    }
}

/// Where an SDFG is being translated.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// The file's own SDFG.
    Top,
    /// The SDFG of a `NestedSDFG` node: its argument containers are the
    /// caller's memory seen through the bindings, with the caller's strides.
    Callee,
}

/// The DSL items of the SDFG, or every error found.
pub(crate) fn translate_model(model: &Model, role: Role, errors: &mut Vec<ImportError>) -> String {
    let assigned: Vec<&str> = model
        .edges
        .iter()
        .flat_map(|e| e.assignments.iter().map(|(k, _)| k.as_str()))
        .collect();
    let mut names = Namer::default();
    let mut cx = SdfgCx {
        containers: HashMap::new(),
        refused: model.refused.iter().cloned().collect(),
        symbols: HashMap::new(),
        data_symbols: HashSet::new(),
        taken: HashSet::new(),
        container_names: HashSet::new(),
        nested: Default::default(),
    };
    let mut lines: Vec<String> = Vec::new();

    // DaCe's rule for the start state: the one without incoming edges, else `start_block`.
    let sources: Vec<usize> = (0..model.states.len())
        .filter(|s| !model.edges.iter().any(|e| e.dst == *s))
        .collect();
    let start = match (sources.as_slice(), model.start) {
        ([one], _) => *one,
        (_, Some(s)) => s,
        _ => 0,
    };
    let free = free_symbols(model, start);

    // Symbols: free ones are arguments (declared); the others are inferred
    // from their assignments on edges.
    for (name, ty_text) in &model.symbols {
        let ty = match dtype(ty_text) {
            Some(t) if t.is_integer() || t.is_float() || t == ScalarType::Bool => t,
            _ => {
                errors.push(
                    ImportError::new(format!("symbol `{name}` has type `{ty_text}`"))
                        .help("symbols are integers, floats or bool; keep other values in a scalar container"),
                );
                continue;
            }
        };
        let dsl = names.name(name);
        let argument = match &model.argument_symbols {
            Some(listed) => listed.contains(name),
            None => !assigned.contains(&name.as_str()) || free.contains(name.as_str()),
        };
        if ty.is_float() {
            let transient = if argument { "" } else { "transient " };
            lines.push(format!("{transient}host {dsl}: {ty};"));
            cx.data_symbols.insert(name.clone());
        } else if argument {
            lines.push(format!("symbol {dsl}: {ty};"));
        }
        cx.symbols.insert(name.clone(), (dsl, ty));
    }
    // Symbols assigned but not listed take the type of their first value.
    for e in &model.edges {
        for (name, value) in &e.assignments {
            if cx.symbols.contains_key(name) || model.arrays.iter().any(|a| a.name == *name) {
                continue;
            }
            let ty = python::parse_expr(value)
                .ok()
                .map(|v| {
                    let lookup = |n: &str| cx.symbol_meaning(n);
                    let mut em = Emitter {
                        lookup: &lookup,
                        adapt_floats: true,
                        errors: Vec::new(),
                    };
                    match em.infer(&v) {
                        Ty::Known(t) => t,
                        _ => ScalarType::I32,
                    }
                })
                .unwrap_or(ScalarType::I32);
            let dsl = names.name(name);
            if ty.is_float() {
                lines.push(format!("transient host {dsl}: {ty};"));
                cx.data_symbols.insert(name.clone());
            } else if ty.is_complex() {
                errors.push(
                    ImportError::new(format!("symbol `{name}` takes a complex value"))
                        .help("symbols are integers, floats or bool; keep other values in a scalar container"),
                );
            }
            cx.symbols.insert(name.clone(), (dsl, ty));
        }
    }

    // Containers, arguments in DaCe's argument order first.
    let mut order: Vec<usize> = Vec::new();
    for a in &model.arg_names {
        if let Some(i) = model.arrays.iter().position(|d| d.name == *a) {
            order.push(i);
        }
    }
    let rest: Vec<usize> = (0..model.arrays.len())
        .filter(|i| !order.contains(i))
        .collect();
    order.extend(rest);
    let temps = temporaries(model);
    let mut declared: Vec<&str> = Vec::new();
    for i in order {
        let d = &model.arrays[i];
        let Some(elem) = dtype(&d.dtype) else {
            errors.push(
                ImportError::new(format!(
                    "container `{}` has element type `{}`, which sdfg-rs does not have yet",
                    d.name, d.dtype
                ))
                .help(format!("the element types are {}", dtype_list())),
            );
            continue;
        };
        let storage = match d.storage.as_str() {
            "Default" | "CPU_Heap" | "Register" | "CPU_ThreadLocal" => Storage::Host,
            "CPU_Pinned" => Storage::Pinned,
            "GPU_Global" => Storage::Gpu,
            "GPU_Shared" => {
                errors.push(
                    ImportError::new(format!("unsupported DaCe element: container `{}` has storage `GPU_Shared`", d.name))
                        .help("the importer does not turn DaCe's thread-block maps into block maps yet; write the kernel as a block map (`on gpu block(...)` with `shared` data), or use `GPU_Global`"),
                );
                continue;
            }
            other => {
                errors.push(
                    ImportError::new(format!(
                        "unsupported DaCe element: container `{}` has storage `{other}`",
                        d.name
                    ))
                    .help("the storages are `Default`, `CPU_Heap`, `CPU_Pinned` and `GPU_Global`"),
                );
                continue;
            }
        };
        let mut shape = Vec::new();
        for dim in &d.shape {
            if let Some(e) = parse_symbolic(dim, &format!("a dimension of `{}`", d.name), errors) {
                shape.push(e);
            }
        }
        if shape.len() != d.shape.len() {
            continue;
        }
        if role == Role::Top || d.transient {
            check_layout(d, &shape, errors);
        }
        let scalar = d.scalar || d.boxed_scalar;
        let one = CodeExpr::int(1);
        let temp = temps.contains(d.name.as_str())
            && d.transient
            && (scalar || shape.iter().all(|s| same_integer_value(s, &one)));
        let dsl = if temp {
            super::names::identifier(&d.name)
        } else {
            names.name(&d.name)
        };
        cx.containers.insert(
            d.name.clone(),
            ContainerInfo {
                dsl,
                elem,
                shape: if scalar { Vec::new() } else { shape },
                scalar,
                boxed: d.boxed_scalar,
                temp,
                storage,
                declared_storage: d.storage.clone(),
                transient: d.transient,
            },
        );
        declared.push(&d.name);
    }
    cx.container_names = cx
        .containers
        .values()
        .filter(|c| !c.temp)
        .map(|c| c.dsl.clone())
        .chain(cx.data_symbols.iter().map(|n| cx.symbols[n].0.clone()))
        .collect();
    cx.taken = cx
        .symbols
        .values()
        .map(|(n, _)| n.clone())
        .chain(
            cx.containers
                .values()
                .filter(|c| !c.temp)
                .map(|c| c.dsl.clone()),
        )
        .collect();
    for a in declared {
        let Some(c) = cx.containers.get(a) else {
            continue;
        };
        if c.temp {
            continue;
        }
        let dims: Vec<String> = c
            .shape
            .iter()
            .map(|e| {
                let lookup = |n: &str| cx.symbol_only(n);
                let mut em = Emitter {
                    lookup: &lookup,
                    adapt_floats: true,
                    errors: Vec::new(),
                };
                let t = strip_outer_parens(em.emit(e, None));
                for err in em.errors {
                    errors.push(
                        ImportError::new(format!("the shape of `{a}` {err}"))
                            .help("shapes are integer expressions over symbols"),
                    );
                }
                t
            })
            .collect();
        let transient = if c.transient { "transient " } else { "" };
        let shape = if c.scalar {
            String::new()
        } else {
            format!("[{}]", dims.join(", "))
        };
        lines.push(format!(
            "{transient}{} {}: {}{shape};",
            c.storage.keyword(),
            c.dsl,
            c.elem
        ));
    }

    // States.
    let mut state_names = Namer::default();
    let state_dsl: Vec<String> = model
        .states
        .iter()
        .map(|s| state_names.name(&s.label))
        .collect();
    for (i, st) in model.states.iter().enumerate() {
        let mut conv = StateConv::new(&cx, st);
        let body = conv.convert(4);
        errors.extend(conv.errors);
        if i == start && start != 0 {
            lines.push("#[start]".to_string());
        }
        if body.is_empty() {
            lines.push(format!("state {} {{}}", state_dsl[i]));
        } else {
            lines.push(format!("state {} {{", state_dsl[i]));
            lines.extend(body);
            lines.push("}".to_string());
        }
    }

    // The nested sdfgs the states call.
    for (name, items) in cx.nested.borrow().iter() {
        lines.push(format!("sdfg {name} {{"));
        lines.extend(items.lines().map(|l| format!("    {l}")));
        lines.push("}".to_string());
    }

    // Interstate edges, in the file's order (each state's edges are tried in it).
    let mut earlier: HashMap<usize, Vec<Option<CodeExpr>>> = HashMap::new();
    for e in &model.edges {
        let what = format!(
            "the interstate edge `{}` -> `{}`",
            model.states[e.src].label, model.states[e.dst].label
        );
        let cond = match &e.condition {
            None => None,
            Some((text, lang)) => {
                let parsed = match lang.as_str() {
                    "CPP" => cpp::parse_expr(text),
                    _ => python::parse_expr(text),
                };
                match parsed {
                    Ok(c) => Some(c),
                    Err(err) => {
                        errors.push(
                            ImportError::new(format!("the condition of {what} {}", err.0))
                                .help("conditions are expressions over symbols and host data"),
                        );
                        continue;
                    }
                }
            }
        };
        let cond = cond.filter(|c| !is_true(c));
        let before = earlier.entry(e.src).or_default();
        let own = strip_exclusion(cond.clone(), before);
        before.push(own.clone());
        // ` if c` of the edge, when it has a condition.
        let mut guard = String::new();
        if let Some(c) = &own {
            let lookup = |n: &str| cx.symbol_meaning(n);
            let mut em = Emitter {
                lookup: &lookup,
                adapt_floats: true,
                errors: Vec::new(),
            };
            let c = strip_outer_parens(em.emit(c, Some(ScalarType::Bool)));
            for err in em.errors {
                errors.push(
                    ImportError::new(format!("the condition of {what} {err}"))
                        .help("conditions read symbols and host containers"),
                );
            }
            guard = format!(" if {c}");
        }
        // DaCe runs an edge's assignments one after the other, the DSL all
        // at once: they agree unless one reads another's target.
        let targets: Vec<&str> = e.assignments.iter().map(|(k, _)| k.as_str()).collect();
        for (name, value) in &e.assignments {
            let reads = python::parse_expr(value)
                .map(|v| v.names())
                .unwrap_or_default();
            if let Some(other) = reads
                .iter()
                .find(|r| *r != name && targets.contains(&r.as_str()))
            {
                errors.push(
                    ImportError::new(format!(
                        "{what} assigns `{name}` from `{other}`, which it also assigns"
                    ))
                    .note("DaCe runs the assignments of an edge in order; sdfg-rs runs them all at once")
                    .help("split the edge through an empty state, one assignment on each part"),
                );
            }
        }
        let mut assigns = Vec::new();
        let mut data_assigns = Vec::new();
        for (name, value) in &e.assignments {
            let Some(v) = parse_symbolic(
                value,
                &format!("the assignment to `{name}` on {what}"),
                errors,
            ) else {
                continue;
            };
            let Some((dsl, ty)) = cx.symbols.get(name).cloned() else {
                errors.push(
                    ImportError::new(format!("{what} assigns `{name}`, which is a container"))
                        .help("interstate edges assign symbols"),
                );
                continue;
            };
            let lookup = |n: &str| cx.symbol_meaning(n);
            let mut em = Emitter {
                lookup: &lookup,
                adapt_floats: true,
                errors: Vec::new(),
            };
            let v = strip_outer_parens(em.emit(&v, Some(ty)));
            for err in em.errors {
                errors.push(
                    ImportError::new(format!("the assignment to `{name}` on {what} {err}"))
                        .help("assignments read symbols and host containers"),
                );
            }
            if cx.data_symbols.contains(name) {
                data_assigns.push(format!("{dsl} = {v};"));
            } else {
                assigns.push(format!("{dsl} = {v};"));
            }
        }
        let (src, dst) = (&state_dsl[e.src], &state_dsl[e.dst]);
        if data_assigns.is_empty() {
            push_edge(&mut lines, format!("{src} -> {dst}{guard}"), &assigns);
        } else {
            // A state on the edge assigns the data symbols (their values
            // read no symbol the edge assigns: see the check above).
            let label = format!(
                "{}_to_{}",
                model.states[e.src].label, model.states[e.dst].label
            );
            let mid = state_names.name(&label);
            lines.push(format!(
                "state {mid} {{ tasklet assign_{mid} {{ {} }} }}",
                data_assigns.join(" ")
            ));
            push_edge(&mut lines, format!("{src} -> {mid}{guard}"), &assigns);
            lines.push(format!("{mid} -> {dst};"));
        }
    }
    lines.join("\n")
}

/// `text` (`a -> b if c`) with its assignments, as one item.
fn push_edge(lines: &mut Vec<String>, mut text: String, assigns: &[String]) {
    if assigns.is_empty() {
        text.push(';');
    } else {
        text.push_str(&format!(" {{ {} }}", assigns.join(" ")));
    }
    lines.push(text);
}

fn is_true(c: &CodeExpr) -> bool {
    matches!(
        c,
        CodeExpr::Bool(true)
            | CodeExpr::Int {
                value: 1,
                negative: false,
                ..
            }
    )
}

/// Our exporter writes the k-th edge of a state as `c_k and not (c_1 or ...
/// or c_{k-1})`; the DSL tries edges in order, so `c_k` alone means the same.
fn strip_exclusion(cond: Option<CodeExpr>, earlier: &[Option<CodeExpr>]) -> Option<CodeExpr> {
    let conds: Vec<&CodeExpr> = earlier.iter().flatten().collect();
    if conds.is_empty() || conds.len() != earlier.len() {
        return cond;
    }
    let mut any = conds[0].clone();
    for c in &conds[1..] {
        any = CodeExpr::Binary(BinOp::Or, Box::new(any), Box::new((*c).clone()));
    }
    let excluded = CodeExpr::Unary(Unary::Not, Box::new(any));
    match cond {
        Some(c) if c == excluded => None,
        Some(CodeExpr::Binary(BinOp::And, own, rest)) if *rest == excluded => Some(*own),
        other => other,
    }
}

/// Names read by a state: ranges, subsets and tasklet code.
fn names_in_state(st: &super::model::StateModel) -> HashSet<String> {
    let mut out = Vec::new();
    let mut texts: Vec<&str> = Vec::new();
    for n in &st.nodes {
        match &n.kind {
            NodeKind::MapEntry { ranges, .. } => {
                for r in ranges {
                    texts.extend([r.start.as_str(), r.end.as_str(), r.step.as_str()]);
                }
            }
            NodeKind::Nested { symbol_mapping, .. } => {
                texts.extend(symbol_mapping.iter().map(|(_, v)| v.as_str()));
            }
            NodeKind::Tasklet { code, language, .. } => {
                let parsed = match language.as_str() {
                    "CPP" => cpp::parse_code(code),
                    _ => python::parse_code(code),
                };
                if let Ok(stmts) = parsed {
                    super::code::code_names(&stmts, &mut out);
                }
            }
            _ => {}
        }
    }
    for e in &st.edges {
        if let Some(m) = &e.memlet {
            for r in m.subset.iter().chain(&m.other_subset).flatten() {
                texts.extend([r.start.as_str(), r.end.as_str(), r.step.as_str()]);
            }
        }
    }
    for t in texts {
        if let Ok(e) = python::parse_expr(t) {
            out.extend(e.names());
        }
    }
    out.into_iter().collect()
}

/// Symbols read before any interstate edge assigns them, on some path from
/// the start: DaCe's free symbols, the arguments of the SDFG.
fn free_symbols(model: &Model, start: usize) -> HashSet<String> {
    let reads: Vec<HashSet<String>> = model.states.iter().map(names_in_state).collect();
    let edge_reads: Vec<HashSet<String>> = model
        .edges
        .iter()
        .map(|e| {
            let mut names = Vec::new();
            for text in e
                .assignments
                .iter()
                .map(|(_, v)| v)
                .chain(e.condition.iter().map(|(c, _)| c))
            {
                if let Ok(x) = python::parse_expr(text) {
                    names.extend(x.names());
                }
            }
            names.into_iter().collect()
        })
        .collect();
    // Symbols surely assigned on every path into each state (None: not reached yet).
    let mut defined: Vec<Option<HashSet<String>>> = vec![None; model.states.len()];
    if start < defined.len() {
        defined[start] = Some(HashSet::new());
    }
    loop {
        let mut changed = false;
        for e in &model.edges {
            let Some(before) = defined[e.src].clone() else {
                continue;
            };
            let mut after = before;
            after.extend(e.assignments.iter().map(|(k, _)| k.clone()));
            let merged = match &defined[e.dst] {
                None => after,
                Some(d) if e.dst == start => d.clone(),
                Some(d) => d.intersection(&after).cloned().collect(),
            };
            if defined[e.dst].as_ref() != Some(&merged) {
                defined[e.dst] = Some(merged);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut free = HashSet::new();
    for (s, names) in reads.iter().enumerate() {
        if let Some(d) = &defined[s] {
            free.extend(names.difference(d).cloned());
        }
    }
    for (e, names) in model.edges.iter().zip(&edge_reads) {
        if let Some(d) = &defined[e.src] {
            free.extend(names.difference(d).cloned());
        }
    }
    free
}

/// Transient containers whose every access node is inside a map scope.
fn temporaries(model: &Model) -> HashSet<&str> {
    let mut inside: HashSet<&str> = HashSet::new();
    let mut outside: HashSet<&str> = HashSet::new();
    for st in &model.states {
        for n in &st.nodes {
            if let NodeKind::Access { data } = &n.kind {
                if n.scope.is_some() {
                    inside.insert(data);
                } else {
                    outside.insert(data);
                }
            }
        }
    }
    for e in &model.edges {
        for text in e
            .assignments
            .iter()
            .map(|(_, v)| v)
            .chain(e.condition.iter().map(|(c, _)| c))
        {
            if let Ok(expr) = python::parse_expr(text) {
                for n in expr.names() {
                    if let Some(d) = model.arrays.iter().find(|d| d.name == n) {
                        outside.insert(&d.name);
                    }
                }
            }
        }
    }
    inside.difference(&outside).copied().collect()
}

/// Containers are contiguous and row-major.
fn check_layout(d: &super::model::DataDesc, shape: &[CodeExpr], errors: &mut Vec<ImportError>) {
    if let Some(strides) = &d.strides {
        let mut expected = CodeExpr::int(1);
        let mut ok = strides.len() == shape.len() || d.scalar;
        for k in (0..strides.len()).rev() {
            if !ok {
                break;
            }
            match python::parse_expr(&strides[k]) {
                Ok(s) => ok = same_integer_value(&s, &expected),
                Err(_) => ok = false,
            }
            if let Some(dim) = shape.get(k) {
                expected = CodeExpr::Binary(BinOp::Mul, Box::new(expected), Box::new(dim.clone()));
            }
        }
        if !ok && !d.scalar {
            errors.push(
                ImportError::new(format!("container `{}` has the strides [{}], which are not row-major", d.name, strides.join(", ")))
                    .help("sdfg-rs containers are contiguous and row-major (C order); copy the data into such a container in DaCe"),
            );
        }
    }
    if let Some(offset) = &d.offset {
        let zero = CodeExpr::int(0);
        if !offset
            .iter()
            .all(|o| python::parse_expr(o).is_ok_and(|e| same_integer_value(&e, &zero)))
        {
            errors.push(
                ImportError::new(format!(
                    "container `{}` has the offsets [{}]",
                    d.name,
                    offset.join(", ")
                ))
                .help("sdfg-rs containers start at index 0"),
            );
        }
    }
}

/// DaCe's names of the element types sdfg-rs has, backticked.
fn dtype_list() -> String {
    let names: Vec<&str> = crate::dace_format::DTYPES.iter().map(|(_, n)| *n).collect();
    crate::diag::suggest::backticked(&names)
}
