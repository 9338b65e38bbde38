//! Block maps end to end, on the CPU device and (when there is one) the GPU:
//! softmax with one block per row (also with the row in registers), a dot
//! product with block partials, a
//! tiled matrix multiply with shared tiles and register blocks, and the
//! other features (block size from a symbol, dynamic shared memory,
//! block-level `let`/`if`/`for`, reductions into `gpu` data, shared
//! atomics, a GPU tasklet), against plain Rust. Block reductions combine in
//! a fixed order for a block size, the same on both devices, so results of
//! order-dependent float sums agree between the devices bit for bit (not
//! through `exp`, which is Rust's on the CPU device and within 1 ulp of it
//! on the GPU).

mod common;
use sdfg::prelude::*;
use sdfg_testkit::rng::Rng;

common::fixtures::block_softmax!(sdfg);
common::fixtures::block_softmax_registers!(sdfg);
common::fixtures::block_dot!(sdfg);
common::fixtures::block_gemm!(sdfg);
common::fixtures::block_gemm_runner!();
common::fixtures::block_features!(sdfg);

fn softmax_reference(rows: usize, cols: usize, x: &[f32]) -> Vec<f32> {
    let mut y = vec![0f32; rows * cols];
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let mx = row.iter().fold(-3.4e38f32, |a, &b| a.max(b));
        let e: Vec<f32> = row.iter().map(|&v| (v - mx).exp()).collect();
        let sum: f32 = e.iter().sum();
        for c in 0..cols {
            y[r * cols + c] = e[c] / sum;
        }
    }
    y
}

/// `y` is the softmax of each row of `x` (rows of `cols`), within 1e-6
/// absolute plus 1e-5 relative.
fn assert_row_softmax(x: &[f32], y: &[f32], cols: usize, device: &Device) {
    let want = softmax_reference(x.len() / cols, cols, x);
    assert_eq!(y.len(), want.len(), "on {}", device.name());
    for (i, (a, b)) in y.iter().zip(&want).enumerate() {
        assert!(
            (a - b).abs() <= 1e-6 + 1e-5 * b.abs(),
            "[{i}] {a} vs {b} on {}",
            device.name()
        );
    }
}

#[test]
fn softmax_one_block_per_row() {
    for device in common::devices("block softmax") {
        let (rows, cols) = (67usize, 300usize);
        let mut rng = Rng::new(5);
        let x: Vec<f32> = (0..rows * cols)
            .map(|_| rng.signed_unit() as f32 * 20.0)
            .collect();
        let program = BlockSoftmax::load(&device).unwrap();
        let dx = DeviceBuffer::from_slice(&device, &x).unwrap();
        let mut dy = DeviceBuffer::<f32>::zeros(&device, rows * cols).unwrap();
        program
            .run(BlockSoftmaxArgs {
                ROWS: rows as i64,
                COLS: cols as i64,
                X: &dx,
                Y: &mut dy,
            })
            .unwrap();
        let y = dy.to_vec().unwrap();
        assert_row_softmax(&x, &y, cols, &device);
    }
    // Not bit for bit between the devices: `exp` is Rust's on the CPU
    // device and the PTX program (within 1 ulp) on the GPU.
}

#[test]
fn softmax_with_the_row_in_registers() {
    let (rows, cols) = (37usize, 512usize);
    for device in common::devices("block softmax in registers") {
        let mut rng = Rng::new(11);
        let x: Vec<f32> = (0..rows * cols)
            .map(|_| rng.signed_unit() as f32 * 20.0)
            .collect();
        let program = BlockSoftmaxRegisters::load(&device).unwrap();
        let dx = DeviceBuffer::from_slice(&device, &x).unwrap();
        let mut dy = DeviceBuffer::from_slice(&device, &vec![f32::NAN; rows * cols]).unwrap();
        program
            .run(BlockSoftmaxRegistersArgs {
                ROWS: rows as i64,
                X: &dx,
                Y: &mut dy,
            })
            .unwrap();
        let y = dy.to_vec().unwrap();
        assert_row_softmax(&x, &y, cols, &device);
    }
}

