sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        host X: f64[N];
        gpu Y: f64[N];
        state s {
            map m[i in 0..N] on gpu { Y[i] = 2.0 * X[i]; }
        }
    }
}

fn main() {}
