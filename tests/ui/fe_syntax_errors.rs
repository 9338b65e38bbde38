sdfg::sdfg! {
    sdfg S {
        host A: f64[4]
        state s {
            map m[i in 0..4] gpu { A[i] = 1.0; }
        }
    }
}

fn main() {}
