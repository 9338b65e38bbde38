sdfg::sdfg! {
    sdfg S {
        host X: f64;
        state a {}
        state b {}
        a -> b { scale = X; }
    }
}

fn main() {}
