sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        gpu A: f64[N];
        #[graph(off)]
        state s {
            map m[i in 0..N] on gpu { A[i] = 1.0; }
        }
    }
}

fn main() {}
