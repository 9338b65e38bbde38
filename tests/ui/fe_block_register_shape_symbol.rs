sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        symbol K: i64;
        gpu X: f32[R];
        state s {
            map rows[r in 0..R] on gpu block(64) {
                register acc: f32[K];
                map t[i in 0..64] on threads { acc[0] = 1.0; }
                X[r] = 0.0;
            }
        }
    }
}

fn main() {}
