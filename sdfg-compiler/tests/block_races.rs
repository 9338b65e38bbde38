//! Races in block maps through the front end: the dependence test of whole
//! maps decides both the races between block iterations (a thread map's
//! parameters are free variables there, block data is each block's own)
//! and those between the iterations of one thread map (the block's
//! parameters and block-level locals are fixed there).

use sdfg_compiler::frontend_str;

/// A block map `rows` over `r in 0..R` with `BODY`.
fn block(body: &str) -> String {
    format!(
        "sdfg S {{ symbol R: i64; symbol C: i64; \
         gpu X: f32[R, 256]; gpu Y: f32[R, 256]; gpu Out: f32[256]; gpu Offs: i64[R]; \
         gpu Perm: i64[256]; gpu Sum: f32[R]; \
         state s {{ map rows[r in 0..R] on gpu block(128) {{ {body} }} }} }}"
    )
}

fn errors(source: &str) -> Vec<String> {
    match frontend_str(source) {
        Ok(_) => panic!("accepted:\n{source}"),
        Err(d) => d.list.iter().map(|d| d.text()).collect(),
    }
}

fn accepted(source: &str) {
    if let Err(d) = frontend_str(source) {
        panic!("rejected:\n{source}\n{d}");
    }
}

#[test]
fn block_iterations_may_not_write_one_element() {
    let e = errors(&block(
        "map cols[c in 0..256] on threads { Out[c] = X[r, c]; }",
    ));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("two iterations of `rows` may write the same element of `Out`"),
        "{}",
        e[0]
    );
    assert!(e[0].contains("does not depend on `r`"), "{}", e[0]);
    // A block map has no `seq` form to suggest.
    assert!(!e[0].contains("on seq"), "{}", e[0]);
}

#[test]
fn block_data_is_each_block_iterations_own() {
    // Every block writes `tile[c]`: not a race between blocks.
    accepted(&block(
        "shared tile: f32[256]; \
         map load[c in 0..256] on threads { tile[c] = X[r, c]; } \
         map store[c in 0..256] on threads { Y[r, 255 - c] = tile[c]; }",
    ));
}

#[test]
fn thread_maps_see_block_level_values_as_fixed() {
    // `base` is loaded, but the same in every iteration of `scatter`.
    accepted(&block(
        "shared tile: f32[512]; let base = Offs[r] % 256; \
         map scatter[c in 0..256] on threads { tile[base + c] = X[r, c]; } \
         map back[c in 0..256] on threads { Y[r, c] = tile[base + c]; }",
    ));
    // Columns by a strided loop: `c + 32 * q` never meets `c' + 32 * q'`
    // for c != c' in 0..32 (decided by trying the bounded values).
    accepted(&block(
        "shared tile: f32[8, 256]; \
         map load[k in 0..8, c in 0..32] on threads { \
             for q in 0..8 { tile[k, c + 32 * q] = X[r, c + 32 * q]; } } \
         map back[c in 0..256] on threads { Y[r, c] = tile[0, c]; }",
    ));
    // Register-blocked rows `64 * h + 4 * t + i` (a gemm's split tile).
    accepted(&block(
        "register acc: f32[8]; \
         map fill[t in 0..16] on threads { for h in 0..2 { for i in 0..4 { acc[4 * h + i] = X[r, 64 * h + 4 * t + i]; } } } \
         map put[t in 0..16] on threads { for h in 0..2 { for i in 0..4 { Y[r, 64 * h + 4 * t + i] = acc[4 * h + i]; } } }",
    ));
    // ... but `64 * h + 4 * t + i` with `i in 0..5` overlaps.
    let e = errors(&block(
        "map put[t in 0..16] on threads { for h in 0..2 { for i in 0..5 { Y[r, 64 * h + 4 * t + i] = 1.0; } } }",
    ));
    assert!(
        e[0].contains("iterations of thread map `put` may write the same element of `Y`"),
        "{e:?}"
    );
    // A block-level loop variable is fixed too: each run of `load` fills
    // one row of the tile.
    accepted(&block(
        "shared tile: f32[8, 256]; \
         for k in 0..8 { map load[c in 0..256] on threads { tile[k, c] = X[r, c] * (k as f32); } } \
         map back[c in 0..256] on threads { Y[r, c] = tile[r % 8, c]; }",
    ));
}