#[test]
fn dot_with_block_partials() {
    let mut results = Vec::new();
    for device in common::devices("block dot") {
        let (blocks, chunk) = (37usize, 1000usize);
        let n = blocks * chunk;
        let mut rng = Rng::new(9);
        let x: Vec<f32> = (0..n).map(|_| rng.signed_unit() as f32).collect();
        let y: Vec<f32> = (0..n).map(|_| rng.signed_unit() as f32).collect();
        let program = BlockDot::load(&device).unwrap();
        let (dx, dy) = (
            DeviceBuffer::from_slice(&device, &x).unwrap(),
            DeviceBuffer::from_slice(&device, &y).unwrap(),
        );
        // The total is added to S's old value.
        let mut ds = DeviceBuffer::from_slice(&device, &[0.5f32]).unwrap();
        program
            .run(BlockDotArgs {
                BLOCKS: blocks as i64,
                CHUNK: chunk as i64,
                X: &dx,
                Y: &dy,
                S: &mut ds,
            })
            .unwrap();
        let got = ds.to_vec().unwrap()[0];
        let exact: f64 = 0.5
            + x.iter()
                .zip(&y)
                .map(|(a, b)| *a as f64 * *b as f64)
                .sum::<f64>();
        let bound: f64 = x
            .iter()
            .zip(&y)
            .map(|(a, b)| (*a as f64 * *b as f64).abs())
            .sum::<f64>()
            * 1e-6;
        assert!(
            (got as f64 - exact).abs() <= bound,
            "{got} vs {exact} on {}",
            device.name()
        );
        results.push(got.to_bits());
    }
    if let [cpu, gpu] = results.as_slice() {
        assert_eq!(cpu, gpu, "CPU device and GPU differ");
    }
}

#[test]
fn gemm_with_shared_tiles_and_register_blocks() {
    // K = 16: a single step, whose prefetch of the "next" tiles is clamped
    // to its own.
    for (device, (m, n, k)) in common::devices("block gemm").into_iter().flat_map(|d| {
        [
            (d.clone(), (256usize, 128usize, 48usize)),
            (d, (128, 256, 16)),
        ]
    }) {
        let mut rng = Rng::new(13);
        // Small integers: every sum is exact, in any order.
        let a: Vec<f32> = (0..m * k)
            .map(|_| (rng.next_u64() % 7) as f32 - 3.0)
            .collect();
        let b: Vec<f32> = (0..k * n)
            .map(|_| (rng.next_u64() % 7) as f32 - 3.0)
            .collect();
        let c = gemm_on(&device, (m, n, k), &a, &b);
        for i in 0..m {
            for j in 0..n {
                let want: f32 = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
                assert_eq!(c[i * n + j], want, "C[{i}, {j}] on {}", device.name());
            }
        }
    }
}

/// The gemm kernel on the simulator (all 256 threads of a block, warp by
/// warp up to each barrier): two block iterations on one block, three
/// steps of k, against plain Rust (small integers: exact in any order).
#[test]
fn gemm_kernel_simulated() {
    use sdfg::compiler::ir::Value;
    use sdfg_testkit::harness::{simulate_map, Data};
    let (m, n, k) = (256usize, 128usize, 48usize);
    let mut rng = Rng::new(17);
    let mut small = |len: usize| -> Vec<f32> {
        (0..len)
            .map(|_| (rng.next_u64() % 5) as f32 - 2.0)
            .collect()
    };
    let (a, b) = (small(m * k), small(k * n));
    let ir = BlockGemm::ir().unwrap();
    let ptx = sdfg::compiler::codegen::ptx::generate(&ir);
    let id = |name: &str| ir.container_by_name(name).unwrap();
    let values = |v: &[f32]| v.iter().map(|&x| Value::F32(x)).collect::<Vec<_>>();
    let mut data = Data::new();
    data.insert(id("A"), (vec![m, k], values(&a)));
    data.insert(id("B"), (vec![k, n], values(&b)));
    data.insert(id("C"), (vec![m, n], vec![Value::F32(f32::NAN); m * n]));
    let syms = [m, n, k].map(|d| Value::I64(d as i64));
    let (got, fault) = simulate_map(&ir, &ptx, 0, &syms, &data, [1, 1, 1]).unwrap();
    assert_eq!(fault, 0);
    let want: Vec<Value> = (0..m * n)
        .map(|e| {
            let (i, j) = (e / n, e % n);
            Value::F32((0..k).map(|p| a[i * k + p] * b[p * n + j]).sum())
        })
        .collect();
    assert!(got[&id("C")].1 == want, "the simulated gemm differs");
}

