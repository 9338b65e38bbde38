sdfg::sdfg! {
    sdfg S {
        state s {}
        state s {}
    }
}

fn main() {}
