sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        state a {}
        state b {}
        a -> b { N = 2.5; }
    }
}

fn main() {}
