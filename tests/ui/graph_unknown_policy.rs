sdfg::sdfg! {
    #[graph(on)]
    sdfg S {
        state s {}
    }
}

fn main() {}
