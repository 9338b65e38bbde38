sdfg::sdfg! {
    sdfg S {
        symbol N: i64; symbol T: i64;
        gpu A: f64[N];
        host H: f64[N];
        host H2: f64[N];
        host H3: f64[N];
        gpu G: f64;
        host X: f64;
        state init {}
        #[persistent]
        state step {
            map m[i in 0..N] on gpu { A[i] = 0.5 * A[i]; }
            map h[i in 0..N] on cpu { H[i] = 1.0; }
            tasklet t { H2[0] = 2.0; }
            copy A -> H3;
            map g[i in 0..N] on gpu { A[i] = A[i] + X; }
        }
        init -> step { t = 0 }
        step -> step if t + 1 < T { t = t + 1 }
    }
}

fn main() {}
