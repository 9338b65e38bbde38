sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        gpu X: f32[R, 64];
        state s {
            map rows[r in 0..R] on gpu block(64) {
                shared total: f32;
                total = 0.0;
                map t[c in 0..64] on threads { total += X[r, c] / total; }
                X[r, 0] = total;
            }
        }
    }
}

fn main() {}
