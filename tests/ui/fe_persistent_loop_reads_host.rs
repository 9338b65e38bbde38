sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        gpu A: f64[N];
        host LIMIT: i64;
        state init {}
        #[persistent]
        state step {
            map m[i in 0..N] on gpu { A[i] = 0.5 * A[i]; }
        }
        init -> step { t = 0 }
        step -> step if t + 1 < LIMIT { t = t + 1 }
    }
}

fn main() {}
