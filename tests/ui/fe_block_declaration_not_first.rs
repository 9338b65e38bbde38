sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        gpu X: f32[R];
        state s {
            map rows[r in 0..R] on gpu block(64) {
                X[r] = 0.0;
                shared s: f32;
                s = 1.0;
            }
        }
    }
}

fn main() {}
