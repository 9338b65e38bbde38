//! Nested SDFGs in the front end: what a call inlines to (states, edges,
//! names, indices shifted by the bindings, symbols replaced), the form the
//! DaCe export keeps, and every error of a call.

mod common;

use sdfg_compiler::frontend_str;
use sdfg_compiler::ir::*;

fn ok(src: &str) -> Sdfg {
    match frontend_str(src) {
        Ok(s) => s,
        Err(d) => panic!("unexpected diagnostics:\n{d}\nsource:\n{src}"),
    }
}

/// Every diagnostic of `src` (which must fail) as `message | help | notes`.
fn errors(src: &str) -> Vec<String> {
    match frontend_str(src) {
        Ok(_) => panic!("expected diagnostics, got none:\n{src}"),
        Err(d) => d
            .list
            .iter()
            .map(|d| {
                format!(
                    "{} | {} | {}",
                    d.message,
                    d.help.clone().unwrap_or_default(),
                    d.notes.join("; ")
                )
            })
            .collect(),
    }
}

fn has(errors: &[String], text: &str) {
    assert!(
        errors.iter().any(|e| e.contains(text)),
        "no error contains {text:?}: {errors:#?}"
    );
}

/// An expression as text: symbols and containers by name, `p0` for map
/// parameters, integer casts and literal types left out.
fn show(sdfg: &Sdfg, e: &Expr) -> String {
    match &e.kind {
        ExprKind::Lit(v) => v.to_string(),
        ExprKind::Var(VarRef::Symbol(s)) => sdfg.symbols[*s].name.text.clone(),
        ExprKind::Var(VarRef::Param(p)) => format!("p{p}"),
        ExprKind::Var(VarRef::Local(l)) => format!("l{l}"),
        ExprKind::Load { container, index } => {
            let idx: Vec<String> = index.iter().map(|i| show(sdfg, i)).collect();
            format!(
                "{}[{}]",
                sdfg.containers[*container].name.text,
                idx.join(", ")
            )
        }
        ExprKind::Binary { op, lhs, rhs } => {
            format!("({} {} {})", show(sdfg, lhs), op.symbol(), show(sdfg, rhs))
        }
        ExprKind::Cast { arg } => show(sdfg, arg),
        _ => "?".to_string(),
    }
}

fn stores(sdfg: &Sdfg, state: &str) -> Vec<String> {
    let st = &sdfg.states[sdfg.state_by_name(state).expect("state")];
    let mut out = Vec::new();
    for stmt in &st.stmts {
        let body = match &stmt.kind {
            StatementKind::Map(m) => &m.body,
            StatementKind::Tasklet(t) => &t.body,
            _ => continue,
        };
        for s in &body.stmts {
            s.walk(&mut |s| {
                if let Stmt::Store {
                    container,
                    index,
                    value,
                    ..
                } = s
                {
                    let idx: Vec<String> = index.iter().map(|i| show(sdfg, i)).collect();
                    out.push(format!(
                        "{}[{}] = {}",
                        sdfg.containers[*container].name.text,
                        idx.join(", "),
                        show(sdfg, value)
                    ));
                }
            });
        }
    }
    out
}

fn edges(sdfg: &Sdfg) -> Vec<String> {
    sdfg.edges
        .iter()
        .map(|e| {
            let assigns: Vec<String> = e
                .assignments
                .iter()
                .map(|(s, v)| format!("{} = {}", sdfg.symbols[*s].name.text, show(sdfg, v)))
                .collect();
            format!(
                "{} -> {}{}{}",
                sdfg.states[e.from].name.text,
                sdfg.states[e.to].name.text,
                if e.condition.is_some() { " if .." } else { "" },
                if assigns.is_empty() {
                    String::new()
                } else {
                    format!(" {{ {} }}", assigns.join("; "))
                }
            )
        })
        .collect()
}

const AXPY: &str = "
    sdfg Axpy {
        symbol M: i64;
        host a: f64;
        host U: f64[M];
        host V: f64[M];
        state s {
            map axpy[i in 0..M] on cpu { V[i] = a * U[i] + V[i]; }
        }
    }";