#[test]
fn block_features_match_plain_rust() {
    for device in common::devices("block features") {
        for (rows, cols, threads) in [(6usize, 50usize, 64i64), (5, 7, 33), (4, 300, 128)] {
            let mut rng = Rng::new(rows as u64);
            let x: Vec<i32> = (0..rows * cols)
                .map(|_| (rng.next_u64() % 201) as i32 - 100)
                .collect();
            let program = BlockFeatures::load(&device).unwrap();
            let dx = DeviceBuffer::from_slice(&device, &x).unwrap();
            let mut out = DeviceBuffer::<i32>::zeros(&device, rows * cols).unwrap();
            let mut hist = DeviceBuffer::<i32>::zeros(&device, rows * 8).unwrap();
            let mut total = DeviceBuffer::from_slice(&device, &[5i64]).unwrap();
            let mut seed = DeviceBuffer::<i64>::zeros(&device, 1).unwrap();
            program
                .run(BlockFeaturesArgs {
                    R: rows as i64,
                    C: cols as i64,
                    T: threads,
                    X: &dx,
                    Out: &mut out,
                    Hist: &mut hist,
                    Total: &mut total,
                    Seed: &mut seed,
                })
                .unwrap();
            let (mut want_out, mut want_hist, mut want_total) =
                (vec![0i32; rows * cols], vec![0i32; rows * 8], 5i64);
            for r in 0..rows {
                let row: Vec<i32> = (0..cols)
                    .map(|c| x[r * cols + c] + (r * 3) as i32)
                    .collect();
                for &v in &row {
                    want_hist[r * 8 + (v % 8 + 8) as usize % 8] += 1;
                    want_total += v as i64;
                }
                for c in 0..cols {
                    want_out[r * cols + c] = if r % 2 == 0 {
                        row[cols - 1 - c]
                    } else {
                        row[c] * 2
                    };
                }
            }
            let what = format!("{rows} x {cols}, {threads} threads, {}", device.name());
            assert_eq!(out.to_vec().unwrap(), want_out, "Out, {what}");
            assert_eq!(hist.to_vec().unwrap(), want_hist, "Hist, {what}");
            assert_eq!(total.to_vec().unwrap(), [want_total], "Total, {what}");
            assert_eq!(seed.to_vec().unwrap(), [7], "Seed, {what}");
        }
    }
}

#[test]
fn a_block_size_from_symbols_is_checked_before_any_work() {
    let device = Device::cpu();
    let program = BlockFeatures::load(&device).unwrap();
    let dx = DeviceBuffer::from_slice(&device, &[1i32; 8]).unwrap();
    let mut out = DeviceBuffer::<i32>::zeros(&device, 8).unwrap();
    let mut hist = DeviceBuffer::<i32>::zeros(&device, 8).unwrap();
    let mut total = DeviceBuffer::from_slice(&device, &[0i64]).unwrap();
    let mut seed = DeviceBuffer::<i64>::zeros(&device, 1).unwrap();
    let err = program
        .run(BlockFeaturesArgs {
            R: 1,
            C: 8,
            T: 2048,
            X: &dx,
            Out: &mut out,
            Hist: &mut hist,
            Total: &mut total,
            Seed: &mut seed,
        })
        .unwrap_err();
    assert!(err.to_string().contains("block map `rows`"), "{err}");
    // The state's other work did not run either: the GPU tasklet is in it.
    assert_eq!(seed.to_vec().unwrap(), [0]);
}

