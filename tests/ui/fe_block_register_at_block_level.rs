sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        gpu X: f32[R];
        state s {
            map rows[r in 0..R] on gpu block(32) {
                register acc: f32;
                map init[t in 0..32] on threads { acc = 0.0; }
                X[r] = acc;
            }
        }
    }
}

fn main() {}
