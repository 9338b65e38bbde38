// A nested sdfg runs under the attributes of the sdfg it is declared in.
sdfg::sdfg! {
    sdfg Outer {
        gpu G: f64[4];
        #[streams(auto)]
        sdfg Inner {
            gpu A: f64[4];
            state s { map m[i in 0..4] on gpu { A[i] = 0.0; } }
        }
        state s { Inner(A = G); }
    }
}

fn main() {}