#[test]
fn thread_map_races_name_both_accesses() {
    let e = errors(&block(
        "shared tile: f32[256]; \
         map shift[c in 0..255] on threads { tile[c + 1] = tile[c]; } \
         map back[c in 0..256] on threads { Y[r, c] = tile[c]; }",
    ));
    assert!(
        e.iter().any(|e| e.contains("thread map `shift` reads `tile[c]`, which another of its iterations may write (`tile[c + 1]`)")),
        "{e:?}"
    );
    let e = errors(&block(
        "shared tile: f32[256]; \
         map scatter[c in 0..256] on threads { tile[Perm[c]] = X[r, c]; } \
         map back[c in 0..256] on threads { Y[r, c] = tile[c]; }",
    ));
    assert!(
        e.iter()
            .any(|e| e.contains("may write the same element of `tile`")
                && e.contains("it depends on data read from `Perm`")),
        "{e:?}"
    );
    // Two writes that may meet (`2 * c` and `c + 1` at c = 1 and c' = 2).
    let e = errors(&block(
        "shared tile: f32[512]; \
         map two[c in 0..200] on threads { tile[2 * c] = 1.0; tile[c + 1] = 2.0; } \
         map back[c in 0..256] on threads { Y[r, c] = tile[c]; }",
    ));
    assert!(
        e.iter().any(|e| e.contains(
            "`tile[2 * c]` and `tile[c + 1]` in thread map `two` may write the same element"
        )),
        "{e:?}"
    );
    // Disjoint: even and odd elements.
    accepted(&block(
        "shared tile: f32[512]; \
         map two[c in 0..256] on threads { tile[2 * c] = 1.0; tile[2 * c + 1] = 2.0; } \
         map back[c in 0..256] on threads { Y[r, c] = tile[c]; }",
    ));
}

#[test]
fn register_data_and_reductions_do_not_race() {
    accepted(&block(
        "register acc: f32[2]; \
         map fill[c in 0..128] on threads { acc[0] = X[r, c]; acc[1] = X[r, c + 128]; } \
         map sum[c in 0..128] on threads { Sum[r] += acc[0] + acc[1]; }",
    ));
}

#[test]
fn a_let_of_the_block_parameter_is_a_dependence_on_it() {
    // `c` stands for `2 * r + t`: the witness names the subscripts, and
    // does not claim that they ignore `r`. `t in 0..4` overlaps the next
    // block's (`2 * r + 2 + t`), so two blocks may write one element.
    let e = errors(&block(
        "let base = 2 * r; \
         map w[t in 0..4] on threads { let c = base + t; Out[c] = X[r, t]; }",
    ));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("the subscripts can be equal in two iterations that differ in `r`"),
        "{}",
        e[0]
    );
    assert!(!e[0].contains("does not depend"), "{}", e[0]);
    // Without the overlap the test proves the blocks apart through the lets.
    accepted(&block(
        "let base = 4 * r; \
         map w[t in 0..4] on threads { let c = base + t; Y[0, c] = X[r, t]; }",
    ));
}

#[test]
fn a_loop_whose_bounds_read_the_block_parameter_is_named_in_the_witness() {
    let e = errors(&block(
        "for q in r..r + 2 { map w[t in 0..4] on threads { Y[q, t] = X[r, t]; } }",
    ));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("the test takes `q` as any value, since the bounds of its `for` loop read more than symbols and literals"),
        "{}",
        e[0]
    );
}

