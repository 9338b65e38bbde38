sdfg::sdfg! {
    sdfg S {
        host U: i32[4];
        state s {
            tasklet t { U[4] = 1; }
        }
    }
}

fn main() {}
