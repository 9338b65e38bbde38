//! A DaCe `.sdfg` file (JSON, as DaCe 1.x writes it) read into plain
//! structs: the data descriptors, symbols, states with their nodes and
//! memlet edges, and interstate edges. Texts (ranges, code, conditions)
//! stay text here; `super::python` and `super::cpp` parse them later.
//!
//! DaCe leaves out attributes that have their default value (`transient`,
//! `storage`, `wcr`, ...), so every field has DaCe's default. Any JSON is
//! accepted without a panic: a missing or malformed required field is an
//! error naming the element.

use super::ImportError;
use serde_json::Value;

pub(crate) struct Model {
    /// Data descriptors in file order (DaCe writes them sorted by name).
    pub arrays: Vec<DataDesc>,
    /// Descriptors refused with an error (views, streams, ...): what uses
    /// them says nothing more (one mistake, one error).
    pub refused: Vec<String>,
    /// `symbols`: name and DaCe type name.
    pub symbols: Vec<(String, String)>,
    /// DaCe's argument order (`arg_names`).
    pub arg_names: Vec<String>,
    /// The symbols our exporter declared (`crate::dace_format::ARGUMENTS_MARK`).
    pub argument_symbols: Option<Vec<String>>,
    pub states: Vec<StateModel>,
    pub edges: Vec<InterstateModel>,
    /// `start_block` (None: DaCe's rule, the state without incoming edges).
    pub start: Option<usize>,
}

pub(crate) struct DataDesc {
    pub name: String,
    /// `Scalar` (else `Array`).
    pub scalar: bool,
    pub dtype: String,
    pub shape: Vec<String>,
    pub strides: Option<Vec<String>>,
    pub offset: Option<Vec<String>>,
    pub transient: bool,
    pub storage: String,
    /// Our exporter's mark on a scalar it wrote as a one-element array.
    pub boxed_scalar: bool,
}

pub(crate) struct StateModel {
    pub label: String,
    pub nodes: Vec<NodeModel>,
    pub edges: Vec<DataflowEdge>,
}

pub(crate) struct NodeModel {
    pub label: String,
    pub kind: NodeKind,
    /// The map entry whose scope holds this node (for a map exit: its entry).
    pub scope: Option<usize>,
}

pub(crate) enum NodeKind {
    Access {
        data: String,
    },
    Tasklet {
        code: String,
        language: String,
        /// `code_global`, `code_init`, `code_exit` and `state_fields` that are not empty.
        extra_code: Vec<(String, String)>,
    },
    MapEntry {
        params: Vec<String>,
        ranges: Vec<RangeText>,
        schedule: String,
        /// The matching exit (`scope_exit`).
        exit: Option<usize>,
        /// The parameters' types where our exporter wrote them
        /// (`crate::dace_format::PARAM_TYPES_MARK`; DaCe's ranges have none).
        param_types: Vec<Option<crate::ir::ScalarType>>,
        /// The containers of `#[independent(...)]` where our exporter
        /// wrote them (`crate::dace_format::INDEPENDENT_MARK`), DaCe names.
        independent: Vec<String>,
    },
    MapExit,
    /// A `NestedSDFG` node outside any map: the callee's own SDFG and the
    /// values of its symbols (`symbol_mapping`, inner name -> text).
    Nested {
        model: Box<Model>,
        symbol_mapping: Vec<(String, String)>,
    },
    /// A library node sdfg-rs has a statement for: `MatMul`, `Transpose`,
    /// `Reduce` (its WCR lambda, axes and identity as written).
    Library {
        class: String,
        wcr: Option<String>,
        axes: Option<Vec<usize>>,
        identity: Value,
    },
    /// A node whose error was already reported (kept so that edges still
    /// find their nodes by position); conversion skips it silently.
    Reported,
}

/// One dimension of a DaCe `Range` (inclusive end), as text.
#[derive(Clone, Debug)]
pub(crate) struct RangeText {
    pub start: String,
    pub end: String,
    pub step: String,
    pub tile: String,
}

pub(crate) struct DataflowEdge {
    pub src: usize,
    pub dst: usize,
    pub src_conn: Option<String>,
    pub dst_conn: Option<String>,
    /// None: an empty memlet (ordering only).
    pub memlet: Option<MemletModel>,
}

#[derive(Clone, Debug)]
pub(crate) struct MemletModel {
    pub data: String,
    /// None: the whole container.
    pub subset: Option<Vec<RangeText>>,
    pub other_subset: Option<Vec<RangeText>>,
    pub wcr: Option<String>,
}

