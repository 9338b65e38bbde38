sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        gpu A: f64[N, N];
        state s {
            map m[i in 0..N, j in 0..N] on gpu { A[i][j] = 0.0; }
        }
    }
}

fn main() {}
