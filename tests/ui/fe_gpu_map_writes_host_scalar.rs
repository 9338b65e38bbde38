sdfg::sdfg! {
    sdfg S {
        host T: i32;
        state s {
            map m[i in 0..1] on gpu { T = 10; }
        }
    }
}

fn main() {}
