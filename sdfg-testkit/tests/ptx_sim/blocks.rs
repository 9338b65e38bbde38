//! Block maps on the interpreter, which runs every warp of a block up to
//! each `bar.sync` (a barrier some thread misses is an error there), against
//! the evaluator: the examples' SDFGs (softmax, dot with block partials,
//! gemm with shared tiles and register blocking) and one with every other
//! feature (block size from a symbol, dynamic shared memory, block-level
//! `let`/`if`/`for`, reductions into `gpu` data, shared atomics, a GPU
//! tasklet).

use super::*;

#[path = "../../../tests/common/fixtures.rs"]
#[allow(dead_code)]
mod fixtures;

const SOFTMAX: &str = fixtures::block_softmax!(stringify);
const SOFTMAX_REGISTERS: &str = fixtures::block_softmax_registers!(stringify);
const DOT: &str = fixtures::block_dot!(stringify);
const GEMM: &str = fixtures::block_gemm!(stringify);
const FEATURES: &str = fixtures::block_features!(stringify);
const TYPES: &str = fixtures::block_types!(stringify);

fn lower(src: &str) -> Sdfg {
    match sdfg_compiler::frontend_str(src) {
        Ok(s) => s,
        Err(d) => panic!("{d}"),
    }
}

/// Runs map `kernel` through the evaluator and the interpreter (each grid).
fn both(
    sdfg: &Sdfg,
    kernel: usize,
    symbols: &[Value],
    data: &Data,
    grid: [u32; 3],
) -> (Data, Data) {
    let m = generate(sdfg);
    let k = &m.kernels[kernel];
    let (want, fault) = eval_map(sdfg, k.state, k.stmt, symbols, data);
    assert!(fault.is_none(), "evaluator fault {fault:?}");
    let (got, fw) = simulate_map(sdfg, &m, kernel, symbols, data, grid)
        .unwrap_or_else(|e| panic!("{e}\n{}", m.text));
    assert_eq!(fw, 0, "fault word");
    (want, got)
}

fn floats(n: usize, seed: u64, scale: f32) -> Vec<Value> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| Value::F32(rng.signed_unit() as f32 * scale))
        .collect()
}

/// Small integers as floats: sums and products of them are exact, so every
/// order of a reduction gives the same bits.
fn small_ints(n: usize, seed: u64) -> Vec<Value> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| Value::F32((rng.next_u64() % 9) as f32 - 4.0))
        .collect()
}

fn f32s(d: &Data, c: ContainerId) -> Vec<f32> {
    d[&c]
        .1
        .iter()
        .map(|v| match v {
            Value::F32(x) => *x,
            _ => f32::NAN,
        })
        .collect()
}

#[test]
fn softmax_rows_match_the_evaluator() {
    let sdfg = lower(SOFTMAX);
    let x = sdfg.container_by_name("X").unwrap();
    let y = sdfg.container_by_name("Y").unwrap();
    // Rows shorter and longer than the block, one iteration per thread or four.
    for (rows, cols, grid) in [(3usize, 100usize, 2u32), (5, 512, 3), (2, 1, 1)] {
        let mut d = Data::new();
        d.insert(x, (vec![rows, cols], floats(rows * cols, cols as u64, 8.0)));
        d.insert(y, (vec![rows, cols], vec![Value::F32(0.0); rows * cols]));
        let syms = [Value::I64(rows as i64), Value::I64(cols as i64)];
        let (want, got) = both(&sdfg, 0, &syms, &d, [grid, 1, 1]);
        let (w, g) = (f32s(&want, y), f32s(&got, y));
        for r in 0..rows {
            let sum: f32 = g[r * cols..(r + 1) * cols].iter().sum();
            assert!((sum - 1.0).abs() < 1e-4, "row {r} sums to {sum}");
        }
        for (i, (a, b)) in g.iter().zip(&w).enumerate() {
            // exp within 1 ulp and a sum in another order.
            assert!(
                (a - b).abs() <= 1e-5 * b.abs().max(1e-30) + 1e-7,
                "[{i}] {a} vs {b}"
            );
        }
    }
}

