//! Block maps in the compiler: where the barriers go and why (the IR, the
//! schedule and the DOT drawing show them), that each kernel has exactly
//! those `bar.sync`s, that ptxas accepts every module without spilling,
//! GPU tasklets, and `mul_add`.

mod common;

use common::*;
use sdfg_compiler::codegen::ptx::{generate, ptxas};
use sdfg_compiler::ir::*;
use sdfg_compiler::schedule::schedule;

fn block_map(sdfg: &Sdfg) -> &Map {
    sdfg.states
        .iter()
        .flat_map(|s| &s.stmts)
        .find_map(|st| match &st.kind {
            StatementKind::Map(m) if m.block.is_some() => Some(m),
            _ => None,
        })
        .expect("a block map")
}

/// The reasons of the barriers of the first block map of `src`.
fn reasons(src: &str) -> Vec<String> {
    let sdfg = lower(src);
    barriers(&block_map(&sdfg).body.stmts)
        .iter()
        .map(|b| b.reason.to_string())
        .collect()
}

#[test]
fn softmax_barriers_and_their_reasons() {
    let sdfg = lower(BLOCK_SOFTMAX);
    let s = schedule(&sdfg);
    let blocks = &s.states[0].blocks;
    assert_eq!(blocks.len(), 1);
    let phase: Vec<&str> = blocks[0]
        .phase_barriers
        .iter()
        .map(|b| b.reason.as_str())
        .collect();
    assert_eq!(
        phase,
        [
            "the block-level store to `sum` writes `sum`, which `scale` read in the previous iteration of block map `row`",
            "`exp_sum` reads `mx`, which `reduce_max` reduced into",
            "`scale` reads `sum`, which `exp_sum` reduced into",
        ]
    );
    let reductions: Vec<(&str, Vec<&str>)> = blocks[0]
        .reduction_barriers
        .iter()
        .map(|(t, cs)| {
            (
                t.as_str(),
                cs.iter()
                    .map(|&c| sdfg.containers[c].name.text.as_str())
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        reductions,
        [("reduce_max", vec!["mx"]), ("exp_sum", vec!["sum"])]
    );
}

#[test]
fn barriers_go_exactly_where_phases_conflict() {
    let wrap = |body: &str| {
        format!(
            "sdfg B {{ symbol R: i64; gpu X: f32[R, 64]; gpu Y: f32[R, 64]; state s {{
                map rows[r in 0..R] on gpu block(64) {{ {body} }} }} }}"
        )
    };
    // Read after write of shared data, by other threads: a barrier; and
    // one before the next block iteration's write of what this one reads.
    assert_eq!(
        reasons(&wrap(
            "shared t: f32[64];
             map load[c in 0..64] on threads { t[c] = X[r, c]; }
             map use_it[c in 0..64] on threads { Y[r, c] = t[63 - c]; }"
        )),
        [
            "`load` writes `t`, which `use_it` read in the previous iteration of block map `rows`",
            "`use_it` reads `t`, which `load` wrote",
        ]
    );
    // Different data: no barrier between the phases, and none at the top:
    // the next block iteration's `load` writes each `t[c]` on the thread
    // that wrote it in this one (see
    // `a_thread_map_meeting_only_its_own_elements_needs_no_barrier`).
    assert_eq!(
        reasons(&wrap(
            "shared t: f32[64]; shared u: f32[64];
             map load[c in 0..64] on threads { t[c] = X[r, c]; }
             map other[c in 0..64] on threads { u[c] = 1.0; }"
        )),
        Vec::<String>::new()
    );
    // Two stores by thread 0 need none; every thread reading what thread 0
    // stored needs one.
    assert_eq!(
        reasons(&wrap(
            "shared s: f32;
             s = 1.0;
             s = s + 1.0;
             map use_it[c in 0..64] on threads { Y[r, c] = s; }"
        )),
        [
            "the block-level store to `s` writes `s`, which `use_it` read in the previous iteration of block map `rows`",
            "`use_it` reads `s`, which the block-level store to `s` wrote",
        ]
    );
    // Global data between block iterations needs none (iterations of a map
    // do not conflict); within an iteration it does.
    assert_eq!(
        reasons(&wrap(
            "map a[c in 0..64] on threads { Y[r, c] = X[r, c]; }
             map b[c in 0..64] on threads { X[r, c] = Y[r, 63 - c]; }"
        )),
        ["`b` reads `Y`, which `a` wrote"]
    );
    // A loop: the load of the next step waits for the reads of this one.
    assert_eq!(
        reasons(&wrap(
            "shared t: f32[64];
             for k in 0..4 {
                 map load[c in 0..64] on threads { t[c] = X[r, c] * k as f32; }
                 map add[c in 0..64] on threads { Y[r, c] += t[c]; }
             }"
        )),
        [
            "`load` writes `t`, which `add` read in the previous iteration of `for k`",
            "`add` reads `t`, which `load` wrote",
        ]
    );
}