pub(crate) struct InterstateModel {
    pub src: usize,
    pub dst: usize,
    /// The condition's text and language (None: always taken).
    pub condition: Option<(String, String)>,
    /// Assignments in file order (DaCe writes them sorted by name).
    pub assignments: Vec<(String, String)>,
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(if *b { "True" } else { "False" }.to_string()),
        _ => None,
    }
}

fn index(v: &Value) -> Option<usize> {
    match v {
        Value::Number(n) => n.as_u64().and_then(|x| usize::try_from(x).ok()),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn flag(v: &Value, default: bool) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::String(s) => s == "True" || s == "true",
        _ => default,
    }
}

/// The `src` and `dst` of an edge between `count` states or nodes (`kind`),
/// or an error naming the edge (`what`).
fn endpoints(
    e: &Value,
    count: usize,
    what: &str,
    kind: &str,
    errors: &mut Vec<ImportError>,
) -> Option<(usize, usize)> {
    let (Some(src), Some(dst)) = (index(&e["src"]), index(&e["dst"])) else {
        errors.push(error(
            format!("{what} has no `src`/`dst`"),
            "check the file",
        ));
        return None;
    };
    if src >= count || dst >= count {
        errors.push(error(
            format!("{what} connects {kind} {src} to {kind} {dst}, but there are {count} {kind}s"),
            "check the file",
        ));
        return None;
    }
    Some((src, dst))
}

fn error(message: impl Into<String>, help: impl Into<String>) -> ImportError {
    ImportError::new(message).help(help)
}

