sdfg::sdfg! {
    sdfg S {
        gpu T_GPU: i32;
        host U: i32[1];
        state s {
            tasklet t { U[0] = T_GPU + 1; }
        }
    }
}

fn main() {}
