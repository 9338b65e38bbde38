// `M[r]` does not depend on `c`: every column of a row writes the same element.
sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        symbol C: i64;
        gpu M: f64[R];
        gpu X: f64[R, C];
        state s {
            map last[r in 0..R, c in 0..C] on gpu { M[r] = X[r, c]; }
        }
    }
}

fn main() {}
