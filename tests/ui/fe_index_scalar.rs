sdfg::sdfg! {
    sdfg S {
        host T: i32;
        state s {
            tasklet t { T[0] = 1; }
        }
    }
}

fn main() {}
