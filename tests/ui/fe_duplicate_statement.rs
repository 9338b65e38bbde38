sdfg::sdfg! {
    sdfg S {
        host A: f64[4];
        host B: f64[4];
        state s {
            tasklet init { A[0] = 1.0; }
            tasklet init { B[0] = 1.0; }
        }
    }
}

fn main() {}
