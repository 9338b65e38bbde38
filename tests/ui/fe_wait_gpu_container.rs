sdfg::sdfg! {
    #[sync(manual)]
    sdfg S {
        gpu G: i32;
        state s {
            wait G;
        }
    }
}

fn main() {}
