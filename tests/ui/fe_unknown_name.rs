sdfg::sdfg! {
    sdfg S {
        host A: f64[4];
        state s {
            tasklet t { let scale = 2.0; A[0] = scal * A[1]; }
        }
    }
}

fn main() {}
