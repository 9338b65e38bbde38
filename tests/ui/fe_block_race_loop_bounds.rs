// Each block walks rows `r..r + 2` of `Y`: the rows of neighbouring blocks
// overlap, and the witness says why the test cannot tell them apart (the
// loop's bounds read the block's parameter, so `q` may be any value).
sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        gpu X: f32[R, 4];
        gpu Y: f32[R, 4];
        state s {
            map rows[r in 0..R - 1] on gpu block(32) {
                for q in r..r + 2 {
                    map w[t in 0..4] on threads { Y[q, t] = X[r, t]; }
                }
            }
        }
    }
}

fn main() {}
