sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        state a {}
        state b {}
        a -> b if N;
    }
}

fn main() {}
