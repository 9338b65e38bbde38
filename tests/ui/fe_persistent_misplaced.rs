sdfg::sdfg! {
    #[persistent]
    sdfg S {
        symbol N: i64; symbol T: i64;
        gpu A: f64[N];
        state init {}
        state empty {}
        state step {
            #[persistent]
            map m[i in 0..N] on gpu { A[i] = 0.5 * A[i]; }
        }
        init -> empty;
        empty -> empty if T < 0;
        #[persistent]
        empty -> step { t = 0 }
        step -> step if t + 1 < T { t = t + 1 }
    }
}

fn main() {}