/// The CPU device follows the GPU kernel's combination order: its results
/// equal, bit for bit, those of the kernel's PTX run on the interpreter
/// (random floats, so sums depend on the order).
#[test]
fn cpu_device_and_the_simulated_kernel_agree_bit_for_bit() {
    use sdfg::compiler::ir::Value;
    use sdfg_testkit::harness::{simulate_map, Data};
    let device = Device::cpu();
    // Softmax.
    let (rows, cols) = (3usize, 700usize);
    let mut rng = Rng::new(21);
    let x: Vec<f32> = (0..rows * cols)
        .map(|_| rng.signed_unit() as f32 * 10.0)
        .collect();
    let program = BlockSoftmax::load(&device).unwrap();
    let dx = DeviceBuffer::from_slice(&device, &x).unwrap();
    let mut dy = DeviceBuffer::<f32>::zeros(&device, rows * cols).unwrap();
    program
        .run(BlockSoftmaxArgs {
            ROWS: rows as i64,
            COLS: cols as i64,
            X: &dx,
            Y: &mut dy,
        })
        .unwrap();
    let cpu = dy.to_vec().unwrap();
    let ir = BlockSoftmax::ir().unwrap();
    let ptx = sdfg::compiler::codegen::ptx::generate(&ir);
    let (cx, cy) = (
        ir.container_by_name("X").unwrap(),
        ir.container_by_name("Y").unwrap(),
    );
    let mut data = Data::new();
    data.insert(
        cx,
        (vec![rows, cols], x.iter().map(|&v| Value::F32(v)).collect()),
    );
    data.insert(cy, (vec![rows, cols], vec![Value::F32(0.0); rows * cols]));
    let syms = [Value::I64(rows as i64), Value::I64(cols as i64)];
    let (got, fault) = simulate_map(&ir, &ptx, 0, &syms, &data, [2, 1, 1]).unwrap();
    assert_eq!(fault, 0);
    let sim: Vec<f32> = got[&cy]
        .1
        .iter()
        .map(|v| match v {
            Value::F32(f) => *f,
            _ => f32::NAN,
        })
        .collect();
    // exp is the same function on both (1 ulp from Rust's, differently):
    // compare the reductions, which the sums of each row expose.
    for r in 0..rows {
        let (a, b) = (
            &cpu[r * cols..(r + 1) * cols],
            &sim[r * cols..(r + 1) * cols],
        );
        for (i, (p, q)) in a.iter().zip(b).enumerate() {
            assert!(
                (p - q).abs() <= 2.0 * f32::EPSILON * p.abs().max(q.abs()),
                "row {r} [{i}] {p} vs {q}"
            );
        }
    }

    // Dot: only + and *, so the bits must be equal.
    let (blocks, chunk) = (5usize, 999usize);
    let n = blocks * chunk;
    let xs: Vec<f32> = (0..n).map(|_| rng.signed_unit() as f32).collect();
    let ys: Vec<f32> = (0..n).map(|_| rng.signed_unit() as f32).collect();
    let program = BlockDot::load(&device).unwrap();
    let (dx, dy) = (
        DeviceBuffer::from_slice(&device, &xs).unwrap(),
        DeviceBuffer::from_slice(&device, &ys).unwrap(),
    );
    let mut ds = DeviceBuffer::<f32>::zeros(&device, 1).unwrap();
    program
        .run(BlockDotArgs {
            BLOCKS: blocks as i64,
            CHUNK: chunk as i64,
            X: &dx,
            Y: &dy,
            S: &mut ds,
        })
        .unwrap();
    let cpu = ds.to_vec().unwrap()[0];
    let ir = BlockDot::ir().unwrap();
    let ptx = sdfg::compiler::codegen::ptx::generate(&ir);
    let id = |n: &str| ir.container_by_name(n).unwrap();
    let mut data = Data::new();
    data.insert(
        id("X"),
        (
            vec![blocks, chunk],
            xs.iter().map(|&v| Value::F32(v)).collect(),
        ),
    );
    data.insert(
        id("Y"),
        (
            vec![blocks, chunk],
            ys.iter().map(|&v| Value::F32(v)).collect(),
        ),
    );
    data.insert(id("S"), (vec![], vec![Value::F32(0.0)]));
    data.insert(id("P"), (vec![blocks], vec![Value::F32(0.0); blocks]));
    let syms = [Value::I64(blocks as i64), Value::I64(chunk as i64)];
    let (partials, _) = simulate_map(&ir, &ptx, 0, &syms, &data, [3, 1, 1]).unwrap();
    let (total, _) = simulate_map(&ir, &ptx, 1, &syms, &partials, [1, 1, 1]).unwrap();
    assert_eq!(total[&id("S")].1, vec![Value::F32(cpu)]);

    // A block of one warp: its reductions are the warp's shuffles alone.
    let n = 1000usize;
    let xs: Vec<f32> = (0..n).map(|_| rng.signed_unit() as f32).collect();
    let program = WarpSums::load(&device).unwrap();
    let dx = DeviceBuffer::from_slice(&device, &xs).unwrap();
    let mut ds = DeviceBuffer::<f32>::zeros(&device, 3).unwrap();
    program
        .run(WarpSumsArgs {
            N: n as i64,
            X: &dx,
            S: &mut ds,
        })
        .unwrap();
    let cpu = ds.to_vec().unwrap();
    let ir = WarpSums::ir().unwrap();
    let ptx = sdfg::compiler::codegen::ptx::generate(&ir);
    assert!(
        !ptx.text.contains("_red_"),
        "a block of one warp has no reduction slots"
    );
    let id = |n: &str| ir.container_by_name(n).unwrap();
    let mut data = Data::new();
    data.insert(
        id("X"),
        (vec![n], xs.iter().map(|&v| Value::F32(v)).collect()),
    );
    data.insert(id("S"), (vec![3], vec![Value::F32(0.0); 3]));
    let (got, _) = simulate_map(&ir, &ptx, 0, &[Value::I64(n as i64)], &data, [2, 1, 1]).unwrap();
    let sim: Vec<Value> = cpu.iter().map(|&v| Value::F32(v)).collect();
    assert_eq!(got[&id("S")].1, sim);
}

