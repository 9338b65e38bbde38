sdfg::sdfg! {
    sdfg S {
        symbol N: i64; symbol T: i64;
        gpu A: f64[N];
        gpu S0: f64;
        state init {}
        #[persistent]
        state step {
            tasklet first on gpu { S0 = A[0]; }
            map rows[r in 0..N] on gpu block(32) {
                map e[c in 0..1] on threads { A[r] = 2.0 * A[r]; }
            }
        }
        init -> step { t = 0 }
        step -> step if t + 1 < T { t = t + 1 }
    }
}

fn main() {}
