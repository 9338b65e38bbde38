sdfg::sdfg! {
    sdfg S {
        gpu G: f32[8];
        host H: f64[8];
        state s {
            copy G -> H;
        }
    }
}

fn main() {}
