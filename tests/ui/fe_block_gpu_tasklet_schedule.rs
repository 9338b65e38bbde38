sdfg::sdfg! {
    sdfg S {
        gpu G: f32;
        state s {
            tasklet seed on cpu { G = 1.0; }
        }
    }
}

fn main() {}
