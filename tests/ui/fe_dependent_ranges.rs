// A map range may read the parameters before it, as `+`, `-` and `*` of
// them, symbols and literals; not a later one, not in its step.
sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        host A: f64[N, N];
        state s {
            map later[j in 0..i, i in 0..N] on cpu { A[i, j] = 1.0; }
            map quotient[i in 0..N, j in 0..i / 2] on cpu { A[i, j] = 2.0; }
            map step[i in 1..N, j in (0..N).step_by(i)] on cpu { A[i, j] = 3.0; }
        }
    }
}

fn main() {}