#[test]
fn softmax_with_the_row_in_registers_matches_the_evaluator() {
    let sdfg = lower(SOFTMAX_REGISTERS);
    let x = sdfg.container_by_name("X").unwrap();
    let y = sdfg.container_by_name("Y").unwrap();
    // Rows of 512, 4 per thread of 128; more rows than blocks.
    for (rows, grid) in [(3usize, 2u32), (1, 1)] {
        let cols = 512;
        let mut d = Data::new();
        d.insert(
            x,
            (vec![rows, cols], floats(rows * cols, rows as u64 + 1, 8.0)),
        );
        d.insert(
            y,
            (vec![rows, cols], vec![Value::F32(f32::NAN); rows * cols]),
        );
        let syms = [Value::I64(rows as i64)];
        let (want, got) = both(&sdfg, 0, &syms, &d, [grid, 1, 1]);
        let (w, g) = (f32s(&want, y), f32s(&got, y));
        for (i, (a, b)) in g.iter().zip(&w).enumerate() {
            assert!(
                (a - b).abs() <= 1e-5 * b.abs().max(1e-30) + 1e-7,
                "[{i}] {a} vs {b}"
            );
        }
    }
}

#[test]
fn dot_block_partials_are_exact_on_small_integers() {
    let sdfg = lower(DOT);
    let (x, y, s, p) = ["X", "Y", "S", "P"]
        .map(|n| sdfg.container_by_name(n).unwrap())
        .into();
    for (blocks, chunk) in [(3usize, 1000usize), (5, 37), (1, 1)] {
        let n = blocks * chunk;
        let mut d = Data::new();
        d.insert(x, (vec![blocks, chunk], small_ints(n, 1)));
        d.insert(y, (vec![blocks, chunk], small_ints(n, 2)));
        d.insert(s, (vec![], vec![Value::F32(2.0)]));
        d.insert(p, (vec![blocks], vec![Value::F32(0.0); blocks]));
        let syms = [Value::I64(blocks as i64), Value::I64(chunk as i64)];
        let (want, got) = both(&sdfg, 0, &syms, &d, [2, 1, 1]);
        assert_eq!(f32s(&got, p), f32s(&want, p), "partials");
        // The second map reduces the partials.
        let (want2, got2) = both(&sdfg, 1, &syms, &got, [1, 1, 1]);
        assert_eq!(f32s(&got2, s), f32s(&want2, s));
        let exact: f32 = f32s(&d, x)
            .iter()
            .zip(f32s(&d, y))
            .map(|(a, b)| a * b)
            .sum::<f32>()
            + 2.0;
        assert_eq!(f32s(&got2, s)[0], exact, "the sum is added to S");
    }
}

#[test]
fn gemm_tiles_and_register_blocks_are_exact_on_small_integers() {
    let sdfg = lower(GEMM);
    let (a, b, c) = ["A", "B", "C"]
        .map(|n| sdfg.container_by_name(n).unwrap())
        .into();
    for (m, n, k, grid) in [
        (128usize, 128usize, 16usize, 1u32),
        (256, 128, 32, 1),
        (128, 256, 48, 2),
    ] {
        let mut d = Data::new();
        d.insert(a, (vec![m, k], small_ints(m * k, 3)));
        d.insert(b, (vec![k, n], small_ints(k * n, 4)));
        d.insert(c, (vec![m, n], vec![Value::F32(-1.0); m * n]));
        let syms = [
            Value::I64(m as i64),
            Value::I64(n as i64),
            Value::I64(k as i64),
        ];
        let (want, got) = both(&sdfg, 0, &syms, &d, [grid, 1, 1]);
        assert_eq!(f32s(&got, c), f32s(&want, c), "{m}x{n}x{k}");
    }
}

