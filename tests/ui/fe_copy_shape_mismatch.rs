sdfg::sdfg! {
    sdfg S {
        gpu G: f32[8];
        host H: f32[4];
        state s {
            copy G -> H;
        }
    }
}

fn main() {}
