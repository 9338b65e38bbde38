sdfg::sdfg! {
    #[graphs(off)]
    sdfg S {
        state s {}
    }
}

fn main() {}
