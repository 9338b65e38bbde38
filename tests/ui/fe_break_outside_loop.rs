// `break` and `continue` leave loops of the body; a map iteration is not one.
sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        host A: f64[N];
        state s {
            map m[i in 0..N] on cpu {
                if A[i] < 0.0 { continue; }
                A[i] = A[i].sqrt();
            }
        }
    }
}

fn main() {}
