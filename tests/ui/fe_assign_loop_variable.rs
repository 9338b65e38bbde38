sdfg::sdfg! {
    sdfg S {
        host A: i32[4];
        state s {
            tasklet t { for k in 0..4 { k = 0; A[0] = k; } }
        }
    }
}

fn main() {}
