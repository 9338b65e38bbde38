//! Block maps: shared data, register data, thread maps, barriers, block
//! reductions, run on the interpreter (every warp of a block up to each
//! barrier) against the evaluator.

use super::*;

fn lower(src: &str) -> Sdfg {
    match sdfg_compiler::frontend_str(src) {
        Ok(s) => s,
        Err(d) => panic!("{d}"),
    }
}

#[test]
fn softmax_smoke() {
    let sdfg = lower(
        r#"
    sdfg Softmax {
        symbol ROWS: i64;
        symbol COLS: i64;
        gpu X: f32[ROWS, COLS];
        gpu Y: f32[ROWS, COLS];
        state s {
            map row[r in 0..ROWS] on gpu block(64) {
                shared mx: f32;
                shared sm: f32;
                mx = -3.0e38;
                sm = 0.0;
                map reduce_max[c in 0..COLS] on threads { mx = mx.max(X[r, c]); }
                map reduce_sum[c in 0..COLS] on threads { sm += X[r, c] - mx; }
                map write[c in 0..COLS] on threads { Y[r, c] = (X[r, c] - mx) * sm; }
            }
        }
    }"#,
    );
    let (rows, cols) = (5usize, 300usize);
    let x: Vec<Value> = (0..rows * cols)
        .map(|i| Value::F32(((i * 7919) % 61) as f32))
        .collect();
    let mut d = Data::new();
    d.insert(0, (vec![rows, cols], x));
    d.insert(1, (vec![rows, cols], vec![Value::F32(0.0); rows * cols]));
    check(
        "softmax",
        &sdfg,
        &[Value::I64(rows as i64), Value::I64(cols as i64)],
        &d,
        &[[1, 1, 1], [2, 1, 1], [7, 1, 1]],
    );
}