/// A thread map whose accesses of a container meet only accesses of its
/// own, in another run (the next iteration of a block-level `for`, the
/// next block iteration), needs no barrier when each element belongs to
/// one of its iterations in every run: the same thread touches it each
/// time. Where the compiler cannot prove that, the barrier stays and its
/// reason says so.
/// A block reduction in a block of one warp has no barrier of its own
/// (its shuffles leave the value in every lane, and thread 0 updates the
/// target right away); a shuffle orders no memory, so what other lanes
/// wrote to the target before needs a barrier before the thread map. (The
/// random thread maps of `race_property.rs` found this on the PTX
/// interpreter, which reports two threads meeting between barriers.)
#[test]
fn a_one_warp_block_reduction_waits_for_what_other_lanes_wrote() {
    let wrap = |block: &str| {
        format!(
            "sdfg B {{ symbol R: i64; gpu Y: f64[R]; state s {{
                map rows[r in 0..R] on gpu {block} {{
                    shared t: f64[64];
                    map init[c in 0..64] on threads {{ t[c] = 0.0; }}
                    map sum[c in 3..6] on threads {{ t[5] += 1.5; }}
                    Y[r] = t[5];
                }} }} }}"
        )
    };
    let back_edge = "`init` writes `t`, which the block-level store to `Y` read in the previous iteration of block map `rows`";
    assert_eq!(
        reasons(&wrap("block(32)")),
        [back_edge, "`sum` reduces into `t`, which `init` wrote"]
    );
    // With slots, the reduction's own barrier orders them.
    assert_eq!(reasons(&wrap("block(64)")), [back_edge]);
}

#[test]
fn a_thread_map_meeting_only_its_own_elements_needs_no_barrier() {
    let wrap = |body: &str| {
        format!(
            "sdfg B {{ symbol R: i64; gpu X: f32[R, 64]; gpu Y: f32[R, 64]; state s {{
                map rows[r in 0..R] on gpu block(64) {{ {body} }} }} }}"
        )
    };
    // Each step adds into its own elements; only the read by `out` (other
    // threads) needs a barrier, and the next block iteration's `init`
    // after `out`'s reads.
    let own = wrap(
        "shared t: f32[128];
         map init[c in 0..128] on threads { t[c] = 0.0; }
         for k in 0..4 {
             map add[c in 0..128] on threads { t[c] = t[c] + X[r, c / 2] * k as f32; }
         }
         map out[c in 0..64] on threads { Y[r, c] = t[127 - c]; }",
    );
    assert_eq!(
        reasons(&own),
        [
            "`init` writes `t`, which `out` read in the previous iteration of block map `rows`",
            "`add` reads `t`, which `init` wrote",
            "`out` reads `t`, which `add` wrote",
        ]
    );
    // Indices from loops inside the thread map, over its parameters.
    assert_eq!(
        reasons(&wrap(
            "shared t: f32[4, 64];
             for k in 0..3 {
                 map acc[c in 0..64] on threads {
                     for j in 0..4 { t[j, c] = X[r, c] * j as f32; }
                 }
             }"
        )),
        Vec::<String>::new()
    );
    // Not proven: an index from a block-level value (another thread may
    // have written the element in the previous iteration) ...
    assert_eq!(
        reasons(&wrap(
            "shared t: f32[68];
             for k in 0..4 {
                 map w[c in 0..64] on threads { t[c + k] = X[r, c]; }
             }"
        )),
        ["`w` writes `t`, which `w` wrote in the previous iteration of `for k` (perhaps on the same thread, but not proven: an index of `t` uses `k`)"]
    );
    // ... a range from one ...
    assert_eq!(
        reasons(&wrap(
            "shared t: f32[64];
             for k in 1..4 {
                 map w[c in 0..64 / k] on threads { t[c] = X[r, c]; }
             }"
        )),
        ["`w` writes `t`, which `w` wrote in the previous iteration of `for k` (perhaps on the same thread, but not proven: the range of `c` uses `k`)"]
    );
    // ... a local of the body, or a reduction into the data.
    assert_eq!(
        reasons(&wrap(
            "shared t: f32[64];
             for k in 0..2 {
                 map w[c in 0..64] on threads { let j = 63 - c; t[j] = X[r, c]; }
             }"
        )),
        ["`w` writes `t`, which `w` wrote in the previous iteration of `for k` (perhaps on the same thread, but not proven: an index of `t` uses `j`)"]
    );
    assert_eq!(
        reasons(&wrap(
            "for k in 0..2 {
                 map w[c in 0..64] on threads { Y[r, c % 8] += X[r, c]; }
             }"
        )),
        ["`w` reduces into `Y`, which `w` reduced into in the previous iteration of `for k` (perhaps on the same thread, but not proven: `w` reduces into `Y`)"]
    );
    // `gpu` data may be indexed by the block map's parameters (fixed
    // within a block iteration, and block iterations share no `gpu` data).
    assert_eq!(
        reasons(&wrap(
            "for k in 0..2 {
                 map w[c in 0..64] on threads { Y[r, c] = Y[r, c] + X[r, c]; }
             }"
        )),
        Vec::<String>::new()
    );
    // The kernels have exactly these barriers.
    let module = generate(&lower(&own));
    assert_eq!(
        module.text.matches("bar.sync").count(),
        3,
        "{}",
        module.text
    );
    let none = wrap(
        "shared t: f32[64];
         for k in 0..4 { map w[c in 0..64] on threads { t[c] = X[r, c] + k as f32; } }",
    );
    assert_eq!(generate(&lower(&none)).text.matches("bar.sync").count(), 0);
    // The schedule and the DOT drawing say why a conservative barrier is there.
    let kept = lower(&wrap(
        "shared t: f32[68];
         for k in 0..4 { map w[c in 0..64] on threads { t[c + k] = X[r, c]; } }",
    ));
    let sched = schedule(&kept);
    let note = "perhaps on the same thread, but not proven: an index of `t` uses `k`";
    assert!(sched.states[0].blocks[0].phase_barriers[0]
        .reason
        .contains(note));
    let dot = sdfg_compiler::export::dot::to_dot(&kept, Some(&sched));
    assert!(dot.contains(note), "{dot}");
}

