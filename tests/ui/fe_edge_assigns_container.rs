sdfg::sdfg! {
    sdfg S {
        host T: i32;
        state a {}
        state b {}
        a -> b { T = 1; }
    }
}

fn main() {}
