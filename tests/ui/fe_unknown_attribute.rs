sdfg::sdfg! {
    #[streams(many)]
    #[stream(auto)]
    sdfg S {
        state s {}
    }
}

fn main() {}
