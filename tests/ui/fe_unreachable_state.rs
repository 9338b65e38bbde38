sdfg::sdfg! {
    sdfg S {
        state first {}
        state second {}
        state orphan {}
        first -> second;
    }
}

fn main() {}
