sdfg::sdfg! {
    sdfg S {
        host A: f46[4];
        state s {}
    }
}

fn main() {}