#[test]
fn block_features_match_the_evaluator_exactly() {
    let sdfg = lower(FEATURES);
    let id = |n: &str| sdfg.container_by_name(n).unwrap();
    for (rows, cols, threads, grid) in [
        (4usize, 50usize, 64i64, 2u32),
        (3, 7, 33, 1),
        (5, 300, 128, 3),
    ] {
        let mut rng = Rng::new(rows as u64);
        let mut d = Data::new();
        d.insert(
            id("X"),
            (
                vec![rows, cols],
                (0..rows * cols)
                    .map(|_| Value::I32((rng.next_u64() % 201) as i32 - 100))
                    .collect(),
            ),
        );
        d.insert(
            id("Out"),
            (vec![rows, cols], vec![Value::I32(0); rows * cols]),
        );
        d.insert(id("Hist"), (vec![rows, 8], vec![Value::I32(0); rows * 8]));
        d.insert(id("Total"), (vec![], vec![Value::I64(5)]));
        d.insert(id("Seed"), (vec![], vec![Value::I64(0)]));
        let syms = [
            Value::I64(rows as i64),
            Value::I64(cols as i64),
            Value::I64(threads),
        ];
        // Kernel 0: the GPU tasklet; kernel 1: the block map.
        let (want, got) = both(&sdfg, 0, &syms, &d, [1, 1, 1]);
        assert_eq!(got[&id("Seed")].1, want[&id("Seed")].1);
        assert_eq!(got[&id("Seed")].1, vec![Value::I64(7)]);
        let (want, got) = both(&sdfg, 1, &syms, &d, [grid, 1, 1]);
        for name in ["Out", "Hist", "Total"] {
            assert_eq!(
                got[&id(name)].1,
                want[&id(name)].1,
                "{name} ({rows} x {cols}, {threads} threads)"
            );
        }
    }
}

#[test]
fn a_reduction_into_gpu_data_is_one_atomic_per_block_iteration() {
    let sdfg = lower(FEATURES);
    let m = generate(&sdfg);
    let id = |n: &str| sdfg.container_by_name(n).unwrap();
    // `Total += row[c] as i64` in a thread map: warp shuffles, one shared
    // step, then one global atomic per block iteration (not per thread, not
    // per warp), whatever the grid and the block size.
    let text = kernel_text(&m.text, &m.kernels[1].abi.name);
    assert!(text.contains("shfl.sync.bfly"), "{text}");
    for (rows, cols, threads, grid) in [
        (5usize, 300usize, 128i64, 2u32),
        (7, 64, 96, 3),
        (3, 5, 33, 1),
    ] {
        let mut d = Data::new();
        d.insert(
            id("X"),
            (vec![rows, cols], vec![Value::I32(1); rows * cols]),
        );
        d.insert(
            id("Out"),
            (vec![rows, cols], vec![Value::I32(0); rows * cols]),
        );
        d.insert(id("Hist"), (vec![rows, 8], vec![Value::I32(0); rows * 8]));
        d.insert(id("Total"), (vec![], vec![Value::I64(0)]));
        d.insert(id("Seed"), (vec![], vec![Value::I64(0)]));
        let syms = [
            Value::I64(rows as i64),
            Value::I64(cols as i64),
            Value::I64(threads),
        ];
        let (got, fault, atomics) = simulate_map_atomics(&sdfg, &m, 1, &syms, &d, [grid, 1, 1])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(fault, None);
        let want: i64 = (0..rows).map(|r| (1 + 3 * r as i64) * cols as i64).sum();
        assert_eq!(got[&id("Total")].1, vec![Value::I64(want)]);
        assert_eq!(
            atomics[&id("Total")],
            rows as u64,
            "{rows} rows, {threads} threads"
        );
        for plain in ["Out", "Hist", "X"] {
            assert_eq!(atomics[&id(plain)], 0, "{plain}");
        }
    }
}

