sdfg::sdfg! {
    sdfg S {
        host A: f64[4];
        host B: f64[4];
        state s {
            tasklet t { B[0] = A; }
        }
    }
}

fn main() {}