#[test]
fn each_kernel_has_exactly_the_scheduled_barriers() {
    for sdfg in block_maps() {
        let s = schedule(&sdfg);
        let module = generate(&sdfg);
        for (state_id, st) in s.states.iter().enumerate() {
            for b in &st.blocks {
                let kernel = module.kernel(state_id, b.stmt).expect("kernel");
                let text = module
                    .text
                    .split(".visible .entry ")
                    .find(|t| t.starts_with(&format!("{}(", kernel.abi.name)))
                    .expect("entry");
                let count = text.matches("bar.sync").count();
                assert_eq!(
                    count,
                    b.phase_barriers.len() + b.reduction_barriers.len(),
                    "{} ({})",
                    kernel.abi.name,
                    sdfg.name.text
                );
            }
        }
    }
}

#[test]
fn dot_draws_block_maps_thread_maps_and_barriers() {
    let sdfg = lower(BLOCK_SOFTMAX);
    let dot = sdfg_compiler::export::dot::to_dot(&sdfg, Some(&schedule(&sdfg)));
    assert!(
        dot.contains("map row[r in 0..ROWS] on gpu block(128)"),
        "{dot}"
    );
    assert!(dot.contains("map reduce_max[c in 0..COLS] on threads"));
    assert!(dot.contains("// barrier: `exp_sum` reads `mx`, which `reduce_max` reduced into"));
    assert!(dot.contains("// block reduction (max) into `mx`"));
}

#[test]
fn ptxas_accepts_every_block_kernel_without_spills() {
    for sdfg in block_maps() {
        let module = generate(&sdfg);
        let log = match ptxas::assemble_check(&module.text) {
            Ok(Some(log)) => log,
            Ok(None) => {
                if std::env::var("SDFG_REQUIRE_PTXAS").as_deref() == Ok("1") {
                    panic!("SDFG_REQUIRE_PTXAS=1 but no ptxas");
                }
                println!("skipped: no ptxas");
                return;
            }
            Err(e) => panic!("ptxas rejected {}: {e}\n{}", sdfg.name.text, module.text),
        };
        for usage in ptxas::resource_usage(&log) {
            assert_eq!(usage.spill_stores, 0, "{} spills: {log}", usage.function);
            assert_eq!(usage.spill_loads, 0, "{} spills: {log}", usage.function);
            if usage.function.ends_with("_tile") {
                // 256 threads: two blocks per SM need at most 128 registers.
                assert!(usage.registers <= 128, "{log}");
            }
        }
    }
}