#[test]
fn block_reductions_into_shared_data_shuffle_then_combine_once() {
    // `mx = mx.max(..)` and `sum += ..` into shared scalars (softmax, a block
    // of 128 threads: 4 warps): shuffles within each warp, then the warps'
    // values meet in shared memory; no atomics at all.
    let sdfg = lower(SOFTMAX);
    let m = generate(&sdfg);
    let text = kernel_text(&m.text, &m.kernels[0].abi.name);
    assert!(text.matches("shfl.sync.bfly").count() >= 2, "{text}");
    assert!(
        !text.contains("atom.shared") && !text.contains("red.shared"),
        "{text}"
    );
    assert!(
        !text.contains("atom.global") && !text.contains("red.global"),
        "{text}"
    );
}

/// A shared element that a thread map reduces into both at a uniform
/// index (`S[6] +=`) and at one that depends on the iteration (`S[b + i]
/// +=`, which is `S[6]` in block 3 for `i = 3`) is updated by atomics
/// alone. With a partial for `S[6]`, thread 0 of a one-warp block added the
/// block's value with a plain load and store, unordered after the other
/// lanes' atomics: the interpreter reported the race (the race property
/// test found it, seed 5).
#[test]
fn a_uniform_reduction_target_that_other_iterations_update_stays_atomic() {
    let sdfg = lower(
        "sdfg S { gpu X: f32[8]; state s { map b[b0 in 0..8] on gpu block(32) { \
         shared S: f32[64]; \
         map init[q in 0..64] on threads { S[q] = 0.0; } \
         map m[i in 0..32] on threads { if i >= 4 { S[6] += 1.5; } else { S[b0 + i] += 1.0; } } \
         X[b0] = S[6]; } } }",
    );
    let m = generate(&sdfg);
    let text = kernel_text(&m.text, &m.kernels[0].abi.name);
    assert!(!text.contains("shfl.sync.bfly"), "{text}");
    let x = sdfg.container_by_name("X").unwrap();
    let mut d = Data::new();
    d.insert(x, (vec![8], vec![Value::F32(-1.0); 8]));
    let (want, got) = both(&sdfg, 0, &[], &d, [3, 1, 1]);
    assert_eq!(f32s(&got, x), f32s(&want, x));
    // 28 threads add 1.5; in blocks 3 to 6, thread 6 - b0 adds 1 too.
    let exact: Vec<f32> = (0..8)
        .map(|b| 42.0 + if (3..=6).contains(&b) { 1.0 } else { 0.0 })
        .collect();
    assert_eq!(f32s(&got, x), exact);
}

/// A block map whose range reads an earlier parameter (a triangle): the
/// kernel computes each block iteration's parameters outermost first (the
/// inner range's start reads the outer parameter), skips the iterations of
/// the box outside the triangle, and checks every access itself, since the
/// host prechecks none in such a map: past the end of `X` and `Y` the
/// thread map's update and the block reduction's single update are skipped
/// and reported in the fault word, and the interpreter (which fails on any
/// byte outside a buffer) sees no access out of them. The kernel used to
/// start the inner range at a wrong register, run the whole box, and take
/// the accesses as prechecked (the race property test found it, seed 22
/// with conditions of other coefficients).
#[test]
fn a_triangular_block_map_runs_its_triangle_and_checks_its_accesses() {
    let sdfg = lower(
        "sdfg S { symbol N: i64; gpu X: f64[8]; gpu Y: f64[8]; state s { \
         map b[b0 in 0..N, b1 in b0..N] on gpu block(32) { \
         map t[i in 0..1] on threads { X[4 * b0 + b1 + i] += 1.0; } \
         map u[i in 0..4] on threads { Y[4 * b0 + b1] += 1.0; } } } }",
    );
    let m = generate(&sdfg);
    let (x, y) = (
        sdfg.container_by_name("X").unwrap(),
        sdfg.container_by_name("Y").unwrap(),
    );
    let mut d = Data::new();
    d.insert(x, (vec![8], vec![Value::F64(0.0); 8]));
    d.insert(y, (vec![8], vec![Value::F64(0.0); 8]));
    // N = 2: (0, 0), (0, 1), (1, 1), as the evaluator runs them.
    for grid in [[1, 1, 1], [2, 1, 1], [5, 1, 1]] {
        let (want, got) = both(&sdfg, 0, &[Value::I64(2)], &d, grid);
        assert_eq!(got[&x].1, want[&x].1, "X, grid {grid:?}");
        assert_eq!(got[&y].1, want[&y].1, "Y, grid {grid:?}");
    }
    // N = 3: the block (2, 2) reaches element 10.
    let (got, fault) = simulate_map(&sdfg, &m, 0, &[Value::I64(3)], &d, [2, 1, 1])
        .unwrap_or_else(|e| panic!("{e}\n{}", m.text));
    assert_ne!(fault, 0, "the fault word reports the access past `X`");
    let at =
        |c, v: f64| -> Vec<usize> { (0..8).filter(|&k| got[&c].1[k] == Value::F64(v)).collect() };
    assert_eq!(at(x, 1.0), vec![0, 1, 2, 5, 6]);
    assert_eq!(at(y, 4.0), vec![0, 1, 2, 5, 6]);
}

