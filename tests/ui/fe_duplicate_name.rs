sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        host N: f64[4];
        state s {}
    }
}

fn main() {}
