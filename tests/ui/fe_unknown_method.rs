sdfg::sdfg! {
    sdfg S {
        host A: f64[4];
        state s {
            tasklet t { A[0] = A[1].sqr(); }
        }
    }
}

fn main() {}
