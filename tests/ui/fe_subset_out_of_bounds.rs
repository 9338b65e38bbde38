sdfg::sdfg! {
    sdfg S {
        gpu G: f32[8];
        host H: f32[16];
        state s {
            copy G[0..16] -> H;
        }
    }
}

fn main() {}