sdfg! {
    /// Three sums of `X * (b + 1)` by blocks of one warp (its block
    /// reductions are shuffles only: no slots, no barrier of their own).
    pub sdfg WarpSums {
        symbol N: i64;
        gpu X: f32[N];
        gpu S: f32[3];
        state s {
            map w[b in 0..3] on gpu block(32) {
                shared part: f32;
                part = 0.0;
                map t[i in 0..N] on threads { part += X[i] * (b as f32 + 1.0); }
                S[b] = part;
            }
        }
    }
}

sdfg::sdfg! {
    /// `block` alone (the compiler picks 256 threads), `.min()`/`.max()`
    /// block reductions into `shared` elements, an inclusive thread-map
    /// range longer than the block (strided over it).
    pub sdfg BlockAuto {
        symbol R: i64;
        symbol C: i64;
        gpu X: i64[R, C];
        gpu Lo: i64[R];
        gpu Hi: i64[R];
        state s {
            map rows[r in 0..R] on gpu block {
                shared m: i64[2];
                m[0] = 9000000000000000000;
                m[1] = -9000000000000000000;
                map scan[c in 0..=C - 1] on threads {
                    m[0] = m[0].min(X[r, c]);
                    m[1] = m[1].max(X[r, c]);
                }
                Lo[r] = m[0];
                Hi[r] = m[1];
            }
        }
    }
}

#[test]
fn the_compiler_picks_the_block_size_and_reduces_min_max_into_shared_elements() {
    let sdfg = BlockAuto::ir().expect("ir");
    let block = sdfg
        .states
        .iter()
        .flat_map(|s| &s.stmts)
        .find_map(|st| match &st.kind {
            sdfg::compiler::ir::StatementKind::Map(m) => m.block.as_ref(),
            _ => None,
        })
        .expect("a block map");
    assert_eq!(block.constant_threads(), Some(256));
    for device in common::devices("block auto") {
        for (rows, cols) in [(3usize, 1000usize), (4, 1), (2, 256)] {
            let mut rng = Rng::new(cols as u64);
            let x: Vec<i64> = (0..rows * cols)
                .map(|_| (rng.next_u64() % 2_000_001) as i64 - 1_000_000)
                .collect();
            let program = BlockAuto::load(&device).unwrap();
            let dx = DeviceBuffer::from_slice(&device, &x).unwrap();
            let mut lo = DeviceBuffer::<i64>::zeros(&device, rows).unwrap();
            let mut hi = DeviceBuffer::<i64>::zeros(&device, rows).unwrap();
            program
                .run(BlockAutoArgs {
                    R: rows as i64,
                    C: cols as i64,
                    X: &dx,
                    Lo: &mut lo,
                    Hi: &mut hi,
                })
                .unwrap();
            let row = |r: usize| x[r * cols..(r + 1) * cols].iter().copied();
            let want_lo: Vec<i64> = (0..rows).map(|r| row(r).min().unwrap()).collect();
            let want_hi: Vec<i64> = (0..rows).map(|r| row(r).max().unwrap()).collect();
            let what = format!("{rows} x {cols} on {}", device.name());
            assert_eq!(lo.to_vec().unwrap(), want_lo, "{what}");
            assert_eq!(hi.to_vec().unwrap(), want_hi, "{what}");
        }
    }
}

