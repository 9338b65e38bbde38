sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        gpu A: f64[N];
        state s {
            map m[i in 0..N] on cpu { A[i] = 1.0; }
        }
    }
}

fn main() {}
