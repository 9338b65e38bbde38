sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        state s {
            tasklet t { N = 3; }
        }
    }
}

fn main() {}
