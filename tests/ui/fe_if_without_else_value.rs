sdfg::sdfg! {
    sdfg S {
        host A: f64[4];
        state s {
            tasklet t { A[0] = if A[1] > 0.0 { 1.0 }; }
        }
    }
}

fn main() {}
