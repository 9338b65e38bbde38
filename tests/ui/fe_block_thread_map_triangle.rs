sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        gpu X: f32[R, 8, 8];
        state s {
            map rows[r in 0..R] on gpu block(64) {
                map lower[i in 0..8, j in 0..i + 1] on threads { X[r, i, j] = 1.0; }
            }
        }
    }
}

fn main() {}
