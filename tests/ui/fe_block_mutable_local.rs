sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        gpu X: f32[R];
        state s {
            map rows[r in 0..R] on gpu block(64) {
                let mut base = r * 2;
                X[r] = base as f32;
            }
        }
    }
}

fn main() {}
