sdfg::sdfg! {
    sdfg S {
        host X: i64[1];
        state s {
            tasklet t { X[0] += 1; }
        }
        s -> s;
    }
}

fn main() {}
