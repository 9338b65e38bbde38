sdfg::sdfg! {
    sdfg S {
        gpu G: i32;
        host T: i32;
        state s {
            copy G -> T;
            wait T;
        }
    }
}

fn main() {}
