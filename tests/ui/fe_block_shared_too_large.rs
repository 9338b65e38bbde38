sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        gpu X: f32[R];
        state s {
            map rows[r in 0..R] on gpu block(256) {
                shared big: f64[256, 256];
                big[0, 0] = 1.0;
                X[r] = big[0, 0] as f32;
            }
        }
    }
}

fn main() {}
