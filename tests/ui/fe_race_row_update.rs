// Every `c` of one row updates `M[r]`: an iteration may read `M[r]` while
// another writes it, so the result depends on the order of the iterations.
sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        symbol C: i64;
        gpu M: f64[R];
        gpu X: f64[R, C];
        state s {
            map rows[r in 0..R, c in 0..C] on gpu { M[r] = M[r] * 0.5 + X[r, c]; }
        }
    }
}

fn main() {}
