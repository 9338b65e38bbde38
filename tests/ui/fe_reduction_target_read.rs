sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        gpu Sum: f64[1];
        gpu X: f64[N];
        state s {
            map m[i in 0..N] on gpu { Sum[0] += X[i] / Sum[0]; }
        }
    }
}

fn main() {}