#[test]
fn a_call_inlines_the_callee_between_the_statements_around_it() {
    let sdfg = ok(&format!(
        "sdfg Outer {{
            symbol N: i64;
            host X: f64[N];
            host Y: f64[N, 2];
            host scale: f64;
            {AXPY}
            state main {{
                tasklet before {{ Y[0, 0] = 1.0; }}
                Axpy(a = scale, U = X[1..N], V = Y[0..N - 1, 1]);
                tasklet after {{ Y[0, 1] = 2.0; }}
            }}
            state done {{}}
            main -> done;
        }}"
    ));
    let names: Vec<&str> = sdfg.states.iter().map(|s| s.name.text.as_str()).collect();
    assert_eq!(names, ["main", "done", "Axpy_s", "main_after_Axpy"]);
    assert_eq!(
        edges(&sdfg),
        [
            "main_after_Axpy -> done",
            "Axpy_s -> main_after_Axpy",
            "main -> Axpy_s"
        ]
    );
    // `M` is the extent of the bound data; the indices of `U` and `V` are
    // shifted by the subsets; `a` is the caller's scalar.
    assert_eq!(
        stores(&sdfg, "Axpy_s"),
        ["Y[p0, 1] = ((scale[] * X[(1 + p0)]) + Y[p0, 1])"]
    );
    let StatementKind::Map(m) = &sdfg.states[2].stmts[0].kind else {
        panic!("a map");
    };
    assert_eq!(show(&sdfg, &m.params[0].end), "(N - 1)");
    assert_eq!(stores(&sdfg, "main"), ["Y[0, 0] = 1.0"]);
    assert_eq!(stores(&sdfg, "main_after_Axpy"), ["Y[0, 1] = 2.0"]);
    // Nothing new: the callee has no transients and no symbols of its own.
    assert_eq!(sdfg.containers.len(), 3);
    assert_eq!(sdfg.symbols.len(), 1);
    // The form the DaCe export writes keeps the call.
    let form = sdfg.nested_form.as_ref().expect("the nested form");
    assert_eq!(form.states.len(), 2);
    let StatementKind::Nested(call) = &form.states[0].stmts[1].kind else {
        panic!("the call");
    };
    assert_eq!(call.callee.name.text, "Axpy");
    assert_eq!(call.symbols.len(), 1);
    assert_eq!(show(form, &call.symbols[0].1), "(N - 1)");
    let memlets: Vec<String> = form.states[0].stmts[1]
        .memlets
        .iter()
        .map(|m| {
            format!(
                "{} {:?} {}",
                m.connector, m.access, form.containers[m.container].name.text
            )
        })
        .collect();
    assert_eq!(
        memlets,
        ["a Read scale", "U Read X", "V Read Y", "V Write Y"]
    );
}