sdfg! {
    /// Four steps that each add into a thread map's own elements of a
    /// shared row (no barrier between them: each `t[c]` stays with one
    /// thread), then a read of other threads' elements (a barrier).
    pub sdfg OwnSteps {
        symbol R: i64;
        gpu X: f32[R, 128];
        gpu Y: f32[R, 64];
        state s {
            map rows[r in 0..R] on gpu block(64) {
                shared t: f32[128];
                map init[c in 0..128] on threads { t[c] = 0.0; }
                for k in 0..4 {
                    map add[c in 0..128] on threads { t[c] = t[c] + X[r, c] * (k + 1) as f32; }
                }
                map out[c in 0..64] on threads { Y[r, c] = t[127 - c] - t[c]; }
            }
        }
    }
}

sdfg::sdfg! {
    /// Reductions from every block iteration into one `gpu` element: from
    /// a thread map (each block's tree, then the block's value) and from a
    /// block-level statement.
    pub sdfg BlockTotals {
        symbol BLOCKS: i64;
        symbol CHUNK: i64;
        gpu X: f32[BLOCKS, CHUNK];
        gpu S: f32;
        gpu T: f32;
        gpu M: f32;
        state s {
            map rows[b in 0..BLOCKS] on gpu block(64) {
                shared part: f32;
                part = 0.0;
                map t[i in 0..CHUNK] on threads {
                    part += X[b, i];
                    S += X[b, i] * 0.5f32;
                    M = M.max(X[b, i]);
                }
                T += part;
            }
        }
    }
}

/// The barriers a thread map does not need between its own elements are
/// gone (PTX), and the program still computes the same on the CPU device,
/// on the simulated kernel (whose warps run in turn up to each barrier, so
/// a missing barrier shows as stale data), and on the GPU when there is one.
#[test]
fn steps_on_a_thread_maps_own_elements_run_without_barriers() {
    use sdfg::compiler::ir::Value;
    use sdfg_testkit::harness::{simulate_map, Data};
    let ir = OwnSteps::ir().unwrap();
    let ptx = sdfg::compiler::codegen::ptx::generate(&ir);
    // Before `add` (after `init`, once per step: the loop body has one
    // place) and before `out`, and at the top for the next block
    // iteration's `init` after `out`'s reads; none between the steps.
    assert_eq!(ptx.text.matches("bar.sync").count(), 3, "{}", ptx.text);
    assert!(!ptx.text.contains("which `add` wrote in the previous"));
    let rows = 5usize;
    let mut rng = Rng::new(5);
    let x: Vec<f32> = (0..rows * 128)
        .map(|_| (rng.next_u64() % 9) as f32 - 4.0)
        .collect();
    let want: Vec<f32> = (0..rows * 64)
        .map(|e| {
            let (r, c) = (e / 64, e % 64);
            let t = |c: usize| (1..=4).map(|k| x[r * 128 + c] * k as f32).sum::<f32>();
            t(127 - c) - t(c)
        })
        .collect();
    for device in common::devices("own steps") {
        let program = OwnSteps::load(&device).unwrap();
        let dx = DeviceBuffer::from_slice(&device, &x).unwrap();
        let mut dy = DeviceBuffer::<f32>::zeros(&device, rows * 64).unwrap();
        program
            .run(OwnStepsArgs {
                R: rows as i64,
                X: &dx,
                Y: &mut dy,
            })
            .unwrap();
        assert_eq!(dy.to_vec().unwrap(), want, "on {}", device.name());
    }
    let id = |n: &str| ir.container_by_name(n).unwrap();
    let mut data = Data::new();
    data.insert(
        id("X"),
        (vec![rows, 128], x.iter().map(|&v| Value::F32(v)).collect()),
    );
    data.insert(id("Y"), (vec![rows, 64], vec![Value::F32(0.0); rows * 64]));
    let (got, fault) =
        simulate_map(&ir, &ptx, 0, &[Value::I64(rows as i64)], &data, [2, 1, 1]).unwrap();
    assert_eq!(fault, 0);
    let sim: Vec<Value> = want.iter().map(|&v| Value::F32(v)).collect();
    assert_eq!(got[&id("Y")].1, sim);
}

