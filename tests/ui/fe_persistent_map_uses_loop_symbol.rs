sdfg::sdfg! {
    sdfg S {
        symbol N: i64; symbol T: i64;
        gpu A: f64[N];
        state init {}
        #[persistent]
        state step {
            map m[i in 0..N] on gpu { A[i] = A[i] + (t as f64); }
        }
        init -> step { t = 0 }
        step -> step if t + 1 < T { t = t + 1 }
    }
}

fn main() {}
