sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        gpu A: f64[N];
        #[persistent]
        state step {
            map m[i in 0..N] on gpu { A[i] = 1.0; }
        }
    }
}

fn main() {}
