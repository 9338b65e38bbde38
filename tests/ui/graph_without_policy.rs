sdfg::sdfg! {
    #[graph]
    sdfg S {
        state s {}
    }
}

fn main() {}
