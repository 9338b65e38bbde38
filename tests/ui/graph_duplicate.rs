sdfg::sdfg! {
    #[graph(auto)]
    #[graph(off)]
    sdfg S {
        state s {}
    }
}

fn main() {}
