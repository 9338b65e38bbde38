sdfg::sdfg! {
    sdfg S {
        host A: f64[4];
        host I: i32[4];
        state s {
            tasklet t { A[0] = A[1] + I[0]; }
        }
    }
}

fn main() {}