/// On the CPU device, block reductions into one element from every block
/// iteration combine per chunk of block iterations, then in chunk order:
/// the same bits on every run with the same thread count (floats whose sum
/// depends on the order), and within the reassociation bound.
#[test]
fn reductions_from_every_block_are_deterministic_for_a_thread_count() {
    let (blocks, chunk) = (53usize, 301usize);
    let mut rng = Rng::new(77);
    let x: Vec<f32> = (0..blocks * chunk)
        .map(|_| rng.signed_unit() as f32 * 1000.0)
        .collect();
    let exact: f64 = x.iter().map(|&v| v as f64).sum();
    let bound: f64 = x.iter().map(|&v| (v as f64).abs()).sum::<f64>() * 1e-5;
    let max = x.iter().copied().fold(f32::MIN, f32::max);
    for threads in [1usize, 2, 3, 8] {
        let device = Device::cpu_with_threads(threads);
        let program = BlockTotals::load(&device).unwrap();
        let dx = DeviceBuffer::from_slice(&device, &x).unwrap();
        let mut first = None;
        for _ in 0..6 {
            let mut ds = DeviceBuffer::from_slice(&device, &[0.0f32]).unwrap();
            let mut dt = DeviceBuffer::from_slice(&device, &[0.0f32]).unwrap();
            let mut dm = DeviceBuffer::from_slice(&device, &[f32::MIN]).unwrap();
            program
                .run(BlockTotalsArgs {
                    BLOCKS: blocks as i64,
                    CHUNK: chunk as i64,
                    X: &dx,
                    S: &mut ds,
                    T: &mut dt,
                    M: &mut dm,
                })
                .unwrap();
            let got = [
                ds.to_vec().unwrap()[0],
                dt.to_vec().unwrap()[0],
                dm.to_vec().unwrap()[0],
            ];
            assert!(
                (got[0] as f64 - exact * 0.5).abs() <= bound,
                "{got:?} vs {exact}"
            );
            assert!((got[1] as f64 - exact).abs() <= bound, "{got:?} vs {exact}");
            assert_eq!(got[2], max);
            let bits = got.map(f32::to_bits);
            match first {
                None => first = Some(bits),
                Some(f) => assert_eq!(f, bits, "run to run on {threads} threads"),
            }
        }
    }
}

sdfg::sdfg! {
    /// A float sum and a float maximum per row as block reductions.
    pub sdfg BlockSums {
        symbol R: i64;
        symbol C: i64;
        gpu X: f32[R, C];
        gpu P: f32[R];
        gpu S: f64[R];
        state s {
            map rows[r in 0..R] on gpu block(64) {
                shared p: f32;
                shared t: f64;
                p = -1.0e30;
                t = 0.5;
                map m[i in 0..C] on threads {
                    p = p.max(X[r, i]);
                    t += X[r, i] as f64 * 1.0e-3;
                }
                P[r] = p;
                S[r] = t;
            }
        }
    }
}

/// Block reductions in the GPU kernel's order on the CPU device: thread
/// `q mod 64` combines its iterations in order, then the butterfly tree
/// (`__glue::block::tree`, `Option`s: no update, no value). Rows shorter
/// than the block leave threads without updates: their identity partials
/// (`-0.0` for the sum, NaN for the maximum) change no bit, also with NaN
/// and signed zeros among the values.
#[test]
fn block_reductions_follow_the_kernel_order_with_idle_threads() {
    use sdfg::runtime::__glue::block::tree;
    use sdfg::runtime::MinMaxNumber;
    let device = Device::cpu_with_threads(2);
    let program = BlockSums::load(&device).unwrap();
    for cols in [1usize, 5, 64, 150] {
        let rows = 3usize;
        let mut rng = Rng::new(cols as u64 + 5);
        let mut x: Vec<f32> = (0..rows * cols)
            .map(|_| rng.signed_unit() as f32 * 100.0)
            .collect();
        for (k, v) in x.iter_mut().enumerate() {
            match k % 11 {
                3 => *v = f32::NAN,
                5 => *v = -0.0,
                7 => *v = 0.0,
                _ => {}
            }
        }
        let dx = DeviceBuffer::from_slice(&device, &x).unwrap();
        let mut dp = DeviceBuffer::<f32>::zeros(&device, rows).unwrap();
        let mut ds = DeviceBuffer::<f64>::zeros(&device, rows).unwrap();
        program
            .run(BlockSumsArgs {
                R: rows as i64,
                C: cols as i64,
                X: &dx,
                P: &mut dp,
                S: &mut ds,
            })
            .unwrap();
        let (p, s) = (dp.to_vec().unwrap(), ds.to_vec().unwrap());
        for r in 0..rows {
            let row = &x[r * cols..(r + 1) * cols];
            let mut maxes: Vec<Option<f32>> = vec![None; 64];
            let mut sums: Vec<Option<f64>> = vec![None; 64];
            for (q, &v) in row.iter().enumerate() {
                let t = q % 64;
                maxes[t] = Some(maxes[t].map_or(v, |a| a.max_number(v)));
                let w = v as f64 * 1.0e-3;
                sums[t] = Some(sums[t].map_or(w, |a| a + w));
            }
            let want_p = (-1.0e30f32).max_number(tree(&maxes, f32::max_number).unwrap());
            let want_s = 0.5 + tree(&sums, |a, b| a + b).unwrap();
            let what = format!("row {r} of {cols} columns");
            assert_eq!(p[r].to_bits(), want_p.to_bits(), "{what}");
            assert_eq!(s[r].to_bits(), want_s.to_bits(), "{what}");
        }
    }
}