/// The text of kernel `name` in a module (from its `.entry` to the next).
fn kernel_text<'t>(module: &'t str, name: &str) -> &'t str {
    let start = module
        .find(&format!(".entry {name}("))
        .unwrap_or_else(|| panic!("no kernel {name}"));
    let rest = &module[start..];
    let end = rest[1..].find(".entry ").map_or(rest.len(), |e| e + 1);
    &rest[..end]
}

#[test]
fn an_inclusive_thread_map_range_runs_up_to_the_type_maximum() {
    let sdfg = lower(
        "sdfg T {
            symbol M: i64;
            gpu Out: i64[4];
            state s {
                map one[z in 0..1] on gpu block(32) {
                    map w[c in M - 3..=M] on threads { Out[c - (M - 3)] = c; }
                }
            }
        }",
    );
    let out = sdfg.container_by_name("Out").unwrap();
    for m in [i64::MAX, 10] {
        let mut d = Data::new();
        d.insert(out, (vec![4], vec![Value::I64(0); 4]));
        let (want, got) = both(&sdfg, 0, &[Value::I64(m)], &d, [1, 1, 1]);
        let expect: Vec<Value> = (m - 3..=m).map(Value::I64).collect();
        assert_eq!(want[&out].1, expect, "evaluator, M = {m}");
        assert_eq!(got[&out].1, expect, "PTX, M = {m}");
    }
}