/// A tile of 30 elements computed by 32 threads: the two halo threads
/// store nothing, so the `if` that keeps them out bounds `t` for the
/// store and the blocks store into their own tiles. A bound one too wide,
/// or a read that all 32 threads' neighbours write, is still a race.
#[test]
fn an_if_that_bounds_a_thread_parameter_keeps_halo_threads_out() {
    let tile = |body: &str| {
        format!(
            "sdfg S {{ symbol N: i64; gpu X: f32[N]; gpu Y: f32[N]; \
             state s {{ map tiles[b in 0..N / 30] on gpu block(32) {{ \
             map t[t in 0..32] on threads {{ {body} }} }} }} }}"
        )
    };
    for body in [
        "if t < 30 { X[30 * b + t] = Y[30 * b + t]; }",
        "if 30i64 > t { X[30 * b + t] = 1.0; }",
        "if t <= 29 && 30 * b + t < N { X[30 * b + t] = 1.0; }",
        "let k = 30 * b + t; if k < N && t < 30 { X[k] = 1.0; }",
        "if t >= 30 { } else { X[30 * b + t] = 1.0; }",
        "if !(t >= 30) { X[30 * b + t] = 1.0; }",
        // Only the two halo threads store, each block past its own tile.
        "if t >= 30 { X[30 * b + t] = 1.0; }",
    ] {
        accepted(&tile(body));
    }
    for body in [
        "if t < 31 { X[30 * b + t] = 1.0; }",
        "if t != 30 { X[30 * b + t] = 1.0; }",
        "if t < 30 || t == 31 { X[30 * b + t] = 1.0; }",
        "if t < 30 { X[30 * b + t] = 1.0; } Y[30 * b + t] = X[30 * b + t];",
    ] {
        let e = errors(&tile(body));
        assert!(
            e.iter().any(|e| e.contains("two iterations of `tiles` may")
                || e.contains("an iteration of `tiles` may")),
            "{body}: {e:?}"
        );
    }
}

/// The same for a `for` variable of a flat map: two of its four values
/// store, so the iterations store into their own pairs.
#[test]
fn an_if_that_bounds_a_loop_variable_keeps_it_in_its_iteration() {
    let source = |cond: &str| {
        format!(
            "sdfg S {{ symbol N: i64; gpu X: f32[2 * N + 2]; \
             state s {{ map rows[i in 0..N] on gpu {{ \
             for q in 0..4 {{ if {cond} {{ X[2 * i + q] = 1.0; }} }} }} }} }}"
        )
    };
    accepted(&source("q < 2"));
    accepted(&source("q <= 1 && q >= 0"));
    let e = errors(&source("q < 3"));
    assert!(
        e[0].contains("two iterations of `rows` may write the same element of `X`"),
        "{e:?}"
    );
    // A bound over symbols that the range's bound does not provably
    // undercut is not taken (the range's is kept).
    let e = errors(&source("q < N"));
    assert!(e[0].contains("may write the same element of `X`"), "{e:?}");
}

/// Where the test cannot read a condition around a conflicting access, the
/// error says which ones (as they hold there) and how to write them, for
/// block iterations and for the iterations of a thread map alike.
#[test]
fn conditions_the_test_does_not_read_are_named() {
    let e = errors(&block(
        "map cols[c in 0..256] on threads { if X[r, c] > 0.0 && 2 * c < 256 { Out[c] = X[r, c]; } }",
    ));
    assert!(
        e[0].contains("`Out[c]` runs where `X[r, c] > 0.0` and `2 * c < 256` hold, which the test does not read"),
        "{e:?}"
    );
    assert!(e[0].contains("`#[independent(Out)]`"), "{e:?}");
    // Both accesses of a thread-map race, the second in the `else`.
    let e = errors(&block(
        "shared S: f32[256]; \
         map cols[c in 0..256] on threads { if X[r, c] > 0.0 { S[c] = 1.0; } else { S[0] = 2.0; } } \
         Y[r, 0] = S[0];",
    ));
    assert!(
        e.iter().any(|e| e.contains(
            "`S[c]` runs where `X[r, c] > 0.0` holds, `S[0]` where `!(X[r, c] > 0.0)` holds"
        )),
        "{e:?}"
    );
    // A condition the test reads is not named.
    let e = errors(&block(
        "map cols[c in 0..256] on threads { if c < 100 { Out[c] = X[r, c]; } }",
    ));
    assert!(!e[0].contains("which the test does not read"), "{e:?}");
}
