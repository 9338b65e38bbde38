sdfg::sdfg! {
    sdfg S {
        state first {}
        state second {}
        first -> secnod;
    }
}

fn main() {}