#[test]
fn a_callee_with_states_gets_fresh_symbols_transients_and_a_way_out() {
    let sdfg = ok("
        sdfg Outer {
            symbol N: i64;
            host X: f64[N];
            host out: f64[3];
            sdfg Sum {
                symbol M: i64;
                host U: f64[M];
                host s: f64;
                transient host acc: f64;
                state init { tasklet zero { acc = 0.0; } }
                state body { tasklet add { acc = acc + U[k]; } }
                state done { tasklet store { s = acc; } }
                init -> body { k = 0 }
                body -> body if k + 1 < M { k = k + 1 }
                body -> done if k + 1 >= M;
            }
            state main {
                Sum(U = X, s = out[0]);
                Sum(U = X[1..N], s = out[2]);
            }
        }");
    assert_eq!(
        edges(&sdfg),
        [
            "Sum_init -> Sum_body { Sum_k = 0 }",
            "Sum_body -> Sum_body if .. { Sum_k = (Sum_k + 1) }",
            "Sum_body -> Sum_done if ..",
            // `body` may end the callee when neither edge is taken.
            "Sum_body -> main_after_Sum",
            "Sum_done -> main_after_Sum",
            "main -> Sum_init",
            "Sum_2_init -> Sum_2_body { Sum_2_k = 0 }",
            "Sum_2_body -> Sum_2_body if .. { Sum_2_k = (Sum_2_k + 1) }",
            "Sum_2_body -> Sum_2_done if ..",
            "Sum_2_body -> main_after_Sum_2",
            "Sum_2_done -> main_after_Sum_2",
            "main_after_Sum -> Sum_2_init",
        ]
    );
    let names: Vec<&str> = sdfg
        .containers
        .iter()
        .map(|c| c.name.text.as_str())
        .collect();
    assert_eq!(names, ["X", "out", "Sum_acc", "Sum_2_acc"]);
    assert!(sdfg.containers[2].transient && sdfg.containers[3].transient);
    assert_eq!(
        stores(&sdfg, "Sum_body"),
        ["Sum_acc[] = (Sum_acc[] + X[Sum_k])"]
    );
    assert_eq!(
        stores(&sdfg, "Sum_2_body"),
        ["Sum_2_acc[] = (Sum_2_acc[] + X[(1 + Sum_2_k)])"]
    );
    assert_eq!(stores(&sdfg, "Sum_2_done"), ["out[2] = Sum_2_acc[]"]);
    let inferred: Vec<(&str, bool)> = sdfg
        .symbols
        .iter()
        .map(|s| (s.name.text.as_str(), s.declared))
        .collect();
    assert_eq!(
        inferred,
        [("N", true), ("Sum_k", false), ("Sum_2_k", false)]
    );
}

#[test]
fn a_symbol_the_callee_assigns_starts_at_its_value() {
    let sdfg = ok("
        sdfg Outer {
            symbol N: i64;
            host X: i64[N];
            sdfg Countdown {
                symbol K: i64;
                host A: i64[8];
                state body { tasklet t { A[K] = K; } }
                body -> body if K > 0 { K = K - 1 }
            }
            state main { Countdown(K = N - 1, A = X[0..8]); }
        }");
    assert_eq!(
        edges(&sdfg),
        [
            "Countdown_body -> Countdown_body if .. { Countdown_K = (Countdown_K - 1) }",
            "Countdown_body -> main_after_Countdown",
            "main -> Countdown_body { Countdown_K = (N - 1) }",
        ]
    );
}

#[test]
fn calls_nest_and_see_the_sdfgs_around_them() {
    let sdfg = ok("
        sdfg Outer {
            host X: f64[4];
            sdfg Twice {
                host A: f64[4];
                sdfg Once {
                    host B: f64[4];
                    state s { map m[i in 0..4] on cpu { B[i] = B[i] * 2.0; } }
                }
                state s { Once(B = A); Once(B = A); Helper(C = A[0..2]); }
            }
            sdfg Helper {
                host C: f64[2];
                state s { tasklet t { C[1] = C[0]; } }
            }
            state main { Twice(A = X); }
        }");
    let names: Vec<&str> = sdfg.states.iter().map(|s| s.name.text.as_str()).collect();
    assert_eq!(
        names,
        [
            "main",
            "Twice_s",
            "Twice_Once_s",
            "Twice_s_after_Once",
            "Twice_Once_2_s",
            "Twice_s_after_Once_2",
            "Twice_Helper_s",
            "Twice_s_after_Helper",
            "main_after_Twice"
        ]
    );
    assert_eq!(stores(&sdfg, "Twice_Helper_s"), ["X[1] = X[0]"]);
}

#[test]
fn a_callee_shares_its_callers_sync_mode() {
    // A callee takes no attributes: in a `#[sync(manual)]` caller it places
    // its own waits.
    let sdfg = ok("
        #[sync(manual)]
        sdfg Outer {
            gpu G: i32;
            host H: i32;
            sdfg Fetch {
                gpu D: i32;
                host T: i32;
                state s { copy D -> T; wait T; }
            }
            state main { Fetch(D = G, T = H); }
        }");
    let waits = sdfg.states[1]
        .stmts
        .iter()
        .filter(|s| matches!(s.kind, StatementKind::Wait(_)))
        .count();
    assert_eq!(waits, 1);
    let e = errors(
        "
        sdfg Outer {
            gpu G: i32;
            host H: i32;
            sdfg Fetch { gpu D: i32; host T: i32; state s { copy D -> T; wait T; } }
            state main { Fetch(D = G, T = H); }
        }",
    );
    has(&e, "`wait` needs `#[sync(manual)]` on the sdfg");
}

#[test]
fn the_dace_export_writes_nested_sdfg_nodes() {
    let sdfg = common::nested_host();
    let json = sdfg_compiler::export::dace::to_sdfg_json(&sdfg);
    let nodes = json["nodes"][0]["nodes"].as_array().expect("nodes");
    let nested: Vec<&serde_json::Value> =
        nodes.iter().filter(|n| n["type"] == "NestedSDFG").collect();
    assert_eq!(nested.len(), 4);
    let first = nested[0];
    assert_eq!(first["label"], "Axpy");
    assert_eq!(first["attributes"]["symbol_mapping"]["M"], "N");
    assert_eq!(first["attributes"]["sdfg"]["type"], "SDFG");
    let ins: Vec<&String> = first["attributes"]["in_connectors"]
        .as_object()
        .expect("connectors")
        .keys()
        .collect();
    assert_eq!(ins, ["U", "V", "a"]);
    // The column `Y[0..N, 0]` keeps the caller's stride of 2.
    let v = &first["attributes"]["sdfg"]["attributes"]["_arrays"]["V"]["attributes"];
    assert_eq!(v["strides"], serde_json::json!(["2"]));
    // The inlined states are not exported.
    assert_eq!(json["nodes"].as_array().expect("states").len(), 1);
}

#[test]
fn the_import_reads_nested_sdfg_nodes_back() {
    let json = sdfg_compiler::export::dace::to_sdfg_json_string(&common::nested_gpu());
    let text = sdfg_compiler::import::translate(&json).expect("translates");
    assert!(text.contains("sdfg SquareSum {"), "{text}");
    assert!(
        text.contains("SquareSum(M = N, V = A, out = E[t]);"),
        "{text}"
    );
    let again = ok(&format!("sdfg NestedGpu {{ {text} }}"));
    assert_eq!(again.states.len(), common::nested_gpu().states.len());
}

// ------------------------------------------------------------------ errors

#[test]
fn unknown_callee() {
    let e = errors("sdfg O { host X: f64[4]; state s { Scal(A = X); } }");
    has(
        &e,
        "cannot find nested sdfg `Scal` | declare it inside this `sdfg!`",
    );
    let e = errors(&format!(
        "sdfg O {{ host X: f64[4]; {AXPY} state s {{ Axpi(U = X); }} }}"
    ));
    has(&e, "cannot find nested sdfg `Axpi` | did you mean `Axpy`?");
}

#[test]
fn arguments_that_do_not_fit() {
    let call = |args: &str| {
        errors(&format!(
            "sdfg O {{
                symbol N: i64; symbol K: i32;
                host X: f64[N]; host F: f32[N]; gpu G: f64[N]; host Y: f64[N, N]; host h: f64;
                {AXPY}
                state s {{ Axpy({args}); }}
            }}"
        ))
    };
    has(
        &call("a = h, U = X"),
        "missing argument `V` of nested sdfg `Axpy`",
    );
    has(
        &call("a = h, U = X, V = X, W = X"),
        "nested sdfg `Axpy` has no argument `W`",
    );
    has(
        &call("a = h, U = X, V = X, U = X"),
        "argument `U` is given twice",
    );
    has(
        &call("a = h, U = F, V = X"),
        "mismatched element types: `U` of `Axpy` holds `f64`, `F` holds `f32`",
    );
    has(
        &call("a = h, U = G, V = X"),
        "`U` of `Axpy` is host data but `G` is gpu",
    );
    has(
        &call("a = h, U = Y, V = X"),
        "`Y` has 2 range dimensions but `U` of `Axpy` has 1 dimension",
    );
    has(
        &call("a = h, U = X[1..N], V = X"),
        "the binding of `V` has extent `N` in dimension 0 but `V` of `Axpy` has `N - 1`",
    );
    has(
        &call("M = N, a = h, U = X[0..4], V = X[0..4]"),
        "the binding of `U` has extent `4` in dimension 0 but `U` of `Axpy` has `N`",
    );
    has(
        &call("M = K, a = h, U = X, V = X"),
        "mismatched types: expected `i64`, found `i32`",
    );
    has(
        &call("a = h, U = X + 1, V = X"),
        "`U` is a container: bind it to a container of this sdfg",
    );
    has(
        &call("M = X[0], a = h, U = X, V = X"),
        "`X` is a container; a nested sdfg's symbol value may only use symbols and literals",
    );
}

#[test]
fn arguments_the_callee_does_not_take() {
    let e = errors(
        "
        sdfg O {
            host X: f64[4];
            sdfg Inner {
                host A: f64[4];
                transient host T: f64[4];
                state a {}
                state b {}
                a -> b { k = 1 }
            }
            state s { Inner(A = X, T = X, k = 2); }
        }",
    );
    has(
        &e,
        "`T` is a transient of nested sdfg `Inner`, not an argument",
    );
    has(&e, "`k` is not an argument of nested sdfg `Inner`");
}

#[test]
fn a_symbol_without_a_value() {
    let e = errors(
        "
        sdfg O {
            host X: f64[4];
            sdfg Inner {
                symbol K: i64;
                host A: f64[4];
                state s { tasklet t { A[0] = K as f64; } }
            }
            state s { Inner(A = X); }
        }",
    );
    has(
        &e,
        "missing symbol `K` of nested sdfg `Inner` | give its value: `Inner(K = ..., ...)`",
    );
}

#[test]
fn a_host_scalar_a_gpu_map_reads_binds_to_a_scalar() {
    let e = errors(
        "
        sdfg O {
            host H: f64[2];
            gpu G: f64[4];
            sdfg Inner {
                host a: f64;
                gpu A: f64[4];
                state s { map m[i in 0..4] on gpu { A[i] = a; } }
            }
            state s { Inner(a = H[1], A = G); }
        }",
    );
    has(&e, "`a` of `Inner` must be bound to a host scalar");
}

#[test]
fn recursion() {
    let e = errors(
        "
        sdfg O {
            host X: f64[4];
            sdfg A { host P: f64[4]; state s { B(Q = P); } }
            sdfg B { host Q: f64[4]; state s { A(P = Q); } }
            state s { A(P = X); }
        }",
    );
    has(
        &e,
        "recursive call of nested sdfg `A` | nested sdfgs are inlined",
    );
    has(&e, "the calls go `O` -> `A` -> `B` -> `A`");
    let e = errors(
        "
        sdfg O {
            host X: f64[4];
            sdfg A { host P: f64[4]; state s { O(X = P); } }
            state s { A(P = X); }
        }",
    );
    has(&e, "recursive call of nested sdfg `O`");
    let e = errors("sdfg O { host X: f64[4]; state s { O(X = X); } }");
    has(&e, "recursive call of nested sdfg `O`");
}

#[test]
fn a_callee_mistake_is_reported_once_however_often_it_is_called() {
    let e = errors(
        "
        sdfg O {
            host X: f64[4];
            gpu G: f64[4];
            sdfg Inner {
                host A: f64[4];
                gpu B: f64[4];
                state s { tasklet t { A[0] = B[0]; } }
            }
            state s { Inner(A = X, B = G); Inner(A = X, B = G); }
        }",
    );
    assert_eq!(e.len(), 1, "{e:#?}");
    // The same for a lowering mistake, and one of a callee nobody calls.
    let e = errors(
        "
        sdfg O {
            host X: f64[4];
            sdfg Inner { host A: f64[4]; state s { tasklet t { A[0] = Z; } } }
            sdfg Unused { host A: f64[4]; state s { tasklet t { A[0] = W; } } }
            state s { Inner(A = X); Inner(A = X); }
        }",
    );
    assert_eq!(e.len(), 2, "{e:#?}");
    has(&e, "cannot find `Z` in this sdfg");
    has(&e, "cannot find `W` in this sdfg");
}

#[test]
fn attributes_and_includes_do_not_fit_a_nested_sdfg() {
    let e = errors(
        "
        sdfg O {
            #[streams(auto)]
            sdfg Inner { host A: f64[4]; state s {} }
            state s {}
        }",
    );
    has(&e, "`#[streams(...)]` belongs on the outermost sdfg");
    let e = errors("sdfg O { sdfg Inner = include \"x.sdfg\"; state s {} }");
    has(&e, "a nested sdfg is written out");
}

// ------------------------------------------------------------ extern sdfg

const WITH_SOURCE: &str = "
    #[sdfg_rs_source { sdfg Inner { host A: f64[4]; state s { tasklet t { A[0] = 1.0; } } } }]
    sdfg Outer {
        extern sdfg lib::Inner as Local;
        host X: f64[4];
        state s { Local(A = X); }
    }";

#[test]
fn an_extern_sdfg_takes_the_source_its_replay_macro_brings() {
    let sdfg = ok(WITH_SOURCE);
    assert!(sdfg.state_by_name("Local_s").is_some());
    // What this program replays for others: its items, the extern replaced
    // by the source it received, under the name it uses.
    let ast = sdfg_compiler::parse::parse(WITH_SOURCE.parse().expect("lexes")).expect("parses");
    let text = sdfg_compiler::parse::external::replayed_items(&ast).to_string();
    assert!(text.starts_with("sdfg Outer {"), "{text}");
    assert!(text.contains("sdfg Local { host A"), "{text}");
    assert!(!text.contains("extern"), "{text}");
    assert!(ok(&text).state_by_name("Local_s").is_some());
}

#[test]
fn an_extern_sdfg_without_its_source_is_fetched_by_the_macro() {
    let src = "sdfg Outer { extern sdfg lib::Inner; host X: f64[4]; state s { Inner(A = X); } }";
    let e = errors(src);
    has(&e, "the source of `Inner` is not here");
    let expanded = sdfg_compiler::expand(src.parse().expect("lexes")).to_string();
    assert!(
        expanded.starts_with("lib :: Inner ! { sdfg Outer"),
        "{expanded}"
    );
    // Several externs arrive one per round, the latest source first.
    let two = "
        #[sdfg_rs_source { sdfg B { host Q: f64[4]; state s {} } }]
        #[sdfg_rs_source { sdfg A { host P: f64[4]; state s {} } }]
        sdfg Outer { extern sdfg A; extern sdfg B; extern sdfg C; host X: f64[4]; state s { A(P = X); B(Q = X); } }";
    let expanded = sdfg_compiler::expand(two.parse().expect("lexes")).to_string();
    assert!(expanded.starts_with("C ! {"), "{expanded}");
}

#[test]
fn every_program_defines_its_replay_macro() {
    let expanded = sdfg_compiler::expand(
        "pub sdfg Inner { host A: f64[4]; state s {} }"
            .parse()
            .expect("lexes"),
    )
    .to_string();
    assert!(
        expanded.contains("macro_rules ! __sdfg_replay_Inner"),
        "{expanded}"
    );
    assert!(
        expanded.contains("pub (crate) use __sdfg_replay_Inner as r#Inner"),
        "{expanded}"
    );
    assert!(
        expanded.contains(":: sdfg :: sdfg ! { # [sdfg_rs_source { sdfg Inner {"),
        "{expanded}"
    );
}

// ------------------------------------------------------- transients at zero

#[test]
fn a_call_that_may_run_again_clears_the_callees_transients_first() {
    let program = |edges: &str| {
        format!(
            "sdfg Outer {{
                host X: f64[4]; host Y: f64;
                sdfg Inner {{
                    host A: f64[4]; host S: f64;
                    transient host T: f64; transient host Full: f64[4];
                    state s {{
                        map full[i in 0..4] on cpu {{ Full[i] = A[i]; }}
                        map sum[i in 0..4] on cpu {{ T += Full[i]; }}
                        tasklet out {{ S = T; }}
                    }}
                }}
                state a {{}}
                state b {{ Inner(A = X, S = Y); }}
                {edges}
            }}"
        )
    };
    let once = ok(&program("a -> b;"));
    assert!(once.state_by_name("Inner_zero").is_none());
    let looped = ok(&program("a -> b; b -> a if Y < 10.0;"));
    let zero = looped
        .state_by_name("Inner_zero")
        .expect("a clearing state");
    // `T` is read before it is written; `Full`'s first writer covers it.
    let maps: Vec<&str> = looped.states[zero]
        .stmts
        .iter()
        .filter_map(|s| match &s.kind {
            sdfg_compiler::ir::StatementKind::Map(m) => Some(m.name.text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(maps, ["zero_Inner_T"]);
    let entry = looped
        .edges
        .iter()
        .find(|e| looped.states[e.to].name.text == "Inner_zero")
        .expect("the edge into the call");
    assert_eq!(looped.states[entry.from].name.text, "b");
}

#[test]
fn an_extern_sdfg_belongs_in_the_outermost_sdfg() {
    let e = errors(
        "sdfg Outer {
            sdfg Wrapper { extern sdfg lib::Scale; host A: f64[4]; state s { Scale(A = A); } }
            host X: f64[4];
            state s { Wrapper(A = X); }
        }",
    );
    has(&e, "`extern sdfg` belongs in the outermost sdfg");
    has(&e, "move `extern sdfg lib::Scale` there");
}
