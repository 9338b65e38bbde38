sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        host X: f64[N];
        state a {}
        state b {}
        a -> b { N = N + 1; }
    }
}

fn main() {}
