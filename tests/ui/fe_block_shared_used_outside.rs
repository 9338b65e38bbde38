sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        gpu X: f32[R];
        state s {
            map rows[r in 0..R] on gpu block(64) {
                shared tile: f32[64];
                tile[0] = 1.0;
                X[r] = tile[0];
            }
            map other[i in 0..R] on gpu { X[i] = tile[0]; }
        }
    }
}

fn main() {}
