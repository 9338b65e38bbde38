//! The nesting limits of parse/limits.rs: past each one, an error at the
//! user's token, not a crash; below them, long expressions lower. The
//! deep inputs run on a thread with a large stack, as the macro does.

use sdfg_compiler::parse::limits::{MAX_EXPR_DEPTH, MAX_GROUP_DEPTH, MAX_NESTING, MAX_TOKENS};

fn on_a_large_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("no panic")
}

/// The diagnostics of a map body `Y[i] = VALUE;`, or None when accepted.
fn value(value: String) -> Option<String> {
    on_a_large_stack(move || {
        let source = format!(
            "sdfg S {{ gpu X: f64[4]; gpu Y: f64[4]; state s {{ map m[i in 0..4] on gpu {{ Y[i] = {value}; }} }} }}"
        );
        sdfg_compiler::frontend_str(&source)
            .err()
            .map(|d| d.to_string())
    })
}

#[test]
fn long_sums_lower() {
    let terms = |n: usize| vec!["X[i]"; n].join(" + ");
    assert_eq!(value(terms(2000)), None);
    assert_eq!(value(terms(MAX_EXPR_DEPTH - 8)), None);
    let e = value(terms(MAX_EXPR_DEPTH + 8)).expect("too deep");
    assert!(
        e.contains(&format!(
            "this expression has operations nested deeper than {MAX_EXPR_DEPTH} levels"
        )),
        "{e}"
    );
}

#[test]
fn nested_parentheses_stop_at_the_group_limit() {
    let nested = |n: usize| format!("{}X[i]{}", "(".repeat(n), ")".repeat(n));
    assert_eq!(value(nested(200)), None);
    let e = value(nested(1000)).expect("too deep");
    assert!(
        e.contains(&format!(
            "brackets, parentheses and braces nest deeper than {MAX_GROUP_DEPTH} levels"
        )),
        "{e}"
    );
}

#[test]
fn unary_chains_stop_at_the_nesting_limit() {
    let e = value(format!("{}X[i]", "-".repeat(MAX_NESTING + 10))).expect("too deep");
    assert!(
        e.contains(&format!(
            "this expression nests deeper than {MAX_NESTING} levels"
        )),
        "{e}"
    );
    assert_eq!(value(format!("{}X[i]", "-".repeat(100))), None);
    // Right-nested operands without parentheses nest too: a * b + c * d
    // is shallow, `x.min(x.min(x.min(...)))` is not.
    let mut e = "X[i]".to_string();
    for _ in 0..MAX_NESTING + 10 {
        e = format!("X[i].min({e})");
    }
    assert!(value(e).expect("too deep").contains("deeper than"));
    // A method chain is flat.
    assert_eq!(value(format!("X[i]{}", ".abs()".repeat(1000))), None);
}

#[test]
fn the_token_limit_comes_before_anything_recursive() {
    let e = value(format!("{}X[i]", "-".repeat(MAX_TOKENS))).expect("too long");
    assert!(
        e.contains(&format!("has more than {MAX_TOKENS} tokens")),
        "{e}"
    );
}
