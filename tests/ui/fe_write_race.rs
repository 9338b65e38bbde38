sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        gpu A: f64[N];
        state s {
            map zero[i in 0..N] on gpu { A[i] = 0.0; }
            map one[i in 0..N] on gpu { A[i] = 1.0; }
        }
    }
}

fn main() {}
