sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        gpu X: f32[R, 32];
        state s {
            map rows[r in 0..R] on gpu block(32) {
                register acc: f32;
                map init[t in 0..32] on threads { acc = X[r, t]; }
                if acc > 0.0 {
                    map write[t in 0..32] on threads { X[r, t] = acc; }
                }
            }
        }
    }
}

fn main() {}