/// `shared` and `register` data of f16, bf16, c32, c64, i16 and bool: the
/// PTX (16-bit floats widened in registers, complex pairs through
/// `ld.v2`/`st.v2` in every state space) computes what the evaluator does,
/// bit for bit, on grids smaller and larger than the block count.
#[test]
fn block_data_of_every_type_matches_the_evaluator() {
    use sdfg_compiler::ir::Value as V;
    let sdfg = lower(TYPES);
    let id = |n: &str| sdfg.container_by_name(n).unwrap();
    let n = 256usize;
    let f = |i: usize, k: u64| ((i as u64 * 2654435761 + k * 40503) % 2001) as f32 / 250.0 - 4.0;
    let mut d = Data::new();
    let mut put = |name: &str, values: Vec<Value>| {
        d.insert(id(name), (vec![n], values));
    };
    put(
        "H",
        (0..n)
            .map(|i| V::F16(half::f16::from_f32(f(i, 1))))
            .collect(),
    );
    put(
        "B",
        (0..n)
            .map(|i| V::BF16(half::bf16::from_f32(f(i, 2))))
            .collect(),
    );
    put(
        "Z",
        (0..n)
            .map(|i| V::C32(num_complex::Complex::new(f(i, 3), f(i, 4))))
            .collect(),
    );
    put(
        "W",
        (0..n)
            .map(|i| {
                V::C64(num_complex::Complex::new(
                    f(i, 5) as f64 / 3.0,
                    f(i, 6) as f64 + 0.5,
                ))
            })
            .collect(),
    );
    put(
        "I",
        (0..n)
            .map(|i| V::I16((i as i16).wrapping_mul(397)))
            .collect(),
    );
    for (out, zero) in [
        ("HO", V::F16(half::f16::ZERO)),
        ("BO", V::BF16(half::bf16::ZERO)),
        ("ZO", V::C32(num_complex::Complex::new(0.0, 0.0))),
        ("WO", V::C64(num_complex::Complex::new(0.0, 0.0))),
        ("IO", V::I16(0)),
        ("PO", V::Bool(false)),
    ] {
        put(out, vec![zero; n]);
    }
    d.insert(
        id("HS"),
        (vec![n / 64], vec![V::F16(half::f16::NAN); n / 64]),
    );
    d.insert(
        id("ZS"),
        (vec![1], vec![V::C32(num_complex::Complex::new(0.5, 0.0))]),
    );
    for grid in [1u32, 3, 8] {
        let (want, got) = both(&sdfg, 0, &[V::I64(n as i64)], &d, [grid, 1, 1]);
        for out in ["HO", "BO", "ZO", "WO", "IO", "PO", "HS", "ZS"] {
            let bits = |data: &Data| -> Vec<String> {
                data[&id(out)]
                    .1
                    .iter()
                    .map(|v| format!("{:x}", v.to_bits()))
                    .collect()
            };
            assert_eq!(bits(&got), bits(&want), "{out}, grid {grid}");
        }
    }
}

/// The interpreter checks the barriers: two threads touching one byte of
/// `shared` or `gpu` memory between two barriers, one writing it, is an
/// error. Every barrier of the examples' kernels is needed: with any one
/// of them deleted, the run reports the race it let through (the tests
/// above pass with all of them, so none of these kernels races).
#[test]
fn deleting_any_barrier_is_a_race_the_interpreter_reports() {
    // Symbol values (in declaration order): two block iterations on one
    // block, so the barriers at the back edge of the block map matter too.
    let softmax: &[(&str, &[usize])] = &[("X", &[2, 200]), ("Y", &[2, 200])];
    let gemm: &[(&str, &[usize])] = &[("A", &[256, 32]), ("B", &[32, 128]), ("C", &[256, 128])];
    for (name, src, symbol_values, shapes) in [
        ("softmax", SOFTMAX, vec![2i64, 200], softmax),
        ("gemm", GEMM, vec![256, 128, 32], gemm),
    ] {
        let sdfg = lower(src);
        let m = generate(&sdfg);
        let symbols: Vec<Value> = symbol_values.iter().map(|&v| Value::I64(v)).collect();
        let mut data = Data::new();
        for (k, (container, shape)) in shapes.iter().enumerate() {
            let c = sdfg.container_by_name(container).unwrap();
            let n = shape.iter().product();
            data.insert(c, (shape.to_vec(), small_ints(n, k as u64)));
        }
        let barriers: Vec<usize> = m
            .text
            .match_indices("bar.sync 0;")
            .map(|(at, _)| at)
            .collect();
        assert!(barriers.len() >= 3, "{name}: {}", m.text);
        simulate_map(&sdfg, &m, 0, &symbols, &data, [1, 1, 1])
            .unwrap_or_else(|e| panic!("{name} with every barrier: {e}"));
        for at in barriers {
            let mut cut = m.clone();
            cut.text.replace_range(at..at + "bar.sync 0;".len(), "");
            match simulate_map(&sdfg, &cut, 0, &symbols, &data, [1, 1, 1]) {
                Err(e) => assert!(e.contains("race: thread"), "{name}: {e}"),
                Ok(_) => panic!(
                    "{name}: no race reported without the barrier at byte {at}:\n{}",
                    cut.text
                ),
            }
        }
    }
}
