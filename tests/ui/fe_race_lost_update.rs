// A sum written as a plain update loses the updates of other iterations;
// the help suggests the reduction `M[r] += X[r, c];`.
sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        symbol C: i64;
        host M: f64[R];
        host X: f64[R, C];
        state s {
            map sum[r in 0..R, c in 0..C] on cpu { M[r] = M[r] + X[r, c]; }
        }
    }
}

fn main() {}