#[test]
fn gpu_tasklets_run_on_one_thread() {
    let sdfg = lower(BLOCK_FEATURES);
    let module = generate(&sdfg);
    let seed = module
        .kernels
        .iter()
        .find(|k| k.abi.name.ends_with("_seed"))
        .expect("the tasklet's kernel");
    assert_eq!(seed.block, [1, 1, 1]);
    let StatementKind::Map(m) = &sdfg.states[seed.state].stmts[seed.stmt].kind else {
        panic!("a gpu tasklet is a map without parameters");
    };
    assert!(m.gpu_tasklet && m.params.is_empty() && m.schedule == MapSchedule::Gpu);
}

#[test]
fn register_data_lives_in_registers_when_unrolled() {
    let module = generate(&lower(BLOCK_GEMM));
    // The 8 x 8 block and the two fragments: no thread-local memory.
    assert!(
        !module.text.contains(".local"),
        "register data went to .local"
    );
    // Fragments come from shared memory 16 bytes at a time.
    assert!(module.text.matches("ld.shared.v4.f32").count() >= 4);
    assert!(module.text.contains("fma.rn.f32"));
}

/// A block kernel of a constant size of 129 to 256 launched threads asks
/// ptxas for room for two blocks per SM (`.maxntid` of the launched size,
/// whole warps, and `.minnctapersm 2`: at most 128 registers at 256
/// threads); smaller blocks (two always fit), larger ones and sizes from
/// symbols get no directive.
#[test]
fn block_kernels_of_up_to_256_threads_ask_for_two_blocks_per_sm() {
    let header = |src: &str| {
        let text = generate(&lower(src)).text;
        let entry = text.find(".visible .entry").expect("an entry");
        let body = text[entry..].find('{').expect("a body") + entry;
        text[entry..body].to_string()
    };
    let gemm = header(BLOCK_GEMM);
    assert!(
        gemm.contains(".maxntid 256, 1, 1\n.minnctapersm 2"),
        "{gemm}"
    );
    let wrap = |block: &str| {
        format!(
            "sdfg B {{ symbol R: i64; symbol T: i64; gpu X: f32[R, 64]; state s {{
                map rows[r in 0..R] on gpu {block} {{
                    map w[c in 0..64] on threads {{ X[r, c] = 1.0; }} }} }} }}"
        )
    };
    let odd = header(&wrap("block(129)"));
    assert!(odd.contains(".maxntid 160, 1, 1\n.minnctapersm 2"), "{odd}");
    for block in [
        "block(128)",
        "block(32)",
        "block(257)",
        "block(1024)",
        "block(T)",
    ] {
        let h = header(&wrap(block));
        assert!(
            !h.contains(".maxntid") && !h.contains(".minnctapersm"),
            "{block}: {h}"
        );
    }
}

#[test]
fn mul_add_is_one_rounding_everywhere() {
    let sdfg = lower(
        "sdfg F { gpu A: f64[4]; state s { map m[i in 0..1] on gpu {
            A[0] = A[1].mul_add(A[2], A[3]);
            A[1] = 2.0f64.mul_add(A[2], 1.0);
        } } }",
    );
    assert!(generate(&sdfg).text.contains("fma.rn.f64"));
    // The evaluator: exactly Rust's mul_add (not a * b + c).
    let (a, b, c) = (0.1f64, 10.0f64, -1.0f64);
    let got = sdfg_compiler::eval::call(
        MathFn::MulAdd,
        &[Value::F64(a), Value::F64(b), Value::F64(c)],
    );
    assert_eq!(got, Value::F64(a.mul_add(b, c)));
    assert_ne!(
        a.mul_add(b, c),
        a * b + c,
        "the example must tell them apart"
    );
    // Integers have no mul_add.
    let err = sdfg_compiler::frontend_str(
        "sdfg G { host H: i64[4]; state s { tasklet t { H[0] = H[1].mul_add(H[2], H[3]); } } }",
    )
    .unwrap_err();
    assert!(err.to_string().contains("`mul_add` needs a float"), "{err}");
}

/// The examples' kernels are fast because the host proves every index in
/// bounds before the launch: none of them records a fault (no guarded
/// access, no `atom.cas` on the fault slot).
#[test]
fn the_example_kernels_check_no_index_on_the_gpu() {
    for (name, src) in [
        ("softmax rows in registers", BLOCK_SOFTMAX_REGISTERS),
        ("dot", BLOCK_DOT),
        ("gemm", BLOCK_GEMM),
    ] {
        let module = generate(&lower(src));
        assert!(
            !module.text.contains("atom.cas"),
            "{name}:\n{}",
            module.text
        );
    }
}