/// Reads the top level of the file; every problem found is pushed to `errors`.
pub(crate) fn read(json: &Value, errors: &mut Vec<ImportError>) -> Option<Model> {
    if json["type"] != "SDFG" {
        let found = match &json["type"] {
            Value::String(s) => format!("`{s}`"),
            _ => "no `type`".to_string(),
        };
        errors.push(error(
            format!("this is not a DaCe SDFG: the top-level object has {found}, expected `\"type\": \"SDFG\"`"),
            "save the SDFG with `sdfg.save(\"file.sdfg\")` in DaCe",
        ));
        return None;
    }
    let attrs = &json["attributes"];
    let mut arrays = Vec::new();
    let mut refused = Vec::new();
    if let Value::Object(map) = &attrs["_arrays"] {
        for (n, desc) in map {
            match data_desc(n, desc, errors) {
                Some(d) => arrays.push(d),
                None => refused.push(n.clone()),
            }
        }
    } else if !attrs["_arrays"].is_null() {
        errors.push(error(
            "`_arrays` of the SDFG is not an object",
            "check the file",
        ));
    }
    let mut symbols = Vec::new();
    if let Value::Object(map) = &attrs["symbols"] {
        for (n, ty) in map {
            symbols.push((n.clone(), text(ty).unwrap_or_default()));
        }
    }
    let argument_symbols = attrs[crate::dace_format::ARGUMENTS_MARK]
        .as_array()
        .map(|a| a.iter().filter_map(text).collect());
    let arg_names = match &attrs["arg_names"] {
        Value::Array(a) => a.iter().filter_map(text).collect(),
        _ => Vec::new(),
    };
    for (field, what) in [
        ("global_code", "global code"),
        ("init_code", "init code"),
        ("exit_code", "exit code"),
    ] {
        if let Value::Object(map) = &attrs[field] {
            if map.values().any(|c| {
                c["string_data"]
                    .as_str()
                    .is_some_and(|s| !s.trim().is_empty())
            }) {
                errors.push(error(
                    format!("unsupported DaCe element: the SDFG's {what} (`{field}`)"),
                    "move the code into tasklets, or remove it",
                ));
            }
        }
    }
    let mut states = Vec::new();
    let empty = Vec::new();
    let blocks = json["nodes"].as_array().unwrap_or(&empty);
    for (i, block) in blocks.iter().enumerate() {
        let label = text(&block["label"]).unwrap_or_else(|| format!("state{i}"));
        match block["type"].as_str() {
            Some("SDFGState") => states.push(state(&label, block, errors)),
            Some(other) => {
                errors.push(control_flow_error(other, &label));
                states.push(StateModel {
                    label,
                    nodes: Vec::new(),
                    edges: Vec::new(),
                });
            }
            None => errors.push(error(
                format!("node {i} of the SDFG has no `type`"),
                "check the file",
            )),
        }
    }
    let mut edges = Vec::new();
    for (i, e) in json["edges"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .enumerate()
    {
        let what = format!("interstate edge {i}");
        let Some((src, dst)) = endpoints(e, states.len(), &what, "state", errors) else {
            continue;
        };
        let data = &e["attributes"]["data"]["attributes"];
        let condition = match &data["condition"] {
            Value::Null => None,
            Value::Object(_) => text(&data["condition"]["string_data"]).map(|c| {
                let lang = text(&data["condition"]["language"]).unwrap_or_else(|| "Python".into());
                (c, lang)
            }),
            other => text(other).map(|c| (c, "Python".to_string())),
        };
        let mut assignments = Vec::new();
        if let Value::Object(map) = &data["assignments"] {
            for (k, v) in map {
                match text(v) {
                    Some(v) => assignments.push((k.clone(), v)),
                    None => errors.push(error(
                        format!("the assignment to `{k}` on interstate edge {i} is not a text"),
                        "check the file",
                    )),
                }
            }
        }
        edges.push(InterstateModel {
            src,
            dst,
            condition,
            assignments,
        });
    }
    let start = index(&json["start_block"])
        .or_else(|| index(&json["start_state"]))
        .or_else(|| index(&attrs["start_block"]))
        .filter(|s| *s < states.len());
    Some(Model {
        arrays,
        refused,
        symbols,
        arg_names,
        argument_symbols,
        states,
        edges,
        start,
    })
}

fn control_flow_error(kind: &str, label: &str) -> ImportError {
    let help = match kind {
        "LoopRegion" | "ConditionalBlock" | "ControlFlowRegion" => {
            "turn control flow regions into states in DaCe first: `dace.sdfg.utils.inline_control_flow_regions(sdfg)`"
        }
        _ => "sdfg-rs reads states (`SDFGState`) and interstate edges",
    };
    error(
        format!("unsupported DaCe element `{kind}` (`{label}`)"),
        help,
    )
}

fn data_desc(name: &str, desc: &Value, errors: &mut Vec<ImportError>) -> Option<DataDesc> {
    let kind = desc["type"].as_str().unwrap_or("");
    let a = &desc["attributes"];
    let scalar = match kind {
        "Scalar" => true,
        "Array" => false,
        other => {
            let what = if other.is_empty() {
                "a data descriptor without a type".to_string()
            } else {
                format!("`{other}`")
            };
            let help = match other {
                "View" | "ArrayView" | "StructureView" | "ContainerView" => {
                    "views are not supported yet; in DaCe, `dace.sdfg.utils.remove_views` or copying the data removes them"
                }
                "Stream" => "streams are not supported",
                _ => "sdfg-rs reads `Array` and `Scalar` containers",
            };
            errors.push(error(
                format!("unsupported DaCe element {what} (container `{name}`)"),
                help,
            ));
            return None;
        }
    };
    let list = |v: &Value| -> Option<Vec<String>> {
        match v {
            Value::Array(items) => items.iter().map(text).collect(),
            Value::Null => None,
            other => text(other).map(|t| vec![t]),
        }
    };
    let shape = match list(&a["shape"]) {
        Some(s) => s,
        None if scalar => vec!["1".to_string()],
        None => {
            errors.push(error(
                format!("container `{name}` has no shape"),
                "check the file",
            ));
            return None;
        }
    };
    // DaCe leaves out a dtype of `int32`, its default.
    let dtype = text(&a["dtype"]).unwrap_or_else(|| "int32".to_string());
    Some(DataDesc {
        name: name.to_string(),
        scalar,
        dtype,
        shape,
        strides: list(&a["strides"]),
        offset: list(&a["offset"]),
        transient: flag(&a["transient"], false),
        storage: text(&a["storage"]).unwrap_or_else(|| "Default".to_string()),
        boxed_scalar: flag(&a[crate::dace_format::SCALAR_MARK], false),
    })
}

fn ranges(v: &Value) -> Option<Vec<RangeText>> {
    match v["type"].as_str() {
        Some("Range") => v["ranges"]
            .as_array()?
            .iter()
            .map(|r| {
                Some(RangeText {
                    start: text(&r["start"])?,
                    end: text(&r["end"])?,
                    step: text(&r["step"]).unwrap_or_else(|| "1".into()),
                    tile: text(&r["tile"]).unwrap_or_else(|| "1".into()),
                })
            })
            .collect(),
        Some("Indices") => v["indices"]
            .as_array()?
            .iter()
            .map(|i| {
                let t = text(i)?;
                Some(RangeText {
                    start: t.clone(),
                    end: t,
                    step: "1".into(),
                    tile: "1".into(),
                })
            })
            .collect(),
        _ => None,
    }
}

fn state(label: &str, block: &Value, errors: &mut Vec<ImportError>) -> StateModel {
    let empty = Vec::new();
    let raw_nodes = block["nodes"].as_array().unwrap_or(&empty);
    let mut nodes = Vec::new();
    // DaCe refers to nodes by their `id`, which is their position.
    for (i, n) in raw_nodes.iter().enumerate() {
        // A map's node label carries its range (`axpy[i=0:N]`); the attribute is the name.
        let node_label = text(&n["attributes"]["label"])
            .filter(|_| n["type"] == "MapEntry")
            .or_else(|| text(&n["label"]))
            .unwrap_or_else(|| format!("node{i}"));
        if index(&n["id"]).is_some_and(|id| id != i) {
            errors.push(error(
                format!(
                    "node `{node_label}` in state `{label}` has id {} at position {i}",
                    n["id"]
                ),
                "DaCe writes node ids as positions; save the SDFG again with DaCe",
            ));
        }
        let a = &n["attributes"];
        let kind_name = n["type"].as_str().unwrap_or("");
        let kind = match kind_name {
            "AccessNode" => match text(&a["data"]) {
                Some(data) => NodeKind::Access { data },
                None => {
                    errors.push(error(
                        format!("access node `{node_label}` in state `{label}` has no `data`"),
                        "check the file",
                    ));
                    continue_placeholder(&mut nodes, node_label);
                    continue;
                }
            },
            "Tasklet" => {
                let code = text(&a["code"]["string_data"]).unwrap_or_default();
                let language = text(&a["code"]["language"]).unwrap_or_else(|| "Python".to_string());
                let mut extra_code = Vec::new();
                for field in ["code_global", "code_init", "code_exit"] {
                    if let Some(t) = text(&a[field]["string_data"]) {
                        if !t.trim().is_empty() {
                            extra_code.push((field.to_string(), t));
                        }
                    }
                }
                if let Some(t) = text(&a["state_fields"]) {
                    if !t.trim().is_empty() && t != "[]" {
                        extra_code.push(("state_fields".to_string(), t));
                    }
                }
                NodeKind::Tasklet {
                    code,
                    language,
                    extra_code,
                }
            }
            "MapEntry" => {
                let params: Option<Vec<String>> = a["params"]
                    .as_array()
                    .map(|p| p.iter().filter_map(text).collect());
                let rs = ranges(&a["range"]);
                match (params, rs) {
                    (Some(params), Some(ranges))
                        if params.len() == ranges.len() && !params.is_empty() =>
                    {
                        NodeKind::MapEntry {
                            params,
                            ranges,
                            schedule: text(&a["schedule"]).unwrap_or_else(|| "Default".to_string()),
                            exit: index(&n["scope_exit"]),
                            param_types: a[crate::dace_format::PARAM_TYPES_MARK]
                                .as_array()
                                .map(|ts| {
                                    ts.iter()
                                        .map(|t| t.as_str().and_then(super::code::dtype))
                                        .collect()
                                })
                                .unwrap_or_default(),
                            independent: a[crate::dace_format::INDEPENDENT_MARK]
                                .as_array()
                                .map(|names| names.iter().filter_map(text).collect())
                                .unwrap_or_default(),
                        }
                    }
                    _ => {
                        errors.push(error(
                            format!("map `{node_label}` in state `{label}` has malformed `params` or `range`"),
                            "each parameter needs one range",
                        ));
                        continue_placeholder(&mut nodes, node_label);
                        continue;
                    }
                }
            }
            "MapExit" => NodeKind::MapExit,
            // At the top level of a state a call; inside a map scope, where
            // DaCe's Python frontend puts one for a map body of several
            // statements, inlined into the body (`state::inline`).
            "NestedSDFG" => {
                let mut inner = Vec::new();
                let model = read(&a["sdfg"], &mut inner);
                let in_nested = format!("in the nested SDFG `{node_label}` of state `{label}`");
                errors.extend(inner.into_iter().map(|e| e.note(in_nested.clone())));
                let mut symbol_mapping = Vec::new();
                if let Value::Object(map) = &a["symbol_mapping"] {
                    for (k, v) in map {
                        let value = match v {
                            Value::Number(x) => Some(x.to_string()),
                            other => text(other),
                        };
                        match value {
                            Some(v) => symbol_mapping.push((k.clone(), v)),
                            None => errors.push(error(
                                format!("the value of symbol `{k}` of nested SDFG `{node_label}` in state `{label}` is not a text"),
                                "check the file",
                            )),
                        }
                    }
                }
                match model {
                    Some(model) => NodeKind::Nested {
                        model: Box::new(model),
                        symbol_mapping,
                    },
                    None => {
                        continue_placeholder(&mut nodes, node_label);
                        continue;
                    }
                }
            }
            "LibraryNode" if library_class(n).is_some() => NodeKind::Library {
                class: library_class(n).unwrap_or_default(),
                wcr: text(&a["wcr"]),
                axes: a["axes"].as_array().map(|xs| {
                    xs.iter()
                        .filter_map(|x| x.as_u64().map(|v| v as usize))
                        .collect()
                }),
                identity: a["identity"].clone(),
            },
            other => {
                errors.push(unsupported_node(other, &node_label, n, label));
                continue_placeholder(&mut nodes, node_label);
                continue;
            }
        };
        nodes.push(NodeModel {
            label: node_label,
            kind,
            scope: index(&n["scope_entry"]),
        });
    }
    let mut edges = Vec::new();
    for (i, e) in block["edges"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .enumerate()
    {
        let what = format!("edge {i} in state `{label}`");
        let Some((src, dst)) = endpoints(e, nodes.len(), &what, "node", errors) else {
            continue;
        };
        let m = &e["attributes"]["data"]["attributes"];
        let memlet = text(&m["data"]).map(|data| MemletModel {
            data,
            subset: ranges(&m["subset"]),
            other_subset: ranges(&m["other_subset"]),
            wcr: text(&m["wcr"]).filter(|w| !w.is_empty() && w != "None"),
        });
        if let Some(mm) = &memlet {
            let malformed = |v: &Value| !v.is_null() && ranges(v).is_none();
            if malformed(&m["subset"]) || malformed(&m["other_subset"]) {
                errors.push(error(
                    format!("the memlet of `{}` on edge {i} in state `{label}` has a subset sdfg-rs cannot read", mm.data),
                    "subsets are `Range`s or `Indices`",
                ));
            }
        }
        edges.push(DataflowEdge {
            src,
            dst,
            src_conn: text(&e["src_connector"]),
            dst_conn: text(&e["dst_connector"]),
            memlet,
        });
    }
    StateModel {
        label: label.to_string(),
        nodes,
        edges,
    }
}

/// The class of a library node sdfg-rs reads (`MatMul`, `Transpose`,
/// `Reduce`), from its `classpath`.
fn library_class(n: &Value) -> Option<String> {
    let class = n["classpath"].as_str()?.rsplit('.').next()?;
    matches!(class, "MatMul" | "Transpose" | "Reduce").then(|| class.to_string())
}

/// Keeps node positions (edges refer to them) for a node that was reported.
fn continue_placeholder(nodes: &mut Vec<NodeModel>, label: String) {
    nodes.push(NodeModel {
        label,
        kind: NodeKind::Reported,
        scope: None,
    });
}

fn unsupported_node(kind: &str, node_label: &str, n: &Value, state: &str) -> ImportError {
    let (what, help) = match kind {
        "LibraryNode" => {
            let class = n["classpath"]
                .as_str()
                .and_then(|c| c.rsplit('.').next())
                .unwrap_or("LibraryNode")
                .to_string();
            return error(
                format!("unsupported DaCe element `{class}` (library node `{node_label}` in state `{state}`)"),
                "sdfg-rs reads the library nodes `MatMul`, `Transpose` and `Reduce`; expand the others in DaCe first: `sdfg.expand_library_nodes()`",
            );
        }
        "ConsumeEntry" | "ConsumeExit" => (
            format!("unsupported DaCe element `{kind}` (`{node_label}` in state `{state}`)"),
            "consume scopes (streams) are not supported; use maps",
        ),
        "" => (
            format!("node `{node_label}` in state `{state}` has no `type`"),
            "check the file",
        ),
        other => (
            format!("unsupported DaCe element `{other}` (`{node_label}` in state `{state}`)"),
            "sdfg-rs reads access nodes, tasklets and maps",
        ),
    };
    error(what, help)
}