sdfg! {
    /// Register data written piecewise across thread maps: the first map
    /// writes element 0, the second reads it and writes element 1, the
    /// third reads both; `big` is longer than the CPU twin copies into a
    /// local array; `mul_add` rounds once (where a separate multiply and
    /// add would round twice).
    pub sdfg RegisterPieces {
        symbol N: i64;
        gpu X: f32[N];
        gpu Y: f32[N];
        gpu Fused: f32[N];
        state s {
            map tiles[t in 0..N / 64] on gpu block(64) {
                register r: f32[2];
                register big: f32[1030];
                map first[i in 0..64] on threads {
                    r[0] = X[t * 64 + i];
                    big[(i * 16 + 3) % 1030] = X[t * 64 + i];
                }
                map second[i in 0..64] on threads { r[1] = r[0].mul_add(r[0], -1.0); }
                map third[i in 0..64] on threads {
                    Y[t * 64 + i] = big[(i * 16 + 3) % 1030] + r[1];
                    Fused[t * 64 + i] = r[1];
                }
            }
        }
    }
}

/// Register data keeps each GPU thread's elements from one thread map to
/// the next, also the ones a map does not write (the CPU device's twin
/// copies a thread's register array into a local and back around each
/// iteration); `mul_add` is fused on every device (the twin's FMA copy and
/// its plain copy alike), with the block iterations in one task, on teams
/// (16 threads, 2 block iterations) and on the GPU.
#[test]
fn register_data_survives_thread_maps_and_mul_add_is_fused() {
    let n = 128usize;
    let x = common::fma_witnesses(n);
    let mut devices = common::devices("register pieces");
    devices.push(Device::cpu_with_threads(16));
    for device in devices {
        let teams_before = sdfg::runtime::__glue::block::team_launches();
        let program = RegisterPieces::load(&device).unwrap();
        let xs = DeviceBuffer::from_slice(&device, &x).unwrap();
        let mut ys = DeviceBuffer::from_slice(&device, &vec![f32::NAN; n]).unwrap();
        let mut fused = DeviceBuffer::from_slice(&device, &vec![f32::NAN; n]).unwrap();
        program
            .run(RegisterPiecesArgs {
                N: n as i64,
                X: &xs,
                Y: &mut ys,
                Fused: &mut fused,
            })
            .unwrap();
        let (y, f) = (ys.to_vec().unwrap(), fused.to_vec().unwrap());
        let unfused = (0..n).filter(|&i| f[i] != x[i] * x[i] - 1.0).count();
        assert_eq!(
            unfused,
            n / 2,
            "odd k tells fused from not, on {}",
            device.name()
        );
        for i in 0..n {
            let xi = x[i] as f64;
            let want = (xi * xi - 1.0) as f32; // exact in f64, so one rounding
            assert_eq!(
                f[i].to_bits(),
                want.to_bits(),
                "Fused[{i}] on {}",
                device.name()
            );
            assert_eq!(y[i], x[i] + want, "Y[{i}] on {}", device.name());
        }
        if device.name().contains("16 threads") {
            assert!(sdfg::runtime::__glue::block::team_launches() > teams_before);
        }
    }
}
