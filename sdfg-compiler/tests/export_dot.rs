//! The Graphviz drawings: structure checks on the DOT text, and (when
//! Graphviz is installed) a render of each test SDFG to SVG and PNG, which
//! must succeed without warnings. `SDFG_EXPORT_DIR` keeps the pictures.

mod common;

use common::*;
use sdfg_compiler::export::dot::to_dot;
use sdfg_compiler::schedule::schedule;
use std::path::{Path, PathBuf};
use std::process::Command;

fn out_dir() -> PathBuf {
    let dir = match std::env::var_os("SDFG_EXPORT_DIR") {
        Some(d) => PathBuf::from(d).join("dot"),
        None => Path::new(env!("CARGO_TARGET_TMPDIR")).join("export_dot"),
    };
    std::fs::create_dir_all(&dir).expect("create the output directory");
    dir
}

fn graphviz() -> Option<String> {
    let dot = std::env::var("SDFG_DOT").unwrap_or_else(|_| "dot".to_string());
    Command::new(&dot).arg("-V").output().ok().map(|_| dot)
}

#[test]
fn repro_drawing_shows_streams_syncs_and_edges() {
    let sdfg = repro();
    let sched = schedule(&sdfg);
    let text = to_dot(&sdfg, Some(&sched));
    // Two state clusters and the interstate edge with its assignments.
    assert!(text.contains("subgraph cluster_s0"), "{text}");
    assert!(text.contains("subgraph cluster_s1"), "{text}");
    assert!(text.contains("label=\"state first (start)\""), "{text}");
    assert!(text.contains("R = T\\nS = false"), "{text}");
    // The map box, the copy, the host tasklet's body in Rust syntax.
    assert!(text.contains("map write[i in 0..1] on gpu"), "{text}");
    assert!(text.contains("copy T_GPU -&gt; T"), "{text}");
    assert!(text.contains("U[0] = T + 1;"), "{text}");
    // Memlets as edge labels.
    assert!(text.contains("label=\"X[i]\""), "{text}");
    // Each GPU operation carries its stream, each sync point is drawn.
    let gpu_ops = sched.states[0].stream_of.iter().flatten().count();
    assert_eq!(gpu_ops, 2, "the kernel and the copy run on the GPU");
    let streams = text.matches("default stream").count() + text.matches("stream 0").count();
    assert!(streams >= gpu_ops, "{text}");
    let syncs: usize = sched.states.iter().map(|s| s.syncs.len()).sum();
    assert!(syncs >= 1, "reading T on the host needs a sync: {sched:?}");
    assert_eq!(text.matches("sync T").count(), syncs, "{text}");
    // Without a schedule: no stream, no sync.
    let plain = to_dot(&sdfg, None);
    assert!(
        !plain.contains("stream") && !plain.contains("sync "),
        "{plain}"
    );
}

#[test]
fn jacobi_drawing_shows_the_loop_and_wcr_is_marked() {
    let text = to_dot(&jacobi2d(), None);
    assert!(text.contains("1. if t + 1 < TSTEPS\\nt = t + 1"), "{text}");
    assert!(text.contains("2. if t + 1 >= TSTEPS"), "{text}");
    // The stencil's five reads of A: one edge, one line each.
    assert!(
        text.contains("label=\"A[i, j]\\nA[i, j - 1]\\nA[i, j + 1]\\nA[i + 1, j]\\nA[i - 1, j]\""),
        "{text}"
    );
    assert!(
        text.contains(
            "B[i, j] = 0.2 * (A[i, j] + A[i, j - 1] + A[i, j + 1] + A[i + 1, j] + A[i - 1, j]);"
        ),
        "{text}"
    );
    assert!(text.contains("(empty)"), "empty states are drawn: {text}");
    let wcr = to_dot(&wcr_sum(), None);
    assert!(wcr.contains("S[0] (+= wcr)"), "{wcr}");
    let dynamic = to_dot(&cpu_only(), None);
    assert!(dynamic.contains("Y[..] dynamic"), "{dynamic}");
    // Write after read: the ordering edge is dashed.
    let copies = to_dot(&copy_subsets(), None);
    assert!(copies.contains("copy A[2..12] -&gt; B[0..10]"), "{copies}");
}

#[test]
fn graphviz_renders_every_drawing() {
    let Some(dot) = graphviz() else {
        if std::env::var("SDFG_REQUIRE_DOT").as_deref() == Ok("1") {
            panic!("SDFG_REQUIRE_DOT=1 but Graphviz `dot` is not installed");
        }
        println!("skipped: no Graphviz (`dot`)");
        return;
    };
    let dir = out_dir();
    for sdfg in all() {
        let sched = schedule(&sdfg);
        let name = &sdfg.name.text;
        let path = dir.join(format!("{name}.dot"));
        std::fs::write(&path, to_dot(&sdfg, Some(&sched))).expect("write .dot");
        for fmt in ["svg", "png"] {
            let target = dir.join(format!("{name}.{fmt}"));
            let out = Command::new(&dot)
                .arg(format!("-T{fmt}"))
                .arg(&path)
                .arg("-o")
                .arg(&target)
                .output()
                .expect("run dot");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success() && stderr.trim().is_empty(),
                "{name}.{fmt}: {stderr}"
            );
        }
    }
    println!("drawings in {}", dir.display());
}
