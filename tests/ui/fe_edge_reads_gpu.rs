sdfg::sdfg! {
    sdfg S {
        gpu T: i32;
        state a {}
        state b {}
        a -> b if T > 0;
    }
}

fn main() {}
