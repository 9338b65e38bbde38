// Two block iterations (rows) write the same elements of `Out`: the race
// test of whole maps sees the thread map's parameter as a free variable.
sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        symbol C: i64;
        gpu X: f32[R, C];
        gpu Out: f32[C];
        state s {
            map rows[r in 0..R] on gpu block(128) {
                map cols[c in 0..C] on threads { Out[c] = X[r, c]; }
            }
        }
    }
}

fn main() {}
