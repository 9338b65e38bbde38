sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        gpu X: f32[R];
        state s {
            map rows[r in 0..R] on gpu block(64) {
                shared X: f32;
                X = 1.0;
            }
        }
    }
}

fn main() {}
