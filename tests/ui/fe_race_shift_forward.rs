// Iteration `i` writes `X[i + 1]`, which iteration `i + 1` reads.
sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        gpu X: f64[N];
        state s {
            map prefix[i in 0..N - 1] on gpu { X[i + 1] = X[i] + 1.0; }
        }
    }
}

fn main() {}
