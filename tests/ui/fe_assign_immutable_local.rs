sdfg::sdfg! {
    sdfg S {
        host A: f64[4];
        state s {
            tasklet t { let x = 1.0; x = 2.0; A[0] = x; }
        }
    }
}

fn main() {}
