sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        host A: f64[N];
        state s {
            tasklet t { A[0] = B[0]; }
            map m[i in 0..N] on cpu { A[i] = i; }
        }
        s -> done;
    }
}

fn main() {}
