sdfg::sdfg! {
    sdfg S {
        symbol N: i64; symbol T: i64;
        gpu A: f64[N, N];
        gpu R: f64[N];
        state init {}
        #[persistent]
        state step {
            map a[i in 0..N, j in 0..N] on gpu { A[i, j] = 0.5 * A[i, j]; }
            map r[i in 0..N] on gpu { R[i] = A[i, 0]; }
        }
        init -> step { t = 0 }
        step -> step if t + 1 < T { t = t + 1 }
    }
}

fn main() {}
