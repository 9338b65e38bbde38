// An array statement pairs the sliced dimensions of every operand with
// the target's: their lengths must be equal for every value of the symbols.
sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        symbol M: i64;
        host A: f64[N];
        host B: f64[M];
        host G: f64[N, N];
        state s {
            A = B * 2.0;
            A[1..N] = G[0..N - 1, 0..N - 1];
        }
    }
}

fn main() {}
