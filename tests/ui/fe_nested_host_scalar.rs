// A gpu map takes a host scalar by value, so a callee's host scalar that a
// gpu map reads binds to a host scalar, not to an element of an array.
sdfg::sdfg! {
    sdfg Outer {
        host Factors: f64[2];
        gpu G: f64[16];
        sdfg Scale {
            host a: f64;
            gpu A: f64[16];
            state s { map m[i in 0..16] on gpu { A[i] = a * A[i]; } }
        }
        state s {
            Scale(a = Factors[1], A = G);
        }
    }
}

fn main() {}
