sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        gpu X: f32[R, 64];
        state s {
            map rows[r in 0..R] on gpu block(64) {
                map t[c in 0..64] on threads { X[r, c] = 0.0; }
                map t[c in 0..64] on threads { X[r, c] = 1.0; }
            }
        }
    }
}

fn main() {}
